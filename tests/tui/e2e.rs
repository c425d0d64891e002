//! The real binary in a pseudo-terminal, driven as a person would: it opens on
//! Duplicates, `d` records a decision with the operator, `u` undoes it, a tiny
//! terminal gets the "too small" screen, and `q` quits with exit 0 and the
//! terminal restored.

use crate::common;

use std::time::{Duration, Instant};

use common::pty::Pty;
use common::{NOW, fixture};
use rusqlite::Connection;

const WAIT: Duration = Duration::from_secs(20);

fn log_rows(db: &std::path::Path) -> Vec<(String, String, String)> {
    let conn = Connection::open(db).unwrap();
    let exists: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if exists == 0 {
        return Vec::new();
    }
    conn.prepare("SELECT item, decision, operator FROM review_log ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn wait_for_log(db: &std::path::Path, rows: usize) -> Vec<(String, String, String)> {
    let start = Instant::now();
    while start.elapsed() < WAIT {
        let found = log_rows(db);
        if found.len() >= rows {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "hung: review_log did not reach {rows} rows in {WAIT:?}: {:?}",
        log_rows(db)
    );
}

#[test]
fn a_person_decides_undoes_resizes_and_quits() {
    let f = fixture();
    let cwd = f.db.parent().unwrap();
    let mut screen = Pty::spawn(
        &[f.path(), "--operator", "e2e-operator", "--now", NOW],
        100,
        30,
        cwd,
    );

    // Opens on Duplicates with the first pending group selected.
    screen.wait_for("Duplicates", WAIT);
    screen.wait_for("dup:1", WAIT);

    screen.keys("d");
    let rows = wait_for_log(&f.db, 1);
    assert_eq!(
        rows[0],
        ("dup:1".into(), "duplicate".into(), "e2e-operator".into())
    );

    screen.keys("u");
    let rows = wait_for_log(&f.db, 2);
    assert_eq!(rows[1].0, "dup:1");
    assert_eq!(rows[1].1, "reopened");

    screen.resize(30, 8);
    screen.wait_for("too small", WAIT);
    // The list is hidden: a decision key does nothing.
    screen.keys("x");
    screen.settle(Duration::from_millis(300), WAIT);
    assert_eq!(log_rows(&f.db).len(), 2);
    screen.resize(100, 30);
    screen.wait_for("Duplicates", WAIT);

    screen.keys("q");
    let status = screen.wait_exit(WAIT);
    assert!(status.success(), "exit status {status:?}");
    // The terminal was restored: the alternate screen left and the cursor
    // shown again.
    let raw = screen.raw();
    let tail = String::from_utf8_lossy(&raw);
    let entered = tail
        .find("\x1b[?1049h")
        .expect("entered the alternate screen");
    let left = tail
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(left > entered);
    assert!(tail[left..].contains("\x1b[?25h") || tail[..left].rfind("\x1b[?25h").is_some());
}

#[test]
fn a_receipt_in_flight_too_long_appears_in_stuck_with_no_key_pressed() {
    use receipt_review::model::time::{format_rfc3339, now_ms};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("receipts.db");
    let o = common::run(&["init", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let conn = Connection::open(&db).unwrap();
    let payload = r#"{"email":"ken@example.jp","message":"届いていますか"}"#;
    common::insert(
        &conn,
        1,
        "k-1",
        payload,
        &format_rfc3339(now_ms()),
        "in_flight",
    );
    drop(conn);
    let mut screen = Pty::spawn(
        &[db.to_str().unwrap(), "--stuck-after", "3s"],
        120,
        30,
        dir.path(),
    );
    screen.wait_for("3 Stuck 0/0", WAIT);
    // No key: the clock moves, the receipt passes three seconds in flight.
    screen.wait_for("3 Stuck 1/1", WAIT);
    screen.keys("q");
    assert!(screen.wait_exit(WAIT).success());
}
