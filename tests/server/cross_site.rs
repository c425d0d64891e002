//! Posts a browser makes for another site's page: refused (403, nothing
//! stored) when the form lists the origins it takes posts from; the
//! listed origins and the server's own form page still post.

use crate::support::{BODY, CONFIG, Reply, TestServer};

fn post_from(s: &TestServer, form: &str, headers: &[(&str, &str)]) -> Reply {
    let mut all = vec![("content-type", "application/json".to_string())];
    all.extend(headers.iter().map(|(n, v)| (*n, v.to_string())));
    s.post(&format!("/f/{form}"), &all, BODY.as_bytes())
}

#[test]
fn a_post_from_an_unlisted_origin_is_403_and_stores_nothing() {
    let s = TestServer::start();
    for origin in [
        "https://evil.example",
        // A page the browser will not name (a sandboxed frame, a file).
        "null",
        // A listed host under another scheme is another origin.
        "http://acme.example",
        "https://acme.example.evil.example",
    ] {
        let r = post_from(&s, "contact", &[("origin", origin)]);
        let v = r.problem(403);
        assert_eq!(v["title"], "Sent from another site", "{origin}");
    }
    let r = post_from(
        &s,
        "contact",
        &[
            ("origin", "https://evil.example"),
            ("accept-language", "ja"),
        ],
    );
    let v = r.problem(403);
    assert_eq!(v["title"], "他のサイトからの送信は受け付けていません");
    assert_eq!(
        v["detail"],
        "このフォームへの送信は、フォームを設置しているサイトのページからのみ受け付けています。何も保存していません。"
    );
    assert_eq!(r.header("content-language"), Some("ja"));
    assert_eq!(s.counts(), [0, 0, 0, 0]);
}

#[test]
fn a_cross_site_request_without_an_origin_is_403() {
    let s = TestServer::start();
    post_from(&s, "contact", &[("sec-fetch-site", "cross-site")]).problem(403);
    assert_eq!(s.counts(), [0, 0, 0, 0]);
    // The same site's own pages, and clients that say nothing, still post.
    for site in ["same-origin", "same-site", "none"] {
        let r = post_from(&s, "contact", &[("sec-fetch-site", site)]);
        assert_eq!(r.status, 201, "{site}: {}", r.body);
    }
    assert_eq!(post_from(&s, "contact", &[]).status, 201);
    assert_eq!(s.count("receipts"), 4);
}

#[test]
fn the_listed_origin_and_the_servers_own_page_post_and_no_other() {
    let s = TestServer::start();
    let listed = post_from(&s, "contact", &[("origin", "https://acme.example")]);
    assert_eq!(listed.status, 201, "{}", listed.body);
    // The form page the server itself serves: the browser names the
    // server's own origin, whose authority is the request's Host.
    let own = post_from(&s, "contact", &[("origin", &s.url)]);
    assert_eq!(own.status, 201, "{}", own.body);
    // Its plain (no script) post, as a browser sends it.
    let plain = s.post(
        "/f/contact",
        &[
            (
                "content-type",
                "application/x-www-form-urlencoded".to_string(),
            ),
            ("accept", "text/html".to_string()),
            ("origin", s.url.clone()),
            ("sec-fetch-site", "same-origin".to_string()),
        ],
        b"email=hanako%40example.jp&message=%E8%A6%8B%E7%A9%8D%E3%82%82%E3%82%8A",
    );
    assert_eq!(plain.status, 303, "{}", plain.body);
    let evil = post_from(&s, "contact", &[("origin", "https://evil.example")]);
    evil.problem(403);
    assert_eq!(s.count("receipts"), 3);
}

#[test]
fn a_form_without_origins_takes_posts_from_anywhere() {
    let s = TestServer::start();
    // `copies` lists no origins; `contact` does.
    for headers in [
        &[("origin", "https://evil.example")][..],
        &[("sec-fetch-site", "cross-site")][..],
        &[("origin", "null")][..],
    ] {
        let r = post_from(&s, "copies", headers);
        assert!(r.status == 201, "{headers:?}: {}", r.body);
        post_from(&s, "contact", headers).problem(403);
    }
    // (copies absorbs the later exact copies: one receipt.)
    assert_eq!(s.count("receipts"), 1);
    assert_eq!(s.count("absorbed"), 2);
}

#[test]
fn a_refused_cross_site_post_costs_the_visitor_nothing() {
    let config = CONFIG.replace("rate = \"off\"", "rate = \"2/min\"");
    let s = TestServer::with_config(&config);
    for _ in 0..5 {
        post_from(&s, "contact", &[("origin", "https://evil.example")]).problem(403);
    }
    // Same client address: its bucket is still full.
    for _ in 0..2 {
        let r = post_from(&s, "contact", &[("origin", "https://acme.example")]);
        assert_eq!(r.status, 201, "{}", r.body);
    }
    post_from(&s, "contact", &[("origin", "https://acme.example")]).problem(429);
}
