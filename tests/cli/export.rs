//! `export` end to end: files a spreadsheet and a script can read, limited
//! by time, operator and item, with a BOM for Excel when asked.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{NOW, bin, insert};
use rusqlite::Connection;
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    let mut cmd: Command = bin();
    cmd.env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C")
        .env("TZ", "Asia/Tokyo");
    cmd.args(args).output().expect("run receipt-review")
}

fn ok(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

const HYPERLINK: &str = r#"=HYPERLINK("http://evil.example/?","click")"#;

/// Two copies from 田中 愛子, and a stuck receipt from a visitor whose name
/// and email are formulas; dup:10 decided by aiko, stuck:20 by bob.
fn decided() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("receipts.db");
    ok(&run(&["init", db.to_str().unwrap()]));
    let conn = Connection::open(&db).unwrap();
    let body = r#""お名前":"田中 愛子","メールアドレス":"Aiko.Tanaka@Example.jp","message":"見積もりをお願いします。来月から導入を検討しています。""#;
    insert(
        &conn,
        10,
        "k10",
        &format!("{{{body}}}"),
        "2026-11-29T10:00:00.000Z",
        "completed",
    );
    insert(
        &conn,
        11,
        "k11",
        &format!("{{{body}}}"),
        "2026-11-29T10:00:02.000Z",
        "completed",
    );
    let hostile = serde_json::json!({
        "name": HYPERLINK,
        "email": "@evil@example.com",
        "message": "please call me back",
    });
    insert(
        &conn,
        20,
        "k20",
        &hostile.to_string(),
        "2026-11-29 09:00:00",
        "in_flight",
    );
    drop(conn);
    let p = db.to_str().unwrap();
    ok(&run(&[
        "resolve",
        p,
        "dup:10",
        "duplicate",
        "--operator",
        "aiko",
        "--now",
        NOW,
    ]));
    ok(&run(&[
        "resolve",
        p,
        "stuck:20",
        "failed",
        "--operator",
        "bob",
        "--now",
        NOW,
    ]));
    (dir, db)
}

fn read_csv(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

fn export_csv(db: &Path, extra: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut args = vec!["export", db.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = run(&args);
    ok(&o);
    read_csv(&o.stdout)
}

fn items(db: &Path, extra: &[&str]) -> Vec<String> {
    let (header, rows) = export_csv(db, extra);
    let item = column(&header, "item");
    rows.into_iter().map(|r| r[item].clone()).collect()
}

#[test]
fn the_csv_names_scope_and_visitor_as_typed_with_formulas_guarded() {
    let (dir, db) = decided();
    let out = dir.path().join("log.csv");
    let o = run(&[
        "export",
        db.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&o);
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"id,item,"), "no BOM unless asked for");
    let (header, rows) = read_csv(&bytes);
    assert_eq!(
        header[header.len() - 3..],
        ["scope", "visitor_name", "visitor_email"]
    );
    let cell = |row: usize, name: &str| rows[row][column(&header, name)].clone();
    assert_eq!(cell(0, "item"), "dup:10");
    assert_eq!(cell(0, "scope"), "corp/contact");
    assert_eq!(cell(0, "visitor_name"), "田中 愛子");
    assert_eq!(cell(0, "visitor_email"), "Aiko.Tanaka@Example.jp");
    assert_eq!(cell(1, "item"), "stuck:20");
    assert_eq!(cell(1, "visitor_name"), format!("'{HYPERLINK}"));
    assert_eq!(cell(1, "visitor_email"), "'@evil@example.com");
    for cell in rows.iter().flatten() {
        assert!(!cell.starts_with(['=', '+', '-', '@']), "{cell:?}");
    }
}

#[test]
fn jsonl_names_the_visitor_exactly() {
    let (_dir, db) = decided();
    let o = run(&["export", db.to_str().unwrap(), "--format", "jsonl"]);
    ok(&o);
    let lines: Vec<Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["visitor_name"], "田中 愛子");
    assert_eq!(lines[0]["scope"], "corp/contact");
    assert_eq!(lines[1]["visitor_name"], HYPERLINK);
    assert_eq!(lines[1]["visitor_email"], "@evil@example.com");
}

#[test]
fn bom_starts_the_csv_for_excel_and_is_refused_for_jsonl() {
    let (dir, db) = decided();
    let p = db.to_str().unwrap();
    let out = dir.path().join("excel.csv");
    ok(&run(&[
        "export",
        p,
        "--bom",
        "--out",
        out.to_str().unwrap(),
    ]));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes[..3], [0xEF, 0xBB, 0xBF]);
    assert!(bytes[3..].starts_with(b"id,item,"));
    let (header, rows) = read_csv(&bytes);
    assert_eq!(header[0], "id");
    assert_eq!(rows[0][column(&header, "visitor_name")], "田中 愛子");
    // To a pipe, the same bytes.
    let o = run(&["export", p, "--bom"]);
    ok(&o);
    assert_eq!(o.stdout, bytes);

    let refused = dir.path().join("never.jsonl");
    let o = run(&[
        "export",
        p,
        "--format",
        "jsonl",
        "--bom",
        "--out",
        refused.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--bom is for CSV"), "{err}");
    assert!(err.contains("see receipt-review export --help"), "{err}");
    assert!(!refused.exists());
}

#[test]
fn filters_limit_the_rows() {
    let (_dir, db) = decided();
    assert_eq!(items(&db, &[]), ["dup:10", "stuck:20"]);
    assert_eq!(items(&db, &["--operator", "bob"]), ["stuck:20"]);
    assert_eq!(
        items(&db, &["--operator", "bob", "--operator", "aiko"]),
        ["dup:10", "stuck:20"]
    );
    assert_eq!(items(&db, &["--item", "dup:"]), ["dup:10"]);
    assert_eq!(
        items(&db, &["--item", "stuck:20", "--item", "dup:99"]),
        ["stuck:20"]
    );
    assert_eq!(
        items(&db, &["--item", "stuck:20", "--operator", "aiko"]),
        Vec::<String>::new()
    );
    // The decisions were recorded just now.
    assert_eq!(
        items(&db, &["--since", "yesterday"]),
        ["dup:10", "stuck:20"]
    );
    assert_eq!(items(&db, &["--until", "2000-01-01"]), Vec::<String>::new());
    assert_eq!(
        items(
            &db,
            &["--since", "2000-01-01T00:00:00Z", "--until", "2000-01-02"]
        ),
        Vec::<String>::new()
    );
    let (header, rows) = export_csv(&db, &["--operator", "nobody"]);
    assert!(rows.is_empty());
    assert_eq!(header[0], "id");
}

#[test]
fn bad_filter_values_are_one_line_and_exit_2() {
    let (_dir, db) = decided();
    let p = db.to_str().unwrap();
    for (args, says) in [
        (vec!["--since", "soon"], "--since must be a time"),
        (vec!["--until", "2026-13-01"], "--until must be a time"),
        (
            vec!["--since", "2026-11-30", "--until", "2026-11-29"],
            "is not before --until",
        ),
        (
            vec!["--item", "dupe:"],
            "--item must be an item (dup:12) or a kind",
        ),
        (vec!["--item", "dup:x"], "not \"dup:x\""),
        (vec!["--operator", ""], "--operator needs a name"),
        (
            vec!["--since", "today", "--tz", "Mars/Base"],
            "unknown time zone",
        ),
    ] {
        let mut all = vec!["export", p];
        all.extend_from_slice(&args);
        let o = run(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            err.trim_end().ends_with("see receipt-review export --help"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = run(&["--lang", "ja", "export", p, "--item", "dupe:"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("--item には案件"), "{err}");
}
