//! Exact copies of one visitor's fields within the form's window: the
//! original's answer, an `absorbed` row, never a second receipt; any changed
//! byte of a typed field, a bot, or a copy outside the window is stored. The
//! key an absorbed copy came with holds the receipt from then on. Each on
//! both engines, but for the upgrade of a SQLite file from before digests.

use receipt_review::server::clock::Clock;

use crate::both;
use crate::common::engine::Engine;
use crate::support::{CONFIG, TestServer};

/// 2026-12-01T00:00:00Z, where the tests' manual clocks start.
const NOW: i64 = 1_764_547_200_000;

const ADA: &str =
    r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back."}"#;

fn an_exact_copy_with_a_new_key_gets_the_originals_answer_and_is_counted(engine: Engine) {
    let s = TestServer::start_on(engine);
    let first = s.post_json("copies", Some("click-1"), ADA);
    assert_eq!(first.status, 201);
    // A second click on a page that makes a new key per click, with its
    // own tracking and an empty field: the same typed fields.
    let copy = s.post_json(
        "copies",
        Some("click-2"),
        r#"{"email": "ada@example.org", "message": "Please call me back.", "name": "Ada Lovelace", "utm_source": "ad", "event_id": "e-2", "company": ""}"#,
    );
    assert_eq!(
        (copy.status, &copy.body),
        (201, &first.body),
        "byte-identical"
    );
    let keyless = s.post_json("copies", None, ADA);
    assert_eq!(keyless.body, first.body);
    assert_eq!(s.counts(), [1, 0, 0, 2]);
    let keys: Vec<(Option<String>,)> =
        s.rows("SELECT request_key FROM absorbed WHERE receipt_id = 1 ORDER BY id");
    assert_eq!(keys, [(Some("click-2".to_string()),), (None,)]);
    // The copy's key finds the receipt it was absorbed into.
    assert_eq!(
        s.get("/f/copies/receipts/click-2").body,
        r#"{"receipt":1,"state":"completed"}"#
    );
}
both!(an_exact_copy_with_a_new_key_gets_the_originals_answer_and_is_counted);

