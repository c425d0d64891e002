//! Reading `receipts` and `key_conflicts` rows on PostgreSQL: one SELECT
//! of the columns there are (fixed names only), every value as text so that
//! a legacy view's types read as SQLite's would, the rows streamed from the
//! server and handed to the sinks in batches.

use postgres::Client;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;

use super::schema::{Shape, TimeColumn};
use crate::model::{RawConflict, RawReceipt, ReceiptId, Row, RowSink, RowSource, TimeValue};

/// Rows handed to a sink at once.
pub const BATCH_ROWS: usize = 4096;

/// The SELECT of every receipt column there is, in the order [`receipt`] reads.
pub fn receipt_select(shape: &Shape, updated_at: bool) -> String {
    let c = &shape.source.columns;
    let optional = |present: bool, expr: String| if present { expr } else { "NULL".into() };
    let list = [
        "\"id\"::bigint".to_string(),
        "\"payload\"::text".to_string(),
        shape.created_at.select_for_rows("created_at"),
        optional(c.scope, "\"scope\"::text".into()),
        optional(c.request_key, "\"request_key\"::text".into()),
        optional(c.digest, "\"digest\"::text".into()),
        optional(c.state, "\"state\"::text".into()),
        optional(
            c.updated_at && updated_at,
            shape.updated_at.select_for_rows("updated_at"),
        ),
    ];
    format!("SELECT {} FROM \"receipts\"", list.join(", "))
}

/// The SELECT of [`crate::storage::Session::state_stamps`] for `ids` ($1):
/// `state` and `updated_at` as text, quoted so that a NULL stands apart.
pub fn state_stamp_select(shape: &Shape) -> String {
    let c = &shape.source.columns;
    let quoted = |present: bool, expr: String| match present {
        true => format!("coalesce(quote_nullable({expr}), 'NULL')"),
        false => "'NULL'".into(),
    };
    format!(
        "SELECT \"id\"::bigint, {} || ' ' || {} FROM \"receipts\" \
         WHERE \"id\" = ANY($1) ORDER BY \"id\"",
        quoted(c.state, "\"state\"::text".into()),
        quoted(c.updated_at, shape.updated_at.select("updated_at")),
    )
}

/// A row selected by [`receipt_select`].
pub fn receipt(shape: &Shape, row: &postgres::Row) -> RawReceipt {
    let text = |i: usize| row.get::<_, Option<String>>(i);
    RawReceipt {
        id: row.get(0),
        scope: text(3).unwrap_or_default(),
        request_key: text(4),
        digest: text(5),
        payload: text(1).ok_or_else(|| "payload is NULL".to_string()),
        // A NULL state is kept visible as "" (an unknown state), not defaulted.
        state: if shape.source.columns.state {
            text(6).unwrap_or_default()
        } else {
            "completed".into()
        },
        created_at: row_time(row, 2, shape.created_at),
        updated_at: row_time(row, 7, shape.updated_at),
    }
}

/// A time column of a row selected by [`receipt_select`]: a timestamp is
/// taken in the server's binary form, whole milliseconds since 1970, which
/// reading needs no parsing of (and the server no formatting).
fn row_time(row: &postgres::Row, i: usize, column: TimeColumn) -> TimeValue {
    match column {
        TimeColumn::WithZone | TimeColumn::WithoutZone => {
            match row.try_get::<_, Option<PgTime>>(i) {
                Ok(Some(PgTime(ms))) if ms.unsigned_abs() >= MILLIS_READ_AS_MILLIS => {
                    TimeValue::Integer(ms)
                }
                // Before 1973 a whole number would read as seconds: said as text.
                Ok(Some(PgTime(ms))) => TimeValue::Text(crate::model::time::format_rfc3339(ms)),
                Ok(None) => TimeValue::Null,
                Err(_) => TimeValue::Other("a timestamp out of range".into()),
            }
        }
        _ => time(column, row.get(i)),
    }
}

/// Whole numbers from here up read as milliseconds (see `model::time`).
const MILLIS_READ_AS_MILLIS: u64 = 100_000_000_000;

/// A `timestamptz` or `timestamp` (read as UTC), in milliseconds since 1970.
struct PgTime(i64);

