//! Shared by the integration tests (each binary includes it with `#[path]`):
//! the binary, a small known database, a pseudo-terminal to run it in, a
//! PostgreSQL database of one's own, a database opened through storage with
//! a connection of the test's own beside it, every row of one read whole, and
//! one behavioural test run on both engines.
#![allow(dead_code)]

pub mod db;
pub mod engine;
pub mod pg;
pub mod pty;
pub mod rows;

use std::path::PathBuf;
use std::process::{Command, Output};

use receipt_review::intake::canonical::{canonical_text, sha256_hex};
use rusqlite::Connection;

/// The analysis time of the fixture.
pub const NOW: &str = "2026-11-29T12:00:00Z";

/// A config folder that does not exist: the binary under test reads no
/// config file unless a test names one.
pub const NO_CONFIG_HOME: &str = "/nonexistent/receipt-review-tests";

/// The binary, in English whatever the locale of the test run (a test that
/// wants another language sets `LANG`).
pub fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_receipt-review"));
    command
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C")
        // Never the config file of whoever runs the tests.
        .env("XDG_CONFIG_HOME", NO_CONFIG_HOME);
    command
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run receipt-review")
}

/// A demo database of `receipts` receipts written to `dir/demo.db` as of
/// [`NOW`], as `receipt-review demo` writes it.
pub fn demo_db(dir: &std::path::Path, receipts: usize) -> PathBuf {
    let db = dir.join("demo.db");
    let out = run(&[
        "demo",
        "--out",
        db.to_str().unwrap(),
        "--receipts",
        &receipts.to_string(),
        "--now",
        NOW,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub db: PathBuf,
}

impl Fixture {
    pub fn path(&self) -> &str {
        self.db.to_str().unwrap()
    }
}

pub fn insert(conn: &Connection, id: i64, key: &str, payload: &str, at: &str, state: &str) {
    let canon = canonical_text(payload).unwrap();
    conn.execute(
        "INSERT INTO receipts(id, scope, request_key, digest, payload, state, created_at)
         VALUES (?1, 'corp/contact', ?2, ?3, ?4, ?5, ?6)",
        rusqlite::params![id, key, sha256_hex(&canon), canon, state, at],
    )
    .unwrap();
}

/// Two copies 2.3 s apart, a follow-up hours later, a stuck receipt, a damaged
/// row and a key conflict.
pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("receipts.db");
    let o = run(&["init", db.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let conn = Connection::open(&db).unwrap();
    let body = r#""name":"Aiko Tanaka","email":"aiko@example.jp","message":"お見積りをお願いします。来月からの導入を検討しています。""#;
    insert(
        &conn,
        1,
        "k1",
        &format!(r#"{{{body},"event_id":"e1"}}"#),
        "2026-11-29T10:00:00.000Z",
        "completed",
    );
    insert(
        &conn,
        2,
        "k2",
        &format!(r#"{{{body},"event_id":"e2"}}"#),
        "2026-11-29T10:00:02.300Z",
        "completed",
    );
    insert(
        &conn,
        3,
        "k3",
        &format!(r#"{{{body},"event_id":"e3"}}"#),
        "2026-11-29T14:00:00.000Z",
        "completed",
    );
    insert(
        &conn,
        4,
        "k4",
        r#"{"name":"Bob","message":"please call me back"}"#,
        "2026-11-29 10:05:00",
        "in_flight",
    );
    conn.execute(
        "INSERT INTO receipts(id, scope, request_key, digest, payload, created_at)
         VALUES (5, 'corp/contact', 'k5', 'x', 'not json', '2026-11-29T10:00:00Z')",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO key_conflicts(receipt_id, digest, payload, received_at)
         VALUES (1, 'ab', '{\"name\":\"changed\"}', '2026-11-29T10:01:00Z')",
        [],
    )
    .unwrap();
    drop(conn);
    Fixture { _dir: dir, db }
}
