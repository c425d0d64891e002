//! `find` analyses the receipts around its hits alone: what it says of each
//! hit (its items, their review, its replays) is what the whole analysis
//! says, for every receipt of a demo database (on both engines) and of a
//! dense database shaped by another intake, many hits at a time.

use std::path::{Path, PathBuf};
use std::process::Command;

use receipt_review::demo::{DemoOptions, generate};
use receipt_review::find::scan::Match;
use receipt_review::find::{self, FoundIn, Scan, Timeline, around::read_around};
use receipt_review::model::time::parse_time_ref;
use receipt_review::model::{RawReceipt, Settings, Zone};
use receipt_review::reading::{self, Snapshot};
use receipt_review::storage::{Access, Connections, Location, Storage, open_database};

use crate::both;
use crate::common::engine::{Engine, Place};

const NOW_MS: i64 = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

/// Every receipt as stored, by id.
fn rows(db: &dyn Storage) -> Vec<RawReceipt> {
    let mut session = db.begin_read(Connections::One).unwrap();
    let mut rows: Vec<RawReceipt> = Vec::new();
    session
        .receipts(None, &mut [&mut rows], &mut |_| {})
        .unwrap();
    session.end().unwrap();
    rows.sort_by_key(|r| r.id);
    rows
}

/// A search that found these receipts (by number).
fn scan_of(rows: &[&RawReceipt]) -> Scan {
    Scan {
        matches: rows
            .iter()
            .map(|r| Match {
                id: r.id,
                scope: r.scope.clone(),
                request_key: r.request_key.clone(),
                state: r.state.clone(),
                created_ms: parse_time_ref(r.created_at.as_ref()).ok(),
                payload: r.payload.clone(),
                found: FoundIn::Number,
                erased: None,
            })
            .collect(),
        total: rows.len() as u64,
        ..Scan::default()
    }
}

fn timeline(rows: &[RawReceipt]) -> Timeline {
    let mut t = Timeline::default();
    for r in rows {
        let created = parse_time_ref(r.created_at.as_ref()).ok();
        t.push(r.id, created, &r.scope, r.request_key.as_deref());
    }
    Timeline::merge([t])
}

/// Checks the receipts of the database at `path` split into `searches`
/// searches, each of hits spread over its whole time; `run` of them (evenly
/// spaced: all when equal) are made.
fn answered_as_the_whole(at: &Location, settings: Settings, searches: usize, run: usize) {
    let db = open_database(at.clone(), Access::ReadOnly).unwrap();
    let rows = rows(&*db);
    let timeline = timeline(&rows);
    let whole: Snapshot = reading::read(&*db, settings.clone(), &mut |_| {}).unwrap();
    let query = find::parse("#1", Zone::UTC, settings.now_ms).unwrap();
    let mut in_items = 0;
    let (mut checked, mut read_whole) = (0, 0);
    for batch in (0..searches).step_by(searches / run) {
        let hits: Vec<&RawReceipt> = rows.iter().skip(batch).step_by(searches).collect();
        let scan = scan_of(&hits);
        let around = read_around(&*db, &scan, &timeline, &settings).unwrap();
        if around.receipt_count == whole.receipt_count {
            read_whole += 1;
        }
        let expected = find::assemble(&query, scan.clone(), &whole).hits;
        let got = find::assemble(&query, scan, &around).hits;
        for (e, g) in expected.iter().zip(&got) {
            assert_eq!(g, e, "receipt #{} ({})", e.receipt_id, at.shown());
        }
        assert_eq!(got.len(), expected.len());
        in_items += got.iter().filter(|h| !h.items.is_empty()).count();
        checked += got.len();
    }
    assert!(
        in_items > checked / 10,
        "{in_items} of {checked} receipts in items"
    );
    // Most searches are answered from the receipts around their hits.
    assert!(
        read_whole * 10 <= run,
        "{read_whole} of {run} read everything"
    );
}

fn every_demo_receipt_is_answered_as_the_whole_analysis_answers_it(engine: Engine) {
    let place = Place::new(engine);
    let options = DemoOptions {
        receipts: 4_000,
        seed: 7,
        now_ms: NOW_MS,
    };
    generate(place.location(), &options).unwrap();
    answered_as_the_whole(place.location(), Settings::new(NOW_MS), 100, 100);
}
both!(every_demo_receipt_is_answered_as_the_whole_analysis_answers_it);

/// A database written by another intake (`scripts/gen_mixed.py --heavy`):
/// many duplicates, conflicts, stuck receipts and campaigns, dense in time.
fn heavy(dir: &Path, receipts: usize, days: f64) -> PathBuf {
    let path = dir.join("heavy.db");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen_mixed.py");
    let out = Command::new("python3")
        .arg(script)
        .args(["--out", path.to_str().unwrap(), "--heavy", "--seed", "3"])
        .args([
            "--receipts",
            &receipts.to_string(),
            "--days",
            &days.to_string(),
        ])
        .args(["--now", "2026-11-29T10:15:30Z"])
        .output()
        .expect("python3 runs scripts/gen_mixed.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

#[test]
fn receipts_of_a_dense_foreign_database_are_answered_as_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    // 6,000 receipts in 6 hours: about 170 in a ten-minute window, as a
    // million do in three weeks. One in 40 is looked for, one at a time.
    let path = heavy(dir.path(), 6_000, 0.25);
    answered_as_the_whole(&path.into(), Settings::new(NOW_MS), 6_000, 150);
}

/// Every receipt, with a window short enough that many hits are looked
/// for at once without their margins taking in most of the database.
#[test]
fn with_a_short_window_many_hits_are_answered_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = heavy(dir.path(), 6_000, 0.25);
    let mut settings = Settings::new(NOW_MS);
    settings.window_ms = 30_000;
    answered_as_the_whole(&path.into(), settings, 300, 300);
}
