//! What the screen shows: TestBackend snapshots of a hand-built reading, the
//! NO_COLOR selection, and the bytes sent to a terminal for hostile payloads.

use crate::fixture::*;
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::{Terminal, TerminalOptions, Viewport};
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::{Measured, Msg, PayloadRef};
use receipt_review::tui::app::{App, update};
use receipt_review::tui::canvas::draw;

#[test]
fn duplicates_80x24() {
    let fx = fixture();
    let app = loaded(&fx, 80, 24, false);
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn duplicates_detail_160x48() {
    let fx = fixture();
    let app = loaded(&fx, 160, 48, false);
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn a_group_whose_receipts_are_not_read_yet_claims_nothing_of_them() {
    // The analysis reaches the screen before the receipts its items show.
    let mut fx = fixture();
    fx.snapshot.receipts = Default::default();
    let mut app = loaded(&fx, 160, 48, false);
    // dup:110, fourth newest first.
    keys(&mut app, &fx, "jjj");
    let before = screen(&app, 160, 48);
    // Beside the list the pane has no room for the key: it is on the
    // copy's next line.
    let rows = |text: &str, n: &str| {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.contains(n)).unwrap();
        // The detail pane's part of the two lines.
        let from = lines[at].find(n).unwrap();
        let next = lines[at + 1];
        let key = next.rfind("key ").map_or("", |k| &next[k..]);
        format!("{} {key}", &lines[at][from..])
    };
    for member in ["1. #110", "2. #111"] {
        let row = rows(&before, member);
        assert!(
            !row.contains("(none)") && !row.contains("completed"),
            "{row}"
        );
        assert_eq!(row.matches(" ? ").count(), 3, "time, key and state: {row}");
        assert!(row.contains("key ?"), "{row}");
    }
    // Once read, they show what they hold.
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "jjj");
    let after = screen(&app, 160, 48);
    let first = rows(&after, "1. #110");
    assert!(
        first.contains("k-110") && first.contains("completed"),
        "{first}"
    );
}

#[test]
fn a_filter_typed_before_the_receipts_are_read_says_it_has_not_seen_them() {
    // The analysis reaches the screen before the receipts its items show,
    // and with them the visitors' texts the filter searches.
    let mut fx = fixture();
    fx.snapshot.receipts = Default::default();
    fx.snapshot.receipts_pending = true;
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "/alice smith");
    let before = screen(&app, 160, 48);
    assert!(before.contains("· 0 of 5 so far"), "{before}");
    assert!(
        before.contains("Nothing matches so far: the receipts are still being read."),
        "{before}"
    );
    assert!(
        !before.contains("Nothing matches the filter (Esc"),
        "{before}"
    );
    // Once read, the filter finds her group and says no more than that.
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "/alice smith");
    let after = screen(&app, 160, 48);
    assert!(after.contains("· 1 of 5 ·"), "{after}");
    assert!(!after.contains("so far"), "{after}");
}

#[test]
fn near_group_in_the_detail_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // dup:110, fourth newest first.
    keys(&mut app, &fx, "jjj");
    send(&mut app, &fx, code(KeyCode::Enter));
    // The first drawing tells the state how far the pane scrolls.
    screen(&app, 80, 24);
    keys(&mut app, &fx, "jjjjjjj");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn resolved_group_with_a_note_160x48() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // dup:120, the oldest: last, newest first.
    keys(&mut app, &fx, "G");
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn new_copy_since_decision_160x48() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // dup:130, second newest first.
    keys(&mut app, &fx, "j");
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn conflicts_160x48() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "2");
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn conflicts_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "2");
    send(&mut app, &fx, code(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn stuck_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "3");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn stuck_confirm_failed_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "3F");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn damaged_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "5");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn log_160x48() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "8j");
    insta::assert_snapshot!(screen(&app, 160, 48));
}

#[test]
fn raw_payloads_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "v");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn help_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "?");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn bulk_confirm_and_filter_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "/site-a");
    send(&mut app, &fx, code(KeyCode::Enter));
    keys(&mut app, &fx, "D");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn typing_a_filter_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "/お問い");
    let mut terminal = render(&app, 80, 24);
    insta::assert_snapshot!(terminal.backend().to_string());
    // The cursor stands after what was typed (IME input appears there).
    let at = terminal.get_cursor_position().unwrap();
    assert_eq!((at.x, at.y), (1 + 6, 22));
}

#[test]
fn read_only_80x24() {
    let mut fx = fixture();
    fx.snapshot.read_only = Some("opened with --read-only".into());
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "d");
    let text = screen(&app, 80, 24);
    assert!(text.contains("READ-ONLY: opened with --read-only"));
    assert!(text.contains("read-only: decisions off"));
    insta::assert_snapshot!(text);
}

