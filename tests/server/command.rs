//! `receipt-review serve` as a user runs it: a bad config, and SIGTERM in
//! the middle of a request.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use crate::common::run;
use crate::support::{Serving, read_until_closed};

#[test]
fn a_bad_config_is_one_line_naming_the_key_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forms.toml");
    std::fs::write(&config, "[forms.contact]\nwindow = \"ten minutes\"\n").unwrap();
    let db = dir.path().join("r.db");
    let out = run(&[
        "serve",
        db.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("[forms.contact] window"), "{stderr}");
    assert!(
        !db.exists(),
        "nothing is created for a config that cannot be used"
    );
    let out = run(&[
        "serve",
        db.to_str().unwrap(),
        "--config",
        "/no/such/forms.toml",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn sigterm_finishes_the_request_in_progress_and_logs_no_payload() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forms.toml");
    std::fs::write(
        &config,
        "[server]\nlisten = \"127.0.0.1:0\"\n[forms.contact]\nfields = { email = 100, message = 100 }\nrequired = [\"message\"]\n",
    )
    .unwrap();
    let db = dir.path().join("r.db");
    let (mut child, addr) = Serving::start(db.to_str().unwrap(), &config);
    // A refused one and a good one, both with text that must stay out of the log.
    let mut bad = TcpStream::connect(&addr).unwrap();
    bad.write_all(b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 27\r\nConnection: close\r\n\r\n{\"email\": \"SECRET-1@x.y\"}\r\n").unwrap();
    let (answer, _) = read_until_closed(&mut bad, Duration::from_secs(5));
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 422"), "{answer}");
    let body = br#"{"email": "SECRET-2@x.y", "message": "hello"}"#;
    let mut stream = TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(&body[..10]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    unsafe {
        libc::kill(child.child.id() as i32, libc::SIGTERM);
    }
    std::thread::sleep(Duration::from_millis(300));
    stream.write_all(&body[10..]).unwrap();
    let (answer, _) = read_until_closed(&mut stream, Duration::from_secs(5));
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    assert!(
        answer.ends_with(r#"{"receipt":1,"state":"completed"}"#),
        "{answer}"
    );
    let status = child.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let log = child.log_after_exit();
    assert!(log.contains("stopped"), "{log}");
    assert!(!log.contains("SECRET"), "{log}");
    let n: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM receipts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
}
