//! The headers a page needs: the form and thank-you pages carry a
//! Content-Security-Policy that lets them work and nothing else, with the
//! form's `frame_ancestors`; every answer says `nosniff`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use receipt_review::server::page::STYLE;
use sha2::{Digest, Sha256};

use crate::support::{BODY, CONFIG, Reply, TestServer};

/// The policy of a page of a form whose frame ancestors are `ancestors`.
fn policy(ancestors: &str) -> String {
    let style = STANDARD.encode(Sha256::digest(STYLE.as_bytes()));
    format!(
        "default-src 'none'; script-src 'self'; style-src 'sha256-{style}'; \
         form-action 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors {ancestors}"
    )
}

/// The page's one `<style>` element, as served.
fn served_style(page: &Reply) -> &str {
    let start = page.body.find("<style>").expect("a <style>") + "<style>".len();
    let end = start + page.body[start..].find("</style>").unwrap();
    &page.body[start..end]
}

#[track_caller]
fn assert_page_headers(page: &Reply, ancestors: &str) {
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.header("content-type")
            .is_some_and(|t| t.starts_with("text/html")),
        "{:?}",
        page.headers
    );
    assert_eq!(
        page.header("content-security-policy"),
        Some(policy(ancestors).as_str())
    );
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("referrer-policy"), Some("same-origin"));
}

#[test]
fn both_pages_carry_a_policy_that_allows_only_what_they_use() {
    let s = TestServer::start();
    let form = s.get("/f/contact");
    assert_page_headers(&form, "'self'");
    // The hash allows the style the page really has, and it is its only one.
    assert_eq!(served_style(&form), STYLE);
    assert_eq!(form.body.matches("<style").count(), 1);
    assert!(!form.body.contains(" style="));
    assert!(
        form.body
            .contains("<script src=\"/intake.js\" defer></script>")
    );
    assert_eq!(form.body.matches("<script").count(), 1, "no inline script");
    let thanks = s.get("/f/contact/thanks?receipt=1");
    assert_page_headers(&thanks, "'self'");
    assert_eq!(served_style(&thanks), STYLE);
}

#[test]
fn a_form_names_the_sites_that_may_frame_it() {
    let config = CONFIG.replace(
        "origins = [\"https://acme.example\"]",
        "origins = [\"https://acme.example\"]\n\
         frame_ancestors = [\"https://acme.example\", \"'self'\", \"http://localhost:3000\"]",
    ) + "\n[forms.alone]\nframe_ancestors = []\n";
    let s = TestServer::with_config(&config);
    let embedded = "https://acme.example 'self' http://localhost:3000";
    assert_page_headers(&s.get("/f/contact"), embedded);
    assert_page_headers(&s.get("/f/contact/thanks"), embedded);
    // No list: its own pages only. An empty list: no page may frame it.
    assert_page_headers(&s.get("/f/strict"), "'self'");
    assert_page_headers(&s.get("/f/alone"), "'none'");
}

#[test]
fn every_other_answer_says_nosniff() {
    let s = TestServer::start();
    let json = s.post_json("contact", Some("k-1"), BODY);
    assert_eq!(json.status, 201);
    let replay = s.post_json("contact", Some("k-1"), BODY);
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    let conflict = s.post_json(
        "contact",
        Some("k-1"),
        r#"{"email": "a@b.c", "message": "x"}"#,
    );
    conflict.problem(422);
    let see_other = s.post(
        "/f/contact",
        &[
            (
                "content-type",
                "application/x-www-form-urlencoded".to_string(),
            ),
            ("accept", "text/html".to_string()),
        ],
        b"email=a%40b.c&message=hi",
    );
    assert_eq!(see_other.status, 303);
    let script = s.get("/intake.js");
    assert!(
        script
            .header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    let answers = [
        ("201", json),
        ("replayed 201", replay),
        ("422", conflict),
        ("303", see_other),
        ("/intake.js", script),
        ("/healthz", s.get("/healthz")),
        ("lookup", s.get("/f/contact/receipts/k-1")),
        ("unknown form", s.get("/f/nope")),
        ("unknown route", s.get("/nothing")),
    ];
    for (what, answer) in &answers {
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{what}: {:?}",
            answer.headers
        );
        // The policy is a page's: an answer that is not one has none.
        assert_eq!(answer.header("content-security-policy"), None, "{what}");
    }
}
