//! Brings a `review_log` made by an older version up to the current schema,
//! in the caller's write transaction. Nothing is deleted from the log: the
//! rows are the same before and after, only the rules that guard them and
//! the columns they may fill grew.
//!
//! - SQLite cannot change a CHECK constraint in place, and an older table
//!   refuses a kind added since (`bot` and its decision `not_spam`;
//!   `erasure` and `erased`): that table is made anew with the current
//!   schema and every row copied over, ids and all;
//! - a table without the columns added since (`kept`, `batch`) is given
//!   them, NULL in every row already there.

use rusqlite::Connection;

use crate::storage::error::LogError;

/// The name the old table takes while its rows are copied.
const OLD: &str = "review_log_before_upgrade";

/// True when the stored `review_log` refuses the newest kind's rows (the
/// kinds were only ever added to, the newest last).
fn refuses_a_kind(conn: &Connection) -> Result<bool, LogError> {
    let sql: Option<String> = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'review_log'",
            [],
            |row| row.get(0),
        )
        .ok();
    Ok(sql.is_some_and(|sql| sql.contains("CHECK (kind IN") && !sql.contains("'erasure'")))
}

/// Rebuilds an older `review_log` under `schema` (the current one), when it
/// refuses a kind added since. Call it inside a write transaction.
pub(super) fn upgrade(conn: &Connection, schema: &str) -> Result<(), LogError> {
    if !refuses_a_kind(conn)? {
        return Ok(());
    }
    // The columns the old table has (an added one may be missing: NULL).
    let stored = stored_columns(conn)?;
    let columns = crate::model::LOG_COLUMNS
        .iter()
        .filter(|c| stored.iter().any(|s| s.eq_ignore_ascii_case(c)))
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    conn.execute_batch(&format!(
        "DROP TRIGGER IF EXISTS review_log_no_update;
         DROP TRIGGER IF EXISTS review_log_no_replace;
         DROP TRIGGER IF EXISTS review_log_no_delete;
         DROP INDEX IF EXISTS review_log_item;
         DROP INDEX IF EXISTS review_log_operator;
         DROP INDEX IF EXISTS review_log_reopens;
         DROP INDEX IF EXISTS review_log_batch;
         ALTER TABLE review_log RENAME TO {OLD};"
    ))?;
    conn.execute_batch(schema)?;
    conn.execute_batch(&format!(
        "INSERT INTO review_log ({columns}) SELECT {columns} FROM {OLD} ORDER BY id;
         DROP TABLE {OLD};"
    ))?;
    Ok(())
}

/// Adds each of `added` (name, type) that the stored `review_log` lacks.
/// Call it inside a write transaction.
pub(super) fn add_columns(conn: &Connection, added: &[(&str, &str)]) -> Result<(), LogError> {
    let stored = stored_columns(conn)?;
    for (name, sql_type) in added {
        if !stored.iter().any(|s| s.eq_ignore_ascii_case(name)) {
            // Fixed names and types of our own schema, never user text.
            conn.execute_batch(&format!(
                "ALTER TABLE review_log ADD COLUMN {name} {sql_type}"
            ))?;
        }
    }
    Ok(())
}

