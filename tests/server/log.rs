//! `serve`'s log: one event per request as JSON or text, with the form, status, receipt,
//! latency and client, and never a field's value; `RUST_LOG` filters it.

use std::path::{Path, PathBuf};

use crate::support::{Serving, agent};

const BODY: &str = r#"{"email": "SECRET@example.org", "message": "SECRET text"}"#;

fn config(dir: &Path) -> PathBuf {
    let config = dir.join("forms.toml");
    std::fs::write(
        &config,
        "[server]\nlisten = \"127.0.0.1:0\"\n[forms.contact]\nfields = { email = 100, message = 100 }\nrequired = [\"message\"]\n",
    )
    .unwrap();
    config
}

/// Serves with these arguments and environment, posts a good submission and a refused one
/// to `contact` and one to a form that does not exist, stops, and returns the whole log.
fn log_of(args: &[&str], env: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let (mut serving, addr) =
        Serving::start_with(db.to_str().unwrap(), &config(dir.path()), args, env);
    let post = |path: &str, body: &str| {
        agent()
            .post(format!("http://{addr}{path}"))
            .header("content-type", "application/json")
            .send(body)
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(post("/f/contact", BODY), 201);
    assert_eq!(
        post("/f/contact", r#"{"email": "SECRET@example.org"}"#),
        422
    );
    assert_eq!(post("/f/SECRET-form", BODY), 404);
    unsafe {
        libc::kill(serving.child.id() as i32, libc::SIGTERM);
    }
    assert!(serving.child.wait().unwrap().success());
    let log = serving.log_after_exit();
    assert!(!log.contains("SECRET"), "no visitor's text: {log}");
    log
}

#[test]
fn json_log_lines_parse_and_carry_each_request() {
    let log = log_of(&["--log-format", "json"], &[]);
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let requests: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["message"] == "request")
        .collect();
    assert_eq!(requests.len(), 3, "{log}");
    let first = requests[0];
    assert_eq!(first["level"], "INFO");
    assert_eq!(first["form"], "contact");
    assert_eq!(first["status"], 201);
    assert_eq!(first["receipt"], 1);
    assert_eq!(first["route"], "/f/{form}");
    assert_eq!(first["client"], "127.0.0.1");
    assert!(first["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
    assert!(first["timestamp"].is_string());
    assert_eq!(
        (requests[1]["status"].as_u64(), requests[1].get("receipt")),
        (Some(422), None)
    );
    // A form the config does not have is not named.
    assert_eq!(requests[2]["status"], 404);
    assert!(requests[2].get("form").is_none(), "{}", requests[2]);
    assert!(events.iter().any(|e| {
        e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("listening on"))
    }));
    assert!(
        events.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("stopped"))),
        "{log}"
    );
}

#[test]
fn the_text_log_is_a_line_an_event_and_rust_log_filters_it() {
    let log = log_of(&["--log-format", "text"], &[]);
    assert!(log.lines().all(|l| !l.starts_with('{')), "{log}");
    let requests: Vec<&str> = log.lines().filter(|l| l.contains(" request ")).collect();
    assert_eq!(requests.len(), 3, "{log}");
    assert!(
        requests[0].contains("form=\"contact\"") || requests[0].contains("form=contact"),
        "{log}"
    );
    assert!(requests[0].contains("status=201"), "{log}");

    let quiet = log_of(
        &["--log-format", "json"],
        &[("RUST_LOG", "info,receipt_review::request=off")],
    );
    assert!(!quiet.contains("\"request\""), "{quiet}");
    assert!(quiet.contains("listening on"), "{quiet}");
}

#[test]
fn a_bad_rust_log_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = crate::common::bin()
        .args([
            "serve",
            db.to_str().unwrap(),
            "--config",
            config(dir.path()).to_str().unwrap(),
        ])
        .env("RUST_LOG", "receipt_review=loudest")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("RUST_LOG"), "{stderr}");
    assert!(!db.exists(), "nothing written");
}
