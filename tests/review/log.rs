//! Decisions, undo and status against real SQLite files.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use receipt_review::model::time::format_rfc3339;
use receipt_review::review::{
    self, DecideError, Decision, DecisionError, Kind, ReopenRequest, StateRevert, Status,
};
use receipt_review::storage::{Access, OpenOptions};
use rusqlite::{Connection, params};
use tempfile::TempDir;

use crate::common::db::Db;
use crate::support::{T0, decided, request};

const SCHEMA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/schema.sql"));
const REVIEW_LOG_SQL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/review_log.sql"
));
const CREATED: &str = "2026-11-29 09:00:00";

fn new_db() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("receipts.db");
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    (dir, path)
}

fn open(path: &Path) -> Db {
    let options = OpenOptions::new(Access::PreferWrite).busy_timeout(Duration::from_secs(10));
    Db::open_with(path, options).unwrap()
}

fn add_receipt(db: &Db, id: i64, state: &str) {
    db.conn().execute(
        "INSERT INTO receipts (id, scope, request_key, digest, payload, state, created_at, updated_at) \
         VALUES (?1, 'site', ?2, 'd', '{}', ?3, ?4, ?4)",
        params![id, format!("k{id}"), state, CREATED],
    )
    .unwrap();
}

fn state_of(db: &Db, id: i64) -> (String, Option<String>) {
    db.conn()
        .query_row(
            "SELECT state, updated_at FROM receipts WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

fn log_rows(db: &Db) -> usize {
    review::read_log(db).unwrap().len()
}

fn has_log_table(db: &Db) -> bool {
    db.conn()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
        > 0
}

#[test]
fn a_decision_is_one_row_with_operator_time_ids_and_note() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    for id in [12, 13] {
        add_receipt(&conn, id, "completed");
    }
    let mut req = request("dup:12", Decision::Duplicate, " alice ", &[13, 12, 13]);
    req.note = Some("same visitor, reloaded".into());
    let recorded = review::decide(&mut conn, &req).unwrap();
    assert_eq!(recorded.state_change, None);

    let log = review::read_log(&conn).unwrap();
    assert_eq!(log, vec![recorded.entry.clone()]);
    let e = &log[0];
    assert_eq!(e.item, "dup:12");
    assert_eq!(e.kind, Kind::Duplicate);
    assert_eq!(e.decision, Decision::Duplicate);
    assert_eq!(e.operator, "alice");
    assert_eq!(e.decided_at, "2026-11-29T10:15:30.123Z");
    assert_eq!(e.decided_ms(), Some(T0));
    assert_eq!(e.receipt_ids, vec![12, 13]);
    assert_eq!(e.note.as_deref(), Some("same visitor, reloaded"));
    assert_eq!(e.reopens, None);
    assert!(!e.changed_state());
    let stored: String = conn
        .conn()
        .query_row("SELECT receipt_ids FROM review_log", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, "[12,13]");

    // Nothing happened to the receipts.
    assert_eq!(state_of(&conn, 12).0, "completed");
    assert_eq!(review::latest_log_id(&conn).unwrap(), Some(e.id));
    let statuses = review::load_statuses(&conn).unwrap();
    assert_eq!(statuses.len(), 1);
    assert_eq!(statuses["dup:12"].entries, 1);
    assert_eq!(
        statuses["dup:12"].status(&[12, 13]),
        Status::Resolved {
            decision: Decision::Duplicate,
            operator: "alice".into(),
            decided_at: "2026-11-29T10:15:30.123Z".into(),
            note: Some("same visitor, reloaded".into()),
        }
    );
}

#[test]
fn the_database_refuses_to_change_or_delete_log_rows() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 40, "completed");
    let req = request("conflict:40", Decision::FollowUp, "alice", &[]);
    let entry = review::decide(&mut conn, &req).unwrap().entry;
    assert_eq!(entry.receipt_ids, vec![40]);

    for sql in [
        "UPDATE review_log SET operator = 'mallory'",
        "UPDATE review_log SET decision = 'original_stands' WHERE id = 1",
        "DELETE FROM review_log",
        "DELETE FROM review_log WHERE id = 1",
        "INSERT OR REPLACE INTO review_log (id, item, kind, decision, operator, decided_at, receipt_ids) \
         VALUES (1, 'conflict:40', 'conflict', 'original_stands', 'mallory', 'x', '[40]')",
        "REPLACE INTO review_log (id, item, kind, decision, operator, decided_at, receipt_ids) \
         VALUES (1, 'conflict:40', 'conflict', 'original_stands', 'mallory', 'x', '[40]')",
    ] {
        let err = conn.conn().execute(sql, []).unwrap_err();
        assert!(err.to_string().contains("append-only"), "{sql}: {err}");
    }
    // Out-of-vocabulary rows are refused by the table itself.
    let err = conn
        .conn()
        .execute(
            "INSERT INTO review_log (item, kind, decision, operator, decided_at, receipt_ids) \
             VALUES ('conflict:40', 'conflict', 'spam', 'mallory', 'x', '[40]')",
            [],
        )
        .unwrap_err();
    assert!(err.to_string().contains("CHECK"), "{err}");
    assert_eq!(review::read_log(&conn).unwrap(), vec![entry]);
}

