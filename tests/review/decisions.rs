//! Choosing the copy a decision keeps, bulk decisions written as one step,
//! and undoing a step as it was taken, against real SQLite files.

use std::path::{Path, PathBuf};

use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::review::{
    self, DecideError, Decision, DecisionError, DecisionRequest, ReopenRequest, UndoOutcome,
    UndoRequest, Wide, keep,
};
use receipt_review::storage::Access;
use rusqlite::{Connection, params};
use tempfile::TempDir;

use crate::common::db::Db;
use crate::common::insert;
use crate::support::{T0, decided, request};

const SCHEMA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/schema.sql"));
const REVIEW_LOG_SQL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/review_log.sql"
));

fn new_db() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("receipts.db");
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    (dir, path)
}

fn open(path: &Path) -> Db {
    Db::open(path, Access::PreferWrite).unwrap()
}

fn undo(db: &mut Db, operator: &str, confirmed: Option<Wide>) -> UndoOutcome {
    review::undo(
        db,
        &UndoRequest {
            operator: operator.into(),
            now_ms: T0 + 60_000,
            confirmed,
        },
    )
    .unwrap()
}

/// (id, item, decision, kept, batch, reopens) of every row, in append order.
type Row = (i64, String, String, Option<i64>, Option<i64>, Option<i64>);

fn rows(db: &Db) -> Vec<Row> {
    db.conn()
        .prepare("SELECT id, item, decision, kept, batch, reopens FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn pending(db: &Db, item: &str) -> bool {
    review::load_statuses(db)
        .unwrap()
        .get(item)
        .is_none_or(|s| s.status(&[]).is_pending())
}

#[test]
fn the_copy_kept_is_recorded_and_must_be_a_copy_of_a_deciding_kind() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    let mut req = request("dup:12", Decision::Duplicate, "aiko", &[12, 13, 14]);
    req.kept = Some(13);
    let recorded = review::decide(&mut db, &req).unwrap();
    assert_eq!(recorded.entry.kept, Some(13));
    assert_eq!(recorded.entry.batch, None);
    assert_eq!(
        rows(&db),
        vec![(1, "dup:12".into(), "duplicate".into(), Some(13), None, None)]
    );
    assert_eq!(review::read_log(&db).unwrap()[0].kept, Some(13));

    // A copy that is not in the group, and a decision that keeps none: refused, nothing written.
    let mut stranger = request("dup:20", Decision::Correction, "aiko", &[20, 21]);
    stranger.kept = Some(99);
    let err = review::decide(&mut db, &stranger).unwrap_err();
    assert!(
        matches!(
            err,
            DecideError::Invalid(DecisionError::NotACopy { kept: 99, .. })
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "receipt 99 is not a copy of dup:20; keep one of: 20, 21"
    );
    let mut spam = request("dup:20", Decision::Spam, "aiko", &[20, 21]);
    spam.kept = Some(20);
    let err = review::decide(&mut db, &spam).unwrap_err();
    assert!(
        matches!(err, DecideError::Invalid(DecisionError::KeepsNone { .. })),
        "{err:?}"
    );
    assert_eq!(rows(&db).len(), 1);
}

/// A group whose earliest copy is the half-empty one a second handler
/// posted, then two complete copies.
fn half_empty_first(path: &Path) {
    let conn = Connection::open(path).unwrap();
    let full = r#"{"name":"Sophie Clark","email":"sophie@corp.example","phone":"+1 746 555 1677","company":"Corp","subject":"Quote","message":"Please send a quote for 20 chairs."}"#;
    insert(
        &conn,
        80,
        "k80",
        r#"{"name":"Sophie Clark","email":"sophie@corp.example","message":"Please send a quote for 20 chairs.","phone":""}"#,
        "2026-11-29T10:00:00.000Z",
        "completed",
    );
    insert(
        &conn,
        81,
        "k81",
        full,
        "2026-11-29T10:00:00.400Z",
        "completed",
    );
    insert(
        &conn,
        82,
        "k82",
        full,
        "2026-11-29T10:00:03.000Z",
        "completed",
    );
}

#[test]
fn by_default_the_most_complete_copy_is_kept_the_earliest_among_equals() {
    let (_dir, path) = new_db();
    half_empty_first(&path);
    let db = open(&path);
    let snap = reading::read_with_receipts(&db, Settings::new(T0), &mut |_| {}).unwrap();
    let g = snap
        .triage
        .duplicates
        .iter()
        .find(|g| g.item() == "dup:80")
        .expect("one group");
    assert_eq!(g.receipt_ids(), vec![80, 81, 82]);
    let copies = snap.keep_candidates(g).unwrap();
    // The empty phone counts as not filled in.
    let filled: Vec<usize> = copies.iter().map(|c| c.filled).collect();
    assert_eq!(filled, vec![3, 6, 6]);
    assert_eq!(keep::kept(Decision::Duplicate, &copies, None), Some(81));
    assert_eq!(keep::kept(Decision::Correction, &copies, None), Some(82));
    assert_eq!(keep::kept(Decision::Duplicate, &copies, Some(80)), Some(80));
}

#[test]
fn a_bulk_decision_is_one_batch_named_by_its_first_row() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    // A decision before, so that the batch's first id is not 1.
    review::decide(
        &mut db,
        &request("conflict:5", Decision::FollowUp, "bob", &[]),
    )
    .unwrap();
    let bulk: Vec<DecisionRequest> = [10, 20, 30]
        .iter()
        .map(|&id| DecisionRequest {
            kept: Some(id),
            ..request(
                &format!("dup:{id}"),
                Decision::Duplicate,
                "aiko",
                &[id, id + 1],
            )
        })
        .collect();
    let written = review::decide_many(&mut db, &bulk).unwrap();
    assert_eq!(written.batch, Some(2));
    assert!(written.refused.is_empty());
    assert_eq!(
        rows(&db)[1..],
        [
            (
                2,
                "dup:10".into(),
                "duplicate".into(),
                Some(10),
                Some(2),
                None
            ),
            (
                3,
                "dup:20".into(),
                "duplicate".into(),
                Some(20),
                Some(2),
                None
            ),
            (
                4,
                "dup:30".into(),
                "duplicate".into(),
                Some(30),
                Some(2),
                None
            ),
        ]
    );
    assert_eq!(rows(&db)[0].4, None, "a single decision is in no batch");
    // One decision alone is written on its own.
    let one = review::decide_many(
        &mut db,
        &[request("dup:50", Decision::Duplicate, "aiko", &[50, 51])],
    )
    .unwrap();
    assert_eq!(one.batch, None);
    assert_eq!(one.recorded[0].entry.batch, None);
}

