//! Opening databases: every bad input is a typed, one-line error that changes
//! nothing on disk; read-only stays read-only; writable falls back with a reason.

use crate::support;

use std::fs;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use receipt_review::storage::{
    self, Access, DEFAULT_BUSY_TIMEOUT, Location, OpenOptions, StorageError,
};
use rusqlite::Connection;
use support::{
    Db, SCHEMA_SQL, create, is_wal, load, one_line, open, open_err, receipts_db, snapshot,
};

/// True when `db` refuses to write: a write cannot begin, or the review
/// log cannot be created in it.
fn refuses_writes(db: &mut Db) -> bool {
    match db.begin_write() {
        Err(_) => true,
        Ok(mut tx) => tx.ensure_log().is_err(),
    }
}

/// Writes through `db`: the review log, created and committed.
fn write_log(db: &mut Db) {
    let mut tx = db.begin_write().unwrap();
    tx.ensure_log().unwrap();
    tx.commit().unwrap();
}

const BOTH: [Access; 2] = [Access::ReadOnly, Access::PreferWrite];

#[test]
fn a_missing_file_is_never_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.db");
    for access in BOTH {
        let err = open_err(&path, access);
        assert!(matches!(err, StorageError::NotFound { .. }), "{err:?}");
        let text = one_line(&err, &path);
        assert!(text.ends_with("the file does not exist"), "{text}");
        assert_eq!(err.exit_code(), 2);
        assert!(!path.exists());
        assert!(snapshot(dir.path()).is_empty());
    }
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("receipts.db");
    fs::create_dir(&sub).unwrap();
    for access in BOTH {
        let err = open_err(&sub, access);
        assert!(matches!(err, StorageError::IsDirectory { .. }), "{err:?}");
        assert!(one_line(&err, &sub).contains("is a directory"));
        assert_eq!(snapshot(&sub).len(), 0);
        assert_eq!(snapshot(dir.path()).len(), 1);
    }
}

#[test]
fn files_that_are_not_sqlite_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("export.csv");
    fs::write(&text, "id,payload,created_at\n1,{},2026-01-01\n").unwrap();
    let random = dir.path().join("random.db");
    // Deterministic noise, longer than a SQLite header and a page.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    fs::write(&random, &noise).unwrap();
    let before = snapshot(dir.path());
    for path in [&text, &random] {
        for access in BOTH {
            let err = open_err(path, access);
            assert!(matches!(err, StorageError::NotSqlite { .. }), "{err:?}");
            assert!(one_line(&err, path).contains("not a SQLite database"));
            assert_eq!(err.exit_code(), 2);
        }
    }
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_sqlite_header_on_garbage_is_not_a_database() {
    // Past the magic string, the header is nonsense: SQLite itself must refuse it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fake.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.resize(4096, 0xAB);
    fs::write(&path, &bytes).unwrap();
    let before = snapshot(dir.path());
    for access in BOTH {
        let err = open_err(&path, access);
        assert!(
            matches!(
                err,
                StorageError::NotSqlite { .. } | StorageError::Corrupt { .. }
            ),
            "{err:?}"
        );
        one_line(&err, &path);
        assert_eq!(snapshot(dir.path()), before);
    }
}

#[test]
fn an_empty_file_is_not_a_receipts_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    fs::write(&path, b"").unwrap();
    for access in BOTH {
        let err = open_err(&path, access);
        assert!(matches!(err, StorageError::Empty { .. }), "{err:?}");
        let text = one_line(&err, &path);
        assert!(
            text.ends_with("is empty: not a receipts database"),
            "{text}"
        );
        assert_eq!(snapshot(dir.path()).len(), 1);
        assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    }
}

#[test]
fn a_truncated_database_is_reported_damaged() {
    for journal in ["DELETE", "WAL"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.db");
        {
            let conn = create(&path);
            conn.pragma_update(None, "journal_mode", journal).unwrap();
            conn.execute_batch(SCHEMA_SQL).unwrap();
            let tx = conn.unchecked_transaction().unwrap();
            for i in 0..3000 {
                tx.execute(
                    "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
                     VALUES ('s', ?1, 'd', ?2, '2026-01-01 00:00:00')",
                    rusqlite::params![format!("k{i}"), format!("{{\"n\":{i}}}")],
                )
                .unwrap();
            }
            tx.commit().unwrap();
        }
        let bytes = fs::read(&path).unwrap();
        assert!(bytes.len() > 16 * 4096, "{journal}: too small to cut");
        fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let before = snapshot(dir.path());
        for access in BOTH {
            let result = open(&path, access).and_then(|db| load(&*db).map(|_| ()));
            let err = result.expect_err(journal);
            assert!(
                matches!(err, StorageError::Corrupt { .. }),
                "{journal}: {err:?}"
            );
            let text = one_line(&err, &path);
            assert!(text.contains("malformed"), "{text}");
            assert_eq!(err.exit_code(), 2);
            assert_eq!(snapshot(dir.path()), before, "{journal} {access:?}");
        }
    }
}