#[test]
fn reading_never_creates_the_log_and_copes_with_its_absence() {
    let (_dir, path) = new_db();
    {
        let conn = open(&path);
        add_receipt(&conn, 1, "in_flight");
    }
    let conn = Db::open(&path, Access::ReadOnly).unwrap();
    assert!(review::read_log(&conn).unwrap().is_empty());
    assert!(review::load_statuses(&conn).unwrap().is_empty());
    assert_eq!(review::latest_log_id(&conn).unwrap(), None);
    assert_eq!(review::latest_entry(&conn, "stuck:1").unwrap(), None);
    assert!(review::history(&conn, "stuck:1").unwrap().is_empty());
    assert!(!review::log_exists(&conn).unwrap());
    let mut out = Vec::new();
    assert_eq!(
        review::export(&conn, review::ExportFormat::Jsonl, &mut out).unwrap(),
        0
    );
    assert!(out.is_empty());
    assert!(!has_log_table(&conn));

    // Writing on a read-only connection is a typed error.
    let mut conn = conn;
    let err = review::decide(
        &mut conn,
        &request("stuck:1", Decision::StillPending, "alice", &[]),
    )
    .unwrap_err();
    assert!(matches!(err, DecideError::ReadOnly), "{err:?}");
    assert!(!has_log_table(&conn));
}

#[test]
fn a_decision_of_the_wrong_kind_is_refused_naming_the_allowed_ones() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 12, "in_flight");

    let err = review::decide(
        &mut conn,
        &request("dup:12", Decision::Completed, "alice", &[12]),
    )
    .unwrap_err();
    match &err {
        DecideError::Invalid(DecisionError::NotAllowed { kind, decision }) => {
            assert_eq!((*kind, *decision), (Kind::Duplicate, Decision::Completed));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .contains("choose one of: duplicate, correction, distinct, spam"),
        "{err}"
    );

    let err = review::decide(
        &mut conn,
        &request("stuck:12", Decision::Reopened, "alice", &[]),
    )
    .unwrap_err();
    assert!(
        matches!(err, DecideError::Invalid(DecisionError::NotAllowed { .. })),
        "{err:?}"
    );

    let mut req = request("stuck:12", Decision::Completed, "alice", &[]);
    req.kind = Kind::Duplicate;
    let err = review::decide(&mut conn, &req).unwrap_err();
    assert!(
        matches!(
            err,
            DecideError::Invalid(DecisionError::KindMismatch { .. })
        ),
        "{err:?}"
    );

    let err = review::decide(
        &mut conn,
        &request("dup:12", Decision::Spam, "alice", &[13, 14]),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            DecideError::Invalid(DecisionError::ItemNotCovered { .. })
        ),
        "{err:?}"
    );

    let err =
        review::decide(&mut conn, &request("dup:12", Decision::Spam, "  ", &[12])).unwrap_err();
    assert!(
        matches!(err, DecideError::Invalid(DecisionError::NoOperator)),
        "{err:?}"
    );

    // Nothing was written, not even the table.
    assert!(!has_log_table(&conn));
    assert_eq!(state_of(&conn, 12).0, "in_flight");
}

