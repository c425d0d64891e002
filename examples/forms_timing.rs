//! How long the Forms view takes once a reading is done: `forms::compute`
//! for each period, and the screen's `update` that opens the Forms tab on a
//! fresh reading (the view made for it), with the size of the activity
//! summary the reading keeps for it.
//!
//! `cargo run --release --example forms_timing -- DB [NOW] [RUNS]` prints
//! one JSON line: `{"kind":"forms", "receipts", "reading_ms", "activity_ms",
//! "activity_bytes", "compute_ms":{"24h":…}, "open_tab_ms", "forms",
//! "pathways", "rss_mb"}` (each time the median of RUNS, default 5).

#[path = "common/peak_rss.rs"]
mod peak_rss;

use std::time::Instant;

use receipt_review::forms::{Period, compute};
use receipt_review::model::Settings;
use receipt_review::model::time::parse_text;
use receipt_review::reading::Reader;
use receipt_review::storage::{Access, open_database};
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::Msg;
use receipt_review::tui::app::{App, update};

use peak_rss::peak_rss_mb;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() -> anyhow::Result<()> {
    receipt_review::memory::one_arena_per_core();
    receipt_review::memory::keep_large_blocks_apart();
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: forms_timing DB [NOW] [RUNS]"))?;
    let now = match args.next() {
        Some(t) => parse_text(&t).map_err(|e| anyhow::anyhow!("--now: {e}"))?,
        None => parse_text("2026-11-29T12:00:00Z").expect("a valid time"),
    };
    let runs: usize = args.next().map_or(Ok(5), |a| a.parse())?;
    let db = open_database(path.as_str(), Access::ReadOnly)?;
    let t = Instant::now();
    let mut reader = Reader::new(Settings::new(now));
    let (snap, pending) = reader.read(&*db, now, &mut |_| {})?;
    pending.end()?;
    let reading_ms = ms(t);
    // The summary the reading collected for the view: its size and its time
    // (part of the reading's).
    let activity_bytes = snap.activity.heap_bytes();
    let activity_ms = reader.activity_took().as_secs_f64() * 1000.0;
    // A reading again with nothing appended: what the summary costs a
    // refresh (the engine goes on from its facts, the groups are shared).
    let mut again = Vec::new();
    for _ in 0..runs.max(1) {
        let (_, pending) = reader.read(&*db, now, &mut |_| {})?;
        pending.end()?;
        again.push(reader.activity_took().as_secs_f64() * 1000.0);
    }
    let activity_refresh_ms = median(again);
    let mut compute_ms = serde_json::Map::new();
    let mut pathways = 0;
    let mut forms = 0;
    for period in Period::ALL {
        let mut times = Vec::new();
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            let f = compute(&snap, period);
            times.push(ms(t));
            forms = f.rows.len();
            pathways = f.rows.iter().map(|r| r.pathways.len()).sum();
        }
        compute_ms.insert(period.as_arg().into(), median(times).into());
    }
    // The screen: a reading arrives, then key 7 opens the Forms tab.
    let indexed = IndexedSnapshot::new(snap);
    let mut open = Vec::new();
    for _ in 0..runs.max(1) {
        let mut app = App::new(true);
        update(
            &mut app,
            Msg::Resize {
                width: 160,
                height: 48,
            },
        );
        update(&mut app, Msg::Loaded(indexed.clone()));
        update(&mut app, Msg::Key(key('1')));
        // A new reading (the same one, as a new Arc) so the view is made again.
        let fresh = IndexedSnapshot {
            snapshot: std::sync::Arc::new((*indexed.snapshot).clone()),
            ..indexed.clone()
        };
        update(&mut app, Msg::Loaded(fresh));
        let t = Instant::now();
        update(&mut app, Msg::Key(key('7')));
        open.push(ms(t));
        assert!(app.forms.view().is_some(), "the view was made");
    }
    let out = serde_json::json!({
        "kind": "forms",
        "receipts": indexed.snapshot.receipt_count,
        "reading_ms": reading_ms,
        "activity_bytes": activity_bytes,
        "activity_ms": activity_ms,
        "activity_refresh_ms": activity_refresh_ms,
        "compute_ms": compute_ms,
        "open_tab_ms": median(open),
        "forms": forms,
        "pathways": pathways,
        "rss_mb": peak_rss_mb(),
    });
    println!("{out}");
    Ok(())
}

fn key(c: char) -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(c),
        crossterm::event::KeyModifiers::NONE,
    )
}
