//! The command line end to end: the real binary on real database files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use receipt_review::intake::canonical::{canonical_text, sha256_hex};
use rusqlite::Connection;
use serde_json::Value;

const NOW: &str = "2026-11-29T12:00:00Z";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_receipt-review"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run receipt-review")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    db: PathBuf,
}

impl Fixture {
    fn path(&self) -> &str {
        self.db.to_str().unwrap()
    }
}

fn insert(conn: &Connection, id: i64, key: &str, payload: &str, at: &str, state: &str) {
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
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("receipts.db");
    let o = run(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
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

fn report_json(db: &str) -> Value {
    let o = run(&["report", db, "--json", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn report_json_finds_each_category() {
    let f = fixture();
    let v = report_json(f.path());
    assert_eq!(v["counts"]["receipts"], 5);
    assert_eq!(v["counts"]["duplicate_groups"], 1);
    let group = &v["duplicates"][0];
    assert_eq!(group["item"], "dup:1");
    assert_eq!(group["class"], "seconds");
    // The follow-up four hours later is a genuine second message.
    assert_eq!(group["receipt_ids"], serde_json::json!([1, 2]));
    assert_eq!(group["gaps_ms"], serde_json::json!([2300]));
    assert_eq!(v["conflicts"][0]["item"], "conflict:1");
    assert_eq!(v["conflicts"][0]["attempts"][0]["source"], "key_conflicts");
    assert_eq!(v["stuck"][0]["item"], "stuck:4");
    assert_eq!(v["stuck"][0]["age_s"], 6900);
    assert_eq!(v["damaged"][0]["receipt_id"], 5);
    assert_eq!(v["damaged"][0]["reason"], "payload");
}

#[test]
fn read_only_commands_leave_the_file_byte_identical() {
    let f = fixture();
    // Settle the WAL into the main file so that the comparison is meaningful.
    Connection::open(&f.db)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let before = file_bytes(&f.db);
    for args in [
        vec!["report", f.path(), "--now", NOW],
        vec!["report", f.path(), "--json"],
        vec!["check", f.path()],
        vec!["export", f.path()],
    ] {
        run(&args);
    }
    assert_eq!(file_bytes(&f.db), before);
    let tables: i64 = Connection::open(&f.db)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0, "a read-only command created review_log");
}

#[test]
fn check_exits_1_on_damaged_rows_and_names_them() {
    let f = fixture();
    let o = run(&["check", f.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("damaged receipt 5: payload"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn resolve_records_once_and_refuses_a_second_operator() {
    let f = fixture();
    let o = run(&[
        "resolve",
        f.path(),
        "dup:1",
        "duplicate",
        "--operator",
        "aiko",
        "--note",
        "same person",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[
        "resolve",
        f.path(),
        "dup:1",
        "spam",
        "--operator",
        "bob",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("already decided by aiko"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1);

    let v = report_json(f.path());
    assert_eq!(v["duplicates"][0]["status"], "resolved");
    assert_eq!(v["duplicates"][0]["decision"], "duplicate");

    let conn = Connection::open(&f.db).unwrap();
    let rows: Vec<(String, String, String, Option<String>)> = conn
        .prepare("SELECT item, decision, operator, note FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows,
        vec![(
            "dup:1".into(),
            "duplicate".into(),
            "aiko".into(),
            Some("same person".into())
        )]
    );
}

#[test]
fn resolving_a_stuck_receipt_changes_its_state_with_its_log_row() {
    let f = fixture();
    let o = run(&[
        "resolve",
        f.path(),
        "stuck:4",
        "failed",
        "--operator",
        "aiko",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let conn = Connection::open(&f.db).unwrap();
    let state: String = conn
        .query_row("SELECT state FROM receipts WHERE id = 4", [], |r| r.get(0))
        .unwrap();
    assert_eq!(state, "failed");
    let logged: i64 = conn
        .query_row(
            "SELECT count(*) FROM review_log WHERE item = 'stuck:4' AND decision = 'failed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(logged, 1);
}

#[test]
fn resolve_refuses_unknown_items_and_wrong_decisions_with_exit_2() {
    let f = fixture();
    for (item, decision, says) in [
        ("stuck:99", "failed", "no item stuck:99"),
        ("dup:1", "frobnicate", "unknown decision"),
        ("conflict:1", "duplicate", "original_stands, follow_up"),
        ("bogus", "duplicate", "no item bogus"),
    ] {
        let o = run(&["resolve", f.path(), item, decision, "--now", NOW]);
        assert_eq!(o.status.code(), Some(2), "{item} {decision}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
}

#[test]
fn export_writes_csv_and_jsonl() {
    let f = fixture();
    run(&[
        "resolve",
        f.path(),
        "dup:1",
        "duplicate",
        "--operator",
        "aiko",
        "--note",
        "=HYPERLINK(\"x\")",
        "--now",
        NOW,
    ]);
    let out = f.db.with_file_name("log.csv");
    let o = run(&["export", f.path(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(
        csv.starts_with("id,item,kind,decision,operator,decided_at,receipt_ids,note"),
        "{csv}"
    );
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
    let o = run(&["export", f.path(), "--format", "jsonl"]);
    let line: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(line["note"], "=HYPERLINK(\"x\")");
    assert_eq!(line["receipt_ids"], serde_json::json!([1, 2]));
}

#[test]
fn canonical_reads_stdin() {
    let mut child = bin()
        .args(["canonical"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"b": 1.0, "a": "\u00e9", "c": [1e16, -0]}"#)
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(stdout(&o), "{\"a\":\"é\",\"b\":1.0,\"c\":[1e+16,0]}\n");

    let mut child = bin()
        .args(["canonical", "--digest"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"[1, 2]").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn unusable_databases_are_one_line_and_exit_2_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.db");
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello, not a database\n").unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let no_receipts = dir.path().join("other.db");
    Connection::open(&no_receipts)
        .unwrap()
        .execute_batch("CREATE TABLE t(x);")
        .unwrap();
    for path in [
        &missing,
        &dir.path().to_path_buf(),
        &text,
        &empty,
        &no_receipts,
    ] {
        for command in ["report", "check"] {
            let o = run(&[command, path.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(2), "{command} {}", path.display());
            let err = stderr(&o);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                !err.contains("panicked") && !err.contains("backtrace"),
                "{err}"
            );
        }
    }
    assert!(!missing.exists());
    assert_eq!(std::fs::read(&text).unwrap(), b"hello, not a database\n");
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
}

#[test]
fn bad_usage_is_one_line_and_exit_2() {
    for args in [
        vec!["report"],
        vec!["report", "x.db", "--window", "soon"],
        vec!["report", "x.db", "--now", "yesterday"],
        vec!["export", "x.db", "--format", "xml"],
        vec!["frobnicate", "x.db", "y"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
}