#[test]
fn a_stale_view_cannot_overwrite_another_operators_decision() {
    let (_dir, path) = new_db();
    let mut alice = open(&path);
    let mut bob = open(&path);
    add_receipt(&alice, 12, "completed");
    add_receipt(&alice, 13, "completed");

    let first = decided(
        &mut alice,
        "dup:12",
        Decision::Duplicate,
        "alice",
        &[12, 13],
    );
    // Bob looked before Alice decided: he saw no decision.
    let err = review::decide(
        &mut bob,
        &request("dup:12", Decision::Distinct, "bob", &[12, 13]),
    )
    .unwrap_err();
    match &err {
        DecideError::AlreadyDecided {
            id,
            operator,
            decided_at,
            decision,
            ..
        } => {
            assert_eq!(*id, first.id);
            assert_eq!(operator, "alice");
            assert_eq!(decided_at, "2026-11-29T10:15:30.123Z");
            assert_eq!(*decision, Decision::Duplicate);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "already decided by alice at 2026-11-29T10:15:30.123Z (duplicate)"
    );
    assert_eq!(log_rows(&bob), 1);

    // A stale id is just as stale.
    let mut req = request("dup:12", Decision::Distinct, "bob", &[12, 13]);
    req.expected_last = Some(first.id + 100);
    assert!(matches!(
        review::decide(&mut bob, &req),
        Err(DecideError::AlreadyDecided { .. })
    ));
    assert_eq!(log_rows(&bob), 1);

    // Having seen Alice's decision, Bob may change it deliberately.
    req.expected_last = Some(first.id);
    let second = review::decide(&mut bob, &req).unwrap().entry;
    assert!(second.id > first.id);
    let statuses = review::load_statuses(&alice).unwrap();
    assert_eq!(statuses["dup:12"].entries, 2);
    assert_eq!(statuses["dup:12"].latest, second);
    assert_eq!(
        review::history(&alice, "dup:12").unwrap(),
        vec![first, second]
    );
}

#[test]
fn stuck_failed_changes_the_receipt_and_the_log_together() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");

    let mut req = request("stuck:77", Decision::Failed, "alice", &[]);
    req.note = Some("payment provider says no charge".into());
    let recorded = review::decide(&mut conn, &req).unwrap();
    let change = recorded.state_change.unwrap();
    assert_eq!((change.receipt_id, change.from.as_str()), (77, "in_flight"));
    assert_eq!(change.to.as_str(), "failed");

    let now = format_rfc3339(T0);
    assert_eq!(
        state_of(&conn, 77),
        ("failed".to_string(), Some(now.clone()))
    );
    let e = &review::read_log(&conn).unwrap()[0];
    assert_eq!(e.decision, Decision::Failed);
    assert_eq!(e.receipt_ids, vec![77]);
    assert_eq!(e.state_before.as_deref(), Some("in_flight"));
    assert_eq!(e.state_after.as_deref(), Some("failed"));
    assert_eq!(e.updated_at_before.as_deref(), Some(CREATED));
    assert_eq!(e.updated_at_after.as_deref(), Some(now.as_str()));
}

#[test]
fn when_the_log_row_cannot_be_written_the_state_change_is_rolled_back() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");
    conn.conn().execute_batch(REVIEW_LOG_SQL).unwrap();
    conn.conn()
        .execute_batch(
            "CREATE TRIGGER fail_log BEFORE INSERT ON main.review_log \
         BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;",
        )
        .unwrap();
    let err = review::decide(
        &mut conn,
        &request("stuck:77", Decision::Completed, "alice", &[]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("disk on fire"), "{err}");
    assert_eq!(
        state_of(&conn, 77),
        ("in_flight".to_string(), Some(CREATED.into()))
    );
    conn.conn()
        .execute_batch("DROP TRIGGER main.fail_log")
        .unwrap();
    assert_eq!(log_rows(&conn), 0);
}

#[test]
fn a_receipt_no_longer_in_flight_is_refused_and_nothing_is_logged() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "completed");
    let err = review::decide(
        &mut conn,
        &request("stuck:77", Decision::Failed, "alice", &[]),
    )
    .unwrap_err();
    match &err {
        DecideError::NotInFlight {
            receipt_id,
            now_state,
        } => assert_eq!((*receipt_id, now_state.as_str()), (77, "completed")),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("no longer in flight"), "{err}");
    assert_eq!(state_of(&conn, 77).0, "completed");
    assert_eq!(log_rows(&conn), 0);
    assert!(!has_log_table(&conn));

    let err = review::decide(
        &mut conn,
        &request("stuck:78", Decision::Failed, "alice", &[]),
    )
    .unwrap_err();
    assert!(
        matches!(err, DecideError::ReceiptNotFound { receipt_id: 78 }),
        "{err:?}"
    );
    assert!(!has_log_table(&conn));
}

