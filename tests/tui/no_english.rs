//! No screen string bypasses the catalogue: every screen the fixture can
//! show, drawn in Japanese at 80×24 and 160×48, holds no English word but
//! the data it shows (scopes, keys, field names and values, operators,
//! notes, as stored) and the names that are the same in every language
//! (key labels, CSV, UTC, item ids).

use std::collections::BTreeSet;

use crate::find::{found, miss_scan, taro_scan, tokyo};
use crate::fixture::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use receipt_review::i18n::Lang;
use receipt_review::tui::app::App;
use receipt_review::tui::app::msg::Msg;
use receipt_review::tui::canvas::draw;

/// Written as they are in every language: key labels, formats, zones, the
/// names of fields a form sends (`event_id`, `submitted_at`, `utm_*`) that
/// the help cites, and the IANA name of the operator's zone. Item ids and
/// the program's name are names too, but only whole (see [`names_taken_out`]):
/// "stuck" or "receipt" on its own is an English word.
const SAME_IN_EVERY_LANGUAGE: &[&str] = &[
    "Enter",
    "Esc",
    "Tab",
    "Space",
    "PgUp",
    "PgDn",
    "Bksp",
    "Home",
    "End",
    "Ctrl",
    "CSV",
    "JSONL",
    "JSON",
    "Lines",
    "Excel",
    "BOM",
    "UTF",
    "Windows",
    "UTC",
    "JST",
    "event",
    "submitted",
    "utm",
    "Asia",
    "Tokyo",
];

/// Every run of three or more ASCII letters in `text`.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphabetic() {
            word.push(c);
        } else {
            if word.len() >= 3 {
                out.push(std::mem::take(&mut word));
            }
            word.clear();
        }
    }
    out
}

/// The words of the data the fixture holds: every string value in it.
fn data_words(fx: &Fixture) -> BTreeSet<String> {
    // (A database's location shows itself unquoted: it is quoted here.)
    let database = fx.snapshot.database.shown();
    quoted_words(&format!("{:?} {:?} {database:?}", fx.snapshot, fx.payloads))
}

/// The words of every string value in a `Debug` rendering.
fn quoted_words(debug: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let quoted = regex::Regex::new(r#""((?:[^"\\]|\\.)*)""#).unwrap();
    for found in quoted.captures_iter(debug) {
        out.extend(words(&found[1]));
    }
    out
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            draw(frame, app);
        })
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Plays keys written as text: `⏎` is Enter, `→` the right arrow, any
/// other character its own key.
fn typed(app: &mut App, fx: &Fixture, keys: &str) {
    for c in keys.chars() {
        let msg: Msg = match c {
            '⏎' => code(KeyCode::Enter),
            '→' => code(KeyCode::Right),
            c => key(c),
        };
        send(app, fx, msg);
    }
}

/// The screens a person can reach on the fixture, as the keys that reach them.
fn journeys() -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for (tab, name) in [
        ('1', "duplicates"),
        ('2', "conflicts"),
        ('3', "stuck"),
        ('4', "bots"),
        ('5', "damaged"),
        ('6', "receipts"),
        ('7', "forms"),
        ('8', "log"),
    ] {
        for then in ["", "⏎", "j⏎", "G⏎", "PT"] {
            out.push((name, format!("{tab}{then}")));
        }
    }
    for (name, keys) in [
        ("raw", "1v"),
        ("class filter", "1ttt"),
        ("text filter", "/nothing-like-this"),
        ("text filter kept", "/site-a⏎"),
        ("note", "1n thank"),
        ("keep choice", "1jjj]⏎"),
        ("bulk question", "1D"),
        ("decision", "1d"),
        ("already resolved", "1Gd"),
        ("conflict decision", "2f"),
        ("completed question", "3C"),
        ("failed question", "3F"),
        ("still pending", "3p"),
        ("spam question", "4s"),
        ("export", "e"),
        ("export excel", "e→"),
        ("undo", "u"),
        ("utc", "z"),
        ("forms period", "7pp"),
        ("quit question", "1dq"),
    ] {
        out.push((name, keys.to_string()));
    }
    out
}

/// The text without the names that are the same in every language and
/// made of English words: item ids (`stuck:160`, `conflict:`) and the
/// program's name.
fn names_taken_out(text: &str) -> String {
    let names =
        regex::Regex::new(r"\b(?:dup|conflict|stuck|bot):(?:\d+|<id>)?|receipt-review").unwrap();
    names.replace_all(text, " ").into_owned()
}