#[test]
fn too_small_30x8() {
    let fx = fixture();
    let app = loaded(&fx, 30, 8, false);
    let text = screen(&app, 30, 8);
    assert!(text.contains("Terminal too small"));
    insta::assert_snapshot!(text);
    // Just below the minimum in either direction.
    assert!(screen(&app, 59, 24).contains("Terminal too small"));
    assert!(screen(&app, 80, 15).contains("Terminal too small"));
    assert!(!screen(&app, 60, 16).contains("Terminal too small"));
}

#[test]
fn minimum_size_60x16() {
    let fx = fixture();
    let app = loaded(&fx, 60, 16, false);
    insta::assert_snapshot!(screen(&app, 60, 16));
}

#[test]
fn loading_80x24() {
    let mut app = App::new(false).with_database("/srv/intake/receipts.db");
    update(
        &mut app,
        Msg::Progress {
            stage: "analysing receipts",
            done: 420_000,
            total: Some(1_000_000),
        },
    );
    insta::assert_snapshot!(screen(&app, 80, 24));
    update(
        &mut app,
        Msg::LoadFailed("no such column: created_at".into()),
    );
    let text = screen(&app, 80, 24);
    assert!(text.contains("no such column: created_at"));
    assert!(text.contains("try again"));
}

#[test]
fn payloads_show_loading_until_they_arrive() {
    let fx = fixture();
    let mut app = App::new(false);
    update(
        &mut app,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    assert!(screen(&app, 160, 48).contains("loading…"));
    update(
        &mut app,
        Msg::Payloads(vec![
            (
                PayloadRef::Receipt(140),
                Ok(fx.payloads[&PayloadRef::Receipt(140)].clone()),
            ),
            (PayloadRef::Receipt(141), Err("database is locked".into())),
        ]),
    );
    let text = screen(&app, 160, 48);
    assert!(!text.contains("loading…"));
    assert!(text.contains("could not load: database is locked"));
}

/// The cells of row `y` a person sees: a cell hidden behind a wide character is left out.
fn visible_row(buffer: &ratatui::buffer::Buffer, y: u16) -> Vec<(u16, String)> {
    let mut cells = Vec::new();
    let mut x = 0;
    while x < buffer.area.width {
        let cell = &buffer[(x, y)];
        let symbol = cell.symbol().to_string();
        let w = unicode_width::UnicodeWidthStr::width(symbol.as_str()).max(1) as u16;
        cells.push((x, symbol));
        x += w;
    }
    cells
}

/// Every x where `needle` starts in row `y`.
fn xs_of(buffer: &ratatui::buffer::Buffer, y: u16, needle: &str) -> Vec<u16> {
    let cells = visible_row(buffer, y);
    (0..cells.len())
        .filter(|&i| {
            let rest: String = cells[i..].iter().map(|(_, s)| s.as_str()).collect();
            rest.starts_with(needle)
        })
        .map(|i| cells[i].0)
        .collect()
}

#[test]
fn japanese_columns_line_up() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // dup:110, fourth newest first.
    keys(&mut app, &fx, "jjj");
    let terminal = render(&app, 160, 48);
    let buffer = terminal.backend().buffer();
    let find = |needle: &str| {
        (0..buffer.area.height)
            .find(|&y| !xs_of(buffer, y, needle).is_empty())
            .unwrap_or_else(|| panic!("{needle} not on screen"))
    };
    // The comparison's header names the copies; the `name` row holds 山田太郎
    // in both: each value starts under its copy's header.
    let header = find("field ");
    let columns = [
        xs_of(buffer, header, "#110")[0],
        xs_of(buffer, header, "#111")[0],
    ];
    let name = find("name ");
    assert_eq!(xs_of(buffer, name, "山田太郎"), columns);
    // Japanese message, wrapped inside its column, on the next rows too.
    let message = find("message ");
    assert_eq!(xs_of(buffer, message, "お見積もり"), columns);
    let next: Vec<u16> = visible_row(buffer, message + 1)
        .iter()
        .filter(|(x, s)| columns.contains(x) && s != " ")
        .map(|(x, _)| *x)
        .collect();
    assert_eq!(next, columns, "wrapped lines start in their columns");
}

#[test]
fn no_color_keeps_the_selection_visible() {
    let fx = fixture();
    let app = loaded(&fx, 80, 24, true);
    let terminal = render(&app, 80, 24);
    let buffer = terminal.backend().buffer();
    for cell in buffer.content() {
        assert_eq!(cell.fg, Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, Color::Reset, "{cell:?}");
    }
    // The selected row starts with the `>` marker and is in reverse video.
    let y = (4..buffer.area.height)
        .find(|&y| buffer[(0, y)].symbol() == ">")
        .expect("a selection marker");
    let row: String = (0..80).map(|x| buffer[(x, y)].symbol()).collect();
    assert!(row.contains("dup:140"), "{row}");
    // (A cell hidden behind a wide character is drawn by the terminal as part of it.)
    for (x, _) in visible_row(buffer, y) {
        assert!(
            buffer[(x, y)].modifier.contains(Modifier::REVERSED),
            "x={x}"
        );
    }
    // Colour on: the same reverse video, so the selection never rests on colour alone.
    let app = loaded(&fx, 80, 24, false);
    let terminal = render(&app, 80, 24);
    let buffer = terminal.backend().buffer();
    assert!(buffer[(10, y)].modifier.contains(Modifier::REVERSED));
    assert_eq!(buffer[(0, y)].symbol(), ">");
}

