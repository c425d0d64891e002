//! What one keypress costs the screen, in-process: `update`, then drawing
//! into a 160×48 buffer, for scrolling (`j`, then `k`) and for typing a
//! filter, on every tab; p50/p99/max of each. With `KEYS=N`, N keys of each
//! kind (200); with `LOOP=1`, the keys again and again until killed (for a
//! profiler attached to the process).
//!
//! `cargo run --release --example key_timing -- DB`

#[path = "common/screen.rs"]
mod screen;

use std::time::Instant;

use crossterm::event::KeyCode;
use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::storage::{Access, open_database};
use receipt_review::tui::app::{App, update};
use receipt_review::tui::canvas;

/// The demo databases' `--now` (2026-11-29T12:00:00Z).
const NOW_MS: i64 = 1_795_953_600_000;

fn main() -> anyhow::Result<()> {
    // As the program does.
    receipt_review::memory::one_arena_per_core();
    receipt_review::memory::keep_large_blocks_apart();
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: key_timing DB"))?;
    let keys: usize = std::env::var("KEYS").map_or(Ok(200), |k| k.parse())?;
    let forever = std::env::var_os("LOOP").is_some();
    let db = open_database(path.as_str(), Access::ReadOnly)?;
    let t = Instant::now();
    let snap = reading::read_with_receipts(&*db, Settings::new(NOW_MS), &mut |_| {})?;
    println!("read in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let (mut app, mut terminal) = screen::loaded(App::new(true).with_frozen_clock(), snap)?;
    terminal.draw(|f| {
        canvas::draw(f, &app);
    })?;
    let scroll: Vec<KeyCode> = (0..keys)
        .map(|i| KeyCode::Char(if i < keys / 2 { 'j' } else { 'k' }))
        .collect();
    let mut typing: Vec<KeyCode> = Vec::new();
    while typing.len() < keys {
        for word in ["shop", "smith", "dup:1", "corp.ex", "tanaka", "x", "lp/ai"] {
            typing.push(KeyCode::Char('/'));
            typing.extend(word.chars().map(KeyCode::Char));
            typing.push(KeyCode::Esc);
        }
    }
    loop {
        for tab in ['1', '2', '3', '4'] {
            update(&mut app, screen::press(KeyCode::Char(tab)));
            for (what, keys) in [("scroll", &scroll), ("filter", &typing)] {
                let (mut updates, mut draws) = (Vec::new(), Vec::new());
                let mut slowest = Vec::new();
                for (k, &key) in keys.iter().enumerate() {
                    let t = Instant::now();
                    update(&mut app, screen::press(key));
                    updates.push(t.elapsed());
                    slowest.push((t.elapsed(), k));
                    let t = Instant::now();
                    terminal.draw(|f| {
                        canvas::draw(f, &app);
                    })?;
                    draws.push(t.elapsed());
                }
                if !forever {
                    println!(
                        "tab {tab} {what:>6}: update {}; draw {}",
                        screen::stats(&mut updates),
                        screen::stats(&mut draws)
                    );
                    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
                    let typed = |k: usize| -> String {
                        let start = keys[..=k]
                            .iter()
                            .rposition(|&c| c == KeyCode::Char('/'))
                            .unwrap_or(0);
                        keys[start..=k]
                            .iter()
                            .map(|c| match c {
                                KeyCode::Char(c) => c.to_string(),
                                _ => "⎋".into(),
                            })
                            .collect()
                    };
                    let slow: Vec<String> = slowest
                        .iter()
                        .take(5)
                        .map(|&(t, k)| format!("{} {:.1}", typed(k), t.as_secs_f64() * 1e3))
                        .collect();
                    println!("    slowest updates (ms): {}", slow.join(", "));
                }
            }
        }
        if !forever {
            return Ok(());
        }
    }
}