#[test]
fn a_database_without_receipts_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    create(&path)
        .execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL);")
        .unwrap();
    let before = snapshot(dir.path());
    for access in BOTH {
        let err = open_err(&path, access);
        assert!(matches!(err, StorageError::NoReceipts { .. }), "{err:?}");
        assert!(one_line(&err, &path).contains("no `receipts` table or view"));
        assert_eq!(snapshot(dir.path()), before);
    }
}

#[test]
fn a_view_missing_a_required_column_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE tickets (ticket_no INTEGER PRIMARY KEY, body TEXT, opened TEXT);
             CREATE VIEW receipts AS SELECT ticket_no AS id, body AS payload FROM tickets;",
        )
        .unwrap();
    let before = snapshot(dir.path());
    for access in BOTH {
        let err = open_err(&path, access);
        assert!(
            matches!(
                err,
                StorageError::MissingColumn {
                    column: "created_at",
                    ..
                }
            ),
            "{err:?}"
        );
        let text = one_line(&err, &path);
        assert!(text.contains("`created_at`"), "{text}");
        assert_eq!(snapshot(dir.path()), before);
    }
    // The same holds for each required column.
    let path = dir.path().join("no-id.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE t (n INTEGER, body TEXT, opened TEXT);
             CREATE VIEW receipts AS SELECT n AS num, body AS payload, opened AS created_at FROM t;",
        )
        .unwrap();
    let err = open_err(&path, Access::ReadOnly);
    assert!(one_line(&err, &path).contains("`id`"), "{err}");
}

#[test]
fn a_broken_view_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE t (n INTEGER, body TEXT, opened TEXT);
             CREATE VIEW receipts AS SELECT n AS id, body AS payload, opened AS created_at FROM t;
             DROP TABLE t;",
        )
        .unwrap();
    let err = open_err(&path, Access::ReadOnly);
    let text = one_line(&err, &path);
    assert!(matches!(err, StorageError::BadReceipts { .. }), "{err:?}");
    assert!(text.contains("no such table"), "{text}");
}

/// Holds `BEGIN EXCLUSIVE` with a write pending on another connection until told to stop.
fn hold_exclusive(path: &std::path::Path) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (locked_tx, locked_rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let path = path.to_path_buf();
    let handle = std::thread::spawn(move || {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "BEGIN EXCLUSIVE;
             INSERT INTO receipts (scope, request_key, digest, payload, created_at)
             VALUES ('s', 'pending', 'd', '{}', '2026-01-01 00:00:00');",
        )
        .unwrap();
        locked_tx.send(()).unwrap();
        let _ = stop_rx.recv_timeout(Duration::from_secs(30));
        conn.execute_batch("ROLLBACK").unwrap();
    });
    locked_rx.recv().unwrap();
    (stop_tx, handle)
}

fn rollback_journal_db(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("locked.db");
    let conn = create(&path);
    conn.execute_batch(SCHEMA_SQL).unwrap();
    conn.execute(
        "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
         VALUES ('s', 'k', 'd', '{}', '2026-01-01 00:00:00')",
        [],
    )
    .unwrap();
    path
}

#[test]
fn a_locked_database_reports_busy_at_open_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let path = rollback_journal_db(dir.path());
    let (stop, handle) = hold_exclusive(&path);
    for access in BOTH {
        let started = Instant::now();
        let err = open_err(&path, access);
        let waited = started.elapsed();
        assert!(matches!(err, StorageError::Busy { .. }), "{err:?}");
        let text = one_line(&err, &path);
        assert!(text.contains("locked by another process"), "{text}");
        assert!(text.contains("300 ms"), "{text}");
        // It waited for the lock before giving up (a lower bound, which no
        // slow machine breaks). An open that waited for the holder to let go
        // instead would not be refused at all.
        assert!(waited >= Duration::from_millis(250), "{waited:?}");
        assert_eq!(
            err.exit_code(),
            2,
            "a locked database is unusable input now"
        );
    }
    stop.send(()).unwrap();
    handle.join().unwrap();
    // Once released, it opens.
    assert!(open(&path, Access::ReadOnly).is_ok());
}

