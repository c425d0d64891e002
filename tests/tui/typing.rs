//! The Receipts tab's list takes what is typed as a search: no letter there
//! decides, undoes, exports or toggles anything. `/` opens an empty search
//! line with the last search shown dim, and ↑ brings it back. Pure `update`
//! and TestBackend screens.

use crate::find::tokyo;
use crate::fixture::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};
use receipt_review::i18n::Lang;
use receipt_review::tui::app::msg::{Effect, Msg};
use receipt_review::tui::app::{App, Focus, Overlay, Tab, update};
use receipt_review::tui::canvas::draw;

/// The screen's lines, and whether each cell is dim (grey, or dim where
/// there is no colour).
fn cells(app: &App, width: u16, height: u16) -> Vec<Vec<(String, bool)>> {
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
                .map(|x| {
                    let cell = &buffer[(x, y)];
                    let dim = cell.modifier.contains(Modifier::DIM) || cell.fg == Color::DarkGray;
                    (cell.symbol().to_string(), dim)
                })
                .collect()
        })
        .collect()
}

/// The line of the screen that holds `needle`, trimmed.
fn line_with(shown: &str, needle: &str) -> String {
    shown
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line holds {needle:?}:\n{shown}"))
        .trim_matches(|c| c == '"' || c == ' ')
        .to_string()
}

fn on_receipts(fx: &Fixture, lang: Lang) -> App {
    let mut app = loaded_in(lang, fx, 80, 24);
    app.zone = tokyo();
    send(&mut app, fx, key('6'));
    assert_eq!(app.tab, Tab::Receipts);
    assert_eq!(app.focus, Focus::List);
    app
}

fn typed(app: &App) -> Option<&str> {
    app.input.as_ref().map(|i| i.text())
}

/// Types `text` a key at a time and returns every effect on the way.
fn type_text(app: &mut App, fx: &Fixture, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in text.chars() {
        effects.extend(send(app, fx, key(c)));
    }
    effects
}

#[test]
fn every_letter_typed_on_the_receipts_list_goes_into_the_search() {
    let fx = fixture();
    let mut app = on_receipts(&fx, Lang::En);
    for query in ["suzuki", "ueda@example.jp", "taro@example.jp"] {
        // The first key opens the line with itself; no key acts on its way.
        let effects = type_text(&mut app, &fx, query);
        assert!(effects.is_empty(), "{query}: {effects:?}");
        assert_eq!(typed(&app), Some(query));
        let shown = screen(&app, 80, 24);
        assert_eq!(line_with(&shown, "find: "), format!("find: {query}"));
        let effects = send(&mut app, &fx, code(KeyCode::Enter));
        let [Effect::Find { query: asked, .. }] = effects.as_slice() else {
            panic!("{query}: {effects:?}");
        };
        assert_eq!(asked.raw, query);
        assert!(app.input.is_none());
        assert!(app.overlay.is_none(), "{query}: {:?}", app.overlay);
    }
    // Nothing else happened: times are in the operator's zone, no note,
    // no filter, no dialog.
    assert!(!app.show_utc);
    assert!(app.notes.is_empty());
    assert!(app.filter.is_empty());
    assert_eq!(app.tab, Tab::Receipts);
    // `?`, `q`, `u`, `e`, `z`, `J`, `j` and `n` are text here too.
    let effects = type_text(&mut app, &fx, "?quezJjn");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(typed(&app), Some("?quezJjn"));
}

#[test]
fn tab_switches_movement_f1_and_f10_still_act_on_the_receipts_list() {
    let fx = fixture();
    let mut app = on_receipts(&fx, Lang::En);
    crate::find::found(&mut app, &fx, "taro", crate::find::taro_scan());
    assert_eq!(app.rows(Tab::Receipts).len(), 3);
    // Arrows move, Enter opens the receipt, and there the other keys work.
    send(&mut app, &fx, code(KeyCode::Down));
    send(&mut app, &fx, code(KeyCode::End));
    assert_eq!(app.pos(Tab::Receipts).selected, 2);
    send(&mut app, &fx, code(KeyCode::Home));
    assert_eq!(app.pos(Tab::Receipts).selected, 0);
    send(&mut app, &fx, code(KeyCode::PageDown));
    assert_eq!(app.pos(Tab::Receipts).selected, 2);
    send(&mut app, &fx, code(KeyCode::Enter));
    assert_eq!(app.focus, Focus::Detail);
    assert!(app.input.is_none());
    // In the detail pane J goes to the receipt's group.
    send(&mut app, &fx, key('J'));
    assert_eq!(app.tab, Tab::Duplicates);
    send(&mut app, &fx, key('6'));
    assert_eq!(app.tab, Tab::Receipts);
    assert_eq!(app.focus, Focus::List);
    // F1 opens the help from the list, Esc closes it.
    send(&mut app, &fx, code(KeyCode::F(1)));
    assert!(matches!(app.overlay, Some(Overlay::Help { .. })));
    send(&mut app, &fx, code(KeyCode::Esc));
    assert!(app.overlay.is_none());
    // Tab and the digits switch tabs; 9 and 0 are text.
    send(&mut app, &fx, code(KeyCode::Tab));
    assert_eq!(app.tab, Tab::Forms);
    send(&mut app, &fx, key('6'));
    type_text(&mut app, &fx, "9");
    assert_eq!(typed(&app), Some("9"));
    type_text(&mut app, &fx, "1");
    assert_eq!(typed(&app), Some("91"), "typed into the open line");
    send(&mut app, &fx, code(KeyCode::Esc));
    // F10 quits from the list.
    assert_eq!(
        send(&mut app, &fx, code(KeyCode::F(10))),
        vec![Effect::Quit]
    );
    // Ctrl and Alt keys are not text.
    let ctrl_d = Msg::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL));
    assert!(send(&mut app, &fx, ctrl_d).is_empty());
    let alt_u = Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::ALT));
    assert!(send(&mut app, &fx, alt_u).is_empty());
    assert!(app.input.is_none());
}

