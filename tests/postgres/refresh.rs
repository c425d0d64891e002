//! A refresh sees every committed receipt exactly once though ids commit out
//! of order: a transaction that took id 100 commits after the one that took
//! 101, and a reading between the two commits has read past 100.

use std::thread;
use std::time::{Duration, Instant};

use receipt_review::model::{ReceiptId, Settings};
use receipt_review::reading::{Extent, Reader, Snapshot};
use receipt_review::storage::{self, Access, Connections, Location, Storage, open_database};

use crate::common::pg::{PgDatabase, pg_database};
use crate::support::{NOW_MS, insert_receipt, payload};

/// Receipts 1..=99 before the test begins.
const BEFORE: i64 = 99;

fn at(id: i64) -> String {
    receipt_review::model::time::format_rfc3339(NOW_MS - 5 * 3_600_000 + id * 60_000)
}

/// A database with receipts `1..=BEFORE`, opened read-only as the screen
/// opens it.
fn setup(db: &PgDatabase) -> Box<dyn Storage + Send> {
    let location = Location::from(db.url.as_str());
    storage::init(&location).unwrap();
    let mut client = db.client();
    let mut tx = client.transaction().unwrap();
    for id in 1..=BEFORE {
        insert_receipt(&mut tx, id, &payload(id), &at(id));
    }
    tx.commit().unwrap();
    open_database(&location, Access::ReadOnly).unwrap()
}

/// One refresh: the snapshot, the reading ended.
fn refresh(reader: &mut Reader, storage: &dyn Storage) -> Snapshot {
    let (snap, pending) = reader.read(storage, NOW_MS, &mut |_| {}).unwrap();
    pending.end().unwrap();
    snap
}

/// Which of `ids` a reading of the database finds now.
fn present(storage: &dyn Storage, ids: &[ReceiptId]) -> Vec<ReceiptId> {
    let mut session = storage.begin_read(Connections::One).unwrap();
    let held = session.receipts_held(ids).unwrap();
    let mut buf = String::new();
    let found = (0..held.len()).map(|i| held.row(i, &mut buf).id).collect();
    session.end().unwrap();
    found
}

/// A full reading, as `report` makes it, for comparison.
fn full(db: &PgDatabase) -> Snapshot {
    let storage = open_database(db.url.as_str(), Access::ReadOnly).unwrap();
    receipt_review::reading::read(&*storage, Settings::new(NOW_MS), &mut |_| {}).unwrap()
}

fn rows(snap: &Snapshot) -> usize {
    receipt_review::report::receipt_count(snap)
}

#[test]
fn a_refresh_sees_every_committed_receipt_once_though_ids_commit_out_of_order() {
    let Some(db) = pg_database() else { return };
    let storage = setup(&db);
    let mut reader = Reader::new(Settings::new(NOW_MS));
    let n = BEFORE as usize;
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n);

    // A takes id 100 and does not commit yet; B takes 101 and commits.
    let mut a = db.client();
    let mut a_tx = a.transaction().unwrap();
    insert_receipt(&mut a_tx, 100, &payload(100), &at(100));
    let mut b = db.client();
    insert_receipt(&mut b, 101, &payload(101), &at(101));

    let snap = refresh(&mut reader, &*storage);
    assert_eq!(snap.receipt_count, n + 1, "101 is seen, 100 not yet");
    assert_eq!(
        reader.last_extent(),
        Extent::Appended,
        "the second refresh reads what was appended"
    );
    assert_eq!(present(&*storage, &[100, 101]), vec![101]);

    // A commits: 100 is below where the last refresh ended.
    a_tx.commit().unwrap();
    let snap = refresh(&mut reader, &*storage);
    assert_eq!(
        snap.receipt_count,
        n + 2,
        "receipt 100, committed after 101, is seen (and 101 once)"
    );
    assert_eq!(rows(&snap), n + 2, "the report's total");
    assert_eq!(present(&*storage, &[100, 101]), vec![100, 101]);
    assert_eq!(snap.receipt_count, full(&db).receipt_count);

    // Nothing more: the next refresh reads only what is appended, and
    // counts nothing twice.
    let snap = refresh(&mut reader, &*storage);
    assert_eq!(snap.receipt_count, n + 2);
    assert_eq!(reader.last_extent(), Extent::Appended);
    insert_receipt(&mut b, 102, &payload(102), &at(102));
    let snap = refresh(&mut reader, &*storage);
    assert_eq!(snap.receipt_count, n + 3);
    assert_eq!(reader.last_extent(), Extent::Appended);
    assert_eq!(snap.receipt_count, full(&db).receipt_count);
}

