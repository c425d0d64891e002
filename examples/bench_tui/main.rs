//! The review screen driven from outside, in a pseudo-terminal, and timed.
//!
//! `scripts/bench.py` builds it (`cargo build --release --example bench_tui`)
//! and reads its output: one JSON object per line on stdout, progress on
//! stderr. Alone:
//!
//! ```text
//! bench_tui floor [--keys 200]
//! bench_tui screen target/release/receipt-review DB [--keys 200] [--quiet-ms 150]
//! ```
//!
//! Method:
//!
//! * The binary runs on the slave side of a pty (160x48, TERM=xterm-256color)
//!   as a session leader with the pty as its controlling terminal; this process
//!   holds the master side and timestamps every read as it returns.
//! * Every byte the screen writes is fed to a VT emulator (`vt100`), so the
//!   screen's text can be read, e.g. to see when the header's counts appear.
//! * Frame boundaries: ratatui ends every drawn frame by setting the cursor's
//!   visibility (ESC[?25l, or ESC[?25h plus a cursor position while an input
//!   has focus). A frame "has content" when, with its CSI sequences removed,
//!   anything is left (an unchanged redraw only resets colours and the cursor).
//! * Keypress -> frame: wait until the screen has been quiet for `--quiet-ms`,
//!   write one key, then record the first byte that arrives (first_byte), the
//!   end of the first frame with content (frame) and the end of the last frame
//!   before the screen is quiet again (settle: e.g. the detail pane filled by a
//!   background load). Keys are measured one at a time, never queued.
//! * Time to first frame: spawn -> end of the first frame with content.
//!   Analysis shown: spawn -> end of the first frame whose top lines show the
//!   tab counts ("Duplicates N/M") past the progress screen ("Reading").
//!   Analysis complete: the same with no progress marker left ("⟳").
//! * The harness floor (`floor`): the same write -> read path through a pty to
//!   `cat` in raw mode; what it measures is included in every latency above.

mod frames;
mod header;
mod pty;
mod stats;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use serde_json::{Value, json};

use pty::{PtyApp, now};

#[derive(Parser)]
#[command(about = "Time the review screen in a pseudo-terminal (JSON lines on stdout)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The pty round trip to `cat` in raw mode.
    Floor {
        #[arg(long, default_value_t = 200)]
        keys: usize,
    },
    /// Start the screen on DB, wait for the analysis, then scroll and filter.
    Screen(ScreenArgs),
}

#[derive(clap::Args)]
struct ScreenArgs {
    binary: PathBuf,
    db: PathBuf,
    /// The screen's `--now`; `wall` lets its clock move.
    #[arg(long, default_value = "2026-11-29T12:00:00Z")]
    now: String,
    /// After the analysis, leave the screen alone this long and report its
    /// CPU use (the clock's ticks), before any key.
    #[arg(long, default_value_t = 0.0)]
    idle_s: f64,
    /// Keys scrolling, and at least as many filtering (0: load and quit).
    #[arg(long, default_value_t = 200)]
    keys: usize,
    /// How long the screen must be quiet before each key.
    #[arg(long, default_value_t = 150.0)]
    quiet_ms: f64,
    /// Seconds to wait for the analysis to complete.
    #[arg(long, default_value_t = 1800.0)]
    load_timeout: f64,
    /// Seconds to wait for a key's first frame.
    #[arg(long, default_value_t = 10.0)]
    key_timeout: f64,
    #[arg(long, default_value_t = 48)]
    rows: u16,
    #[arg(long, default_value_t = 160)]
    cols: u16,
    /// Put before every progress line on stderr.
    #[arg(long, default_value = "")]
    label: String,
    /// More arguments for the screen.
    #[arg(last = true)]
    extra: Vec<String>,
}

/// The filter words typed: texts every shape of database holds somewhere
/// (scopes, names, item ids), a single letter and a miss.
const FILTER_WORDS: &[&str] = &["shop", "smith", "dup:1", "corp.ex", "tanaka", "x", "lp/ai"];

fn main() -> anyhow::Result<()> {
    let out = match Cli::parse().command {
        Command::Floor { keys } => harness_floor(keys)?,
        Command::Screen(args) => measure(&args)?,
    };
    println!("{out}");
    Ok(())
}

fn harness_floor(keys: usize) -> anyhow::Result<Value> {
    let argv = ["sh", "-c", "stty raw -echo; echo ready; exec cat"].map(String::from);
    let mut app = PtyApp::spawn(&argv, 48, 160)?;
    let deadline = now() + 5.0;
    while !app.text().contains("ready") && now() < deadline {
        app.pump(0.1);
    }
    app.drain(0.1, 2.0);
    let mut samples = Vec::with_capacity(keys);
    for _ in 0..keys {
        app.drain(0.02, 2.0);
        let t0 = now();
        app.write(b"j");
        samples.push(app.pump(2.0).map(|chunk| (chunk.at - t0) * 1000.0));
    }
    app.terminate();
    app.close(b"");
    let got: Vec<f64> = samples.iter().flatten().copied().collect();
    Ok(json!({
        "kind": "harness_floor",
        "n": samples.len(),
        "p50": stats::pct(&got, 50.0),
        "p99": stats::pct(&got, 99.0),
        "max": stats::max(&got),
    }))
}

