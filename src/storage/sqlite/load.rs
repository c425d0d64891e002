//! Reading receipts, key conflicts and the tallies (replays, absorbed
//! copies), faithfully and fast.
//!
//! Everything is read in one short read transaction (one consistent snapshot,
//! and nothing held afterwards, so the intake's WAL can checkpoint). Each value
//! is handed over as stored: a time may be TEXT, INTEGER or REAL; a payload that
//! is not text is kept as an `Err` with a description, never dropped.

use std::collections::HashMap;

use rusqlite::OptionalExtension;
use rusqlite::types::ValueRef;

use crate::storage::error::StorageError;
use super::open::Database;
use crate::storage::source::{ReceiptColumns, Source};
use crate::storage::tally::{CountedTable, load_tally};
use super::value::{bad_id, integer_id, is_overflow};
use crate::model::{RawConflict, RawReceipt, ReceiptId, TimeValue};

/// Everything triage needs from the database.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// Ascending by id.
    pub receipts: Vec<RawReceipt>,
    /// Ascending by id; empty when there is no usable `key_conflicts`.
    pub conflicts: Vec<RawConflict>,
    /// Replays per receipt; empty when there is no usable `replays`.
    pub replays: HashMap<ReceiptId, u32>,
    /// All replay rows, including any whose receipt id is not an integer.
    pub replay_total: u64,
    /// Exact copies absorbed per receipt; empty when there is no usable
    /// `absorbed`.
    pub absorbed: HashMap<ReceiptId, u32>,
    /// All absorbed rows, including any whose receipt id is not an integer.
    pub absorbed_total: u64,
}

/// Reads all receipts, key conflicts, replays and absorbed copies.
pub fn load(db: &Database) -> Result<Loaded, StorageError> {
    let source = db.source();
    // Inside a caller's transaction its snapshot is used; otherwise one of our own.
    let tx = db.read_transaction()?;
    let receipts = load_receipts(db, source)?;
    let conflicts = load_conflicts(db)?;
    let (replays, replay_total) = load_tally(db, CountedTable::Replays)?;
    let (absorbed, absorbed_total) = load_tally(db, CountedTable::Absorbed)?;
    if let Some(tx) = tx {
        tx.commit().map_err(|e| db.error("ending a read", e))?;
    }
    Ok(Loaded {
        receipts,
        conflicts,
        replays,
        replay_total,
        absorbed,
        absorbed_total,
    })
}

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

fn load_receipts(db: &Database, source: &Source) -> Result<Vec<RawReceipt>, StorageError> {
    let err = |e| db.error("reading receipts", e);
    let plan = Plan::new(&source.columns);
    let mut stmt = db.conn().prepare(&plan.sql).map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(err)? {
        let get = |i: usize| row.get_ref(i).map_err(err);
        let id = integer_id(get(0)?).ok_or_else(|| bad_id(db, "receipts", get(0)))?;
        let scope = match plan.scope {
            Some(i) => text_or(get(i)?, String::new()),
            None => String::new(),
        };
        let request_key = match plan.request_key {
            Some(i) => optional_text(get(i)?),
            None => None,
        };
        let digest = match plan.digest {
            Some(i) => optional_text(get(i)?),
            None => None,
        };
        let state = match plan.state {
            // A NULL state is kept visible as "" (an unknown state), not defaulted.
            Some(i) => text_or(get(i)?, String::new()),
            None => "completed".to_string(),
        };
        let updated_at = match plan.updated_at {
            Some(i) => time_value(get(i)?),
            None => TimeValue::Null,
        };
        out.push(RawReceipt {
            id,
            scope,
            request_key,
            digest,
            payload: payload(get(1)?),
            state,
            created_at: time_value(get(2)?),
            updated_at,
        });
    }
    if !out.is_sorted_by_key(|r| r.id) {
        out.sort_by_key(|r| r.id);
    }
    Ok(out)
}

/// The rows of `key_conflicts`, by id (none when the table is absent or unusable).
pub fn load_conflicts(db: &Database) -> Result<Vec<RawConflict>, StorageError> {
    load_conflict_rows(db, None, true)
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

fn optional_text(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Null => None,
        other => Some(text_or(other, String::new())),
    }
}

/// The payload as text, or why it is not text.
fn payload(value: ValueRef<'_>) -> Result<String, String> {
    match value {
        ValueRef::Text(t) => std::str::from_utf8(t).map(str::to_owned).map_err(|_| {
            format!(
                "payload is text that is not valid UTF-8 ({} bytes)",
                t.len()
            )
        }),
        ValueRef::Blob(b) => std::str::from_utf8(b)
            .map(str::to_owned)
            .map_err(|_| format!("payload is a BLOB of {} bytes that is not UTF-8", b.len())),
        ValueRef::Null => Err("payload is NULL".into()),
        ValueRef::Integer(n) => Err(format!("payload is a number ({n}), not text")),
        ValueRef::Real(x) => Err(format!("payload is a number ({x}), not text")),
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
        assert_eq!(payload(ValueRef::Text(b"{}")), Ok("{}".into()));
        assert_eq!(
            payload(ValueRef::Blob(b"{\"a\":1}")),
            Ok("{\"a\":1}".into())
        );
        assert!(
            payload(ValueRef::Blob(&[0xff, 0xfe]))
                .unwrap_err()
                .contains("BLOB of 2")
        );
        assert_eq!(payload(ValueRef::Null), Err("payload is NULL".into()));
        assert!(payload(ValueRef::Integer(7)).is_err());
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
        assert_eq!(optional_text(ValueRef::Null), None);
        assert_eq!(integer_id(ValueRef::Text(b"12")), Some(12));
        assert_eq!(integer_id(ValueRef::Real(3.0)), Some(3));
        assert_eq!(integer_id(ValueRef::Null), None);
    }
}