// --- Hostile payloads -------------------------------------------------------

const OSC_TITLE: &str = "\x1b]0;pwned\x07";
const OSC_8: &str = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\";
const OSC_52: &str = "\x1b]52;c;cm0gLXJmIH4=\x07";
const DCS: &str = "\x1bP+q544e\x1b\\";
const CSI_CLEAR: &str = "\x1b[2J\x1b[H";
const CSI_DSR: &str = "\x1b[6n";
const C1_CSI: &str = "\u{9b}31m\u{90}dcs\u{9d}osc";
const BIDI: &str = "\u{202e}evil\u{202c}\u{2066}iso\u{2069}\u{200f}";
const ZERO_WIDTH: &str = "a\u{200b}b\u{feff}c\u{2060}d";
const OVERWRITE: &str = "paid\rUNPAID\x08\x08\x7f\0";

fn all_hostile() -> String {
    [
        OSC_TITLE, OSC_8, OSC_52, DCS, CSI_CLEAR, CSI_DSR, C1_CSI, BIDI, ZERO_WIDTH, OVERWRITE,
    ]
    .concat()
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn hostile_fixture() -> Fixture {
    let mut fx = fixture();
    let evil = all_hostile();
    let s = &mut fx.snapshot;
    let t = std::sync::Arc::make_mut(&mut s.triage);
    s.database = std::path::PathBuf::from(format!("/tmp/{OSC_TITLE}{BIDI}receipts.db")).into();
    for g in &mut t.duplicates {
        std::sync::Arc::make_mut(g).scope = format!("site{CSI_CLEAR}{BIDI}");
    }
    std::sync::Arc::make_mut(&mut t.duplicates[1]).members[1].fields =
        vec![format!("phone{OSC_52}")];
    let mut receipts = s.receipts.to_vec();
    for r in &mut receipts {
        r.request_key = Some(format!("k{OSC_8}{CSI_DSR}"));
        r.scope = format!("scope{DCS}");
        for (k, v) in &mut r.visitor.0 {
            *k = format!("{k}{C1_CSI}");
            *v = format!("{v}{ZERO_WIDTH}");
        }
    }
    s.receipts = receipts.into();
    let c = std::sync::Arc::make_mut(&mut t.conflicts[0]);
    c.request_key = format!("order{CSI_DSR}{OSC_TITLE}");
    c.scope = format!("orders{OSC_52}");
    t.stuck[0].scope = format!("pay{BIDI}");
    t.stuck[0].request_key = Some(format!("pay{DCS}"));
    for d in &mut t.damaged {
        d.detail = format!("bad row \x1b[?1049l{evil}").into();
    }
    for review in s.reviews.values_mut() {
        review.operator = Some(format!("eve{DCS}"));
        review.note = Some(format!("note{evil}"));
        review.decision = Some(format!("duplicate{OSC_TITLE}"));
    }
    for l in &mut s.log {
        l.operator = format!("eve{OSC_8}");
        l.note = Some(format!("note\nline two{evil}"));
        l.item = format!("{}{CSI_CLEAR}", l.item);
        l.decision = format!("{}{C1_CSI}", l.decision);
    }
    // Payloads: every field name and value hostile (valid JSON, escapes decoded on parse).
    for (r, text) in fx.payloads.iter_mut() {
        let mut map: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(text) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        map.insert(
            format!("evil{OSC_TITLE}"),
            serde_json::Value::String(evil.clone()),
        );
        if let Some(serde_json::Value::String(name)) = map.get_mut("name") {
            name.push_str(BIDI);
            name.push_str(OSC_52);
        }
        if matches!(r, PayloadRef::KeyConflict(_)) {
            map.insert(
                "message".into(),
                serde_json::Value::String(format!("{evil}{evil}")),
            );
        }
        *text = serde_json::Value::Object(map).to_string();
    }
    // And one payload that is not JSON at all.
    fx.payloads
        .insert(PayloadRef::Receipt(170), format!("not json {evil}"));
    assert!(json_string(&evil).contains("\\u001b"));
    fx
}

/// Fails on any escape sequence but cursor moves (CSI …H), SGR (CSI …m),
/// erase (CSI …J/K) and cursor visibility (CSI ?25h/l), and on any control,
/// bidi or invisible character outside them.
fn check_terminal_bytes(bytes: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut sequences = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\x1b' {
            if chars.get(i + 1) != Some(&'[') {
                return Err(format!(
                    "non-CSI escape at {i}: {:?}",
                    chars[i..(i + 12).min(chars.len())]
                        .iter()
                        .collect::<String>()
                ));
            }
            let mut j = i + 2;
            while j < chars.len() && ('\x30'..='\x3f').contains(&chars[j]) {
                j += 1;
            }
            let params: String = chars[i + 2..j].iter().collect();
            if j < chars.len() && ('\x20'..='\x2f').contains(&chars[j]) {
                return Err(format!("CSI with intermediates at {i}: {params:?}"));
            }
            let Some(&final_byte) = chars.get(j) else {
                return Err("unterminated CSI".into());
            };
            let numeric = params
                .chars()
                .all(|c| c.is_ascii_digit() || c == ';' || c == ':');
            let ok = match final_byte {
                'H' | 'J' | 'K' => numeric && !params.contains(':'),
                'm' => numeric,
                'h' | 'l' => params == "?25",
                _ => false,
            };
            if !ok {
                return Err(format!("forbidden CSI {params:?}{final_byte}"));
            }
            sequences += 1;
            i = j + 1;
            continue;
        }
        if c.is_control() || receipt_review::sanitize::is_unsafe(c) {
            return Err(format!("raw {:?} at {i}", c));
        }
        i += 1;
    }
    Ok(sequences)
}

