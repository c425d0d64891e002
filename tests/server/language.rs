//! Refusals and pages in the language the request asks for
//! (`Accept-Language`), else the server's (English in tests).

use receipt_review::i18n::{self, Lang};

use crate::support::{TestServer, agent};

fn text(lang: Lang, key: &str) -> &'static str {
    i18n::text(lang, key)
}

/// POSTs `body` to `path` with these headers; status, Content-Language, body.
fn post(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, serde_json::Value) {
    let mut all: Vec<(&str, String)> = headers.iter().map(|(n, v)| (*n, v.to_string())).collect();
    all.push(("accept", "application/json".into()));
    let reply = server.post(path, &all, body);
    let language = reply.header("content-language").unwrap_or("").to_string();
    let status = reply.status;
    (status, language, reply.problem(status))
}

#[test]
fn a_refusal_is_said_in_the_language_asked_for() {
    let server = TestServer::start();
    let body = br#"{"email":"a@example.jp"}"#;
    let json = ("content-type", "application/json");
    let (status, language, ja) = post(
        &server,
        "/f/strict",
        &[json, ("accept-language", "ja-JP,ja;q=0.9,en;q=0.8")],
        body,
    );
    assert_eq!((status, language.as_str()), (400, "ja"));
    assert_eq!(
        ja["title"],
        text(Lang::Ja, "server.problem.key_required.title")
    );
    assert_eq!(
        ja["detail"],
        text(Lang::Ja, "server.problem.key_required.detail")
    );
    let (_, language, en) = post(
        &server,
        "/f/strict",
        &[json, ("accept-language", "en-GB")],
        body,
    );
    assert_eq!(language, "en");
    assert_eq!(en["title"], "Idempotency key required");
    let (_, language, plain) = post(&server, "/f/strict", &[json], body);
    assert_eq!(language, "en", "no Accept-Language: the server's language");
    assert_eq!(plain, en);
    assert_eq!(server.count("receipts"), 0);
}

#[test]
fn every_kind_of_refusal_has_its_japanese_words() {
    let server = TestServer::start();
    let ja = ("accept-language", "ja");
    let json = ("content-type", "application/json");
    // 404 unknown form, 415, 413, 422 naming the field, 409 is in the protocol tests.
    let (s, _, p) = post(&server, "/f/nope", &[json, ja], b"{}");
    assert_eq!(
        (s, p["title"].as_str()),
        (
            404,
            Some(text(Lang::Ja, "server.problem.unknown_form.title"))
        )
    );
    let (s, _, p) = post(
        &server,
        "/f/contact",
        &[("content-type", "text/plain"), ja],
        b"x",
    );
    assert_eq!(
        (s, p["title"].as_str()),
        (415, Some(text(Lang::Ja, "server.problem.media_type.title")))
    );
    let big = format!(
        r#"{{"email":"a@example.jp","message":"{}"}}"#,
        "あ".repeat(3000)
    );
    let (s, _, p) = post(&server, "/f/contact", &[json, ja], big.as_bytes());
    assert_eq!(s, 413);
    assert_eq!(
        p["detail"],
        i18n::fill(
            Lang::Ja,
            "server.problem.too_large.detail",
            &[("limit", &4096)]
        )
    );
    let long = format!(
        r#"{{"email":"a@example.jp","message":"{}"}}"#,
        "x".repeat(600)
    );
    let (s, _, p) = post(&server, "/f/contact", &[json, ja], long.as_bytes());
    assert_eq!(s, 422);
    assert_eq!(p["title"], "入力が長すぎます");
    assert_eq!(p["fields"], serde_json::json!(["message"]));
    assert!(p["detail"].as_str().unwrap().contains("message"), "{p}");
    let (s, _, p) = post(
        &server,
        "/f/contact",
        &[json, ja],
        br#"{"email":"a@example.jp","message":"#,
    );
    assert_eq!(s, 400);
    assert_eq!(
        p["title"],
        text(Lang::Ja, "server.problem.invalid_body.title")
    );
    // A bare 405 from the router becomes a Japanese problem too.
    let reply = agent()
        .delete(format!("{}/f/contact", server.url))
        .header("accept-language", "ja")
        .call()
        .unwrap();
    assert_eq!(reply.status().as_u16(), 405);
    assert_eq!(reply.headers().get("content-language").unwrap(), "ja");
    let v: serde_json::Value =
        serde_json::from_str(&reply.into_body().read_to_string().unwrap()).unwrap();
    assert_eq!(v["title"], text(Lang::Ja, "server.problem.method.title"));
    assert_eq!(server.count("receipts"), 0);
}

#[test]
fn the_form_page_speaks_the_visitors_language() {
    let server = TestServer::start();
    let get = |lang: &str| {
        let mut reply = agent()
            .get(format!("{}/f/contact", server.url))
            .header("accept-language", lang)
            .call()
            .unwrap();
        let language = reply
            .headers()
            .get("content-language")
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        (language, reply.body_mut().read_to_string().unwrap())
    };
    let (language, ja) = get("ja");
    assert_eq!(language, "ja");
    assert!(ja.contains("<html lang=\"ja\">"));
    assert!(ja.contains(text(Lang::Ja, "page.submit")));
    let (language, en) = get("en-US,en;q=0.9");
    assert_eq!(language, "en");
    assert!(en.contains("<html lang=\"en\">"));
}
