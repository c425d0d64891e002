//! The `review_log` table: created only by commands that write.

use rusqlite::Connection;

use super::error::ReviewError;

/// The table, its indexes and the triggers that keep it append-only.
pub const REVIEW_LOG_SQL: &str = include_str!("../../assets/review_log.sql");

/// The columns this tool reads and writes, in export order.
pub(crate) const COLUMNS: [&str; 13] = crate::model::LOG_COLUMNS;

/// Creates `review_log` (and its indexes and triggers) when absent, and checks
/// that an existing one has the expected columns. Call it only on a path that
/// writes: read-only commands must leave the database as they found it.
/// Inside a transaction it is part of that transaction.
pub fn ensure_review_log(conn: &Connection) -> Result<(), ReviewError> {
    if log_table_exists(conn)? {
        check_columns(conn)?;
    }
    // Also restores an index or trigger that someone dropped.
    conn.execute_batch(REVIEW_LOG_SQL)?;
    Ok(())
}

/// True when the database has a `review_log` table. Never creates anything.
pub(crate) fn log_table_exists(conn: &Connection) -> Result<bool, ReviewError> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'review_log'",
        [],
        |row| row.get(0),
    )?;
    Ok(n > 0)
}

/// Errors when `review_log` lacks a column this tool needs.
pub(crate) fn check_columns(conn: &Connection) -> Result<(), ReviewError> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('review_log')")?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let missing: Vec<&str> = COLUMNS
        .iter()
        .copied()
        .filter(|c| !names.iter().any(|n| n.eq_ignore_ascii_case(c)))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ReviewError::Schema(format!(
            "missing column{} {}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )))
    }
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
