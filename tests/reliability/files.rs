//! Bad files and environments: byte-flipped and truncated databases, files
//! that are not databases at all, a database another process holds locked, a
//! read-only file or folder, export paths that cannot be written, a full disk.
//!
//! Every command ends with exit 0, 1 or 2 and at most one clear line on
//! stderr, never a panic and never a hang; nothing is half-written.
//! (Tests run as root here: the storage layer treats a file or folder without
//! write permission bits as read-only even for root, so those cases are real.)
//! `RELIAB_SCALE=n` tries n times as many damaged files.

use crate::{common, support};

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{NOW, fixture};
use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::review::{self, ExportFormat};
use receipt_review::storage::{self, Access, OpenOptions};
use support::{
    Pty, Rng, assert_clean_exit, inspect, integrity, log_count, scale, seed, spawn_bin,
    spawn_helper, stderr, stdout, wait_for_file, wait_output,
};

const NOW_MS: i64 = 1_795_953_600_000; // 2026-11-29T12:00:00Z

fn side(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// The names in a folder, leaving out SQLite's own -wal and -shm files (a
/// read-only connection to a WAL database may leave them).
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with("-wal") && !n.ends_with("-shm"))
        .collect();
    names.sort();
    names
}

/// The fixture with one decision in its log, every page in the main file.
fn settled_fixture() -> common::Fixture {
    let f = fixture();
    let o = common::run(&[
        "resolve",
        f.path(),
        "dup:1",
        "duplicate",
        "--operator",
        "aiko",
        "--note",
        "first",
        "--now",
        NOW,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    inspect(&f.db)
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    f
}

/// Everything the tool does with a database, in this process: open, read,
/// analyse, report, export, check the schema, decide. Returns the errors
/// met (each must be one line); a panic fails the caller.
fn library_pass(path: &Path) -> Vec<String> {
    let mut errors = Vec::new();
    let options = OpenOptions::new(Access::PreferWrite).busy_timeout(Duration::from_secs(1));
    let mut db = match storage::open_database_with(path, options) {
        Ok(db) => db,
        Err(e) => return vec![e.to_string()],
    };
    let _ = db.schema_problems();
    for format in [ExportFormat::Csv, ExportFormat::Jsonl] {
        if let Err(e) = review::export(&*db, format, &mut Vec::new()) {
            errors.push(e.to_string());
        }
    }
    match reading::read(&*db, Settings::new(NOW_MS), &mut |_| {}) {
        Ok(snap) => {
            let _ = receipt_review::report::text::render(&snap);
            let _ = receipt_review::report::json::render(&snap);
            let items: Vec<String> = snap
                .triage
                .duplicates
                .iter()
                .map(|g| g.item())
                .chain(snap.triage.stuck.iter().map(|s| s.item()))
                .collect();
            for item in items {
                let Some(target) = reading::find_item(&snap, &item) else {
                    continue;
                };
                let decision = match target.kind {
                    review::Kind::Stuck => review::Decision::Failed,
                    _ => review::Decision::Spam,
                };
                let request = review::DecisionRequest {
                    item: item.clone(),
                    kind: target.kind,
                    decision,
                    operator: "fuzz".into(),
                    note: Some("flipped".into()),
                    receipt_ids: target.receipt_ids,
                    now_ms: NOW_MS,
                    expected_last: snap.review(&item).last_log_id,
                    kept: None,
                };
                if let Err(e) = review::decide(&mut *db, &request) {
                    errors.push(e.to_string());
                }
            }
        }
        Err(e) => errors.push(receipt_review::sanitize::error_line(&e)),
    }
    errors
}

/// Runs [`library_pass`] and fails on a panic or a message of several lines.
fn survives(path: &Path, what: &str) -> usize {
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| library_pass(path)));
    let errors = result.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("{what}: panicked: {message}")
    });
    for e in &errors {
        assert!(!e.contains('\n'), "{what}: {e}");
        support::human_text(e.as_bytes()).unwrap_or_else(|m| panic!("{what}: {m}"));
    }
    errors.len()
}

