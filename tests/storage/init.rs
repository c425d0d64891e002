//! `init`: creates the schema in WAL mode, refuses anything not empty unchanged.

use crate::support;

use std::fs;

use receipt_review::storage::{self, Access, StorageError};
use rusqlite::Connection;
use support::{SCHEMA_SQL, create, is_wal, load, open, snapshot};

fn tables(path: &std::path::Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn init_creates_the_schema_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    storage::init(&path).unwrap();
    assert_eq!(
        tables(&path),
        ["absorbed", "key_conflicts", "receipts", "replays"]
    );
    let header = fs::read(&path).unwrap();
    assert_eq!((header[18], header[19]), (2, 2), "WAL mode is persistent");
    let db = open(&path, Access::PreferWrite).unwrap();
    assert!(is_wal(&path));
    assert!(!db.is_read_only());
    assert!(db.source().key_conflicts.is_usable() && db.source().replays.is_usable());
    assert!(db.schema_problems().is_empty());
    assert!(load(&*db).unwrap().receipts.is_empty());
}

#[test]
fn init_accepts_an_existing_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    fs::write(&path, b"").unwrap();
    storage::init(&path).unwrap();
    assert_eq!(
        tables(&path),
        ["absorbed", "key_conflicts", "receipts", "replays"]
    );
}

#[test]
fn init_refuses_a_database_that_is_not_empty_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("used.db");
    create(&path)
        .execute_batch("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);")
        .unwrap();
    let before = snapshot(dir.path());
    let err = storage::init(&path).unwrap_err();
    assert!(matches!(err, StorageError::InitRefused { .. }), "{err:?}");
    let text = support::one_line(&err, &path);
    assert!(text.contains("already holds 1 schema object"), "{text}");
    assert_eq!(err.exit_code(), 2);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn init_twice_refuses_the_second_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twice.db");
    storage::init(&path).unwrap();
    let before = snapshot(dir.path());
    assert!(matches!(
        storage::init(&path),
        Err(StorageError::InitRefused { .. })
    ));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn init_refuses_a_file_that_is_not_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    fs::write(&path, "remember the milk\n").unwrap();
    let before = snapshot(dir.path());
    let err = storage::init(&path).unwrap_err();
    assert!(support::one_line(&err, &path).contains("not a SQLite database"));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn init_refuses_a_directory_and_a_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    let err = storage::init(dir.path()).unwrap_err();
    assert!(matches!(err, StorageError::IsDirectory { .. }), "{err:?}");
    let nested = dir.path().join("no-such-folder").join("x.db");
    let err = storage::init(&nested).unwrap_err();
    assert!(support::one_line(&err, &nested).contains("folder does not exist"));
    assert!(snapshot(dir.path()).is_empty());
}

/// The schema objects of a database: type, name and SQL, by name.
fn schema_of(path: &std::path::Path) -> Vec<(String, String, Option<String>)> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn init_creates_the_schema_of_the_asset() {
    assert!(SCHEMA_SQL.contains("UNIQUE(scope, request_key)"));
    assert!(!SCHEMA_SQL.contains("CREATE TABLE IF NOT EXISTS review_log"));
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("init.db");
    storage::init(&made).unwrap();
    let by_hand = dir.path().join("by-hand.db");
    create(&by_hand).execute_batch(SCHEMA_SQL).unwrap();
    assert_eq!(schema_of(&made), schema_of(&by_hand));
}
