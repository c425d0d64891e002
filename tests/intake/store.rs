//! The intake store against the protocol's six cases (docs/intake-protocol.md), on both engines (a SQLite file, a
//! PostgreSQL database of its own), with separate connections (and threads where the case is
//! about concurrency). Each case is written once and run as `case::sqlite` and
//! `case::postgres`; the cases about concurrency run on SQLite in both journal modes. None is
//! about a file as such (its permissions, its side files), so none is SQLite's alone.
//!
//! | # | condition                                                   | expected                         |
//! |---|-------------------------------------------------------------|----------------------------------|
//! | 1 | response lost after commit, keyless blind retry             | 2 receipts                       |
//! | 2 | response lost after commit, same key and body               | 1 receipt, same id               |
//! | 3 | same key, body changed                                      | refused, original kept, logged   |
//! | 4 | error before commit, rollback, retry with the same key      | 0 after rollback, 1 after retry  |
//! | 5 | two connections submit the same key and body at once        | 1 receipt, both get its id       |
//! | 6 | lookup while the original is uncommitted in another conn    | not found yet; found after commit|

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, mpsc};
use std::thread;
use std::time::Duration;

use receipt_review::intake::canonical::{canonical, sha256_hex};
use receipt_review::intake::store::{Claim, IntakeStore, Lookup, StoreError, SubmitError};
use receipt_review::model::{Millis, ReceiptState};
use receipt_review::storage::{IntakeMode, Location};
use serde_json::{Map, Value, json};

use crate::both;
use crate::common::engine::{Engine, Place};

const SCHEMA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/schema.sql"));
const T0: Millis = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z
const SCOPE: &str = "corp.example/contact";

/// A database of the test's own with the schema in place.
struct Db {
    place: Place,
}

impl Db {
    /// SQLite in WAL mode, or PostgreSQL.
    fn new(engine: Engine) -> Self {
        match engine {
            Engine::Sqlite => Self::sqlite("wal"),
            Engine::Postgres => {
                let db = Self {
                    place: Place::new(engine),
                };
                // Opening the intake creates the schema.
                drop(db.store());
                db
            }
        }
    }