/// The real binary's commands on a file: each ends cleanly, never hangs.
fn commands_survive(path: &Path, what: &str) -> Vec<i32> {
    let p = path.to_str().unwrap();
    let runs = [
        vec!["report", p, "--now", NOW],
        vec!["report", p, "--json", "--now", NOW],
        vec!["check", p],
        vec!["export", p, "--format", "jsonl"],
        vec![
            "resolve",
            p,
            "dup:1",
            "spam",
            "--operator",
            "fuzz",
            "--now",
            NOW,
        ],
    ];
    let children: Vec<_> = runs.iter().map(|args| (args, spawn_bin(args))).collect();
    children
        .into_iter()
        .map(|(args, child)| {
            let what = format!("{what}: {}", args[0]);
            let (o, _) = wait_output(child, Duration::from_secs(30), &what);
            assert_clean_exit(&o, &what)
        })
        .collect()
}

#[test]
fn byte_flipped_databases_never_panic_and_end_cleanly() {
    let f = settled_fixture();
    let original = fs::read(&f.db).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed("byte flips"));
    let (in_process, binary) = (300 * scale(), 12 * scale());
    let mut refused = 0;
    let mut codes = [0usize; 3];
    for round in 0..in_process + binary {
        let mut bytes = original.clone();
        for _ in 0..1 + rng.below(8) {
            // A quarter of the flips hit the 100-byte header.
            let at = if rng.below(4) == 0 {
                rng.below(100)
            } else {
                rng.below(bytes.len() as u64)
            } as usize;
            bytes[at] ^= 1 << rng.below(8);
        }
        let path = dir.path().join(format!("flip-{round}.db"));
        fs::write(&path, &bytes).unwrap();
        let what = format!("flip round {round}");
        if round < in_process {
            refused += usize::from(survives(&path, &what) > 0);
        } else {
            for code in commands_survive(&path, &what) {
                codes[code as usize] += 1;
            }
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let _ = fs::remove_file(side(&path, suffix));
        }
    }
    eprintln!(
        "byte flips: {in_process} damaged copies through the library ({refused} refused or \
         partly refused, none panicked), {binary} through 5 commands each (exit 0/1/2: {codes:?})"
    );
}

#[test]
fn truncated_databases_never_panic_and_end_cleanly() {
    let f = settled_fixture();
    let original = fs::read(&f.db).unwrap();
    let len = original.len();
    let dir = tempfile::tempdir().unwrap();
    let mut cuts = vec![1, 15, 16, 50, 99, 100, 101, 511, 512, 4095, 4096, 4097];
    for page in 2..len / 4096 {
        cuts.extend([page * 4096 - 1, page * 4096, page * 4096 + 100]);
    }
    cuts.push(len - 1);
    cuts.retain(|&c| c < len);
    for &cut in &cuts {
        let path = dir.path().join(format!("cut-{cut}.db"));
        fs::write(&path, &original[..cut]).unwrap();
        let what = format!("cut at {cut} of {len}");
        survives(&path, &what);
        let codes = commands_survive(&path, &what);
        // Most of a database is missing: nothing may pretend all is well.
        assert!(codes.iter().any(|&c| c != 0), "{what}: {codes:?}");
    }
    eprintln!("truncation: {} cuts, all ended cleanly", cuts.len());
}

