//! `resolve --keep` and `reopen`: exit codes, the one line on stderr, and the
//! rows they leave in review_log.

use crate::common;

use std::process::Output;

use common::{Fixture, NOW, fixture, insert, run};
use rusqlite::Connection;
use serde_json::Value;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// One line on stderr, naming the problem.
fn one_line_error(o: &Output, code: i32, says: &str) {
    assert_eq!(o.status.code(), Some(code), "{}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("receipt-review: "), "{err}");
    assert!(err.contains(says), "{err}");
}

/// The fixture, plus dup:80: a half-empty earliest copy, then two complete
/// copies (#81, #82).
fn with_half_empty_group() -> Fixture {
    let f = fixture();
    let conn = Connection::open(&f.db).unwrap();
    let full = r#"{"name":"Sophie Clark","email":"sophie@corp.example","phone":"+1 746 555 1677","company":"Corp","subject":"Quote","message":"Please send a quote for 20 chairs."}"#;
    insert(
        &conn,
        80,
        "k80",
        r#"{"name":"Sophie Clark","email":"sophie@corp.example","message":"Please send a quote for 20 chairs."}"#,
        "2026-11-29T11:00:00.000Z",
        "completed",
    );
    insert(
        &conn,
        81,
        "k81",
        full,
        "2026-11-29T11:00:00.400Z",
        "completed",
    );
    insert(
        &conn,
        82,
        "k82",
        full,
        "2026-11-29T11:00:03.000Z",
        "completed",
    );
    drop(conn);
    f
}

/// (item, decision, operator, kept, reopens, note) of every row.
type Row = (
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

fn log_rows(f: &Fixture) -> Vec<Row> {
    let conn = Connection::open(&f.db).unwrap();
    let exists: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if exists == 0 {
        return Vec::new();
    }
    conn.prepare("SELECT item, decision, operator, kept, reopens, note FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn resolve(f: &Fixture, rest: &[&str]) -> Output {
    let mut args = vec!["resolve", f.path()];
    args.extend_from_slice(rest);
    args.extend_from_slice(&["--operator", "aiko", "--now", NOW]);
    run(&args)
}

#[test]
fn resolve_keeps_the_most_complete_copy_by_default() {
    let f = with_half_empty_group();
    let o = resolve(&f, &["dup:80", "duplicate"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "dup:80: duplicate recorded by aiko, keeping receipt 81 (log entry 1)\n"
    );
    assert_eq!(
        log_rows(&f),
        vec![(
            "dup:80".into(),
            "duplicate".into(),
            "aiko".into(),
            Some(81),
            None,
            None
        )]
    );
    // The report says which copy is kept, beside the decision.
    let o = run(&["report", f.path(), "--json", "--now", NOW]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let group = v["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["item"] == "dup:80")
        .unwrap();
    assert_eq!(group["decision"], "duplicate");
    assert_eq!(group["kept"], 81);
    // A pending group keeps nothing yet.
    let other = v["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["item"] == "dup:1")
        .unwrap();
    assert!(other["kept"].is_null());
    // So does the export, read back as a spreadsheet would.
    let o = run(&["export", f.path()]);
    let mut reader = csv::Reader::from_reader(o.stdout.as_slice());
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "kept").unwrap();
    let kept: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[at].to_string())
        .collect();
    assert_eq!(kept, ["81"]);
}

#[test]
fn resolve_keep_records_the_copy_chosen_and_a_correction_the_latest() {
    let f = with_half_empty_group();
    let o = resolve(&f, &["dup:80", "duplicate", "--keep", "80"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("keeping receipt 80"), "{}", stdout(&o));
    assert_eq!(log_rows(&f)[0].3, Some(80));

    let f = with_half_empty_group();
    let o = resolve(&f, &["dup:80", "correction"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(log_rows(&f)[0].3, Some(82));

    // Other decisions keep none.
    let f = with_half_empty_group();
    let o = resolve(&f, &["dup:80", "distinct"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "dup:80: distinct recorded by aiko (log entry 1)\n"
    );
    assert_eq!(log_rows(&f)[0].3, None);
}

#[test]
fn resolve_keep_refuses_a_receipt_outside_the_group_or_a_decision_that_keeps_none() {
    let f = with_half_empty_group();
    let o = resolve(&f, &["dup:80", "duplicate", "--keep", "4"]);
    one_line_error(
        &o,
        2,
        "receipt 4 is not a copy of dup:80; keep one of: 80, 81, 82",
    );
    let o = resolve(&f, &["dup:80", "spam", "--keep", "81"]);
    one_line_error(
        &o,
        2,
        "--keep is for duplicate and correction only: spam keeps no copy",
    );
    let o = resolve(&f, &["stuck:4", "completed", "--keep", "4"]);
    one_line_error(&o, 2, "--keep is for duplicate and correction only");
    let o = resolve(&f, &["dup:80", "duplicate", "--keep", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Nothing was recorded.
    assert_eq!(log_rows(&f), Vec::<Row>::new());
}

#[test]
fn reopen_makes_an_item_pending_again_through_the_guarded_path() {
    let f = with_half_empty_group();
    assert_eq!(resolve(&f, &["dup:80", "duplicate"]).status.code(), Some(0));
    let o = run(&[
        "reopen",
        f.path(),
        "dup:80",
        "--operator",
        "bob",
        "--note",
        "wrong copy kept",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "dup:80: the duplicate decision by aiko is reopened; the item is pending again (log entry 2)\n"
    );
    assert_eq!(
        log_rows(&f)[1],
        (
            "dup:80".into(),
            "reopened".into(),
            "bob".into(),
            None,
            Some(1),
            Some("wrong copy kept".into())
        )
    );
    let o = run(&["report", f.path(), "--json", "--now", NOW]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let group = v["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["item"] == "dup:80")
        .unwrap();
    assert_eq!(group["status"], "pending");

    // Nothing left to reopen: one line, exit 1, nothing written.
    let o = run(&["reopen", f.path(), "dup:80", "--operator", "bob"]);
    one_line_error(&o, 1, "dup:80 is already pending (reopened by bob at ");
    assert!(stderr(&o).contains("nothing to reopen"), "{}", stderr(&o));
    assert_eq!(log_rows(&f).len(), 2);
}

#[test]
fn reopen_of_a_stuck_decision_puts_the_receipt_back_in_flight() {
    let f = fixture();
    let o = resolve(&f, &["stuck:4", "completed"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["reopen", f.path(), "stuck:4", "--operator", "aiko"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("receipt 4 is back in flight (it was completed)"),
        "{}",
        stdout(&o)
    );
    let state: String = Connection::open(&f.db)
        .unwrap()
        .query_row("SELECT state FROM receipts WHERE id = 4", [], |r| r.get(0))
        .unwrap();
    assert_eq!(state, "in_flight");
}

#[test]
fn reopen_refuses_what_it_cannot_reopen() {
    let f = fixture();
    // Never decided (and no log yet: none is made).
    let o = run(&["reopen", f.path(), "dup:1", "--operator", "aiko"]);
    one_line_error(
        &o,
        1,
        "dup:1 has no decision in the review log; nothing to reopen",
    );
    assert_eq!(log_rows(&f), Vec::<Row>::new());
    // Not an item id: bad usage.
    for bad in ["dupe:1", "dup:x", "1"] {
        let o = run(&["reopen", f.path(), bad, "--operator", "aiko"]);
        one_line_error(&o, 2, "is not an item id");
    }
    // A file that is not there.
    let o = run(&["reopen", "/nonexistent/receipts.db", "dup:1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    // Its help names it.
    let o = run(&["reopen", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("--note"), "{}", stdout(&o));
}
