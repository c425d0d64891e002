//! The storage boundary is real: an engine held in vectors ([`Memory`]),
//! filled with the rows of a SQLite demo database, gives the same readings,
//! reports and review log as SQLite when the same reading and the same
//! decisions go through it unchanged.

mod memory;
#[path = "../common/rows.rs"]
mod rows;

use std::path::Path;

use memory::Memory;
use receipt_review::demo::{DemoOptions, generate};
use receipt_review::model::{RawReceipt, Settings};
use receipt_review::reading::{self, Reader, Snapshot};
use receipt_review::review::{self, Decision, DecisionRequest, StateRevert};
use receipt_review::storage::{Access, Connections, Storage, open_database};

const NOW_MS: i64 = 1_795_947_330_123;

/// A demo database, and the same rows in memory.
fn both(dir: &Path, receipts: usize) -> (Box<dyn Storage + Send>, Memory) {
    let path = dir.join("demo.db");
    let options = DemoOptions {
        receipts,
        seed: 7,
        now_ms: NOW_MS,
    };
    generate(&path.as_path().into(), &options).unwrap();
    // Exact copies an intake server absorbed (the demo's intake absorbs none).
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "INSERT INTO absorbed (receipt_id, request_key, received_at) VALUES
               (5, NULL, '2026-11-29T10:00:00Z'), (5, 'k-2', '2026-11-29T10:00:01Z'),
               (2900, NULL, '2026-11-29T10:00:02Z');",
        )
        .unwrap();
    let sqlite = open_database(&path, Access::PreferWrite).unwrap();
    let rows = rows::load(&*sqlite).unwrap();
    let memory = Memory {
        location: sqlite.location().clone(),
        source: sqlite.source().clone(),
        receipts: rows.receipts,
        conflicts: rows.conflicts,
        replays: rows.replays,
        replay_total: rows.replay_total,
        absorbed: rows.absorbed,
        absorbed_total: rows.absorbed_total,
        log: None,
        read_only: false,
        commits: 0,
    };
    (sqlite, memory)
}

fn report(storage: &dyn Storage) -> String {
    let snap = reading::read(storage, Settings::new(NOW_MS), &mut |_| {}).unwrap();
    receipt_review::report::json::render(&snap)
}

fn snapshot(storage: &dyn Storage) -> Snapshot {
    reading::read_with_receipts(storage, Settings::new(NOW_MS), &mut |_| {}).unwrap()
}

fn state_of(storage: &dyn Storage, id: i64) -> Option<String> {
    let mut session = storage.begin_read(Connections::One).unwrap();
    let stamp = session.receipt_state(id).unwrap();
    session.end().unwrap();
    stamp.and_then(|s| s.state)
}

/// The request the screen would make for `item` after showing `snap`.
fn request(snap: &Snapshot, item: &str, decision: Decision, at: i64) -> DecisionRequest {
    let target = reading::find_item(snap, item).unwrap();
    DecisionRequest {
        item: item.to_string(),
        kind: target.kind,
        decision,
        operator: "aiko".into(),
        note: Some("checked".into()),
        receipt_ids: target.receipt_ids,
        now_ms: at,
        expected_last: snap.review(item).last_log_id,
        kept: None,
    }
}

#[test]
fn a_reading_in_memory_reports_what_the_sqlite_reading_reports() {
    let dir = tempfile::tempdir().unwrap();
    let (sqlite, memory) = both(dir.path(), 3_000);
    let expected = report(&*sqlite);
    let snap = snapshot(&memory);
    // The demo plants every kind of finding: the comparison covers them all.
    let t = &snap.triage;
    assert!(!t.duplicates.is_empty() && !t.conflicts.is_empty() && !t.stuck.is_empty());
    assert!(!t.damaged.is_empty() && snap.replay_total > 0);
    assert_eq!(snap.absorbed_total, Some(3));
    assert_eq!(snap.absorbed_of(5), Some(2));
    assert_eq!(report(&memory), expected);
    // The items' receipts, as the screen shows them, agree as well.
    let sqlite_snap = snapshot(&*sqlite);
    for id in reading::shown_ids(t) {
        assert_eq!(snap.receipt(id), sqlite_snap.receipt(id), "receipt {id}");
    }
}

