//! Property tests for the protections the other reliability tests lean on.
//! Some exist next to the code and are not repeated here:
//! canonical JSON (`tests/intake/canonical.rs`: canonical of a pretty print is
//! the same text, canonical is idempotent, the reparsed canonical is the same
//! value), the visitor fingerprint's parts (`src/triage/visitor.rs`: key order,
//! white space, case and noise fields), the CSV export of one note
//! (`tests/review/export.rs`). Added here:
//!
//! - the sanitizer: its output has no control, bidi or invisible character,
//!   sanitising twice changes nothing, safe text is left alone; the same for
//!   one-line and multi-line forms, and terminal-safe JSON decodes back;
//! - canonical JSON from any spelling of the same object: keys in any order,
//!   any white space, `\u` escapes for any character;
//! - the visitor fingerprint end to end: two receipts that differ only in key
//!   order, white space, case or dropped fields are one exact duplicate group;
//! - the CSV export: any text in any free column (operator, note) comes back
//!   through a CSV reader, no cell starts like a formula, and its rendering
//!   for a terminal is inert.

use std::time::Duration;

use proptest::prelude::*;
use receipt_review::intake::canonical::{canonical, canonical_text, sha256_hex};
use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::review::{
    self, Decision, DecisionRequest, ExportFormat, safe_cell, unquote_cell,
};
use receipt_review::sanitize::{clean, clean_lines, inline, is_unsafe};
use receipt_review::storage::{Access, OpenOptions, open_database, open_database_with};
use rusqlite::Connection;
use serde_json::{Map, Value};

/// `n` cases, times `RELIAB_SCALE` (see `scripts/reliability.sh`).
fn cases(n: u32) -> u32 {
    let scale: u32 = std::env::var("RELIAB_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    n * scale.max(1)
}

/// Text heavy in what terminals and spreadsheets act on.
fn nasty_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z0-9 ,.;:'\"=+@-]{0,6}",
        2 => "[\\x00-\\x1f\\x7f]{1,3}",
        2 => "[\u{80}-\u{9f}]{1,2}",
        2 => prop::sample::select(vec![
            "\u{202a}", "\u{202b}", "\u{202c}", "\u{202d}", "\u{202e}", "\u{2066}",
            "\u{2067}", "\u{2068}", "\u{2069}", "\u{200e}", "\u{200f}", "\u{061c}",
            "\u{200b}", "\u{200c}", "\u{200d}", "\u{2060}", "\u{feff}", "\u{00ad}",
            "\u{2028}", "\u{2029}", "\u{e0041}", "\u{180e}",
        ])
        .prop_map(str::to_string),
        2 => prop::sample::select(vec![
            "\x1b[2J", "\x1b]0;title\x07", "\x1b]8;;http://x/\x1b\\", "\x1b]52;c;QQ==\x07",
            "\x1bP+q\x1b\\", "\u{9b}31m", "\r", "\x08", "\r\n", "\n", "\t",
        ])
        .prop_map(str::to_string),
        1 => "[あ-んア-ン日本語éß😀]{1,3}",
        1 => any::<String>(),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

/// A character nothing may show raw, listed here independently of the
/// sanitizer's own list: every control (C0, DEL, C1), bidi controls,
/// zero-width and invisible format characters, line and paragraph separators,
/// tag characters.
fn raw_forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x061C | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E
            | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
            | 0xE0000..=0xE007F)
        // and whatever else the sanitizer flags
        || is_unsafe(c)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    #[test]
    fn sanitised_text_is_inert_and_sanitising_twice_changes_nothing(text in nasty_text()) {
        let once = clean(&text).into_owned();
        prop_assert!(!once.chars().any(raw_forbidden), "{:?}", once);
        prop_assert_eq!(clean(&once), once.as_str());
        // Text that was safe already is left exactly as it was.
        if !text.chars().any(raw_forbidden) {
            prop_assert_eq!(&once, &text);
        }
        // Nothing is lost: every safe character is still there, in order.
        let kept: String = text.chars().filter(|&c| !raw_forbidden(c)).collect();
        let shown: String = once.chars().filter(|&c| !raw_forbidden(c)).collect();
        prop_assert!(shown.len() >= kept.len());
    }

    #[test]
    fn one_line_and_multi_line_forms_are_inert_and_stable(text in nasty_text(), max in 1usize..40) {
        let line = inline(&text, max);
        prop_assert!(line.chars().count() <= max);
        prop_assert!(!line.chars().any(raw_forbidden), "{:?}", line);
        prop_assert_eq!(inline(&line, max), line.clone());
        let lines = clean_lines(&text);
        prop_assert_eq!(lines.len(), text.matches('\n').count() + 1);
        for l in &lines {
            prop_assert!(!l.chars().any(raw_forbidden), "{:?}", l);
            prop_assert_eq!(clean(l), l.as_str());
        }
    }

    #[test]
    fn terminal_safe_json_is_inert_and_decodes_to_the_same_text(text in nasty_text()) {
        let value = serde_json::json!({ "k": text, text.clone(): [text.clone()] });
        for json in [
            receipt_review::sanitize::json::to_string_compact(&value),
            receipt_review::sanitize::json::to_string_pretty(&value),
        ] {
            prop_assert!(
                !json.chars().any(|c| raw_forbidden(c) && c != '\n'),
                "{:?}", json
            );
            let back: Value = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(&back, &value);
        }
    }
}

