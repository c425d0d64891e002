//! `E` in the real binary, in a pseudo-terminal: a visitor found on the
//! Receipts tab is erased through the worker, and the database holds the
//! tombstones and the review-log row; the search shown runs again and finds
//! nothing of them.

use std::time::Duration;

use rusqlite::Connection;

use crate::common;
use common::pty::Pty;

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn e_erases_the_visitor_found_on_the_receipts_tab() {
    // Aiko Tanaka's inquiry three times (receipts 1, 2 and 3), and Bob's.
    let fx = common::fixture();
    let mut screen = Pty::spawn(
        &[fx.path(), "--operator", "desk", "--now", common::NOW],
        120,
        32,
        fx.db.parent().unwrap(),
    );
    screen.wait_for("pending", WAIT);
    screen.keys("6");
    screen.keys("aiko@example.jp\r");
    screen.wait_for("3 match", WAIT);
    screen.keys("\r");
    screen.keys("E");
    screen.wait_for("why erase the data of aiko@example.jp", WAIT);
    screen.keys("request 2026-12-07-01\r");
    screen.wait_for("Erase the data of aiko@example.jp? Receipts: 3", WAIT);
    screen.keys("y");
    screen.wait_for("erased as erase:1 (receipts: 3)", WAIT);
    // The search ran again: the erased fields are nowhere on the screen.
    // (The miss's explanation wraps in the list pane: read it as one text.)
    let said = "Receipts erased on request or by retention: 3. Their fields are gone";
    screen.wait_until(said, WAIT, |text| {
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(said)
    });
    assert!(!screen.text().contains("Aiko Tanaka"), "{}", screen.text());
    // The group of the erased copies keeps its place; its match column says
    // neither exact nor near, for nothing of it is left to compare.
    screen.keys("1");
    screen.wait_until("dup:1 with no match", WAIT, |text| {
        text.lines().any(|l| {
            let row: Vec<&str> = l.split_whitespace().collect();
            row.len() > 3 && row[..3] == [">", "pending", "dup:1"] && row[3] == "—"
        })
    });
    screen.keys("\x1b[21~"); // F10
    screen.wait_exit(WAIT);

    let conn = Connection::open(&fx.db).unwrap();
    let row: (String, String, String, String) = conn
        .query_row(
            "SELECT item, operator, receipt_ids, note FROM review_log WHERE kind = 'erasure'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        row,
        (
            "erase:1".into(),
            "desk".into(),
            "[1,2,3]".into(),
            "request 2026-12-07-01".into()
        )
    );
    let left: i64 = conn
        .query_row(
            "SELECT count(*) FROM receipts WHERE payload LIKE '%aiko@example.jp%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}
