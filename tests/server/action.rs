//! A form's action (a webhook): the receipt is committed in flight first; a
//! 2xx completes it (201), a refusal fails it and releases the key (502), an
//! unknown outcome leaves it in flight (202) for an operator. On both
//! engines, but for the log's words (a `serve` process on a file).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::both;
use crate::common::engine::Engine;
use crate::support::{BODY, TestServer};

#[derive(Clone, Copy)]
pub enum Hook {
    Answer(u16),
    /// Reads the post and answers nothing for this long.
    Stall(Duration),
}

/// A webhook that answers each post as told, in order; returns its URL and
/// the bodies it received.
pub fn webhook(plan: Vec<Hook>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/inquiries", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for hook in plan {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream);
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&body).into_owned());
            let mut stream = reader.into_inner();
            match hook {
                Hook::Answer(status) => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                }
                Hook::Stall(d) => std::thread::sleep(d),
            }
        }
    });
    (url, seen)
}

fn config(url: &str) -> String {
    format!(
        r#"[server]
listen = "127.0.0.1:0"
rate = "off"
[forms.hooked]
scope = "acme.example/hooked"
fields = {{ name = 100, email = 254, message = 500 }}
window = "0s"
action = {{ webhook = "{url}", timeout = "400ms" }}
"#
    )
}

fn state(s: &TestServer) -> String {
    s.one::<(String,)>("SELECT state FROM receipts WHERE id = 1")
        .0
}

