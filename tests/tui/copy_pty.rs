//! `y` in the real binary, in a pseudo-terminal: the selected group's first copy's email goes
//! to the terminal as an OSC 52 clipboard sequence, read-only too, and the status line says
//! what was copied.

use std::time::Duration;

use base64::Engine as _;

use crate::common;
use common::pty::Pty;

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn y_copies_the_email_through_osc_52_even_read_only() {
    // Two copies of Aiko Tanaka's inquiry: the Duplicates tab opens on their group.
    let fx = common::fixture();
    let mut screen = Pty::spawn(
        &[
            fx.path(),
            "--read-only",
            "--operator",
            "desk",
            "--now",
            common::NOW,
        ],
        120,
        32,
        fx.db.parent().unwrap(),
    );
    screen.wait_for("pending", WAIT);
    // The copies' payloads are in (the comparison shows their fields): `y`
    // any sooner is told to press again, which is right but not this test.
    screen.wait_for("event_id", WAIT);
    let before = screen.raw_len();
    screen.keys("y");
    screen.wait_for("copied aiko@example.jp to the clipboard", WAIT);
    let expected = format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode("aiko@example.jp")
    );
    let raw = screen.raw();
    let after = &raw[before..];
    assert!(
        after
            .windows(expected.len())
            .any(|w| w == expected.as_bytes()),
        "no OSC 52 with the email in {:?}",
        String::from_utf8_lossy(after)
    );
    screen.keys("q");
    screen.wait_exit(WAIT);
}