#[test]
fn decisions_and_their_undo_go_through_review_alike_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sqlite, mut memory) = both(dir.path(), 3_000);
    let snap = snapshot(&*sqlite);
    let group = snap.triage.duplicates[0].item();
    let stuck = snap.triage.stuck[0].item();
    let stuck_id = snap.triage.stuck[0].receipt_id;
    let engines: [&mut dyn Storage; 2] = [&mut *sqlite, &mut memory];
    let mut logs = Vec::new();
    for storage in engines {
        let snap = snapshot(storage);
        review::decide(storage, &request(&snap, &group, Decision::Spam, NOW_MS)).unwrap();
        let recorded = review::decide(
            storage,
            &request(&snap, &stuck, Decision::Failed, NOW_MS + 1),
        )
        .unwrap();
        assert_eq!(recorded.state_change.unwrap().from, "in_flight");
        assert_eq!(state_of(storage, stuck_id).as_deref(), Some("failed"));

        // A stale view of the group cannot overwrite the decision.
        let stale = request(&snap, &group, Decision::Distinct, NOW_MS + 2);
        assert!(matches!(
            review::decide(storage, &stale),
            Err(review::DecideError::AlreadyDecided { .. })
        ));
        let after = snapshot(storage);
        assert!(after.review(&group).resolved);
        assert_eq!(after.triage.stuck.len(), snap.triage.stuck.len() - 1);

        // Undo takes back the stuck decision and its state change.
        let undone = review::undo_last(storage, "aiko", NOW_MS + 3)
            .unwrap()
            .unwrap();
        assert_eq!(undone.reopened.item, stuck);
        assert!(
            matches!(undone.state, StateRevert::Reverted { receipt_id, .. } if receipt_id == stuck_id)
        );
        assert_eq!(state_of(storage, stuck_id).as_deref(), Some("in_flight"));
        let after = snapshot(storage);
        assert!(!after.review(&stuck).resolved);
        assert!(after.review(&group).resolved);
        logs.push((review::read_log(storage).unwrap(), report(storage)));
    }
    assert_eq!(logs[0].0.len(), 3);
    assert_eq!(logs[0], logs[1]);
    // And a colleague's later decision on the group makes it no longer
    // hers to undo, on either engine.
    for storage in [&mut *sqlite as &mut dyn Storage, &mut memory] {
        let snap = snapshot(storage);
        let mut theirs = request(&snap, &group, Decision::Distinct, NOW_MS + 4);
        theirs.operator = "bo".into();
        review::decide(storage, &theirs).unwrap();
        let err = review::undo_last(storage, "aiko", NOW_MS + 5).unwrap_err();
        assert!(
            matches!(err, review::DecideError::Superseded { ref operator, .. } if operator == "bo"),
            "{err:?}"
        );
    }
    assert_eq!(
        review::read_log(&*sqlite).unwrap(),
        review::read_log(&memory).unwrap()
    );
}

#[test]
fn a_refresh_in_memory_reads_only_what_was_appended_and_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let (_sqlite, mut memory) = both(dir.path(), 3_000);
    // The receipts after the first 2,500 arrive later, with their key
    // conflicts and replays.
    let later: Vec<RawReceipt> = memory.receipts.split_off(2_500);
    let last = memory.receipts.last().unwrap().id;
    let (later_conflicts, conflicts) = memory
        .conflicts
        .iter()
        .cloned()
        .partition(|c| c.receipt_id > last);
    let all = (memory.replays.clone(), memory.replay_total);
    let all_absorbed = (memory.absorbed.clone(), memory.absorbed_total);
    memory.conflicts = conflicts;
    memory.absorbed.retain(|&id, _| id <= last);
    memory.absorbed_total = memory.absorbed.values().map(|&n| u64::from(n)).sum();
    assert_eq!(
        memory.absorbed_total, 2,
        "receipt 2900's copy arrives later"
    );
    memory.replays.retain(|&id, _| id <= last);
    memory.replay_total -= all
        .0
        .iter()
        .filter(|(id, _)| **id > last)
        .map(|(_, n)| u64::from(*n))
        .sum::<u64>();
    let mut reader = Reader::new(Settings::new(NOW_MS));
    let (_, pending) = reader.read(&memory, NOW_MS, &mut |_| {}).unwrap();
    pending.end().unwrap();
    memory.receipts.extend(later);
    memory.conflicts.extend::<Vec<_>>(later_conflicts);
    memory.conflicts.sort_by_key(|c| c.id);
    (memory.replays, memory.replay_total) = all;
    (memory.absorbed, memory.absorbed_total) = all_absorbed;
    let (mut refreshed, pending) = reader.read(&memory, NOW_MS, &mut |_| {}).unwrap();
    assert_eq!(reader.last_extent(), reading::Extent::Appended);
    reader
        .fill_receipts(pending, &mut refreshed, &mut |_| {})
        .unwrap();
    let fresh = snapshot(&memory);
    assert_eq!(refreshed.absorbed_total, Some(3));
    assert_eq!(
        receipt_review::report::json::render(&refreshed),
        receipt_review::report::json::render(&fresh)
    );
}