#[test]
fn a_database_locked_after_open_reports_busy_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = rollback_journal_db(dir.path());
    let db = open(&path, Access::ReadOnly).unwrap();
    let (stop, handle) = hold_exclusive(&path);
    let err = load(&*db).unwrap_err();
    assert!(matches!(err, StorageError::Busy { .. }), "{err:?}");
    stop.send(()).unwrap();
    handle.join().unwrap();
    assert_eq!(load(&*db).unwrap().receipts.len(), 1);
}

#[test]
fn read_only_open_of_a_wal_database_leaves_the_file_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "live.db", 50);
    // A live intake: more receipts sit in the WAL, not yet checkpointed.
    let intake = Connection::open(&path).unwrap();
    intake.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    intake
        .execute(
            "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
             VALUES ('s', 'in-wal', 'd', '{}', '2026-01-01 00:00:00')",
            [],
        )
        .unwrap();
    let main_before = fs::read(&path).unwrap();
    let wal_path = dir.path().join("live.db-wal");
    let wal_before = fs::read(&wal_path).unwrap();
    assert!(!wal_before.is_empty());
    {
        let mut db = open(&path, Access::ReadOnly).unwrap();
        assert!(db.is_read_only());
        assert!(is_wal(&path));
        assert_eq!(db.read_only_reason(), None);
        let loaded = load(&*db).unwrap();
        assert_eq!(loaded.receipts.len(), 51);
        // Writes are refused on a read-only connection.
        assert!(refuses_writes(&mut db));
    }
    assert_eq!(fs::read(&path).unwrap(), main_before);
    assert_eq!(fs::read(&wal_path).unwrap(), wal_before);
    drop(intake);

    // And with no intake around (no -wal file at all): the main file is untouched.
    let main_before = fs::read(&path).unwrap();
    {
        let db = open(&path, Access::ReadOnly).unwrap();
        load(&*db).unwrap();
    }
    assert_eq!(fs::read(&path).unwrap(), main_before);
}

#[test]
fn read_only_open_of_a_rollback_database_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = rollback_journal_db(dir.path());
    let before = snapshot(dir.path());
    {
        let db = open(&path, Access::ReadOnly).unwrap();
        assert!(!is_wal(&path));
        load(&*db).unwrap();
        db.schema_problems();
    }
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn prefer_write_opens_writable_and_keeps_the_journal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let wal = receipts_db(dir.path(), "wal.db", 3);
    let mut db = open(&wal, Access::PreferWrite).unwrap();
    assert!(!db.is_read_only());
    assert_eq!(db.read_only_reason(), None);
    assert!(is_wal(&wal));
    write_log(&mut db);
    drop(db);
    assert!(is_wal(&wal));

    let rollback = rollback_journal_db(dir.path());
    let mut db = open(&rollback, Access::PreferWrite).unwrap();
    assert!(!db.is_read_only());
    assert!(!is_wal(&rollback));
    write_log(&mut db);
    drop(db);
    let mode: String = Connection::open(&rollback)
        .unwrap()
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    // The folder probe leaves nothing behind.
    let names: Vec<String> = snapshot(dir.path()).into_keys().collect();
    assert!(names.iter().all(|n| !n.contains("probe")), "{names:?}");
}

#[test]
fn prefer_write_on_a_view_keeps_the_log_writable_but_not_states() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.db");
    create(&path)
        .execute_batch(
            "CREATE TABLE tickets (ticket_no INTEGER PRIMARY KEY, body TEXT, opened TEXT);
             INSERT INTO tickets VALUES (1, '{}', '2026-01-01 00:00:00');
             CREATE VIEW receipts AS
               SELECT ticket_no AS id, body AS payload, opened AS created_at FROM tickets;",
        )
        .unwrap();
    let mut db = open(&path, Access::PreferWrite).unwrap();
    assert!(!db.is_read_only());
    assert!(db.source().is_view());
    let reason = db.state_changes_off().unwrap();
    assert!(reason.contains("receipts is a view"), "{reason}");
    assert_eq!(load(&*db).unwrap().receipts.len(), 1);
    // Decisions can still be logged next to a legacy view.
    write_log(&mut db);
}

