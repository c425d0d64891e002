//! The key holder's lookup (on both engines), the health check and the pages' routes.

use crate::both;
use crate::common::engine::Engine;
use crate::support::{BODY, TestServer};

fn the_lookup_gives_the_number_and_state_never_the_fields(engine: Engine) {
    let s = TestServer::start_on(engine);
    assert_eq!(s.post_json("contact", Some("k-look"), BODY).status, 201);
    let r = s.get("/f/contact/receipts/k-look");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body, r#"{"receipt":1,"state":"completed"}"#);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert!(!r.body.contains("ada"));
    // Another form's scope does not hold this key.
    assert_eq!(s.get("/f/strict/receipts/k-look").status, 404);
}
both!(the_lookup_gives_the_number_and_state_never_the_fields);

fn an_unknown_key_is_404_which_is_not_proof_of_failure(engine: Engine) {
    let s = TestServer::start_on(engine);
    let p = s.get("/f/contact/receipts/k-never-sent").problem(404);
    assert!(p["detail"].as_str().unwrap().contains("not proof"), "{p}");
    s.get("/f/contact/receipts/not%20a%20key").problem(400);
    s.get("/f/nosuchform/receipts/k1").problem(404);
}
both!(an_unknown_key_is_404_which_is_not_proof_of_failure);

// The routes of pages read no database: SQLite only.
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
