//! The mouse, an extra beside the keys (which do everything without it): a
//! click on a tab shows it, a click on a row selects it, a click in the
//! detail pane moves there, and the wheel scrolls what it is over. Each is
//! resolved against where the last frame put things ([`Places`]) and does
//! what the keys would.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::super::forms::update as forms;
use super::super::keymap::{KeyCommand, Mode};
use super::super::msg::{Effect, Places};
use super::super::state::{App, Focus};
use super::super::tab::Tab;
use super::selection::{go_tab, move_to};
use super::{move_in_list, run, scroll_detail, scroll_help};

/// Lines the detail pane and the help move a notch of the wheel: a reader's
/// step, as pagers and terminals scroll text.
const TEXT_LINES_A_NOTCH: usize = 3;

pub(super) fn on_mouse(app: &mut App, event: MouseEvent, effects: &mut Vec<Effect>) {
    let at = Position::new(event.column, event.row);
    let step = match event.kind {
        MouseEventKind::ScrollDown => Some(KeyCommand::Down),
        MouseEventKind::ScrollUp => Some(KeyCommand::Up),
        _ => None,
    };
    let click = event.kind == MouseEventKind::Down(MouseButton::Left);
    match app.mode() {
        Mode::Main { .. } => {}
        // The help covers all of the screen but its edges, and nothing under
        // it may move: the wheel scrolls it wherever the pointer is.
        Mode::Help => {
            if let Some(step) = step {
                for _ in 0..TEXT_LINES_A_NOTCH {
                    scroll_help(app, step);
                }
            }
            return;
        }
        // A question, a menu or a line being typed waits for its keys: a
        // click elsewhere must not answer it or change what it is about.
        // A screen too small shows no parts to point at.
        Mode::Confirm | Mode::Export | Mode::Copy | Mode::Input | Mode::TooSmall => return,
    }
    if click {
        on_click(app, at, effects);
    } else if let Some(step) = step {
        on_wheel(app, at, step);
    }
}

fn on_click(app: &mut App, at: Position, effects: &mut Vec<Effect>) {
    let places = &app.places;
    let inside = |area: Option<ratatui::layout::Rect>| area.is_some_and(|a| a.contains(at));
    if let Some(tab) = places.tab_at(at) {
        go_tab(app, tab);
    } else if inside(places.list) {
        // The row under the pointer as it was drawn, before the list's
        // height changes with the focus.
        let row = places.list_rows.and_then(|rows| rows.row_at(at));
        if app.focus == Focus::Detail {
            run(app, KeyCommand::Back, effects);
        }
        if let Some(row) = row {
            if app.tab == Tab::Forms {
                forms::select_form(app, row);
            } else {
                move_to(app, app.tab, row);
            }
        }
    } else if inside(places.detail) {
        let pathway = places.pathway_rows.and_then(|rows| rows.row_at(at));
        if app.focus == Focus::List {
            // What the detail shows stays: the wheel may have scrolled it
            // to what the operator clicked on to read.
            let scroll = app.detail_scroll;
            run(app, KeyCommand::EnterDetail, effects);
            app.detail_scroll = scroll;
        }
        if let Some(pathway) = pathway
            && app.focus == Focus::Detail
        {
            let len = app.forms.selected_form().map_or(0, |f| f.pathways.len());
            app.forms.pathway = pathway.min(len.saturating_sub(1));
        }
    } else {
        return;
    }
    // The tab, the focus or the rows may have moved: a second click before
    // the next frame would land on what the operator has not seen.
    app.places = Places::default();
}

