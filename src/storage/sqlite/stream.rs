//! Reading receipts in batches, for analyses that never hold every row.
//!
//! The reading thread only copies each row's values into one buffer per batch
//! (no allocation per value); turning them into [`Row`]s (UTF-8 checks, the
//! defaults of missing columns, descriptions of values of the wrong type)
//! happens wherever the batch is consumed, on any thread. Each value is
//! handed over as stored, as [`super::load`] hands over those of the other
//! tables.

use rusqlite::types::ValueRef;

use super::load::Plan;
use super::open::Database;
use super::value::{bad_id_in, integer_id};
use crate::model::{ReceiptId, Row, RowSource, TimeRef};
use crate::storage::error::StorageError;
use crate::storage::source::ReceiptColumns;

/// A value as stored, its bytes in the batch's buffer.
#[derive(Clone, Copy, Debug)]
enum Cell {
    /// The column is not in the source.
    Missing,
    Null,
    Integer(i64),
    Real(f64),
    Text(u32, u32),
    Blob(u32, u32),
}

#[derive(Clone, Copy, Debug)]
struct Slots {
    id: ReceiptId,
    /// payload, created_at, scope, request_key, digest, state, updated_at
    cells: [Cell; 7],
}

const PAYLOAD: usize = 0;
const CREATED: usize = 1;
const SCOPE: usize = 2;
const KEY: usize = 3;
const DIGEST: usize = 4;
const STATE: usize = 5;
const UPDATED: usize = 6;

/// Rows read, in reading order.
#[derive(Debug, Default)]
pub struct Batch {
    rows: Vec<Slots>,
    bytes: Vec<u8>,
}

impl Batch {
    pub fn with_capacity(rows: usize) -> Self {
        Self {
            rows: Vec::with_capacity(rows),
            bytes: Vec::with_capacity(rows * 768),
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn clear(&mut self) {
        self.rows.clear();
        self.bytes.clear();
    }

    /// The ids of the rows, in reading order.
    pub fn ids(&self) -> impl Iterator<Item = ReceiptId> + '_ {
        self.rows.iter().map(|r| r.id)
    }

    fn push_cell(&mut self, value: ValueRef<'_>) -> Cell {
        let mut store = |b: &[u8]| {
            let start = self.bytes.len() as u32;
            self.bytes.extend_from_slice(b);
            (start, self.bytes.len() as u32)
        };
        match value {
            ValueRef::Null => Cell::Null,
            ValueRef::Integer(n) => Cell::Integer(n),
            ValueRef::Real(x) => Cell::Real(x),
            ValueRef::Text(t) => {
                let (a, b) = store(t);
                Cell::Text(a, b)
            }
            ValueRef::Blob(t) => {
                let (a, b) = store(t);
                Cell::Blob(a, b)
            }
        }
    }

    fn bytes(&self, a: u32, b: u32) -> &[u8] {
        &self.bytes[a as usize..b as usize]
    }

    /// The value of a cell, its bytes borrowed from the batch.
    fn value(&self, cell: Cell) -> Value<'_> {
        match cell {
            Cell::Missing => Value::Missing,
            Cell::Null => Value::Null,
            Cell::Integer(n) => Value::Integer(n),
            Cell::Real(x) => Value::Real(x),
            Cell::Text(a, b) => Value::Text(self.bytes(a, b)),
            Cell::Blob(a, b) => Value::Blob(self.bytes(a, b)),
        }
    }

    /// Row `i` as the triage engine reads it. Text that has to be made up
    /// (lossy UTF-8, numbers as digits, descriptions of bad values) is
    /// written to `buf`, which the row borrows.
    pub fn row<'a>(&'a self, i: usize, buf: &'a mut String) -> Row<'a> {
        let slots = &self.rows[i];
        row_of(slots.id, slots.cells.map(|c| self.value(c)), buf)
    }
}

/// A value as stored, its bytes wherever they are (a batch, or SQLite's own
/// buffer while the statement stays on the row).
#[derive(Clone, Copy, Debug)]
enum Value<'a> {
    /// The column is not in the source.
    Missing,
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a [u8]),
    Blob(&'a [u8]),
}

impl<'a> From<ValueRef<'a>> for Value<'a> {
    fn from(v: ValueRef<'a>) -> Self {
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(n) => Value::Integer(n),
            ValueRef::Real(x) => Value::Real(x),
            ValueRef::Text(t) => Value::Text(t),
            ValueRef::Blob(t) => Value::Blob(t),
        }
    }
}

