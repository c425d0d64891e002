//! The key holder's lookup, the health check and the pages' routes.

use crate::support::{BODY, TestServer};

#[test]
fn the_lookup_gives_the_number_and_state_never_the_fields() {
    let s = TestServer::start();
    assert_eq!(s.post_json("contact", Some("k-look"), BODY).status, 201);
    let r = s.get("/f/contact/receipts/k-look");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body, r#"{"receipt":1,"state":"completed"}"#);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert!(!r.body.contains("ada"));
    // Another form's scope does not hold this key.
    assert_eq!(s.get("/f/strict/receipts/k-look").status, 404);
}

#[test]
fn an_unknown_key_is_404_which_is_not_proof_of_failure() {
    let s = TestServer::start();
    let p = s.get("/f/contact/receipts/k-never-sent").problem(404);
    assert!(p["detail"].as_str().unwrap().contains("not proof"), "{p}");
    s.get("/f/contact/receipts/not%20a%20key").problem(400);
    s.get("/f/nosuchform/receipts/k1").problem(404);
}

#[test]
fn health_and_pages() {
    let s = TestServer::start();
    let h = s.get("/healthz");
    assert_eq!(h.status, 200);
    for path in ["/f/contact", "/f/contact/thanks"] {
        let page = s.get(path);
        assert_eq!(page.status, 200, "{path}");
        assert!(
            page.header("content-type")
                .unwrap()
                .starts_with("text/html")
        );
    }
    s.get("/f/nosuchform").problem(404);

    // The form page posts to its route with a key minted once per page view.
    let first = s.get("/f/contact").body;
    assert!(first.contains(r#"action="/f/contact""#), "{first}");
    assert!(first.contains(r#"src="/intake.js""#), "{first}");
    let key = |page: &str| {
        let at = page.find(r#"name="_key" value=""#).expect("a hidden key") + 19;
        page[at..at + 32].to_string()
    };
    assert_ne!(key(&first), key(&s.get("/f/contact").body));
    let script = s.get("/intake.js");
    assert_eq!(script.status, 200);
    assert!(
        script
            .header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(script.body.contains("Idempotency-Key"));
}