#[test]
fn the_byte_checker_catches_what_it_should() {
    assert!(check_terminal_bytes(b"\x1b[1;1H\x1b[38;5;3mok\x1b[0m\x1b[2J\x1b[?25l").is_ok());
    for bad in [
        OSC_TITLE,
        OSC_8,
        OSC_52,
        DCS,
        CSI_DSR,
        "\x1b[?1049l",
        "a\rb",
        "\u{9b}",
        "\u{202e}",
        "\u{200b}",
        "\x07",
    ] {
        assert!(check_terminal_bytes(bad.as_bytes()).is_err(), "{bad:?}");
    }
}

/// What the terminal would have been sent.
#[derive(Clone, Default)]
struct Captured(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every screen of the hostile reading, drawn through crossterm into bytes.
#[test]
fn hostile_payloads_never_reach_the_terminal() {
    let fx = hostile_fixture();
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let mut app = loaded(&fx, width, height, false);
        send(
            &mut app,
            &fx,
            Msg::Recorded(Err(format!("refused {OSC_TITLE}{BIDI}"))),
        );
        let steps: &[&str] = &["", "v", "v2", "v", "v3", "5", "v", "v8", "j", "1n", "x"];
        let mut screens = 0;
        for step in steps {
            for c in step.chars() {
                send(&mut app, &fx, key(c));
            }
            // Control characters typed into a text line are dropped.
            if *step == "1n" {
                send(&mut app, &fx, key('\x1b'));
                send(&mut app, &fx, key('\u{202e}'));
            }
            for focus_detail in [false, true] {
                if focus_detail {
                    send(&mut app, &fx, code(KeyCode::Enter));
                }
                let viewport = Viewport::Fixed(Rect::new(0, 0, width, height));
                let bytes = Captured::default();
                let backend = CrosstermBackend::new(bytes.clone());
                let mut terminal =
                    Terminal::with_options(backend, TerminalOptions { viewport }).unwrap();
                terminal
                    .draw(|frame| {
                        draw(frame, &app);
                    })
                    .unwrap();
                let bytes = bytes.0.borrow();
                let sequences = check_terminal_bytes(&bytes)
                    .unwrap_or_else(|e| panic!("{width}x{height} after {step:?}: {e}"));
                assert!(sequences > 0);
                screens += 1;
                if focus_detail && app.input.is_none() {
                    send(&mut app, &fx, code(KeyCode::Esc));
                }
            }
        }
        assert_eq!(screens, steps.len() * 2);
        if let Some(receipt_review::tui::app::Input::Note { text, .. }) = &app.input {
            assert!(!text.contains('\x1b'));
        }
    }
}

#[test]
fn hostile_text_shows_as_visible_escapes() {
    let fx = hostile_fixture();
    let mut app = loaded(&fx, 160, 48, false);
    let first = screen(&app, 160, 48);
    // The database path, the scope and a payload field, escaped where a person sees them.
    assert!(first.contains("\\x1b]0;pwned\\x07"), "{first}");
    assert!(first.contains("\\u{202e}evil"), "{first}");
    assert!(first.contains("site\\x1b[2J\\x1b[H"), "{first}");
    for c in ['\x1b', '\u{9b}', '\u{202e}', '\u{200b}', '\r', '\0', '\x07'] {
        assert!(!first.contains(c), "{c:?} on screen");
    }
    keys(&mut app, &fx, "v");
    let raw = screen(&app, 160, 48);
    // The raw view is the JSON text: a control character shows as its JSON escape.
    assert!(raw.contains("\\u001b]52;c;"), "{raw}");
    assert!(raw.contains("\\x9b31m"), "{raw}");
    keys(&mut app, &fx, "v8");
    let log = screen(&app, 160, 48);
    assert!(log.contains("eve\\x1b]8;;https://evil.example/"), "{log}");
}

