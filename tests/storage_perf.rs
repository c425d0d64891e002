//! Load time for a large database. Ignored by default (it builds a ~500 MB file):
//!
//! ```text
//! cargo test --release --test storage_perf -- --ignored --nocapture
//! STORAGE_PERF_ROWS=200000 cargo test --release --test storage_perf -- --ignored --nocapture
//! ```

#[path = "storage_support/mod.rs"]
mod support;

use std::time::Instant;

use receipt_review::storage::{self, Access, Database};
use rusqlite::Connection;

/// On-CPU time of this thread, in seconds (Linux): unlike wall time, it does
/// not count waiting for a core on a busy machine.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// A visitor's message of about 420 bytes of canonical JSON.
fn payload(i: u64) -> String {
    let words = [
        "hello", "order", "delivery", "invoice", "question", "about", "the", "form", "please",
        "thanks",
    ];
    let mut message = String::new();
    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    while message.len() < 300 {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        message.push_str(words[(x % 10) as usize]);
        message.push(' ');
    }
    format!(
        "{{\"email\":\"visitor{i}@example.com\",\"message\":\"{}\",\"name\":\"Visitor Number {i}\",\"phone\":\"+81-3-{:04}-{:04}\",\"topic\":\"support\"}}",
        message.trim_end(),
        i % 10_000,
        (i * 7) % 10_000
    )
}

#[test]
#[ignore = "builds a large database; run with --release --ignored"]
fn a_million_receipts_load_in_about_a_second() {
    let rows: u64 = std::env::var("STORAGE_PERF_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    storage::init(&path).unwrap();
    let started = Instant::now();
    {
        let mut conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "synchronous", "OFF").unwrap();
        let tx = conn.transaction().unwrap();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO receipts (id, scope, request_key, digest, payload, state, created_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .unwrap();
            for i in 1..=rows {
                let p = payload(i);
                insert
                    .execute(rusqlite::params![
                        i as i64,
                        format!("site-{}", i % 7),
                        format!("k{i:016x}"),
                        format!("{:064x}", i.wrapping_mul(0x2545_f491_4f6c_dd1d)),
                        p,
                        if i % 1000 == 0 {
                            "in_flight"
                        } else {
                            "completed"
                        },
                        format!(
                            "2026-11-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                            1 + (i / 86_400) % 28,
                            (i / 3600) % 24,
                            (i / 60) % 60,
                            i % 60,
                            i % 1000
                        ),
                    ])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!(
        "built {rows} receipts ({:.0} MB, payload ~{} bytes) in {:.1?}",
        size as f64 / 1e6,
        payload(rows / 2).len(),
        started.elapsed()
    );

    // Warm the OS page cache once, as a second run of the tool would find it.
    {
        let db = Database::open(&path, Access::ReadOnly).unwrap();
        storage::load(&db).unwrap();
    }
    let mut best = f64::MAX;
    for run in 1..=3 {
        let cpu_before = thread_cpu_seconds();
        let started = Instant::now();
        let db = Database::open(&path, Access::ReadOnly).unwrap();
        let opened = started.elapsed();
        let loaded = storage::load(&db).unwrap();
        let total = started.elapsed();
        let cpu = thread_cpu_seconds()
            .zip(cpu_before)
            .map(|(after, before)| format!(", {:.3} s on CPU", after - before))
            .unwrap_or_default();
        assert_eq!(loaded.receipts.len() as u64, rows);
        assert!(loaded.receipts.windows(2).all(|w| w[0].id < w[1].id));
        eprintln!(
            "run {run}: open {:.1?}, open + load {:.3?}{cpu} for {} receipts",
            opened,
            total,
            loaded.receipts.len()
        );
        best = best.min(total.as_secs_f64());
        drop(loaded);
    }
    eprintln!("best open + load: {best:.3} s");
}
