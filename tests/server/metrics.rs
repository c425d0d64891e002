//! `GET /metrics` on its own listener: what known traffic counts, nothing on the public port,
//! and no visitor's text in a label.

use crate::support::{TestServer, agent};

const WITH_METRICS: &str = r#"
[server]
listen = "127.0.0.1:0"
metrics = "127.0.0.1:0"
rate = "2/min"

[forms.contact]
scope = "acme.example/contact"
fields = { email = 254, message = 500 }
required = ["email", "message"]
window = "10m"
"#;

/// The metrics' text, scraped as Prometheus does.
fn scrape(server: &TestServer) -> String {
    let addr = server.running.as_ref().unwrap().metrics_addr().unwrap();
    let mut reply = agent()
        .get(format!("http://{addr}/metrics"))
        .call()
        .expect("an answer");
    assert_eq!(reply.status().as_u16(), 200);
    let content_type = reply
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    reply.body_mut().read_to_string().unwrap()
}

/// The value of the sample named `name` with exactly these labels.
fn sample(text: &str, name: &str, labels: &str) -> Option<f64> {
    let prefix = if labels.is_empty() {
        format!("{name} ")
    } else {
        format!("{name}{{{labels}}} ")
    };
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .and_then(|v| v.parse().ok())
}

/// The contact form's submissions counted with this outcome and status.
fn submissions(text: &str, outcome: &str, status: u16) -> Option<f64> {
    let labels = format!(r#"form="contact",outcome="{outcome}",status="{status}""#);
    sample(text, "receipt_review_submissions_total", &labels)
}

#[test]
fn a_scrape_after_known_traffic_counts_it() {
    let s = TestServer::with_config(WITH_METRICS);
    let body = |m: &str| format!(r#"{{"email":"ada@example.org","message":"{m}"}}"#);
    // A new receipt and its replay; then the rate limit (two a minute) refuses a third post.
    assert_eq!(
        s.post_json("contact", Some("k1"), &body("hello there"))
            .status,
        201
    );
    assert_eq!(
        s.post_json("contact", Some("k1"), &body("hello there"))
            .status,
        201
    );
    let text = scrape(&s);
    assert_eq!(submissions(&text, "new", 201), Some(1.0), "{text}");
    assert_eq!(submissions(&text, "replay", 201), Some(1.0), "{text}");
    assert_eq!(
        s.post_json("contact", Some("k1"), &body("changed")).status,
        429
    );
    assert_eq!(s.post_json("nope", None, &body("x")).status, 404);

    let text = scrape(&s);
    assert_eq!(
        sample(
            &text,
            "receipt_review_rate_limited_total",
            r#"form="contact""#
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(submissions(&text, "refused", 429), Some(1.0), "{text}");
    // The writer committed the two posts (in one or two batches).
    let batches = sample(&text, "receipt_review_writer_batch_size_count", "").unwrap_or(0.0);
    let batched = sample(&text, "receipt_review_writer_batch_size_sum", "").unwrap_or(0.0);
    assert!((1.0..=2.0).contains(&batches) && batched == 2.0, "{text}");
    assert!(text.contains("receipt_review_writer_commit_duration_seconds_count"));
    // Every request timed by its route's pattern; an unknown form is no label of its own.
    assert_eq!(
        sample(
            &text,
            "receipt_review_request_duration_seconds_count",
            r#"method="POST",route="/f/{form}""#
        ),
        Some(4.0),
        "{text}"
    );
    assert!(!text.contains("nope"), "{text}");
    assert!(!text.contains("hello there") && !text.contains("ada@example.org"));
    assert_eq!(
        sample(&text, "receipt_review_actions_running", ""),
        Some(0.0)
    );

    // The public port has no metrics.
    assert_eq!(s.get("/metrics").status, 404);
}

#[test]
fn outcomes_are_counted_by_what_the_server_made_of_them() {
    let s = TestServer::with_config(&WITH_METRICS.replace("2/min", "off"));
    let body = |m: &str| format!(r#"{{"email":"ada@example.org","message":"{m}"}}"#);
    assert_eq!(
        s.post_json("contact", Some("k1"), &body("first")).status,
        201
    );
    // The same key with other fields: a conflict, answered 422.
    assert_eq!(
        s.post_json("contact", Some("k1"), &body("changed")).status,
        422
    );
    // The same fields without a key, within the window: absorbed.
    assert_eq!(s.post_json("contact", None, &body("first")).status, 201);
    assert_eq!(
        s.post_json("contact", None, r#"{"message":"no email"}"#)
            .status,
        422
    );
    let text = scrape(&s);
    for (outcome, status) in [
        ("new", 201),
        ("conflict", 422),
        ("absorbed", 201),
        ("refused", 422),
    ] {
        assert_eq!(
            submissions(&text, outcome, status),
            Some(1.0),
            "{outcome} {status}: {text}"
        );
    }
    assert_eq!(
        s.counts(),
        [1, 1, 0, 1],
        "receipts, conflicts, replays, absorbed"
    );
}

#[test]
fn metrics_on_the_public_address_are_refused() {
    let config =
        "[server]\nlisten = \"127.0.0.1:8080\"\nmetrics = \"127.0.0.1:8080\"\n\n[forms.contact]\n";
    let err = receipt_review::server::Config::parse(config, "forms.toml").unwrap_err();
    assert!(err.to_string().contains("[server] metrics"), "{err}");
    assert!(err.to_string().contains("public"), "{err}");
}
