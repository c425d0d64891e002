//! The mouse on the fixture's screen, pure `update` and TestBackend: where
//! the frame says each tab's title went is where the title is, in both
//! languages and at every width; a click on a row selects it on every tab
//! that has a list, the Receipts tab's hits and the Forms tab's forms and
//! pathways too.

use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use receipt_review::i18n::Lang;
use receipt_review::tui::app::msg::{Measured, Msg};
use receipt_review::tui::app::{App, Focus, Tab};

use crate::find::{found, taro_scan};
use crate::fixture::*;

/// Draws the state and hands back what the frame measured, as the runtime
/// does; returns the screen's rows.
fn drawn(app: &mut App, fx: &Fixture, width: u16, height: u16) -> Vec<String> {
    let mut measured = Measured::default();
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| measured = receipt_review::tui::canvas::draw(frame, app))
        .unwrap();
    send(app, fx, Msg::Drawn(measured));
    rows(app, width, height)
}

fn click(app: &mut App, fx: &Fixture, at: Position) {
    let event = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: at.x,
        row: at.y,
        modifiers: KeyModifiers::NONE,
    };
    send(app, fx, Msg::Mouse(event));
}

/// The text of a one-line area of the screen, as a person reads it (a
/// wide character once).
fn text_at(app: &App, width: u16, height: u16, area: Rect) -> String {
    let terminal = render(app, width, height);
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    let mut x = area.left();
    while x < area.right() {
        let symbol = buffer[(x, area.y)].symbol();
        text.push_str(symbol);
        x += unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
    }
    text
}

#[test]
fn each_title_is_where_the_frame_says_in_both_languages_and_at_every_width() {
    let fx = fixture();
    for lang in [Lang::En, Lang::Ja] {
        for width in [80, 100, 120, 160, 220] {
            let mut app = loaded_in(lang, &fx, width, 24);
            for tab in [Tab::Duplicates, Tab::Receipts, Tab::Log] {
                send(&mut app, &fx, key(char::from(b'1' + tab.index() as u8)));
                drawn(&mut app, &fx, width, 24);
                let places = app.places.tabs.clone();
                // Every tab stays in sight on the bar, in order.
                let shown: Vec<Tab> = places.iter().map(|p| p.tab).collect();
                assert_eq!(shown, Tab::ALL, "{lang:?} {width}");
                for pair in places.windows(2) {
                    assert!(pair[0].area.right() <= pair[1].area.x, "{pair:?}");
                }
                for place in &places {
                    let text = text_at(&app, width, 24, place.area);
                    let number = (place.tab.index() + 1).to_string();
                    let marker = if place.tab == app.tab { ">" } else { " " };
                    assert!(
                        text.starts_with(&format!("{marker}{number}")),
                        "{lang:?} {width}: {:?} at {:?} shows {text:?}",
                        place.tab,
                        place.area
                    );
                    if width >= 160 {
                        let title = place.tab.title(lang);
                        assert!(text.contains(title), "{lang:?} {width}: {text:?}");
                    }
                }
                // And a click on one shows it.
                let target = Tab::ALL[(tab.index() + 3) % Tab::COUNT];
                let place = places.iter().find(|p| p.tab == target).unwrap();
                click(&mut app, &fx, place.area.as_position());
                assert_eq!(app.tab, target, "{lang:?} {width}");
            }
        }
    }
}

/// Clicks the last row in sight on the current tab: the list's row there.
fn click_last_row(app: &mut App, fx: &Fixture, width: u16, height: u16) -> usize {
    drawn(app, fx, width, height);
    let rows = app
        .places
        .list_rows
        .unwrap_or_else(|| panic!("no rows on {:?}", app.tab));
    let last = rows.first + usize::from(rows.area.height) - 1;
    click(
        app,
        fx,
        Position::new(rows.area.x + 3, rows.area.bottom() - 1),
    );
    last
}

/// The detail pane's lines, as drawn.
fn detail_text(app: &mut App, fx: &Fixture, width: u16, height: u16) -> String {
    drawn(app, fx, width, height);
    let detail = app.places.detail.unwrap();
    (detail.top()..detail.bottom())
        .map(|y| text_at(app, width, height, Rect::new(detail.x, y, detail.width, 1)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_click_on_a_row_selects_it_on_every_tab_with_a_list() {
    let fx = fixture();
    let (width, height) = (160, 48);
    let mut app = loaded(&fx, width, height, false);
    let mut moved = Vec::new();
    for tab in [
        Tab::Duplicates,
        Tab::Conflicts,
        Tab::Stuck,
        Tab::Damaged,
        Tab::Log,
    ] {
        send(&mut app, &fx, key(char::from(b'1' + tab.index() as u8)));
        // Reading the detail: the click brings the focus back to the list.
        send(
            &mut app,
            &fx,
            code(ratatui::crossterm::event::KeyCode::Enter),
        );
        assert_eq!(app.focus, Focus::Detail, "{tab:?}");
        let row = click_last_row(&mut app, &fx, width, height);
        assert_eq!(app.focus, Focus::List, "{tab:?}");
        assert_eq!(app.pos(tab).selected, row, "{tab:?}");
        if row > 0 {
            moved.push(tab);
        }
        // What the detail shows is that row's.
        let item = selected_item(&app).unwrap();
        let detail = detail_text(&mut app, &fx, width, height);
        let first_line = detail.lines().nth(1).unwrap();
        let number = item.split(':').next_back().unwrap();
        assert!(
            first_line.contains(&format!(":{number} "))
                || first_line.contains(&format!("#{number} ")),
            "{tab:?} {item}:\n{detail}"
        );
    }
    assert_eq!(moved, [Tab::Duplicates, Tab::Damaged, Tab::Log]);
    // The Receipts tab's hits.
    send(&mut app, &fx, key('6'));
    found(&mut app, &fx, "taro", taro_scan());
    let row = click_last_row(&mut app, &fx, width, height);
    assert_eq!(row, 2);
    assert_eq!(app.pos(Tab::Receipts).selected, 2);
    let detail = detail_text(&mut app, &fx, width, height);
    assert!(detail.lines().nth(1).unwrap().contains("#110"), "{detail}");
}

#[test]
fn on_the_forms_tab_a_click_selects_a_form_then_a_pathway() {
    let fx = fixture();
    let (width, height) = (160, 48);
    let mut app = loaded(&fx, width, height, false);
    send(&mut app, &fx, key('7'));
    let row = click_last_row(&mut app, &fx, width, height);
    assert!(row > 0);
    assert_eq!(app.forms.selected, row);
    assert_eq!(app.focus, Focus::List);
    // A pathway of that form: the detail takes the focus and selects it.
    drawn(&mut app, &fx, width, height);
    let pathways = app.places.pathway_rows.expect("the form's pathways");
    assert!(pathways.area.height >= 2, "{pathways:?}");
    let detail = app.places.detail.unwrap();
    assert!(detail.contains(pathways.area.as_position()));
    click(
        &mut app,
        &fx,
        Position::new(pathways.area.x + 2, pathways.area.y + 1),
    );
    assert_eq!(app.focus, Focus::Detail);
    assert_eq!(app.forms.pathway, pathways.first + 1);
    assert_eq!(app.forms.selected, row);
    // Back on the table: the list has the focus again.
    drawn(&mut app, &fx, width, height);
    let table = app.places.list_rows.unwrap();
    click(&mut app, &fx, table.area.as_position());
    assert_eq!(app.focus, Focus::List);
    assert_eq!(app.forms.selected, table.first);
}
