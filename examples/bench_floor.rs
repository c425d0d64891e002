//! The benchmark's floor: the time for SQLite (the same bundled build the tool
//! uses) to read every receipt payload once.
//!
//! `cargo run --release --example bench_floor -- DB` prints one JSON line:
//! rows, payload bytes, a byte sum (so every byte is touched and the loop cannot
//! be optimised away), the in-process seconds and the SQLite version.
//! `scripts/bench.py` builds it and times it from outside (best of 3).

use std::time::Instant;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: bench_floor DB (prints rows, bytes and seconds as JSON)")?;
    let started = Instant::now();
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let mut stmt = conn.prepare("SELECT payload FROM receipts")?;
    let mut rows = stmt.query([])?;
    let (mut count, mut bytes, mut sum) = (0u64, 0u64, 0u64);
    while let Some(row) = rows.next()? {
        let payload = match row.get_ref(0)? {
            ValueRef::Text(b) | ValueRef::Blob(b) => b,
            _ => &[],
        };
        count += 1;
        bytes += payload.len() as u64;
        sum = payload
            .iter()
            .fold(sum, |acc, &b| acc.wrapping_add(u64::from(b)));
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{{\"rows\":{count},\"bytes\":{bytes},\"byte_sum\":{sum},\"seconds\":{seconds:.6},\"sqlite\":\"{}\"}}",
        rusqlite::version()
    );
    Ok(())
}