#[test]
fn a_bulk_decision_is_written_whole_or_not_at_all() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    review::decide(
        &mut db,
        &request("conflict:5", Decision::FollowUp, "bob", &[]),
    )
    .unwrap();
    // The database fails on the third row: the two before it go too.
    db.conn()
        .execute_batch(
            "CREATE TRIGGER fail_third BEFORE INSERT ON review_log WHEN NEW.item = 'dup:30'
             BEGIN SELECT RAISE(ABORT, 'disk trouble'); END;",
        )
        .unwrap();
    let bulk: Vec<DecisionRequest> = [10, 20, 30]
        .iter()
        .map(|&id| request(&format!("dup:{id}"), Decision::Duplicate, "aiko", &[id]))
        .collect();
    let err = review::decide_many(&mut db, &bulk).unwrap_err();
    assert!(err.to_string().contains("disk trouble"), "{err}");
    assert_eq!(rows(&db).len(), 1);
    db.conn().execute_batch("DROP TRIGGER fail_third").unwrap();
    // The next batch is numbered by its own first row.
    let written = review::decide_many(&mut db, &bulk).unwrap();
    assert_eq!(written.batch, Some(rows(&db)[1].0));
    assert!(rows(&db)[1..].iter().all(|r| r.4 == written.batch));
}

#[test]
fn a_bulk_decision_leaves_out_an_item_decided_first_and_says_so() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    review::decide(&mut db, &request("dup:20", Decision::Spam, "bob", &[20])).unwrap();
    let bulk: Vec<DecisionRequest> = [10, 20, 30]
        .iter()
        .map(|&id| request(&format!("dup:{id}"), Decision::Duplicate, "aiko", &[id]))
        .collect();
    let written = review::decide_many(&mut db, &bulk).unwrap();
    assert_eq!(written.recorded.len(), 2);
    assert_eq!(written.refused.len(), 1);
    assert_eq!(written.refused[0].0, "dup:20");
    assert!(
        matches!(written.refused[0].1, DecideError::AlreadyDecided { .. }),
        "{:?}",
        written.refused[0].1
    );
    let items: Vec<_> = rows(&db).into_iter().map(|r| (r.1, r.4)).collect();
    assert_eq!(
        items,
        vec![
            ("dup:20".into(), None),
            ("dup:10".into(), Some(2)),
            ("dup:30".into(), Some(2)),
        ]
    );
}