/// The list's selection moves one row a notch, as `j` and `k` do: the
/// detail follows the selection, so each item the wheel passes is shown,
/// and a touchpad's many small notches stay precise. The detail pane and
/// the help scroll their text (see [`TEXT_LINES_A_NOTCH`]).
fn on_wheel(app: &mut App, at: Position, step: KeyCommand) {
    let inside = |area: Option<ratatui::layout::Rect>| area.is_some_and(|a| a.contains(at));
    if inside(app.places.list) {
        if app.tab == Tab::Forms {
            forms::move_form(app, step);
        } else {
            move_in_list(app, step);
        }
        // The rows may have scrolled; the panes stay where they are, so
        // the next notch still knows what it is over.
        app.places.list_rows = None;
    } else if inside(app.places.detail) {
        if app.tab == Tab::Forms {
            forms::move_pathway(app, step);
            app.places.pathway_rows = None;
        } else {
            for _ in 0..TEXT_LINES_A_NOTCH {
                scroll_detail(app, step);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crossterm::event::{KeyCode, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::reading::{LogLine, Snapshot};
    use crate::triage::model::{DamageReason, Damaged};
    use crate::tui::app::indexed::IndexedSnapshot;
    use crate::tui::app::msg::Msg;
    use crate::tui::app::state::Overlay;
    use crate::tui::app::update;

    const WIDTH: u16 = 100;
    const HEIGHT: u16 = 30;

    /// A reading of 40 damaged rows and 40 log lines: lists longer than
    /// their panes.
    fn reading() -> Snapshot {
        let mut snap = Snapshot::default();
        let triage = Arc::make_mut(&mut snap.triage);
        for id in 1..=40 {
            triage.damaged.push(Damaged {
                receipt_id: id,
                reason: DamageReason::Payload,
                detail: format!("row {id} is not JSON").into(),
            });
            snap.log.push(LogLine {
                id,
                item: format!("stuck:{id}"),
                kind: "stuck".into(),
                decision: "retried".into(),
                operator: "aiko".into(),
                decided_at_ms: None,
                receipt_ids: vec![id],
                note: Some(format!("line {id}\n").repeat(30)),
                reopens: None,
                kept: None,
                batch: None,
            });
        }
        snap
    }

    /// An app that has read [`reading`], on the Damaged tab.
    fn app() -> App {
        let mut app = App::new(true);
        update(
            &mut app,
            Msg::Resize {
                width: WIDTH,
                height: HEIGHT,
            },
        );
        update(&mut app, Msg::Loaded(IndexedSnapshot::new(reading())));
        update(&mut app, key('5'));
        drawn(&mut app);
        app
    }

    fn key(c: char) -> Msg {
        code(KeyCode::Char(c))
    }

    fn code(code: KeyCode) -> Msg {
        Msg::Key(crossterm::event::KeyEvent::new(code, KeyModifiers::NONE))
    }

    /// Draws the state and hands back what the frame measured, as the
    /// runtime does before anything else.
    fn drawn(app: &mut App) {
        let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
        let mut measured = Default::default();
        terminal
            .draw(|frame| measured = crate::tui::canvas::draw(frame, app))
            .unwrap();
        update(app, Msg::Drawn(measured));
    }

    fn mouse(app: &mut App, kind: MouseEventKind, at: Position) {
        let event = MouseEvent {
            kind,
            column: at.x,
            row: at.y,
            modifiers: KeyModifiers::NONE,
        };
        update(app, Msg::Mouse(event));
    }

    fn click(app: &mut App, at: Position) {
        mouse(app, MouseEventKind::Down(MouseButton::Left), at);
    }

    /// The middle of a tab's title on the tab bar.
    fn title_of(app: &App, tab: Tab) -> Position {
        let place = app.places.tabs.iter().find(|p| p.tab == tab).unwrap();
        Position::new(place.area.x + place.area.width / 2, place.area.y)
    }

    /// A point on the list's `n`th row in sight (0: the top one).
    fn row_in_sight(app: &App, n: u16) -> Position {
        let rows = app.places.list_rows.unwrap();
        Position::new(rows.area.x + 4, rows.area.y + n)
    }

    fn inside_detail(app: &App) -> Position {
        let detail = app.places.detail.unwrap();
        Position::new(detail.x + detail.width / 2, detail.y + detail.height / 2)
    }

    fn selected(app: &App) -> usize {
        app.pos(app.tab).selected
    }

    #[test]
    fn a_click_on_a_title_shows_its_tab() {
        let mut app = app();
        assert_eq!(app.tab, Tab::Damaged);
        let log = title_of(&app, Tab::Log);
        click(&mut app, log);
        assert_eq!(app.tab, Tab::Log);
        // Each title spans its own columns: its first and last show it too.
        drawn(&mut app);
        let place = *app
            .places
            .tabs
            .iter()
            .find(|p| p.tab == Tab::Stuck)
            .unwrap();
        click(
            &mut app,
            Position::new(place.area.right() - 1, place.area.y),
        );
        assert_eq!(app.tab, Tab::Stuck);
        drawn(&mut app);
        click(&mut app, place.area.as_position());
        assert_eq!(app.tab, Tab::Stuck);
        // Beside the titles, the bar means nothing.
        drawn(&mut app);
        let right = app.places.tabs.last().unwrap().area.right();
        click(&mut app, Position::new(right + 5, place.area.y));
        assert_eq!(app.tab, Tab::Stuck);
    }

    #[test]
    fn a_click_on_the_third_row_in_sight_selects_it_scrolled_or_not() {
        let mut app = app();
        let third = row_in_sight(&app, 2);
        click(&mut app, third);
        assert_eq!(selected(&app), 2);
        // Scrolled down: the rows in sight start further on.
        for _ in 0..30 {
            update(&mut app, key('j'));
        }
        drawn(&mut app);
        let first = app.places.list_rows.unwrap().first;
        assert!(first > 0, "the list did not scroll");
        assert_eq!(first, app.pos(Tab::Damaged).offset);
        let third = row_in_sight(&app, 2);
        click(&mut app, third);
        assert_eq!(selected(&app), first + 2);
        // Below the last row, in the pane: nothing is selected anew.
        drawn(&mut app);
        let list = app.places.list.unwrap();
        let rows = app.places.list_rows.unwrap();
        assert_eq!(rows.area.bottom(), list.bottom());
        click(&mut app, list.as_position());
        assert_eq!(selected(&app), first + 2);
    }

    #[test]
    fn a_click_on_a_row_from_the_detail_gives_the_list_the_focus() {
        let mut app = app();
        update(&mut app, key('8'));
        for c in "/1".chars() {
            update(&mut app, key(c));
        }
        update(&mut app, code(KeyCode::Enter));
        update(&mut app, code(KeyCode::Enter));
        assert_eq!(app.focus, Focus::Detail);
        drawn(&mut app);
        // Reading the detail on a narrow screen, the list keeps two rows;
        // the row clicked is the one drawn, though the list grows back.
        assert_eq!(app.places.list_rows.unwrap().area.height, 2);
        let second = row_in_sight(&app, 1);
        click(&mut app, second);
        assert_eq!(app.focus, Focus::List);
        assert_eq!(selected(&app), 1);
        // The way back is not Esc on the list: the filter stays.
        assert_eq!(app.filter, "1");
        assert_eq!(app.rows(Tab::Log).len(), 13);
    }

    #[test]
    fn a_click_in_the_detail_moves_there_where_the_keys_could() {
        let mut app = app();
        let detail = inside_detail(&app);
        click(&mut app, detail);
        assert_eq!(app.focus, Focus::Detail);
        // A tab with nothing selected has no detail to move to.
        let mut empty = App::new(true);
        update(
            &mut empty,
            Msg::Resize {
                width: WIDTH,
                height: HEIGHT,
            },
        );
        update(
            &mut empty,
            Msg::Loaded(IndexedSnapshot::new(Snapshot::default())),
        );
        drawn(&mut empty);
        let detail = inside_detail(&empty);
        click(&mut empty, detail);
        assert_eq!(empty.focus, Focus::List);
    }

    #[test]
    fn the_wheel_over_the_list_moves_the_selection_a_row_a_notch() {
        let mut app = app();
        let list = row_in_sight(&app, 0);
        for _ in 0..3 {
            mouse(&mut app, MouseEventKind::ScrollDown, list);
        }
        // Notches that come before the next frame all count.
        assert_eq!(selected(&app), 3);
        mouse(&mut app, MouseEventKind::ScrollUp, list);
        assert_eq!(selected(&app), 2);
        assert_eq!(app.focus, Focus::List);
        assert_eq!(app.detail_scroll, 0);
    }

    #[test]
    fn the_wheel_over_the_detail_scrolls_it_and_leaves_the_selection() {
        let mut app = app();
        update(&mut app, key('8'));
        drawn(&mut app);
        assert!(app.detail_max_scroll > 6, "{}", app.detail_max_scroll);
        let detail = inside_detail(&app);
        mouse(&mut app, MouseEventKind::ScrollDown, detail);
        mouse(&mut app, MouseEventKind::ScrollDown, detail);
        assert_eq!(app.detail_scroll, 2 * TEXT_LINES_A_NOTCH);
        mouse(&mut app, MouseEventKind::ScrollUp, detail);
        assert_eq!(app.detail_scroll, TEXT_LINES_A_NOTCH);
        assert_eq!(selected(&app), 0);
        assert_eq!(app.focus, Focus::List);
    }

    #[test]
    fn the_wheel_scrolls_the_help_and_nothing_under_it() {
        let mut app = app();
        update(&mut app, key('?'));
        drawn(&mut app);
        assert!(app.help_max_scroll > TEXT_LINES_A_NOTCH);
        let under = row_in_sight(&app, 1);
        mouse(&mut app, MouseEventKind::ScrollDown, under);
        assert_eq!(
            app.overlay,
            Some(Overlay::Help {
                scroll: TEXT_LINES_A_NOTCH
            })
        );
        click(&mut app, under);
        assert_eq!(selected(&app), 0);
    }

    #[test]
    fn with_an_overlay_open_clicks_and_the_wheel_change_nothing() {
        // The export menu, the filter's line, the question before quitting
        // with a note unsent.
        for keys in ["e", "/", "q"] {
            let mut app = app();
            app.notes.insert("stuck:1".into(), "called back".into());
            for c in keys.chars() {
                update(&mut app, key(c));
            }
            assert!(
                !matches!(app.mode(), Mode::Main { .. }),
                "{keys}: {:?}",
                app.mode()
            );
            drawn(&mut app);
            let before = (app.overlay.clone(), app.input.clone());
            let tab = title_of(&app, Tab::Log);
            click(&mut app, tab);
            let row = row_in_sight(&app, 2);
            click(&mut app, row);
            mouse(&mut app, MouseEventKind::ScrollDown, row);
            let detail = inside_detail(&app);
            click(&mut app, detail);
            assert_eq!(app.tab, Tab::Damaged, "{keys}");
            assert_eq!(selected(&app), 0, "{keys}");
            assert_eq!(app.focus, Focus::List, "{keys}");
            assert_eq!((app.overlay.clone(), app.input.clone()), before, "{keys}");
        }
    }

    #[test]
    fn a_second_click_before_the_next_frame_is_not_guessed() {
        let mut app = app();
        let log = title_of(&app, Tab::Log);
        let row = row_in_sight(&app, 2);
        click(&mut app, log);
        // The Log tab's rows were never drawn: this click meant a row of
        // the Damaged tab.
        click(&mut app, row);
        assert_eq!(app.tab, Tab::Log);
        assert_eq!(selected(&app), 0);
        // A key moves things too.
        drawn(&mut app);
        let row = row_in_sight(&app, 2);
        update(&mut app, key('5'));
        click(&mut app, row);
        assert_eq!(selected(&app), 0);
    }

    #[test]
    fn a_screen_too_small_ignores_the_mouse() {
        let mut app = app();
        let row = row_in_sight(&app, 2);
        // The places of the last frame are kept by no message but a frame.
        update(
            &mut app,
            Msg::Resize {
                width: 20,
                height: 5,
            },
        );
        click(&mut app, row);
        mouse(&mut app, MouseEventKind::ScrollDown, row);
        assert_eq!(selected(&app), 0);
        // Even with stale places, the mode says no.
        app.places = {
            let mut big = app.places.clone();
            big.list = Some(ratatui::layout::Rect::new(0, 0, 20, 5));
            big
        };
        mouse(&mut app, MouseEventKind::ScrollDown, Position::new(1, 1));
        assert_eq!(selected(&app), 0);
    }
}