fn a_changed_field_a_bot_or_a_form_without_a_window_is_stored(engine: Engine) {
    let s = TestServer::start_on(engine);
    assert_eq!(s.post_json("copies", None, ADA).status, 201);
    let edited = s.post_json(
        "copies",
        None,
        r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back today."}"#,
    );
    assert_eq!(edited.body, r#"{"receipt":2,"state":"completed"}"#);
    let bot = s.post_json(
        "copies",
        None,
        r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back.", "_gotcha": "x"}"#,
    );
    assert_eq!(
        bot.body, r#"{"receipt":3,"state":"completed"}"#,
        "a bot is stored for the analysis"
    );
    // contact's window is 0s: copies are stored as sent.
    s.post_json("contact", None, ADA);
    s.post_json("contact", None, ADA);
    assert_eq!(s.counts(), [5, 0, 0, 0]);
}
both!(a_changed_field_a_bot_or_a_form_without_a_window_is_stored);

fn a_copy_outside_the_window_is_a_new_receipt(engine: Engine) {
    let config = CONFIG.replace("window = \"10m\"", "window = \"1s\"");
    let s = TestServer::with_clock_on(engine, &config, Clock::manual(NOW));
    s.post_json("copies", None, ADA);
    s.clock.advance(1000);
    assert_eq!(
        s.post_json("copies", None, ADA).body,
        r#"{"receipt":1,"state":"completed"}"#,
        "at the window's end, still a copy"
    );
    s.clock.advance(1);
    assert_eq!(
        s.post_json("copies", None, ADA).body,
        r#"{"receipt":2,"state":"completed"}"#
    );
    assert_eq!(s.counts(), [2, 0, 0, 1]);
}
both!(a_copy_outside_the_window_is_a_new_receipt);

fn copies_are_recognised_across_a_restart(engine: Engine) {
    let mut s = TestServer::start_on(engine);
    s.post_json("copies", Some("before"), ADA);
    s.restart(CONFIG);
    let copy = s.post_json("copies", Some("after"), ADA);
    assert_eq!(copy.body, r#"{"receipt":1,"state":"completed"}"#);
    assert_eq!(s.counts(), [1, 0, 0, 1]);
}
both!(copies_are_recognised_across_a_restart);

/// What one visitor typed, with the page's own tracking fields.
const ADA_AGAIN: &str = r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back.", "event_id": "e-2"}"#;

/// Asserts the answer is the stored answer of receipt 1, replayed.
fn replayed_receipt_1(r: &crate::support::Reply) {
    assert_eq!(
        (r.status, r.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
    assert_eq!(r.header("idempotent-replayed"), Some("true"), "{r:?}");
}

fn an_absorbed_copys_key_holds_the_receipt_like_its_own_key(engine: Engine) {
    let mut s = TestServer::start_on(engine);
    let first = s.post_json("copies", Some("k-rA"), ADA);
    assert_eq!(first.status, 201);
    let copy = s.post_json("copies", Some("k-rB"), ADA_AGAIN);
    assert_eq!((copy.status, &copy.body), (201, &first.body));
    assert_eq!(
        copy.header("idempotent-replayed"),
        None,
        "absorbed, not replayed"
    );
    // The visitor's script retries under the key it kept.
    replayed_receipt_1(&s.post_json("copies", Some("k-rB"), ADA_AGAIN));
    // Another body under that key is a conflict with the receipt it holds.
    let other = s.post_json(
        "copies",
        Some("k-rB"),
        r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Something else entirely."}"#,
    );
    assert_eq!(other.problem(422)["receipt"], 1);
    // ...which changes nothing of what the key holds.
    replayed_receipt_1(&s.post_json("copies", Some("k-rB"), ADA_AGAIN));
    assert_eq!(s.counts(), [1, 1, 2, 1]);
    let conflict: (i64, String) = s.one("SELECT receipt_id, payload FROM key_conflicts");
    assert_eq!(conflict.0, 1);
    assert!(
        conflict.1.contains("Something else entirely."),
        "kept: {}",
        conflict.1
    );
    assert_eq!(
        s.get("/f/copies/receipts/k-rB").body,
        r#"{"receipt":1,"state":"completed"}"#
    );
    // Across a restart, the database says who holds the key.
    s.restart(CONFIG);
    replayed_receipt_1(&s.post_json("copies", Some("k-rB"), ADA_AGAIN));
    s.post_json(
        "copies",
        Some("k-rB"),
        r#"{"email": "someone@example.org", "message": "hello"}"#,
    )
    .problem(422);
    assert_eq!(s.counts(), [1, 2, 3, 1]);
}
both!(an_absorbed_copys_key_holds_the_receipt_like_its_own_key);

fn an_absorbed_key_holds_its_receipt_after_the_window(engine: Engine) {
    let config = CONFIG.replace("window = \"10m\"", "window = \"1s\"");
    let s = TestServer::with_clock_on(engine, &config, Clock::manual(NOW));
    s.post_json("copies", Some("k-rA"), ADA);
    s.post_json("copies", Some("k-rB"), ADA_AGAIN);
    s.clock.advance(86_400_000);
    // The script kept its key until a confirmed success and sends again.
    replayed_receipt_1(&s.post_json("copies", Some("k-rB"), ADA_AGAIN));
    replayed_receipt_1(&s.post_json("copies", Some("k-rA"), ADA));
    assert_eq!(s.counts(), [1, 0, 2, 1]);
}
both!(an_absorbed_key_holds_its_receipt_after_the_window);

fn copies_that_differ_by_case_width_or_spacing_are_stored_as_typed(engine: Engine) {
    let s = TestServer::start_on(engine);
    let typed = ["Serial AbC123", "serial abc123", "ＳＥＲＩＡＬ   ABC123"];
    for (i, text) in typed.iter().enumerate() {
        let body = serde_json::json!({"email": "ada@example.org", "message": text}).to_string();
        let r = s.post_json("copies", None, &body);
        assert_eq!(
            r.body,
            format!(r#"{{"receipt":{},"state":"completed"}}"#, i + 1),
            "{text} is stored"
        );
    }
    assert_eq!(s.counts(), [3, 0, 0, 0]);
    let stored: Vec<(String,)> = s.rows("SELECT payload FROM receipts ORDER BY id");
    for ((payload,), text) in stored.iter().zip(typed) {
        assert!(payload.contains(text), "{payload} holds {text}");
    }
}
both!(copies_that_differ_by_case_width_or_spacing_are_stored_as_typed);

// SQLite only: a SQLite file may be older than the `absorbed.digest` column
// and is upgraded when the server opens it; a PostgreSQL database has had the
// column from its start (the next case covers a row without a digest there).
#[test]
fn an_absorbed_table_from_before_digests_is_upgraded_and_its_keys_still_hold() {
    let mut s = TestServer::start();
    s.post_json("copies", Some("k-rA"), ADA);
    s.post_json("copies", Some("k-rB"), ADA);
    s.running.take().unwrap().stop().unwrap();
    s.conn()
        .execute_batch(
            "CREATE TABLE old AS SELECT id, receipt_id, request_key, received_at FROM absorbed;
             DROP TABLE absorbed;
             ALTER TABLE old RENAME TO absorbed;",
        )
        .unwrap();
    s.restart_stopped(CONFIG);
    let columns: Vec<String> = s
        .conn()
        .prepare("SELECT name FROM pragma_table_info('absorbed')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(columns.contains(&"digest".to_string()), "{columns:?}");
    // Without the copy's digest, the receipt's own stands in for it.
    replayed_receipt_1(&s.post_json("copies", Some("k-rB"), ADA));
    assert_eq!(s.counts(), [1, 0, 1, 1]);
}

fn an_absorbed_row_without_a_digest_still_holds_its_key(engine: Engine) {
    let mut s = TestServer::start_on(engine);
    s.post_json("copies", Some("k-rA"), ADA);
    s.post_json("copies", Some("k-rB"), ADA_AGAIN);
    s.running.take().unwrap().stop().unwrap();
    // What a row from before digests holds once its table is upgraded.
    s.place.execute("UPDATE absorbed SET digest = NULL");
    s.restart_stopped(CONFIG);
    // The receipt's own digest stands in for the copy's: the copy's typed
    // fields are the receipt's, whatever its tracking fields were.
    replayed_receipt_1(&s.post_json("copies", Some("k-rB"), ADA));
    s.post_json(
        "copies",
        Some("k-rB"),
        r#"{"email": "someone@example.org", "message": "hello"}"#,
    )
    .problem(422);
    assert_eq!(s.counts(), [1, 1, 1, 1]);
}
both!(an_absorbed_row_without_a_digest_still_holds_its_key);