#[test]
fn files_that_are_not_databases_are_one_line_and_exit_2_and_never_hang() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = Rng(7);
    let noise: Vec<u8> = (0..10_000).map(|_| rng.below(256) as u8).collect();
    let mut header_only = b"SQLite format 3\0".to_vec();
    header_only.resize(100, 0xff);
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("notes.txt", b"hello, not a database\n".to_vec()),
        ("export.csv", b"id,payload\n1,\"{}\"\n".to_vec()),
        ("data.json", br#"{"receipts": []}"#.to_vec()),
        ("noise.bin", noise),
        ("header-only.db", header_only),
        ("empty.db", Vec::new()),
        ("escape\x1b[2J.db", b"\x1b]0;owned\x07".to_vec()),
    ];
    let mut paths: Vec<PathBuf> = Vec::new();
    for (name, bytes) in &files {
        let path = d.join(name);
        fs::write(&path, bytes).unwrap();
        paths.push(path);
    }
    let fifo = d.join("pipe.db");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    paths.push(fifo);
    let folder = d.join("folder.db");
    fs::create_dir(&folder).unwrap();
    paths.push(folder);
    std::os::unix::fs::symlink(d.join("notes.txt"), d.join("link.db")).unwrap();
    paths.push(d.join("link.db"));
    paths.push(PathBuf::from("/dev/null"));
    paths.push(d.join("missing.db"));
    let before = names_in(d);

    for path in &paths {
        let p = path.to_str().unwrap();
        for args in [
            vec!["report", p],
            vec!["check", p],
            vec!["export", p],
            vec!["resolve", p, "dup:1", "spam", "--operator", "x"],
            // The screen refuses before it takes the terminal.
            vec![p, "--operator", "x"],
        ] {
            let (o, _) = wait_output(spawn_bin(&args), Duration::from_secs(60), p);
            let what = format!("{args:?}");
            assert_eq!(assert_clean_exit(&o, &what), 2, "{what}: {}", stderr(&o));
            assert!(o.stdout.is_empty(), "{what}");
        }
    }
    // Nothing was created beside them, nothing changed.
    assert_eq!(names_in(d), before);
    for (name, bytes) in &files {
        assert_eq!(&fs::read(d.join(name)).unwrap(), bytes, "{name}");
    }
}

/// Starts a process that holds `db` locked; returns it and its stop file.
fn lock(db: &Path, mode: &str) -> (std::process::Child, PathBuf) {
    let dir = db.parent().unwrap();
    let (ready, stop) = (
        dir.join(format!("{mode}.ready")),
        dir.join(format!("{mode}.stop")),
    );
    let mut child = spawn_helper(
        "lock",
        &[
            ("RELIAB_DB", db),
            ("RELIAB_READY", &ready),
            ("RELIAB_STOP", &stop),
            ("RELIAB_LOCK_MODE", Path::new(mode)),
        ],
    );
    wait_for_file(&ready, Duration::from_secs(30), &mut child);
    (child, stop)
}

fn rollback_fixture() -> common::Fixture {
    let f = fixture();
    inspect(&f.db)
        .execute_batch("PRAGMA journal_mode = DELETE;")
        .unwrap();
    f
}

#[test]
fn a_database_locked_by_another_process_is_a_clear_busy_message() {
    // WAL with an exclusive locking mode: nobody else may even read. A
    // rollback journal with an exclusive transaction: likewise.
    let wal = fixture();
    let rollback = rollback_fixture();
    let held = [lock(&wal.db, "exclusive"), lock(&rollback.db, "exclusive")];
    let mut running = Vec::new();
    for f in [&wal, &rollback] {
        for args in [
            vec!["report", f.path()],
            vec!["check", f.path()],
            vec!["export", f.path()],
            vec![
                "resolve",
                f.path(),
                "stuck:4",
                "failed",
                "--operator",
                "x",
                "--now",
                NOW,
            ],
            vec![f.path(), "--operator", "x"],
        ] {
            let what = format!("{args:?}");
            running.push((what, spawn_bin(&args)));
        }
    }
    for (what, child) in running {
        let (o, _) = wait_output(child, Duration::from_secs(60), &what);
        assert_eq!(assert_clean_exit(&o, &what), 2, "{what}");
        let err = stderr(&o);
        assert!(
            err.contains("locked by another process") && err.contains("busy after 5 s"),
            "{what}: {err}"
        );
    }
    for (mut child, stop) in held {
        fs::write(&stop, b"stop").unwrap();
        assert!(child.wait().unwrap().success());
    }
    // Released, everything works again and nothing was written meanwhile.
    for f in [&wal, &rollback] {
        let o = common::run(&["report", f.path(), "--now", NOW]);
        assert_eq!(assert_clean_exit(&o, "report after"), 0);
        let conn = inspect(&f.db);
        assert_eq!(log_count(&conn), 0);
        assert_eq!(integrity(&conn), "ok");
    }
}

