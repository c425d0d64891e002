//! The command line end to end: the real binary on real database files.

use crate::common;

use std::path::Path;
use std::process::{Output, Stdio};

use common::{NOW, bin, fixture, run};
use rusqlite::Connection;
use serde_json::Value;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
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

#[test]
fn demo_refuses_an_existing_file_or_a_missing_folder_with_exit_2_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let taken = dir.path().join("notes.txt");
    std::fs::write(&taken, "keep me").unwrap();
    let o = run(&["demo", "--out", taken.to_str().unwrap(), "--receipts", "10"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep me");

    let nowhere = dir.path().join("no-such-folder").join("demo.db");
    let o = run(&[
        "demo",
        "--out",
        nowhere.to_str().unwrap(),
        "--receipts",
        "10",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no-such-folder does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(!nowhere.parent().unwrap().exists());

    // An empty file is a new file: the demo fills it.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, "").unwrap();
    let o = run(&["demo", "--out", empty.to_str().unwrap(), "--receipts", "50"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = report_json(empty.to_str().unwrap());
    assert_eq!(v["counts"]["receipts"], 50);
}
