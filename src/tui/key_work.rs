//! A key's work follows what the screen shows: the items each key looks at
//! ([`super::app::work`]), counted on a demo reading and on one ten times its
//! size. Scrolling looks at the rows on screen only, whatever the reading
//! holds; typing a filter looks at the items of the tab shown, and another
//! tab is filtered when it is shown, with the rows an eager filter finds.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::indexed::IndexedSnapshot;
use super::app::msg::Msg;
use super::app::{App, Tab, update, work};
use super::canvas;
use crate::demo::{DemoOptions, generate};
use crate::model::Settings;
use crate::reading::{self, Snapshot};
use crate::storage::{Access, Location, open_database};

/// 2026-11-29T10:15:30.123Z, the demo's "now".
const NOW: i64 = 1_795_947_330_123;

/// The screen's size: 48 lines, of which fewer than 48 are rows.
const WIDTH: u16 = 160;
const HEIGHT: u16 = 48;
const ROWS_ON_SCREEN: usize = HEIGHT as usize;

fn reading(receipts: usize) -> Snapshot {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::from(dir.path().join("demo.db"));
    let options = DemoOptions {
        receipts,
        seed: 7,
        now_ms: NOW,
    };
    generate(&location, &options).unwrap();
    let db = open_database(location, Access::ReadOnly).unwrap();
    reading::read_with_receipts(&*db, Settings::new(NOW), &mut |_| {}).unwrap()
}

struct Screen {
    app: App,
    terminal: Terminal<TestBackend>,
}

impl Screen {
    fn on(snapshot: Snapshot) -> Self {
        let mut app = App::new(true).with_frozen_clock();
        update(
            &mut app,
            Msg::Resize {
                width: WIDTH,
                height: HEIGHT,
            },
        );
        update(&mut app, Msg::Loaded(IndexedSnapshot::new(snapshot)));
        let mut screen = Screen {
            app,
            terminal: Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap(),
        };
        screen.draw();
        screen
    }

    fn draw(&mut self) {
        let app = &self.app;
        let mut measured = Default::default();
        self.terminal
            .draw(|f| measured = canvas::draw(f, app))
            .unwrap();
        update(&mut self.app, Msg::Drawn(measured));
    }

    /// The items looked at by one key and the frame after it.
    fn press(&mut self, code: KeyCode) -> usize {
        work::take();
        update(
            &mut self.app,
            Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)),
        );
        self.draw();
        work::take()
    }

    fn typing(&mut self, keys: &str) -> Vec<usize> {
        keys.chars().map(|c| self.press(KeyCode::Char(c))).collect()
    }
}

#[test]
fn a_key_looks_at_the_rows_shown_and_the_tab_shown_only() {
    for receipts in [2_000, 15_000] {
        let snapshot = reading(receipts);
        let t = &snapshot.triage;
        let (groups, conflicts) = (t.duplicates.len(), t.conflicts.len());
        // Otherwise the bounds below could not tell.
        assert!(groups > 3 * ROWS_ON_SCREEN, "{groups} groups");
        if receipts > 10_000 {
            assert!(groups > 2 * conflicts + 3 * ROWS_ON_SCREEN);
        }
        let mut screen = Screen::on(snapshot);

        // Scrolling, paging, to the end and back: the rows on screen.
        let mut moves: Vec<KeyCode> = vec![KeyCode::Char('j'); 60];
        moves.extend([KeyCode::PageDown, KeyCode::End, KeyCode::Char('k')]);
        moves.extend([KeyCode::PageUp, KeyCode::Home]);
        for code in moves {
            let work = screen.press(code);
            assert!(
                work <= 3 * ROWS_ON_SCREEN,
                "{code:?} looked at {work} items of {groups} groups"
            );
        }

        // A filter typed on the Conflicts tab: its items, not the groups'.
        screen.press(KeyCode::Char('2'));
        for (i, work) in screen.typing("/yama").into_iter().enumerate() {
            assert!(
                work <= 2 * conflicts + 3 * ROWS_ON_SCREEN,
                "letter {i} looked at {work} items ({conflicts} conflicts, {groups} groups)"
            );
        }
        screen.press(KeyCode::Enter);
        let conflicts_shown = screen.app.rows(Tab::Conflicts).to_vec();

        // The Duplicates tab, shown now, shows what filtering it at once did.
        screen.press(KeyCode::Char('1'));
        let lazily = screen.app.rows(Tab::Duplicates).to_vec();
        let mut eager = Screen::on(reading(receipts));
        eager.typing("/yama");
        eager.press(KeyCode::Enter);
        assert_eq!(lazily, eager.app.rows(Tab::Duplicates));
        assert!(
            !lazily.is_empty() && lazily.len() < groups,
            "{} of {groups}",
            lazily.len()
        );
        eager.press(KeyCode::Char('2'));
        assert_eq!(conflicts_shown, eager.app.rows(Tab::Conflicts));
    }
}