#[test]
fn the_help_scrolls_to_its_end_and_no_further() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "?");
    // The frame says how far the help scrolls; the runtime hands it back.
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut measured = Measured::default();
    terminal.draw(|frame| measured = draw(frame, &app)).unwrap();
    assert!(update(&mut app, Msg::Drawn(measured)).is_empty());
    let max = app.help_max_scroll;
    assert!(max > 0 && max < 200, "{max}");
    for _ in 0..max + 20 {
        send(&mut app, &fx, key('j'));
    }
    let bottom = screen(&app, 80, 24);
    // The keys, then the words and what decisions change: undo comes last.
    assert!(bottom.contains("u (undo)"), "{bottom}");
    // One step back up shows a different screen at once.
    send(&mut app, &fx, key('k'));
    assert_ne!(screen(&app, 80, 24), bottom);
}

#[test]
fn the_header_says_the_receipts_are_coming_from_the_first_frame_of_an_analysis() {
    // The analysis reaches the screen before the receipts its items show:
    // its first frame already says they are being read, and the complete
    // reading's says nothing is.
    let mut fx = fixture();
    fx.snapshot.receipts = Default::default();
    fx.snapshot.receipts_pending = true;
    let pending = screen(&loaded(&fx, 160, 48, false), 160, 48);
    let top = pending.lines().next().unwrap();
    assert!(top.contains("⟳ reading the items'"), "{top}");
    let fx = fixture();
    let complete = screen(&loaded(&fx, 160, 48, false), 160, 48);
    let top = complete.lines().next().unwrap();
    assert!(!top.contains('⟳'), "{top}");
}

// --- Lists an operator can scan -------------------------------------------

/// The row of the screen holding `needle`.
fn row_of(buffer: &ratatui::buffer::Buffer, needle: &str) -> u16 {
    (0..buffer.area.height)
        .find(|&y| !xs_of(buffer, y, needle).is_empty())
        .unwrap_or_else(|| panic!("{needle} not on screen"))
}

#[test]
fn list_columns_line_up_under_their_headers_with_japanese_text() {
    let fx = fixture();
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let app = loaded(&fx, width, height, false);
        let terminal = render(&app, width, height);
        let buffer = terminal.backend().buffer();
        let header = row_of(buffer, "status ");
        let column = |head: &str| xs_of(buffer, header, head)[0];
        let (scope, visitor) = (column("scope"), column("visitor"));
        // Every row's scope and visitor start under their headers, the
        // Japanese ones (two cells a character) as the others.
        for (item, form, who) in [
            ("pending  dup:140", "site-b/quote", "Carol"),
            ("pending  dup:110", "site-jp/お問い合わせ", "山田太郎"),
            ("resolved dup:120", "site-jp/お問い合わせ", "佐藤花子"),
            ("pending  dup:101", "site-a/contact", "Alice Smith"),
        ] {
            let y = row_of(buffer, item);
            // (The detail beside the list may say them again.)
            assert_eq!(xs_of(buffer, y, form)[0], scope, "{width}: {item}");
            assert_eq!(xs_of(buffer, y, who)[0], visitor, "{width}: {item}");
        }
    }
}

#[test]
fn at_160_columns_the_list_is_as_wide_as_its_columns_want() {
    let fx = fixture();
    let app = loaded(&fx, 160, 48, false);
    let text = screen(&app, 160, 48);
    let row = text.lines().find(|l| l.contains("dup:110")).unwrap();
    // The scope and the name whole, no cut.
    assert!(row.contains("site-jp/お問い合わせ 山田太郎"), "{row}");
    assert!(!row[..row.find("山田太郎").unwrap()].contains('…'), "{row}");
    // The list takes more than two fifths; the detail keeps its share.
    let terminal = render(&app, 160, 48);
    let buffer = terminal.backend().buffer();
    let detail = xs_of(buffer, 3, "Detail")[0];
    assert!((70..=90).contains(&detail), "the detail starts at {detail}");
}

