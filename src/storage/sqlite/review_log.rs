//! The review log and the guarded state change in SQLite: the `review_log`
//! table (`assets/review_log.sql`), created only by writers, and the SQL
//! that reads and appends it and that changes `receipts.state`.
//!
//! Every reader treats a database without `review_log` as one where nothing
//! was decided yet.

use std::ops::ControlFlow;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::model::{
    BatchRow, LOG_COLUMNS, LogEntry, NewEntry, ReceiptId, ReceiptStamp, ReceiptState,
};
use crate::storage::error::LogError;
use crate::storage::log_entry::StoredEntry;
use crate::storage::source::Source;
use crate::storage::{Erasing, NOT_A_TOMBSTONE_SQL};

/// The table, its indexes and the triggers that keep it append-only.
pub const REVIEW_LOG_SQL: &str = include_str!("../../../assets/review_log.sql");

/// The columns `review_log` gained after it was first made, with their
/// types. A log without them reads as if they were NULL; the first write
/// adds them ([`ensure_review_log`]).
pub(super) const ADDED_COLUMNS: [(&str, &str); 2] = [("kept", "INTEGER"), ("batch", "INTEGER")];

/// Which of the [`ADDED_COLUMNS`] a stored log has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    has: [bool; ADDED_COLUMNS.len()],
}

impl Shape {
    /// The current schema's: every column.
    const FULL: Shape = Shape {
        has: [true; ADDED_COLUMNS.len()],
    };

    /// True when the stored log has `column` (every column it was made with).
    fn has(&self, column: &str) -> bool {
        ADDED_COLUMNS
            .iter()
            .position(|(name, _)| *name == column)
            .is_none_or(|i| self.has[i])
    }
}

/// Creates `review_log` (and its indexes and triggers) when absent, and checks
/// that an existing one has the expected columns; a log made by an older
/// version is brought up to date, every row kept. Call it only on a path that
/// writes: read-only commands must leave the database as they found it.
/// Inside a transaction it is part of that transaction.
pub fn ensure_review_log(conn: &Connection) -> Result<(), LogError> {
    if log_table_exists(conn)? {
        check_columns(conn)?;
        super::log_upgrade::upgrade(conn, REVIEW_LOG_SQL)?;
        super::log_upgrade::add_columns(conn, &ADDED_COLUMNS)?;
    }
    // Also restores an index or trigger that someone dropped.
    conn.execute_batch(REVIEW_LOG_SQL)?;
    Ok(())
}

/// True when the database has a `review_log` table. Never creates anything.
fn log_table_exists(conn: &Connection) -> Result<bool, LogError> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'review_log'",
        [],
        |row| row.get(0),
    )?;
    Ok(n > 0)
}

/// Errors when `review_log` lacks a column this tool needs (one it was made
/// with: the added ones may be missing); else which added ones it has.
fn check_columns(conn: &Connection) -> Result<Shape, LogError> {
    let names = super::log_upgrade::stored_columns(conn)?;
    let stored = |c: &str| names.iter().any(|n| n.eq_ignore_ascii_case(c));
    let missing: Vec<&str> = LOG_COLUMNS
        .iter()
        .copied()
        .filter(|c| !ADDED_COLUMNS.iter().any(|(a, _)| a == c) && !stored(c))
        .collect();
    if missing.is_empty() {
        Ok(Shape {
            has: ADDED_COLUMNS.map(|(name, _)| stored(name)),
        })
    } else {
        let (lang, columns) = (crate::i18n::current(), missing.join(", "));
        Err(LogError::Schema(if missing.len() == 1 {
            crate::t!(lang, "error.log.missing_column", columns = columns)
        } else {
            crate::t!(lang, "error.log.missing_columns", columns = columns)
        }))
    }
}

/// The shape of a usable `review_log`; `None` when there is none (an error
/// when there is one this tool did not make). Never creates anything.
fn shape(conn: &Connection) -> Result<Option<Shape>, LogError> {
    if log_table_exists(conn)? {
        check_columns(conn).map(Some)
    } else {
        Ok(None)
    }
}

/// True when the database has a usable `review_log` (an error when it has one
/// this tool did not make). Never creates anything.
pub(super) fn log_exists(conn: &Connection) -> Result<bool, LogError> {
    Ok(shape(conn)?.is_some())
}