/// A row as the triage engine reads it, from its values (in the order of
/// [`Slots::cells`]). Text that has to be made up (lossy UTF-8, numbers as
/// digits, descriptions of bad values) is written to `buf`, which the row
/// borrows.
fn row_of<'a>(id: ReceiptId, c: [Value<'a>; 7], buf: &'a mut String) -> Row<'a> {
    buf.clear();
    // First everything that may write to `buf` (as ranges), then the row.
    let scope = text_or(c[SCOPE], "", "", buf);
    let key =
        (!matches!(c[KEY], Value::Missing | Value::Null)).then(|| text_or(c[KEY], "", "", buf));
    let digest = (!matches!(c[DIGEST], Value::Missing | Value::Null))
        .then(|| text_or(c[DIGEST], "", "", buf));
    // A NULL state is kept visible as "" (an unknown state), not defaulted.
    let state = text_or(c[STATE], "completed", "", buf);
    let payload: Result<TextPiece<'a>, TextPiece<'a>> = match c[PAYLOAD] {
        Value::Text(t) => match utf8(t) {
            Ok(t) => Ok(TextPiece::Batch(t)),
            Err(_) => Err(describe(
                buf,
                format_args!(
                    "payload is text that is not valid UTF-8 ({} bytes)",
                    t.len()
                ),
            )),
        },
        Value::Blob(t) => match utf8(t) {
            Ok(t) => Ok(TextPiece::Batch(t)),
            Err(_) => Err(describe(
                buf,
                format_args!("payload is a BLOB of {} bytes that is not UTF-8", t.len()),
            )),
        },
        Value::Null | Value::Missing => Err(TextPiece::Static("payload is NULL")),
        Value::Integer(n) => Err(describe(
            buf,
            format_args!("payload is a number ({n}), not text"),
        )),
        Value::Real(x) => Err(describe(
            buf,
            format_args!("payload is a number ({x}), not text"),
        )),
    };
    let created = time(c[CREATED], buf);
    let updated = time(c[UPDATED], buf);

    let buf: &'a str = buf;
    let text = |p: TextPiece<'a>| -> &'a str {
        match p {
            TextPiece::Batch(t) | TextPiece::Static(t) => t,
            TextPiece::Buf(a, b) => &buf[a..b],
        }
    };
    let time = |t: TimePart<'a>| match t {
        TimePart::Null => TimeRef::Null,
        TimePart::Integer(n) => TimeRef::Integer(n),
        TimePart::Real(x) => TimeRef::Real(x),
        TimePart::Text(t) => TimeRef::Text(t),
        TimePart::Other(p) => TimeRef::Other(text(p)),
    };
    Row {
        id,
        scope: text(scope),
        request_key: key.map(text),
        digest: digest.map(text),
        payload: payload.map(text).map_err(text),
        state: text(state),
        created_at: time(created),
        updated_at: time(updated),
    }
}

/// A text-like column: text as is (lossy if not UTF-8), a number as digits.
fn text_or<'a>(
    value: Value<'a>,
    missing: &'static str,
    null: &'static str,
    buf: &mut String,
) -> TextPiece<'a> {
    match value {
        Value::Missing => TextPiece::Static(missing),
        Value::Null => TextPiece::Static(null),
        Value::Text(t) | Value::Blob(t) => match utf8(t) {
            Ok(t) => TextPiece::Batch(t),
            Err(_) => {
                let at = buf.len();
                buf.push_str(&String::from_utf8_lossy(t));
                TextPiece::Buf(at, buf.len())
            }
        },
        Value::Integer(n) => describe(buf, format_args!("{n}")),
        Value::Real(x) => describe(buf, format_args!("{x}")),
    }
}

/// A time column as stored; a BLOB that is UTF-8 counts as text.
fn time<'a>(value: Value<'a>, buf: &mut String) -> TimePart<'a> {
    match value {
        Value::Missing | Value::Null => TimePart::Null,
        Value::Integer(n) => TimePart::Integer(n),
        Value::Real(x) => TimePart::Real(x),
        Value::Text(t) => match utf8(t) {
            Ok(t) => TimePart::Text(t),
            Err(_) => TimePart::Other(describe(
                buf,
                format_args!("text that is not valid UTF-8 ({} bytes)", t.len()),
            )),
        },
        Value::Blob(t) => match utf8(t) {
            Ok(t) => TimePart::Text(t),
            Err(_) => TimePart::Other(describe(buf, format_args!("a BLOB of {} bytes", t.len()))),
        },
    }
}

