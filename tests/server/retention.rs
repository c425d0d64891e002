//! A form's `retention`, applied by the running server on both engines: at
//! start and then at each run, the receipts of its scope older than the
//! retention become tombstones with one review-log row by the operator
//! `retention`; younger ones and other forms' receipts stay as sent; a retry
//! of an erased receipt's key is answered as before; the log says what each
//! run did and never a field's value; a bad `retention` stops `serve` at once.

use std::time::Duration;

use receipt_review::intake::store::IntakeStore;
use receipt_review::model::erasure::Tombstone;
use receipt_review::model::time::format_rfc3339;
use receipt_review::server::clock::Clock;
use receipt_review::storage::IntakeMode;
use serde_json::{Map, Value, json};

use crate::both;
use crate::common::engine::{Engine, Place};
use crate::common::run;
use crate::support::{BODY, CONFIG, Serving, TestServer, agent, wait_for};

/// 2026-11-29T10:00:00Z
const NOW: i64 = 1_795_946_400_000;
const DAY: i64 = 86_400_000;

/// [`CONFIG`] with a retention of 30 days on `contact` (and none on the
/// other forms), and metrics.
fn config() -> String {
    CONFIG
        .replace(
            "[forms.contact]\n",
            "[forms.contact]\nretention = \"30d\"\n",
        )
        .replace("[server]\n", "[server]\nmetrics = \"127.0.0.1:0\"\n")
}

/// Whether receipt `id` is a tombstone now.
fn erased(s: &TestServer, id: i64) -> bool {
    let (payload, digest): (String, String) = s.one(&format!(
        "SELECT payload, digest FROM receipts WHERE id = {id}"
    ));
    Tombstone::of_row(&payload, Some(&digest)).is_some()
}

fn tombstone(s: &TestServer, id: i64) -> Tombstone {
    let (payload, digest): (String, String) = s.one(&format!(
        "SELECT payload, digest FROM receipts WHERE id = {id}"
    ));
    Tombstone::of_row(&payload, Some(&digest)).expect("a tombstone")
}

/// The review log: item, kind, decision, operator, receipt ids, note.
fn review_log(s: &TestServer) -> Vec<(String, String, String, String, String, String)> {
    s.rows("SELECT item, kind, decision, operator, receipt_ids, note FROM review_log ORDER BY id")
}

fn erasure_row(item: &str, ids: &str) -> (String, String, String, String, String, String) {
    (
        item.into(),
        "erasure".into(),
        "erased".into(),
        "retention".into(),
        ids.into(),
        "retention 30d (forms.toml, form contact)".into(),
    )
}

