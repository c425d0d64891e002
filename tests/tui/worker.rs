//! The screen's worker, driven as the screen drives it: what it hands over
//! after a first reading, and what each hand-over says of itself.

use std::sync::mpsc;
use std::time::Duration;

use crate::fixture::{demo_worker, every_exact_group_as_duplicate, next_answer};
use receipt_review::i18n::Lang;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::Msg;
use receipt_review::tui::collection::Request;

/// The readings the worker hands over until one says its receipts are in.
fn readings_until_complete(rx: &mpsc::Receiver<Msg>) -> Vec<IndexedSnapshot> {
    let mut readings = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Msg::Loaded(reading)) => {
                let done = !reading.snapshot.receipts_pending;
                readings.push(reading);
                if done {
                    return readings;
                }
            }
            Ok(Msg::LoadFailed(why)) => panic!("the reading failed: {why}"),
            Ok(_) => {}
            Err(e) => panic!("hung: no complete reading ({e})"),
        }
    }
}

#[test]
fn a_first_reading_hands_over_the_analysis_then_its_receipts() {
    let dir = tempfile::tempdir().unwrap();
    let (worker, rx) = demo_worker(dir.path(), 2, true, "test", Lang::En);
    worker.send(Request::Load);
    let readings = readings_until_complete(&rx);
    // The analysis first, saying that its items' receipts are still being
    // read; then the same analysis with them.
    let [first, second] = &readings[..] else {
        panic!("{} readings handed over", readings.len());
    };
    assert!(first.snapshot.receipts_pending);
    assert!(first.snapshot.receipts.is_empty());
    assert!(!second.snapshot.receipts_pending);
    assert!(second.snapshot.receipts.len() > 100);
    assert_eq!(first.snapshot.triage, second.snapshot.triage);
}

#[test]
fn a_bulk_decision_is_one_batch_and_undo_asks_then_reopens_it_whole() {
    use receipt_review::review::Wide;
    use receipt_review::tui::app::msg::ItemDecision;
    let dir = tempfile::tempdir().unwrap();
    let (worker, rx) = demo_worker(dir.path(), 3, false, "aiko", Lang::En);
    let path = dir.path().join("worker.db");
    worker.send(Request::Load);
    let reading = readings_until_complete(&rx).pop().unwrap();
    // What `D` sends: every exact group, the copy kept left to the worker.
    let requests: Vec<ItemDecision> = every_exact_group_as_duplicate(&reading.snapshot);
    let n = requests.len();
    assert!(n >= 2, "{n} exact groups");
    worker.send(Request::DecideBatch(requests));
    match next_answer(&rx) {
        Msg::Recorded(Ok(text)) => {
            assert!(
                text.contains(&format!("{n} decisions recorded as one step")),
                "{text}"
            )
        }
        other => panic!("{other:?}"),
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let (rows, batches, kept): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), count(DISTINCT batch), count(kept) FROM review_log",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((rows, batches, kept), (n as i64, 1, n as i64));

    // `u`: asked first, with the count; nothing reopened until yes.
    worker.send(Request::Undo(None));
    let wide = match next_answer(&rx) {
        Msg::UndoAsks(wide) => wide,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        wide,
        Wide::Batch {
            batch: 1,
            decisions: n,
            left: 0
        }
    );
    worker.send(Request::Undo(Some(wide)));
    match next_answer(&rx) {
        Msg::Undone(Ok(undone)) => {
            let text = undone.text;
            assert!(text.contains(&format!("{n} decisions reopened")), "{text}");
            assert_eq!(undone.items.len(), n);
        }
        other => panic!("{other:?}"),
    }
    let reopened: i64 = conn
        .query_row(
            "SELECT count(*) FROM review_log WHERE decision = 'reopened' AND batch = ?1",
            [n as i64 + 1],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reopened, n as i64);
}