impl<'a> postgres::types::FromSql<'a> for PgTime {
    fn from_sql(
        _: &postgres::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        // Microseconds since 2000-01-01 00:00:00 UTC, big-endian.
        let bytes: [u8; 8] = raw.try_into()?;
        let micros = i64::from_be_bytes(bytes);
        if micros == i64::MAX || micros == i64::MIN {
            return Err("an infinite timestamp".into());
        }
        Ok(PgTime(micros.div_euclid(1000) + 946_684_800_000))
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        *ty == postgres::types::Type::TIMESTAMPTZ || *ty == postgres::types::Type::TIMESTAMP
    }
}

/// A time read as text, typed as SQLite would have handed it over.
fn time(column: TimeColumn, text: Option<String>) -> TimeValue {
    let Some(text) = text else {
        return TimeValue::Null;
    };
    match column {
        TimeColumn::Integer => text
            .parse()
            .map_or(TimeValue::Text(text), TimeValue::Integer),
        TimeColumn::Real => match text.parse::<f64>() {
            Ok(x) => TimeValue::Real(x),
            Err(_) => TimeValue::Text(text),
        },
        _ => TimeValue::Text(text),
    }
}

/// Rows held whole.
pub struct Held(pub Vec<RawReceipt>);

impl RowSource for Held {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn row<'a>(&'a self, i: usize, _buf: &'a mut String) -> Row<'a> {
        self.0[i].row()
    }
}

/// Streams the rows of `sql` into `sink` in batches, the sink working on
/// another thread while the next batch arrives; gives how many and the
/// highest id.
pub fn stream(
    client: &mut Client,
    shape: &Shape,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    sink: &mut dyn RowSink,
    progress: &mut dyn FnMut(u64),
) -> Result<(u64, Option<ReceiptId>), postgres::Error> {
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Held>(2);
    let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Held>();
    std::thread::scope(|scope| {
        let consumer = scope.spawn(move || {
            for mut batch in full_rx {
                sink.rows(&batch);
                batch.0.clear();
                if empty_tx.send(batch).is_err() {
                    break;
                }
            }
        });
        let read = (|| {
            let mut rows = client.query_raw(sql, params.iter().copied())?;
            let mut batch = Held(Vec::with_capacity(BATCH_ROWS));
            let mut count = 0u64;
            let mut last: Option<ReceiptId> = None;
            let mut hand_over = |batch: &mut Held, count: &mut u64| {
                *count += batch.0.len() as u64;
                let next = empty_rx
                    .try_recv()
                    .unwrap_or_else(|_| Held(Vec::with_capacity(BATCH_ROWS)));
                // A consumer that died has dropped its end; its panic is raised below.
                let _ = full_tx.send(std::mem::replace(batch, next));
                progress(*count);
            };
            while let Some(row) = rows.next()? {
                let receipt = receipt(shape, &row);
                last = last.max(Some(receipt.id));
                batch.0.push(receipt);
                if batch.0.len() == BATCH_ROWS {
                    hand_over(&mut batch, &mut count);
                }
            }
            if !batch.0.is_empty() {
                hand_over(&mut batch, &mut count);
            }
            Ok((count, last))
        })();
        drop(full_tx);
        if let Err(panic) = consumer.join() {
            std::panic::resume_unwind(panic);
        }
        read
    })
}

/// The `key_conflicts` rows with an id above `after`, by id.
pub fn conflicts(
    client: &mut Client,
    shape: &Shape,
    after: Option<i64>,
    payloads: bool,
) -> Result<Vec<RawConflict>, postgres::Error> {
    if !shape.source.key_conflicts.is_usable() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT \"id\"::bigint, \"receipt_id\"::bigint, \"digest\"::text, {}, {} \
         FROM \"key_conflicts\" WHERE \"id\" > $1 ORDER BY \"id\"",
        if payloads { "\"payload\"::text" } else { "''" },
        shape.received_at.select("received_at"),
    );
    let rows = client.query(&sql, &[&after.unwrap_or(i64::MIN)])?;
    Ok(rows
        .iter()
        .map(|r| RawConflict {
            id: r.get(0),
            receipt_id: r.get(1),
            digest: r.get::<_, Option<String>>(2).unwrap_or_default(),
            payload: r.get::<_, Option<String>>(3).unwrap_or_default(),
            received_at: time(shape.received_at, r.get(4)),
        })
        .collect())
}