#[test]
fn prefer_write_on_a_read_only_file_falls_back_with_a_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "ro.db", 2);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(dir.path());
    {
        let db = open(&path, Access::PreferWrite).unwrap();
        assert!(db.is_read_only());
        let reason = db.read_only_reason().unwrap();
        assert!(reason.starts_with("the file is read-only"), "{reason}");
        assert_eq!(load(&*db).unwrap().receipts.len(), 2);
    }
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    let after = snapshot(dir.path());
    assert_eq!(after.get("ro.db"), before.get("ro.db"));
}

#[test]
fn prefer_write_in_a_read_only_folder_falls_back_with_a_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ro");
    fs::create_dir(&folder).unwrap();
    let path = rollback_journal_db(&folder);
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
    let result = open(&path, Access::PreferWrite);
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
    let db = result.unwrap();
    assert!(db.is_read_only());
    assert_eq!(db.read_only_reason(), Some("the folder is read-only"));
}

#[test]
fn prefer_write_when_the_os_refuses_writing() {
    // A file this user cannot write, although its mode has a write bit for
    // someone (as root, checked again as nobody).
    use std::os::unix::fs::PermissionsExt;
    if !support::checks_permissions_here("open::prefer_write_when_the_os_refuses_writing") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "theirs.db", 1);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o464)).unwrap();
    let db = open(&path, Access::PreferWrite).unwrap();
    assert!(db.is_read_only());
    assert!(
        db.read_only_reason()
            .unwrap()
            .starts_with("the file is read-only")
    );
}

#[test]
fn an_unreadable_file_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    if !support::checks_permissions_here("open::an_unreadable_file_is_permission_denied") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "secret.db", 1);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    let err = open_err(&path, Access::ReadOnly);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    assert!(
        matches!(err, StorageError::PermissionDenied { .. }),
        "{err:?}"
    );
    assert!(one_line(&err, &path).contains("permission denied"));
}

#[test]
fn the_change_mark_moves_when_another_connection_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "watch.db", 1);
    let db = open(&path, Access::ReadOnly).unwrap();
    let v1 = db.change_mark().unwrap();
    assert_eq!(db.change_mark().unwrap(), v1);
    Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
             VALUES ('s', 'new', 'd', '{}', '2026-01-01 00:00:00')",
            [],
        )
        .unwrap();
    assert_ne!(db.change_mark().unwrap(), v1);
    assert_eq!(load(&*db).unwrap().receipts.len(), 2);
}

#[test]
fn default_open_uses_the_five_second_busy_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "t.db", 1);
    assert_eq!(DEFAULT_BUSY_TIMEOUT, Duration::from_secs(5));
    assert_eq!(
        OpenOptions::new(Access::ReadOnly).busy_timeout,
        DEFAULT_BUSY_TIMEOUT
    );
    // (That an engine opened without options waits that long is checked
    // beside the SQLite engine.)
    let db = storage::open_database(&path, Access::ReadOnly).unwrap();
    assert_eq!(db.location(), &Location::File(path.clone()));
    assert_eq!(db.location().file(), Some(path.as_path()));
}

#[test]
fn odd_file_names_open_as_plain_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "a b?c#d%e=1.db", 2);
    for access in BOTH {
        let db = open(&path, access).unwrap();
        assert_eq!(load(&*db).unwrap().receipts.len(), 2);
    }
    // A name that looks like a URI is a file name, never created.
    let uri = dir.path().join("file:x.db?mode=rwc");
    assert!(matches!(
        open(&uri, Access::PreferWrite),
        Err(StorageError::NotFound { .. })
    ));
    assert!(!uri.exists());
}

#[test]
fn a_read_only_open_of_a_quiet_wal_database_adds_only_sqlites_side_files() {
    // SQLite's WAL readers need the -shm index (and an empty -wal); a read-only
    // connection creates them when no intake is running and cannot remove them.
    // The database file itself is byte-identical.
    let dir = tempfile::tempdir().unwrap();
    let path = receipts_db(dir.path(), "quiet.db", 2);
    let before = snapshot(dir.path());
    {
        let db = open(&path, Access::ReadOnly).unwrap();
        load(&*db).unwrap();
    }
    let after = snapshot(dir.path());
    assert_eq!(after.get("quiet.db"), before.get("quiet.db"));
    for (name, (len, _)) in &after {
        match name.as_str() {
            "quiet.db" | "quiet.db-shm" => {}
            "quiet.db-wal" => assert_eq!(*len, 0),
            other => panic!("unexpected file {other}"),
        }
    }
}