#[test]
fn ids_from_the_sequence_committed_out_of_order_are_each_seen_once() {
    let Some(db) = pg_database() else { return };
    let storage = setup(&db);
    let mut client = db.client();
    // The identity's sequence starts past the rows given their ids.
    client
        .batch_execute(&format!(
            "SELECT setval(pg_get_serial_sequence('receipts', 'id'), {BEFORE})"
        ))
        .unwrap();
    let mut reader = Reader::new(Settings::new(NOW_MS));
    let n = BEFORE as usize;
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n);

    let insert = "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at) \
                  VALUES ('corp/contact', $1, $2, $3, 'completed', $4::text::timestamptz) RETURNING id";
    let digest = |p: &str| receipt_review::intake::canonical::sha256_hex(p);
    let mut a = db.client();
    let mut a_tx = a.transaction().unwrap();
    let (pa, pb) = (payload(500), payload(501));
    let first: i64 = a_tx
        .query_one(insert, &[&"ka", &digest(&pa), &pa, &at(100)])
        .unwrap()
        .get(0);
    let second: i64 = client
        .query_one(insert, &[&"kb", &digest(&pb), &pb, &at(101)])
        .unwrap()
        .get(0);
    assert!(first < second, "{first} was taken before {second}");

    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n + 1);
    a_tx.commit().unwrap();
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n + 2);
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n + 2);
    assert_eq!(present(&*storage, &[first, second]), vec![first, second]);
}

#[test]
fn an_id_whose_transaction_rolls_back_leaves_later_refreshes_appending() {
    let Some(db) = pg_database() else { return };
    let storage = setup(&db);
    let mut reader = Reader::new(Settings::new(NOW_MS));
    let n = BEFORE as usize;
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n);

    let mut a = db.client();
    let mut a_tx = a.transaction().unwrap();
    insert_receipt(&mut a_tx, 100, &payload(100), &at(100));
    let mut b = db.client();
    insert_receipt(&mut b, 101, &payload(101), &at(101));
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n + 1);

    a_tx.rollback().unwrap();
    // 100 will never commit: the refreshes go on appending, and see 102.
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, n + 1);
    insert_receipt(&mut b, 102, &payload(102), &at(102));
    let snap = refresh(&mut reader, &*storage);
    assert_eq!(snap.receipt_count, n + 2);
    assert_eq!(reader.last_extent(), Extent::Appended);
    assert_eq!(present(&*storage, &[100, 101, 102]), vec![101, 102]);
}