/// The column names of the stored `review_log`.
pub(super) fn stored_columns(conn: &Connection) -> Result<Vec<String>, LogError> {
    let mut stmt = conn.prepare_cached("SELECT name FROM pragma_table_info('review_log')")?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(names)
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::super::review_log::{REVIEW_LOG_SQL, ensure_review_log};

    /// The schema before erasures: the same, with the older CHECKs.
    fn before_erasures() -> String {
        REVIEW_LOG_SQL
            .replace("'stuck', 'bot', 'erasure')", "'stuck', 'bot')")
            .replace("\n    OR (kind = 'erasure' AND decision = 'erased')", "")
    }

    /// The schema before bot groups: the same, with the older CHECKs.
    fn older_schema() -> String {
        before_erasures()
            .replace("'stuck', 'bot')", "'stuck')")
            .replace(
                "\n    OR (kind = 'bot' AND decision IN ('spam', 'not_spam', 'reopened'))",
                "",
            )
    }

    const INSERT: &str =
        "INSERT INTO review_log (item, kind, decision, operator, decided_at, receipt_ids)
                          VALUES (?1, ?2, ?3, 'ann', '2026-11-29T10:00:00.000Z', '[1]')";

    #[test]
    fn an_older_log_keeps_its_rows_and_takes_bot_decisions() {
        let conn = Connection::open_in_memory().unwrap();
        let older = older_schema();
        assert_ne!(older, REVIEW_LOG_SQL);
        conn.execute_batch(&older).unwrap();
        conn.execute(INSERT, ["dup:1", "duplicate", "spam"])
            .unwrap();
        conn.execute(INSERT, ["stuck:2", "stuck", "completed"])
            .unwrap();
        assert!(conn.execute(INSERT, ["bot:1", "bot", "spam"]).is_err());

        ensure_review_log(&conn).unwrap();
        conn.execute(INSERT, ["bot:1", "bot", "not_spam"]).unwrap();
        let rows: Vec<(i64, String, String)> = conn
            .prepare("SELECT id, item, decision FROM review_log ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            vec![
                (1, "dup:1".into(), "spam".into()),
                (2, "stuck:2".into(), "completed".into()),
                (3, "bot:1".into(), "not_spam".into()),
            ]
        );
        // Still append-only, still guarded, and done once.
        assert!(conn.execute("DELETE FROM review_log", []).is_err());
        assert!(
            conn.execute("UPDATE review_log SET note = 'x'", [])
                .is_err()
        );
        assert!(conn.execute(INSERT, ["bot:1", "bot", "distinct"]).is_err());
        ensure_review_log(&conn).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM review_log", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 3);
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name LIKE 'review_log%' AND type = 'table'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn a_log_before_erasures_keeps_its_rows_and_takes_an_erasure() {
        let conn = Connection::open_in_memory().unwrap();
        let before = before_erasures();
        assert_ne!(before, REVIEW_LOG_SQL);
        assert!(before.contains("'bot'"));
        conn.execute_batch(&before).unwrap();
        conn.execute(INSERT, ["bot:1", "bot", "not_spam"]).unwrap();
        assert!(
            conn.execute(INSERT, ["erase:1", "erasure", "erased"])
                .is_err()
        );

        ensure_review_log(&conn).unwrap();
        conn.execute(INSERT, ["erase:1", "erasure", "erased"])
            .unwrap();
        assert!(
            conn.execute(INSERT, ["erase:1", "erasure", "spam"])
                .is_err()
        );
        let rows: Vec<(i64, String)> = conn
            .prepare("SELECT id, item FROM review_log ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows, vec![(1, "bot:1".into()), (2, "erase:1".into())]);
    }

    #[test]
    fn the_oldest_log_without_bots_or_the_added_columns_keeps_its_rows() {
        let conn = Connection::open_in_memory().unwrap();
        let oldest: String = older_schema()
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                !l.starts_with("kept ") && !l.starts_with("batch ") && !l.contains("_batch")
            })
            .collect::<Vec<_>>()
            .join("\n");
        conn.execute_batch(&oldest).unwrap();
        conn.execute(INSERT, ["dup:1", "duplicate", "spam"])
            .unwrap();
        conn.execute(INSERT, ["stuck:2", "stuck", "completed"])
            .unwrap();

        ensure_review_log(&conn).unwrap();
        let rows: Vec<(i64, String, Option<i64>, Option<i64>)> = conn
            .prepare("SELECT id, item, kept, batch FROM review_log ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            vec![
                (1, "dup:1".into(), None, None),
                (2, "stuck:2".into(), None, None)
            ]
        );
        conn.execute(INSERT, ["bot:1", "bot", "spam"]).unwrap();
        let indexes: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'review_log_batch'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 1);
    }
}
