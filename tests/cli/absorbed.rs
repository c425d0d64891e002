//! The exact copies the intake absorbed, counted where `report` shows them
//! (the summary, `counts.absorbed`, the per-form table and pathways), and
//! nothing said of them where the database has no `absorbed` table.

use crate::common;

use std::process::Output;

use common::{NOW, bin, fixture, run};
use rusqlite::Connection;
use serde_json::Value;

fn stdout(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn report_json(db: &str) -> Value {
    serde_json::from_str(&stdout(&run(&["report", db, "--json", "--now", NOW]))).unwrap()
}

fn report_text(db: &str) -> String {
    stdout(&run(&["report", db, "--now", NOW]))
}

/// Two copies of receipt 1 absorbed (one with a key of its own, one
/// without) and one of receipt 3, as the intake server writes them.
fn absorb(db: &str) {
    Connection::open(db)
        .unwrap()
        .execute_batch(
            "INSERT INTO absorbed (receipt_id, request_key, received_at) VALUES
               (1, 'click-2', '2026-11-29T10:00:01Z'),
               (1, NULL, '2026-11-29T10:00:03Z'),
               (3, NULL, '2026-11-29T14:00:04Z');",
        )
        .unwrap();
}

/// The form's row of `report --json`.
fn form(v: &Value) -> &Value {
    let forms = v["forms"].as_array().unwrap();
    assert_eq!(forms.len(), 1, "{v}");
    &forms[0]
}

#[test]
fn report_counts_the_absorbed_copies_beside_the_replays() {
    let f = fixture();
    absorb(f.path());
    let v = report_json(f.path());
    assert_eq!(v["counts"]["absorbed"], 3);
    assert_eq!(v["counts"]["replays"], 0);
    // Counted, never stored: the receipts are what they were.
    assert_eq!(v["counts"]["receipts"], 5);
    assert_eq!(v["counts"]["duplicate_groups"], 1);
    let form = form(&v);
    assert_eq!(
        (form["replays"].as_u64(), form["absorbed"].as_u64()),
        (Some(0), Some(3))
    );
    let retries = form["pathways"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pathway"] == "retries_absorbed")
        .unwrap_or_else(|| panic!("{form}"));
    assert_eq!(retries["count"], 3);
    assert_eq!(retries["example_receipt"], 3, "the latest receipt");
    assert!(
        retries["evidence"]
            .as_str()
            .unwrap()
            .starts_with("exact copies of one visitor's fields"),
        "{retries}"
    );
    assert!(
        retries["advice"]
            .as_str()
            .unwrap()
            .contains("came with another key or none"),
        "{retries}"
    );

    let text = report_text(f.path());
    let replays = text.lines().position(|l| l.starts_with("Replays")).unwrap();
    assert_eq!(
        text.lines().nth(replays + 1),
        Some(
            "Absorbed             3 exact copies absorbed by the intake \
             (answered with the original's receipt, not stored)"
        ),
        "{text}"
    );
    let heading = text.lines().find(|l| l.contains("sim/sec/min")).unwrap();
    assert!(heading.contains("replays absorbed conflicts"), "{heading}");
    assert!(text.contains("retries absorbed        3 retries"), "{text}");

    // In Japanese, the same counts.
    let ja = stdout(
        &bin()
            .env("LANG", "ja_JP.UTF-8")
            .args(["report", f.path(), "--now", NOW])
            .output()
            .unwrap(),
    );
    assert!(
        ja.contains(
            "3 件の同一の重複を受付サーバーが吸収（元の受付の応答を返し、保存はしていません）"
        ),
        "{ja}"
    );
}

#[test]
fn an_absorbed_table_with_no_rows_says_none_were_absorbed() {
    let f = fixture();
    let v = report_json(f.path());
    assert_eq!(v["counts"]["absorbed"], 0);
    assert_eq!(form(&v)["absorbed"], 0);
    assert!(report_text(f.path()).contains("Absorbed             0 exact copies"));
}

#[test]
fn without_the_table_nothing_is_said_of_absorbed_copies() {
    let f = fixture();
    Connection::open(&f.db)
        .unwrap()
        .execute_batch("DROP TABLE absorbed;")
        .unwrap();
    let v = report_json(f.path());
    assert_eq!(v["counts"].get("absorbed"), None, "{}", v["counts"]);
    assert_eq!(form(&v).get("absorbed"), None);
    assert_eq!(v["counts"]["replays"], 0);
    let text = report_text(f.path());
    assert!(
        !text.contains("Absorbed") && !text.contains("copies absorbed"),
        "{text}"
    );
    let heading = text.lines().find(|l| l.contains("sim/sec/min")).unwrap();
    assert!(heading.contains("replays conflicts"), "{heading}");
    assert!(text.contains("Replays              0 retries absorbed by their key"));
    // Nothing wrong with the schema: the table is optional.
    let check = run(&["check", f.path()]);
    assert!(
        !String::from_utf8_lossy(&check.stdout).contains("schema:"),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn an_absorbed_table_without_receipt_id_is_named_by_check_and_not_read() {
    let f = fixture();
    Connection::open(&f.db)
        .unwrap()
        .execute_batch(
            "DROP TABLE absorbed;
             CREATE TABLE absorbed (id INTEGER PRIMARY KEY, original INTEGER, received_at TEXT);
             INSERT INTO absorbed (original, received_at) VALUES (1, '2026-11-29T10:00:01Z');",
        )
        .unwrap();
    let check = run(&["check", f.path()]);
    let out = String::from_utf8_lossy(&check.stdout);
    assert!(
        out.contains("schema: absorbed is a table without the column receipt_id: it is not read"),
        "{out}"
    );
    // As a damaged replays would be: the rest is read, the table is not.
    let v = report_json(f.path());
    assert_eq!(v["counts"].get("absorbed"), None);
    assert_eq!(v["counts"]["receipts"], 5);
}
