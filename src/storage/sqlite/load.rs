//! Reading what a session reads besides the receipts themselves: key
//! conflicts, one receipt's or one attempt's payload, and the counts that
//! tell a reader nothing changed below what it read; and [`Plan`], the
//! SELECT of the receipts' columns that [`super::stream`] reads them with.
//!
//! Each value is handed over as stored: a time may be TEXT, INTEGER or REAL;
//! a payload that is not text is kept as an `Err` with a description, never
//! dropped.

use rusqlite::OptionalExtension;
use rusqlite::types::ValueRef;

use super::open::Database;
use super::value::{bad_id, integer_id, is_overflow};
use crate::model::{RawConflict, ReceiptId, TimeValue};
use crate::storage::error::StorageError;
use crate::storage::source::ReceiptColumns;

/// The number of `key_conflicts` rows with an id at most `max`, and the sum
/// of those ids (`(0, 0)` when the table is absent); `None` when the sum does
/// not fit an integer.
pub fn count_and_sum_conflict_ids(
    db: &Database,
    max: i64,
) -> Result<Option<(i64, i64)>, StorageError> {
    if !db.source().key_conflicts.is_usable() {
        return Ok(Some((0, 0)));
    }
    let found = db.conn().query_row(
        "SELECT count(*), sum(\"id\") FROM main.\"key_conflicts\" WHERE \"id\" <= ?1",
        [max],
        |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Option<i64>>(1)?)),
    );
    match found {
        Ok((n, s)) => Ok(Some((n, s.unwrap_or(0)))),
        Err(e) if is_overflow(&e) => Ok(None),
        Err(e) => Err(db.error("counting key_conflicts", e)),
    }
}

/// The number of receipts with an id at most `max`, and the sum of those
/// ids: what a reader that read them compares to see that none was deleted
/// or added below `max`. `None` when the sum does not fit an integer.
/// [`crate::storage::Session::state_stamps`]: one lookup by rowid each,
/// reading `state` and `updated_at` as SQLite quotes them (a text, a
/// number, a NULL and a BLOB all quote apart), never the payload.
pub fn state_stamps(
    db: &Database,
    ids: &[ReceiptId],
) -> Result<Vec<(ReceiptId, String)>, StorageError> {
    let err = |e| db.error("reading the states of receipts", e);
    let columns = &db.source().columns;
    let quoted = |present: bool, name: &str| match present {
        true => format!("quote(\"{name}\")"),
        false => "'NULL'".to_string(),
    };
    let sql = format!(
        "SELECT {} || ' ' || {} FROM main.\"receipts\" WHERE \"id\" = ?1",
        quoted(columns.state, "state"),
        quoted(columns.updated_at, "updated_at")
    );
    let mut one = db.conn().prepare_cached(&sql).map_err(err)?;
    let mut stamps = Vec::with_capacity(ids.len());
    for &id in ids {
        if let Some(stamp) = one
            .query_row([id], |row| row.get::<_, String>(0))
            .optional()
            .map_err(err)?
        {
            stamps.push((id, stamp));
        }
    }
    Ok(stamps)
}

pub fn count_and_sum_ids(
    db: &Database,
    max: ReceiptId,
) -> Result<Option<(i64, i64)>, StorageError> {
    let err = |e| db.error("counting receipts", e);
    // Over the whole table (SQLite counts it on its smallest index), less
    // the rows above `max` (a range of the rowid): cheaper than a range scan
    // of the table itself.
    let all = db.conn().query_row(
        "SELECT count(*), sum(\"id\") FROM main.\"receipts\"",
        [],
        |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Option<i64>>(1)?)),
    );
    let above = db.conn().query_row(
        "SELECT count(*), sum(\"id\") FROM main.\"receipts\" WHERE \"id\" > ?1",
        [max],
        |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Option<i64>>(1)?)),
    );
    match (all, above) {
        (Ok((n, s)), Ok((m, t))) => Ok(Some((n - m, s.unwrap_or(0) - t.unwrap_or(0)))),
        (Err(e), _) | (_, Err(e)) if e.sqlite_error_code().is_some() && !is_overflow(&e) => {
            Err(err(e))
        }
        _ => Ok(None),
    }
}

/// The stored payload of one receipt, for a detail view. `None` when there is
/// no such receipt. A payload that is not text is shown as well as it can be:
/// NULL as empty, a non-UTF-8 BLOB with replacement characters, a number as digits.
pub fn load_payload(db: &Database, id: ReceiptId) -> Result<Option<String>, StorageError> {
    let mut stmt = db
        .conn()
        .prepare_cached("SELECT \"payload\" FROM main.\"receipts\" WHERE \"id\" = ?1 LIMIT 1")
        .map_err(|e| db.error("reading a payload", e))?;
    let mut rows = stmt
        .query([id])
        .map_err(|e| db.error("reading a payload", e))?;
    match rows.next().map_err(|e| db.error("reading a payload", e))? {
        Some(row) => {
            let value = row
                .get_ref(0)
                .map_err(|e| db.error("reading a payload", e))?;
            Ok(Some(text_or(value, String::new())))
        }
        None => Ok(None),
    }
}

/// The body of a refused attempt, from `key_conflicts`, as text.
pub fn load_conflict_payload(db: &Database, id: i64) -> Result<Option<String>, StorageError> {
    db.conn()
        .query_row(
            "SELECT CAST(payload AS TEXT) FROM key_conflicts WHERE id = ?1",
            [id],
            |row| row.get::<_, Option<String>>(0),
        )
        .optional()
        .map(Option::flatten)
        .map_err(|e| db.error("reading a conflicting attempt", e))
}

