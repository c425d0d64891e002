//! What `check` says about the schema: problems (the contract's guarantees
//! do not hold) and notes (an optional part is absent, with what that means).
//! Unknown extra columns and tables are fine and not mentioned.

use rusqlite::Connection;

use super::open::Database;
use crate::storage::source::{Related, RelationKind};
use crate::t;

/// Ways the schema falls short of the contract. Empty when all is well.
pub fn schema_problems(db: &Database) -> Vec<String> {
    let lang = crate::i18n::current();
    let source = db.source();
    let mut problems = Vec::new();
    if source.receipts == RelationKind::Table && source.columns.request_key {
        match has_key_uniqueness(db.conn(), source.columns.scope) {
            Ok(true) => {}
            Ok(false) => problems.push(t!(lang, "check.problem.no_unique_key").to_string()),
            Err(e) => problems.push(t!(
                lang,
                "check.problem.indexes_unreadable",
                detail = crate::sanitize::inline(&e.to_string(), 120)
            )),
        }
    }
    problems.extend(source.related_problems());
    problems
}

/// Informational notes: optional parts that are absent and what follows.
/// (No command shows them yet: [`crate::storage::Storage`] gives only the
/// problems.)
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "Storage has no method for the notes yet")
)]
pub fn schema_notes(db: &Database) -> Vec<String> {
    let lang = crate::i18n::current();
    let source = db.source();
    let mut notes = Vec::new();
    if source.is_view() {
        notes.push(t!(lang, "check.note.view").to_string());
    }
    let c = &source.columns;
    for (present, note) in [
        (c.scope, t!(lang, "check.note.no_scope")),
        (c.request_key, t!(lang, "check.note.no_request_key")),
        (c.digest, t!(lang, "check.note.no_digest")),
        (c.state, t!(lang, "check.note.no_state")),
        (c.updated_at, t!(lang, "check.note.no_updated_at")),
    ] {
        if !present {
            notes.push(note.to_string());
        }
    }
    if source.key_conflicts == Related::Absent {
        notes.push(t!(lang, "check.note.no_key_conflicts").to_string());
    }
    if source.replays == Related::Absent {
        notes.push(t!(lang, "check.note.no_replays").to_string());
    }
    if source.absorbed == Related::Absent {
        notes.push(t!(lang, "check.note.no_absorbed").to_string());
    }
    if !db.is_wal() {
        notes.push(t!(lang, "check.note.not_wal").to_string());
    }
    notes
}

/// Whether some non-partial unique index (or primary key) of `receipts` covers
/// only columns among scope and request_key, which makes the pair unique.
fn has_key_uniqueness(conn: &Connection, has_scope: bool) -> rusqlite::Result<bool> {
    let mut list = conn.prepare(
        "SELECT name FROM pragma_index_list('receipts', 'main') \
         WHERE \"unique\" = 1 AND partial = 0",
    )?;
    let names: Vec<String> = list
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut info = conn.prepare("SELECT name FROM pragma_index_info(?1, 'main')")?;
    for name in names {
        let columns: Vec<Option<String>> = info
            .query_map([&name], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let covers = !columns.is_empty()
            && columns.iter().all(|c| {
                c.as_deref().is_some_and(|c| {
                    c.eq_ignore_ascii_case("request_key")
                        || (has_scope && c.eq_ignore_ascii_case("scope"))
                })
            });
        if covers {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Access;

    /// A database of `sql`, opened read-only.
    fn open(dir: &tempfile::TempDir, name: &str, sql: &str) -> Database {
        let path = dir.path().join(name);
        Connection::open(&path).unwrap().execute_batch(sql).unwrap();
        Database::open(&path, Access::ReadOnly).unwrap()
    }

    #[test]
    fn a_database_made_by_init_has_neither_problems_nor_notes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clean.db");
        super::super::schema::init(&path).unwrap();
        let db = Database::open(&path, Access::ReadOnly).unwrap();
        assert_eq!(schema_problems(&db), Vec::<String>::new());
        assert_eq!(schema_notes(&db), Vec::<String>::new());
    }

    #[test]
    fn notes_name_the_optional_parts_that_are_absent() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(
            &dir,
            "loose.db",
            "CREATE TABLE receipts (id INTEGER PRIMARY KEY, scope TEXT, request_key TEXT,
                                    payload TEXT, created_at TEXT, notes TEXT);
             CREATE UNIQUE INDEX partial_key ON receipts(scope, request_key) WHERE id > 10;
             CREATE TABLE key_conflicts (id INTEGER PRIMARY KEY, payload TEXT);",
        );
        assert_eq!(schema_problems(&db).len(), 2);
        let notes = schema_notes(&db);
        for absent in ["no digest column", "no replays table", "not in WAL mode"] {
            assert!(notes.iter().any(|n| n.contains(absent)), "{notes:?}");
        }
        // An unusable table is a problem, not a note.
        assert!(
            !notes.iter().any(|n| n.contains("key_conflicts")),
            "{notes:?}"
        );
    }

    #[test]
    fn the_first_note_on_a_view_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(
            &dir,
            "v.db",
            "CREATE TABLE t (n INTEGER, body TEXT, at TEXT);
             CREATE VIEW receipts AS SELECT n AS id, body AS payload, at AS created_at FROM t;",
        );
        assert!(schema_problems(&db).is_empty(), "a view needs no UNIQUE");
        let notes = schema_notes(&db);
        assert!(notes[0].contains("receipts is a view"), "{notes:?}");
    }
}