#[test]
fn the_footer_and_the_help_say_how_to_quit_and_get_help_from_the_receipts_list() {
    let fx = fixture();
    for (lang, help, quit, other_quit) in [
        (Lang::En, "F1 help", "F10 quit", "q quit"),
        (Lang::Ja, "F1 ヘルプ", "F10 終了", "q 終了"),
    ] {
        let mut app = on_receipts(&fx, lang);
        let footer = screen(&app, 80, 24).lines().last().unwrap().to_string();
        assert!(footer.contains(help), "{footer}");
        assert!(footer.contains(quit), "{footer}");
        assert!(!footer.contains(other_quit), "{footer}");
        // Elsewhere, `?` and `q` as before.
        send(&mut app, &fx, key('1'));
        let footer = screen(&app, 80, 24).lines().last().unwrap().to_string();
        assert!(footer.contains(other_quit), "{footer}");
    }
    // The help says what typing does on the tab, and how to leave it.
    let mut app = on_receipts(&fx, Lang::En);
    send(&mut app, &fx, code(KeyCode::F(1)));
    let mut help = String::new();
    for _ in 0..12 {
        help.push_str(&screen(&app, 160, 48));
        send(&mut app, &fx, code(KeyCode::PageDown));
    }
    // The help's words, without its frame or the lines' breaks.
    let help = help
        .lines()
        .map(|l| l.trim_matches('"').replace('│', " "))
        .collect::<Vec<_>>()
        .join(" ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "the first character opens the search line",
        "? and q are typed too: F1 opens this help and F10 quits",
        "previous search",
    ] {
        assert!(help.contains(said), "{said} not in the help:\n{help}");
    }
}

#[test]
fn slash_opens_an_empty_line_with_the_last_search_shown_dim() {
    let fx = fixture();
    let mut app = on_receipts(&fx, Lang::En);
    type_text(&mut app, &fx, "#110");
    send(&mut app, &fx, code(KeyCode::Enter));
    // `/`: an empty line; the last search is shown, dim, as a hint.
    send(&mut app, &fx, key('/'));
    assert_eq!(typed(&app), Some(""));
    let lines = cells(&app, 80, 24);
    let status = &lines[22];
    let text: String = status.iter().map(|(s, _)| s.as_str()).collect();
    assert!(text.starts_with("find: #110"), "{text}");
    let at = "find: ".len();
    assert!(status[at..at + 4].iter().all(|(_, dim)| *dim), "{status:?}");
    assert!(!status[0].1, "the prompt is not dim");
    // Typing replaces it.
    type_text(&mut app, &fx, "t");
    assert_eq!(typed(&app), Some("t"));
    let text: String = cells(&app, 80, 24)[22]
        .iter()
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(text.trim_end(), "find: t");
    // ↑ brings the last search back; Enter runs it.
    send(&mut app, &fx, code(KeyCode::Up));
    assert_eq!(typed(&app), Some("#110"));
    let effects = send(&mut app, &fx, code(KeyCode::Enter));
    let [Effect::Find { query, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(query.id, Some(110));
}

#[test]
fn up_and_down_walk_the_searches_before_newest_first() {
    let fx = fixture();
    let mut app = on_receipts(&fx, Lang::En);
    for query in ["suzuki", "#110", "taro"] {
        type_text(&mut app, &fx, query);
        send(&mut app, &fx, code(KeyCode::Enter));
    }
    // The same search again moves to the front, once.
    type_text(&mut app, &fx, "suzuki");
    send(&mut app, &fx, code(KeyCode::Enter));
    type_text(&mut app, &fx, "ueda");
    let mut seen = Vec::new();
    for _ in 0..4 {
        send(&mut app, &fx, code(KeyCode::Up));
        seen.push(typed(&app).unwrap().to_string());
    }
    assert_eq!(seen, ["suzuki", "taro", "#110", "#110"]);
    send(&mut app, &fx, code(KeyCode::Down));
    assert_eq!(typed(&app), Some("taro"));
    send(&mut app, &fx, code(KeyCode::Down));
    send(&mut app, &fx, code(KeyCode::Down));
    // Past the newest: what was being typed.
    assert_eq!(typed(&app), Some("ueda"));
    send(&mut app, &fx, code(KeyCode::Down));
    assert_eq!(typed(&app), Some("ueda"));
    // In a filter, ↑ changes nothing.
    send(&mut app, &fx, code(KeyCode::Esc));
    send(&mut app, &fx, key('1'));
    type_text(&mut app, &fx, "/site");
    send(&mut app, &fx, code(KeyCode::Up));
    assert_eq!(typed(&app), Some("site"));
    let _ = update(&mut app, code(KeyCode::Esc));
}