/// The bytes as text when they are UTF-8. A vectorised check: every payload
/// goes through it, and the standard one is several times slower on text
/// that is not ASCII.
#[inline]
fn utf8(bytes: &[u8]) -> Result<&str, simdutf8::basic::Utf8Error> {
    simdutf8::basic::from_utf8(bytes)
}

/// A piece of text of a row: in the values read, in the row's buffer, or fixed.
enum TextPiece<'a> {
    Batch(&'a str),
    Buf(usize, usize),
    Static(&'static str),
}

enum TimePart<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Other(TextPiece<'a>),
}

fn describe<'a>(buf: &mut String, what: std::fmt::Arguments<'_>) -> TextPiece<'a> {
    use std::fmt::Write as _;
    let at = buf.len();
    let _ = buf.write_fmt(what);
    TextPiece::Buf(at, buf.len())
}

impl RowSource for Batch {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn row<'a>(&'a self, i: usize, buf: &'a mut String) -> Row<'a> {
        Batch::row(self, i, buf)
    }
}

/// Several batches read one after the other, as one source of rows.
pub struct Batches(pub Vec<Batch>);

impl RowSource for Batches {
    fn len(&self) -> usize {
        self.0.iter().map(Batch::len).sum()
    }

    fn row<'a>(&'a self, mut i: usize, buf: &'a mut String) -> Row<'a> {
        for b in &self.0 {
            if i < b.len() {
                return b.row(i, buf);
            }
            i -= b.len();
        }
        panic!("row {i} past the end of the batches")
    }
}

/// Reads the receipts (all, or those with an id above `after`) in batches of
/// `batch_rows`: `sink` takes each full batch and gives back an empty one to
/// fill next. Returns the number of rows read. Without `updated_at` (which
/// no rule reads: it only shows in a detail view) the rows hand over
/// `updated_at` as NULL.
pub fn stream_receipts_with(
    db: &Database,
    after: Option<ReceiptId>,
    batch_rows: usize,
    updated_at: bool,
    sink: &mut dyn FnMut(Batch) -> Batch,
) -> Result<u64, StorageError> {
    let err = |e| db.error("reading receipts", e);
    let mut columns = db.source().columns.clone();
    columns.updated_at &= updated_at;
    let plan = Plan::new(&columns);
    let sql = match after {
        Some(_) => format!("{} WHERE \"id\" > ?1", plan.sql),
        None => plan.sql.clone(),
    };
    let mut stmt = db.conn().prepare(&sql).map_err(err)?;
    let mut rows = match after {
        Some(id) => stmt.query([id]),
        None => stmt.query([]),
    }
    .map_err(err)?;
    let mut filler = Filler::new(batch_rows, batch_rows, sink);
    while let Some(row) = rows.next().map_err(err)? {
        filler.push(Origin::of(db), &plan, row)?;
    }
    Ok(filler.finish())
}

/// Reads the receipts with these ids (ascending), every column, in batches
/// as [`stream_receipts_with`] does. Ids that are not there are skipped.
pub fn read_receipts_by_id(
    db: &Database,
    ids: &[ReceiptId],
    batch_rows: usize,
    sink: &mut dyn FnMut(Batch) -> Batch,
) -> Result<u64, StorageError> {
    let columns = &db.source().columns;
    read_ids_on(db.conn(), Origin::of(db), columns, ids, batch_rows, sink)
}

/// Ids close together, from this many on, are read as a range...
const RANGE_RUN: usize = 8;
/// ...where each is at most this far from the one before: a query of its
/// own costs about as much as passing over this many rows.
const SPAN_GAP: i64 = 8;