#[test]
fn undo_after_a_bulk_decision_asks_then_reopens_the_whole_batch() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    let bulk: Vec<DecisionRequest> = [10, 20, 30]
        .iter()
        .map(|&id| request(&format!("dup:{id}"), Decision::Duplicate, "aiko", &[id]))
        .collect();
    review::decide_many(&mut db, &bulk).unwrap();
    let before = rows(&db);

    // Asked first: nothing written.
    let asked = undo(&mut db, "aiko", None);
    let wide = Wide::Batch {
        batch: 1,
        decisions: 3,
        left: 0,
    };
    assert_eq!(asked, UndoOutcome::Ask(wide.clone()));
    assert_eq!(rows(&db), before);
    // Another step's confirmation is not this one's.
    let other = Wide::Batch {
        batch: 7,
        decisions: 3,
        left: 0,
    };
    assert_eq!(
        undo(&mut db, "aiko", Some(other)),
        UndoOutcome::Ask(wide.clone())
    );

    let UndoOutcome::Batch(step) = undo(&mut db, "aiko", Some(wide)) else {
        panic!("not a batch undo");
    };
    assert_eq!(step.batch, 1);
    assert_eq!(step.undone.len(), 3);
    assert!(step.left.is_empty());
    // One reopening per decision, themselves one step.
    assert_eq!(
        rows(&db)[3..],
        [
            (
                4,
                "dup:10".into(),
                "reopened".into(),
                None,
                Some(4),
                Some(1)
            ),
            (
                5,
                "dup:20".into(),
                "reopened".into(),
                None,
                Some(4),
                Some(2)
            ),
            (
                6,
                "dup:30".into(),
                "reopened".into(),
                None,
                Some(4),
                Some(3)
            ),
        ]
    );
    for item in ["dup:10", "dup:20", "dup:30"] {
        assert!(pending(&db, item), "{item}");
    }
    // Nothing of aiko's is left to undo.
    assert_eq!(undo(&mut db, "aiko", None), UndoOutcome::Nothing);
}

#[test]
fn a_batch_undo_leaves_each_item_decided_or_reopened_since() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    let bulk: Vec<DecisionRequest> = [10, 20, 30, 40]
        .iter()
        .map(|&id| request(&format!("dup:{id}"), Decision::Duplicate, "aiko", &[id]))
        .collect();
    review::decide_many(&mut db, &bulk).unwrap();
    // Bob reopens dup:20 and decides it anew; carol reopens dup:40.
    let reopen = |db: &mut Db, item: &str, who: &str| {
        review::reopen_with(
            db,
            &ReopenRequest {
                item: item.into(),
                operator: who.into(),
                note: None,
                now_ms: T0 + 1,
                expected_last: None,
            },
        )
        .unwrap()
        .unwrap()
    };
    reopen(&mut db, "dup:20", "bob");
    let bobs = decided(&mut db, "dup:20", Decision::Spam, "bob", &[20]);
    reopen(&mut db, "dup:40", "carol");

    let asked = undo(&mut db, "aiko", None);
    let wide = Wide::Batch {
        batch: 1,
        decisions: 2,
        left: 2,
    };
    assert_eq!(asked, UndoOutcome::Ask(wide.clone()));
    let UndoOutcome::Batch(step) = undo(&mut db, "aiko", Some(wide)) else {
        panic!("not a batch undo");
    };
    let reopened: Vec<&str> = step
        .undone
        .iter()
        .map(|u| u.reopened.item.as_str())
        .collect();
    assert_eq!(reopened, ["dup:10", "dup:30"]);
    let left: Vec<(&str, &str)> = step
        .left
        .iter()
        .map(|e| (e.item.as_str(), e.operator.as_str()))
        .collect();
    assert_eq!(left, [("dup:20", "bob"), ("dup:40", "carol")]);
    // Bob's decision stands.
    assert_eq!(review::latest_entry(&db, "dup:20").unwrap().unwrap(), bobs);
    assert!(pending(&db, "dup:10") && pending(&db, "dup:30") && pending(&db, "dup:40"));
}