    /// A SQLite file in the journal mode `journal`.
    fn sqlite(journal: &str) -> Self {
        let place = Place::new(Engine::Sqlite);
        let conn = rusqlite::Connection::open(place.path()).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        let mode: String = conn
            .query_row(&format!("PRAGMA journal_mode={journal}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, journal);
        Self { place }
    }

    /// The databases a case about concurrency runs on, each named: SQLite in
    /// both of its journal modes (they lock differently), PostgreSQL once.
    fn each(engine: Engine) -> Vec<(&'static str, Db)> {
        match engine {
            Engine::Sqlite => vec![
                ("wal", Self::sqlite("wal")),
                ("delete", Self::sqlite("delete")),
            ],
            Engine::Postgres => vec![("postgres", Self::new(engine))],
        }
    }

    fn location(&self) -> Location {
        self.place.location().clone()
    }

    /// A new store, on a connection of its own.
    fn store(&self) -> IntakeStore {
        open(self.place.location())
    }

    fn count(&self, table: &str) -> i64 {
        self.place.count(table)
    }

    /// The time `column` as RFC 3339 UTC text with milliseconds, on either engine.
    fn time(&self, column: &str) -> String {
        self.place.time(column)
    }

    fn rows(&self) -> Vec<Row> {
        self.place.rows(&format!(
            "SELECT id, scope, request_key, digest, payload, state, response, {}, {} \
             FROM receipts ORDER BY id",
            self.time("created_at"),
            self.time("updated_at")
        ))
    }
}

fn open(location: &Location) -> IntakeStore {
    IntakeStore::open_at(location, IntakeMode::Plain).unwrap()
}

type Row = (
    i64,
    String,
    Option<String>,
    String,
    String,
    String,
    Option<String>,
    String,
    Option<String>,
);

fn form(message: &str) -> Map<String, Value> {
    match json!({"name": "山田 太郎", "email": "taro@example.jp", "message": message}) {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

fn ok_action(calls: &AtomicUsize) -> impl FnOnce(i64) -> Result<String, String> + '_ {
    move |id| {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok(format!("{{\"receipt\":{id},\"status\":\"accepted\"}}"))
    }
}

// ---- case 1 ----------------------------------------------------------------------------------

fn case1_keyless_blind_retry_stores_two_receipts(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    let calls = AtomicUsize::new(0);
    let body = form("見積もりをお願いします");
    // The first response is lost after the commit; the visitor's page blindly posts again.
    let first = store
        .submit(SCOPE, None, &body, T0, ok_action(&calls))
        .unwrap();
    let second = db
        .store()
        .submit(SCOPE, None, &body, T0 + 2_000, ok_action(&calls))
        .unwrap();
    assert_ne!(first.id, second.id);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(db.count("receipts"), 2);
    assert_eq!(db.count("replays"), 0);
    let stored = db.rows();
    assert_eq!(stored[0].2, None, "keyless is NULL");
    assert_eq!(stored[0].3, stored[1].3, "same digest");
}
both!(case1_keyless_blind_retry_stores_two_receipts);

// ---- case 2 ----------------------------------------------------------------------------------

fn case2_same_key_and_body_after_lost_response_is_one_receipt(engine: Engine) {
    let db = Db::new(engine);
    let calls = AtomicUsize::new(0);
    let body = form("見積もりをお願いします");
    let first = db
        .store()
        .submit(SCOPE, Some("k-1"), &body, T0, ok_action(&calls))
        .unwrap();
    assert!(matches!(first.claim, Claim::New { .. }));
    // The retry comes on another connection, with the same fields in another order.
    let reordered: Map<String, Value> = serde_json::from_str(
        r#"{"message":"見積もりをお願いします","email":"taro@example.jp","name":"山田 太郎"}"#,
    )
    .unwrap();
    let retry = db
        .store()
        .submit(
            SCOPE,
            Some("k-1"),
            &reordered,
            T0 + 3_000,
            ok_action(&calls),
        )
        .unwrap();
    assert_eq!(retry.id, first.id);
    assert_eq!(retry.response, first.response, "byte-identical response");
    assert_eq!(
        retry.claim,
        Claim::Replay {
            id: first.id,
            state: ReceiptState::Completed,
            response: first.response.clone()
        }
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the action ran once");
    assert_eq!(db.count("receipts"), 1);
    assert_eq!(db.count("replays"), 1);

    let row = &db.rows()[0];
    let canonical_text = canonical(&body).unwrap();
    assert_eq!(row.2.as_deref(), Some("k-1"));
    assert_eq!(row.3, sha256_hex(&canonical_text));
    assert_eq!(row.4, canonical_text);
    assert_eq!(row.5, "completed");
    assert_eq!(row.7, "2026-11-29T10:15:30.123Z");
    assert_eq!(row.8.as_deref(), Some("2026-11-29T10:15:30.123Z"));
    let (replay_at,): (String,) = db
        .place
        .one(&format!("SELECT {} FROM replays", db.time("received_at")));
    assert_eq!(replay_at, "2026-11-29T10:15:33.123Z");
}
both!(case2_same_key_and_body_after_lost_response_is_one_receipt);

// ---- case 3 ----------------------------------------------------------------------------------

fn case3_changed_body_is_refused_and_logged(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    let calls = AtomicUsize::new(0);
    let first = store
        .submit(SCOPE, Some("k-1"), &form("original"), T0, ok_action(&calls))
        .unwrap();
    let before = db.rows();

    let changed = form("changed text");
    let err = db
        .store()
        .submit(SCOPE, Some("k-1"), &changed, T0 + 60_000, ok_action(&calls))
        .unwrap_err();
    match &err {
        SubmitError::Store(StoreError::Conflict {
            receipt_id,
            scope,
            key,
        }) => {
            assert_eq!(*receipt_id, first.id);
            assert_eq!(scope, SCOPE);
            assert_eq!(key, "k-1");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains(&format!("receipt {}", first.id)));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(db.rows(), before, "the original is unchanged");

    let (receipt_id, digest, payload, at): (i64, String, String, String) = db.place.one(&format!(
        "SELECT receipt_id, digest, payload, {} FROM key_conflicts",
        db.time("received_at")
    ));
    assert_eq!(receipt_id, first.id);
    assert_eq!(payload, canonical(&changed).unwrap());
    assert_eq!(digest, sha256_hex(&payload));
    assert_eq!(at, "2026-11-29T10:16:30.123Z");
    assert_eq!(db.count("key_conflicts"), 1);
    assert_eq!(db.count("replays"), 0);

    // The same scope and key in another scope is another operation.
    let other = store
        .submit("lp/ai-web", Some("k-1"), &changed, T0, ok_action(&calls))
        .unwrap();
    assert_ne!(other.id, first.id);
}
both!(case3_changed_body_is_refused_and_logged);

// ---- case 4 ----------------------------------------------------------------------------------

#[derive(Debug)]
enum Boom {
    Store(StoreError),
    Crash,
}

impl From<StoreError> for Boom {
    fn from(e: StoreError) -> Self {
        Boom::Store(e)
    }
}

fn case4_error_before_commit_rolls_back_and_retry_stores_one(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    let body = form("rollback");
    let result: Result<(), Boom> = store.bulk(|batch| {
        let claim = batch.claim(SCOPE, Some("k-4"), &body, T0)?;
        assert!(matches!(claim, Claim::New { .. }));
        Err(Boom::Crash) // the handler dies before the commit
    });
    match result {
        Err(Boom::Crash) => {}
        Err(Boom::Store(e)) => panic!("store error: {e}"),
        Ok(()) => panic!("the crash was lost"),
    }
    assert_eq!(db.count("receipts"), 0, "rolled back");
    assert_eq!(store.lookup(SCOPE, "k-4").unwrap(), Lookup::NotFoundYet);

    let calls = AtomicUsize::new(0);
    let retry = db
        .store()
        .submit(SCOPE, Some("k-4"), &body, T0 + 5_000, ok_action(&calls))
        .unwrap();
    assert!(matches!(retry.claim, Claim::New { .. }));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(db.count("receipts"), 1);
    assert!(matches!(
        store.lookup(SCOPE, "k-4").unwrap(),
        Lookup::Completed { id, .. } if id == retry.id
    ));
}
both!(case4_error_before_commit_rolls_back_and_retry_stores_one);

fn a_failed_action_releases_the_key_for_the_same_body(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    let body = form("mail server down");
    let calls = AtomicUsize::new(0);
    let err = store
        .submit(SCOPE, Some("k-f"), &body, T0, |_| {
            calls.fetch_add(1, Ordering::SeqCst);
            Err::<String, _>("smtp timeout")
        })
        .unwrap_err();
    let id = match err {
        SubmitError::Action { id, error } => {
            assert_eq!(error, "smtp timeout");
            id
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(store.lookup(SCOPE, "k-f").unwrap(), Lookup::Failed { id });
    // Another body with the failed key is still a conflict.
    assert!(matches!(
        store.claim(SCOPE, Some("k-f"), &form("other"), T0 + 1_000),
        Err(StoreError::Conflict { receipt_id, .. }) if receipt_id == id
    ));
    let retry = store
        .submit(SCOPE, Some("k-f"), &body, T0 + 10_000, ok_action(&calls))
        .unwrap();
    assert_eq!(retry.claim, Claim::Reclaimed { id });
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "ran again after the failure"
    );
    assert_eq!(db.count("receipts"), 1);
    assert!(
        matches!(store.lookup(SCOPE, "k-f").unwrap(), Lookup::Completed { id: got, .. } if got == id)
    );
    // Completed now: the next retry is a replay and runs nothing.
    let again = store
        .submit(SCOPE, Some("k-f"), &body, T0 + 20_000, ok_action(&calls))
        .unwrap();
    assert_eq!(again.response, retry.response);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
both!(a_failed_action_releases_the_key_for_the_same_body);

fn complete_and_fail_are_guarded(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    let Claim::New { id } = store.claim(SCOPE, Some("k-g"), &form("x"), T0).unwrap() else {
        panic!()
    };
    assert_eq!(store.state_of(id).unwrap(), ReceiptState::InFlight);
    assert_eq!(store.lookup(SCOPE, "k-g").unwrap(), Lookup::InFlight { id });
    assert!(store.complete(id, "{\"ok\":true}", T0 + 100).unwrap());
    assert!(
        !store.fail(id, T0 + 200).unwrap(),
        "completed stays completed"
    );
    assert!(!store.complete(id, "{\"ok\":false}", T0 + 300).unwrap());
    assert_eq!(
        store.lookup(SCOPE, "k-g").unwrap(),
        Lookup::Completed {
            id,
            response: Some("{\"ok\":true}".into())
        }
    );
    assert!(matches!(
        store.complete(9_999, "x", T0),
        Err(StoreError::NoSuchReceipt(9_999))
    ));
    // A replay of an in-flight receipt says so and runs nothing.
    let Claim::New { id: id2 } = store.claim(SCOPE, Some("k-h"), &form("y"), T0).unwrap() else {
        panic!()
    };
    assert_eq!(
        store.claim(SCOPE, Some("k-h"), &form("y"), T0 + 1).unwrap(),
        Claim::Replay {
            id: id2,
            state: ReceiptState::InFlight,
            response: None
        }
    );
}
both!(complete_and_fail_are_guarded);

fn invalid_keys_and_scopes_write_nothing(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    assert!(matches!(
        store.claim(SCOPE, Some("bad key"), &form("x"), T0),
        Err(StoreError::Key(_))
    ));
    assert!(matches!(
        store.claim(SCOPE, Some(""), &form("x"), T0),
        Err(StoreError::Key(_))
    ));
    assert!(matches!(
        store.claim("", None, &form("x"), T0),
        Err(StoreError::EmptyScope)
    ));
    assert_eq!(db.count("receipts"), 0);
}
both!(invalid_keys_and_scopes_write_nothing);

// ---- case 5 ----------------------------------------------------------------------------------

fn case5_two_connections_racing_on_one_key_store_one_receipt(engine: Engine) {
    for (name, db) in Db::each(engine) {
        let calls = Arc::new(AtomicUsize::new(0));
        for round in 0..15 {
            let key = format!("race-{round}");
            let barrier = Arc::new(Barrier::new(2));
            let handles: Vec<_> = (0..2)
                .map(|t| {
                    let (location, key, barrier, calls) =
                        (db.location(), key.clone(), barrier.clone(), calls.clone());
                    thread::spawn(move || {
                        let mut store = open(&location);
                        barrier.wait();
                        store
                            .submit(SCOPE, Some(&key), &form("race"), T0 + t, |id| {
                                calls.fetch_add(1, Ordering::SeqCst);
                                Ok::<_, String>(format!("{{\"receipt\":{id}}}"))
                            })
                            .unwrap()
                    })
                })
                .collect();
            let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            assert_eq!(results[0].id, results[1].id, "{name} round {round}");
            let new = results
                .iter()
                .filter(|r| matches!(r.claim, Claim::New { .. }))
                .count();
            assert_eq!(new, 1, "exactly one ran: {results:?}");
        }
        assert_eq!(db.count("receipts"), 15, "{name}");
        assert_eq!(calls.load(Ordering::SeqCst), 15, "{name}");
        assert_eq!(db.count("replays"), 15, "{name}");
    }
}
both!(case5_two_connections_racing_on_one_key_store_one_receipt);

// ---- case 6 ----------------------------------------------------------------------------------

fn case6_uncommitted_original_is_not_found_yet_then_found(engine: Engine) {
    for (name, db) in Db::each(engine) {
        let (inserted_tx, inserted_rx) = mpsc::channel();
        let (commit_tx, commit_rx) = mpsc::channel::<()>();
        let location = db.location();
        // Connection A inserts and holds its transaction open (until told,
        // or until the test gave up).
        let original = thread::spawn(move || {
            let mut store = open(&location);
            store
                .bulk(|batch| {
                    let claim = batch.claim(SCOPE, Some("k-6"), &form("slow"), T0)?;
                    inserted_tx.send(claim.id()).unwrap();
                    let _ = commit_rx.recv_timeout(Duration::from_secs(30));
                    Ok::<_, StoreError>(claim.id())
                })
                .unwrap()
        });
        let id = inserted_rx.recv().unwrap();

        // Connection B, opened meanwhile, looks it up: not found yet, never "failed".
        let mut b = db.store();
        assert_eq!(
            b.lookup(SCOPE, "k-6").unwrap(),
            Lookup::NotFoundYet,
            "{name}"
        );

        // Connection C retries the same submission meanwhile: it waits for A's
        // insert to commit (SQLite's busy timeout, PostgreSQL's unique index),
        // then replays A's receipt instead of inserting a second one.
        let location = db.location();
        let retry = thread::spawn(move || {
            open(&location)
                .claim(SCOPE, Some("k-6"), &form("slow"), T0 + 1_500)
                .unwrap()
        });
        thread::sleep(Duration::from_millis(150));
        assert!(!retry.is_finished(), "{name}: the retry waits for A");
        commit_tx.send(()).unwrap();
        assert_eq!(original.join().unwrap(), id);

        assert_eq!(
            b.lookup(SCOPE, "k-6").unwrap(),
            Lookup::InFlight { id },
            "{name}"
        );
        assert_eq!(
            retry.join().unwrap(),
            Claim::Replay {
                id,
                state: ReceiptState::InFlight,
                response: None
            },
            "{name}"
        );
        assert_eq!(db.count("receipts"), 1, "{name}");
    }
}
both!(case6_uncommitted_original_is_not_found_yet_then_found);

// ---- bulk ----------------------------------------------------------------------------------------

fn bulk_has_the_same_semantics_in_one_transaction(engine: Engine) {
    let db = Db::new(engine);
    let mut store = db.store();
    let calls = AtomicUsize::new(0);
    let (ids, conflict) = store
        .bulk(|b| {
            let mut ids = Vec::new();
            for i in 0..100 {
                let s = b
                    .submit(
                        SCOPE,
                        Some(&format!("k{i}")),
                        &form(&format!("m{i}")),
                        T0 + i,
                        T0 + i + 500,
                        ok_action(&calls),
                    )
                    .map_err(|e| match e {
                        SubmitError::Store(s) => s,
                        SubmitError::Action { .. } => unreachable!(),
                    })?;
                ids.push(s.id);
            }
            let replay = b.claim(SCOPE, Some("k5"), &form("m5"), T0 + 1_000)?;
            assert!(matches!(
                replay,
                Claim::Replay {
                    state: ReceiptState::Completed,
                    ..
                }
            ));
            let conflict = b.claim(SCOPE, Some("k5"), &form("changed"), T0 + 2_000);
            let keyless = b.claim(SCOPE, None, &form("m5"), T0 + 3_000)?;
            assert!(matches!(keyless, Claim::New { .. }));
            Ok::<_, StoreError>((ids, conflict))
        })
        .unwrap();
    assert_eq!(ids.len(), 100);
    assert!(
        matches!(conflict, Err(StoreError::Conflict { receipt_id, .. }) if receipt_id == ids[5])
    );
    assert_eq!(calls.load(Ordering::SeqCst), 100);
    assert_eq!(db.count("receipts"), 101);
    assert_eq!(db.count("replays"), 1);
    assert_eq!(db.count("key_conflicts"), 1);
    let r = &db.rows()[0];
    assert_eq!(r.5, "completed");
    assert_eq!(r.8.as_deref(), Some("2026-11-29T10:15:30.623Z"));
}
both!(bulk_has_the_same_semantics_in_one_transaction);

fn store_completed_writes_one_finished_row_or_nothing_when_the_key_is_held(engine: Engine) {
    use receipt_review::intake::store::Submission;
    let db = Db::new(engine);
    let mut store = db.store();
    let answer = |id: i64| format!("{{\"receipt\":{id}}}");
    let (first, keyless, held) = store
        .bulk(|b| {
            let first = b.store_completed(
                &Submission::new(SCOPE, Some("k1"), &form("m1"))?,
                T0,
                answer,
            )?;
            let keyless =
                b.store_completed(&Submission::new(SCOPE, None, &form("m2"))?, T0 + 1, answer)?;
            let held = b.store_completed(
                &Submission::new(SCOPE, Some("k1"), &form("other"))?,
                T0 + 2,
                answer,
            )?;
            Ok::<_, StoreError>((first, keyless, held))
        })
        .unwrap();
    assert_eq!(first, Some((1, "{\"receipt\":1}".to_string())));
    assert_eq!(keyless, Some((2, "{\"receipt\":2}".to_string())));
    assert_eq!(held, None, "a held key: nothing written");
    assert_eq!(db.count("receipts"), 2);
    assert_eq!(db.count("key_conflicts"), 0);
    let r = &db.rows()[0];
    assert_eq!(
        (r.5.as_str(), r.6.as_deref()),
        ("completed", Some("{\"receipt\":1}"))
    );
    assert_eq!(r.7, r.8.clone().unwrap(), "created and completed at once");
}
both!(store_completed_writes_one_finished_row_or_nothing_when_the_key_is_held);
