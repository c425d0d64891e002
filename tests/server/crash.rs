//! SIGKILL of `receipt-review serve` in the middle of a load, then a restart
//! on the same database: what was answered 201 is there, once. On both engines.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::both;
use crate::common::engine::{Engine, Place};
use crate::support::{Serving, agent};

const CLIENTS: usize = 16;

const CONFIG: &str = r#"
[server]
listen = "127.0.0.1:0"
rate = "off"

[forms.contact]
scope = "acme.example/contact"
fields = { name = 100, email = 254, message = 500 }
required = ["email", "message"]
window = "10m"
"#;

fn body(key: &str) -> String {
    format!(
        r#"{{"email":"{key}@example.jp","name":"山田 花子","message":"見積もりをお願いします {key}"}}"#
    )
}

/// Posts `key`'s submission; the receipt number of a 201, `None` when no
/// answer came (the server was killed).
fn post(addr: &str, key: &str) -> Option<(u16, i64)> {
    let mut response = agent()
        .post(format!("http://{addr}/f/contact"))
        .header("content-type", "application/json")
        .header("idempotency-key", format!("\"{key}\""))
        .send(body(key).as_bytes())
        .ok()?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some((status, v["receipt"].as_i64()?))
}

fn sigkill_under_load_loses_no_answered_receipt_and_stores_no_key_twice(engine: Engine) {
    let place = Place::new(engine);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("forms.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let (mut server, addr) = Serving::start(place.arg(), &config);

    let answered = Arc::new(Mutex::new(HashMap::<String, i64>::new()));
    let unanswered = Arc::new(Mutex::new(Vec::<String>::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (answered, unanswered) = (Arc::clone(&answered), Arc::clone(&unanswered));
            let (count, stop, addr) = (Arc::clone(&count), Arc::clone(&stop), addr.clone());
            std::thread::spawn(move || {
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let key = format!("c{c}-{i}");
                    match post(&addr, &key) {
                        Some((201, id)) => {
                            answered.lock().unwrap().insert(key, id);
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                        Some((status, _)) => panic!("{key}: {status}"),
                        None => {
                            unanswered.lock().unwrap().push(key);
                            return;
                        }
                    }
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while count.load(Ordering::Relaxed) < 500 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.child.kill().unwrap(); // SIGKILL, with requests in progress
    server.child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    let answered = answered.lock().unwrap().clone();
    let unanswered = unanswered.lock().unwrap().clone();
    assert!(answered.len() >= 500, "the load ran: {}", answered.len());

    let (server, addr) = Serving::start(place.arg(), &config);
    // A file's own check of its pages; a PostgreSQL server keeps its own.
    if engine == Engine::Sqlite {
        let check: String = rusqlite::Connection::open(place.path())
            .unwrap()
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
    }
    let mut sql = place.sql();
    let mut stored: HashMap<String, (i64, String)> = sql
        .rows::<(String, i64, String)>("SELECT request_key, id, state FROM receipts")
        .into_iter()
        .map(|(key, id, state)| (key, (id, state)))
        .collect();
    for (key, id) in &answered {
        let row = stored
            .remove(key)
            .unwrap_or_else(|| panic!("{key}, answered 201 as receipt {id}, is missing"));
        assert_eq!(row, (*id, "completed".to_string()), "{key}");
    }
    let (twice,): (i64,) = sql.one(
        "SELECT count(*) FROM (SELECT 1 FROM receipts GROUP BY scope, request_key \
         HAVING count(*) > 1) AS t",
    );
    assert_eq!(twice, 0, "no key has two receipts");

    // The requests cut off by the kill, sent again with their keys: each
    // ends with exactly one receipt, whether or not it was committed.
    assert!(!unanswered.is_empty(), "the kill cut requests off");
    for key in &unanswered {
        let (status, id) = post(&addr, key).expect("an answer after the restart");
        assert_eq!(status, 201, "{key}");
        let (n,): (i64,) = sql.one(&format!(
            "SELECT count(*) FROM receipts WHERE request_key = '{key}' AND id = {id}"
        ));
        assert_eq!(n, 1, "{key}");
    }
    let total = sql.count("receipts");
    assert_eq!(total as usize, answered.len() + unanswered.len());
    drop(server);
}
both!(sigkill_under_load_loses_no_answered_receipt_and_stores_no_key_twice);