// ---------------------------------------------------------------------------
// Canonical JSON from any spelling.

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        nasty_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(nasty_text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// The same value spelled another way: keys in the order of `seed`, white
/// space from `pad`, strings with every character `\u`-escaped or not.
fn respell(v: &Value, seed: u64, pad: &str, escape_all: bool, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            let n = entries.len();
            for i in (1..n).rev() {
                let j = (seed.wrapping_mul(i as u64 * 2 + 1).rotate_left(i as u32) % (i as u64 + 1))
                    as usize;
                entries.swap(i, j);
            }
            out.push('{');
            out.push_str(pad);
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    out.push_str(pad);
                }
                string(k, escape_all, out);
                out.push_str(pad);
                out.push(':');
                out.push_str(pad);
                respell(v, seed.rotate_left(7), pad, !escape_all, out);
            }
            out.push_str(pad);
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(pad);
                respell(item, seed.rotate_left(3), pad, escape_all, out);
            }
            out.push_str(pad);
            out.push(']');
        }
        Value::String(s) => string(s, escape_all, out),
        other => out.push_str(&other.to_string()),
    }
}

fn string(s: &str, escape_all: bool, out: &mut String) {
    if !escape_all {
        out.push_str(&serde_json::to_string(s).unwrap());
        return;
    }
    out.push('"');
    for c in s.chars() {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04X}"));
        }
    }
    out.push('"');
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(200)))]

    #[test]
    fn canonical_json_does_not_depend_on_how_the_object_is_spelled(
        map in prop::collection::btree_map(nasty_text(), arb_json(), 0..6),
        seed in any::<u64>(),
        pad in prop::sample::select(vec!["", " ", "\n", "\t", " \r\n  "]),
        escape_all in any::<bool>(),
    ) {
        let obj: Map<String, Value> = map.into_iter().collect();
        let first = canonical(&obj).unwrap();
        let mut spelled = String::new();
        respell(&Value::Object(obj.clone()), seed, pad, escape_all, &mut spelled);
        let again = canonical_text(&spelled).unwrap();
        prop_assert_eq!(&again, &first, "from {}", spelled);
        // parse -> canonical -> parse is stable, and canonical is idempotent.
        prop_assert_eq!(canonical_text(&first).unwrap(), first.clone());
        let reparsed = receipt_review::intake::canonical::parse_object(&first).unwrap();
        prop_assert_eq!(canonical(&reparsed).unwrap(), first.clone());
        prop_assert_eq!(sha256_hex(&again), sha256_hex(&first));
    }
}

// ---------------------------------------------------------------------------
// The visitor fingerprint, end to end.

const NOW_MS: i64 = 1_795_953_600_000; // 2026-11-29T12:00:00Z

fn word() -> impl Strategy<Value = String> {
    "[a-zA-Zàéüß日本語あア0-9]{1,8}"
}

fn form() -> impl Strategy<Value = Vec<(String, Vec<String>)>> {
    prop::collection::btree_map("[a-z]{1,6}", prop::collection::vec(word(), 1..5), 1..5)
        .prop_map(|m| m.into_iter().collect())
}