#[test]
fn visitors_are_shown_as_typed_once_their_payloads_arrive() {
    let fx = fixture();
    // No payload has arrived: the folded text stands in, dimmed.
    let mut app = App::new(false);
    update(
        &mut app,
        Msg::Resize {
            width: 80,
            height: 24,
        },
    );
    update(
        &mut app,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    let before = screen(&app, 80, 24);
    assert!(before.contains("bob jones"), "{before}");
    let terminal = render(&app, 80, 24);
    let buffer = terminal.backend().buffer();
    let y = row_of(buffer, "bob jones");
    let x = xs_of(buffer, y, "bob jones")[0];
    assert_eq!(buffer[(x, y)].fg, Color::DarkGray);
    // Arrived: as typed, not dimmed.
    let payloads: Vec<_> = [130, 140, 101, 110, 120]
        .into_iter()
        .map(|id| {
            let r = PayloadRef::Receipt(id);
            (r, Ok(fx.payloads[&r].clone()))
        })
        .collect();
    update(&mut app, Msg::Payloads(payloads));
    let after = screen(&app, 80, 24);
    assert!(after.contains("Bob Jones"), "{after}");
    assert!(!after.contains("bob jones"), "{after}");
    let terminal = render(&app, 80, 24);
    let buffer = terminal.backend().buffer();
    let y = row_of(buffer, "Bob Jones");
    let x = xs_of(buffer, y, "Bob Jones")[0];
    assert_eq!(buffer[(x, y)].fg, Color::Reset);
}

#[test]
fn conflicts_and_stuck_rows_show_the_visitor() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "2");
    let conflicts = screen(&app, 160, 48);
    let row = conflicts
        .lines()
        .find(|l| l.contains("pending  conflict:150"))
        .unwrap();
    assert!(row.contains("Dave"), "{row}");
    keys(&mut app, &fx, "3");
    let stuck = screen(&app, 160, 48);
    let row = stuck
        .lines()
        .find(|l| l.contains("pending   stuck:160"))
        .unwrap();
    assert!(row.contains("Erin"), "{row}");
}

#[test]
fn the_title_says_the_order_and_pending_only() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    let text = screen(&app, 160, 48);
    assert!(
        text.contains("Duplicates · 5 of 5 · newest first (T)"),
        "{text}"
    );
    keys(&mut app, &fx, "TP");
    let text = screen(&app, 160, 48);
    assert!(
        text.contains("Duplicates · pending only (P) · 4 of 5 · oldest first (T)"),
        "{text}"
    );
}

#[test]
fn lists_with_decisions_pending_only_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "P");
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn the_empty_list_names_only_the_keys_that_work_on_its_tab() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "/nothing like this");
    send(&mut app, &fx, code(KeyCode::Enter));
    let dup = screen(&app, 80, 24);
    assert!(
        dup.contains("Nothing matches (Esc clears the text filter)."),
        "{dup}"
    );
    keys(&mut app, &fx, "3");
    let stuck = screen(&app, 80, 24);
    assert!(stuck.contains("Esc clears the text filter"), "{stuck}");
    assert!(!stuck.contains(" t "), "{stuck}");
    // The class filter is the Duplicates tab's only.
    send(&mut app, &fx, code(KeyCode::Esc));
    keys(&mut app, &fx, "1tttP");
    let text = screen(&app, 80, 24);
    // Minutes, pending: dup:140 only; with every item hidden by `P`…
    assert!(text.contains("dup:140"), "{text}");
    keys(&mut app, &fx, "3");
    // …a tab with nothing pending says so, and how to see the rest.
    let mut fx2 = fixture();
    fx2.snapshot.reviews.insert(
        "stuck:160".into(),
        receipt_review::reading::ItemReview {
            resolved: true,
            decision: Some("completed".into()),
            last_log_id: Some(9),
            ..Default::default()
        },
    );
    let mut app = loaded(&fx2, 80, 24, false);
    keys(&mut app, &fx2, "3P");
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("Nothing pending here (P shows resolved items too)."),
        "{text}"
    );
    assert!(!text.contains(" t "), "{text}");
}

#[test]
fn a_filter_for_pending_points_to_the_key_that_shows_pending_items() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "/pending");
    send(&mut app, &fx, code(KeyCode::Enter));
    let text = screen(&app, 160, 48);
    assert!(text.contains("not where they stand (P"), "{text}");
    assert!(text.contains("shows only the pending items"), "{text}");
}

#[test]
fn a_group_that_gained_a_copy_since_the_last_reading_is_marked() {
    use receipt_review::triage::model::{MatchKind, Member};
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    let first = IndexedSnapshot::new(fx.snapshot.clone());
    // dup:101 gains a third copy; a new group appears.
    let mut next = fx.snapshot.clone();
    let t = std::sync::Arc::make_mut(&mut next.triage);
    let mut grown = (*t.duplicates[2]).clone();
    grown.members.push(Member {
        id: 103,
        match_kind: MatchKind::Exact,
        fields: Vec::new(),
        sentence_changes: Vec::new(),
    });
    grown.gaps_ms.push(1_000);
    t.duplicates[2] = grown.into();
    let mut fresh = (*t.duplicates[4]).clone();
    fresh.members[0].id = 190;
    fresh.members[1].id = 191;
    t.duplicates.push(fresh.into());
    send(
        &mut app,
        &fx,
        Msg::Loaded(IndexedSnapshot::after(next, Some(&first))),
    );
    let text = screen(&app, 160, 48);
    let row = |text: &str, item: &str| {
        let item = format!(" {item} ");
        text.lines()
            .find(|l| l.contains(&item))
            .unwrap()
            .to_string()
    };
    assert!(row(&text, "dup:101").contains("+1"), "{text}");
    assert!(row(&text, "dup:190").contains(" new "), "{text}");
    assert!(!row(&text, "dup:140").contains("+1"), "{text}");
    assert!(text.contains("  status   new item"), "{text}");
    insta::assert_snapshot!(text);
    // Moving past a row marks it seen.
    keys(&mut app, &fx, "g");
    assert_eq!(app.rows(receipt_review::tui::app::Tab::Duplicates)[0], 5);
    keys(&mut app, &fx, "j");
    let text = screen(&app, 160, 48);
    assert!(!row(&text, "dup:190").contains(" new "), "{text}");
    assert!(row(&text, "dup:101").contains("+1"), "{text}");
}

