//! A copy the visitor rewrote by a sentence: the group's detail says which sentences, read from
//! a real database, in English and in Japanese.

use std::collections::HashMap;

use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::storage::{Access, open_database};

use crate::common::{insert, run};
use crate::fixture::{Fixture, code, loaded_in, screen, send};

const NOW_MS: i64 = 1_795_947_330_123;

const EIGHT: &str = "いつもお世話になっております。 青空デザイン株式会社の伊藤です。 \
    先月注文した名刺の件でご連絡いたしました。 届いた箱のうち一つに印刷のかすれがありました。 \
    写真を添付いたしますのでご確認ください。 交換のお手続きを進めていただけますでしょうか。 \
    は癌指名ニュース文言サンプル。 何卒よろしくお願いいたします。";

/// The two copies of the first example, 6 min 45 s apart, read into a fixture.
fn rewritten_pair() -> (tempfile::TempDir, Fixture) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("receipts.db");
    let o = run(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let second = EIGHT.replace(
        "交換のお手続きを進めていただけますでしょうか。 は癌指名ニュース文言サンプル。",
        "urgent",
    );
    for (id, message, at) in [
        (1, EIGHT, "2026-11-29T09:00:00.000Z"),
        (2, second.as_str(), "2026-11-29T09:06:45.000Z"),
    ] {
        let payload = serde_json::json!({
            "name": "伊藤 優子",
            "email": "ito_yuko91@mail.example.ne.jp",
            "message": message,
        });
        insert(
            &conn,
            id,
            &format!("k{id}"),
            &payload.to_string(),
            at,
            "completed",
        );
    }
    drop(conn);
    let db = open_database(&db, Access::ReadOnly).unwrap();
    let snapshot = reading::read_with_receipts(&*db, Settings::new(NOW_MS), &mut |_| {}).unwrap();
    let fixture = Fixture {
        snapshot,
        payloads: HashMap::new(),
    };
    (dir, fixture)
}

fn detail(lang: Lang) -> String {
    let (_dir, fx) = rewritten_pair();
    assert_eq!(fx.snapshot.triage.duplicates.len(), 1);
    // Wide enough for the detail to hold the reason on one line.
    let mut app = loaded_in(lang, &fx, 240, 48);
    send(&mut app, &fx, code(KeyCode::Enter));
    screen(&app, 240, 48)
}

#[test]
fn the_detail_says_which_sentences_were_replaced() {
    let shown = detail(Lang::En);
    assert!(
        shown.contains("edited copy: in message, sentences 6 and 7 were replaced by “urgent”"),
        "{shown}"
    );
    let shown = detail(Lang::Ja);
    assert!(
        shown.contains("6文目と7文目が「urgent」に置き換えられています"),
        "{shown}"
    );
}
