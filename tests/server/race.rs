//! Many clients racing one key: one receipt, one answer. On both engines.

use std::sync::{Arc, Barrier};

use crate::both;
use crate::common::engine::Engine;
use crate::support::{BODY, TestServer};

fn two_times_64_clients_racing_one_key_get_one_receipt_and_the_same_number(engine: Engine) {
    let s = Arc::new(TestServer::start_on(engine));
    let clients = 2 * 64;
    let start = Arc::new(Barrier::new(clients));
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let (s, start) = (s.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let r = s.post_json("contact", Some("k-race"), BODY);
                let replayed = r.header("idempotent-replayed").is_some();
                (r.status, r.body, replayed)
            })
        })
        .collect();
    let answers: Vec<(u16, String, bool)> =
        threads.into_iter().map(|t| t.join().unwrap()).collect();
    for (status, body, _) in &answers {
        assert_eq!(*status, 201, "{body}");
        assert_eq!(body, r#"{"receipt":1,"state":"completed"}"#);
    }
    let fresh = answers.iter().filter(|(.., replayed)| !replayed).count();
    assert_eq!(fresh, 1, "exactly one was the first");
    assert_eq!(s.counts(), [1, 0, clients as i64 - 1, 0]);
}
both!(two_times_64_clients_racing_one_key_get_one_receipt_and_the_same_number);