fn a_2xx_completes_the_receipt_and_the_webhook_gets_its_number_and_fields(engine: Engine) {
    let (url, seen) = webhook(vec![Hook::Answer(204)]);
    let s = TestServer::with_config_on(engine, &config(&url));
    let r = s.post_json("hooked", Some("k-hook"), BODY);
    assert_eq!(
        (r.status, r.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
    assert_eq!(state(&s), "completed");
    let posted: serde_json::Value = serde_json::from_str(&seen.lock().unwrap()[0]).unwrap();
    assert_eq!(posted["receipt"], 1);
    assert_eq!(posted["scope"], "acme.example/hooked");
    assert_eq!(posted["key"], "k-hook");
    assert_eq!(posted["fields"]["email"], "ada@example.org");
    // A retry replays; the webhook is not called again.
    let again = s.post_json("hooked", Some("k-hook"), BODY);
    assert_eq!((again.status, again.body), (201, r.body));
    assert_eq!(seen.lock().unwrap().len(), 1);
}
both!(a_2xx_completes_the_receipt_and_the_webhook_gets_its_number_and_fields);

fn a_refusal_fails_the_receipt_and_releases_the_key_for_a_retry(engine: Engine) {
    let (url, seen) = webhook(vec![Hook::Answer(500), Hook::Answer(200)]);
    let s = TestServer::with_config_on(engine, &config(&url));
    let r = s.post_json("hooked", Some("k-refused"), BODY);
    let p = r.problem(502);
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("safe to send it again")
    );
    assert_eq!(state(&s), "failed");
    let retry = s.post_json("hooked", Some("k-refused"), BODY);
    assert_eq!(
        (retry.status, retry.body.as_str()),
        (201, r#"{"receipt":1,"state":"completed"}"#)
    );
    assert_eq!(state(&s), "completed");
    assert_eq!(seen.lock().unwrap().len(), 2);
    assert_eq!(s.count("receipts"), 1);
}
both!(a_refusal_fails_the_receipt_and_releases_the_key_for_a_retry);

fn an_unknown_outcome_leaves_the_receipt_in_flight_and_answers_202(engine: Engine) {
    let (url, _) = webhook(vec![Hook::Stall(Duration::from_secs(2))]);
    let s = TestServer::with_config_on(engine, &config(&url));
    let r = s.post_json("hooked", Some("k-unknown"), BODY);
    assert_eq!(
        (r.status, r.body.as_str()),
        (202, r#"{"receipt":1,"state":"in_flight"}"#)
    );
    assert_eq!(
        state(&s),
        "in_flight",
        "for an operator, never failed by time"
    );
    assert_eq!(s.counts(), [1, 0, 0, 0]);
    assert_eq!(
        s.get("/f/hooked/receipts/k-unknown").body,
        r#"{"receipt":1,"state":"in_flight"}"#
    );
}
both!(an_unknown_outcome_leaves_the_receipt_in_flight_and_answers_202);

fn a_retry_while_the_action_runs_is_409_and_after_its_timeout_the_202_again(engine: Engine) {
    let (url, seen) = webhook(vec![Hook::Stall(Duration::from_secs(3))]);
    let mut s = TestServer::with_config_on(engine, &config(&url).replace("400ms", "1500ms"));
    let first = std::thread::scope(|scope| {
        let first = scope.spawn(|| s.post_json("hooked", Some("k-slow"), BODY));
        // The receipt is committed in flight before its webhook is called.
        while seen.lock().unwrap().is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
        let meanwhile = s.post_json("hooked", Some("k-slow"), BODY);
        let p = meanwhile.problem(409);
        assert_eq!(p["receipt"], 1);
        assert_eq!(meanwhile.header("retry-after"), Some("1"));
        first.join().unwrap()
    });
    assert_eq!(
        (first.status, first.body.as_str()),
        (202, r#"{"receipt":1,"state":"in_flight"}"#)
    );
    assert_eq!(s.counts(), [1, 0, 0, 0], "a 409 writes nothing");
    // The action gave up: a retry is told what the first send was told.
    let again = s.post_json("hooked", Some("k-slow"), BODY);
    assert_eq!((again.status, &again.body), (202, &first.body));
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(s.counts(), [1, 0, 1, 0], "a replays row for the 202");
    assert_eq!(state(&s), "in_flight", "only an operator settles it");
    s.restart(&config(&url).replace("400ms", "1500ms"));
    let after = s.post_json("hooked", Some("k-slow"), BODY);
    assert_eq!((after.status, &after.body), (202, &first.body));
    assert_eq!(after.header("idempotent-replayed"), Some("true"));
    assert_eq!(seen.lock().unwrap().len(), 1, "the webhook is called once");
}
both!(a_retry_while_the_action_runs_is_409_and_after_its_timeout_the_202_again);

fn a_webhook_that_cannot_be_reached_never_got_it(engine: Engine) {
    // A port that was free a moment ago: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = TestServer::with_config_on(engine, &config(&format!("http://127.0.0.1:{port}/x")));
    s.post_json("hooked", Some("k-down"), BODY).problem(502);
    assert_eq!(state(&s), "failed");
}
both!(a_webhook_that_cannot_be_reached_never_got_it);

// What the log says does not depend on the engine: SQLite only.
#[test]
fn the_log_says_each_outcome_in_plain_words() {
    let (url, _) = webhook(vec![Hook::Answer(500), Hook::Stall(Duration::from_secs(2))]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forms.toml");
    std::fs::write(&path, config(&url)).unwrap();
    let db = dir.path().join("r.db");
    let (mut serving, addr) = crate::support::Serving::start(db.to_str().unwrap(), &path);
    let post = |key: &str| {
        crate::support::agent()
            .post(format!("http://{addr}/f/hooked"))
            .header("content-type", "application/json")
            .header("idempotency-key", format!("\"{key}\""))
            .send(BODY)
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(post("k-1"), 502);
    assert_eq!(post("k-2"), 202);
    unsafe {
        libc::kill(serving.child.id() as i32, libc::SIGTERM);
    }
    assert!(serving.child.wait().unwrap().success());
    let log = serving.log_after_exit();
    assert!(
        log.contains("hooked: receipt 2 stays in flight: the action did not answer within 400 ms"),
        "{log}"
    );
    assert!(
        log.contains(
            "hooked: receipt 1 failed: the action answered 500; its key is free for a retry"
        ),
        "{log}"
    );
    assert!(!log.contains("timeout: global"), "{log}");
    assert!(!log.contains("ada@example.org"), "no visitor data: {log}");
}
