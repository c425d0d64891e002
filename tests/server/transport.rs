//! The connection itself: bodies and heads too large for it, connections
//! left idle, and how SIGTERM ends the ones still open.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::{BODY, CONFIG, Serving, TestServer, raw, read_until_closed};

/// The test config with a body timeout far longer than any bound below, so
/// that an answer that waits for the body to time out cannot pass.
fn patient() -> String {
    CONFIG.replace("body_timeout = \"1s\"", "body_timeout = \"60s\"")
}

fn head_of(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.split("\r\n\r\n")
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

#[test]
fn a_declared_body_over_the_limit_is_413_before_it_is_sent() {
    let s = TestServer::with_config(&patient());
    let t0 = Instant::now();
    // Only the head: the server must not wait for the megabyte it announces.
    let mut stream = raw(
        &s,
        b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n",
    );
    let (bytes, closed) = read_until_closed(&mut stream, Duration::from_secs(10));
    let head = head_of(&bytes);
    assert!(
        head.starts_with("http/1.1 413"),
        "{head:?} after {:?}",
        t0.elapsed()
    );
    assert!(head.contains("connection: close"), "{head}");
    assert!(head.contains("application/problem+json"), "{head}");
    assert!(String::from_utf8_lossy(&bytes).contains("4096"));
    assert!(closed, "the connection ends after the 413");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_eq!(s.counts(), [0, 0, 0, 0]);
    assert_eq!(s.post_json("contact", None, BODY).status, 201);
}

#[test]
fn a_chunked_body_over_the_limit_is_413_once_the_limit_is_passed() {
    let s = TestServer::with_config(&patient());
    let mut stream = raw(
        &s,
        b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    // 8 KiB against a 4 KiB limit, and then the client stalls, the body unfinished.
    write!(stream, "2000\r\n").unwrap();
    stream.write_all(&[b' '; 0x2000]).unwrap();
    stream.write_all(b"\r\n").unwrap();
    let (bytes, closed) = read_until_closed(&mut stream, Duration::from_secs(10));
    let head = head_of(&bytes);
    assert!(head.starts_with("http/1.1 413"), "{head:?}");
    assert!(head.contains("connection: close"), "{head}");
    assert!(closed, "the connection ends after the 413");
    assert_eq!(s.counts(), [0, 0, 0, 0]);
}

#[test]
fn a_client_sending_its_whole_oversized_body_still_reads_the_413() {
    let s = TestServer::with_config(&patient());
    // As a plain client does: the whole body first, then the answer. The
    // server has answered long before the last byte is written; 800 KiB is
    // more than the sockets' buffers take at once, and less than the server
    // throws away before it closes regardless (1 MiB here).
    let body = vec![b' '; 800 * 1024];
    for _ in 0..5 {
        let r = s.post(
            "/f/contact",
            &[("content-type", "application/json".to_string())],
            &body,
        );
        r.problem(413);
        assert_eq!(r.header("connection"), Some("close"));
    }
    assert_eq!(s.counts(), [0, 0, 0, 0]);
}

#[test]
fn a_head_over_64_kib_is_431_and_the_connection_ends() {
    let s = TestServer::start();
    let mut request = b"GET /healthz HTTP/1.1\r\nHost: t\r\n".to_vec();
    for i in 0..70 {
        request.extend_from_slice(format!("X-Pad-{i}: {}\r\n", "a".repeat(1000)).as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    let mut stream = raw(&s, &request);
    let (bytes, closed) = read_until_closed(&mut stream, Duration::from_secs(10));
    let head = head_of(&bytes);
    assert!(head.starts_with("http/1.1 431"), "{head:?}");
    assert!(closed, "the connection ends after the 431");
    // A head within the cap is served.
    let mut request = b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n".to_vec();
    for i in 0..40 {
        request.extend_from_slice(format!("X-Pad-{i}: {}\r\n", "a".repeat(1000)).as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    let mut stream = raw(&s, &request);
    let (bytes, _) = read_until_closed(&mut stream, Duration::from_secs(10));
    assert!(
        head_of(&bytes).starts_with("http/1.1 200"),
        "{}",
        head_of(&bytes)
    );
}

/// Reads until `wanted` has arrived (or the connection ends).
fn read_through(stream: &mut TcpStream, wanted: &str) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !String::from_utf8_lossy(&seen).contains(wanted) {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// How long until the server closes `stream`; `None` if it is still open
/// after `limit`.
fn closed_after(stream: &mut TcpStream, since: Instant, limit: Duration) -> Option<Duration> {
    let (bytes, closed) = read_until_closed(stream, limit);
    assert!(bytes.is_empty(), "{}", String::from_utf8_lossy(&bytes));
    closed.then(|| since.elapsed())
}

#[test]
fn idle_connections_are_closed_after_the_header_timeout() {
    let s = TestServer::start();
    // Kept alive: two requests on one connection, then nothing.
    let mut stream = raw(&s, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
    assert!(read_through(&mut stream, "ok\n").starts_with("HTTP/1.1 200"));
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    assert!(read_through(&mut stream, "ok\n").starts_with("HTTP/1.1 200"));
    let idle = Instant::now();
    let took = closed_after(&mut stream, idle, Duration::from_secs(8));
    let took = took.expect("an idle kept-alive connection is still open after 8s");
    assert!(
        took >= Duration::from_millis(900),
        "closed too early: {took:?}"
    );
    // A connection that never sends a byte.
    let opened = Instant::now();
    let mut silent = TcpStream::connect(s.addr()).unwrap();
    let took = closed_after(&mut silent, opened, Duration::from_secs(8));
    let took = took.expect("a silent connection is still open after 8s");
    assert!(
        took >= Duration::from_millis(900),
        "closed too early: {took:?}"
    );
}

#[test]
fn sigterm_cuts_an_upload_still_arriving_after_the_grace_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forms.toml");
    // The upload would be allowed minutes; the grace is 2 s.
    std::fs::write(
        &config,
        "[server]\nlisten = \"127.0.0.1:0\"\nrate = \"off\"\nbody_timeout = \"60s\"\nrequest_timeout = \"5m\"\nshutdown_grace = \"2s\"\n[forms.contact]\nfields = { email = 100, message = 5000 }\nwindow = \"0s\"\n",
    )
    .unwrap();
    let db = dir.path().join("r.db");
    let (mut child, addr) = Serving::start(db.to_str().unwrap(), &config);
    let url = format!("http://{addr}/f/contact");
    let done = crate::support::agent()
        .post(&url)
        .header("content-type", "application/json")
        .send(BODY)
        .unwrap();
    assert_eq!(done.status(), 201);
    // A body of 4000 bytes, one arriving every 50 ms: about 200 s in all.
    let mut upload = TcpStream::connect(&addr).unwrap();
    upload
        .write_all(b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"email\": \"slow@example.org\", \"message\": \"")
        .unwrap();
    let mut trickle = upload.try_clone().unwrap();
    let dripping = std::thread::spawn(move || {
        for _ in 0..1000 {
            if trickle.write_all(b"x").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    let signalled = Instant::now();
    unsafe {
        libc::kill(child.child.id() as i32, libc::SIGTERM);
    }
    let mut status = None;
    while signalled.elapsed() < Duration::from_secs(20) {
        if let Some(s) = child.child.try_wait().unwrap() {
            status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = signalled.elapsed();
    let status = status.unwrap_or_else(|| panic!("still running {took:?} after SIGTERM"));
    assert!(status.success(), "{status:?}");
    assert!(
        took < Duration::from_secs(12),
        "grace 2 s, exited after {took:?}"
    );
    assert!(
        took >= Duration::from_millis(1500),
        "the upload in progress is given its grace: exited after {took:?}"
    );
    let (answer, closed) = read_until_closed(&mut upload, Duration::from_secs(5));
    assert!(closed, "the cut upload's connection is closed");
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    dripping.join().unwrap();
    let log = child.log_after_exit();
    assert!(log.contains("stopped"), "{log}");
    let receipts: Vec<String> = rusqlite::Connection::open(&db)
        .unwrap()
        .prepare("SELECT payload FROM receipts")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(receipts.len(), 1, "only the finished post: {receipts:?}");
    assert!(receipts[0].contains("Ada Lovelace"), "{receipts:?}");
}
