//! Every bad request: a clear 4xx problem+json, nothing stored, the server
//! still up.

use crate::support::{BODY, TestServer};

fn json() -> Vec<(&'static str, String)> {
    vec![("content-type", "application/json".to_string())]
}

/// Asserts the problem and that nothing at all was written.
fn refused(s: &TestServer, reply: crate::support::Reply, status: u16) -> serde_json::Value {
    let problem = reply.problem(status);
    assert_eq!(s.counts(), [0, 0, 0, 0], "nothing stored for a {status}");
    problem
}

#[test]
fn an_unknown_form_is_404() {
    let s = TestServer::start();
    refused(&s, s.post_json("nosuchform", Some("k1"), BODY), 404);
    refused(&s, s.get("/nothing/here"), 404);
}

#[test]
fn a_body_that_is_not_json_or_a_form_is_415() {
    let s = TestServer::start();
    let plain = [("content-type", "text/plain".to_string())];
    refused(&s, s.post("/f/contact", &plain, BODY.as_bytes()), 415);
    refused(&s, s.post("/f/contact", &[], BODY.as_bytes()), 415);
    let latin1 = [(
        "content-type",
        "application/json; charset=iso-8859-1".to_string(),
    )];
    refused(&s, s.post("/f/contact", &latin1, BODY.as_bytes()), 415);
}

#[test]
fn a_body_over_the_limit_is_413() {
    let s = TestServer::start();
    let big = format!(
        r#"{{"email": "a@b.c", "message": "{}"}}"#,
        "x".repeat(10_000)
    );
    refused(&s, s.post("/f/contact", &json(), big.as_bytes()), 413);
    // The connection and the server are fine afterwards.
    assert_eq!(s.post_json("contact", None, BODY).status, 201);
}

#[test]
fn bodies_that_are_not_an_object_of_fields_are_400() {
    let s = TestServer::start();
    let deep = r#"{"email": "a@b.c", "message": "m", "x": [[[["too deep"]]]]}"#.to_string();
    let many = format!(
        "{{{}}}",
        (0..70)
            .map(|i| format!("\"f{i}\": \"v\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    for body in [
        "{\"email\": ".to_string(),
        "[1, 2, 3]".to_string(),
        "\"just text\"".to_string(),
        deep,
        many,
        "".to_string(),
    ] {
        let p = refused(&s, s.post("/f/contact", &json(), body.as_bytes()), 400);
        assert!(!p["detail"].as_str().unwrap().contains("too deep\""), "{p}");
    }
    let bad_utf8 = [(
        "content-type",
        "application/x-www-form-urlencoded".to_string(),
    )];
    refused(&s, s.post("/f/contact", &bad_utf8, b"email=%FF"), 400);
}

#[test]
fn a_field_too_long_is_422_naming_the_field_not_its_text() {
    let s = TestServer::start();
    let body = format!(
        r#"{{"email": "a@b.c", "message": "m", "company": "{}"}}"#,
        "Q".repeat(201)
    );
    let r = s.post("/f/contact", &json(), body.as_bytes());
    assert!(!r.body.contains("QQQ"));
    let p = refused(&s, r, 422);
    assert_eq!(p["fields"], serde_json::json!(["company"]));
    assert!(p["detail"].as_str().unwrap().contains("company"));
}

#[test]
fn missing_required_fields_are_422_naming_them() {
    let s = TestServer::start();
    let p = refused(
        &s,
        s.post_json("contact", Some("k1"), r#"{"name": "Ada", "message": "  "}"#),
        422,
    );
    assert_eq!(p["fields"], serde_json::json!(["email", "message"]));
}

#[test]
fn a_form_that_refuses_extra_fields_names_them() {
    let s = TestServer::start();
    let p = refused(
        &s,
        s.post_json(
            "strict",
            Some("k1"),
            r#"{"email": "a@b.c", "utm_source": "ad"}"#,
        ),
        422,
    );
    assert_eq!(p["fields"], serde_json::json!(["utm_source"]));
}

#[test]
fn a_key_where_the_form_requires_one_is_missing_or_invalid_is_400() {
    let s = TestServer::start();
    let p = refused(
        &s,
        s.post_json("strict", None, r#"{"email": "a@b.c"}"#),
        400,
    );
    assert!(p["detail"].as_str().unwrap().contains("Idempotency-Key"));
    let bad = [
        ("content-type", "application/json".to_string()),
        ("idempotency-key", "\"has space\"".to_string()),
    ];
    refused(&s, s.post("/f/contact", &bad, BODY.as_bytes()), 400);
    let form = [(
        "content-type",
        "application/x-www-form-urlencoded".to_string(),
    )];
    refused(
        &s,
        s.post("/f/strict", &form, b"_key=a%2Fb&email=a%40b.c"),
        400,
    );
    // The same request with a good key is taken.
    assert_eq!(
        s.post_json("strict", Some("k-good"), r#"{"email": "a@b.c"}"#)
            .status,
        201
    );
}

#[test]
fn another_method_is_405_problem_json() {
    let s = TestServer::start();
    let r = crate::support::agent()
        .put(format!("{}/f/contact", s.url))
        .header("content-type", "application/json")
        .send(BODY)
        .unwrap();
    refused(&s, crate::support::Reply::from(r), 405);
}
