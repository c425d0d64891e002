//! Several `receipt-review serve` processes on one PostgreSQL database (two
//! ports, one database): the same key sent to both at once is one receipt and
//! one replay, an exact copy sent to both is one receipt and one `absorbed`
//! row, and a process killed under load loses no answered receipt while the
//! other goes on answering. PostgreSQL only: SQLite is one writer's file,
//! for one `serve`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::engine::{Engine, Place};
use crate::support::{Serving, agent};

const CONFIG: &str = r#"
[server]
listen = "127.0.0.1:0"
rate = "off"

[forms.contact]
scope = "acme.example/contact"
fields = { name = 100, email = 254, message = 500 }
required = ["email", "message"]
window = "0s"

[forms.copies]
scope = "acme.example/copies"
fields = { name = 100, email = 254, message = 500 }
window = "10m"
"#;

/// Two `serve` processes on one new PostgreSQL database, their addresses,
/// and the logs they write (read all along, so that neither waits on a full
/// pipe, and shown when a test fails).
struct Pair {
    /// Declared before the database, so that they end first.
    servers: Vec<Serving>,
    addrs: Vec<String>,
    place: Place,
    _config: tempfile::TempDir,
}

impl Pair {
    /// `None` when there is no cluster to test on (outside CI).
    fn start() -> Option<Self> {
        if !crate::common::pg::wanted() {
            return None;
        }
        let place = Place::new(Engine::Postgres);
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("forms.toml");
        std::fs::write(&config, CONFIG).unwrap();
        let (mut servers, mut addrs) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            let (serving, addr) = Serving::start(place.arg(), &config);
            servers.push(serving);
            addrs.push(addr);
        }
        Some(Self {
            servers,
            addrs,
            place,
            _config: dir,
        })
    }

    /// Both logs, for an assertion's message.
    fn logs(&self) -> String {
        self.servers
            .iter()
            .enumerate()
            .map(|(i, serving)| format!("--- serve {i} ---\n{}", serving.log()))
            .collect()
    }
}

/// An answer as a client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    status: u16,
    body: String,
    replayed: bool,
}

impl Answer {
    fn receipt(&self) -> i64 {
        let v: serde_json::Value =
            serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body));
        v["receipt"]
            .as_i64()
            .unwrap_or_else(|| panic!("no receipt in {}", self.body))
    }
}

/// Posts `body` to `form` at `addr`, with `key` when given; `None` when no
/// answer came (the process was killed).
fn post(
    agent: &ureq::Agent,
    addr: &str,
    form: &str,
    key: Option<&str>,
    body: &str,
) -> Option<Answer> {
    let mut request = agent
        .post(format!("http://{addr}/f/{form}"))
        .header("content-type", "application/json");
    if let Some(key) = key {
        request = request.header("idempotency-key", format!("\"{key}\""));
    }
    let mut response = request.send(body.as_bytes()).ok()?;
    let status = response.status().as_u16();
    let replayed = response
        .headers()
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true");
    let body = response.body_mut().read_to_string().ok()?;
    Some(Answer {
        status,
        body,
        replayed,
    })
}

fn visitor(n: usize) -> String {
    serde_json::json!({
        "name": format!("Visitor {n}"),
        "email": format!("visitor{n}@example.jp"),
        "message": format!("見積もりをお願いします ({n})"),
    })
    .to_string()
}