#[test]
fn still_pending_is_logged_and_changes_no_receipt() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");
    let recorded = review::decide(
        &mut conn,
        &request("stuck:77", Decision::StillPending, "alice", &[77]),
    )
    .unwrap();
    assert_eq!(recorded.state_change, None);
    assert_eq!(
        state_of(&conn, 77),
        ("in_flight".to_string(), Some(CREATED.into()))
    );
    assert_eq!(log_rows(&conn), 1);
}

#[test]
fn on_a_receipts_view_state_changes_are_refused_but_other_decisions_work() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE submissions (sid INTEGER PRIMARY KEY, body TEXT, at TEXT, status TEXT);
         INSERT INTO submissions VALUES (7, '{}', '2026-11-29 09:00:00', 'in_flight');
         CREATE VIEW receipts AS SELECT sid AS id, body AS payload, at AS created_at,
                                        status AS state FROM submissions;",
        )
        .unwrap();
    let mut conn = open(&path);
    let err = review::decide(
        &mut conn,
        &request("stuck:7", Decision::Completed, "alice", &[]),
    )
    .unwrap_err();
    assert!(matches!(err, DecideError::ReceiptsIsView), "{err:?}");
    assert!(err.to_string().contains("view"), "{err}");
    assert!(!has_log_table(&conn));

    review::decide(
        &mut conn,
        &request("stuck:7", Decision::StillPending, "alice", &[]),
    )
    .unwrap();
    review::decide(
        &mut conn,
        &request("dup:7", Decision::Spam, "alice", &[7, 8]),
    )
    .unwrap();
    let status: String = conn
        .conn()
        .query_row("SELECT status FROM submissions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "in_flight");
    assert_eq!(log_rows(&conn), 2);
}