#[test]
fn a_stuck_receipt_marked_still_pending_is_looked_at_not_resolved() {
    let mut fx = fixture();
    fx.snapshot.reviews.insert(
        "stuck:160".into(),
        receipt_review::reading::ItemReview {
            resolved: true,
            decision: Some("still_pending".into()),
            operator: Some("alice".into()),
            decided_at_ms: Some(NOW),
            note: None,
            new_copy_since_decision: false,
            last_log_id: Some(9),
            kept: None,
        },
    );
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "3");
    let text = screen(&app, 80, 24);
    let row = text.lines().find(|l| l.starts_with("\"> ")).unwrap();
    assert!(row.contains("looked at"), "{row}");
    assert!(!text.contains("resolved as still"), "{text}");
    assert!(text.contains("Marked still pending by alice"), "{text}");
    assert!(
        text.contains("pending 6 (1 looked at) · resolved 1"),
        "{text}"
    );
}

// --- Differences you can see ----------------------------------------------

/// The cells of row `y` from `x` for `text`'s width, and whether each is
/// in the style the changed words are drawn in.
fn marked_cells(
    buffer: &ratatui::buffer::Buffer,
    y: u16,
    x: u16,
    text: &str,
) -> Vec<(String, bool)> {
    let cells: Vec<(u16, String)> = visible_row(buffer, y)
        .into_iter()
        .filter(|(at, _)| *at >= x)
        .take(text.chars().count())
        .collect();
    cells
        .into_iter()
        .map(|(at, symbol)| {
            let cell = &buffer[(at, y)];
            let marked = cell.bg == Color::Yellow || cell.modifier.contains(Modifier::REVERSED);
            (symbol, marked)
        })
        .collect()
}

/// The characters of `text` drawn marked, starting at its first place in row `y` at or after `from`.
fn marked_in(buffer: &ratatui::buffer::Buffer, y: u16, from: u16, text: &str) -> String {
    let x = *xs_of(buffer, y, text)
        .iter()
        .find(|&&x| x >= from)
        .unwrap_or_else(|| panic!("{text} not in row {y}"));
    marked_cells(buffer, y, x, text)
        .into_iter()
        .filter(|(_, marked)| *marked)
        .map(|(s, _)| s)
        .collect()
}

#[test]
fn the_words_that_differ_are_marked_inside_a_conflicts_field() {
    let fx = fixture();
    for no_color in [false, true] {
        let mut app = loaded(&fx, 160, 48, no_color);
        keys(&mut app, &fx, "2");
        let terminal = render(&app, 160, 48);
        let buffer = terminal.backend().buffer();
        let header = row_of(buffer, "field ");
        let columns = [
            xs_of(buffer, header, "original #150")[0],
            xs_of(buffer, header, "attempt 1")[0],
            xs_of(buffer, header, "attempt 2")[0],
        ];
        let y = row_of(buffer, "≠ message");
        // The original: what a later attempt changed; each attempt: what it changed.
        assert_eq!(marked_in(buffer, y, columns[0], "Order 2 boxes"), "2 boxes");
        assert_eq!(marked_in(buffer, y, columns[1], "Order 3 boxes"), "3");
        assert_eq!(
            marked_in(buffer, y, columns[2], "Order 3 boxes,"),
            "3 boxes,"
        );
        // A field that does not differ has nothing marked.
        let name = row_of(buffer, "  name ");
        assert_eq!(marked_in(buffer, name, columns[0], "Dave"), "");
    }
}

#[test]
fn the_characters_that_differ_are_marked_in_japanese_text() {
    let fx = fixture();
    let mut app = loaded(&fx, 160, 48, false);
    // dup:120: 午後 became 午前中.
    keys(&mut app, &fx, "G");
    let terminal = render(&app, 160, 48);
    let buffer = terminal.backend().buffer();
    let header = row_of(buffer, "field ");
    let first = xs_of(buffer, header, "#120")[0];
    let second = xs_of(buffer, header, "#121")[0];
    let y = row_of(buffer, "≠ message");
    assert_eq!(marked_in(buffer, y, first, "明日の午後に"), "後");
    assert_eq!(marked_in(buffer, y, second, "明日の午前中に"), "前中");
}