fn insert(conn: &Connection, id: i64, key: &str, payload: &str, at_ms: i64) {
    let canon = canonical_text(payload).unwrap();
    conn.execute(
        "INSERT INTO receipts (id, scope, request_key, digest, payload, created_at) \
         VALUES (?1, 'site', ?2, ?3, ?4, ?5)",
        rusqlite::params![
            id,
            key,
            sha256_hex(&canon),
            canon,
            receipt_review::model::time::format_rfc3339(at_ms)
        ],
    )
    .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    #[test]
    fn key_order_white_space_case_and_noise_never_split_a_duplicate(
        fields in form(),
        seed in any::<u64>(),
        pad in prop::sample::select(vec![" ", "  ", "\t", "\n", "\u{3000}", "\u{a0}", " \r\n "]),
        upper in any::<bool>(),
        noise in "[a-z0-9]{1,10}",
    ) {
        let plain: Map<String, Value> = fields
            .iter()
            .map(|(k, w)| (format!("f{k}"), Value::from(w.join(" "))))
            .collect();
        let mut varied: Map<String, Value> = fields
            .iter()
            .map(|(k, w)| {
                let key = if upper { format!("F{}", k.to_uppercase()) } else { format!("f{k}") };
                let value = format!("{pad}{}{pad}", w.join(pad));
                let value = if upper { value.to_uppercase() } else { value.to_lowercase() };
                (key, Value::from(value))
            })
            .collect();
        for key in ["event_id", "_csrf", "utm_source", "session_id", "x_token", "ts", "timestamp"] {
            varied.insert(key.to_string(), Value::from(noise.clone()));
        }
        let mut spelled = String::new();
        respell(&Value::Object(varied), seed, pad.trim_matches(['\u{3000}', '\u{a0}']), false, &mut spelled);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        receipt_review::storage::init(&path).unwrap();
        {
            let conn = Connection::open(&path).unwrap();
            insert(&conn, 1, "a", &Value::Object(plain).to_string(), NOW_MS - 60_000);
            insert(&conn, 2, "b", &spelled, NOW_MS - 57_500);
        }
        let db = open_database_with(
            &path,
            OpenOptions::new(Access::ReadOnly).busy_timeout(Duration::from_secs(5)),
        )
        .unwrap();
        let snap = reading::read(&*db, Settings::new(NOW_MS), &mut |_| {}).unwrap();
        let groups = &snap.triage.duplicates;
        prop_assert_eq!(groups.len(), 1, "{}", spelled);
        prop_assert_eq!(groups[0].receipt_ids(), vec![1, 2]);
        prop_assert!(groups[0].is_exact(), "{:?}", groups[0]);
    }
}

// ---------------------------------------------------------------------------
// The CSV export.

fn starts_like_a_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(300)))]

    #[test]
    fn a_cell_never_starts_a_formula_and_its_text_comes_back(
        text in nasty_text(),
        quotes in 0usize..3,
    ) {
        let text = format!("{}{text}", "'".repeat(quotes));
        let cell = safe_cell(&text);
        prop_assert!(!starts_like_a_formula(&cell), "{:?}", cell);
        // At most one apostrophe is added, and it comes off again...
        prop_assert!(*cell == text || *cell == format!("'{text}"), "{:?}", cell);
        prop_assert_eq!(unquote_cell(&cell), text.as_str());
        // ...so no two texts share a cell.
        let other = format!("'{text}");
        prop_assert_ne!(safe_cell(&other), cell);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(120)))]

    #[test]
    fn any_operator_and_note_round_trip_through_a_csv_reader(
        // SQLite's length() stops at a NUL, so the log's CHECK refuses a name
        // that starts with one (`resolve` and the screen accept only printable names).
        operator in nasty_text().prop_filter("an operator", |o| {
            !o.trim().is_empty() && !o.trim().starts_with('\0')
        }),
        note in nasty_text(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        receipt_review::storage::init(&path).unwrap();
        let mut conn = open_database(&path, Access::PreferWrite).unwrap();
        let request = DecisionRequest {
            item: "dup:1".into(),
            kind: review::Kind::Duplicate,
            decision: Decision::Distinct,
            operator: operator.clone(),
            note: Some(note.clone()),
            receipt_ids: vec![1, 2],
            now_ms: NOW_MS,
            expected_last: None,
            kept: None,
        };
        review::decide(&mut *conn, &request).unwrap();
        let stored = review::read_log(&*conn).unwrap().remove(0);

        let mut out = Vec::new();
        review::export(&*conn, ExportFormat::Csv, &mut out).unwrap();
        let mut reader = csv::ReaderBuilder::new().from_reader(&out[..]);
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        prop_assert_eq!(rows.len(), 1);
        for cell in rows[0].iter() {
            prop_assert!(!starts_like_a_formula(cell), "{:?}", cell);
        }
        prop_assert_eq!(unquote_cell(&rows[0][4]), stored.operator.as_str());
        prop_assert_eq!(unquote_cell(&rows[0][7]), stored.note.as_deref().unwrap_or_default());

        // Shown on a terminal, the same CSV is inert.
        let text = String::from_utf8(out).unwrap();
        for line in clean_lines(&text) {
            prop_assert!(!line.chars().any(raw_forbidden), "{:?}", line);
        }

        // JSONL: faithful and inert.
        let mut out = Vec::new();
        review::export(&*conn, ExportFormat::Jsonl, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        prop_assert!(!text.trim_end_matches('\n').chars().any(raw_forbidden), "{:?}", text);
        let v: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(v["operator"].as_str().unwrap(), stored.operator.as_str());
    }
}
