//! The real binary in a pseudo-terminal on a demo database: after a
//! decision that `u` could undo, searches typed on the Receipts tab are
//! searches, whole, and nothing else — no reopening in `review_log`, no
//! export written, times still in the operator's zone.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::pty::Pty;
use rusqlite::Connection;

const WAIT: Duration = Duration::from_secs(30);

fn log_rows(db: &Path) -> Vec<(String, String)> {
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
    let mut rows = conn
        .prepare("SELECT item, decision FROM review_log ORDER BY id")
        .unwrap();
    rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The screen's line that starts with `prefix`, its trailing spaces cut.
fn line_starting(screen: &str, prefix: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.starts_with(prefix))
        .map(|l| l.trim_end().to_string())
}

/// What the directory holds besides the database.
fn other_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("demo.db"))
        .collect();
    names.sort();
    names
}

#[test]
fn searches_typed_on_the_receipts_tab_are_searches_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::demo_db(dir.path(), 400);
    let mut screen = Pty::spawn(
        &[
            db.to_str().unwrap(),
            "--operator",
            "desk",
            "--now",
            common::NOW,
            "--tz",
            "Asia/Tokyo",
        ],
        120,
        32,
        dir.path(),
    );
    screen.wait_for("pending", WAIT);
    // A decision of this operator's: `u` would undo it.
    screen.keys("x");
    screen.wait_until("the decision recorded", WAIT, |_| log_rows(&db).len() == 1);
    let decided = log_rows(&db);

    screen.keys("6");
    screen.wait_for("Type to search every receipt", WAIT);
    for query in ["suzuki", "ueda@example.jp", "taro@example.jp"] {
        screen.keys(query);
        let shown = screen.wait_until(query, WAIT, |s| s.contains(&format!("find: {query}")));
        assert_eq!(
            line_starting(&shown, "find: ").as_deref(),
            Some(format!("find: {query}").as_str()),
            "{shown}"
        );
        screen.keys("\r");
        // Answered: the list's title names the query as typed.
        let quoted = format!("\"{query}\"");
        let shown = screen.wait_until(&quoted, WAIT, |s| {
            s.contains(&quoted) && !s.contains("searching")
        });
        assert!(!shown.contains("find: "), "{shown}");
    }
    let shown = screen.text();
    // Keys reach the worker in order: every search answered means that
    // anything typed before it was done too.
    assert_eq!(log_rows(&db), decided, "{shown}");
    assert_eq!(other_files(dir.path()), Vec::<String>::new(), "{shown}");
    assert!(shown.contains("JST"), "{shown}");
    assert!(!shown.contains("UTC"), "{shown}");

    screen.keys("\x1b[21~");
    assert!(screen.wait_exit(WAIT).success());
    assert_eq!(log_rows(&db), decided);
}