#[test]
fn two_operators_racing_on_one_stuck_receipt_change_it_once() {
    for round in 0..8 {
        let (_dir, path) = new_db();
        {
            let conn = open(&path);
            add_receipt(&conn, 77, "in_flight");
        }
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = [("alice", Decision::Failed), ("bob", Decision::Completed)]
            .into_iter()
            .map(|(operator, decision)| {
                let path = path.clone();
                let barrier = Arc::clone(&barrier);
                thread::spawn(move || {
                    let mut conn = open(&path);
                    let req = request("stuck:77", decision, operator, &[77]);
                    barrier.wait();
                    (decision, review::decide(&mut conn, &req))
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();

        let winners: Vec<_> = results.iter().filter(|(_, r)| r.is_ok()).collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let winner = winners[0].0;
        for (_, result) in &results {
            if let Err(e) = result {
                assert!(
                    matches!(
                        e,
                        DecideError::AlreadyDecided { .. } | DecideError::NotInFlight { .. }
                    ),
                    "round {round}: {e:?}"
                );
            }
        }
        let conn = open(&path);
        let log = review::read_log(&conn).unwrap();
        assert_eq!(log.len(), 1, "round {round}");
        assert_eq!(log[0].decision, winner);
        assert_eq!(state_of(&conn, 77).0, winner.as_str());
    }
}

#[test]
fn a_held_write_lock_is_a_typed_busy_error() {
    let (_dir, path) = new_db();
    let holder = open(&path);
    add_receipt(&holder, 77, "in_flight");
    holder.conn().execute_batch("BEGIN IMMEDIATE").unwrap();

    let options = OpenOptions::new(Access::PreferWrite).busy_timeout(Duration::from_millis(50));
    let mut conn = Db::open_with(&path, options).unwrap();
    let err = review::decide(
        &mut conn,
        &request("stuck:77", Decision::Failed, "alice", &[]),
    )
    .unwrap_err();
    assert!(matches!(err, DecideError::Busy), "{err:?}");
    assert!(err.to_string().contains("busy"), "{err}");
    holder.conn().execute_batch("ROLLBACK").unwrap();
    assert_eq!(state_of(&conn, 77).0, "in_flight");
    assert!(!has_log_table(&conn));
}

#[test]
fn undo_appends_a_reopening_and_reverts_an_untouched_state() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");
    let decided = decided(&mut conn, "stuck:77", Decision::Failed, "alice", &[]);

    let undone = review::undo_last(&mut conn, "alice", T0 + 5_000)
        .unwrap()
        .unwrap();
    assert_eq!(undone.reopened, decided);
    assert_eq!(
        undone.state,
        StateRevert::Reverted {
            receipt_id: 77,
            from: "failed".into()
        }
    );
    let e = &undone.entry;
    assert_eq!(e.decision, Decision::Reopened);
    assert_eq!(e.reopens, Some(decided.id));
    assert_eq!(e.item, "stuck:77");
    assert_eq!(e.operator, "alice");
    assert_eq!(e.receipt_ids, vec![77]);
    assert_eq!(e.decided_at, format_rfc3339(T0 + 5_000));
    assert_eq!(e.state_before.as_deref(), Some("failed"));
    assert_eq!(e.state_after.as_deref(), Some("in_flight"));
    assert_eq!(
        state_of(&conn, 77),
        ("in_flight".to_string(), Some(format_rfc3339(T0 + 5_000)))
    );

    let log = review::read_log(&conn).unwrap();
    assert_eq!(log, vec![decided, undone.entry.clone()]);
    let statuses = review::load_statuses(&conn).unwrap();
    assert_eq!(statuses["stuck:77"].status(&[77]), Status::Pending);

    // Nothing further to undo; the log is unchanged.
    assert_eq!(
        review::undo_last(&mut conn, "alice", T0 + 6_000).unwrap(),
        None
    );
    assert_eq!(log_rows(&conn), 2);

    // Pending again, so anyone may decide it anew, and it can be changed again.
    let again = review::decide(
        &mut conn,
        &request("stuck:77", Decision::Completed, "bob", &[]),
    )
    .unwrap();
    assert_eq!(again.state_change.unwrap().from, "in_flight");
    assert_eq!(state_of(&conn, 77).0, "completed");
}

#[test]
fn undo_keeps_a_state_that_changed_since_the_decision() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");
    add_receipt(&conn, 78, "in_flight");
    review::decide(
        &mut conn,
        &request("stuck:77", Decision::Failed, "alice", &[]),
    )
    .unwrap();
    review::decide(
        &mut conn,
        &request("stuck:78", Decision::Failed, "bob", &[]),
    )
    .unwrap();

    // The intake retried 77 after the key was released and completed it.
    conn.conn().execute(
        "UPDATE receipts SET state = 'completed', updated_at = '2026-11-29 11:00:00' WHERE id = 77",
        [],
    )
    .unwrap();
    // 78 was failed again by another tool: same state, another updated_at.
    conn.conn()
        .execute(
            "UPDATE receipts SET updated_at = '2026-11-29 11:00:01' WHERE id = 78",
            [],
        )
        .unwrap();

    let undone = review::undo_last(&mut conn, "alice", T0 + 1)
        .unwrap()
        .unwrap();
    assert_eq!(
        undone.state,
        StateRevert::Kept {
            receipt_id: 77,
            now_state: Some("completed".into())
        }
    );
    assert_eq!(undone.entry.state_after, None);
    assert!(
        undone
            .entry
            .note
            .as_deref()
            .unwrap()
            .contains("state kept: receipt 77 changed since (now completed)")
    );
    assert_eq!(state_of(&conn, 77).0, "completed");

    let undone = review::undo_last(&mut conn, "bob", T0 + 2)
        .unwrap()
        .unwrap();
    assert!(
        matches!(undone.state, StateRevert::Kept { receipt_id: 78, ref now_state } if now_state.as_deref() == Some("failed")),
        "{:?}",
        undone.state
    );
    assert_eq!(
        state_of(&conn, 78),
        ("failed".to_string(), Some("2026-11-29 11:00:01".into()))
    );
    assert_eq!(log_rows(&conn), 4);
}

#[test]
fn undo_takes_the_operators_own_latest_decision() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    let a1 = decided(&mut conn, "dup:12", Decision::Duplicate, "alice", &[12, 13]);
    let a2 = decided(&mut conn, "conflict:40", Decision::FollowUp, "alice", &[]);
    review::decide(
        &mut conn,
        &request("conflict:41", Decision::OriginalStands, "bob", &[]),
    )
    .unwrap();

    assert_eq!(review::undo_last(&mut conn, "carol", T0).unwrap(), None);
    let u = review::undo_last(&mut conn, "alice", T0).unwrap().unwrap();
    assert_eq!(u.reopened, a2);
    assert_eq!(u.state, StateRevert::NoStateChange);
    let u = review::undo_last(&mut conn, "alice", T0).unwrap().unwrap();
    assert_eq!(u.reopened, a1);
    assert_eq!(review::undo_last(&mut conn, "alice", T0).unwrap(), None);

    let statuses = review::load_statuses(&conn).unwrap();
    assert!(statuses["dup:12"].status(&[12, 13]).is_pending());
    assert!(statuses["conflict:40"].status(&[40]).is_pending());
    assert_eq!(statuses["conflict:41"].status(&[41]).as_str(), "resolved");
    assert_eq!(log_rows(&conn), 5);
}

#[test]
fn undo_of_a_decision_someone_else_overtook_writes_nothing() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");
    let first = decided(&mut conn, "stuck:77", Decision::StillPending, "alice", &[]);
    let mut req = request("stuck:77", Decision::Completed, "bob", &[]);
    req.expected_last = Some(first.id);
    review::decide(&mut conn, &req).unwrap();

    let err = review::undo_last(&mut conn, "alice", T0).unwrap_err();
    match &err {
        DecideError::Superseded {
            operator, decision, ..
        } => {
            assert_eq!((operator.as_str(), *decision), ("bob", Decision::Completed));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("decided again by bob"), "{err}");
    assert_eq!(log_rows(&conn), 2);
    assert_eq!(state_of(&conn, 77).0, "completed");
}

#[test]
fn undo_never_reaches_past_an_overtaken_decision_to_an_older_one() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    let older = decided(&mut conn, "conflict:40", Decision::FollowUp, "alice", &[]);
    let mine = decided(&mut conn, "dup:12", Decision::Duplicate, "alice", &[12, 13]);
    let mut req = request("dup:12", Decision::Distinct, "bob", &[12, 13]);
    req.expected_last = Some(mine.id);
    let bobs = review::decide(&mut conn, &req).unwrap().entry;

    // Alice's last decision was overtaken: her undo does not fall through to conflict:40.
    for _ in 0..2 {
        let err = review::undo_last(&mut conn, "alice", T0).unwrap_err();
        assert!(
            matches!(err, DecideError::Superseded { id, .. } if id == bobs.id),
            "{err:?}"
        );
    }
    assert_eq!(log_rows(&conn), 3);

    // Bob undoes his; the item is pending, reopened by Bob, and still not Alice's to undo.
    review::undo_last(&mut conn, "bob", T0).unwrap().unwrap();
    let err = review::undo_last(&mut conn, "alice", T0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot undo: dup:12 was reopened by bob at 2026-11-29T10:15:30.123Z"
    );
    // She can still reopen the older one by name.
    let u = review::reopen(&mut conn, "conflict:40", "alice", T0)
        .unwrap()
        .unwrap();
    assert_eq!(u.reopened, older);
}

