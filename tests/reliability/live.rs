//! A live intake next to the tool: a second process inserts receipts
//! continuously (`BEGIN IMMEDIATE`, busy timeout 5 s, each insert timed) while
//! the review screen idles in a pseudo-terminal and two operators record
//! hundreds of decisions with `receipt-review resolve`.
//!
//! Nothing is lost (one log row per decision, every state change with its
//! row), the intake never errs (its busy timeout never runs out), the `-wal`
//! file stays bounded and can be checkpointed to nothing while the screen is
//! open (no long-lived read transaction), and the screen shows the new
//! receipts by itself. `RELIAB_SCALE=n` adds stuck receipts to decide (up to 5 times as many).

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use support::{
    Pty, WriterReport, add_stuck, assert_clean_exit, demo_db, every_state_change_is_logged,
    inspect, integrity, log_count, pending_items, scale, spawn_bin, spawn_helper, stderr,
    wait_for_file, wait_output,
};

/// The receipt count in the screen's header (`│ 1234 receipts`).
fn shown_receipts(screen: &str) -> Option<u64> {
    screen.lines().find_map(|line| {
        let end = line.find(" receipts")?;
        let head = &line[..end];
        let digits: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        head[..head.len() - digits.len()]
            .ends_with("│ ")
            .then(|| digits.parse().ok())
            .flatten()
    })
}

fn receipt_total(db: &Path) -> u64 {
    inspect(db)
        .query_row("SELECT count(*) FROM receipts", [], |r| r.get::<_, i64>(0))
        .unwrap() as u64
}

fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

fn decision_for(kind: &str, n: usize) -> &'static str {
    match kind {
        "stuck" if n.is_multiple_of(2) => "failed",
        "stuck" => "completed",
        "duplicate" => "duplicate",
        _ => "follow_up",
    }
}

