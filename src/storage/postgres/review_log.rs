//! The review log and the guarded state change on PostgreSQL: the SQL of
//! [`ReviewRead`](crate::storage::ReviewRead) and
//! [`WriteTx`](crate::storage::WriteTx), run on a connection inside the
//! caller's transaction. A database without `review_log` is one where
//! nothing was decided yet.

use std::ops::ControlFlow;

use postgres::Client;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;

use super::schema::{REVIEW_LOG_SQL, Shape, TimeColumn};
use crate::model::{
    BatchRow, LOG_COLUMNS, LogEntry, NewEntry, ReceiptId, ReceiptStamp, ReceiptState,
};
use crate::storage::error::LogError;
use crate::storage::log_entry::StoredEntry;

impl From<postgres::Error> for LogError {
    fn from(e: postgres::Error) -> Self {
        let (failure, detail) = super::connect::failure(&e);
        LogError::Engine { failure, detail }
    }
}

fn select() -> String {
    LOG_COLUMNS
        .iter()
        .map(|c| match *c {
            "id" | "reopens" | "kept" | "batch" => format!("{c}::bigint"),
            c => format!("{c}::text"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn log_exists(client: &mut Client) -> Result<bool, LogError> {
    Ok(client
        .query_one("SELECT to_regclass('review_log') IS NOT NULL", &[])?
        .get(0))
}

fn entry_from_row(row: &postgres::Row) -> Result<LogEntry, LogError> {
    StoredEntry {
        id: row.get(0),
        item: row.get(1),
        kind: row.get(2),
        decision: row.get(3),
        operator: row.get(4),
        decided_at: row.get(5),
        receipt_ids: row.get(6),
        note: row.get(7),
        reopens: row.get(8),
        state_before: row.get(9),
        state_after: row.get(10),
        updated_at_before: row.get(11),
        updated_at_after: row.get(12),
        kept: row.get(13),
        batch: row.get(14),
    }
    .into_entry()
}

fn entries(
    client: &mut Client,
    filter: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<LogEntry>, LogError> {
    if !log_exists(client)? {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT {} FROM review_log d {filter}", select());
    client
        .query(&sql, params)?
        .iter()
        .map(entry_from_row)
        .collect()
}

fn first(
    client: &mut Client,
    filter: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Option<LogEntry>, LogError> {
    Ok(entries(client, filter, params)?.into_iter().next())
}

pub fn each_entry(
    client: &mut Client,
    each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
) -> Result<usize, LogError> {
    if !log_exists(client)? {
        return Ok(0);
    }
    let sql = format!("SELECT {} FROM review_log ORDER BY id", select());
    let mut rows = client.query_raw(&sql, std::iter::empty::<&(dyn ToSql + Sync)>())?;
    let mut n = 0;
    while let Some(row) = rows.next()? {
        n += 1;
        if each(entry_from_row(&row)?).is_break() {
            break;
        }
    }
    Ok(n)
}

pub fn history(client: &mut Client, item: &str) -> Result<Vec<LogEntry>, LogError> {
    entries(client, "WHERE item = $1 ORDER BY id", &[&item])
}

pub fn latest_entry(client: &mut Client, item: &str) -> Result<Option<LogEntry>, LogError> {
    first(client, "WHERE item = $1 ORDER BY id DESC LIMIT 1", &[&item])
}

pub fn entry(client: &mut Client, id: i64) -> Result<Option<LogEntry>, LogError> {
    first(client, "WHERE id = $1", &[&id])
}

pub fn batch_entries(client: &mut Client, batch: i64) -> Result<Vec<LogEntry>, LogError> {
    entries(client, "WHERE batch = $1 ORDER BY id", &[&batch])
}

pub fn latest_log_id(client: &mut Client) -> Result<Option<i64>, LogError> {
    if !log_exists(client)? {
        return Ok(None);
    }
    Ok(client
        .query_one("SELECT max(id)::bigint FROM review_log", &[])?
        .get(0))
}

/// The latest erasure row's id (found by the item index: `erase:…`).
pub fn latest_erasure_id(client: &mut Client) -> Result<Option<i64>, LogError> {
    if !log_exists(client)? {
        return Ok(None);
    }
    Ok(client
        .query_one(
            "SELECT max(id)::bigint FROM review_log WHERE item >= 'erase:' AND item < 'erase;'",
            &[],
        )?
        .get(0))
}

pub fn latest_standing_decision_by(
    client: &mut Client,
    operator: &str,
) -> Result<Option<LogEntry>, LogError> {
    first(
        client,
        "WHERE d.operator = $1 AND d.decision NOT IN ('reopened', 'erased') \
           AND d.id = (SELECT max(x.id) FROM review_log x WHERE x.item = d.item) \
         ORDER BY d.id DESC LIMIT 1",
        &[&operator],
    )
}

pub fn latest_unreopened_decision_by(
    client: &mut Client,
    operator: &str,
    after: Option<i64>,
) -> Result<Option<LogEntry>, LogError> {
    first(
        client,
        "WHERE d.operator = $1 AND d.decision NOT IN ('reopened', 'erased') AND d.id > $2 \
           AND NOT EXISTS (SELECT 1 FROM review_log r WHERE r.reopens = d.id) \
         ORDER BY d.id DESC LIMIT 1",
        &[&operator, &after.unwrap_or(i64::MIN)],
    )
}

/// The payload, and every refused body of its key, become `tombstone`. The
/// old row versions stay in the tables' pages until they are rewritten
/// (`Storage::scrub`).
pub fn erase_receipt(
    client: &mut Client,
    shape: &Shape,
    receipt_id: ReceiptId,
    tombstone: &str,
) -> Result<crate::storage::Erasing, LogError> {
    use crate::storage::Erasing;
    // Another erasure of this receipt that committed while this one waited
    // for the row is seen here (READ COMMITTED re-reads the row): skipped.
    let changed = client.execute(
        &format!(
            "UPDATE receipts SET payload = $1 WHERE id = $2 AND {}",
            crate::storage::NOT_A_TOMBSTONE_SQL
        ),
        &[&tombstone, &receipt_id],
    )?;
    if changed == 0 {
        let there: i64 = client
            .query_one(
                "SELECT count(*) FROM receipts WHERE id = $1",
                &[&receipt_id],
            )?
            .get(0);
        return Ok(if there > 0 {
            Erasing::AlreadyErased
        } else {
            Erasing::NoSuchReceipt
        });
    }
    if shape.source.key_conflicts.is_usable() {
        client.execute(
            "UPDATE key_conflicts SET payload = $1 WHERE receipt_id = $2",
            &[&tombstone, &receipt_id],
        )?;
    }
    Ok(Erasing::Erased)
}

/// Creates the log when absent (inside the caller's transaction).
pub fn ensure(client: &mut Client) -> Result<(), LogError> {
    client.batch_execute(REVIEW_LOG_SQL)?;
    Ok(())
}

pub fn append(client: &mut Client, row: &NewEntry<'_>) -> Result<LogEntry, LogError> {
    let ids = serde_json::to_string(row.receipt_ids).expect("a list of integers serialises");
    let id: i64 = client
        .query_one(
            "SELECT nextval(pg_get_serial_sequence('review_log', 'id'))",
            &[],
        )?
        .get(0);
    let batch = match row.batch {
        None => None,
        Some(BatchRow::Of(first)) => Some(first),
        Some(BatchRow::First) => Some(id),
    };
    let state = row.state;
    client.execute(
        "INSERT INTO review_log (id, item, kind, decision, operator, decided_at, receipt_ids, note, \
         reopens, state_before, state_after, updated_at_before, updated_at_after, kept, batch) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        &[
            &id,
            &row.item,
            &row.kind.as_str(),
            &row.decision.as_str(),
            &row.operator,
            &row.decided_at,
            &ids,
            &row.note,
            &row.reopens,
            &state.map(|s| s.before.as_str()),
            &state.map(|s| s.after.as_str()),
            &state.and_then(|s| s.updated_before.as_deref()),
            &state.and_then(|s| s.updated_after.as_deref()),
            &row.kept,
            &batch,
        ],
    )?;
    entry(client, id)?.ok_or_else(|| LogError::BadRow {
        id,
        detail: crate::t!(crate::i18n::current(), "error.log.lost_row").into(),
    })
}

pub fn receipt_state(
    client: &mut Client,
    shape: &Shape,
    receipt_id: ReceiptId,
) -> Result<Option<ReceiptStamp>, LogError> {
    if !shape.source.columns.state {
        return Ok(None);
    }
    let updated = if shape.source.columns.updated_at {
        shape.updated_at.select("updated_at")
    } else {
        "NULL::text".into()
    };
    let sql = format!("SELECT \"state\"::text, {updated} FROM receipts WHERE id = $1");
    Ok(client
        .query_opt(&sql, &[&receipt_id])?
        .map(|row| ReceiptStamp {
            state: row.get(0),
            updated_at: row.get(1),
        }))
}

/// `now` as the column stores it: a time for a time column, else the text.
fn stored_time(shape: &Shape) -> &'static str {
    match shape.updated_at {
        TimeColumn::WithZone => "$1::text::timestamptz",
        TimeColumn::WithoutZone => "($1::text::timestamptz AT TIME ZONE 'UTC')",
        _ => "$1",
    }
}

pub fn set_state_if_in_flight(
    client: &mut Client,
    shape: &Shape,
    receipt_id: ReceiptId,
    to: ReceiptState,
    now: &str,
) -> Result<bool, LogError> {
    let changed = if shape.source.columns.updated_at {
        let sql = format!(
            "UPDATE receipts SET state = $2, updated_at = {} WHERE id = $3 AND state = 'in_flight'",
            stored_time(shape)
        );
        client.execute(&sql, &[&now, &to.as_str(), &receipt_id])?
    } else {
        client.execute(
            "UPDATE receipts SET state = $1 WHERE id = $2 AND state = 'in_flight'",
            &[&to.as_str(), &receipt_id],
        )?
    };
    Ok(changed == 1)
}

pub fn revert_state_if(
    client: &mut Client,
    shape: &Shape,
    receipt_id: ReceiptId,
    state: &str,
    updated_at: Option<&str>,
    now: &str,
) -> Result<bool, LogError> {
    let changed = if shape.source.columns.updated_at {
        // Compared as the text it was read as: what the log row recorded.
        let sql = format!(
            "UPDATE receipts SET state = 'in_flight', updated_at = {} \
             WHERE id = $2 AND state = $3 AND {} IS NOT DISTINCT FROM $4",
            stored_time(shape),
            shape.updated_at.select("updated_at"),
        );
        client.execute(&sql, &[&now, &receipt_id, &state, &updated_at])?
    } else {
        client.execute(
            "UPDATE receipts SET state = 'in_flight' WHERE id = $1 AND state = $2",
            &[&receipt_id, &state],
        )?
    };
    Ok(changed == 1)
}

/// [`ReviewRead`](crate::storage::ReviewRead) for a type holding the
/// connection (`client`) and the shape (`shape`) of a transaction: a
/// reading's and a decision's read the log alike.
macro_rules! review_read_on_client {
    ($ty:ty) => {
        impl $crate::storage::backend::ReviewRead for $ty {
            fn log_exists(&mut self) -> Result<bool, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::log_exists(&mut self.client)
            }

            fn each_entry(
                &mut self,
                each: &mut dyn FnMut($crate::model::LogEntry) -> std::ops::ControlFlow<()>,
            ) -> Result<usize, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::each_entry(&mut self.client, each)
            }

            fn history(
                &mut self,
                item: &str,
            ) -> Result<Vec<$crate::model::LogEntry>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::history(&mut self.client, item)
            }

            fn latest_entry(
                &mut self,
                item: &str,
            ) -> Result<Option<$crate::model::LogEntry>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::latest_entry(&mut self.client, item)
            }

            fn entry(
                &mut self,
                id: i64,
            ) -> Result<Option<$crate::model::LogEntry>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::entry(&mut self.client, id)
            }

            fn batch_entries(
                &mut self,
                batch: i64,
            ) -> Result<Vec<$crate::model::LogEntry>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::batch_entries(&mut self.client, batch)
            }

            fn latest_log_id(&mut self) -> Result<Option<i64>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::latest_log_id(&mut self.client)
            }

            fn latest_erasure_id(
                &mut self,
            ) -> Result<Option<i64>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::latest_erasure_id(&mut self.client)
            }

            fn latest_standing_decision_by(
                &mut self,
                operator: &str,
            ) -> Result<Option<$crate::model::LogEntry>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::latest_standing_decision_by(
                    &mut self.client,
                    operator,
                )
            }

            fn latest_unreopened_decision_by(
                &mut self,
                operator: &str,
                after: Option<i64>,
            ) -> Result<Option<$crate::model::LogEntry>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::latest_unreopened_decision_by(
                    &mut self.client,
                    operator,
                    after,
                )
            }

            fn receipt_state(
                &mut self,
                receipt_id: $crate::model::ReceiptId,
            ) -> Result<Option<$crate::model::ReceiptStamp>, $crate::storage::error::LogError> {
                $crate::storage::postgres::review_log::receipt_state(
                    &mut self.client,
                    self.shape,
                    receipt_id,
                )
            }
        }
    };
}

pub(super) use review_read_on_client;
