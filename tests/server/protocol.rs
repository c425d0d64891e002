//! The intake protocol (docs/intake-protocol.md) over HTTP: new, replay, conflict, in flight, a plain
//! form's 303, and what each writes; each on both engines.

use receipt_review::intake::canonical::canonical_text;
use receipt_review::intake::store::IntakeStore;
use receipt_review::storage::IntakeMode;

use crate::both;
use crate::common::engine::Engine;
use crate::support::{BODY, TestServer};

fn a_new_submission_is_201_with_the_response_it_stores(engine: Engine) {
    let s = TestServer::start_on(engine);
    let r = s.post_json("contact", Some("k-new-1"), BODY);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.body, r#"{"receipt":1,"state":"completed"}"#);
    assert_eq!(r.header("idempotent-replayed"), None);
    let (scope, key, state, response, payload): (String, String, String, String, String) =
        s.one("SELECT scope, request_key, state, response, payload FROM receipts");
    assert_eq!(scope, "acme.example/contact", "the scope is the config's");
    assert_eq!(key, "k-new-1");
    assert_eq!(state, "completed");
    assert_eq!(response, r.body, "the body answered is the one stored");
    assert_eq!(payload, canonical_text(BODY).unwrap());
    assert_eq!(s.counts(), [1, 0, 0, 0]);
}
both!(a_new_submission_is_201_with_the_response_it_stores);

fn the_same_key_and_body_replays_the_stored_answer_byte_for_byte(engine: Engine) {
    let s = TestServer::start_on(engine);
    let first = s.post_json("contact", Some("k-replay"), BODY);
    // The same fields, in another order and spacing: the same canonical body.
    let again = s.post_json(
        "contact",
        Some("k-replay"),
        r#"{"message":"Please call me back.","email":"ada@example.org","name":"Ada Lovelace"}"#,
    );
    assert_eq!(first.status, 201);
    assert_eq!(again.status, first.status);
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("content-type"), first.header("content-type"));
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(s.counts(), [1, 0, 1, 0], "one receipt, one replays row");
}
both!(the_same_key_and_body_replays_the_stored_answer_byte_for_byte);

fn the_same_key_with_other_fields_is_a_422_conflict_and_the_original_stands(engine: Engine) {
    let s = TestServer::start_on(engine);
    let first = s.post_json("contact", Some("k-conflict"), BODY);
    let other = s.post_json(
        "contact",
        Some("k-conflict"),
        r#"{"email": "ada@example.org", "message": "Actually, email me."}"#,
    );
    let problem = other.problem(422);
    assert_eq!(problem["receipt"], 1);
    assert!(
        !other.body.contains("Actually"),
        "a problem never repeats the fields"
    );
    assert_eq!(s.counts(), [1, 1, 0, 0]);
    let (receipt_id, conflict_payload): (i64, String) =
        s.one("SELECT receipt_id, payload FROM key_conflicts");
    assert_eq!(receipt_id, 1);
    assert!(conflict_payload.contains("Actually, email me."));
    let (original,): (String,) = s.one("SELECT payload FROM receipts WHERE id = 1");
    assert_eq!(original, canonical_text(BODY).unwrap(), "untouched");
    // The original's key still replays its own answer.
    let replay = s.post_json("contact", Some("k-conflict"), BODY);
    assert_eq!(replay.body, first.body);
}
both!(the_same_key_with_other_fields_is_a_422_conflict_and_the_original_stands);