fn measure(args: &ScreenArgs) -> anyhow::Result<Value> {
    let log = |line: String| eprintln!("{}{line}", args.label);
    let mut argv = vec![
        args.binary.display().to_string(),
        args.db.display().to_string(),
        "--operator".into(),
        "bench".into(),
    ];
    if args.now != "wall" {
        argv.extend(["--now".into(), args.now.clone()]);
    }
    argv.extend(args.extra.iter().cloned());
    let mut app = PtyApp::spawn(&argv, args.rows, args.cols)?;
    let quiet = args.quiet_ms / 1000.0;
    let mut res = json!({
        "kind": "screen",
        "argv": argv[1..],
        "rows": args.rows,
        "cols": args.cols,
        "quiet_ms": args.quiet_ms,
    });
    let (mut first_byte, mut first_frame, mut shown, mut done) = (None, None, None, None);
    let deadline = app.spawned + args.load_timeout;
    while now() < deadline && done.is_none() {
        let Some(chunk) = app.pump((deadline - now()).min(1.0)) else {
            if app.eof {
                break;
            }
            continue;
        };
        first_byte.get_or_insert(chunk.at);
        if first_frame.is_none() && chunk.frames.iter().any(|&content| content) {
            first_frame = Some(chunk.at);
        }
        if !chunk.frames.is_empty() {
            let lines = app.lines();
            if shown.is_none() && header::analysis_shown(&lines) {
                shown = Some(chunk.at);
            }
            if header::analysis_done(&lines) {
                done = Some(chunk.at);
            }
        }
    }
    let since_spawn = |t: Option<f64>| t.map(|t| (t - app.spawned) * 1000.0);
    res["first_byte_ms"] = json!(since_spawn(first_byte));
    res["first_frame_ms"] = json!(since_spawn(first_frame));
    res["analysis_shown_ms"] = json!(since_spawn(shown));
    res["analysis_done_ms"] = json!(since_spawn(done));
    if done.is_none() {
        let exited = if app.eof { " (the program exited)" } else { "" };
        res["error"] = json!(format!("analysis did not complete{exited}"));
        res["screen"] = json!(app.text());
        app.close(b"q");
        return Ok(res);
    }
    app.drain(0.5, 2.0);
    let lines = app.lines();
    res["header"] = json!(lines[..3.min(lines.len())]);
    res["header_counts"] = json!(header::counts(&lines));
    res["rss_after_load_kb"] = json!(app.rss_kb());
    if args.idle_s > 0.0 {
        let (t0, cpu0) = (now(), app.cpu_seconds());
        app.drain(args.idle_s, args.idle_s);
        let (t1, cpu1) = (now(), app.cpu_seconds());
        if let (Some(a), Some(b)) = (cpu0, cpu1) {
            res["idle_s"] = json!(t1 - t0);
            res["idle_cpu_pct"] = json!((b - a) / (t1 - t0) * 100.0);
            log(format!(
                "tui: idle {:.0} s, CPU {:.2} %",
                t1 - t0,
                (b - a) / (t1 - t0) * 100.0
            ));
        }
    }
    let ms = |v: &Value| v.as_f64().unwrap_or(-1.0);
    log(format!(
        "tui: first frame {:.1} ms, analysis shown {:.0} ms, all read {:.0} ms",
        ms(&res["first_frame_ms"]),
        ms(&res["analysis_shown_ms"]),
        ms(&res["analysis_done_ms"]),
    ));

    let key_timeout = args.key_timeout;
    let scroll: Vec<_> = (0..args.keys)
        .map(|_| app.press(b"j", quiet, key_timeout, 2.0))
        .collect();
    res["scroll"] = stats::summarize(&scroll);
    log(format!(
        "tui: scroll (j) p50/p99 frame {:.2}/{:.2} ms",
        ms(&res["scroll"]["frame"]["p50"]),
        ms(&res["scroll"]["frame"]["p99"]),
    ));

    let keys = filter_keys(args.keys);
    let filtering: Vec<_> = keys
        .iter()
        .map(|k| app.press(k, quiet, key_timeout, 2.0))
        .collect();
    let letters: Vec<_> = keys
        .iter()
        .zip(&filtering)
        .filter(|(k, _)| !matches!(k.as_slice(), b"/" | b"\x1b"))
        .map(|(_, s)| *s)
        .collect();
    res["filter"] = stats::summarize(&filtering);
    res["filter_letters"] = stats::summarize(&letters);
    res["filter_words"] = json!(FILTER_WORDS);
    log(format!(
        "tui: filter (/ letters Esc) p50/p99 frame {:.2}/{:.2} ms",
        ms(&res["filter"]["frame"]["p50"]),
        ms(&res["filter"]["frame"]["p99"]),
    ));
    res["rss_end_kb"] = json!(app.rss_kb());
    res["exit_code"] = json!(app.close(b"q"));
    Ok(res)
}

/// '/', a word, Esc; repeated until at least `count` keys.
fn filter_keys(count: usize) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    for word in FILTER_WORDS.iter().cycle() {
        if keys.len() >= count {
            break;
        }
        keys.push(b"/".to_vec());
        keys.extend(word.bytes().map(|b| vec![b]));
        keys.push(b"\x1b".to_vec());
    }
    keys
}
