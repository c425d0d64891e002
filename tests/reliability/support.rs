//! Shared by the reliability tests: child processes (the real binary, and
//! helper processes that re-run the test binary in a given role), the
//! pseudo-terminal of `common`, and checks on a database after the fact.
#![allow(dead_code)]

// Not every test drives a screen.
#[allow(unused_imports)]
pub use crate::common::pty::{Pty, sigkill};

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, params};

pub const BIN: &str = env!("CARGO_BIN_EXE_receipt-review");

/// How much longer the loops run: `RELIAB_SCALE=20` (see `scripts/reliability.sh`).
pub fn scale() -> usize {
    std::env::var("RELIAB_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(1)
}

/// A seed for the random moments and bytes: `RELIAB_SEED`, else the clock
/// (printed, so that a failure can be replayed).
pub fn seed(what: &str) -> u64 {
    let seed = std::env::var("RELIAB_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("{what}: RELIAB_SEED={seed}");
    seed
}

/// A small, fast random number generator (splitmix64) so that the tests need
/// nothing beyond the crate's own dependencies.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// In `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Waits for a child with a deadline; kills it (and fails) when it hangs.
/// Its output is read meanwhile: a child that writes more than a pipe holds
/// (64 KiB) waits for a reader, which is not hanging.
pub fn wait_output(mut child: Child, limit: Duration, what: &str) -> (Output, Duration) {
    let start = Instant::now();
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let status = loop {
        match child.try_wait().unwrap() {
            Some(status) => break status,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                let err = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
                panic!("{what}: hung, still running after {limit:?}; stderr: {err}");
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let elapsed = start.elapsed();
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, elapsed)
}

pub fn spawn_bin(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        // Never the config file of whoever runs the tests.
        .env("XDG_CONFIG_HOME", "/nonexistent/receipt-review-tests")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run receipt-review")
}

/// Asserts the documented contract of a failed or successful command: exit 0,
/// 1 or 2, never a panic; an error is exactly one terminal-safe line on stderr.
pub fn assert_clean_exit(o: &Output, what: &str) -> i32 {
    let code = o
        .status
        .code()
        .unwrap_or_else(|| panic!("{what}: killed by a signal: {:?}", o.status));
    let err = stderr(o);
    assert!(
        [0, 1, 2].contains(&code),
        "{what}: exit {code}; stderr: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("internal error") && !err.contains("RUST_"),
        "{what}: {err}"
    );
    // An error is one line; `check` says what it found (exit 1) on stdout.
    if code == 2 || (code == 1 && o.stdout.is_empty()) {
        assert_eq!(err.lines().count(), 1, "{what}: not one line: {err:?}");
    }
    if code != 0 {
        assert!(err.lines().count() <= 1, "{what}: {err:?}");
        assert!(
            err.is_empty() || err.starts_with("receipt-review: "),
            "{what}: {err}"
        );
    }
    if let Err(e) = human_text(err.as_bytes()) {
        panic!("{what}: stderr {e}: {err:?}");
    }
    code
}

/// A character no terminal may receive raw, listed independently of the
/// sanitizer's own list (which is also honoured): every control (C0, DEL,
/// C1), bidi controls, zero-width and invisible format characters, line and
/// paragraph separators, tag characters.
pub fn forbidden_char(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x061C | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E
            | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
            | 0xE0000..=0xE007F)
        || receipt_review::sanitize::is_unsafe(c)
}

/// Text a person reads in a terminal: UTF-8, no control character but `\n`
/// and `\t`, no C1, no bidi or invisible character (so no escape sequence).
pub fn human_text(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("is not UTF-8: {e}"))?;
    for (i, c) in text.char_indices() {
        if c == '\n' || c == '\t' {
            continue;
        }
        if forbidden_char(c) {
            let from = text[..i].char_indices().rev().nth(20).map_or(0, |(j, _)| j);
            return Err(format!(
                "has a raw {c:?} at byte {i} after {:?}",
                &text[from..i]
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Helper processes: the test binary run again in a role.

/// Spawns this test binary again, running only its `reliability_helper` test
/// (at the binary's root, so its name is the whole path the filter matches)
/// with `RELIAB_ROLE=role` and the given environment.
pub fn spawn_helper(role: &str, env: &[(&str, &Path)]) -> Child {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([
        "reliability_helper",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
        "-q",
    ])
    .env("RELIAB_ROLE", role)
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn a helper process")
}

/// Waits until `path` exists (a helper says it is ready).
pub fn wait_for_file(path: &Path, limit: Duration, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            panic!("helper exited early ({status:?}): {err}");
        }
        assert!(
            start.elapsed() < limit,
            "hung: {} did not appear in {limit:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn env_path(name: &str) -> PathBuf {
    PathBuf::from(std::env::var_os(name).unwrap_or_else(|| panic!("{name} not set")))
}

/// The body of `reliability_helper`: does nothing unless run by [`spawn_helper`].
pub fn helper_main() {
    let Ok(role) = std::env::var("RELIAB_ROLE") else {
        return;
    };
    parent_alive();
    match role.as_str() {
        "writer" => writer(),
        "lock" => lock_holder(),
        "dirty-writer" => dirty_writer(),
        other => panic!("unknown role {other}"),
    }
}

/// What the intake writer measured, written as JSON to `RELIAB_OUT`.
#[derive(Debug, serde::Deserialize, serde::Serialize, Default)]
pub struct WriterReport {
    pub inserts: u64,
    pub errors: Vec<String>,
    pub max_latency_ms: f64,
    pub p99_latency_ms: f64,
    pub first_id: i64,
    pub last_id: i64,
}

/// An intake: inserts receipts continuously, each in its own `BEGIN IMMEDIATE`
/// transaction with a 5 s busy timeout, timing every one, until `RELIAB_STOP`
/// exists. Every tenth receipt is a second click on the one before (a new
/// duplicate group for the screen to find).
fn writer() {
    let db = env_path("RELIAB_DB");
    let stop = env_path("RELIAB_STOP");
    let out = env_path("RELIAB_OUT");
    let ready = env_path("RELIAB_READY");
    let pause = Duration::from_millis(
        std::env::var("RELIAB_PAUSE_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(10),
    );
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_WRITE).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    let mut report = WriterReport::default();
    let mut latencies = Vec::new();
    let run = std::process::id();
    fs::write(&ready, b"ready").unwrap();
    let mut n: u64 = 0;
    let mut last_message = String::new();
    while !stop.exists() && parent_alive() {
        n += 1;
        let second_click = n.is_multiple_of(10);
        let message = if second_click {
            last_message.clone()
        } else {
            format!("Live message {n} from the intake test, please call back.")
        };
        last_message = message.clone();
        let payload = serde_json::json!({
            "email": format!("visitor{}@example.com", n - u64::from(second_click)),
            "message": message,
            "name": format!("Visitor {}", n - u64::from(second_click)),
        })
        .to_string();
        let canon = receipt_review::intake::canonical::canonical_text(&payload).unwrap();
        let digest = receipt_review::intake::canonical::sha256_hex(&canon);
        let now =
            receipt_review::model::time::format_rfc3339(receipt_review::model::time::now_ms());
        let started = Instant::now();
        let result = (|| -> rusqlite::Result<i64> {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            let inserted = conn.execute(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at) \
                 VALUES ('live/intake', ?1, ?2, ?3, 'completed', ?4) \
                 ON CONFLICT DO NOTHING",
                params![format!("live-{run}-{n}"), digest, canon, now],
            );
            match inserted {
                Ok(_) => {
                    let id = conn.last_insert_rowid();
                    conn.execute_batch("COMMIT")?;
                    Ok(id)
                }
                Err(e) => {
                    let _ = conn.execute_batch("ROLLBACK");
                    Err(e)
                }
            }
        })();
        let took = started.elapsed().as_secs_f64() * 1000.0;
        latencies.push(took);
        match result {
            Ok(id) => {
                report.inserts += 1;
                if report.first_id == 0 {
                    report.first_id = id;
                }
                report.last_id = id;
            }
            Err(e) => {
                if !conn.is_autocommit() {
                    let _ = conn.execute_batch("ROLLBACK");
                }
                report.errors.push(format!("insert {n}: {e}"));
            }
        }
        std::thread::sleep(pause);
    }
    latencies.sort_by(f64::total_cmp);
    report.max_latency_ms = latencies.last().copied().unwrap_or(0.0);
    report.p99_latency_ms = latencies
        .get(latencies.len() * 99 / 100)
        .copied()
        .unwrap_or(0.0);
    fs::write(&out, serde_json::to_vec(&report).unwrap()).unwrap();
}

/// Holds the database locked (`RELIAB_LOCK_MODE`: `exclusive` is
/// `PRAGMA locking_mode = EXCLUSIVE` plus a write, so that nobody else can
/// even read; `write` is a plain `BEGIN IMMEDIATE` with a pending write) until
/// `RELIAB_STOP` exists.
fn lock_holder() {
    let db = env_path("RELIAB_DB");
    let stop = env_path("RELIAB_STOP");
    let ready = env_path("RELIAB_READY");
    let mode = std::env::var("RELIAB_LOCK_MODE").unwrap_or_else(|_| "exclusive".into());
    let conn = Connection::open(&db).unwrap();
    if mode == "exclusive" {
        conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
            .unwrap();
    } else {
        conn.execute_batch("BEGIN IMMEDIATE;").unwrap();
    }
    conn.execute(
        "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
         VALUES ('lock/holder', 'held', 'd', '{}', '2026-01-01 00:00:00')",
        [],
    )
    .unwrap();
    fs::write(&ready, b"locked").unwrap();
    while !stop.exists() && parent_alive() {
        std::thread::sleep(Duration::from_millis(10));
    }
    conn.execute_batch("ROLLBACK").unwrap();
}

/// Commits `RELIAB_COMMITTED` receipts without checkpointing them (they live in
/// the -wal only), then starts a large transaction that spills uncommitted
/// pages into the -wal, says it is ready, and waits to be killed.
fn dirty_writer() {
    let db = env_path("RELIAB_DB");
    let ready = env_path("RELIAB_READY");
    let committed: i64 = std::env::var("RELIAB_COMMITTED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = 8;")
        .unwrap();
    for i in 0..committed {
        let payload = format!("{{\"n\":{i}}}");
        conn.execute(
            "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
             VALUES ('dirty/committed', ?1, ?2, ?3, '2026-11-29T10:00:00Z')",
            params![
                format!("c{i}"),
                receipt_review::intake::canonical::sha256_hex(&payload),
                payload
            ],
        )
        .unwrap();
    }
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    for i in 0..3000 {
        conn.execute(
            "INSERT INTO receipts (scope, request_key, digest, payload, created_at) \
             VALUES ('dirty/uncommitted', ?1, 'd', ?2, '2026-11-29T10:00:00Z')",
            params![
                format!("u{i}"),
                format!("{{\"pad\":\"{}\"}}", "x".repeat(500))
            ],
        )
        .unwrap();
    }
    fs::write(&ready, b"dirty").unwrap();
    while parent_alive() {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// False once the test that started this helper has gone (a helper never
/// outlives a failed test).
fn parent_alive() -> bool {
    static PARENT: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let now = std::os::unix::process::parent_id();
    *PARENT.get_or_init(|| now) == now
}

// ---------------------------------------------------------------------------
// Databases.

/// A demo database written by the real binary.
pub fn demo_db(dir: &Path, receipts: usize, seed: u64) -> PathBuf {
    let path = dir.join("demo.db");
    let o = crate::common::run(&[
        "demo",
        "--out",
        path.to_str().unwrap(),
        "--receipts",
        &receipts.to_string(),
        "--seed",
        &seed.to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "demo: {}", stderr(&o));
    path
}

/// Adds `n` receipts stuck `in_flight` for an hour, as an intake whose action
/// never finished would leave them; returns their ids.
pub fn add_stuck(path: &Path, scope: &str, n: usize) -> Vec<i64> {
    let mut conn = Connection::open(path).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    let tx = conn.transaction().unwrap();
    let start = receipt_review::model::time::now_ms() - 3_600_000;
    let mut ids = Vec::new();
    for i in 0..n {
        let payload = format!(r#"{{"amount":{},"order":"stuck-{i}"}}"#, 100 + i);
        let canon = receipt_review::intake::canonical::canonical_text(&payload).unwrap();
        tx.execute(
            "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at) \
             VALUES (?1, ?2, ?3, ?4, 'in_flight', ?5)",
            params![
                scope,
                format!("stuck-{i}"),
                receipt_review::intake::canonical::sha256_hex(&canon),
                canon,
                receipt_review::model::time::format_rfc3339(start + i as i64 * 1000),
            ],
        )
        .unwrap();
        ids.push(tx.last_insert_rowid());
    }
    tx.commit().unwrap();
    ids
}

/// The items of `report --json`, pending ones only: (item, kind).
pub fn pending_items(path: &Path) -> Vec<(String, String)> {
    let o = crate::common::run(&["report", path.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "report: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut items = Vec::new();
    for (list, kind) in [
        ("stuck", "stuck"),
        ("duplicates", "duplicate"),
        ("conflicts", "conflict"),
    ] {
        for entry in v[list].as_array().unwrap() {
            if entry["status"] == "pending" {
                items.push((entry["item"].as_str().unwrap().to_string(), kind.into()));
            }
        }
    }
    items
}

/// A plain connection for checking afterwards (never creates the file).
pub fn inspect(path: &Path) -> Connection {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    conn
}

pub fn integrity(conn: &Connection) -> String {
    let rows: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.join("; ")
}

pub fn log_count(conn: &Connection) -> i64 {
    let exists: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if exists == 0 {
        return 0;
    }
    conn.query_row("SELECT count(*) FROM review_log", [], |r| r.get(0))
        .unwrap()
}

/// Every receipt of `ids` that is not `in_flight` any more must have been
/// changed by a log row in force that wrote exactly that state and updated_at
/// (state changes and their log rows are one transaction). Returns how many
/// receipts were changed.
pub fn every_state_change_is_logged(conn: &Connection, ids: &[i64]) -> Result<usize, String> {
    let mut changed = 0;
    for &id in ids {
        let (state, updated): (String, Option<String>) = conn
            .query_row(
                "SELECT state, updated_at FROM receipts WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| format!("receipt {id}: {e}"))?;
        let logged: Option<(String, Option<String>)> = if log_count(conn) > 0 {
            conn.query_row(
                "SELECT state_after, updated_at_after FROM review_log \
                 WHERE item = ?1 AND state_after IS NOT NULL ORDER BY id DESC LIMIT 1",
                [format!("stuck:{id}")],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ok()
        } else {
            None
        };
        if state == "in_flight" {
            // Either never decided, or its last state-changing row put it back.
            if let Some((after, at)) = logged
                && (after != "in_flight" || at != updated)
            {
                return Err(format!(
                    "receipt {id} is in_flight but its last logged change wrote {after} at {at:?}"
                ));
            }
            continue;
        }
        changed += 1;
        match logged {
            Some((after, at)) if after == state && at == updated => {}
            other => {
                return Err(format!(
                    "receipt {id} is {state} (updated_at {updated:?}) but the log says {other:?}"
                ));
            }
        }
    }
    Ok(changed)
}

/// Checks what a screen program wrote to its terminal: every escape sequence
/// is one of cursor movement (CUP, CUU/CUD/CUF/CUB, CHA, VPA, save/restore),
/// SGR colours, erase (ED, EL), or a screen mode (alternate screen 1049,
/// cursor 25, bracketed paste 2004, focus reports 1004, mouse 1000-1006);
/// outside them, no control, C1, bidi or invisible character at all.
/// Returns how many sequences it saw.
pub fn check_screen_bytes(bytes: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let chars: Vec<char> = text.chars().collect();
    let context = |i: usize| -> String {
        let from = i.saturating_sub(30);
        chars[from..(i + 20).min(chars.len())].iter().collect()
    };
    let mut i = 0;
    let mut sequences = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\x1b' {
            match chars.get(i + 1) {
                Some('7') | Some('8') => {
                    sequences += 1;
                    i += 2;
                    continue;
                }
                Some('[') => {}
                _ => return Err(format!("a non-CSI escape at {i}: {:?}", context(i))),
            }
            let mut j = i + 2;
            while j < chars.len() && ('\x30'..='\x3f').contains(&chars[j]) {
                j += 1;
            }
            let params: String = chars[i + 2..j].iter().collect();
            if j < chars.len() && ('\x20'..='\x2f').contains(&chars[j]) {
                return Err(format!("a CSI with intermediates at {i}: {:?}", context(i)));
            }
            let Some(&final_byte) = chars.get(j) else {
                return Err("an unterminated CSI".into());
            };
            let numeric = params
                .chars()
                .all(|c| c.is_ascii_digit() || c == ';' || c == ':');
            let ok = match final_byte {
                'H' | 'f' | 'A' | 'B' | 'C' | 'D' | 'G' | 'd' | 'E' | 'F' | 'J' | 'K' => {
                    numeric && !params.contains(':')
                }
                'm' => numeric,
                'h' | 'l' => matches!(
                    params.as_str(),
                    "?25" | "?1049" | "?2004" | "?1004" | "?1000" | "?1002" | "?1003" | "?1006"
                ),
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "a forbidden sequence CSI {params:?} {final_byte:?} at {i}: {:?}",
                    context(i)
                ));
            }
            sequences += 1;
            i = j + 1;
            continue;
        }
        if forbidden_char(c) {
            return Err(format!("a raw {c:?} at {i}: {:?}", context(i)));
        }
        i += 1;
    }
    Ok(sequences)
}
