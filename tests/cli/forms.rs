//! The per-form table of `report`: one planted pathway per form is named for
//! that form, and every count equals a count made another way (SQL over the
//! fixture, and the report's own item lists).

use std::collections::BTreeMap;

use receipt_review::intake::canonical::{canonical_text, sha256_hex};
use receipt_review::model::Millis;
use receipt_review::model::time::{format_rfc3339, parse_text};
use rusqlite::{Connection, params};
use serde_json::Value;

use crate::common::run;

const NOW: &str = "2026-11-29T12:00:00Z";
const MIN: Millis = 60_000;
const HOUR: Millis = 60 * MIN;

struct Db {
    _dir: tempfile::TempDir,
    path: String,
    conn: Connection,
    next: i64,
    now: Millis,
}

impl Db {
    fn new() -> Db {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("forms.db").to_str().unwrap().to_string();
        assert_eq!(run(&["init", &path]).status.code(), Some(0));
        let conn = Connection::open(&path).unwrap();
        Db {
            _dir: dir,
            path,
            conn,
            next: 1,
            now: parse_text(NOW).unwrap(),
        }
    }

    /// A receipt `ago` ms before now; gives its id.
    fn add(&mut self, scope: &str, key: Option<&str>, payload: &str, ago: Millis) -> i64 {
        self.add_in(scope, key, payload, ago, "completed")
    }

    fn add_in(
        &mut self,
        scope: &str,
        key: Option<&str>,
        payload: &str,
        ago: Millis,
        state: &str,
    ) -> i64 {
        let id = self.next;
        self.next += 1;
        let canon = canonical_text(payload).unwrap();
        self.conn
            .execute(
                "INSERT INTO receipts(id, scope, request_key, digest, payload, state, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    scope,
                    key,
                    sha256_hex(&canon),
                    canon,
                    state,
                    format_rfc3339(self.now - ago)
                ],
            )
            .unwrap();
        id
    }

    fn replay(&self, id: i64) {
        self.conn
            .execute(
                "INSERT INTO replays(receipt_id, received_at) VALUES (?1, ?2)",
                params![id, NOW],
            )
            .unwrap();
    }

    fn count(&self, sql: &str, args: impl rusqlite::Params) -> u64 {
        self.conn
            .query_row(sql, args, |r| r.get::<_, i64>(0))
            .unwrap() as u64
    }
}

fn person(n: usize, message: &str) -> String {
    format!(
        r#"{{"name":"Person {n}","email":"p{n}@example.com","phone":"03-0000-{n:04}","message":"{message}"}}"#
    )
}

const MESSAGE: &str =
    "I would like a quote for twenty chairs and four tables delivered to our new office next month";
const EDITED: &str =
    "I would like a quote for thirty chairs and four tables delivered to our new office next month";

/// A visitor's own text: people do not write the same words, and one body
/// from three senders within the window is a bot campaign.
fn own(p: usize, text: &str) -> String {
    format!("{text} (order {p})")
}

