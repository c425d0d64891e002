//! Two operators deciding the same item at the same moment, as two
//! `receipt-review resolve` processes: `failed` against `completed` on one
//! stuck receipt, `duplicate` against `spam` on one duplicate group.
//!
//! Every round: exactly one decision stands, a state change is in the very
//! row that records it (state and `updated_at` before and after), the other
//! process exits 1 with one line naming who won and what they decided.
//!
//! A third of the rounds start both processes while the test holds the write
//! lock, so that both read the item as pending and then queue on the lock (the
//! guard inside the write transaction decides); a third start them freely; a
//! third start the second once the first has written (it reads the decision
//! already made; a decided stuck receipt is no longer stuck).
//! `RELIAB_SCALE=n` runs n times as many rounds.

use crate::{common, support};

use std::path::Path;
use std::time::Duration;

use common::{NOW, fixture};
use support::{
    assert_clean_exit, inspect, integrity, log_count, scale, spawn_bin, stderr, wait_output,
};

/// How a round starts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Start {
    /// Both queue on a write lock the test holds, then race for it.
    Queued,
    /// Both just start.
    Free,
    /// The second starts a moment after the first has finished: it reads the
    /// decision already made.
    Late,
}

/// operator, decision, state_before, state_after, updated_at_after
type LogRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// One round: returns whether the loser was refused inside the write
/// transaction (both had read the item as pending).
fn race(db: &Path, item: &str, a: (&str, &str), b: (&str, &str), start: Start) -> bool {
    let holder = inspect(db);
    if start == Start::Queued {
        holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    }
    let spawn = |(operator, decision): (&str, &str)| {
        spawn_bin(&[
            "resolve",
            db.to_str().unwrap(),
            item,
            decision,
            "--operator",
            operator,
            "--now",
            NOW,
        ])
    };
    let first = spawn(a);
    if start == Start::Late {
        while inspect(db)
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
            == 0
        {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let second = spawn(b);
    if start == Start::Queued {
        // Both read the database (readers are never blocked) and wait for the lock.
        std::thread::sleep(Duration::from_millis(350));
        holder.execute_batch("ROLLBACK").unwrap();
    }
    let limit = Duration::from_secs(30);
    let outcomes = [
        (a, wait_output(first, limit, a.0).0),
        (b, wait_output(second, limit, b.0).0),
    ];
    for (who, o) in &outcomes {
        assert_clean_exit(o, &format!("{item} {who:?}"));
    }
    let winners: Vec<_> = outcomes
        .iter()
        .filter(|(_, o)| o.status.code() == Some(0))
        .collect();
    assert_eq!(
        winners.len(),
        1,
        "{item} {start:?}: {:?}",
        outcomes
            .iter()
            .map(|(w, o)| (w, o.status.code(), stderr(o)))
            .collect::<Vec<_>>()
    );
    let ((winner, decision), _) = winners[0];
    let (_, loser) = outcomes
        .iter()
        .find(|(_, o)| o.status.code() != Some(0))
        .unwrap();
    let told = stderr(loser);
    assert_eq!(loser.status.code(), Some(1), "{item}: {told}");
    assert!(
        told.contains(&format!("already decided by {winner} at "))
            && told.contains(&format!("({decision})")),
        "{item} {start:?}: the loser was not told who won: {told}"
    );

    // Exactly one decision, and the state change inside it.
    let conn = inspect(db);
    let rows: Vec<LogRow> = conn
        .prepare(
            "SELECT operator, decision, state_before, state_after, updated_at_after \
             FROM review_log WHERE item = ?1",
        )
        .unwrap()
        .query_map([item], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 1, "{item}: {rows:?}");
    let (operator, logged, before, after, updated_after) = &rows[0];
    assert_eq!((operator.as_str(), logged.as_str()), (*winner, *decision));
    if let Some(id) = item.strip_prefix("stuck:") {
        let (state, updated): (String, Option<String>) = conn
            .query_row(
                "SELECT state, updated_at FROM receipts WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(state, *decision, "{item}");
        assert_eq!(before.as_deref(), Some("in_flight"));
        assert_eq!(after.as_deref(), Some(*decision));
        assert_eq!(updated_after, &updated, "the state change is not its row's");
    } else {
        assert_eq!((before, after), (&None, &None), "{item}");
    }
    assert_eq!(integrity(&conn), "ok");
    // The loser's message came from the write transaction's guard when it does
    // not name the item first ("dup:1 already decided" is the pre-check).
    !told.starts_with(&format!("receipt-review: {item} "))
}

fn rounds(item: &str, a: (&str, &str), b: (&str, &str)) {
    let n = 6 * scale();
    let mut guarded = 0;
    for round in 0..n {
        let f = fixture();
        let start = [Start::Queued, Start::Free, Start::Late][round % 3];
        // Alternate who is spawned first.
        let (x, y) = if round % 6 < 3 { (a, b) } else { (b, a) };
        if race(&f.db, item, x, y, start) {
            guarded += 1;
        }
    }
    eprintln!("{item}: {n} rounds, {guarded} refused by the guard inside the write transaction");
    // The queued rounds are the ones where both processes read the item as pending.
    assert!(guarded >= 1, "no round raced inside the write transaction");
}

#[test]
fn two_operators_deciding_one_stuck_receipt_change_it_once() {
    rounds("stuck:4", ("alice", "failed"), ("bob", "completed"));
}

#[test]
fn two_operators_deciding_one_duplicate_group_record_one_decision() {
    rounds("dup:1", ("alice", "duplicate"), ("bob", "spam"));
}

/// The intake itself finished the receipt between the operator's look and the
/// decision: nothing is recorded and the operator is told its state (exit 1),
/// not that the item does not exist.
#[test]
fn a_stuck_receipt_finished_by_the_intake_meanwhile_is_refused_with_its_state() {
    let f = fixture();
    inspect(&f.db)
        .execute("UPDATE receipts SET state = 'completed' WHERE id = 4", [])
        .unwrap();
    let (o, _) = wait_output(
        spawn_bin(&[
            "resolve",
            f.path(),
            "stuck:4",
            "failed",
            "--operator",
            "alice",
            "--now",
            NOW,
        ]),
        Duration::from_secs(30),
        "resolve",
    );
    assert_eq!(assert_clean_exit(&o, "resolve"), 1);
    assert!(
        stderr(&o).contains("receipt 4 is no longer in flight (it is completed now)"),
        "{}",
        stderr(&o)
    );
    // An item that never existed is still bad usage.
    let (o, _) = wait_output(
        spawn_bin(&["resolve", f.path(), "stuck:99", "failed", "--now", NOW]),
        Duration::from_secs(30),
        "resolve",
    );
    assert_eq!(assert_clean_exit(&o, "resolve"), 2);
    assert_eq!(log_count(&inspect(&f.db)), 0);
}
