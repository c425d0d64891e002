//! `find`: any receipt by text, number or time, on the fixture, in the
//! operator's zone; and its errors.

use crate::common;

use std::process::Output;

use common::{NOW, bin, fixture, insert, run};
use rusqlite::Connection;
use serde_json::{Value, json};

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn find_json(db: &str, query: &str, tz: &str) -> Value {
    let o = run(&["find", db, query, "--json", "--tz", tz, "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn ids(v: &Value) -> Vec<i64> {
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["receipt_id"].as_i64().unwrap())
        .collect()
}

/// The fixture and a young in-flight receipt two minutes before `NOW`,
/// whose sender typed in full width.
fn with_young_in_flight() -> common::Fixture {
    let f = fixture();
    let conn = Connection::open(&f.db).unwrap();
    insert(
        &conn,
        6,
        "k6",
        r#"{"name":"ＪＯＨＮ  Johnson","email":"John.Johnson33@Example.com","message":"did it arrive?"}"#,
        "2026-11-29T11:58:00.000Z",
        "in_flight",
    );
    f
}

#[test]
fn by_email_newest_first_with_items_and_decisions() {
    let f = fixture();
    let v = find_json(f.path(), "aiko@example.jp", "Asia/Tokyo");
    assert_eq!(v["query"], "aiko@example.jp");
    assert_eq!(ids(&v), vec![3, 2, 1]);
    let hits = &v["hits"];
    // JSON stays UTC whatever the zone.
    assert_eq!(hits[2]["created_at"], "2026-11-29T10:00:00.000Z");
    assert_eq!(hits[2]["scope"], "corp/contact");
    assert_eq!(hits[2]["state"], "completed");
    assert_eq!(hits[2]["request_key"], "k1");
    assert_eq!(
        hits[2]["items"],
        json!([
            {"item": "dup:1", "status": "pending", "decision": null},
            {"item": "conflict:1", "status": "pending", "decision": null},
        ])
    );
    assert_eq!(
        hits[1]["items"],
        json!([{"item": "dup:1", "status": "pending", "decision": null}])
    );
    // The follow-up hours later is in no item, and still found.
    assert_eq!(hits[0]["items"], json!([]));

    // A decision shows beside its item.
    let o = run(&[
        "resolve",
        f.path(),
        "dup:1",
        "duplicate",
        "--operator",
        "aiko",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = find_json(f.path(), "aiko@example.jp", "UTC");
    assert_eq!(
        v["hits"][1]["items"],
        json!([{"item": "dup:1", "status": "resolved", "decision": "duplicate"}])
    );
}

#[test]
fn folded_text_numbers_and_stuck_receipts() {
    let f = with_young_in_flight();
    // Width, case and spacing folded as the fingerprint folds them.
    assert_eq!(ids(&find_json(f.path(), "john johnson", "UTC")), vec![6]);
    assert_eq!(
        ids(&find_json(f.path(), "JOHN.JOHNSON33@example.COM", "UTC")),
        vec![6]
    );
    assert_eq!(
        ids(&find_json(f.path(), "ｊｏｈｎ.ｊｏｈｎｓｏｎ３３", "UTC")),
        vec![6]
    );
    // `#4` is receipt 4 only; a bare number is the receipt and any text holding it.
    let v = find_json(f.path(), "#4", "UTC");
    assert_eq!(ids(&v), vec![4]);
    assert_eq!(
        v["hits"][0]["items"],
        json!([{"item": "stuck:4", "status": "pending", "decision": null}])
    );
    assert_eq!(v["hits"][0]["outcome_known"], true);
    let bare = ids(&find_json(f.path(), "33", "UTC"));
    assert_eq!(
        bare,
        vec![6],
        "33 is in receipt 6's address; there is no receipt 33"
    );
    assert_eq!(ids(&find_json(f.path(), "5", "UTC")), vec![5]);
    // The request key and the scope.
    assert_eq!(ids(&find_json(f.path(), "k2", "UTC")), vec![2]);
    assert_eq!(find_json(f.path(), "corp/contact", "UTC")["total"], 6);
}

#[test]
fn a_young_in_flight_receipt_is_not_yet_known() {
    let f = with_young_in_flight();
    let v = find_json(f.path(), "john.johnson33", "Asia/Tokyo");
    assert_eq!(v["hits"][0]["state"], "in_flight");
    assert_eq!(v["hits"][0]["outcome_known"], false);
    assert_eq!(v["hits"][0]["items"], json!([]));
    let o = run(&[
        "find",
        f.path(),
        "john.johnson33",
        "--tz",
        "Asia/Tokyo",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("#6  corp/contact  2026-11-29 20:58:00 JST  in flight  key k6"),
        "{text}"
    );
    assert!(
        text.contains("outcome not known yet — do not tell the visitor it failed"),
        "{text}"
    );
    assert!(text.contains("times in Asia/Tokyo"), "{text}");
}

#[test]
fn times_are_read_in_the_zone() {
    let f = fixture();
    // 19:00 in Tokyo is 10:00 UTC: the half hour either side.
    let v = find_json(f.path(), "2026-11-29 19:00", "Asia/Tokyo");
    assert_eq!(ids(&v), vec![4, 2, 5, 1]);
    assert_eq!(v["span"]["from"], "2026-11-29T09:30:00.000Z");
    assert_eq!(v["span"]["to"], "2026-11-29T10:30:00.000Z");
    // The same words in UTC are nine hours later: nothing then.
    assert_eq!(
        ids(&find_json(f.path(), "2026-11-29 19:00", "UTC")),
        Vec::<i64>::new()
    );
    // Text and time together; a range.
    assert_eq!(
        ids(&find_json(f.path(), "aiko@example.jp 19:00", "Asia/Tokyo")),
        vec![2, 1]
    );
    assert_eq!(
        ids(&find_json(f.path(), "@19:00:01..19:10", "Asia/Tokyo")),
        vec![4, 2]
    );
    assert_eq!(
        ids(&find_json(f.path(), "bob at:19:00 to 19:10", "Asia/Tokyo")),
        vec![4]
    );
    // TZ is the zone when --tz is not given.
    let o = bin()
        .args(["find", f.path(), "19:00", "--now", NOW])
        .env("TZ", "Asia/Tokyo")
        .output()
        .unwrap();
    assert!(
        stdout(&o).contains("4 receipts match \"19:00\" (2026-11-29 18:30 – 19:30 JST)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_miss_says_what_it_does_and_does_not_mean() {
    let f = with_young_in_flight();
    let v = find_json(f.path(), "nobody@example.org", "Asia/Tokyo");
    assert_eq!(v["hits"], json!([]));
    assert_eq!(v["miss"]["in_flight"], 2);
    assert_eq!(v["miss"]["recent"], 1);
    assert_eq!(v["miss"]["searched"], 6);
    let o = run(&[
        "find",
        f.path(),
        "nobody@example.org",
        "--tz",
        "Asia/Tokyo",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        text.starts_with("No receipt matches \"nobody@example.org\"."),
        "{text}"
    );
    assert!(
        text.contains(
            "All forms: 2 in flight (outcome not known yet), 1 arrived in the last 10 min"
        ),
        "{text}"
    );
    assert!(
        text.contains("A miss is not proof that the request never arrived"),
        "{text}"
    );
    // A form named in the search gets its own counts.
    let o = run(&["find", f.path(), "corp/contact nobody", "--now", NOW]);
    assert!(stdout(&o).contains("No receipt matches"), "{}", stdout(&o));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let f = fixture();
    for (args, says) in [
        (vec!["find", f.path(), ""], "nothing to search for"),
        (vec!["find", f.path(), "   "], "nothing to search for"),
        (
            vec!["find", f.path(), "25:61"],
            "no such time of day: 25:61",
        ),
        (
            vec!["find", f.path(), "john", "--tz", "Mars/Olympus"],
            "unknown time zone",
        ),
        (
            vec!["report", f.path(), "--tz", "Nowhere"],
            "unknown time zone",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(o.stdout.is_empty());
    }
    let o = bin()
        .args(["find", f.path(), "x"])
        .env("TZ", "Not/AZone")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn the_report_names_the_zone() {
    let f = fixture();
    let o = run(&["report", f.path(), "--tz", "Asia/Tokyo", "--now", NOW]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("as of 2026-11-29 21:00:00 JST (times in Asia/Tokyo;"),
        "{text}"
    );
    // JSON stays RFC 3339 UTC.
    let o = run(&[
        "report",
        f.path(),
        "--json",
        "--tz",
        "Asia/Tokyo",
        "--now",
        NOW,
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["now"], "2026-11-29T12:00:00.000Z");
}

#[test]
fn japanese_text_is_found_too() {
    let f = fixture();
    // The fixture's message is Japanese; a needle with kana is folded and found.
    assert_eq!(
        ids(&find_json(f.path(), "導入を検討", "Asia/Tokyo")),
        vec![3, 2, 1]
    );
    assert_eq!(
        ids(&find_json(f.path(), "aiko tanaka", "UTC")),
        vec![3, 2, 1]
    );
}