/// One pathway planted per form, three times each, among singles; a few
/// receipts older than the week.
fn planted() -> Db {
    let mut db = Db::new();
    let mut n = 0usize;
    let mut next = || {
        n += 1;
        n
    };
    let scopes = [
        "a.example/contact",
        "b.example/lp",
        "c.example/lp",
        "d.example/lp",
        "e.example/support",
        "f.example/shop",
        "g.example/form",
    ];
    for (s, scope) in scopes.iter().enumerate() {
        for i in 0..6 {
            let p = next();
            let key = format!("single-{p}");
            db.add(
                scope,
                Some(&key),
                &person(p, &format!("Question {p} about order {i}{s}")),
                (i as i64 + 1) * 5 * HOUR,
            );
        }
        // Outside the last 7 days.
        let p = next();
        db.add(scope, None, &person(p, "An old message"), 9 * 24 * HOUR);
    }
    for i in 0..3 {
        let ago = (i + 1) * 7 * HOUR + 13 * MIN;
        // Two handlers: a full copy and a half-empty one 300 ms apart.
        let p = next();
        db.add(
            "a.example/contact",
            Some(&format!("a{i}")),
            &person(p, &own(p, MESSAGE)),
            ago,
        );
        db.add(
            "a.example/contact",
            Some(&format!("a{i}b")),
            &format!(r#"{{"name":"Person {p}","email":"p{p}@example.com"}}"#),
            ago - 300,
        );
        // A new key per click: the same fields 3 s later under another key.
        let p = next();
        db.add(
            "b.example/lp",
            Some(&format!("b{i}")),
            &person(p, &own(p, MESSAGE)),
            ago,
        );
        db.add(
            "b.example/lp",
            Some(&format!("b{i}x")),
            &person(p, &own(p, MESSAGE)),
            ago - 3_000,
        );
        // No key: the same fields 4 s later, neither with a key.
        let p = next();
        db.add("c.example/lp", None, &person(p, &own(p, MESSAGE)), ago);
        db.add(
            "c.example/lp",
            None,
            &person(p, &own(p, MESSAGE)),
            ago - 4_000,
        );
        // A reload: the same fields 3 min later.
        let p = next();
        db.add(
            "d.example/lp",
            Some(&format!("d{i}")),
            &person(p, &own(p, MESSAGE)),
            ago,
        );
        db.add(
            "d.example/lp",
            Some(&format!("d{i}x")),
            &person(p, &own(p, MESSAGE)),
            ago - 3 * MIN,
        );
        // Edited and resent 4 min later.
        let p = next();
        db.add(
            "e.example/support",
            Some(&format!("e{i}")),
            &person(p, &own(p, MESSAGE)),
            ago,
        );
        db.add(
            "e.example/support",
            Some(&format!("e{i}x")),
            &person(p, &own(p, EDITED)),
            ago - 4 * MIN,
        );
        // Retries absorbed by the key.
        let p = next();
        let id = db.add(
            "f.example/shop",
            Some(&format!("f{i}")),
            &person(p, &own(p, MESSAGE)),
            ago,
        );
        db.replay(id);
        db.replay(id);
        // A bot: the honeypot filled in.
        let p = next();
        db.add(
            "g.example/form",
            Some(&format!("g{i}")),
            &format!(r#"{{"name":"Bot {p}","email":"b{p}@example.com","message":"cheap pills {p}","_gotcha":"x"}}"#),
            ago,
        );
    }
    // Stuck in flight, in the week and before it.
    let p = next();
    db.add_in(
        "f.example/shop",
        Some("stuck-1"),
        &person(p, "Did my order arrive?"),
        2 * HOUR,
        "in_flight",
    );
    let p = next();
    db.add_in(
        "f.example/shop",
        Some("stuck-2"),
        &person(p, "Did my order go out?"),
        10 * 24 * HOUR,
        "in_flight",
    );
    db
}

fn report(db: &Db, period: &str) -> Value {
    let o = run(&[
        "report", &db.path, "--json", "--now", NOW, "--period", period,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn forms(v: &Value) -> BTreeMap<String, Value> {
    v["forms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["scope"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

fn pathways(form: &Value) -> Vec<&str> {
    form["pathways"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pathway"].as_str().unwrap())
        .collect()
}

#[test]
fn each_form_is_told_its_planted_pathway_first() {
    let db = planted();
    let v = report(&db, "7d");
    assert_eq!(v["forms_period"], "7d");
    let f = forms(&v);
    for (scope, pathway) in [
        ("a.example/contact", "two_handlers"),
        ("b.example/lp", "new_key_per_click"),
        ("c.example/lp", "no_key"),
        ("d.example/lp", "reload"),
        ("e.example/support", "edited_resend"),
        ("f.example/shop", "retries_absorbed"),
        ("g.example/form", "bots"),
    ] {
        let form = &f[scope];
        assert_eq!(pathways(form), [pathway], "{scope}: {form:#}");
        let p = &form["pathways"][0];
        assert_eq!(
            p["count"].as_u64(),
            Some(if pathway == "retries_absorbed" { 6 } else { 3 }),
            "{scope}"
        );
        assert!(!p["advice"].as_str().unwrap().is_empty());
        let example = &p["example"];
        if pathway == "retries_absorbed" {
            assert!(
                example.is_null() && p["example_receipt"].is_i64(),
                "{scope}: {p}"
            );
        } else if pathway == "bots" {
            // The example is one of the report's bot groups, holding the receipt.
            let item = example.as_str().unwrap();
            let group = v["bot_groups"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["item"] == item)
                .unwrap_or_else(|| panic!("{item} is no bot group"));
            let receipt = p["example_receipt"].as_i64().unwrap();
            assert!(
                group["receipt_ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|id| id.as_i64() == Some(receipt)),
                "{scope}: {p}"
            );
        } else {
            // The example is one of the report's duplicate groups, of this form.
            let item = example.as_str().unwrap();
            let group = v["duplicates"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["item"] == item)
                .unwrap_or_else(|| panic!("{item} is no group"));
            assert_eq!(group["scope"], scope);
        }
    }
    let advice = &f["b.example/lp"]["pathways"][0]["advice"];
    assert!(
        advice.as_str().unwrap().contains("mint it once per input"),
        "{advice}"
    );
}

#[test]
fn counts_per_form_equal_a_recount_in_sql() {
    let db = planted();
    for period in ["24h", "7d", "30d", "all"] {
        let v = report(&db, period);
        let f = forms(&v);
        let start = match period {
            "24h" => Some(24 * HOUR),
            "7d" => Some(7 * 24 * HOUR),
            "30d" => Some(30 * 24 * HOUR),
            _ => None,
        }
        // Whole hours ending with the hour that holds now (12:00 is its start).
        .map(|span| format_rfc3339(db.now + HOUR - span));
        let since = start.clone().unwrap_or_else(|| "0000".into());
        let scopes: Vec<String> = {
            let mut stmt = db
                .conn
                .prepare(
                    "SELECT DISTINCT scope FROM receipts WHERE created_at >= ?1 ORDER BY scope",
                )
                .unwrap();
            stmt.query_map([&since], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(f.keys().cloned().collect::<Vec<_>>(), scopes, "{period}");
        for scope in &scopes {
            let form = &f[scope];
            let sql = |where_: &str| {
                db.count(
                    &format!("SELECT count(*) FROM receipts WHERE scope = ?1 AND created_at >= ?2 AND {where_}"),
                    params![scope, since],
                )
            };
            assert_eq!(
                form["receipts"].as_u64(),
                Some(sql("1")),
                "{period} {scope}"
            );
            assert_eq!(
                form["keyless"].as_u64(),
                Some(sql("request_key IS NULL")),
                "{period} {scope}"
            );
            let replays = db.count(
                "SELECT count(*) FROM replays JOIN receipts r ON r.id = receipt_id
                 WHERE r.scope = ?1 AND r.created_at >= ?2",
                params![scope, since],
            );
            assert_eq!(form["replays"].as_u64(), Some(replays), "{period} {scope}");
            let stuck = v["stuck"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["scope"] == scope.as_str())
                .filter(|s| {
                    let id = s["receipt_id"].as_i64().unwrap();
                    db.count(
                        "SELECT count(*) FROM receipts WHERE id = ?1 AND created_at >= ?2",
                        params![id, since],
                    ) == 1
                })
                .count();
            assert_eq!(
                form["stuck"].as_u64(),
                Some(stuck as u64),
                "{period} {scope}"
            );
            // Groups by their earliest copy, from the report's own list.
            let groups: Vec<&Value> = v["duplicates"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| g["scope"] == scope.as_str())
                .filter(|g| {
                    let id = g["receipt_ids"][0].as_i64().unwrap();
                    db.count(
                        "SELECT count(*) FROM receipts WHERE id = ?1 AND created_at >= ?2",
                        params![id, since],
                    ) == 1
                })
                .collect();
            assert_eq!(
                form["duplicate_groups"].as_u64(),
                Some(groups.len() as u64),
                "{period} {scope}"
            );
            let class = |c: &str| groups.iter().filter(|g| g["class"] == c).count() as u64;
            for c in ["simultaneous", "seconds", "minutes"] {
                assert_eq!(
                    form["by_class"][c].as_u64(),
                    Some(class(c)),
                    "{period} {scope} {c}"
                );
            }
            let exact = groups.iter().filter(|g| g["exact"] == true).count() as u64;
            assert_eq!(form["exact"].as_u64(), Some(exact));
            assert_eq!(form["near"].as_u64(), Some(groups.len() as u64 - exact));
            let bots = v["suspected_bots"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|id| {
                    db.count(
                        "SELECT count(*) FROM receipts WHERE id = ?1 AND scope = ?2 AND created_at >= ?3",
                        params![id.as_i64().unwrap(), scope, since],
                    ) == 1
                })
                .count();
            assert_eq!(form["bots"].as_u64(), Some(bots as u64), "{period} {scope}");
        }
    }
}

#[test]
fn the_text_report_prints_the_table_and_the_advice() {
    let db = planted();
    let o = run(&["report", &db.path, "--now", NOW, "--period", "24h"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("Forms (last 24 hours; --period 24h|7d|30d|all)"),
        "{text}"
    );
    assert!(text.contains("d.example/lp: likely pathways"), "{text}");
    assert!(
        text.contains("answer with a redirect to a thank-you page"),
        "{text}"
    );
    let bad = run(&["report", &db.path, "--period", "2w"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8(bad.stderr).unwrap();
    assert!(
        err.contains("--period must be 24h, 7d, 30d or all") && err.lines().count() == 1,
        "{err}"
    );
}