/// Positions of the optional columns in the SELECT (the required ones are 0, 1, 2).
pub(super) struct Plan {
    pub(super) sql: String,
    pub(super) scope: Option<usize>,
    pub(super) request_key: Option<usize>,
    pub(super) digest: Option<usize>,
    pub(super) state: Option<usize>,
    pub(super) updated_at: Option<usize>,
}

impl Plan {
    /// The SELECT for the columns present. Column names come only from the fixed
    /// set of known names, never from the database or the user.
    pub(super) fn new(columns: &ReceiptColumns) -> Plan {
        let mut names: Vec<&'static str> = vec!["id", "payload", "created_at"];
        let mut slot = |present: bool, name: &'static str| {
            present.then(|| {
                names.push(name);
                names.len() - 1
            })
        };
        let scope = slot(columns.scope, "scope");
        let request_key = slot(columns.request_key, "request_key");
        let digest = slot(columns.digest, "digest");
        let state = slot(columns.state, "state");
        let updated_at = slot(columns.updated_at, "updated_at");
        let list: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        Plan {
            sql: format!("SELECT {} FROM main.\"receipts\"", list.join(", ")),
            scope,
            request_key,
            digest,
            state,
            updated_at,
        }
    }
}

/// The rows of `key_conflicts` with an id above `after` (all with `None`), by
/// id; with `payloads` false their payloads (which no rule reads) are left empty.
pub fn load_conflict_rows(
    db: &Database,
    after: Option<i64>,
    payloads: bool,
) -> Result<Vec<RawConflict>, StorageError> {
    if !db.source().key_conflicts.is_usable() {
        return Ok(Vec::new());
    }
    let err = |e| db.error("reading key_conflicts", e);
    let sql = format!(
        "SELECT \"id\", \"receipt_id\", \"digest\", {}, \"received_at\" FROM main.\"key_conflicts\"{}",
        if payloads { "\"payload\"" } else { "''" },
        if after.is_some() {
            " WHERE \"id\" > ?1"
        } else {
            ""
        }
    );
    let mut stmt = db.conn().prepare(&sql).map_err(err)?;
    let mut rows = match after {
        Some(id) => stmt.query([id]),
        None => stmt.query([]),
    }
    .map_err(err)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(err)? {
        let get = |i: usize| row.get_ref(i).map_err(err);
        out.push(RawConflict {
            id: integer_id(get(0)?).ok_or_else(|| bad_id(db, "key_conflicts", get(0)))?,
            receipt_id: integer_id(get(1)?)
                .ok_or_else(|| bad_id(db, "key_conflicts.receipt_id", get(1)))?,
            digest: text_or(get(2)?, String::new()),
            payload: text_or(get(3)?, String::new()),
            received_at: time_value(get(4)?),
        });
    }
    if !out.is_sorted_by_key(|c| c.id) {
        out.sort_by_key(|c| c.id);
    }
    Ok(out)
}

/// A text-like column: text as is (lossy if not UTF-8), a number as digits,
/// NULL as `null`.
fn text_or(value: ValueRef<'_>, null: String) -> String {
    match value {
        ValueRef::Null => null,
        ValueRef::Text(t) | ValueRef::Blob(t) => match std::str::from_utf8(t) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(t).into_owned(),
        },
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(x) => x.to_string(),
    }
}

/// A time column as stored. A BLOB that is UTF-8 counts as text, as for payloads.
fn time_value(value: ValueRef<'_>) -> TimeValue {
    match value {
        ValueRef::Null => TimeValue::Null,
        ValueRef::Integer(n) => TimeValue::Integer(n),
        ValueRef::Real(x) => TimeValue::Real(x),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => TimeValue::Text(s.to_owned()),
            Err(_) => TimeValue::Other(format!("text that is not valid UTF-8 ({} bytes)", t.len())),
        },
        ValueRef::Blob(b) => match std::str::from_utf8(b) {
            Ok(s) => TimeValue::Text(s.to_owned()),
            Err(_) => TimeValue::Other(format!("a BLOB of {} bytes", b.len())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_selects_only_present_columns() {
        let plan = Plan::new(&ReceiptColumns::default());
        assert_eq!(
            plan.sql,
            "SELECT \"id\", \"payload\", \"created_at\" FROM main.\"receipts\""
        );
        assert_eq!(plan.scope, None);
        let plan = Plan::new(&ReceiptColumns {
            scope: true,
            state: true,
            ..Default::default()
        });
        assert!(plan.sql.contains("\"created_at\", \"scope\", \"state\""));
        assert_eq!((plan.scope, plan.state), (Some(3), Some(4)));
    }

    #[test]
    fn values_are_mapped_faithfully() {
        // (A receipt's payload is mapped as the stream reads it: see
        // `stream::tests`.)
        assert_eq!(time_value(ValueRef::Integer(5)), TimeValue::Integer(5));
        assert_eq!(time_value(ValueRef::Real(1.5)), TimeValue::Real(1.5));
        assert_eq!(
            time_value(ValueRef::Text(b"x")),
            TimeValue::Text("x".into())
        );
        assert!(matches!(
            time_value(ValueRef::Blob(&[0xff])),
            TimeValue::Other(_)
        ));
        assert_eq!(text_or(ValueRef::Null, "d".into()), "d");
        assert_eq!(text_or(ValueRef::Integer(42), String::new()), "42");
        assert_eq!(integer_id(ValueRef::Text(b"12")), Some(12));
        assert_eq!(integer_id(ValueRef::Real(3.0)), Some(3));
        assert_eq!(integer_id(ValueRef::Null), None);
    }
}
