//! Crashes: the deciding process is killed with SIGKILL at random moments,
//! many times — `receipt-review resolve`, and the review screen in the middle
//! of a burst of decisions and undos. After every kill the database passes
//! `PRAGMA integrity_check`, the log has only grown (earlier rows unchanged),
//! and no receipt state changed without the log row that records it. The
//! `-wal`/`-shm` files a killed writer leaves behind open fine.
//!
//! `RELIAB_SCALE=n` runs n times as many loops; `RELIAB_SEED` replays one run.

use crate::{common, support};

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use support::{
    Pty, Rng, add_stuck, assert_clean_exit, demo_db, every_state_change_is_logged, inspect,
    integrity, scale, seed, sigkill, spawn_bin, spawn_helper, stderr, stdout, wait_for_file,
    wait_output,
};

/// Every log row, as text, in append order.
fn log_rows(conn: &Connection) -> Vec<String> {
    if support::log_count(conn) == 0 {
        return Vec::new();
    }
    conn.prepare(
        "SELECT id, item, kind, decision, operator, decided_at, receipt_ids, \
         length(note), reopens, state_before, state_after, updated_at_before, updated_at_after \
         FROM review_log ORDER BY id",
    )
    .unwrap()
    .query_map([], |r| {
        let cells: Vec<String> = (0..13)
            .map(|i| {
                r.get::<_, rusqlite::types::Value>(i)
                    .map(|v| format!("{v:?}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(cells.join("|"))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The checks after a kill; returns the log as it is now.
fn after_kill(db: &Path, stuck: &[i64], before: &[String], what: &str) -> Vec<String> {
    // Opening replays a leftover -wal and ignores what was never committed.
    let conn = inspect(db);
    assert_eq!(integrity(&conn), "ok", "{what}");
    let rows = log_rows(&conn);
    assert!(
        rows.len() >= before.len() && rows[..before.len()] == *before,
        "{what}: the log lost or changed rows ({} -> {})",
        before.len(),
        rows.len()
    );
    if let Err(e) = every_state_change_is_logged(&conn, stuck) {
        panic!("{what}: {e}");
    }
    // And the tool reads it, as a person would next.
    let database =
        receipt_review::storage::open_database(db, receipt_review::storage::Access::PreferWrite)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(!database.is_read_only(), "{what}");
    receipt_review::review::read_log(&*database).unwrap();
    rows
}

fn pending_stuck(conn: &Connection, stuck: &[i64]) -> Vec<i64> {
    stuck
        .iter()
        .copied()
        .filter(|id| {
            conn.query_row("SELECT state FROM receipts WHERE id = ?1", [id], |r| {
                r.get::<_, String>(0)
            })
            .unwrap()
                == "in_flight"
        })
        .collect()
}

#[test]
fn resolve_killed_at_random_moments_loses_nothing_and_half_writes_nothing() {
    let loops = 20 * scale();
    let mut rng = Rng(seed("resolve kills"));
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path(), 200, 5);
    let stuck = add_stuck(&db, "crash/stuck", loops + 8);
    // A note big enough to make the write transaction take a while.
    let big_note = "n".repeat(100_000);

    // How long one decision takes (the quickest of three), to spread the
    // kills over all of it.
    let mut typical = Duration::MAX;
    for &id in &stuck[..3] {
        let started = Instant::now();
        let (o, _) = wait_output(
            spawn_bin(&[
                "resolve",
                db.to_str().unwrap(),
                &format!("stuck:{id}"),
                "completed",
                "--operator",
                "calibration",
            ]),
            Duration::from_secs(30),
            "resolve",
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        typical = typical.min(started.elapsed());
    }

    let mut rows = after_kill(&db, &stuck, &[], "calibration");
    let (mut killed_before, mut killed_after, mut finished) = (0, 0, 0);
    for round in 0..loops {
        let pending = pending_stuck(&inspect(&db), &stuck);
        let id = pending[rng.below(pending.len() as u64) as usize];
        let item = format!("stuck:{id}");
        let decision = if rng.below(2) == 0 {
            "failed"
        } else {
            "completed"
        };
        let note = if round % 2 == 0 {
            big_note.as_str()
        } else {
            ""
        };
        let delay = Duration::from_micros(rng.below(typical.as_micros() as u64 * 11 / 10));
        let mut child = spawn_bin(&[
            "resolve",
            db.to_str().unwrap(),
            &item,
            decision,
            "--operator",
            "victim",
            "--note",
            note,
        ]);
        std::thread::sleep(delay);
        sigkill(child.id());
        let status = child.wait().unwrap();
        let what = format!("round {round}: {item} {decision} killed after {delay:?}");
        let now = after_kill(&db, &stuck, &rows, &what);
        match (status.code(), now.len() > rows.len()) {
            (None, false) => killed_before += 1,
            (None, true) => killed_after += 1,
            (Some(_), _) => finished += 1,
        }
        rows = now;
    }
    eprintln!(
        "resolve: {loops} SIGKILLs within {typical:?}: {killed_before} before the commit, \
         {killed_after} after it, {finished} finished first; log {} rows, integrity ok",
        rows.len()
    );
    assert!(killed_before + killed_after > 0);
}

#[test]
fn the_screen_killed_while_deciding_loses_nothing_and_half_writes_nothing() {
    let loops = 6 * scale();
    let mut rng = Rng(seed("screen kills"));
    let dir = tempfile::tempdir().unwrap();
    let db = demo_db(dir.path(), 400, 9);
    let stuck = add_stuck(&db, "crash/stuck", 12 * loops);
    let mut rows = after_kill(&db, &stuck, &[], "start");
    let mut decided = 0;
    for round in 0..loops {
        let mut screen = Pty::spawn(
            &[
                db.to_str().unwrap(),
                "--operator",
                &format!("screen-{round}"),
            ],
            120,
            40,
            dir.path(),
        );
        screen.wait_for("Stuck", Duration::from_secs(30));
        screen.wait_until("loaded", Duration::from_secs(30), |t| {
            t.contains("pending ")
        });
        // A burst: stuck receipts marked failed or completed (each confirmed),
        // still pending, an undo, and duplicate groups; then a kill mid-way.
        let burst = match round % 3 {
            0 => "3FyCyFypFyuCy",
            1 => "3CyFyuFyCyCy1dddd",
            _ => "1ddxdsu3FyFy",
        };
        screen.keys(burst);
        std::thread::sleep(Duration::from_millis(rng.below(700)));
        screen.kill9();
        let what = format!("screen round {round} ({burst})");
        let now = after_kill(&db, &stuck, &rows, &what);
        decided += now.len() - rows.len();
        rows = now;
    }
    eprintln!(
        "screen: {loops} SIGKILLs mid-burst; {decided} log rows written by the killed screens, \
         integrity ok"
    );
}

fn side_file(db: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

#[test]
fn a_killed_writers_leftover_wal_and_shm_open_fine() {
    let f = common::fixture();
    let db = f.db.clone();
    let dir = db.parent().unwrap().to_path_buf();
    let (ready, committed) = (dir.join("dirty.ready"), 50);
    let mut writer = spawn_helper(
        "dirty-writer",
        &[("RELIAB_DB", &db), ("RELIAB_READY", &ready)],
    );
    wait_for_file(&ready, Duration::from_secs(60), &mut writer);
    sigkill(writer.id());
    writer.wait().unwrap();
    let (wal, shm) = (side_file(&db, "-wal"), side_file(&db, "-shm"));
    let wal_len = std::fs::metadata(&wal).unwrap().len();
    assert!(shm.exists() && wal_len > 1_000_000, "-wal {wal_len}");
    // A copy of the three files as the killed writer left them, read-only.
    let ro_dir = tempfile::tempdir().unwrap();
    for suffix in ["", "-wal", "-shm"] {
        std::fs::copy(
            side_file(&db, suffix),
            side_file(&ro_dir.path().join("receipts.db"), suffix),
        )
        .unwrap();
    }

    let expected = 5 + committed;
    let o = common::run(&["report", f.path(), "--json", "--now", common::NOW]);
    assert_eq!(assert_clean_exit(&o, "report"), 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["counts"]["receipts"], expected,
        "committed rows kept, the rest gone"
    );
    let o = common::run(&["check", f.path()]);
    // The fixture has one damaged row on purpose.
    assert_eq!(assert_clean_exit(&o, "check"), 1);
    assert!(stdout(&o).contains(&format!("{expected} receipts checked: 1 damaged")));
    let o = common::run(&[
        "resolve",
        f.path(),
        "stuck:4",
        "failed",
        "--operator",
        "after-crash",
        "--now",
        common::NOW,
    ]);
    assert_eq!(assert_clean_exit(&o, "resolve"), 0, "{}", stderr(&o));
    let conn = inspect(&db);
    assert_eq!(integrity(&conn), "ok");
    every_state_change_is_logged(&conn, &[4]).unwrap();

    // The screen opens it too (live), and so does a read-only file with the
    // leftover side files beside it.
    let ro_db = ro_dir.path().join("receipts.db");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ro_db, std::fs::Permissions::from_mode(0o444)).unwrap();
    for (path, banner) in [(&db, "● live"), (&ro_db, "READ-ONLY")] {
        let mut screen = Pty::spawn(
            &[path.to_str().unwrap(), "--now", common::NOW],
            120,
            40,
            &dir,
        );
        let text = screen.wait_for(banner, Duration::from_secs(30));
        screen.wait_for(&format!("{expected} receipts"), Duration::from_secs(30));
        assert!(!text.contains("stale"), "{text}");
        screen.keys("q");
        assert!(screen.wait_exit(Duration::from_secs(20)).success());
    }
    let o = common::run(&[
        "report",
        ro_db.to_str().unwrap(),
        "--json",
        "--now",
        common::NOW,
    ]);
    assert_eq!(assert_clean_exit(&o, "report read-only"), 0);
    let o = common::run(&[
        "resolve",
        ro_db.to_str().unwrap(),
        "stuck:4",
        "failed",
        "--now",
        common::NOW,
    ]);
    assert_eq!(assert_clean_exit(&o, "resolve read-only"), 2);
    assert!(stderr(&o).contains("read-only"), "{}", stderr(&o));
}