/// What one request sends: the form, the key, the body.
type Request = (&'static str, Option<String>, String);

/// Sends one request from each of two threads, one to each process, at the
/// same moment (a barrier), `rounds` times; the two answers of each round.
/// `request(round, process)` says what to send.
fn both_at_once(
    pair: &Pair,
    rounds: usize,
    request: fn(usize, usize) -> Request,
) -> Vec<(Answer, Answer)> {
    let barrier = Arc::new(Barrier::new(2));
    let threads: Vec<_> = pair
        .addrs
        .iter()
        .enumerate()
        .map(|(process, addr)| {
            let (addr, barrier) = (addr.clone(), Arc::clone(&barrier));
            thread::spawn(move || {
                let agent = agent();
                (0..rounds)
                    .map(|n| {
                        let (form, key, body) = request(n, process);
                        barrier.wait();
                        post(&agent, &addr, form, key.as_deref(), &body)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut answers = threads.into_iter().map(|t| t.join().unwrap());
    let (first, second) = (answers.next().unwrap(), answers.next().unwrap());
    first
        .into_iter()
        .zip(second)
        .enumerate()
        .map(|(n, pair_of)| match pair_of {
            (Some(a), Some(b)) => (a, b),
            other => panic!("round {n}: no answer: {other:?}\n{}", pair.logs()),
        })
        .collect()
}

#[test]
fn one_key_sent_to_two_processes_at_once_is_one_receipt_and_one_byte_identical_replay() {
    let Some(pair) = Pair::start() else { return };
    const KEYS: usize = 30;
    let answers = both_at_once(&pair, KEYS, |n, _| {
        ("contact", Some(format!("k-both-{n}")), visitor(n))
    });
    for (n, (a, b)) in answers.iter().enumerate() {
        assert_eq!((a.status, b.status), (201, 201), "k-both-{n}: {a:?} {b:?}");
        assert_eq!(a.body, b.body, "k-both-{n}: the replay is byte-identical");
        assert!(
            a.replayed != b.replayed,
            "k-both-{n}: exactly one is replayed: {a:?} {b:?}"
        );
    }
    let per_key: Vec<(String, i64)> = pair.place.rows(
        "SELECT request_key, count(*) FROM receipts GROUP BY request_key ORDER BY request_key",
    );
    assert_eq!(per_key.len(), KEYS, "{per_key:?}");
    assert!(per_key.iter().all(|(_, n)| *n == 1), "{per_key:?}");
    for (n, (a, _)) in answers.iter().enumerate() {
        let (id, response): (i64, Option<String>) = pair.place.one(&format!(
            "SELECT id, response FROM receipts WHERE request_key = 'k-both-{n}'"
        ));
        assert_eq!(id, a.receipt(), "k-both-{n}");
        assert_eq!(response.as_deref(), Some(a.body.as_str()), "k-both-{n}");
    }
    assert_eq!(pair.place.count("replays"), KEYS as i64);
    assert_eq!(pair.place.count("absorbed"), 0);
}

#[test]
fn an_exact_copy_sent_to_two_processes_at_once_is_one_receipt_and_one_absorbed_row() {
    let Some(pair) = Pair::start() else { return };
    const VISITORS: usize = 10;
    let answers = both_at_once(&pair, VISITORS, |n, _| ("copies", None, visitor(n)));
    for (n, (a, b)) in answers.iter().enumerate() {
        assert_eq!((a.status, b.status), (201, 201), "visitor {n}: {a:?} {b:?}");
        assert_eq!(
            a.receipt(),
            b.receipt(),
            "visitor {n}: both name one receipt: {a:?} {b:?}\n{}",
            pair.logs()
        );
        assert_eq!(a.body, b.body, "visitor {n}");
    }
    assert_eq!(pair.place.count("receipts"), VISITORS as i64);
    let absorbed: Vec<(i64, Option<String>)> = pair
        .place
        .rows("SELECT receipt_id, request_key FROM absorbed ORDER BY receipt_id");
    let mut expected: Vec<(i64, Option<String>)> =
        answers.iter().map(|(a, _)| (a.receipt(), None)).collect();
    expected.sort();
    assert_eq!(absorbed, expected, "one absorbed row per visitor");
    assert_eq!(pair.place.count("replays"), 0);

    // One after the other: a copy of what one process stored, sent to the
    // other, is absorbed there too.
    let agent = agent();
    let stored = post(&agent, &pair.addrs[0], "copies", None, &visitor(100)).unwrap();
    let copy = post(&agent, &pair.addrs[1], "copies", None, &visitor(100)).unwrap();
    assert_eq!((copy.status, &copy.body), (201, &stored.body));
    assert_eq!(pair.place.count("receipts"), VISITORS as i64 + 1);
    assert_eq!(pair.place.count("absorbed"), VISITORS as i64 + 1);
}

#[test]
fn an_exact_copy_absorbed_by_one_process_holds_its_key_at_the_other() {
    let Some(pair) = Pair::start() else { return };
    const VISITORS: usize = 10;
    // Each process's page made a key of its own for one visitor's fields.
    let key = |n: usize, process: usize| format!("k{process}-{n}");
    let answers = both_at_once(&pair, VISITORS, |n, process| {
        ("copies", Some(format!("k{process}-{n}")), visitor(n))
    });
    let agent = agent();
    for (n, (a, b)) in answers.iter().enumerate() {
        assert_eq!((a.status, b.status), (201, 201), "visitor {n}: {a:?} {b:?}");
        assert_eq!(a.body, b.body, "visitor {n}: one receipt: {a:?} {b:?}");
        assert!(
            !a.replayed && !b.replayed,
            "absorbed, not replayed: {a:?} {b:?}"
        );
        // Each key, sent again to the other process: the same answer, replayed.
        for (process, first) in [(0, a), (1, b)] {
            let again = post(
                &agent,
                &pair.addrs[1 - process],
                "copies",
                Some(&key(n, process)),
                &visitor(n),
            )
            .expect("an answer");
            assert_eq!(
                (again.status, &again.body, again.replayed),
                (201, &first.body, true),
                "{} at the other process",
                key(n, process)
            );
            let looked_up = agent
                .get(format!(
                    "http://{}/f/copies/receipts/{}",
                    pair.addrs[1 - process],
                    key(n, process)
                ))
                .call()
                .expect("an answer")
                .body_mut()
                .read_to_string()
                .unwrap();
            assert_eq!(looked_up, first.body, "the lookup of {}", key(n, process));
        }
    }
    assert_eq!(pair.place.count("receipts"), VISITORS as i64);
    assert_eq!(pair.place.count("absorbed"), VISITORS as i64);
    assert_eq!(pair.place.count("replays"), 2 * VISITORS as i64);
    // The absorbed row names the key the receipt does not hold.
    let rows: Vec<(String, String)> = pair.place.rows(
        "SELECT r.request_key, a.request_key FROM absorbed a JOIN receipts r ON r.id = a.receipt_id",
    );
    for (held, absorbed) in rows {
        let (n_held, n_absorbed) = (
            &held[held.find('-').unwrap()..],
            &absorbed[absorbed.find('-').unwrap()..],
        );
        assert_eq!(n_held, n_absorbed, "one visitor: {held} {absorbed}");
        assert_ne!(held, absorbed);
    }
}

/// Submissions sent to each process by `CLIENTS` threads each.
const CLIENTS: usize = 3;
/// Answered submissions before the kill.
const BEFORE_KILL: usize = 200;
/// Answered by the other process after it.
const AFTER_KILL: usize = 100;

#[test]
fn sigkill_of_one_process_loses_no_answered_receipt_and_the_other_goes_on() {
    let Some(mut pair) = Pair::start() else {
        return;
    };
    let answered = Arc::new(Mutex::new(HashMap::<String, i64>::new()));
    let unanswered = Arc::new(Mutex::new(Vec::<String>::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let after_kill = Arc::new(AtomicUsize::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..2 * CLIENTS)
        .map(|c| {
            let server = c % 2;
            let addr = pair.addrs[server].clone();
            let (answered, unanswered) = (Arc::clone(&answered), Arc::clone(&unanswered));
            let (count, after_kill) = (Arc::clone(&count), Arc::clone(&after_kill));
            let (killed, stop) = (Arc::clone(&killed), Arc::clone(&stop));
            thread::spawn(move || {
                let agent = agent();
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let key = format!("s{server}-c{c}-{i}");
                    let was_killed = killed.load(Ordering::SeqCst);
                    match post(&agent, &addr, "contact", Some(&key), &visitor(i)) {
                        Some(a) if a.status == 201 && !a.replayed => {
                            answered.lock().unwrap().insert(key, a.receipt());
                            count.fetch_add(1, Ordering::Relaxed);
                            if was_killed {
                                after_kill.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Some(a) => panic!("{key}: {a:?}"),
                        None => {
                            assert_eq!(server, 0, "{key}: the other process stopped answering");
                            unanswered.lock().unwrap().push(key);
                            return;
                        }
                    }
                }
            })
        })
        .collect();
    let wait = |what: &str, done: &dyn Fn() -> bool| {
        let give_up = Instant::now() + Duration::from_secs(60);
        while !done() {
            assert!(Instant::now() < give_up, "still waiting for {what}");
            thread::sleep(Duration::from_millis(5));
        }
    };
    wait("answers before the kill", &|| {
        count.load(Ordering::Relaxed) >= BEFORE_KILL
    });
    killed.store(true, Ordering::SeqCst);
    pair.servers[0].child.kill().unwrap(); // SIGKILL, with requests in progress
    pair.servers[0].child.wait().unwrap();
    wait("answers from the other process after the kill", &|| {
        after_kill.load(Ordering::Relaxed) >= AFTER_KILL
    });
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        if let Err(panic) = c.join() {
            eprintln!("{}", pair.logs());
            std::panic::resume_unwind(panic);
        }
    }
    let answered = answered.lock().unwrap().clone();
    let unanswered = unanswered.lock().unwrap().clone();

    // Every 201 is in the database, as the receipt it named, completed.
    let mut sql = pair.place.sql();
    for (key, id) in &answered {
        let rows: Vec<(i64, String)> = sql.rows(&format!(
            "SELECT id, state FROM receipts WHERE request_key = '{key}'"
        ));
        assert_eq!(
            rows,
            [(*id, "completed".to_string())],
            "{key}, answered 201 as receipt {id}"
        );
    }
    let (twice,): (i64,) = sql.one(
        "SELECT count(*) FROM (SELECT 1 FROM receipts GROUP BY scope, request_key \
         HAVING count(*) > 1) AS t",
    );
    assert_eq!(twice, 0, "no key has two receipts");

    // The requests the kill cut off, sent again to the process still
    // running: each ends with exactly one receipt, committed or not before.
    assert!(!unanswered.is_empty(), "the kill cut requests off");
    let agent = agent();
    for key in &unanswered {
        let i: usize = key.rsplit('-').next().unwrap().parse().unwrap();
        let a = post(&agent, &pair.addrs[1], "contact", Some(key), &visitor(i))
            .expect("the other process answers");
        assert_eq!(a.status, 201, "{key}: {a:?}");
        let (n,): (i64,) = sql.one(&format!(
            "SELECT count(*) FROM receipts WHERE request_key = '{key}' AND id = {}",
            a.receipt()
        ));
        assert_eq!(n, 1, "{key}");
    }
    assert_eq!(
        sql.count("receipts") as usize,
        answered.len() + unanswered.len()
    );
}
