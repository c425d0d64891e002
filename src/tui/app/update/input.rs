//! A line being typed: the filter (applied as typed), a note, a jump to an
//! item, a search; Enter keeps it, Esc puts things back.

use super::super::find;
use super::super::msg::Effect;
use super::super::state::{App, Input};
use super::selection::refilter_all;
use super::status::info;
use crate::sanitize::inline;
use crate::t;

/// How long a typed filter or note may grow.
const MAX_INPUT: usize = 500;

pub(super) fn type_char(app: &mut App, c: char) {
    let Some(input) = app.input.as_mut() else {
        return;
    };
    let text = input.text_mut();
    if text.chars().count() >= MAX_INPUT || c.is_control() {
        return;
    }
    text.push(c);
    sync_filter(app);
}

/// While the filter is being typed it applies at once.
pub(super) fn sync_filter(app: &mut App) {
    if let Some(Input::Filter { text }) = &app.input {
        if *text == app.filter {
            return;
        }
        app.filter = text.clone();
        refilter_all(app);
    }
}

pub(super) fn submit_input(app: &mut App, effects: &mut Vec<Effect>) {
    match app.input.take() {
        Some(Input::Find { text, .. }) => {
            if let Some(effect) = find::update::submit(app, text) {
                effects.push(effect);
            }
        }
        Some(Input::Filter { text }) => {
            app.filter = text;
            refilter_all(app);
            if !app.filter.is_empty() {
                let shown = app.rows(app.tab).len();
                let filter = inline(&app.filter, 40);
                let text = if shown == 1 {
                    t!(
                        app.lang,
                        "status.filter_rows_one",
                        filter = filter,
                        n = shown
                    )
                } else {
                    t!(
                        app.lang,
                        "status.filter_rows_many",
                        filter = filter,
                        n = shown
                    )
                };
                info(app, text);
            }
        }
        Some(Input::EraseNote { who, text }) => {
            super::erase::submit_note(app, who, text, effects);
        }
        Some(Input::Note { item, text }) => {
            let text = text.trim().to_string();
            if text.is_empty() {
                let had = app.notes.remove(&item).is_some();
                if had {
                    info(app, t!(app.lang, "status.note_removed", item = item));
                }
            } else {
                app.notes.insert(item.clone(), text);
                info(app, t!(app.lang, "status.note_kept", item = item));
            }
        }
        None => {}
    }
}

pub(super) fn cancel_input(app: &mut App) {
    match app.input.take() {
        Some(Input::Filter { .. }) => {
            app.filter.clear();
            refilter_all(app);
        }
        Some(Input::Note { .. })
        | Some(Input::Find { .. })
        | Some(Input::EraseNote { .. })
        | None => {}
    }
}
