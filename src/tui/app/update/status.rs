//! The status line: what happened, what is under way, what went wrong,
//! and how long each stays.

use crate::model::Millis;
use crate::sanitize::inline;
use crate::t;

use super::super::state::{App, Lasts, StatusKind, StatusLine};

/// How long an outcome stays in the status line, and an error.
const OUTCOME_SHOWN_MS: Millis = 8_000;
const ERROR_SHOWN_MS: Millis = 30_000;

fn set_status(app: &mut App, text: String, kind: StatusKind, lasts: Lasts) {
    app.status = Some(StatusLine {
        text,
        kind,
        set_at_ms: app.clock.wall_ms,
        lasts,
    });
}

pub(in crate::tui::app) fn info(app: &mut App, text: String) {
    set_status(app, text, StatusKind::Info, Lasts::For(OUTCOME_SHOWN_MS));
}

/// Work under way, until its answer replaces the message.
pub(in crate::tui::app) fn working(app: &mut App, text: String) {
    set_status(app, text, StatusKind::Info, Lasts::UntilAnswered);
}

/// A reading under way, until it ends.
pub(in crate::tui::app) fn reading_status(app: &mut App, text: String) {
    set_status(app, text, StatusKind::Info, Lasts::UntilRead);
}

pub(in crate::tui::app) fn success(app: &mut App, text: String) {
    set_status(app, text, StatusKind::Success, Lasts::For(OUTCOME_SHOWN_MS));
}

pub(in crate::tui::app) fn error(app: &mut App, text: String) {
    set_status(app, text, StatusKind::Error, Lasts::For(ERROR_SHOWN_MS));
}

/// Why decisions cannot be made right now, if they cannot.
pub(in crate::tui::app) fn decisions_off(app: &App) -> Option<String> {
    if app.snapshot.is_none() {
        return Some(t!(app.lang, "status.still_reading").into());
    }
    app.read_only()
        .map(|why| t!(app.lang, "status.read_only", reason = inline(why, 200)))
}