#[test]
fn an_id_taken_before_its_transaction_first_writes_is_seen_once_it_commits() {
    // As the intake's `insert_completed` does: `SELECT nextval(…)`, then the
    // INSERT with that id. Until the INSERT the transaction has no
    // transaction id, so a reading taken meanwhile does not count it among
    // those still running. A transaction elsewhere on the cluster older than
    // A's would hide the loss (the reading then keeps waiting for the id):
    // each round waits for those to end first.
    let Some(db) = pg_database() else { return };
    let storage = setup(&db);
    let mut client = db.client();
    client
        .batch_execute(&format!(
            "SELECT setval(pg_get_serial_sequence('receipts', 'id'), {BEFORE})"
        ))
        .unwrap();
    let mut reader = Reader::new(Settings::new(NOW_MS));
    // Between two of the reader's checks of the whole table.
    reader.verify_every = Duration::from_secs(3_600);
    let mut expected = BEFORE as usize;
    assert_eq!(refresh(&mut reader, &*storage).receipt_count, expected);
    let digest = receipt_review::intake::canonical::sha256_hex;
    let next_id = "SELECT nextval(pg_get_serial_sequence('receipts', 'id'))";
    let started = Instant::now();
    let mut shown = 0;
    let mut round = 0i64;
    while shown < 3 && round < 20 && started.elapsed() < Duration::from_secs(60) {
        round += 1;
        let mut a = db.client();
        // A draws an id; a draw that writes the sequence gives the
        // transaction an id at once: that one is not the case, draw again.
        let (mut a_tx, taken) = loop {
            let mut tx = a.transaction().unwrap();
            let taken: i64 = tx.query_one(next_id, &[]).unwrap().get(0);
            let xid: Option<String> = tx
                .query_one("SELECT txid_current_if_assigned()::text", &[])
                .unwrap()
                .get(0);
            if xid.is_none() {
                break (tx, taken);
            }
            tx.rollback().unwrap();
        };
        // B takes the next id and commits; a refresh reads it.
        let pb = payload(1_000 + 2 * round);
        let later: i64 = client
            .query_one(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at) \
                 VALUES ('corp/contact', $1, $2, $3, 'completed', $4::text::timestamptz) RETURNING id",
                &[&format!("kb{round}"), &digest(&pb), &pb, &at(100 + round)],
            )
            .unwrap()
            .get(0);
        assert!(taken < later, "round {round}: {taken} before {later}");
        expected += 1;
        assert_eq!(refresh(&mut reader, &*storage).receipt_count, expected);

        // A writes its receipt now, a refresh comes before A commits.
        let pa = payload(1_001 + 2 * round);
        a_tx.execute(
            "INSERT INTO receipts (id, scope, request_key, digest, payload, state, created_at) \
             VALUES ($1, 'corp/contact', $2, $3, $4, 'completed', $5::text::timestamptz)",
            &[
                &taken,
                &format!("ka{round}"),
                &digest(&pa),
                &pa,
                &at(100 + round),
            ],
        )
        .unwrap();
        let a_xid: i64 = a_tx
            .query_one("SELECT pg_current_xact_id()::text::bigint", &[])
            .unwrap()
            .get(0);
        // Until every transaction older than A's has ended (ids are handed
        // out in order: none older can begin later).
        let waiting = Instant::now();
        loop {
            let oldest: i64 = client
                .query_one(
                    "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
                    &[],
                )
                .unwrap()
                .get(0);
            if oldest >= a_xid {
                shown += 1;
                break;
            }
            if waiting.elapsed() > Duration::from_secs(10) {
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(refresh(&mut reader, &*storage).receipt_count, expected);
        a_tx.commit().unwrap();
        expected += 1;

        let snap = refresh(&mut reader, &*storage);
        assert_eq!(present(&*storage, &[taken, later]), vec![taken, later]);
        assert_eq!(
            snap.receipt_count,
            expected,
            "round {round}: the refresh after receipt {taken} committed (below {later}, \
             read before) misses it; a full reading counts {}",
            full(&db).receipt_count
        );
    }
    if shown == 0 {
        eprintln!(
            "an_id_taken_before_its_transaction_first_writes: older transactions on the \
             cluster kept every round from showing the case"
        );
    }
}

#[test]
fn a_receipt_settled_in_place_is_seen_by_its_state_and_a_deleted_one_reads_all() {
    let Some(db) = pg_database() else { return };
    let storage = setup(&db);
    let mut client = db.client();
    client
        .execute(
            "UPDATE receipts SET state = 'in_flight' WHERE id IN (10, 11, 12)",
            &[],
        )
        .unwrap();
    let stuck = |snap: &Snapshot| -> Vec<ReceiptId> {
        snap.triage.stuck.iter().map(|s| s.receipt_id).collect()
    };
    let mut reader = Reader::new(Settings::new(NOW_MS));
    // The rows are read whole now and then only: these readings look at
    // the states of the rows in flight, and read whole those that changed.
    reader.verify_every = Duration::from_secs(3600);
    assert_eq!(stuck(&refresh(&mut reader, &*storage)), [10, 11, 12]);
    assert_eq!(stuck(&refresh(&mut reader, &*storage)), [10, 11, 12]);
    assert_eq!(reader.last_extent(), Extent::Appended);

    client
        .execute(
            "UPDATE receipts SET state = 'completed', updated_at = now() WHERE id = 11",
            &[],
        )
        .unwrap();
    let snap = refresh(&mut reader, &*storage);
    assert_eq!(reader.last_extent(), Extent::Appended);
    assert_eq!(stuck(&snap), [10, 12]);
    assert_eq!(stuck(&snap), stuck(&full(&db)));

    client
        .execute("DELETE FROM receipts WHERE id = 12", &[])
        .unwrap();
    let snap = refresh(&mut reader, &*storage);
    assert_eq!(reader.last_extent(), Extent::Full);
    assert_eq!(stuck(&snap), [10]);
    assert_eq!(rows(&snap), rows(&full(&db)));
}
