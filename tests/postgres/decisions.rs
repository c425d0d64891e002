//! Two operators, on two connections, decide one item at the same moment:
//! one decision is recorded, the other operator is told who decided first.

use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};
use std::thread;

use receipt_review::model::{Decision, Settings};
use receipt_review::reading;
use receipt_review::review::{self, DecideError, DecisionRequest};
use receipt_review::storage::{Access, Location, open_database};

use crate::common::pg::{PgDatabase, pg_database};
use crate::support::{NOW, NOW_MS, password, report_json, run, run_hiding};

const ITEMS: usize = 20;

/// A demo database and the first [`ITEMS`] duplicate items of its report.
fn demo(db: &PgDatabase) -> Vec<String> {
    let ran = run(&[
        "demo",
        "--out",
        &db.url,
        "--receipts",
        "400",
        "--seed",
        "11",
        "--now",
        NOW,
    ]);
    assert_eq!(ran.code, Some(0), "demo: {}", ran.said());
    let items: Vec<String> = report_json(&db.url)["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["item"].as_str().unwrap().to_string())
        .take(ITEMS)
        .collect();
    assert_eq!(items.len(), ITEMS, "the demo has {ITEMS} duplicate groups");
    items
}

/// The review log's rows per item, and who decided each.
fn log_by_item(db: &PgDatabase) -> BTreeMap<String, Vec<String>> {
    let mut by_item: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in db
        .client()
        .query("SELECT item, operator FROM review_log ORDER BY id", &[])
        .unwrap()
    {
        by_item.entry(row.get(0)).or_default().push(row.get(1));
    }
    by_item
}

#[test]
fn two_resolves_of_one_item_at_once_record_one_decision() {
    let Some(db) = pg_database() else { return };
    let items = demo(&db);
    let secret = password(&db.url);
    let mut winners = BTreeMap::new();
    for item in &items {
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = ["alice", "bob"]
            .into_iter()
            .map(|operator| {
                let (barrier, url, item, secret) = (
                    barrier.clone(),
                    db.url.clone(),
                    item.clone(),
                    secret.clone(),
                );
                thread::spawn(move || {
                    barrier.wait();
                    let ran = run_hiding(
                        secret.as_deref(),
                        &[
                            "resolve",
                            &url,
                            &item,
                            "duplicate",
                            "--operator",
                            operator,
                            "--now",
                            NOW,
                        ],
                    );
                    (operator, ran)
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let won: Vec<&str> = results
            .iter()
            .filter(|(_, ran)| ran.code == Some(0))
            .map(|(operator, _)| *operator)
            .collect();
        let said = || {
            results
                .iter()
                .map(|(operator, ran)| format!("{operator}: {}", ran.said()))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(won.len(), 1, "{item}: exactly one recorded:\n{}", said());
        let winner = won[0];
        let (_, lost) = results.iter().find(|(o, _)| *o != winner).unwrap();
        assert_eq!(lost.code, Some(1), "{item}: the other exits 1:\n{}", said());
        assert_eq!(
            lost.stderr_lines().len(),
            1,
            "{item}: one line:\n{}",
            said()
        );
        assert!(
            lost.stderr
                .contains(&format!("already decided by {winner} at ")),
            "{item}: the other is told {winner} decided first:\n{}",
            said()
        );
        winners.insert(item.clone(), vec![winner.to_string()]);
    }
    assert_eq!(log_by_item(&db), winners, "one row per item, the winner's");
}

#[test]
fn two_decisions_racing_past_their_readings_record_one() {
    // Both operators have read the item as pending; their decisions then
    // reach the database at the same moment (the guard in the write is all
    // that stands between them).
    let Some(db) = pg_database() else { return };
    let items = demo(&db);
    let location = Location::from(db.url.as_str());
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = ["alice", "bob"]
        .into_iter()
        .map(|operator| {
            let (barrier, location, items) = (barrier.clone(), location.clone(), items.clone());
            thread::spawn(move || {
                let mut storage = open_database(&location, Access::PreferWrite).unwrap();
                items
                    .iter()
                    .map(|item| {
                        // Whatever goes wrong, both threads meet at each
                        // barrier: one never waits for the other for ever.
                        let request = (|| {
                            let snap = reading::read(&*storage, Settings::new(NOW_MS), &mut |_| {})
                                .map_err(|e| format!("read: {e}"))?;
                            let target = reading::find_item(&snap, item)
                                .ok_or_else(|| format!("{item} is not in the snapshot"))?;
                            let review = snap.review(item);
                            if review.resolved {
                                return Err(format!("{item} is decided when read"));
                            }
                            Ok(DecisionRequest {
                                item: item.clone(),
                                kind: target.kind,
                                decision: Decision::Distinct,
                                operator: operator.to_string(),
                                note: None,
                                receipt_ids: target.receipt_ids,
                                now_ms: NOW_MS,
                                expected_last: review.last_log_id,
                                kept: None,
                            })
                        })();
                        barrier.wait();
                        let outcome = request.map(|r| review::decide(&mut *storage, &r));
                        // The next item is read after both have decided.
                        barrier.wait();
                        outcome
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let mut winners = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        let (a, b) = (&results[0][i], &results[1][i]);
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("{item}: alice {a:?}, bob {b:?}");
        };
        let (winner, lost) = match (a, b) {
            (Ok(_), Err(e)) => ("alice", e),
            (Err(e), Ok(_)) => ("bob", e),
            _ => panic!("{item}: exactly one decision is recorded: alice {a:?}, bob {b:?}"),
        };
        match lost {
            DecideError::AlreadyDecided { operator, .. } => {
                assert_eq!(operator, winner, "{item}: names who decided first")
            }
            other => panic!("{item}: the other is told who decided first, got {other:?}"),
        }
        winners.insert(item.clone(), vec![winner.to_string()]);
    }
    assert_eq!(log_by_item(&db), winners, "one row per item, the winner's");
}
