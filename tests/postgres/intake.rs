//! The intake protocol on PostgreSQL, through `IntakeStore::open_at`: a new
//! key, a replay, a conflict, a failed receipt claimed again; and two
//! connections claiming one key at the same moment.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use receipt_review::intake::canonical::{canonical, sha256_hex};
use receipt_review::intake::store::{Claim, IntakeStore, Lookup, StoreError, SubmitError};
use receipt_review::model::{Millis, ReceiptState};
use receipt_review::storage::{IntakeMode, Location};
use serde_json::{Map, Value, json};

use crate::common::pg::{PgDatabase, pg_database};
use crate::support::count;

const T0: Millis = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z
const SCOPE: &str = "corp.example/contact";

fn form(message: &str) -> Map<String, Value> {
    match json!({"name": "山田 太郎", "email": "taro@example.jp", "message": message}) {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

fn store(db: &PgDatabase) -> IntakeStore {
    IntakeStore::open_at(&Location::from(db.url.as_str()), IntakeMode::Plain)
        .expect("open the intake on PostgreSQL")
}

/// One receipt's row as stored.
#[derive(Debug, PartialEq, Eq)]
struct Stored {
    key: Option<String>,
    digest: String,
    payload: String,
    state: String,
    response: Option<String>,
    created_ms: i64,
    updated_ms: Option<i64>,
}

fn stored(db: &PgDatabase, id: i64) -> Stored {
    let row = db
        .client()
        .query_one(
            "SELECT request_key, digest, payload, state, response, \
                    (extract(epoch FROM created_at) * 1000)::bigint, \
                    (extract(epoch FROM updated_at) * 1000)::bigint \
             FROM receipts WHERE id = $1",
            &[&id],
        )
        .unwrap();
    Stored {
        key: row.get(0),
        digest: row.get(1),
        payload: row.get(2),
        state: row.get(3),
        response: row.get(4),
        created_ms: row.get(5),
        updated_ms: row.get(6),
    }
}

#[test]
fn new_replay_conflict_and_a_failed_receipt_claimed_again() {
    let Some(db) = pg_database() else { return };
    let mut store = store(&db);
    let mut client = db.client();
    let body = form("見積もりをお願いします");
    let calls = AtomicUsize::new(0);
    let action = |id: i64| {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok::<_, String>(format!("{{\"receipt\":{id},\"status\":\"accepted\"}}"))
    };

    // New: the action runs, the receipt is stored completed.
    let first = store.submit(SCOPE, Some("k-1"), &body, T0, action).unwrap();
    let Claim::New { id } = first.claim else {
        panic!("a new key is new: {first:?}")
    };
    let canon = canonical(&body).unwrap();
    assert_eq!(
        stored(&db, id),
        Stored {
            key: Some("k-1".into()),
            digest: sha256_hex(&canon),
            payload: canon.clone(),
            state: "completed".into(),
            response: first.response.clone(),
            created_ms: T0,
            updated_ms: Some(T0),
        }
    );

    // Replay: the same key and body, answered from the stored receipt.
    let again = store
        .submit(SCOPE, Some("k-1"), &body, T0 + 2_000, action)
        .unwrap();
    assert_eq!(
        again.claim,
        Claim::Replay {
            id,
            state: ReceiptState::Completed,
            response: first.response.clone()
        }
    );
    assert_eq!(again.response, first.response, "the same response");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the action ran once");
    let replays: Vec<(i64, i64)> = client
        .query(
            "SELECT receipt_id, (extract(epoch FROM received_at) * 1000)::bigint FROM replays",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(replays, vec![(id, T0 + 2_000)]);

    // Conflict: another body with the key is refused, the original kept.
    let other = form("やっぱり来週にします");
    let refused = store.claim(SCOPE, Some("k-1"), &other, T0 + 5_000);
    assert!(
        matches!(&refused, Err(StoreError::Conflict { receipt_id, .. }) if *receipt_id == id),
        "{refused:?}"
    );
    let other_canon = canonical(&other).unwrap();
    let conflicts: Vec<(i64, String, String)> = client
        .query("SELECT receipt_id, digest, payload FROM key_conflicts", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(conflicts, vec![(id, sha256_hex(&other_canon), other_canon)]);
    assert_eq!(stored(&db, id).payload, canon, "the original is kept");
    assert_eq!(count(&mut client, "receipts"), 1);

    // Failed, then claimed again with the same body: the action runs again.
    let failing = form("mail server down");
    let err = store
        .submit(SCOPE, Some("k-f"), &failing, T0, |_| {
            Err::<String, _>("smtp timeout")
        })
        .unwrap_err();
    let SubmitError::Action { id: failed, .. } = err else {
        panic!("the action's failure: {err:?}")
    };
    assert_eq!(stored(&db, failed).state, "failed");
    assert_eq!(
        store.lookup(SCOPE, "k-f").unwrap(),
        Lookup::Failed { id: failed }
    );
    let retry = store
        .claim(SCOPE, Some("k-f"), &failing, T0 + 10_000)
        .unwrap();
    assert_eq!(retry, Claim::Reclaimed { id: failed });
    let row = stored(&db, failed);
    assert_eq!(
        (row.state.as_str(), row.updated_ms),
        ("in_flight", Some(T0 + 10_000))
    );
    assert!(
        store
            .complete(failed, "{\"ok\":true}", T0 + 11_000)
            .unwrap()
    );
    assert_eq!(
        store.lookup(SCOPE, "k-f").unwrap(),
        Lookup::Completed {
            id: failed,
            response: Some("{\"ok\":true}".into())
        }
    );
    assert_eq!(count(&mut client, "receipts"), 2);
    assert_eq!(count(&mut client, "replays"), 1);
    assert_eq!(count(&mut client, "key_conflicts"), 1);
}

#[test]
fn two_connections_claiming_one_key_at_once_store_one_receipt() {
    let Some(db) = pg_database() else { return };
    const KEYS: usize = 50;
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = (0..2i64)
        .map(|t| {
            let barrier = barrier.clone();
            // Each thread its own store, so its own connection.
            let mut store = store(&db);
            thread::spawn(move || {
                (0..KEYS)
                    .map(|k| {
                        barrier.wait();
                        store
                            .claim(
                                SCOPE,
                                Some(&format!("race-{k}")),
                                &form(&format!("race {k}")),
                                T0 + t,
                            )
                            .map_err(|e| e.to_string())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let results: Vec<Vec<_>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for (k, (a, b)) in results[0].iter().zip(&results[1]).enumerate() {
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("race-{k}: {a:?} {b:?}")
        };
        assert_eq!(a.id(), b.id(), "race-{k}: one receipt");
        let new = [a, b]
            .iter()
            .filter(|c| matches!(c, Claim::New { .. }))
            .count();
        let replays = [a, b]
            .iter()
            .filter(|c| matches!(c, Claim::Replay { .. }))
            .count();
        assert_eq!((new, replays), (1, 1), "race-{k}: {a:?} {b:?}");
    }
    let mut client = db.client();
    let per_key: Vec<(String, i64)> = client
        .query(
            "SELECT request_key, count(*) FROM receipts GROUP BY request_key ORDER BY request_key",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(per_key.len(), KEYS);
    assert!(per_key.iter().all(|(_, n)| *n == 1), "{per_key:?}");
    assert_eq!(count(&mut client, "replays"), KEYS as i64);
}

#[test]
fn an_uncommitted_original_is_not_found_yet_and_a_retry_waits_for_it() {
    let Some(db) = pg_database() else { return };
    // Every connection is opened before A's transaction begins (see
    // `opening_the_intake_waits_for_no_write_in_progress`).
    let (mut a, mut b, mut c) = (store(&db), store(&db), store(&db));
    let (inserted_tx, inserted_rx) = mpsc::channel();
    let (commit_tx, commit_rx) = mpsc::channel::<()>();
    // A claims the key and holds its transaction open.
    let original = thread::spawn(move || {
        a.bulk(|batch| {
            let claim = batch.claim(SCOPE, Some("k-6"), &form("slow"), T0)?;
            inserted_tx.send(claim.id()).unwrap();
            // Until told, or until the test gave up.
            let _ = commit_rx.recv_timeout(Duration::from_secs(30));
            Ok::<_, StoreError>(claim)
        })
        .unwrap()
    });
    let id = inserted_rx.recv().unwrap();

    // B looks the key up: not found yet, never "failed".
    assert_eq!(b.lookup(SCOPE, "k-6").unwrap(), Lookup::NotFoundYet);

    // C retries the same submission: it waits for A, then replays A's receipt.
    let retry = thread::spawn(move || c.claim(SCOPE, Some("k-6"), &form("slow"), T0 + 1_500));
    thread::sleep(Duration::from_millis(300));
    assert!(
        !retry.is_finished(),
        "the retry waits for the original's commit"
    );
    commit_tx.send(()).unwrap();
    assert_eq!(original.join().unwrap(), Claim::New { id });
    assert_eq!(
        retry.join().unwrap().unwrap(),
        Claim::Replay {
            id,
            state: ReceiptState::InFlight,
            response: None
        }
    );
    assert_eq!(b.lookup(SCOPE, "k-6").unwrap(), Lookup::InFlight { id });
    let mut client = db.client();
    assert_eq!(count(&mut client, "receipts"), 1);
    assert_eq!(count(&mut client, "replays"), 1);
}

/// Waits up to `limit` for `handle`; true when it finished.
fn finishes_within<T>(handle: &thread::JoinHandle<T>, limit: Duration) -> bool {
    let started = Instant::now();
    while !handle.is_finished() {
        if started.elapsed() > limit {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn opening_the_intake_waits_for_no_write_in_progress() {
    // Another process's intake is in the middle of a transaction that wrote
    // receipts (a group commit, a demo being loaded). A new process opening
    // the same database (a `serve` starting, a library user) has nothing to
    // create, and must neither wait for that transaction nor hold up the
    // intakes already open.
    let Some(db) = pg_database() else { return };
    let limit = Duration::from_secs(3);
    let (mut a, mut d) = (store(&db), store(&db));
    let (inserted_tx, inserted_rx) = mpsc::channel();
    let (commit_tx, commit_rx) = mpsc::channel::<()>();
    let writing = thread::spawn(move || {
        a.bulk(|batch| {
            let claim = batch.claim(SCOPE, Some("k-long"), &form("long"), T0)?;
            inserted_tx.send(()).unwrap();
            let _ = commit_rx.recv_timeout(Duration::from_secs(60));
            Ok::<_, StoreError>(claim)
        })
        .unwrap()
    });
    inserted_rx.recv().unwrap();

    let url = db.url.clone();
    let opening = thread::spawn(move || {
        let mut store = IntakeStore::open_at(&Location::from(url.as_str()), IntakeMode::Plain)
            .expect("open the intake");
        store
            .claim(SCOPE, Some("k-new"), &form("new"), T0 + 1)
            .unwrap()
    });
    let opened = finishes_within(&opening, limit);
    // An intake open before: its next claim, of a key of its own.
    let other = thread::spawn(move || {
        d.claim(SCOPE, Some("k-other"), &form("other"), T0 + 2)
            .unwrap()
    });
    let other_went_on = finishes_within(&other, limit);

    // Whatever happened, let everything end before asserting.
    commit_tx.send(()).unwrap();
    writing.join().unwrap();
    let new = opening.join().unwrap();
    let other = other.join().unwrap();
    assert!(matches!(new, Claim::New { .. }), "{new:?}");
    assert!(matches!(other, Claim::New { .. }), "{other:?}");
    let said = |yes: bool| if yes { "yes" } else { "NO" };
    assert!(
        opened && other_went_on,
        "while another connection's transaction that wrote receipts was open:\n\
         - a new intake opened within {limit:?}: {}\n\
         - an intake already open went on writing within {limit:?}: {}",
        said(opened),
        said(other_went_on)
    );
}