/// [`read_receipts_by_id`] on a connection of its own (see [`each_rowid`]).
pub fn read_ids_on(
    conn: &rusqlite::Connection,
    db: Origin<'_>,
    columns: &ReceiptColumns,
    ids: &[ReceiptId],
    batch_rows: usize,
    sink: &mut dyn FnMut(Batch) -> Batch,
) -> Result<u64, StorageError> {
    let err = |e| db.error("reading receipts", e);
    let plan = Plan::new(columns);
    let sql = format!("{} WHERE \"id\" = ?1", plan.sql);
    let mut one = conn.prepare(&sql).map_err(err)?;
    let mut range = None;
    let mut filler = Filler::new(batch_rows, batch_rows.min(ids.len().max(1)), sink);
    let mut rest = ids;
    while let Some(&first) = rest.first() {
        // Ids close together (the rows an intake just appended, the copies
        // of a burst) are read as one range, one walk down the table, the
        // rows between them passed over: cheaper than a query each.
        let n = 1 + rest
            .windows(2)
            .take_while(|w| {
                w[1].checked_sub(w[0])
                    .is_some_and(|d| (0..=SPAN_GAP).contains(&d))
            })
            .count();
        let (span, last) = (&rest[..n], rest[n - 1]);
        if n >= RANGE_RUN {
            if range.is_none() {
                let sql = format!("{} WHERE \"id\" >= ?1 AND \"id\" <= ?2", plan.sql);
                range = Some(conn.prepare(&sql).map_err(err)?);
            }
            let stmt = range.as_mut().expect("prepared");
            let mut rows = stmt.query([first, last]).map_err(err)?;
            while let Some(row) = rows.next().map_err(err)? {
                // Only the rows `id = ?` finds, as often as it is asked: a
                // range also holds ids not asked, and ids that are not whole
                // numbers.
                let Some(id) = integer_id(row.get_ref(0).map_err(err)?) else {
                    continue;
                };
                // (Searched afresh: a table may hand rows over in any order.)
                let at = span.partition_point(|&x| x < id);
                for _ in span[at..].iter().take_while(|&&x| x == id) {
                    filler.push(db, &plan, row)?;
                }
            }
        } else {
            for &id in span {
                let mut rows = one.query([id]).map_err(err)?;
                while let Some(row) = rows.next().map_err(err)? {
                    filler.push(db, &plan, row)?;
                }
            }
        }
        rest = &rest[n..];
    }
    Ok(filler.finish())
}

/// Fills batches of `rows` receipts and hands each full one to the sink,
/// which gives back an empty one to fill next (so buffers are reused).
struct Filler<'s> {
    batch: Batch,
    rows: usize,
    count: u64,
    sink: &'s mut dyn FnMut(Batch) -> Batch,
}

impl<'s> Filler<'s> {
    fn new(rows: usize, capacity: usize, sink: &'s mut dyn FnMut(Batch) -> Batch) -> Self {
        Self {
            batch: Batch::with_capacity(capacity),
            rows,
            count: 0,
            sink,
        }
    }

    fn push(
        &mut self,
        db: Origin<'_>,
        plan: &Plan,
        row: &rusqlite::Row<'_>,
    ) -> Result<(), StorageError> {
        push_row(db, plan, row, &mut self.batch)?;
        self.count += 1;
        if self.batch.len() >= self.rows {
            let full = std::mem::take(&mut self.batch);
            self.batch = (self.sink)(full);
            self.batch.clear();
        }
        Ok(())
    }

    /// Hands over the last, partly filled batch; returns the rows read.
    fn finish(mut self) -> u64 {
        if !self.batch.is_empty() {
            (self.sink)(std::mem::take(&mut self.batch));
        }
        self.count
    }
}

fn push_row(
    db: Origin<'_>,
    plan: &Plan,
    row: &rusqlite::Row<'_>,
    batch: &mut Batch,
) -> Result<(), StorageError> {
    let (id, cells) = planned_row(db, plan, row, |v| batch.push_cell(v), Cell::Missing)?;
    batch.rows.push(Slots { id, cells });
    Ok(())
}

/// The id and the seven planned columns of `row` (receipts' column order),
/// each made by `take` from SQLite's value, or `missing` where the table has
/// no such column.
fn planned_row<'r, T: Copy>(
    db: Origin<'_>,
    plan: &Plan,
    row: &'r rusqlite::Row<'_>,
    mut take: impl FnMut(ValueRef<'r>) -> T,
    missing: T,
) -> Result<(ReceiptId, [T; 7]), StorageError> {
    let err = |e| db.error("reading receipts", e);
    let get = |i: usize| row.get_ref(i).map_err(err);
    let id = integer_id(get(0)?).ok_or_else(|| bad_id_in(db.path, "receipts", get(0)))?;
    let mut cell = |slot: Option<usize>| -> Result<T, StorageError> {
        Ok(match slot {
            Some(i) => take(get(i)?),
            None => missing,
        })
    };
    let cells = [
        cell(Some(1))?,
        cell(Some(2))?,
        cell(plan.scope)?,
        cell(plan.request_key)?,
        cell(plan.digest)?,
        cell(plan.state)?,
        cell(plan.updated_at)?,
    ];
    Ok((id, cells))
}