/// The words of our English catalogue.
fn our_words() -> BTreeSet<String> {
    let keys = receipt_review::i18n::keys(Lang::En).unwrap();
    keys.iter()
        .flat_map(|k| words(receipt_review::i18n::text(Lang::En, k)))
        .collect()
}

fn english_left(text: &str, allowed: &BTreeSet<String>) -> Vec<String> {
    let ours = our_words();
    let mut left: Vec<String> = words(&names_taken_out(text))
        .into_iter()
        // A popup may cut a word of data short ("arol" of "Carol"); a word
        // of ours is not excused by data that holds it ("receipts.db").
        .filter(|w| {
            !allowed.contains(w)
                && (ours.contains(w) || !allowed.iter().any(|a| a.contains(w.as_str())))
        })
        .collect();
    left.sort();
    left.dedup();
    left
}

#[test]
fn no_screen_string_bypasses_the_catalogue() {
    let fx = fixture();
    let mut allowed = data_words(&fx);
    allowed.extend(SAME_IN_EVERY_LANGUAGE.iter().map(|w| w.to_string()));
    let mut seen = 0;
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        for (name, path) in journeys() {
            let mut app = loaded_in(Lang::Ja, &fx, width, height);
            typed(&mut app, &fx, &path);
            let text = screen(&app, width, height);
            // What the operator typed is shown back as typed.
            let mut allowed = allowed.clone();
            allowed.extend(words(&path));
            let left = english_left(&text, &allowed);
            assert!(
                left.is_empty(),
                "{name} at {width}×{height} shows English {left:?}:\n{text}"
            );
            seen += 1;
        }
        // The help, every page of it.
        let mut app = loaded_in(Lang::Ja, &fx, width, height);
        typed(&mut app, &fx, "?");
        for page in 0..40 {
            let text = screen(&app, width, height);
            let left = english_left(&text, &allowed);
            assert!(left.is_empty(), "help page {page}: {left:?}:\n{text}");
            send(&mut app, &fx, code(KeyCode::PageDown));
        }
        // The Receipts tab's search: a hit and a miss.
        for (query, scan) in [("taro", taro_scan()), ("nobody@example.org", miss_scan())] {
            let mut app = loaded_in(Lang::Ja, &fx, width, height);
            app.zone = tokyo();
            send(&mut app, &fx, key('6'));
            found(&mut app, &fx, query, scan.clone());
            send(&mut app, &fx, code(KeyCode::Enter));
            let text = screen(&app, width, height);
            let mut allowed = allowed.clone();
            allowed.extend(words(query));
            allowed.extend(quoted_words(&format!("{scan:?}")));
            let left = english_left(&text, &allowed);
            assert!(left.is_empty(), "search {query}: {left:?}:\n{text}");
        }
    }
    assert!(seen > 80);
}

/// The check itself catches English: the same screens in English fail it.
#[test]
fn the_check_finds_english_where_there_is_some() {
    let fx = fixture();
    let mut allowed = data_words(&fx);
    allowed.extend(SAME_IN_EVERY_LANGUAGE.iter().map(|w| w.to_string()));
    let app = loaded_in(Lang::En, &fx, 80, 24);
    let left = english_left(&screen(&app, 80, 24), &allowed);
    for word in ["pending", "resolved", "Duplicates"] {
        assert!(
            left.contains(&word.to_string()),
            "{word} not caught: {left:?}"
        );
    }
    // Our words that item ids are made of are caught on their own: a stuck
    // receipt's detail, a conflict's refused attempts.
    for (tab, id, word) in [
        ('3', "stuck:160", "receipt"),
        ('2', "conflict:150", "conflict"),
    ] {
        let mut app = loaded_in(Lang::En, &fx, 160, 48);
        send(&mut app, &fx, key(tab));
        let text = screen(&app, 160, 48);
        assert!(text.contains(id), "{text}");
        let left = english_left(&text, &allowed);
        assert!(
            left.contains(&word.to_string()),
            "{word} not caught: {left:?}"
        );
    }
    // And data is not mistaken for English words of ours.
    assert!(allowed.contains("Carol"), "{allowed:?}");
}