#[test]
fn a_change_far_into_a_long_field_is_shown_with_its_context() {
    let mut fx = fixture();
    let head = "お世話になっております。".repeat(20);
    let msg = |month: &str| format!("{head}{month}月中に納品をお願いします。");
    for (r, month) in [
        (PayloadRef::Receipt(150), "8"),
        (PayloadRef::KeyConflict(3), "12"),
        (PayloadRef::KeyConflict(4), "8"),
    ] {
        fx.payloads.insert(
            r,
            serde_json::json!({"email": "dave@example.com", "message": msg(month), "name": "Dave"})
                .to_string(),
        );
    }
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "2");
    let text = screen(&app, 160, 48);
    assert!(text.contains("…"), "{text}");
    let terminal = render(&app, 160, 48);
    let buffer = terminal.backend().buffer();
    // The change is in sight, marked: 12 against 8.
    let rows: Vec<u16> = (0..48)
        .filter(|&y| !xs_of(buffer, y, "月中に").is_empty())
        .collect();
    assert!(!rows.is_empty(), "{text}");
    let header = row_of(buffer, "field ");
    let attempt = xs_of(buffer, header, "attempt 1")[0];
    let y = *rows
        .iter()
        .find(|&&y| xs_of(buffer, y, "12月中").iter().any(|&x| x >= attempt))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(marked_in(buffer, y, attempt, "12月中"), "12");
}

#[test]
fn noise_fields_are_not_compared_in_conflicts_as_in_duplicates() {
    let mut fx = fixture();
    for (r, event, at) in [
        (PayloadRef::Receipt(150), "e-1", "2026-11-29T11:15:30Z"),
        (PayloadRef::KeyConflict(3), "e-2", "2026-11-29T11:20:30Z"),
        (PayloadRef::KeyConflict(4), "e-3", "2026-11-29T11:21:30Z"),
    ] {
        let mut map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&fx.payloads[&r]).unwrap();
        map.insert("event_id".into(), event.into());
        map.insert("submitted_at".into(), at.into());
        map.insert("utm_source".into(), "google".into());
        map.insert("_token".into(), format!("t-{event}").into());
        // Case and spacing alone: the same once folded.
        let name = if event == "e-2" { "DAVE " } else { "Dave" };
        map.insert("name".into(), name.into());
        fx.payloads
            .insert(r, serde_json::Value::Object(map).to_string());
    }
    let mut app = loaded(&fx, 160, 48, false);
    keys(&mut app, &fx, "2");
    let text = screen(&app, 160, 48);
    let line = |field: &str| {
        text.lines()
            .find(|l| l.contains(&format!(" {field} ")) && !l.contains("conflict:150"))
            .unwrap_or_else(|| panic!("{field}: {text}"))
            .to_string()
    };
    for field in ["event_id", "submitted_at", "_token"] {
        let l = line(field);
        assert!(l.contains(&format!("· {field}")), "{l}");
        assert!(!l.contains('≠'), "{l}");
    }
    assert!(line("name").contains("≈ name"), "{text}");
    assert!(line("message").contains("≠ message"), "{text}");
    assert!(text.contains("· not compared"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn export_dialog_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    keys(&mut app, &fx, "e");
    send(&mut app, &fx, code(KeyCode::Right));
    insta::assert_snapshot!(screen(&app, 80, 24));
    // Every choice fits the smallest screen.
    let small = screen(&app, 60, 16);
    for choice in ["[ CSV ]", "> [ CSV for Excel ] <", "[ JSONL ]"] {
        assert!(small.contains(choice), "{choice}:\n{small}");
    }
}

#[test]
fn chosen_copy_marked_in_the_detail_80x24() {
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    // dup:110 is the fourth group, newest first.
    for _ in 0..3 {
        send(&mut app, &fx, key('j'));
    }
    // Before any choice the most complete copy, #110, is marked.
    let before = screen(&app, 80, 24);
    assert!(before.contains("✓1. #110"), "{before}");
    keys(&mut app, &fx, "]");
    send(&mut app, &fx, code(KeyCode::Enter));
    screen(&app, 80, 24);
    keys(&mut app, &fx, "jjj");
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("✓ keep #111: your choice (d and c)"),
        "{shown}"
    );
    assert!(shown.contains("✓2. #111"), "{shown}");
    assert!(!shown.contains("✓1. #110"), "{shown}");
    insta::assert_snapshot!(shown);
}

#[test]
fn undo_batch_confirm_80x24() {
    use receipt_review::review::Wide;
    let fx = fixture();
    let mut app = loaded(&fx, 80, 24, false);
    send(
        &mut app,
        &fx,
        Msg::UndoAsks(Wide::Batch {
            batch: 12,
            decisions: 101,
            left: 2,
        }),
    );
    insta::assert_snapshot!(screen(&app, 80, 24));
}
