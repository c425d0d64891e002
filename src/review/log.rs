//! Reading the review log. Every function here only reads, and treats a
//! database without `review_log` as one where nothing was decided yet.

use super::error::ReviewError;
use super::schema::{COLUMNS, check_columns, log_table_exists};
use crate::model::{Decision, Kind, LogEntry, Millis, ReceiptId};
use crate::time;
use rusqlite::{Connection, OptionalExtension, Row};

impl LogEntry {
    /// `decided_at` in unix milliseconds, when it parses.
    pub fn decided_ms(&self) -> Option<Millis> {
        time::parse_text(&self.decided_at).ok()
    }
}

pub(crate) fn select_columns() -> String {
    COLUMNS.join(", ")
}

/// Maps a row selected with [`select_columns`].
pub(crate) fn entry_from_row(row: &Row<'_>) -> Result<LogEntry, ReviewError> {
    let id: i64 = row.get(0)?;
    let bad = |detail: String| ReviewError::BadRow { id, detail };
    let kind_text: String = row.get(2)?;
    let kind = Kind::parse(&kind_text).ok_or_else(|| bad(format!("unknown kind {kind_text:?}")))?;
    let decision_text: String = row.get(3)?;
    let decision = Decision::parse(&decision_text)
        .ok_or_else(|| bad(format!("unknown decision {decision_text:?}")))?;
    let ids_text: String = row.get(6)?;
    let receipt_ids: Vec<ReceiptId> = serde_json::from_str(&ids_text)
        .map_err(|e| bad(format!("receipt_ids is not a JSON array of integers: {e}")))?;
    Ok(LogEntry {
        id,
        item: row.get(1)?,
        kind,
        decision,
        operator: row.get(4)?,
        decided_at: row.get(5)?,
        receipt_ids,
        note: row.get(7)?,
        reopens: row.get(8)?,
        state_before: row.get(9)?,
        state_after: row.get(10)?,
        updated_at_before: row.get(11)?,
        updated_at_after: row.get(12)?,
    })
}

/// True when the database has a usable `review_log` (an error when it has one
/// this tool did not make). Never creates anything.
pub fn log_exists(conn: &Connection) -> Result<bool, ReviewError> {
    if log_table_exists(conn)? {
        check_columns(conn)?;
        Ok(true)
    } else {
        Ok(false)
    }
}

/// Calls `each` with every entry in append order; returns how many there were.
/// One statement, so one consistent snapshot even while others append.
pub(crate) fn for_each_entry<E>(
    conn: &Connection,
    mut each: impl FnMut(LogEntry) -> Result<(), E>,
) -> Result<usize, E>
where
    E: From<ReviewError>,
{
    if !log_exists(conn)? {
        return Ok(0);
    }
    let sql = format!("SELECT {} FROM review_log ORDER BY id", select_columns());
    let mut stmt = conn.prepare(&sql).map_err(ReviewError::from)?;
    let mut rows = stmt.query([]).map_err(ReviewError::from)?;
    let mut n = 0;
    while let Some(row) = rows.next().map_err(ReviewError::from)? {
        each(entry_from_row(row)?)?;
        n += 1;
    }
    Ok(n)
}

/// The whole log in append order (empty when the table is absent).
pub fn read_log(conn: &Connection) -> Result<Vec<LogEntry>, ReviewError> {
    let mut out = Vec::new();
    for_each_entry(conn, |entry| {
        out.push(entry);
        Ok::<(), ReviewError>(())
    })?;
    Ok(out)
}

/// Every entry for one item, in append order.
pub fn history(conn: &Connection, item: &str) -> Result<Vec<LogEntry>, ReviewError> {
    if !log_exists(conn)? {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {} FROM review_log WHERE item = ?1 ORDER BY id",
        select_columns()
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_and_then([item], entry_from_row)?;
    rows.collect()
}

/// The latest entry for one item, if any.
pub fn latest_entry(conn: &Connection, item: &str) -> Result<Option<LogEntry>, ReviewError> {
    if !log_exists(conn)? {
        return Ok(None);
    }
    latest_entry_unchecked(conn, item)
}

/// [`latest_entry`] for a caller that knows the table is there.
pub(crate) fn latest_entry_unchecked(
    conn: &Connection,
    item: &str,
) -> Result<Option<LogEntry>, ReviewError> {
    let sql = format!(
        "SELECT {} FROM review_log WHERE item = ?1 ORDER BY id DESC LIMIT 1",
        select_columns()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([item])?;
    match rows.next()? {
        Some(row) => entry_from_row(row).map(Some),
        None => Ok(None),
    }
}

/// One entry by id.
pub(crate) fn entry_by_id(conn: &Connection, id: i64) -> Result<Option<LogEntry>, ReviewError> {
    let sql = format!("SELECT {} FROM review_log WHERE id = ?1", select_columns());
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([id])?;
    match rows.next()? {
        Some(row) => entry_from_row(row).map(Some),
        None => Ok(None),
    }
}

/// The id of the newest entry (`None` when there is none or no table): a cheap
/// way to notice that someone else has appended since the last look.
pub fn latest_log_id(conn: &Connection) -> Result<Option<i64>, ReviewError> {
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