#[test]
fn decisions_next_to_a_live_intake_are_never_lost_and_never_block_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path(), 150, 11);
    // Long runs decide up to five times as many (each decision reads the whole
    // growing database, so more would take long, not prove more).
    let stuck = add_stuck(&db, "live/stuck", 195 * scale().min(5));
    let items = pending_items(&db);
    assert!(items.len() >= 200, "{} items", items.len());

    // The screen idles on the database from the start.
    let mut screen = Pty::spawn(
        &[db.to_str().unwrap(), "--operator", "idle-screen"],
        160,
        48,
        dir.path(),
    );
    let first = screen.wait_until("the receipt count", Duration::from_secs(30), |t| {
        shown_receipts(t).is_some()
    });
    let initial = shown_receipts(&first).unwrap();
    assert_eq!(initial, receipt_total(&db), "{first}");

    // Watch the -wal file for the whole run.
    let stop_watching = Arc::new(AtomicBool::new(false));
    let max_wal = Arc::new(AtomicU64::new(0));
    let watcher = {
        let (stop, max, wal) = (
            Arc::clone(&stop_watching),
            Arc::clone(&max_wal),
            wal_path(&db),
        );
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if let Ok(meta) = std::fs::metadata(&wal) {
                    max.fetch_max(meta.len(), Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };

    // The intake.
    let (ready, stop, out) = (
        dir.path().join("writer.ready"),
        dir.path().join("writer.stop"),
        dir.path().join("writer.json"),
    );
    let mut writer = spawn_helper(
        "writer",
        &[
            ("RELIAB_DB", &db),
            ("RELIAB_READY", &ready),
            ("RELIAB_STOP", &stop),
            ("RELIAB_OUT", &out),
            // About 50 receipts a second, each in its own transaction.
            ("RELIAB_PAUSE_MS", Path::new("15")),
        ],
    );
    wait_for_file(&ready, Duration::from_secs(30), &mut writer);

    // Two operators, each deciding every other item, one process per decision.
    let started = Instant::now();
    let items = Arc::new(items);
    let operators: Vec<_> = (0..2)
        .map(|op| {
            let (items, db) = (Arc::clone(&items), db.clone());
            std::thread::spawn(move || {
                let mut recorded = Vec::new();
                for (n, (item, kind)) in items.iter().enumerate().skip(op).step_by(2) {
                    let decision = decision_for(kind, n);
                    let operator = format!("operator-{op}");
                    let child = spawn_bin(&[
                        "resolve",
                        db.to_str().unwrap(),
                        item,
                        decision,
                        "--operator",
                        &operator,
                        "--note",
                        &format!("decision {n} next to the intake"),
                    ]);
                    let (o, _) = wait_output(child, Duration::from_secs(60), item);
                    assert_clean_exit(&o, item);
                    assert_eq!(o.status.code(), Some(0), "{item}: {}", stderr(&o));
                    recorded.push((item.clone(), decision.to_string(), operator));
                }
                recorded
            })
        })
        .collect();

    // Meanwhile the screen, untouched, follows the intake.
    let mut seen_counts = vec![initial];
    while operators.iter().any(|h| !h.is_finished()) {
        if let Some(n) = shown_receipts(&screen.text())
            && seen_counts.last() != Some(&n)
        {
            seen_counts.push(n);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut recorded: Vec<(String, String, String)> = Vec::new();
    for h in operators {
        recorded.extend(h.join().unwrap());
    }
    let deciding = started.elapsed();

    std::fs::write(&stop, b"stop").unwrap();
    let (status, _) = wait_output(writer, Duration::from_secs(30), "the writer");
    assert!(status.status.success(), "writer: {}", stderr(&status));
    let report: WriterReport = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();

    // No long-lived read transaction: with the screen still open, a checkpoint
    // gets every frame into the database and empties the -wal.
    let conn = inspect(&db);
    conn.busy_timeout(Duration::from_secs(3)).unwrap();
    let (busy, frames, done): (i64, i64, i64) = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    let wal_after = std::fs::metadata(wal_path(&db)).unwrap().len();
    stop_watching.store(true, Ordering::SeqCst);
    watcher.join().unwrap();
    let max_wal = max_wal.load(Ordering::SeqCst);

    // The screen catches up with the last insert by itself.
    let total = receipt_total(&db);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut last = screen.text();
    while shown_receipts(&last) != Some(total) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        last = screen.text();
    }
    if let Some(n) = shown_receipts(&last)
        && seen_counts.last() != Some(&n)
    {
        seen_counts.push(n);
    }

    screen.keys("q");
    let quit = screen.wait_exit(Duration::from_secs(20));

    eprintln!(
        "live intake: {} decisions in {:.1} s next to {} inserts ({} errors), \
         writer max {:.1} ms (p99 {:.1} ms), -wal max {} KiB, checkpoint busy {} \
         ({}/{} frames), screen counts {:?}",
        recorded.len(),
        deciding.as_secs_f64(),
        report.inserts,
        report.errors.len(),
        report.max_latency_ms,
        report.p99_latency_ms,
        max_wal / 1024,
        busy,
        done,
        frames,
        seen_counts,
    );

    // Nothing lost: one log row per decision, each as recorded.
    assert_eq!(recorded.len(), items.len());
    assert_eq!(log_count(&conn), recorded.len() as i64);
    for (item, decision, operator) in &recorded {
        let (d, o): (String, String) = conn
            .query_row(
                "SELECT decision, operator FROM review_log WHERE item = ?1",
                [item],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((&d, &o), (decision, operator), "{item}");
    }
    let changed = every_state_change_is_logged(&conn, &stuck).unwrap();
    assert_eq!(changed, stuck.len(), "every stuck receipt was decided");

    // The intake was never refused: no insert waited out its 5 s busy timeout
    // (its latencies are printed above, not bounded: they are the machine's).
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.inserts >= 50, "{report:?}");

    // The -wal stayed bounded and was emptied.
    assert_eq!(busy, 0, "a reader blocked the checkpoint");
    assert_eq!(frames, done, "frames left behind");
    assert_eq!(wal_after, 0);
    assert!(max_wal < 8 * 1024 * 1024, "-wal grew to {max_wal} bytes");

    // The screen noticed new receipts several times without a key press, and
    // ends showing every one of them, live.
    assert_eq!(
        shown_receipts(&last),
        Some(total),
        "hung: the screen did not catch up with the intake in 20 s:\n{last}"
    );
    assert!(last.contains("● live"), "{last}");
    assert!(seen_counts.len() >= 3, "{seen_counts:?}");
    assert!(
        seen_counts.windows(2).all(|w| w[0] < w[1]),
        "{seen_counts:?}"
    );
    assert!(quit.success(), "{quit:?}");
    assert_eq!(integrity(&conn), "ok");
}
