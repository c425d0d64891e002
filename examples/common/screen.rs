//! The review screen in process, for the timing examples: a screen of the
//! benchmark's size on a reading, a key as a message, and the times of
//! many keys in a line.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use receipt_review::reading::Snapshot;
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::Msg;
use receipt_review::tui::app::{App, update};

/// The size of the pseudo-terminal of `examples/bench_tui`.
pub const WIDTH: u16 = 160;
pub const HEIGHT: u16 = 48;

/// `app` sized as the benchmark's screen, with `snap` taken in, and a
/// buffer of the same size to draw into.
pub fn loaded(mut app: App, snap: Snapshot) -> anyhow::Result<(App, Terminal<TestBackend>)> {
    update(
        &mut app,
        Msg::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    update(&mut app, Msg::Loaded(IndexedSnapshot::new(snap)));
    Ok((app, Terminal::new(TestBackend::new(WIDTH, HEIGHT))?))
}

pub fn press(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// p50, p99 and the slowest of `times`.
pub fn stats(times: &mut [Duration]) -> String {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        at(0.5),
        at(0.99),
        at(1.0)
    )
}