/// The count of receipts `form`'s retention erased, as Prometheus reads it.
fn erased_metric(s: &TestServer, form: &str) -> String {
    let addr = s.running.as_ref().unwrap().metrics_addr().unwrap();
    let text = agent()
        .get(format!("http://{addr}/metrics"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    let name = format!("receipt_review_retention_erased_total{{form=\"{form}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(name.as_str()))
        .unwrap_or_else(|| panic!("no {name}in {text}"))
        .to_string()
}

const YOUNG: &str =
    r#"{"name": "Grace Hopper", "email": "grace@example.org", "message": "Still waiting."}"#;

fn receipts_older_than_the_retention_are_erased_by_the_running_server(engine: Engine) {
    let s = TestServer::with_retention_every_on(
        engine,
        &config(),
        Clock::manual(NOW),
        Some(Duration::from_millis(20)),
    );
    let first = s.post_json("contact", Some("k-old"), BODY);
    assert_eq!(first.body, r#"{"receipt":1,"state":"completed"}"#);
    // Another form, no retention: kept however old.
    s.post_json("copies", Some("k-other"), BODY);
    s.clock.advance(20 * DAY);
    s.post_json("contact", Some("k-young"), YOUNG);
    // Runs come and go meanwhile: nothing is 30 days old yet.
    s.clock.advance(10 * DAY);
    assert!(!erased(&s, 1));
    s.clock.advance(DAY);
    wait_for(|| erased(&s, 1), "receipt 1 erased by the retention");

    let t = tombstone(&s, 1);
    assert_eq!(t.by, "retention");
    assert_eq!(t.at, format_rfc3339(NOW + 31 * DAY), "the server's clock");
    assert_eq!(review_log(&s), [erasure_row("erase:1", "[1]")]);
    for id in [2, 3] {
        assert!(!erased(&s, id), "receipt {id} is kept");
    }
    let (young,): (String,) = s.one("SELECT payload FROM receipts WHERE id = 3");
    assert!(young.contains("grace@example.org"), "{young}");
    assert_eq!(erased_metric(&s, "contact"), "1");

    // A retry of the erased receipt's key: the same answer, replayed.
    let again = s.post_json("contact", Some("k-old"), BODY);
    assert_eq!((again.status, &again.body), (first.status, &first.body));
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    // Later runs find nothing more to erase.
    s.clock.advance(DAY);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(review_log(&s).len(), 1);
    assert!(!erased(&s, 3));
}
both!(receipts_older_than_the_retention_are_erased_by_the_running_server);

fn the_first_run_is_at_start(engine: Engine) {
    // Daily, as `serve` does: only a start runs it within the test.
    let mut s = TestServer::with_clock_on(engine, &config(), Clock::manual(NOW));
    let first = s.post_json("contact", Some("k-1"), BODY);
    s.post_json("contact", Some("k-2"), YOUNG);
    s.clock.advance(31 * DAY);
    s.post_json("contact", Some("k-3"), YOUNG);
    // Stopping does not wait for the next day's run.
    s.restart(&config());
    wait_for(|| erased(&s, 2), "receipts 1 and 2 erased at start");
    assert!(erased(&s, 1));
    assert!(!erased(&s, 3));
    assert_eq!(review_log(&s), [erasure_row("erase:1", "[1,2]")]);
    let again = s.post_json("contact", Some("k-1"), BODY);
    assert_eq!((again.status, &again.body), (first.status, &first.body));
}
both!(the_first_run_is_at_start);

fn fields(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn serve_logs_each_run_and_no_field(engine: Engine) {
    let place = Place::new(engine);
    // Written long before the real clock's now, and one just now.
    let mut store = IntakeStore::open_at(place.location(), IntakeMode::Plain).unwrap();
    let old = fields(json!({"email": "SECRET-old@example.org", "message": "SECRET text"}));
    let young = fields(json!({"email": "SECRET-young@example.org", "message": "SECRET too"}));
    let now = receipt_review::model::time::now_ms();
    for (key, at, body) in [
        ("k-1", NOW - 400 * DAY, &old),
        ("k-2", NOW - 399 * DAY, &old),
        ("k-3", now - 60_000, &young),
    ] {
        let claim = store.claim("contact", Some(key), body, at).unwrap();
        store
            .complete(claim.id(), r#"{"receipt":1,"state":"completed"}"#, at)
            .unwrap();
    }
    drop(store);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forms.toml");
    std::fs::write(
        &config,
        "[server]\nlisten = \"127.0.0.1:0\"\n[forms.contact]\nretention = \"90d\"\n[forms.other]\n",
    )
    .unwrap();
    let (mut serving, _) =
        Serving::start_with(place.arg(), &config, &["--log-format", "json"], &[]);
    wait_for(|| serving.log().contains("\"erased\""), "the run's event");
    unsafe {
        libc::kill(serving.child.id() as i32, libc::SIGTERM);
    }
    assert!(serving.child.wait().unwrap().success());
    let log = serving.log_after_exit();
    assert!(!log.contains("SECRET"), "no visitor's text: {log}");
    let events: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|e: &Value| e.get("erased").is_some())
        .collect();
    assert_eq!(
        events.len(),
        1,
        "one event per form with a retention: {log}"
    );
    let event = &events[0];
    assert_eq!(event["level"], "INFO");
    assert_eq!(event["form"], "contact");
    assert_eq!(event["scope"], "contact");
    assert_eq!(event["retention"], "90d");
    assert_eq!(event["erased"], 2);
    assert_eq!(event["scrubbed"], true);
    assert!(event["took_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
    assert_eq!(event["stopped"], false);
    assert!(event.get("error").is_none(), "{event}");
    let message = event["message"].as_str().unwrap();
    assert!(
        message.starts_with("contact: retention 90d: 2 receipts that arrived before "),
        "{message}"
    );
    let rows: Vec<(i64, String, String)> =
        place.rows("SELECT id, payload, digest FROM receipts ORDER BY id");
    let erased: Vec<bool> = rows
        .iter()
        .map(|(_, p, d)| Tombstone::of_row(p, Some(d)).is_some())
        .collect();
    assert_eq!(erased, [true, true, false]);
}
both!(serve_logs_each_run_and_no_field);

#[test]
fn a_bad_retention_is_one_line_naming_the_key_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forms.toml");
    let db = dir.path().join("r.db");
    for bad in ["two years", "12h"] {
        std::fs::write(&config, format!("[forms.contact]\nretention = \"{bad}\"\n")).unwrap();
        let out = run(&[
            "serve",
            db.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "forms.toml: [forms.contact] retention must be a period such as 2y, 18mo, 90d \
                 or 12w, at least 1d and at most 100y, not \"{bad}\""
            )),
            "{stderr}"
        );
        assert!(!db.exists(), "nothing is created");
    }
    let out = run(&[
        "--lang",
        "ja",
        "serve",
        db.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("[forms.contact] retention は 2y、18mo、90d、12w のような"),
        "{stderr}"
    );
}
