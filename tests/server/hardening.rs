//! The rate limit, slow clients, CORS.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::support::{BODY, CONFIG, TestServer, raw, read_until_closed};

#[test]
fn too_many_submissions_from_one_address_are_429_with_retry_after() {
    let config = CONFIG.replace("rate = \"off\"", "rate = \"2/min\"");
    let s = TestServer::with_config(&config);
    assert_eq!(s.post_json("contact", None, BODY).status, 201);
    assert_eq!(s.post_json("contact", None, BODY).status, 201);
    let r = s.post_json("contact", None, BODY);
    r.problem(429);
    let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=30).contains(&wait), "{wait}");
    assert_eq!(s.count("receipts"), 2, "the refused one is not stored");
    // Per form: another form of the same address is not limited by it.
    assert_eq!(s.post_json("copies", None, BODY).status, 201);
}

#[test]
fn a_client_that_stalls_in_its_headers_is_dropped() {
    let s = TestServer::start();
    let t0 = Instant::now();
    let mut stream = raw(
        &s,
        b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: appl",
    );
    // A loaded machine only closes it later: the lower bound is the
    // property (not before header_timeout); the upper one says it closes.
    let (bytes, closed) = read_until_closed(&mut stream, Duration::from_secs(10));
    let took = t0.elapsed();
    assert!(closed, "still open after {took:?}");
    assert!(
        took >= Duration::from_millis(900),
        "closed too early: {took:?}"
    );
    assert!(bytes.is_empty() || String::from_utf8_lossy(&bytes).starts_with("HTTP/1.1 4"));
    // Dripping a byte at a time does not keep a connection either.
    let t0 = Instant::now();
    let mut stream = raw(&s, b"P");
    let mut closed = false;
    for b in b"OST /f/contact HTTP/1.1\r\nHost: t\r\nX-Slow: "
        .iter()
        .cycle()
        .take(100)
    {
        std::thread::sleep(Duration::from_millis(100));
        if stream.write_all(&[*b]).is_err() {
            closed = true;
            break;
        }
        let (_, c) = read_until_closed(&mut stream, Duration::from_millis(1));
        if c {
            closed = true;
            break;
        }
    }
    assert!(
        closed,
        "a dripping client still connected after {:?}",
        t0.elapsed()
    );
    assert_eq!(
        s.post_json("contact", None, BODY).status,
        201,
        "the server is still up"
    );
}

#[test]
fn a_body_that_stops_arriving_is_408_and_nothing_is_stored() {
    let s = TestServer::start();
    let t0 = Instant::now();
    let mut stream = raw(
        &s,
        b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\": ",
    );
    let (bytes, _) = read_until_closed(&mut stream, Duration::from_secs(10));
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("application/problem+json"), "{text}");
    assert!(
        t0.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(s.counts(), [0, 0, 0, 0]);
}

#[test]
fn cors_lets_only_the_forms_own_origins_in() {
    let s = TestServer::start();
    let preflight = |origin: &str, path: &str| {
        crate::support::Reply::from(
            crate::support::agent()
                .options(format!("{}{path}", s.url))
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header(
                    "access-control-request-headers",
                    "content-type,idempotency-key",
                )
                .call()
                .unwrap(),
        )
    };
    let ok = preflight("https://acme.example", "/f/contact");
    assert_eq!(
        ok.header("access-control-allow-origin"),
        Some("https://acme.example")
    );
    let allowed = ok
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("idempotency-key"), "{allowed}");
    let evil = preflight("https://evil.example", "/f/contact");
    assert_eq!(evil.header("access-control-allow-origin"), None);
    let other_form = preflight("https://acme.example", "/f/strict");
    assert_eq!(
        other_form.header("access-control-allow-origin"),
        None,
        "origins are per form"
    );
    // A real post from the page's origin can read the replay header.
    let r = s.post(
        "/f/contact",
        &[
            ("content-type", "application/json".to_string()),
            ("origin", "https://acme.example".to_string()),
        ],
        BODY.as_bytes(),
    );
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://acme.example")
    );
    let exposed = r
        .header("access-control-expose-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("idempotent-replayed"), "{exposed}");
}