/// The select list of [`LOG_COLUMNS`]: a column the stored log lacks reads as NULL.
fn select_columns(shape: Shape) -> String {
    LOG_COLUMNS
        .iter()
        .map(|c| {
            if shape.has(c) {
                (*c).to_string()
            } else {
                format!("NULL AS {c}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Maps a row selected with [`select_columns`].
fn entry_from_row(row: &Row<'_>) -> Result<LogEntry, LogError> {
    StoredEntry {
        id: row.get(0)?,
        item: row.get(1)?,
        kind: row.get(2)?,
        decision: row.get(3)?,
        operator: row.get(4)?,
        decided_at: row.get(5)?,
        receipt_ids: row.get(6)?,
        note: row.get(7)?,
        reopens: row.get(8)?,
        state_before: row.get(9)?,
        state_after: row.get(10)?,
        updated_at_before: row.get(11)?,
        updated_at_after: row.get(12)?,
        kept: row.get(13)?,
        batch: row.get(14)?,
    }
    .into_entry()
}

/// The first entry a query finds (the log is there).
fn one_entry<P: rusqlite::Params>(
    conn: &Connection,
    sql: &str,
    params: P,
) -> Result<Option<LogEntry>, LogError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    match rows.next()? {
        Some(row) => entry_from_row(row).map(Some),
        None => Ok(None),
    }
}

/// Calls `each` with every entry in append order until it breaks; returns
/// how many it was given. One statement, so one consistent snapshot even
/// while others append.
pub(super) fn each_entry(
    conn: &Connection,
    each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
) -> Result<usize, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(0);
    };
    let sql = format!(
        "SELECT {} FROM review_log ORDER BY id",
        select_columns(shape)
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let mut n = 0;
    while let Some(row) = rows.next()? {
        n += 1;
        if each(entry_from_row(row)?).is_break() {
            break;
        }
    }
    Ok(n)
}

/// Every entry for one item, in append order.
pub(super) fn history(conn: &Connection, item: &str) -> Result<Vec<LogEntry>, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT {} FROM review_log WHERE item = ?1 ORDER BY id",
        select_columns(shape)
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_and_then([item], entry_from_row)?;
    rows.collect()
}

/// The latest entry for one item, if any.
pub(super) fn latest_entry(conn: &Connection, item: &str) -> Result<Option<LogEntry>, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT {} FROM review_log WHERE item = ?1 ORDER BY id DESC LIMIT 1",
        select_columns(shape)
    );
    one_entry(conn, &sql, [item])
}

/// One entry by id.
pub(super) fn entry(conn: &Connection, id: i64) -> Result<Option<LogEntry>, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(None);
    };
    entry_in(conn, shape, id)
}

/// [`entry`] where the log is known to be there, with this shape.
fn entry_in(conn: &Connection, shape: Shape, id: i64) -> Result<Option<LogEntry>, LogError> {
    let sql = format!(
        "SELECT {} FROM review_log WHERE id = ?1",
        select_columns(shape)
    );
    one_entry(conn, &sql, [id])
}

/// The rows of one step written at once (`batch` = its first row's id), in
/// append order; empty when there is none (or the log has no such column).
pub(super) fn batch_entries(conn: &Connection, batch: i64) -> Result<Vec<LogEntry>, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(Vec::new());
    };
    if !shape.has("batch") {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {} FROM review_log WHERE batch = ?1 ORDER BY id",
        select_columns(shape)
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_and_then([batch], entry_from_row)?;
    rows.collect()
}

/// The id of the newest entry (`None` when there is none or no table).
pub(super) fn latest_log_id(conn: &Connection) -> Result<Option<i64>, LogError> {
    if !log_table_exists(conn)? {
        return Ok(None);
    }
    Ok(conn
        .query_row("SELECT max(id) FROM review_log", [], |row| {
            row.get::<_, Option<i64>>(0)
        })
        .optional()?
        .flatten())
}

/// The latest erasure row's id (found by the item index: `erase:…`).
pub(super) fn latest_erasure_id(conn: &Connection) -> Result<Option<i64>, LogError> {
    if !log_table_exists(conn)? {
        return Ok(None);
    }
    Ok(conn
        .query_row(
            "SELECT max(id) FROM review_log WHERE item >= 'erase:' AND item < 'erase;'",
            [],
            |row| row.get::<_, Option<i64>>(0),
        )
        .optional()?
        .flatten())
}

