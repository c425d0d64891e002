//! The receipts database as the server opens it: created when new, the
//! schema's missing tables added (`absorbed` among them), WAL with
//! `synchronous=FULL`, so that a commit is on disk before its 201 is sent.

use std::path::Path;

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension};

use super::Refused;
use crate::intake::store::{IntakeStore, SCHEMA_SQL};
use crate::storage::error::show_path;
use crate::t;

pub fn open(db: &Path) -> anyhow::Result<IntakeStore> {
    let lang = crate::i18n::current();
    let shown = show_path(db);
    let folder = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(refused(t!(
            lang,
            "serve.db.no_folder",
            path = shown,
            folder = show_path(folder)
        )));
    }
    if db.is_dir() {
        return Err(refused(t!(lang, "serve.db.not_a_file", path = shown)));
    }
    let conn = Connection::open(db)
        .with_context(|| t!(lang, "serve.db.cannot_open", path = shown.clone()))?;
    let opened = (|| -> rusqlite::Result<(String, Option<String>)> {
        conn.busy_timeout(crate::intake::store::BUSY_TIMEOUT)?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        let kind: Option<String> = conn
            .query_row(
                "SELECT type FROM sqlite_master WHERE name = 'receipts'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        Ok((mode, kind))
    })()
    .with_context(|| t!(lang, "serve.db.cannot_open", path = shown.clone()))?;
    let (mode, kind) = opened;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(refused(t!(
            lang,
            "serve.db.no_wal",
            path = shown,
            mode = mode
        )));
    }
    if kind.as_deref().is_some_and(|k| k != "table") {
        return Err(refused(t!(
            lang,
            "serve.db.receipts_not_a_table",
            path = shown
        )));
    }
    conn.execute_batch(SCHEMA_SQL)
        .and_then(|()| add_absorbed_digest(&conn))
        .with_context(|| t!(lang, "serve.db.cannot_open", path = shown.clone()))?;
    Ok(IntakeStore::new(conn)?)
}

fn refused(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refused(message.into()))
}

/// An `absorbed` table made before copies' digests were kept gains the
/// column; its old rows keep NULL (their receipt's digest stands in).
fn add_absorbed_digest(conn: &Connection) -> rusqlite::Result<()> {
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('absorbed') WHERE name = 'digest'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        conn.execute_batch("ALTER TABLE absorbed ADD COLUMN digest TEXT")?;
    }
    Ok(())
}