fn the_same_key_while_the_first_is_in_flight_is_409_and_writes_nothing(engine: Engine) {
    let s = TestServer::start_on(engine);
    // The first is still being processed: in flight, committed by another connection.
    let mut store = IntakeStore::open_at(s.location(), IntakeMode::Plain).unwrap();
    let fields: serde_json::Value = serde_json::from_str(BODY).unwrap();
    let now = receipt_review::model::time::now_ms();
    store
        .claim(
            "acme.example/contact",
            Some("k-busy"),
            fields.as_object().unwrap(),
            now,
        )
        .unwrap();
    let r = s.post_json("contact", Some("k-busy"), BODY);
    let problem = r.problem(409);
    assert_eq!(problem["receipt"], 1);
    assert!(
        r.header("retry-after")
            .is_some_and(|v| v.parse::<u64>().unwrap() >= 1)
    );
    assert_eq!(
        s.counts(),
        [1, 0, 0, 0],
        "nothing written, not even a replay"
    );
    // Once the first is done, the same key replays it.
    store
        .complete(1, r#"{"receipt":1,"state":"completed"}"#, now + 500)
        .unwrap();
    let r = s.post_json("contact", Some("k-busy"), BODY);
    assert_eq!(
        (r.status, r.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
    assert_eq!(r.header("idempotent-replayed"), Some("true"));
}
both!(the_same_key_while_the_first_is_in_flight_is_409_and_writes_nothing);

fn a_plain_forms_post_is_303_to_the_thank_you_page_and_its_key_is_not_stored(engine: Engine) {
    let s = TestServer::start_on(engine);
    let headers = [
        (
            "content-type",
            "application/x-www-form-urlencoded".to_string(),
        ),
        ("accept", "text/html,application/xhtml+xml".to_string()),
    ];
    let body =
        b"_key=page-key-1&name=Ada+Lovelace&email=ada%40example.org&message=Hello%21&_gotcha=";
    let r = s.post("/f/contact", &headers, body);
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(r.header("location"), Some("/f/contact/thanks?receipt=1"));
    let (key, payload): (String, String) = s.one("SELECT request_key, payload FROM receipts");
    assert_eq!(key, "page-key-1");
    assert_eq!(
        payload,
        r#"{"_gotcha":"","email":"ada@example.org","message":"Hello!","name":"Ada Lovelace"}"#
    );
    // The back button and a second click post the same page again: one receipt.
    let again = s.post("/f/contact", &headers, body);
    assert_eq!(again.status, 303);
    assert_eq!(again.header("location"), r.header("location"));
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(s.counts(), [1, 0, 1, 0]);
    // The same post from a script (no Accept: text/html) is answered in JSON.
    let script = s.post(
        "/f/contact",
        &[(
            "content-type",
            "application/x-www-form-urlencoded".to_string(),
        )],
        body,
    );
    assert_eq!(
        (script.status, script.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
}
both!(a_plain_forms_post_is_303_to_the_thank_you_page_and_its_key_is_not_stored);

fn keyless_submissions_are_each_stored_and_a_filled_honeypot_is_answered_like_a_success(
    engine: Engine,
) {
    let s = TestServer::start_on(engine);
    assert_eq!(s.post_json("contact", None, BODY).status, 201);
    assert_eq!(s.post_json("contact", None, BODY).status, 201);
    let bot = s.post_json(
        "contact",
        None,
        r#"{"email": "bot@spam.example", "message": "Buy now", "_gotcha": "http://spam.example"}"#,
    );
    assert_eq!(
        (bot.status, bot.body.as_str()),
        (201, r#"{"receipt":3,"state":"completed"}"#)
    );
    assert_eq!(s.counts(), [3, 0, 0, 0], "stored, for the analysis to flag");
}
both!(keyless_submissions_are_each_stored_and_a_filled_honeypot_is_answered_like_a_success);

fn the_scope_comes_from_the_config_never_from_the_client(engine: Engine) {
    let s = TestServer::start_on(engine);
    let r = s.post_json(
        "contact",
        Some("k-scope"),
        r#"{"email": "a@b.c", "message": "m", "scope": "evil.example/admin"}"#,
    );
    assert_eq!(r.status, 201);
    let (scope,): (String,) = s.one("SELECT scope FROM receipts");
    assert_eq!(scope, "acme.example/contact");
}
both!(the_scope_comes_from_the_config_never_from_the_client);

/// The bytes of a keyed JSON post of [`BODY`].
fn raw_post(key: &str) -> Vec<u8> {
    let mut request = format!(
        "POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
         Idempotency-Key: \"{key}\"\r\nContent-Length: {}\r\n\r\n",
        BODY.len()
    )
    .into_bytes();
    request.extend_from_slice(BODY.as_bytes());
    request
}

fn a_response_lost_after_the_commit_then_a_retry_is_one_receipt_and_the_same_answer(
    engine: Engine,
) {
    let s = TestServer::start_on(engine);
    // The client sends, the receipt is committed, and the answer never
    // reaches the client: it goes away without reading it.
    let stream = crate::support::raw(&s, &raw_post("k-lost"));
    crate::support::wait_for(|| s.count("receipts") == 1, "the receipt committed");
    drop(stream);
    let retry = s.post_json("contact", Some("k-lost"), BODY);
    assert_eq!(
        (retry.status, retry.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(s.counts(), [1, 0, 1, 0]);
}
both!(a_response_lost_after_the_commit_then_a_retry_is_one_receipt_and_the_same_answer);

fn a_client_gone_right_after_sending_then_a_retry_is_one_receipt_and_the_same_answer(
    engine: Engine,
) {
    let s = TestServer::start_on(engine);
    // Sent, and the connection closed at once: the request may or may not
    // have been taken; either way its retry ends with one receipt.
    let stream = crate::support::raw(&s, &raw_post("k-gone"));
    let _ = stream.shutdown(std::net::Shutdown::Both);
    drop(stream);
    std::thread::sleep(std::time::Duration::from_millis(100));
    let retry = s.post_json("contact", Some("k-gone"), BODY);
    assert_eq!(
        (retry.status, retry.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
    let again = s.post_json("contact", Some("k-gone"), BODY);
    assert_eq!(again.body, retry.body);
    assert_eq!(s.count("receipts"), 1);
}
both!(a_client_gone_right_after_sending_then_a_retry_is_one_receipt_and_the_same_answer);
