//! `y` and `Y`: a value of the selected receipt to the clipboard ([`crate::tui::app::clipboard`]).
//! The runtime hands it to the terminal (OSC 52), which works over SSH and inside tmux;
//! nothing is written to the database, so it works read-only too.

use crate::sanitize::inline;
use crate::t;

use super::super::clipboard::{self, CopyWhat, Found};
use super::super::msg::Effect;
use super::super::state::{App, Overlay};
use super::status::{error, success};

/// `y`: the email at once.
pub(super) fn copy_email(app: &mut App, effects: &mut Vec<Effect>) {
    let lang = app.lang;
    match clipboard::value(app, CopyWhat::Email) {
        Found::NothingSelected => error(app, t!(lang, "status.nothing_to_copy").into()),
        Found::Missing => error(app, t!(lang, "status.no_email_to_copy").into()),
        Found::NotReadYet => error(app, t!(lang, "status.copy_not_read").into()),
        Found::Text(text) => {
            success(
                app,
                t!(lang, "status.copied_email", text = inline(&text, 80)),
            );
            effects.push(Effect::Copy(text));
        }
    }
}

/// `Y`: the menu of what to copy, when a receipt is selected.
pub(super) fn open_menu(app: &mut App) {
    if clipboard::selected(app).is_some() {
        app.overlay = Some(Overlay::Copy {
            choice: CopyWhat::Email,
        });
    } else {
        error(app, t!(app.lang, "status.nothing_to_copy").into());
    }
}

/// A choice of the menu: copied, and the menu closed.
pub(super) fn copy(app: &mut App, what: CopyWhat, effects: &mut Vec<Effect>) {
    let lang = app.lang;
    app.overlay = None;
    let label = what.label(lang);
    match clipboard::value(app, what) {
        Found::NothingSelected => error(app, t!(lang, "status.nothing_to_copy").into()),
        Found::Missing => error(app, t!(lang, "status.nothing_of_to_copy", what = label)),
        Found::NotReadYet => error(app, t!(lang, "status.copy_not_read").into()),
        Found::Text(text) => {
            success(
                app,
                t!(
                    lang,
                    "status.copied",
                    what = label,
                    text = inline(&text, 60)
                ),
            );
            effects.push(Effect::Copy(text));
        }
    }
}

/// The menu's next (or, `step` of `len - 1`, previous) choice.
pub(super) fn next_choice(choice: CopyWhat, step: usize) -> CopyWhat {
    let all = CopyWhat::ALL;
    let at = all.iter().position(|&c| c == choice).unwrap_or(0);
    all[(at + step) % all.len()]
}
