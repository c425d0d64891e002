//! What `check` says about the schema: problems (the contract's guarantees
//! do not hold) and notes (an optional part is absent, with what that means).
//! Unknown extra columns and tables are fine and not mentioned.

use rusqlite::Connection;

use super::open::Database;
use super::source::{Related, RelationKind};

/// Ways the schema falls short of the contract. Empty when all is well.
pub fn schema_problems(db: &Database) -> Vec<String> {
    let source = db.source();
    let mut problems = Vec::new();
    if source.receipts == RelationKind::Table && source.columns.request_key {
        match has_key_uniqueness(db.conn(), source.columns.scope) {
            Ok(true) => {}
            Ok(false) => problems.push(
                "receipts has no UNIQUE(scope, request_key): one key can be stored twice, \
                 so replays and conflicts are not guaranteed"
                    .to_string(),
            ),
            Err(e) => problems.push(format!(
                "could not read the indexes of receipts: {}",
                crate::sanitize::inline(&e.to_string(), 120)
            )),
        }
    }
    for (name, related) in [
        ("key_conflicts", &source.key_conflicts),
        ("replays", &source.replays),
    ] {
        if let Related::Unusable { kind, missing } = related {
            problems.push(format!(
                "{name} is a {} without the column{} {}: it is not read",
                kind.as_str(),
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ));
        }
    }
    problems
}

/// Informational notes: optional parts that are absent and what follows.
pub fn schema_notes(db: &Database) -> Vec<String> {
    let source = db.source();
    let mut notes = Vec::new();
    if source.is_view() {
        notes.push("receipts is a view: state changes are disabled".to_string());
    }
    let c = &source.columns;
    for (present, note) in [
        (
            c.scope,
            "receipts has no scope column: every receipt is in scope ''",
        ),
        (
            c.request_key,
            "receipts has no request_key column: every receipt counts as keyless",
        ),
        (
            c.digest,
            "receipts has no digest column: digests are computed, not verified",
        ),
        (
            c.state,
            "receipts has no state column: every receipt counts as completed",
        ),
        (c.updated_at, "receipts has no updated_at column"),
    ] {
        if !present {
            notes.push(note.to_string());
        }
    }
    if source.key_conflicts == Related::Absent {
        notes.push("no key_conflicts table: conflicts are found only among receipts".to_string());
    }
    if source.replays == Related::Absent {
        notes.push("no replays table: replays are not counted".to_string());
    }
    if !db.is_wal() {
        notes.push(
            "the database is not in WAL mode: readers and the intake wait for each other"
                .to_string(),
        );
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
