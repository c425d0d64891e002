//! The mouse in the real binary, in a pseudo-terminal on a small demo
//! database: the screen asks for mouse reports (SGR) when it opens and
//! stops them when it quits; a click on a tab's title shows the tab, and a
//! click on a row of the list selects it, its detail beside it.

use std::time::Duration;

use crate::common;
use common::pty::Pty;

const WAIT: Duration = Duration::from_secs(30);

/// Press and release of the left button at a 0-based cell, as a terminal
/// in SGR mode reports them (1-based).
fn click(screen: &mut Pty, column: usize, row: usize) {
    let (x, y) = (column + 1, row + 1);
    screen.keys(&format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"));
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// The item id (`dup:12`) a list row of the Duplicates tab shows.
fn item_in(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|word| word.starts_with("dup:"))
        .map(str::to_string)
}

#[test]
fn a_click_shows_a_tab_and_selects_a_row_and_the_mouse_is_given_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::demo_db(dir.path(), 200);
    let mut screen = Pty::spawn(
        &[
            db.to_str().unwrap(),
            "--operator",
            "desk",
            "--now",
            common::NOW,
        ],
        120,
        32,
        dir.path(),
    );
    let text = screen.wait_for("newest first", WAIT);
    // Button presses and the wheel (1000), in decimal coordinates (1006).
    let raw = screen.raw();
    assert!(contains(&raw, "\x1b[?1000h"), "no mouse reports asked for");
    assert!(contains(&raw, "\x1b[?1006h"), "no SGR mouse mode asked for");

    // The tab bar is the third line; its titles are plain ASCII in English.
    let bar = text.lines().nth(2).unwrap().to_string();
    let damaged = bar.find("5 Damaged").unwrap_or_else(|| panic!("{bar}"));
    click(&mut screen, damaged + 3, 2);
    screen.wait_until("the Damaged tab", WAIT, |t| {
        t.lines().nth(2).is_some_and(|l| l.contains(">5 Damaged"))
            && t.lines()
                .nth(3)
                .is_some_and(|l| l.starts_with(" Damaged ·"))
    });

    // Back on Duplicates (its number), the third row of the list.
    screen.keys("1");
    let text = screen.wait_until("the Duplicates tab", WAIT, |t| {
        t.lines()
            .nth(3)
            .is_some_and(|l| l.starts_with(" Duplicates ·"))
    });
    let lines: Vec<&str> = text.lines().collect();
    // Under the list's title and column header, the rows.
    assert!(lines[5].starts_with("> "), "{text}");
    let third = item_in(lines[7]).unwrap_or_else(|| panic!("{text}"));
    assert!(!lines[4].contains(&third), "{text}");
    click(&mut screen, 4, 7);
    let text = screen.wait_until("the third row selected", WAIT, |t| {
        let lines: Vec<&str> = t.lines().collect();
        lines.len() > 7 && lines[7].starts_with("> ") && lines[5].starts_with("  ")
    });
    // The detail beside the list reads the row clicked: its first line,
    // beside the list's column header, names the item.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[4].contains(&third), "{third}:\n{text}");

    let before = screen.raw_len();
    screen.keys("q");
    screen.wait_exit(WAIT);
    // What the screen wrote last may still be on its way from the pty.
    let given_back = |raw: &[u8]| contains(raw, "\x1b[?1000l") && contains(raw, "\x1b[?1006l");
    let start = std::time::Instant::now();
    while !given_back(&screen.raw()[before..]) && start.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(20));
    }
    let after = &screen.raw()[before..];
    assert!(
        given_back(after),
        "the mouse was not given back: {:?}",
        String::from_utf8_lossy(after)
    );
}
