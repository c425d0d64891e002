//! Exact copies of one visitor's fields within the form's window (seed
//! 004's fix): the original's answer, an `absorbed` row, never a second
//! receipt; any changed field, a bot, or a copy outside the window is stored.

use crate::support::{CONFIG, TestServer};

const ADA: &str =
    r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back."}"#;

#[test]
fn an_exact_copy_with_a_new_key_gets_the_originals_answer_and_is_counted() {
    let s = TestServer::start();
    let first = s.post_json("copies", Some("click-1"), ADA);
    assert_eq!(first.status, 201);
    // A second click on a page that makes a new key per click, spelt a
    // little differently (case, spaces): the same visitor fields.
    let copy = s.post_json(
        "copies",
        Some("click-2"),
        r#"{"email": "ADA@example.org ", "message": "Please  call me back.", "name": "Ada Lovelace", "utm_source": "ad"}"#,
    );
    assert_eq!(
        (copy.status, &copy.body),
        (201, &first.body),
        "byte-identical"
    );
    let keyless = s.post_json("copies", None, ADA);
    assert_eq!(keyless.body, first.body);
    assert_eq!(s.counts(), [1, 0, 0, 2]);
    let keys: Vec<Option<String>> = s
        .conn()
        .prepare("SELECT request_key FROM absorbed WHERE receipt_id = 1 ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(keys, [Some("click-2".to_string()), None]);
    // The copy's key finds the receipt it was absorbed into.
    assert_eq!(
        s.get("/f/copies/receipts/click-2").body,
        r#"{"receipt":1,"state":"completed"}"#
    );
}

#[test]
fn a_changed_field_a_bot_or_a_form_without_a_window_is_stored() {
    let s = TestServer::start();
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

#[test]
fn a_copy_outside_the_window_is_a_new_receipt() {
    let config = CONFIG.replace("window = \"10m\"", "window = \"1s\"");
    let s = TestServer::with_config(&config);
    s.post_json("copies", None, ADA);
    assert_eq!(
        s.post_json("copies", None, ADA).body,
        r#"{"receipt":1,"state":"completed"}"#
    );
    std::thread::sleep(std::time::Duration::from_millis(1300));
    assert_eq!(
        s.post_json("copies", None, ADA).body,
        r#"{"receipt":2,"state":"completed"}"#
    );
    assert_eq!(s.counts(), [2, 0, 0, 1]);
}

#[test]
fn copies_are_recognised_across_a_restart() {
    let mut s = TestServer::start();
    s.post_json("copies", Some("before"), ADA);
    s.restart(CONFIG);
    let copy = s.post_json("copies", Some("after"), ADA);
    assert_eq!(copy.body, r#"{"receipt":1,"state":"completed"}"#);
    assert_eq!(s.counts(), [1, 0, 0, 1]);
}
