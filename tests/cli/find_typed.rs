//! `find` as a Japanese desk types a query: times written the Japanese way
//! (昨日 10時, 12月3日, full-width digits), and names and phone numbers with
//! or without their spaces and separators.

use crate::common;

use std::process::Output;

use common::{NOW, bin, insert, run};
use rusqlite::Connection;
use serde_json::Value;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A database of receipts written for these tests (NOW is 2026-11-29 21:00
/// in Tokyo): one at 10:05 yesterday and one at 10:05 today, Tokyo time, and
/// the same visitor's name and phone number written five ways.
fn database() -> common::Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("receipts.db");
    let o = run(&["init", db.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let conn = Connection::open(&db).unwrap();
    let receipt =
        |id, payload: &str, at| insert(&conn, id, &format!("k{id}"), payload, at, "completed");
    // 10:05 on 11-28 and on 11-29 in Tokyo.
    receipt(
        1,
        r#"{"name":"Aiko","message":"yesterday morning"}"#,
        "2026-11-28T01:05:00.000Z",
    );
    receipt(
        2,
        r#"{"name":"Ken","message":"this morning"}"#,
        "2026-11-29T01:05:00.000Z",
    );
    let visitor = |name: &str, phone: &str| {
        format!(r#"{{"name":"{name}","phone":"{phone}","message":"折り返しをお願いします"}}"#)
    };
    let noon = "2026-11-27T03:00:00.000Z";
    receipt(3, &visitor("渡辺 美咲", "070-4350-0720"), noon);
    receipt(4, &visitor("渡辺\u{3000}美咲", "070 4350 0720"), noon);
    receipt(5, &visitor("渡辺美咲", "(070)4350-0720"), noon);
    receipt(6, &visitor("ワタナベ ミサキ", "+81 70-4350-0720"), noon);
    receipt(
        7,
        &visitor("Misaki Watanabe", "０７０－４３５０－０７２０"),
        noon,
    );
    // Another visitor, one digit and one name apart.
    receipt(8, &visitor("渡辺 美穂", "070-4350-0721"), noon);
    common::Fixture { _dir: dir, db }
}

fn find(db: &str, query: &str) -> Value {
    let o = run(&[
        "find",
        db,
        query,
        "--json",
        "--tz",
        "Asia/Tokyo",
        "--now",
        NOW,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{query}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn ids(db: &str, query: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = find(db, query)["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["receipt_id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn yesterday_at_ten_in_japanese_is_yesterday_in_tokyo() {
    let f = database();
    let v = find(f.path(), "昨日 10:00");
    assert_eq!(v["span"]["from"], "2026-11-28T00:30:00.000Z");
    assert_eq!(v["span"]["to"], "2026-11-28T01:30:00.000Z");
    assert_eq!(ids(f.path(), "昨日 10:00"), [1]);
    for query in [
        "昨日 10時",
        "きのう 10時",
        "昨日の10時ごろ",
        "昨日　１０：００",
        "11月28日 10時",
        "11/28 10:00",
    ] {
        assert_eq!(ids(f.path(), query), [1], "{query}");
    }
    for query in ["今日 10時", "１０：００", "10時～11時", "10時から11時"] {
        assert_eq!(ids(f.path(), query), [2], "{query}");
    }
    assert_eq!(ids(f.path(), "一昨日"), [3, 4, 5, 6, 7, 8]);
    // The people's words, in Japanese, say the same.
    let o = bin()
        .env("LANG", "ja_JP.UTF-8")
        .args([
            "find",
            f.path(),
            "昨日",
            "10:00",
            "--tz",
            "Asia/Tokyo",
            "--now",
            NOW,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.contains("#1"), "{text}");
    assert!(!text.contains("#2"), "{text}");
    assert!(text.contains("2026-11-28 09:30 – 10:30 JST"), "{text}");
}

#[test]
fn a_name_is_found_with_or_without_its_space() {
    let f = database();
    for query in ["渡辺美咲", "渡辺 美咲", "渡辺　美咲", "渡辺  美咲"] {
        assert_eq!(ids(f.path(), query), [3, 4, 5], "{query}");
    }
    // The space still parts two words of any other text.
    assert_eq!(ids(f.path(), "渡辺"), [3, 4, 5, 8]);
    assert_eq!(ids(f.path(), "misaki watanabe"), [7]);
    assert_eq!(ids(f.path(), "misakiwatanabe"), Vec::<i64>::new());
}

#[test]
fn a_phone_number_is_found_whatever_its_separators() {
    let f = database();
    for query in [
        "07043500720",
        "070-4350-0720",
        "070 4350 0720",
        "(070)4350-0720",
        "０７０－４３５０－０７２０",
        "+81 70-4350-0720",
        "+817043500720",
    ] {
        assert_eq!(ids(f.path(), query), [3, 4, 5, 6, 7], "{query}");
    }
    // Part of a number, too.
    assert_eq!(ids(f.path(), "43500720"), [3, 4, 5, 6, 7]);
    assert_eq!(ids(f.path(), "4350-072"), [3, 4, 5, 6, 7, 8]);
}

#[test]
fn a_full_width_space_is_shown_as_typed() {
    let f = database();
    for lang in ["C", "ja_JP.UTF-8"] {
        let o = bin()
            .env("LANG", lang)
            .args([
                "find",
                f.path(),
                "渡辺\u{3000}健",
                "--tz",
                "Asia/Tokyo",
                "--now",
                NOW,
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        let text = stdout(&o);
        let first = text.lines().next().unwrap();
        assert!(first.contains("渡辺\u{3000}健"), "{first}");
        assert!(!text.contains("\\u{3000}"), "{text}");
        // What is unsafe stays escaped.
        let o = bin()
            .env("LANG", lang)
            .args(["find", f.path(), "渡辺\u{202e}健", "--now", NOW])
            .output()
            .unwrap();
        let first = stdout(&o).lines().next().unwrap().to_string();
        assert!(first.contains("渡辺\\u{202e}健"), "{first}");
    }
}