#[test]
fn undo_goes_back_through_an_operators_own_revisions() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    let older = decided(&mut conn, "conflict:40", Decision::FollowUp, "alice", &[]);
    let first = decided(&mut conn, "dup:12", Decision::Duplicate, "alice", &[12, 13]);
    let mut req = request("dup:12", Decision::Spam, "alice", &[12, 13]);
    req.expected_last = Some(first.id);
    let second = review::decide(&mut conn, &req).unwrap().entry;

    let u = review::undo_last(&mut conn, "alice", T0).unwrap().unwrap();
    assert_eq!(u.reopened, second);
    // Her first decision on dup:12 was replaced by her own second one: next comes conflict:40.
    let u = review::undo_last(&mut conn, "alice", T0).unwrap().unwrap();
    assert_eq!(u.reopened, older);
    assert_eq!(review::undo_last(&mut conn, "alice", T0).unwrap(), None);
    assert_eq!(log_rows(&conn), 5);
}

#[test]
fn reopen_names_an_item_and_respects_what_the_operator_saw() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    assert_eq!(
        review::reopen(&mut conn, "dup:12", "bob", T0).unwrap(),
        None
    );
    assert!(!has_log_table(&conn));
    assert!(matches!(
        review::reopen(&mut conn, "nonsense", "bob", T0),
        Err(DecideError::Invalid(DecisionError::BadItem { .. }))
    ));

    let first = decided(&mut conn, "dup:12", Decision::Spam, "alice", &[12, 13]);
    let mut req = request("dup:12", Decision::Distinct, "alice", &[12, 13]);
    req.expected_last = Some(first.id);
    let second = review::decide(&mut conn, &req).unwrap().entry;

    // Bob saw only the first decision.
    let stale = ReopenRequest {
        item: "dup:12".into(),
        operator: "bob".into(),
        note: Some("wrong call".into()),
        now_ms: T0,
        expected_last: Some(first.id),
    };
    assert!(matches!(
        review::reopen_with(&mut conn, &stale),
        Err(DecideError::AlreadyDecided { ref operator, decision: Decision::Distinct, .. }) if operator == "alice"
    ));
    assert_eq!(log_rows(&conn), 2);

    let fresh = ReopenRequest {
        expected_last: Some(second.id),
        ..stale
    };
    let undone = review::reopen_with(&mut conn, &fresh).unwrap().unwrap();
    assert_eq!(undone.reopened, second);
    assert_eq!(undone.entry.reopens, Some(second.id));
    assert_eq!(undone.entry.note.as_deref(), Some("wrong call"));
    assert_eq!(undone.entry.receipt_ids, vec![12, 13]);

    // Already pending: nothing more to reopen.
    assert_eq!(
        review::reopen(&mut conn, "dup:12", "bob", T0).unwrap(),
        None
    );
    assert_eq!(log_rows(&conn), 3);

    // After a reopening, a decision goes through whatever the operator saw.
    review::decide(
        &mut conn,
        &request("dup:12", Decision::Duplicate, "carol", &[12, 13]),
    )
    .unwrap();
    assert_eq!(log_rows(&conn), 4);
}

