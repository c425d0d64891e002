//! Databases written by others: payloads stored as another intake spells
//! them (not in canonical form, with the digest of their canonical text),
//! nested deeply, empty, or posted by a bot to several forms.

use std::io::Write;
use std::process::Stdio;

use receipt_review::intake::canonical::{canonical_text, sha256_hex};
use rusqlite::{Connection, params};
use serde_json::Value;

use crate::common::{Fixture, bin, run};

const NOW: &str = "2026-11-29T12:00:00Z";

/// An empty database made by `init`.
fn empty_db() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("foreign.db");
    let o = run(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    Fixture { _dir: dir, db }
}

/// Stores `payload` exactly as given, with the digest of its canonical text
/// (what an intake in another language computes).
fn put(conn: &Connection, id: i64, scope: &str, payload: &str, at: &str) {
    let digest = canonical_text(payload)
        .map(|c| sha256_hex(&c))
        .unwrap_or_else(|_| "0".repeat(64));
    conn.execute(
        "INSERT INTO receipts(id, scope, request_key, digest, payload, state, created_at)
         VALUES (?1, ?2, NULL, ?3, ?4, 'completed', ?5)",
        params![id, scope, digest, payload, at],
    )
    .unwrap();
}

pub fn report(f: &Fixture) -> Value {
    let o = run(&["report", f.path(), "--json", "--now", NOW]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn group_ids(report: &Value) -> Vec<Vec<i64>> {
    report["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g["receipt_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn numbers_spelled_differently_are_one_submission_at_any_depth() {
    let f = empty_db();
    let conn = Connection::open(&f.db).unwrap();
    let spelled = |n: &str, m: &str| {
        format!(
            r#"{{"email":"ann@example.org","message":"Please send the price list for next month","qty":{n},
                "options":{{"size":[{m},{{"w":{n}}}]}}}}"#
        )
    };
    let pairs = [
        ("1.00", "1e2"),
        ("1.0", "100.0"),
        ("1.000", "1E+2"),
        ("1.0", "100.00"),
    ];
    for (i, (n, m)) in pairs.iter().enumerate() {
        let at = format!("2026-11-29T10:00:0{}.000Z", 2 * i);
        put(&conn, i as i64 + 1, "shop/contact", &spelled(n, m), &at);
    }
    // The same two numbers kept apart: 2E+3 and -0 are 2000.0 and 0, 1E-7 is 1e-07.
    put(
        &conn,
        10,
        "shop/order",
        r#"{"email":"bo@example.org","n":2E+3,"z":-0,"t":[1E-7]}"#,
        "2026-11-29T10:00:00Z",
    );
    put(
        &conn,
        11,
        "shop/order",
        r#"{"email":"bo@example.org","n":2000.0,"z":0,"t":[1e-07]}"#,
        "2026-11-29T10:00:03Z",
    );
    drop(conn);
    let check = run(&["check", f.path()]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let r = report(&f);
    assert_eq!(group_ids(&r), vec![vec![1, 2, 3, 4], vec![10, 11]]);
    for g in r["duplicates"].as_array().unwrap() {
        assert!(
            g["members"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["match"] == "exact")
        );
    }
}

/// An object whose innermost array sits at nesting level `depth`.
fn nested(depth: usize) -> String {
    format!(
        r#"{{"email":"deep@example.org","a":{}1{}}}"#,
        "[".repeat(depth - 1),
        "]".repeat(depth - 1)
    )
}

fn canonical_cli(text: &str) -> (Option<i32>, String, String) {
    let mut child = bin()
        .arg("canonical")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn nesting_past_128_levels_is_refused_the_same_way_everywhere() {
    let (ok, too_deep) = (nested(128), nested(129));
    let (code, out, _) = canonical_cli(&ok);
    assert_eq!(code, Some(0));
    assert_eq!(out.trim_end(), canonical_text(&ok).unwrap());
    let (code, out, err) = canonical_cli(&too_deep);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(
        err.trim_end(),
        "receipt-review: JSON nested too deeply (more than 128 levels)"
    );

    let f = empty_db();
    let conn = Connection::open(&f.db).unwrap();
    put(&conn, 1, "deep/form", &ok, "2026-11-29T10:00:00Z");
    put(&conn, 2, "deep/form", &too_deep, "2026-11-29T11:00:00Z");
    drop(conn);
    let r = report(&f);
    let damaged = r["damaged"].as_array().unwrap();
    assert_eq!(damaged.len(), 1);
    assert_eq!(damaged[0]["receipt_id"], 2);
    assert_eq!(damaged[0]["reason"], "payload");
    assert!(
        damaged[0]["detail"]
            .as_str()
            .unwrap()
            .contains("more than 128 levels"),
        "{}",
        damaged[0]["detail"]
    );
    let check = run(&["check", f.path()]);
    assert_eq!(check.status.code(), Some(1));
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains("more than 128 levels"), "{text}");

    // The intake refuses what the readers would call damaged.
    let mut value = Value::from(1);
    for _ in 0..128 {
        value = Value::Array(vec![value]);
    }
    let mut body = serde_json::Map::new();
    body.insert("a".into(), value);
    assert_eq!(
        receipt_review::intake::canonical::canonical(&body),
        Err(receipt_review::intake::canonical::CanonicalError::TooDeep)
    );
}

const SPAM: &str = r#""message":"Boost your search ranking today with our amazing SEO package""#;

fn resolve(f: &Fixture, item: &str, decision: &str) -> (Option<i32>, String) {
    let o = run(&[
        "resolve",
        f.path(),
        item,
        decision,
        "--operator",
        "aiko",
        "--now",
        NOW,
    ]);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn bots_from_every_form_and_empty_submissions_are_grouped_and_decided() {
    let f = empty_db();
    let conn = Connection::open(&f.db).unwrap();
    // One body posted to three forms by three senders, and a scanner's
    // empty submissions.
    for (id, scope, n, at) in [
        (1, "acme/contact", 1, "2026-11-29T10:00:00Z"),
        (2, "acme/quote", 2, "2026-11-29T10:00:01Z"),
        (3, "acme/careers", 3, "2026-11-29T10:00:02Z"),
    ] {
        let payload = format!(r#"{{"email":"bot{n}@spam.example",{SPAM}}}"#);
        put(&conn, id, scope, &payload, at);
    }
    put(
        &conn,
        4,
        "acme/contact",
        r#"{"name":"","_csrf":"t"}"#,
        "2026-11-29T10:30:00Z",
    );
    put(&conn, 5, "acme/contact", "{}", "2026-11-29T10:31:00Z");
    let r = report(&f);
    assert_eq!(r["suspected_bots"], serde_json::json!([1, 2, 3, 4, 5]));
    assert_eq!(r["counts"]["bot_groups"], 2);
    let groups = r["bot_groups"].as_array().unwrap();
    assert_eq!(groups[0]["item"], "bot:1");
    assert_eq!(groups[0]["evidence"], "campaign");
    assert_eq!(groups[0]["receipt_ids"], serde_json::json!([1, 2, 3]));
    assert_eq!(groups[0]["senders"], 3);
    assert_eq!(
        groups[0]["scopes"],
        serde_json::json!(["acme/careers", "acme/contact", "acme/quote"])
    );
    assert_eq!(groups[1]["item"], "bot:4");
    assert_eq!(groups[1]["evidence"], "empty");
    assert_eq!(groups[1]["receipt_ids"], serde_json::json!([4, 5]));
    assert_eq!(groups[1]["status"], "pending");
    assert!(groups[1]["decision"].is_null());

    // Decided through the one decision path.
    assert_eq!(resolve(&f, "bot:1", "spam").0, Some(0));
    assert_eq!(resolve(&f, "bot:4", "not-spam").0, Some(0));
    let (code, err) = resolve(&f, "bot:1", "duplicate");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("choose one of: spam, not_spam"), "{err}");
    let r = report(&f);
    let groups = r["bot_groups"].as_array().unwrap();
    assert_eq!(groups[0]["status"], "resolved");
    assert_eq!(groups[0]["decision"], "spam");
    assert_eq!(groups[1]["decision"], "not_spam");
    let text = run(&["report", f.path(), "--now", NOW]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("5 receipts in 2 groups, 0 pending"), "{text}");
    assert!(text.contains("same message from many senders"), "{text}");

    // A group that gains a receipt is pending again.
    let payload = format!(r#"{{"email":"bot4@spam.example",{SPAM}}}"#);
    put(&conn, 6, "acme/support", &payload, "2026-11-29T10:00:03Z");
    let r = report(&f);
    let g = &r["bot_groups"][0];
    assert_eq!(g["receipt_ids"], serde_json::json!([1, 2, 3, 6]));
    assert_eq!(g["status"], "pending");
    assert_eq!(g["decision"], "spam");
    assert_eq!(g["new_copy_since_decision"], true);
    let logged: Vec<(String, String, String)> = conn
        .prepare("SELECT item, kind, decision FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        logged,
        vec![
            ("bot:1".into(), "bot".into(), "spam".into()),
            ("bot:4".into(), "bot".into(), "not_spam".into()),
        ]
    );
}
