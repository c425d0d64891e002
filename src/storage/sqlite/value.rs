//! Reading SQLite values the contract allows in more than one type: ids,
//! and the errors that name a value that is not what was expected.

use rusqlite::types::ValueRef;

use super::open::Database;
use crate::storage::error::StorageError;

/// An id as an integer: INTEGER, an integral REAL, or integer digits as text.
pub(crate) fn integer_id(value: ValueRef<'_>) -> Option<i64> {
    match value {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(x as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

pub(crate) fn bad_id(
    db: &Database,
    what: &str,
    value: Result<ValueRef<'_>, StorageError>,
) -> StorageError {
    bad_id_in(db.path(), what, value)
}

/// [`bad_id`] of the database at `path`.
pub(crate) fn bad_id_in(
    path: &std::path::Path,
    what: &str,
    value: Result<ValueRef<'_>, StorageError>,
) -> StorageError {
    let shown = match value {
        Ok(v) => describe(v),
        Err(e) => return e,
    };
    StorageError::BadReceipts {
        path: crate::storage::error::show_path(path),
        detail: crate::t!(
            crate::i18n::current(),
            "error.storage.reason.bad_id",
            table = what,
            id = shown
        ),
    }
}

/// A short, terminal-safe description of a value that is not what was expected.
fn describe(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(x) => x.to_string(),
        ValueRef::Text(t) => format!(
            "{:?}",
            crate::sanitize::inline(&String::from_utf8_lossy(t), 40)
        ),
        ValueRef::Blob(b) => format!("a BLOB of {} bytes", b.len()),
    }
}

pub(crate) fn is_overflow(e: &rusqlite::Error) -> bool {
    e.to_string().contains("overflow")
}