#[test]
fn the_screen_stays_responsive_while_another_process_locks_the_database() {
    let f = rollback_fixture();
    let mut screen = Pty::spawn(
        &[f.path(), "--operator", "aiko", "--now", NOW],
        120,
        36,
        f.db.parent().unwrap(),
    );
    screen.wait_for("dup:1", Duration::from_secs(30));
    let (mut holder, stop) = lock(&f.db, "exclusive");
    // A decision waits for the lock (the 5 s busy timeout), then says the
    // database is busy.
    screen.keys("d");
    screen.wait_for("sending…", Duration::from_secs(30));
    // Meanwhile the screen answers keys: the help opens and closes while the
    // decision is still being sent.
    screen.keys("?");
    screen.wait_for("Keys and words — j/k scroll", Duration::from_secs(30));
    screen.keys("?");
    let closed = screen.wait_until("the help closed", Duration::from_secs(30), |t| {
        !t.contains("Keys and words — j/k scroll")
    });
    assert!(
        closed.contains("sending…"),
        "the keys were answered only after the decision gave up waiting:\n{closed}"
    );
    let busy = screen.wait_for("busy", Duration::from_secs(30));
    assert!(busy.contains("nothing recorded"), "{busy}");
    fs::write(&stop, b"stop").unwrap();
    assert!(holder.wait().unwrap().success());
    assert_eq!(log_count(&inspect(&f.db)), 0);
    // Released: the same decision goes through.
    screen.wait_until("pending again", Duration::from_secs(20), |t| {
        t.contains("dup:1")
    });
    screen.keys("1gd");
    let start = Instant::now();
    while log_count(&inspect(&f.db)) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "hung: the decision was not recorded; the screen shows:\n{}",
            screen.text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    screen.keys("q");
    assert!(screen.wait_exit(Duration::from_secs(20)).success());
}

#[test]
fn a_read_only_file_or_folder_opens_read_only_with_the_banner_and_resolve_refuses() {
    let f = settled_fixture();
    let dir = f.db.parent().unwrap().to_path_buf();
    let folder = dir.join("ro-folder");
    fs::create_dir(&folder).unwrap();
    let in_folder = folder.join("receipts.db");
    fs::copy(&f.db, &in_folder).unwrap();
    fs::set_permissions(&f.db, fs::Permissions::from_mode(0o444)).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
    let main_bytes = [fs::read(&f.db).unwrap(), fs::read(&in_folder).unwrap()];

    for (db, reason) in [
        (&f.db, "the file is read-only"),
        (&in_folder, "the folder is read-only"),
    ] {
        let p = db.to_str().unwrap();
        let o = common::run(&[
            "resolve",
            p,
            "stuck:4",
            "failed",
            "--operator",
            "x",
            "--now",
            NOW,
        ]);
        assert_eq!(assert_clean_exit(&o, "resolve"), 2);
        assert!(stderr(&o).contains(reason), "{}", stderr(&o));
        for args in [vec!["report", p, "--now", NOW], vec!["export", p]] {
            let o = common::run(&args);
            assert_eq!(assert_clean_exit(&o, &format!("{args:?}")), 0);
        }
        // The screen: a banner that says why; a decision is refused in place.
        let mut screen = Pty::spawn(&[p, "--operator", "x", "--now", NOW], 120, 36, &dir);
        let text = screen.wait_for(reason, Duration::from_secs(30));
        assert!(text.contains("READ-ONLY"), "{text}");
        screen.wait_for("dup:1", Duration::from_secs(30));
        screen.keys("3Fy");
        screen.wait_for("read-only", Duration::from_secs(10));
        screen.keys("q");
        assert!(screen.wait_exit(Duration::from_secs(20)).success());
    }
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&f.db, fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(fs::read(&f.db).unwrap(), main_bytes[0]);
    assert_eq!(fs::read(&in_folder).unwrap(), main_bytes[1]);
    for db in [&f.db, &in_folder] {
        assert_eq!(log_count(&inspect(db)), 1, "nothing was decided");
    }
}

