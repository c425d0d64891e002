//! The benchmark's floors.
//!
//! `cargo run --release --example bench_floor -- DB` is the floor the report
//! is measured against: the time for SQLite (the same bundled build the tool
//! uses) to read every receipt payload once, on one connection.
//!
//! `bench_floor --checked DB` is what no reading that keeps the database
//! contract can skip: every column the contract has the tool read, on one
//! connection per core as the tool reads (a range of rowids each), each
//! payload checked as UTF-8 and its SHA-256 compared with the stored digest.
//! What the report takes beyond it is parsing, analysis and output.
//!
//! Each prints one JSON line: rows, payload bytes, a byte sum (so every byte
//! is touched and the loop cannot be optimised away), the in-process seconds
//! and the SQLite version; `--checked` also the connections used and how many
//! digests differ from their payload's SHA-256 (rows the intake did not write
//! canonically, and damaged ones). `scripts/bench.py` builds it and times it
//! from outside.

use std::time::Instant;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use sha2::{Digest, Sha256};

type Failure = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: bench_floor [--checked] DB (prints rows, bytes and seconds as JSON)";

fn main() -> Result<(), Failure> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let checked = args.first().is_some_and(|a| a == "--checked");
    if checked {
        args.remove(0);
    }
    let [path] = &args[..] else {
        return Err(USAGE.into());
    };
    let started = Instant::now();
    let line = if checked {
        checked_floor(path)?
    } else {
        let (count, bytes, sum) = read_payloads(&open(path)?)?;
        format!("\"rows\":{count},\"bytes\":{bytes},\"byte_sum\":{sum}")
    };
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{{{line},\"seconds\":{seconds:.6},\"sqlite\":\"{}\"}}",
        rusqlite::version()
    );
    Ok(())
}

fn open(path: &str) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

fn text(v: ValueRef<'_>) -> &[u8] {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => b,
        _ => &[],
    }
}

/// (rows, payload bytes, byte sum)
fn read_payloads(conn: &Connection) -> rusqlite::Result<(u64, u64, u64)> {
    let mut stmt = conn.prepare("SELECT payload FROM receipts")?;
    let mut rows = stmt.query([])?;
    let (mut count, mut bytes, mut sum) = (0u64, 0u64, 0u64);
    while let Some(row) = rows.next()? {
        let payload = text(row.get_ref(0)?);
        count += 1;
        bytes += payload.len() as u64;
        sum = payload
            .iter()
            .fold(sum, |acc, &b| acc.wrapping_add(u64::from(b)));
    }
    Ok((count, bytes, sum))
}

/// Counts of one connection's range of rowids.
#[derive(Default)]
struct Tally {
    rows: u64,
    bytes: u64,
    sum: u64,
    mismatches: u64,
}

fn checked_floor(path: &str) -> Result<String, Failure> {
    // As many connections as the tool's reading uses.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4));
    let (low, high): (i64, i64) = open(path)?.query_row(
        "SELECT coalesce(min(id), 0), coalesce(max(id), -1) FROM receipts",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let span = (high - low + 1).max(0) / threads as i64 + 1;
    let tallies: Vec<Result<Tally, Failure>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as i64)
            .map(|t| {
                let from = low + t * span;
                scope.spawn(move || check_range(path, from, from + span - 1))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut all = Tally::default();
    for t in tallies {
        let t = t?;
        all.rows += t.rows;
        all.bytes += t.bytes;
        all.sum = all.sum.wrapping_add(t.sum);
        all.mismatches += t.mismatches;
    }
    Ok(format!(
        "\"rows\":{},\"bytes\":{},\"byte_sum\":{},\"mismatches\":{},\"connections\":{threads}",
        all.rows, all.bytes, all.sum, all.mismatches
    ))
}

fn check_range(path: &str, from: i64, to: i64) -> Result<Tally, Failure> {
    let conn = open(path)?;
    let mut stmt = conn.prepare(
        "SELECT id, payload, created_at, scope, request_key, digest, state, updated_at \
         FROM receipts WHERE id BETWEEN ?1 AND ?2",
    )?;
    let mut rows = stmt.query([from, to])?;
    let mut t = Tally::default();
    while let Some(row) = rows.next()? {
        t.rows += 1;
        for column in 2..8 {
            t.sum = t.sum.wrapping_add(text(row.get_ref(column)?).len() as u64);
        }
        let payload = text(row.get_ref(1)?);
        t.bytes += payload.len() as u64;
        let digest: [u8; 32] = match simdutf8::basic::from_utf8(payload) {
            Ok(p) => Sha256::digest(p.as_bytes()).into(),
            Err(_) => [0; 32],
        };
        t.sum = t.sum.wrapping_add(u64::from(digest[0]));
        let mut stored = [0u8; 32];
        let digest_matches =
            hex::decode_to_slice(text(row.get_ref(5)?), &mut stored).is_ok() && stored == digest;
        t.mismatches += u64::from(!digest_matches);
    }
    Ok(t)
}