#[test]
fn undo_of_a_bot_group_decision_asks_with_the_receipts_it_reopens() {
    let (_dir, path) = new_db();
    let mut db = open(&path);
    review::decide(
        &mut db,
        &request("dup:1", Decision::Distinct, "aiko", &[1, 2]),
    )
    .unwrap();
    let spam = decided(&mut db, "bot:91", Decision::Spam, "aiko", &[91, 92, 95]);
    let wide = Wide::Group {
        entry: spam.id,
        item: "bot:91".into(),
        receipts: 3,
    };
    assert_eq!(undo(&mut db, "aiko", None), UndoOutcome::Ask(wide.clone()));
    assert_eq!(rows(&db).len(), 2);
    let UndoOutcome::One(u) = undo(&mut db, "aiko", Some(wide)) else {
        panic!("not one undo");
    };
    assert_eq!(u.reopened, spam);
    // A narrow decision is undone at once, unasked.
    let UndoOutcome::One(u) = undo(&mut db, "aiko", None) else {
        panic!("not one undo");
    };
    assert_eq!(u.reopened.item, "dup:1");
}

/// `review_log` as made before `kept` and `batch`.
fn log_without_added_columns() -> String {
    let sql = REVIEW_LOG_SQL
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("kept INTEGER")
                && !l.starts_with("batch INTEGER")
                && !l.contains("review_log_batch")
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!sql.contains("kept INTEGER") && !sql.contains("batch INTEGER"));
    sql
}

#[test]
fn an_older_log_is_read_as_it_is_and_given_the_columns_by_the_first_write() {
    let (_dir, path) = new_db();
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&log_without_added_columns()).unwrap();
    for (item, kind, decision) in [
        ("dup:12", "duplicate", "duplicate"),
        ("stuck:7", "stuck", "completed"),
    ] {
        conn.execute(
            "INSERT INTO review_log (item, kind, decision, operator, decided_at, receipt_ids, note)
             VALUES (?1, ?2, ?3, 'ann', '2026-11-29T09:00:00.000Z', '[12,13]', 'old row')",
            params![item, kind, decision],
        )
        .unwrap();
    }
    drop(conn);
    let mut db = open(&path);
    // Read as it is: without the columns, nothing kept, no batch; unchanged by reading.
    let old = review::read_log(&db).unwrap();
    assert_eq!(old.len(), 2);
    assert!(old.iter().all(|e| e.kept.is_none() && e.batch.is_none()));
    let mut csv = Vec::new();
    review::export(&db, review::ExportFormat::Csv, &mut csv).unwrap();
    assert!(String::from_utf8(csv).unwrap().starts_with("id,item,"));
    let columns = |db: &Db| -> Vec<String> {
        db.conn()
            .prepare("SELECT name FROM pragma_table_info('review_log')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    // A write that writes nothing (nothing to undo) leaves it as it was.
    assert_eq!(undo(&mut db, "nobody", None), UndoOutcome::Nothing);
    assert!(!columns(&db).contains(&"kept".to_string()));

    // The first write adds them; every row stays as it was.
    let bulk: Vec<DecisionRequest> = [20, 30]
        .iter()
        .map(|&id| DecisionRequest {
            kept: Some(id + 1),
            ..request(
                &format!("dup:{id}"),
                Decision::Duplicate,
                "aiko",
                &[id, id + 1],
            )
        })
        .collect();
    review::decide_many(&mut db, &bulk).unwrap();
    let cols = columns(&db);
    assert!(
        cols.ends_with(&["kept".to_string(), "batch".to_string()]),
        "{cols:?}"
    );
    let now = review::read_log(&db).unwrap();
    assert_eq!(now[..2], old[..]);
    assert_eq!(
        rows(&db)[2..],
        [
            (
                3,
                "dup:20".into(),
                "duplicate".into(),
                Some(21),
                Some(3),
                None
            ),
            (
                4,
                "dup:30".into(),
                "duplicate".into(),
                Some(31),
                Some(3),
                None
            ),
        ]
    );
    // Still append-only.
    assert!(db.conn().execute("DELETE FROM review_log", []).is_err());
    assert!(
        db.conn()
            .execute("UPDATE review_log SET kept = 1", [])
            .is_err()
    );
}