/// The operator's latest decision (not an undo) that is still the latest
/// entry for its item.
pub(super) fn latest_standing_decision_by(
    conn: &Connection,
    operator: &str,
) -> Result<Option<LogEntry>, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT {} FROM review_log d \
         WHERE d.operator = ?1 AND d.decision NOT IN ('reopened', 'erased') \
           AND d.id = (SELECT max(x.id) FROM review_log x WHERE x.item = d.item) \
         ORDER BY d.id DESC LIMIT 1",
        select_columns(shape)
    );
    one_entry(conn, &sql, [operator])
}

/// The operator's latest decision (not an undo) with an id above `after`
/// (any, with `None`) that no entry reopens.
pub(super) fn latest_unreopened_decision_by(
    conn: &Connection,
    operator: &str,
    after: Option<i64>,
) -> Result<Option<LogEntry>, LogError> {
    let Some(shape) = shape(conn)? else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT {} FROM review_log d \
         WHERE d.operator = ?1 AND d.decision NOT IN ('reopened', 'erased') AND d.id > ?2 \
           AND NOT EXISTS (SELECT 1 FROM review_log r WHERE r.reopens = d.id) \
         ORDER BY d.id DESC LIMIT 1",
        select_columns(shape)
    );
    one_entry(conn, &sql, params![operator, after.unwrap_or(i64::MIN)])
}

/// The id the next row will be given: `AUTOINCREMENT` hands out one more
/// than the largest ever handed out, or than the largest there.
fn next_id(conn: &Connection) -> Result<i64, LogError> {
    Ok(conn.query_row(
        "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'review_log'), 0), \
                    coalesce((SELECT max(id) FROM review_log), 0)) + 1",
        [],
        |row| row.get(0),
    )?)
}

/// Appends one row (the log is there, as [`ensure_review_log`] leaves it)
/// and reads it back as stored.
pub(super) fn append(conn: &Connection, row: &NewEntry<'_>) -> Result<LogEntry, LogError> {
    let ids = serde_json::to_string(row.receipt_ids).expect("a list of integers serialises");
    let state = row.state;
    // A step's first row holds its own id, known before it is written: the
    // write transaction lets no one else append in between.
    let batch = match row.batch {
        None => None,
        Some(BatchRow::Of(first)) => Some(first),
        Some(BatchRow::First) => Some(next_id(conn)?),
    };
    conn.prepare_cached(
        "INSERT INTO review_log (item, kind, decision, operator, decided_at, receipt_ids, note, \
         reopens, state_before, state_after, updated_at_before, updated_at_after, kept, batch) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        row.item,
        row.kind.as_str(),
        row.decision.as_str(),
        row.operator,
        row.decided_at,
        ids,
        row.note,
        row.reopens,
        state.map(|s| &s.before),
        state.map(|s| &s.after),
        state.and_then(|s| s.updated_before.as_ref()),
        state.and_then(|s| s.updated_after.as_ref()),
        row.kept,
        batch,
    ])?;
    let id = conn.last_insert_rowid();
    if row.batch == Some(BatchRow::First) && batch != Some(id) {
        return Err(LogError::BadRow {
            id,
            detail: "the first row of a step was not given the id expected; nothing recorded"
                .into(),
        });
    }
    // A damaged file can lose the row it was just given: the transaction is
    // then rolled back, not trusted.
    entry_in(conn, Shape::FULL, id)?.ok_or_else(|| LogError::BadRow {
        id,
        detail: crate::t!(crate::i18n::current(), "error.log.lost_row").into(),
    })
}

fn value_text(value: Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Integer(n) => Some(n.to_string()),
        Value::Real(x) => Some(x.to_string()),
        Value::Text(s) => Some(s),
        Value::Blob(b) => Some(format!("x'{}'", hex::encode(b))),
    }
}

