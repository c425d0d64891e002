//! How long the text filter takes on a database, in-process: the index's
//! build and size, each letter of a few words typed one by one on every tab
//! (each letter narrowing the rows of the one before), and then the screen's
//! whole answer to each key (`update`, then drawing into a 160×48 buffer),
//! p50/p99 over the keys of `examples/bench_tui`, and the slowest keys.
//!
//! `cargo run --release --example filter_timing -- DB`; with `SLEEP=1` each
//! letter of the first part waits 150 ms first, as the screen's keys do (a
//! typist's pause); with `EVICT=1` it reads 64 MB of other memory first
//! instead, which leaves the caches as cold but the machine awake (on the
//! shared machine of BENCHMARKS.md, the pause costs far more).

#[path = "common/screen.rs"]
mod screen;

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use receipt_review::tui::app::{App, update};
use receipt_review::tui::canvas;

use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::storage::{Access, open_database};
use receipt_review::tui::app::search::{Known, SearchIndex, compute, narrows, normalize_query};
use receipt_review::tui::app::{ClassFilter, Tab};

fn main() -> anyhow::Result<()> {
    // As the program does.
    receipt_review::memory::one_arena_per_core();
    receipt_review::memory::keep_large_blocks_apart();
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: filter_timing DB"))?;
    let db = open_database(path.as_str(), Access::ReadOnly)?;
    let now = receipt_review::model::time::parse_text("2026-11-29T12:00:00Z")
        .map_err(anyhow::Error::msg)?;
    let snap = reading::read_with_receipts(&*db, Settings::new(now), &mut |_| {})?;
    let t = Instant::now();
    let search = SearchIndex::build(&snap, None);
    println!(
        "index: built in {:.0} ms, {} MB; {} groups",
        t.elapsed().as_secs_f64() * 1e3,
        search.bytes() >> 20,
        snap.triage.duplicates.len()
    );
    let t = Instant::now();
    let again = SearchIndex::build(&snap, Some(&search));
    println!(
        "index: copied from the last in {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    drop(again);
    // Made once: what evicts the caches is reading it, not making it.
    let pause = std::env::var_os("SLEEP").is_some();
    let other = std::env::var_os("EVICT").map(|_| vec![1u8; 64 << 20]);
    for tab in Tab::ALL {
        println!("{tab:?} tab, {} rows:", search.tab(tab).len());
        for word in [
            "shop", "smith", "dup:1", "corp.ex", "tanaka", "x", "lp/ai", "zq",
        ] {
            let mut shown: Option<(String, Vec<usize>)> = None;
            let mut times = Vec::new();
            for end in 1..=word.len() {
                let q = normalize_query(&word[..end]);
                let known = shown
                    .as_ref()
                    .filter(|(b, _)| narrows(b, &q))
                    .map_or(Known::Nothing, |(_, r)| Known::Among(r));
                if pause {
                    std::thread::sleep(Duration::from_millis(150));
                }
                if let Some(other) = &other {
                    std::hint::black_box(other.iter().map(|&b| u64::from(b)).sum::<u64>());
                }
                let t = Instant::now();
                let rows = compute(&snap, &search, tab, ClassFilter::All, &q, known);
                times.push(format!("{:.1}", t.elapsed().as_secs_f64() * 1e3));
                shown = Some((q, rows));
            }
            let n = shown.map_or(0, |s| s.1.len());
            println!("{word:>10}: {} ms per letter; {n} rows", times.join(" "));
        }
    }
    drop(search);

    let (mut app, mut terminal) = screen::loaded(App::new(true), snap)?;
    let (mut updates, mut draws) = (Vec::new(), Vec::new());
    let mut slowest = Vec::new();
    for _ in 0..3 {
        for word in ["shop", "smith", "dup:1", "corp.ex", "tanaka", "x", "lp/ai"] {
            let keys = std::iter::once(KeyCode::Char('/'))
                .chain(word.chars().map(KeyCode::Char))
                .chain([KeyCode::Esc]);
            for key in keys {
                // As a typist: the screen is idle between keys.
                std::thread::sleep(Duration::from_millis(150));
                let t = Instant::now();
                update(&mut app, screen::press(key));
                updates.push(t.elapsed());
                slowest.push((t.elapsed(), word, key));
                let t = Instant::now();
                terminal.draw(|f| {
                    canvas::draw(f, &app);
                })?;
                draws.push(t.elapsed());
            }
        }
    }
    println!(
        "screen, per key: update {}; draw {}",
        screen::stats(&mut updates),
        screen::stats(&mut draws)
    );
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    let slowest: Vec<String> = slowest
        .iter()
        .take(8)
        .map(|(t, word, key)| {
            let key = match key {
                KeyCode::Char(c) => c.to_string(),
                _ => "Esc".into(),
            };
            format!("{key} in {word} {:.1}", t.as_secs_f64() * 1e3)
        })
        .collect();
    println!("slowest updates (ms): {}", slowest.join(", "));
    Ok(())
}
