//! A plain HTML form's post (no script, `Accept: text/html`): every answer
//! is a page in the visitor's language, never JSON shown as text; the form
//! comes back as the visitor left it, its problems named by their labels.

use std::time::Duration;

use crate::action::{Hook, webhook};
use crate::support::{Reply, TestServer};

const CONFIG: &str = r#"
[server]
listen = "127.0.0.1:0"
body_limit = "4KiB"
rate = "off"

[forms.contact]
scope = "acme.example/contact"
title = "お問い合わせ"
fields = { name = 100, email = 254, order_no = 20, message = 500 }
labels = { order_no = "ご注文番号" }
required = ["email", "message"]
window = "0s"
"#;

fn hooked(url: &str) -> String {
    format!(
        "{CONFIG}\n[forms.hooked]\nfields = {{ email = 254, message = 500 }}\nwindow = \"0s\"\n\
         action = {{ webhook = \"{url}\", timeout = \"300ms\" }}\n"
    )
}

/// A browser's plain post of `body`, asking for Japanese.
fn post(s: &TestServer, form: &str, body: &str) -> Reply {
    s.post(
        &format!("/f/{form}"),
        &[
            (
                "content-type",
                "application/x-www-form-urlencoded".to_string(),
            ),
            ("accept", "text/html,application/xhtml+xml".to_string()),
            ("accept-language", "ja,en;q=0.5".to_string()),
        ],
        body.as_bytes(),
    )
}

fn page(r: &Reply, status: u16) -> &str {
    assert_eq!(r.status, status, "{}", r.body);
    assert_eq!(
        r.header("content-type"),
        Some("text/html; charset=utf-8"),
        "{}",
        r.body
    );
    assert_eq!(r.header("content-language"), Some("ja"));
    assert!(r.body.starts_with("<!DOCTYPE html>"), "{}", r.body);
    assert!(!r.body.contains("失敗"), "never 'failed': {}", r.body);
    &r.body
}

#[test]
fn a_missing_field_shows_the_form_again_as_typed_named_by_its_label() {
    let s = TestServer::with_config(CONFIG);
    let r = post(
        &s,
        "contact",
        "_key=page-1&name=%E5%B1%B1%E7%94%B0+%E8%8A%B1%E5%AD%90&email=hanako%40example.jp&order_no=A%3C1%3E&message=",
    );
    let html = page(&r, 422);
    assert!(html.contains("<title>お問い合わせ</title>"), "{html}");
    assert!(html.contains("<h1>お問い合わせ</h1>"), "{html}");
    assert!(
        html.contains("お問い合わせ内容を入力してください。"),
        "{html}"
    );
    assert!(
        !html.contains("message を入力"),
        "not the field key: {html}"
    );
    assert!(html.contains("まだ送信されていません。"), "{html}");
    // What the visitor typed is there to send again, escaped.
    assert!(html.contains(r#"value="山田 花子""#), "{html}");
    assert!(html.contains(r#"value="hanako@example.jp""#), "{html}");
    assert!(html.contains(r#"value="A&lt;1&gt;""#), "{html}");
    assert!(
        html.contains(">ご注文番号</label>"),
        "the configured label: {html}"
    );
    assert!(
        html.contains(r#"name="_key" value="page-1""#),
        "the same key: {html}"
    );
    assert!(html.contains(r#"aria-invalid="true""#), "{html}");
    assert_eq!(s.counts(), [0, 0, 0, 0]);
    // Too long, by label.
    let long = "x".repeat(21);
    let r = post(
        &s,
        "contact",
        &format!("email=a%40b.c&message=hi&order_no={long}"),
    );
    assert!(page(&r, 422).contains("ご注文番号は20文字以内で入力してください。"));
    assert_eq!(s.counts(), [0, 0, 0, 0]);
}

#[test]
fn other_refusals_are_pages_with_the_problems_words() {
    let s = TestServer::with_config(&CONFIG.replace("rate = \"off\"", "rate = \"2/min\""));
    let big = format!("email=a%40b.c&message={}", "x".repeat(5000));
    let html = page(&post(&s, "contact", &big), 413).to_string();
    assert!(
        html.contains("何も保存していません") || html.contains("保存"),
        "{html}"
    );
    assert!(html.contains("ブラウザの「戻る」"), "{html}");
    // The second allowed post, then the limit.
    assert_eq!(post(&s, "contact", "email=a%40b.c&message=hi").status, 303);
    let r = post(&s, "contact", "email=a%40b.c&message=hi");
    page(&r, 429);
    assert!(r.header("retry-after").is_some());
    assert_eq!(s.counts()[0], 1);
    // A script asking for JSON still gets problem+json.
    let r = s.post_json("contact", None, r#"{"email": "a@b.c", "message": "hi"}"#);
    r.problem(429);
}

#[test]
fn not_accepted_shows_the_form_again_and_sending_again_is_safe() {
    let (url, _) = webhook(vec![Hook::Answer(500), Hook::Answer(200)]);
    let s = TestServer::with_config(&hooked(&url));
    let body = "_key=page-2&email=a%40b.c&message=%E8%A6%8B%E7%A9%8D%E3%82%82%E3%82%8A";
    let r = post(&s, "hooked", body);
    let html = page(&r, 502);
    assert!(html.contains("何も登録されていません"), "{html}");
    assert!(html.contains(">見積もり</textarea>"), "{html}");
    assert!(html.contains(r#"name="_key" value="page-2""#), "{html}");
    let again = post(&s, "hooked", body);
    assert_eq!(again.status, 303, "{}", again.body);
    assert_eq!(s.count("receipts"), 1);
}

#[test]
fn received_and_still_handled_says_so_and_never_failed() {
    let (url, _) = webhook(vec![Hook::Stall(Duration::from_secs(2))]);
    let s = TestServer::with_config(&hooked(&url));
    let body = "_key=page-3&email=a%40b.c&message=hello";
    let html = page(&post(&s, "hooked", body), 202).to_string();
    assert!(html.contains("受付番号 1"), "{html}");
    assert!(html.contains("もう一度送信する必要はありません"), "{html}");
    assert!(!html.contains("<form"), "{html}");
    // The same page's key again, once the action has given up.
    let r = post(&s, "hooked", body);
    assert!(page(&r, 202).contains("受付番号 1"));
    assert_eq!(r.header("idempotent-replayed"), Some("true"));
    assert_eq!(s.count("receipts"), 1);
}

#[test]
fn a_changed_resend_under_the_pages_key_gets_the_form_with_a_new_key() {
    let s = TestServer::with_config(CONFIG);
    assert_eq!(
        post(&s, "contact", "_key=page-4&email=a%40b.c&message=first").status,
        303
    );
    // Back, edit, send: the same page's key with another text.
    let r = post(&s, "contact", "_key=page-4&email=a%40b.c&message=second");
    let html = page(&r, 422);
    assert!(html.contains("受付番号 1"), "{html}");
    assert!(html.contains(">second</textarea>"), "{html}");
    assert!(!html.contains(r#"value="page-4""#), "a new key: {html}");
    let key = html.split(r#"name="_key" value=""#).nth(1).unwrap();
    let key = &key[..key.find('"').unwrap()];
    // Sent with the new key, the second text is a receipt of its own.
    let again = post(
        &s,
        "contact",
        &format!("_key={key}&email=a%40b.c&message=second"),
    );
    assert_eq!(again.status, 303, "{}", again.body);
    assert_eq!(s.counts(), [2, 1, 0, 0]);
}
