//! The screen's worker, driven as the screen drives it: what it hands over
//! after a first reading, and what each hand-over says of itself.

use std::sync::mpsc;
use std::time::Duration;

use receipt_review::demo::{DemoOptions, generate};
use receipt_review::model::Settings;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::Msg;
use receipt_review::tui::collection::{Request, Worker, WorkerConfig};

const NOW_MS: i64 = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

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
    let path = dir.path().join("worker.db");
    let options = DemoOptions {
        receipts: 1_500,
        seed: 2,
        now_ms: NOW_MS,
    };
    generate(&path, &options).unwrap();
    let (tx, rx) = mpsc::channel();
    let config = WorkerConfig {
        path,
        read_only: true,
        settings: Settings::new(NOW_MS),
        fixed_now: Some(NOW_MS),
        operator: "test".into(),
        export_dir: dir.path().to_path_buf(),
    };
    let worker = Worker::start(config, tx).unwrap();
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