/// The receipt's state and `updated_at` (when `receipts` has one); `None`
/// when there is no such receipt, or `receipts` has no state.
pub(super) fn receipt_state(
    conn: &Connection,
    source: &Source,
    receipt_id: ReceiptId,
) -> Result<Option<ReceiptStamp>, LogError> {
    if !source.columns.state {
        return Ok(None);
    }
    let sql = if source.columns.updated_at {
        "SELECT state, updated_at FROM receipts WHERE id = ?1"
    } else {
        "SELECT state, NULL FROM receipts WHERE id = ?1"
    };
    Ok(conn
        .query_row(sql, [receipt_id], |row| {
            Ok(ReceiptStamp {
                state: value_text(row.get(0)?),
                updated_at: value_text(row.get(1)?),
            })
        })
        .optional()?)
}

/// `in_flight` → `to`, and `updated_at` → `now` where `receipts` has one;
/// false when the receipt is not in flight.
pub(super) fn set_state_if_in_flight(
    conn: &Connection,
    source: &Source,
    receipt_id: ReceiptId,
    to: ReceiptState,
    now: &str,
) -> Result<bool, LogError> {
    let changed = if source.columns.updated_at {
        conn.execute(
            "UPDATE receipts SET state = ?1, updated_at = ?2 WHERE id = ?3 AND state = 'in_flight'",
            params![to.as_str(), now, receipt_id],
        )?
    } else {
        conn.execute(
            "UPDATE receipts SET state = ?1 WHERE id = ?2 AND state = 'in_flight'",
            params![to.as_str(), receipt_id],
        )?
    };
    Ok(changed == 1)
}

/// The payload, and every refused body of its key, become `tombstone`.
/// `secure_delete` first: the cells the old values leave are zeroed, in the
/// page and in any overflow page freed, so the checkpoint after the commit
/// carries no trace of them into the file (see `Storage::scrub`).
pub(super) fn erase_receipt(
    conn: &Connection,
    source: &Source,
    receipt_id: ReceiptId,
    tombstone: &str,
) -> Result<Erasing, LogError> {
    conn.pragma_update(None, "secure_delete", true)?;
    let changed = conn.execute(
        &format!("UPDATE receipts SET payload = ?1 WHERE id = ?2 AND {NOT_A_TOMBSTONE_SQL}"),
        params![tombstone, receipt_id],
    )?;
    if changed == 0 {
        let there: i64 = conn.query_row(
            "SELECT count(*) FROM receipts WHERE id = ?1",
            [receipt_id],
            |row| row.get(0),
        )?;
        return Ok(if there > 0 {
            Erasing::AlreadyErased
        } else {
            Erasing::NoSuchReceipt
        });
    }
    if source.key_conflicts.is_usable() {
        conn.execute(
            "UPDATE key_conflicts SET payload = ?1 WHERE receipt_id = ?2",
            params![tombstone, receipt_id],
        )?;
    }
    Ok(Erasing::Erased)
}

/// Back to `in_flight` (and `updated_at` → `now`) only while the receipt
/// holds exactly `state` and `updated_at` (where `receipts` has one).
pub(super) fn revert_state_if(
    conn: &Connection,
    source: &Source,
    receipt_id: ReceiptId,
    state: &str,
    updated_at: Option<&str>,
    now: &str,
) -> Result<bool, LogError> {
    let changed = if source.columns.updated_at {
        conn.execute(
            "UPDATE receipts SET state = 'in_flight', updated_at = ?1 \
             WHERE id = ?2 AND state = ?3 AND updated_at IS ?4",
            params![now, receipt_id, state, updated_at],
        )?
    } else {
        conn.execute(
            "UPDATE receipts SET state = 'in_flight' WHERE id = ?1 AND state = ?2",
            params![receipt_id, state],
        )?
    };
    Ok(changed == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_once_and_is_idempotent() {
        let conn = Connection::open_in_memory().unwrap();
        assert!(!log_table_exists(&conn).unwrap());
        ensure_review_log(&conn).unwrap();
        ensure_review_log(&conn).unwrap();
        assert!(log_table_exists(&conn).unwrap());
        let triggers: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'review_log'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(triggers, 3);
    }

    #[test]
    fn a_foreign_review_log_is_named_not_used() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE review_log (id INTEGER PRIMARY KEY, item TEXT)")
            .unwrap();
        let err = ensure_review_log(&conn).unwrap_err();
        assert!(err.to_string().contains("missing columns kind"), "{err}");
    }
}