/// The file a reading thread reads, for its error messages: what a thread
/// that has a connection of its own, but not the [`Database`], needs.
#[derive(Clone, Copy, Debug)]
pub struct Origin<'a> {
    path: &'a std::path::Path,
    busy_timeout: std::time::Duration,
}

impl<'a> Origin<'a> {
    pub fn of(db: &'a Database) -> Self {
        Self {
            path: db.path(),
            busy_timeout: db.busy_timeout(),
        }
    }

    fn error(self, context: &str, err: rusqlite::Error) -> StorageError {
        StorageError::from_sqlite(self.path, context, self.busy_timeout, err)
    }
}

/// Reads the receipts of a table whose rowid is above `after` (when given)
/// and at most `upto` (when given), on `conn`, in rowid order, one row at a
/// time (`updated_at` is left out, as [`stream_receipts_with`] leaves it out
/// when asked). Each [`Row`] borrows SQLite's own buffers while the statement
/// stays on it: nothing is copied, so the bytes `each` reads are still in the
/// cache where SQLite left them. Several connections read disjoint ranges at
/// once; see [`super::split`].
pub fn each_rowid(
    conn: &rusqlite::Connection,
    db: Origin<'_>,
    columns: &ReceiptColumns,
    range: (Option<i64>, Option<i64>),
    each: &mut dyn FnMut(&Row<'_>),
) -> Result<u64, StorageError> {
    let mut buf = String::new();
    each_planned_row(conn, db, columns, range, &mut |plan, row| {
        let (id, values) = planned_row(db, plan, row, Value::from, Value::Missing)?;
        each(&row_of(id, values, &mut buf));
        Ok(())
    })
}

/// Runs the query of a range of rowids and hands over each of its rows with
/// the plan of its columns; gives the number of rows.
fn each_planned_row(
    conn: &rusqlite::Connection,
    db: Origin<'_>,
    columns: &ReceiptColumns,
    range: (Option<i64>, Option<i64>),
    each: &mut dyn FnMut(&Plan, &rusqlite::Row<'_>) -> Result<(), StorageError>,
) -> Result<u64, StorageError> {
    let err = |e| db.error("reading receipts", e);
    let (plan, sql, params) = rowid_query(columns, range);
    let mut stmt = conn.prepare(&sql).map_err(err)?;
    let mut rows = stmt
        .query(rusqlite::params_from_iter(params))
        .map_err(err)?;
    let mut count = 0;
    while let Some(row) = rows.next().map_err(err)? {
        each(&plan, row)?;
        count += 1;
    }
    Ok(count)
}

/// The plan, SQL and parameters of a reading of a range of rowids, in rowid
/// order and without `updated_at`.
fn rowid_query(
    columns: &ReceiptColumns,
    (after, upto): (Option<i64>, Option<i64>),
) -> (Plan, String, Vec<i64>) {
    let mut columns = columns.clone();
    columns.updated_at = false;
    let plan = Plan::new(&columns);
    let mut sql = plan.sql.clone();
    let mut params: Vec<i64> = Vec::new();
    for (bound, op) in [(after, ">"), (upto, "<=")] {
        if let Some(b) = bound {
            params.push(b);
            let word = if params.len() == 1 { "WHERE" } else { "AND" };
            sql.push_str(&format!(" {word} _rowid_ {op} ?{}", params.len()));
        }
    }
    sql.push_str(" ORDER BY _rowid_");
    (plan, sql, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows with every kind of value in every column.
    fn odd_rows() -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE receipts (id INTEGER PRIMARY KEY, scope, request_key, digest, \
             payload, state, created_at, updated_at)",
        )
        .unwrap();
        let values: Vec<rusqlite::types::Value> = vec![
            rusqlite::types::Value::Null,
            7.into(),
            1.5.into(),
            "{\"a\":\"é\"}".to_string().into(),
            "2026-11-29T10:15:30Z".to_string().into(),
            vec![0xffu8, b'a'].into(),
            b"{}".to_vec().into(),
        ];
        let mut id = 0;
        for (i, v) in values.iter().enumerate() {
            for (j, w) in values.iter().enumerate() {
                id += 1;
                conn.execute(
                    "INSERT INTO receipts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    rusqlite::params![id, v, w, v, w, values[(i + j) % 7], v, w],
                )
                .unwrap();
            }
        }
        conn
    }

    #[test]
    fn rows_read_in_place_are_the_rows_of_batches() {
        let origin = Origin {
            path: std::path::Path::new("odd.db"),
            busy_timeout: std::time::Duration::ZERO,
        };
        let full = ReceiptColumns {
            scope: true,
            request_key: true,
            digest: true,
            state: true,
            response: false,
            updated_at: true,
        };
        // Without the optional columns, they read as missing.
        let conn = odd_rows();
        for columns in [full, ReceiptColumns::default()] {
            for range in [(None, None), (Some(3), Some(30)), (Some(40), None)] {
                let mut batched = Vec::new();
                let mut buf = String::new();
                let mut sink = |b: Batch| {
                    for i in 0..b.len() {
                        batched.push(format!("{:?}", b.row(i, &mut buf)));
                    }
                    b
                };
                let mut filler = Filler::new(5, 5, &mut sink);
                each_planned_row(&conn, origin, &columns, range, &mut |plan, row| {
                    filler.push(origin, plan, row)
                })
                .unwrap();
                let n = filler.finish();
                let mut in_place = Vec::new();
                let m = each_rowid(&conn, origin, &columns, range, &mut |r| {
                    in_place.push(format!("{r:?}"))
                })
                .unwrap();
                assert_eq!((m, &in_place), (n, &batched), "{columns:?} {range:?}");
                assert!(n >= 9);
            }
        }
    }

    #[test]
    fn a_payload_that_is_not_text_says_why() {
        let mut b = Batch::default();
        let payloads = [
            ValueRef::Text(b"{}"),
            ValueRef::Blob(&[0xff, 0xfe]),
            ValueRef::Null,
            ValueRef::Real(1.5),
        ];
        for (id, value) in (1..).zip(payloads) {
            let mut cells = [Cell::Missing; 7];
            cells[PAYLOAD] = b.push_cell(value);
            b.rows.push(Slots { id, cells });
        }
        let mut buf = String::new();
        assert_eq!(b.row(0, &mut buf).payload, Ok("{}"));
        assert_eq!(
            b.row(1, &mut buf).payload,
            Err("payload is a BLOB of 2 bytes that is not UTF-8")
        );
        assert_eq!(b.row(2, &mut buf).payload, Err("payload is NULL"));
        assert_eq!(
            b.row(3, &mut buf).payload,
            Err("payload is a number (1.5), not text")
        );
    }

    #[test]
    fn cells_become_the_values_a_row_hands_over() {
        let mut b = Batch::default();
        let mut cells = [Cell::Missing; 7];
        cells[PAYLOAD] = b.push_cell(ValueRef::Blob(b"{\"a\":1}"));
        cells[CREATED] = b.push_cell(ValueRef::Real(1.5));
        cells[SCOPE] = b.push_cell(ValueRef::Integer(42));
        cells[KEY] = b.push_cell(ValueRef::Null);
        cells[DIGEST] = b.push_cell(ValueRef::Text(&[0xff, b'a']));
        cells[UPDATED] = b.push_cell(ValueRef::Blob(&[0xff]));
        b.rows.push(Slots { id: 3, cells });
        cells[PAYLOAD] = b.push_cell(ValueRef::Text(&[0xfe, 0xff]));
        cells[STATE] = b.push_cell(ValueRef::Null);
        cells[CREATED] = b.push_cell(ValueRef::Text(b"2026-11-29 10:15:30"));
        b.rows.push(Slots { id: 4, cells });
        cells[PAYLOAD] = b.push_cell(ValueRef::Integer(7));
        b.rows.push(Slots { id: 5, cells });

        let mut buf = String::new();
        let r = b.row(0, &mut buf);
        assert_eq!(r.id, 3);
        assert_eq!(r.payload, Ok("{\"a\":1}"));
        assert_eq!(r.created_at, TimeRef::Real(1.5));
        assert_eq!(r.scope, "42");
        assert_eq!(r.request_key, None);
        assert_eq!(r.digest, Some("\u{fffd}a"));
        assert_eq!(r.state, "completed");
        assert_eq!(r.updated_at, TimeRef::Other("a BLOB of 1 bytes"));
        let r = b.row(1, &mut buf);
        assert_eq!(
            r.payload,
            Err("payload is text that is not valid UTF-8 (2 bytes)")
        );
        assert_eq!(r.state, "");
        assert_eq!(r.created_at, TimeRef::Text("2026-11-29 10:15:30"));
        let r = b.row(2, &mut buf);
        assert_eq!(r.payload, Err("payload is a number (7), not text"));
    }
}
