//! Helpers shared by the storage tests: real files in a temporary folder.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use receipt_review::storage::{self, Access, OpenOptions, Storage, StorageError};
use rusqlite::Connection;

#[path = "../common/rows.rs"]
mod rows;
pub use rows::load;

/// An open database, whichever engine holds it.
pub type Db = Box<dyn Storage + Send>;

/// Every file in `dir` (not recursive) with its size and a hash of its bytes:
/// compare before/after (printable when an assertion fails).
pub fn snapshot(dir: &Path) -> BTreeMap<String, (u64, u64)> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = if entry.file_type().unwrap().is_dir() {
            b"<dir>".to_vec()
        } else {
            fs::read(entry.path()).unwrap()
        };
        out.insert(name, (bytes.len() as u64, fnv1a(&bytes)));
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Opens with a short busy timeout so that tests stay fast.
pub fn open(path: &Path, access: Access) -> Result<Db, StorageError> {
    storage::open_database_with(
        path,
        OpenOptions::new(access).busy_timeout(Duration::from_millis(300)),
    )
}

/// Why [`open`] refuses the file (it must).
pub fn open_err(path: &Path, access: Access) -> StorageError {
    match open(path, access) {
        Ok(_) => panic!("{} opened {access:?}", path.display()),
        Err(e) => e,
    }
}

/// Whether the file's header says WAL mode (read from the file itself, which
/// creates nothing beside it).
pub fn is_wal(path: &Path) -> bool {
    let header = fs::read(path).unwrap();
    (header[18], header[19]) == (2, 2)
}

/// The schema of a database made by `init`, for tests that build one by hand
/// (with another journal mode, say).
pub const SCHEMA_SQL: &str = include_str!("../../assets/schema.sql");

/// Asserts the message is one line naming the file, and returns it.
pub fn one_line(err: &StorageError, path: &Path) -> String {
    let text = err.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    assert!(
        text.contains(&path.display().to_string()),
        "does not name {}: {text}",
        path.display()
    );
    text
}

/// A connection that may create the file (test setup only).
pub fn create(path: &Path) -> Connection {
    Connection::open(path).unwrap()
}

/// A database made by `init`, with `n` receipts, closed (WAL checkpointed).
pub fn receipts_db(dir: &Path, name: &str, n: i64) -> PathBuf {
    let path = dir.join(name);
    receipt_review::storage::init(&path).unwrap();
    let mut conn = Connection::open(&path).unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut stmt = tx
            .prepare(
                "INSERT INTO receipts (id, scope, request_key, digest, payload, state, created_at) \
                 VALUES (?1, 'site-a', ?2, ?3, ?4, 'completed', ?5)",
            )
            .unwrap();
        for i in 1..=n {
            stmt.execute(rusqlite::params![
                i,
                format!("key-{i}"),
                format!("{i:064x}"),
                format!("{{\"message\":\"hello number {i}\",\"name\":\"Visitor {i}\"}}"),
                format!("2026-11-29T10:{:02}:{:02}.000Z", (i / 60) % 60, i % 60),
            ])
            .unwrap();
        }
    }
    tx.commit().unwrap();
    drop(conn);
    path
}

/// True when this process ignores file permissions (root), so that a
/// permission-based assertion cannot be made.
pub fn permissions_not_enforced(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join(".perm-probe");
    fs::write(&probe, b"x").unwrap();
    fs::set_permissions(&probe, fs::Permissions::from_mode(0o444)).unwrap();
    let writable = fs::OpenOptions::new().write(true).open(&probe).is_ok();
    fs::set_permissions(&probe, fs::Permissions::from_mode(0o644)).unwrap();
    fs::remove_file(&probe).unwrap();
    writable
}

/// Whether the calling test should check file permissions itself. Root
/// ignores them (and CI runs as root), so there the test named `test` (its
/// path in this binary, `open::name`) runs again as `nobody` through
/// `runuser`, on a copy of this binary that `nobody` can run, and this
/// returns false once that run has passed. Without `runuser` the check is
/// skipped with a note, except under CI, where that fails.
pub fn checks_permissions_here(test: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = tempfile::tempdir().unwrap();
    if !permissions_not_enforced(probe.path()) {
        return true;
    }
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    let Some(runuser) = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        assert!(
            !ci,
            "runuser not found, and CI is set: {test} cannot run as nobody"
        );
        eprintln!("note: running as a user that ignores file permissions, no runuser; skipped");
        return false;
    };
    let dir = tempfile::tempdir().unwrap();
    let open = fs::Permissions::from_mode(0o755);
    fs::set_permissions(dir.path(), open.clone()).unwrap();
    let bin = dir.path().join("storage-tests");
    fs::copy(std::env::current_exe().unwrap(), &bin).unwrap();
    fs::set_permissions(&bin, open).unwrap();
    let tmp = dir.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o777)).unwrap();
    let out = std::process::Command::new(runuser)
        .args(["-u", "nobody", "--"])
        .arg(&bin)
        .args(["--exact", test, "--test-threads=1"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} as nobody:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    false
}