#[test]
fn an_export_that_cannot_be_written_is_a_clear_error_and_leaves_no_partial_file() {
    let f = settled_fixture();
    let dir = f.db.parent().unwrap().to_path_buf();
    let plain = dir.join("plain-file");
    fs::write(&plain, b"x").unwrap();
    let ro = dir.join("read-only-folder");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    let taken = dir.join("taken.csv");
    fs::create_dir(&taken).unwrap();
    let before = names_in(&dir);
    for (out, says) in [
        (
            dir.join("no-such-folder").join("log.csv"),
            "cannot write into folder",
        ),
        (plain.join("log.csv"), "cannot write into folder"),
        (ro.join("log.csv"), "read-only"),
        (taken.clone(), "cannot write"),
    ] {
        for format in ["csv", "jsonl"] {
            let o = common::run(&[
                "export",
                f.path(),
                "--format",
                format,
                "--out",
                out.to_str().unwrap(),
            ]);
            let what = format!("export to {}", out.display());
            assert_eq!(assert_clean_exit(&o, &what), 1, "{what}");
            assert!(stderr(&o).contains(says), "{what}: {}", stderr(&o));
            assert!(stdout(&o).is_empty());
        }
    }
    assert_eq!(names_in(&dir), before);
    assert!(names_in(&ro).is_empty());
    assert!(taken.is_dir() && names_in(&taken).is_empty());

    // The screen exports into its current folder: a read-only one is refused
    // in the status line, and nothing is left there.
    let mut screen = Pty::spawn(&[f.path(), "--operator", "x", "--now", NOW], 120, 36, &ro);
    screen.wait_for("dup:1", Duration::from_secs(30));
    screen.keys("e");
    screen.wait_for("CSV", Duration::from_secs(10));
    screen.keys("\r");
    let text = screen.wait_for("export failed", Duration::from_secs(10));
    assert!(text.contains("read-only"), "{text}");
    screen.keys("q");
    assert!(screen.wait_exit(Duration::from_secs(20)).success());
    assert!(names_in(&ro).is_empty());
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_full_disk_refuses_the_decision_cleanly_and_writes_nothing() {
    // (Decision after decision in one process until the database is full,
    // the next refused with nothing written, is checked beside the SQLite
    // engine: its page limit is a setting of the engine's own connection.)
    // The real binary with a file size limit (the -wal cannot grow), its
    // SIGXFSZ ignored so that the write fails as on a full disk.
    let f = fixture();
    inspect(&f.db)
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let script = format!(
        "ulimit -f 32; trap '' XFSZ; exec '{}' resolve '{}' stuck:4 failed --operator aiko --now {NOW}",
        support::BIN,
        f.path()
    );
    let o = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(
        assert_clean_exit(&o, "resolve on a full disk"),
        1,
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("nothing recorded"), "{}", stderr(&o));
    let conn = inspect(&f.db);
    assert_eq!(integrity(&conn), "ok");
    assert_eq!(log_count(&conn), 0);
    support::every_state_change_is_logged(&conn, &[4]).unwrap();
    drop(conn);
    eprintln!(
        "full disk: the binary under a file size limit refused cleanly: {}",
        stderr(&o).trim()
    );
    // With room again, the refused decision goes through.
    let o = common::run(&[
        "resolve",
        f.path(),
        "stuck:4",
        "failed",
        "--operator",
        "aiko",
        "--now",
        NOW,
    ]);
    assert_eq!(assert_clean_exit(&o, "resolve"), 0);
    let conn = inspect(&f.db);
    assert_eq!(integrity(&conn), "ok");
    assert_eq!(log_count(&conn), 1);
    support::every_state_change_is_logged(&conn, &[4]).unwrap();
}
