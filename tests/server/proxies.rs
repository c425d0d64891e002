//! Behind a proxy: from a `trusted_proxies` address the client is the one
//! `X-Forwarded-For` or `Forwarded` names, each with a rate-limit bucket of
//! its own; from any other address those headers change nothing.

use crate::support::{BODY, CONFIG, Reply, TestServer};

/// The tests' config, two posts a minute per client, with `[server]`'s
/// `trusted_proxies` set to `trusted`.
fn config(trusted: &str) -> String {
    CONFIG.replace(
        "rate = \"off\"",
        &format!("rate = \"2/min\"\ntrusted_proxies = {trusted}"),
    )
}

fn post_as(s: &TestServer, headers: &[(&str, &str)]) -> Reply {
    let mut all = vec![("content-type", "application/json".to_string())];
    all.extend(headers.iter().map(|(n, v)| (*n, v.to_string())));
    s.post("/f/contact", &all, BODY.as_bytes())
}

/// Posts until the client's bucket is empty: two 201, then 429.
#[track_caller]
fn use_up(s: &TestServer, headers: &[(&str, &str)]) {
    for _ in 0..2 {
        let r = post_as(s, headers);
        assert_eq!(r.status, 201, "{headers:?}: {}", r.body);
    }
    post_as(s, headers).problem(429);
}

#[test]
fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_bucket() {
    let s = TestServer::with_config(&config(r#"["127.0.0.1", "10.0.0.0/8"]"#));
    use_up(&s, &[("x-forwarded-for", "203.0.113.7")]);
    // Another visitor behind the same proxy is not locked out by the first.
    let r = post_as(&s, &[("x-forwarded-for", "203.0.113.8")]);
    assert_eq!(r.status, 201, "{}", r.body);
    // The right-most address that is not a trusted proxy is the client,
    // whatever the client itself wrote to the left of it, and over every
    // line of the header.
    post_as(&s, &[("x-forwarded-for", "198.51.100.1, 203.0.113.7")]).problem(429);
    post_as(
        &s,
        &[
            ("x-forwarded-for", "203.0.113.7"),
            ("x-forwarded-for", "10.1.2.3"),
        ],
    )
    .problem(429);
    // Forwarded (RFC 7239) is read the same way.
    use_up(&s, &[("forwarded", r#"for="[2001:db8:cafe::17]:4711""#)]);
    post_as(
        &s,
        &[(
            "forwarded",
            r#"for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]";by=10.0.0.9, for=10.0.0.8"#,
        )],
    )
    .problem(429);
    assert_eq!(s.count("receipts"), 5);
}

#[test]
fn a_forwarded_header_from_an_untrusted_address_is_ignored() {
    // The test's client is 127.0.0.1, which is not trusted here.
    let s = TestServer::with_config(&config(r#"["10.0.0.0/8", "::1/128"]"#));
    for client in ["203.0.113.7", "203.0.113.8"] {
        let r = post_as(&s, &[("x-forwarded-for", client)]);
        assert_eq!(r.status, 201, "{}", r.body);
    }
    // Every spoofed client shares the socket's bucket, now empty.
    post_as(&s, &[("x-forwarded-for", "203.0.113.9")]).problem(429);
    post_as(&s, &[("forwarded", "for=198.51.100.4")]).problem(429);
    post_as(&s, &[]).problem(429);
    assert_eq!(s.count("receipts"), 2);
}

#[test]
fn an_unreadable_forwarded_header_counts_as_the_proxy() {
    let s = TestServer::with_config(&config(r#"["127.0.0.1"]"#));
    let garbage = [
        ("x-forwarded-for", "not an address"),
        ("forwarded", "for=\"[::1"),
    ];
    // Each is answered, and both are counted against the proxy's own bucket.
    for header in garbage {
        let r = post_as(&s, &[header]);
        assert_eq!(r.status, 201, "{header:?}: {}", r.body);
    }
    post_as(&s, &[]).problem(429);
    // A readable one still names its own client.
    let r = post_as(&s, &[("x-forwarded-for", "203.0.113.7")]);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(s.count("receipts"), 3);
}