#[test]
fn a_resolved_group_that_gains_a_copy_is_pending_again() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    review::decide(
        &mut conn,
        &request("dup:12", Decision::Duplicate, "alice", &[12, 13]),
    )
    .unwrap();
    let statuses = review::load_statuses(&conn).unwrap();
    assert_eq!(
        review::status_in(&statuses, "dup:12", &[12, 13]).as_str(),
        "resolved"
    );
    match review::status_in(&statuses, "dup:12", &[12, 13, 19]) {
        Status::PendingNewCopy {
            decision,
            operator,
            new_ids,
            ..
        } => {
            assert_eq!(decision, Decision::Duplicate);
            assert_eq!(operator, "alice");
            assert_eq!(new_ids, vec![19]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        review::status_in(&statuses, "dup:50", &[50, 51]),
        Status::Pending
    );

    // Deciding again over the grown group resolves it.
    let mut req = request("dup:12", Decision::Duplicate, "alice", &[12, 13, 19]);
    req.expected_last = statuses["dup:12"].expected_last();
    review::decide(&mut conn, &req).unwrap();
    let statuses = review::load_statuses(&conn).unwrap();
    assert_eq!(
        review::status_in(&statuses, "dup:12", &[12, 13, 19]).as_str(),
        "resolved"
    );
}

#[test]
fn latest_log_id_moves_when_anyone_appends() {
    let (_dir, path) = new_db();
    let mut alice = open(&path);
    let watcher = open(&path);
    assert_eq!(review::latest_log_id(&watcher).unwrap(), None);
    let a = decided(&mut alice, "dup:1", Decision::Spam, "alice", &[1]);
    assert_eq!(review::latest_log_id(&watcher).unwrap(), Some(a.id));
    let b = decided(&mut alice, "dup:2", Decision::Spam, "alice", &[2]);
    assert!(b.id > a.id);
    assert_eq!(review::latest_log_id(&watcher).unwrap(), Some(b.id));
}

#[test]
fn the_database_stays_in_wal_mode() {
    let (_dir, path) = new_db();
    let mut conn = open(&path);
    add_receipt(&conn, 77, "in_flight");
    review::decide(
        &mut conn,
        &request("stuck:77", Decision::Failed, "alice", &[]),
    )
    .unwrap();
    review::undo_last(&mut conn, "alice", T0).unwrap();
    let mode: String = conn
        .conn()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}
