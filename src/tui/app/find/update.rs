//! The Receipts tab's part of `update`: pure, as the rest of it.

use std::sync::Arc;

use crate::find::{self, Hit, Query, Scan};
use crate::sanitize::inline;
use crate::t;
use crate::tui::app::msg::Effect;
use crate::tui::app::state::{App, Input, Recall};
use crate::tui::app::tab::Tab;

/// Opens the search line: empty (`/`; the last search shows dim until
/// something is typed), or with the first character typed on the tab.
pub fn start(app: &mut App, first: Option<char>) {
    let text = first.map(String::from).unwrap_or_default();
    app.input = Some(Input::Find { text, recall: None });
}

/// ↑ (`older`) or ↓ in the search line: the searches run before, newest
/// first; ↓ past the newest gives back what was being typed.
pub fn recall(app: &mut App, older: bool) {
    let Some(Input::Find { text, recall }) = app.input.as_mut() else {
        return;
    };
    let history = &app.find.history;
    let next = match (recall.as_ref(), older) {
        (None, false) => return,
        (None, true) if history.is_empty() => return,
        (None, true) => Some(0),
        (Some(r), true) => Some((r.at + 1).min(history.len() - 1)),
        (Some(r), false) => r.at.checked_sub(1),
    };
    match next {
        Some(at) => {
            let draft = match recall.take() {
                Some(r) => r.draft,
                None => std::mem::take(text),
            };
            *text = history[at].clone();
            *recall = Some(Recall { at, draft });
        }
        None => {
            if let Some(r) = recall.take() {
                *text = r.draft;
            }
        }
    }
}

/// Runs the search typed (Enter): a bad one is a message, never a search.
pub fn submit(app: &mut App, text: String) -> Option<Effect> {
    app.find.remember(&text);
    let Some(snap) = app.snapshot.as_ref() else {
        app.find.error = Some(t!(app.lang, "status.find.still_reading").into());
        return None;
    };
    let now_ms = snap.settings.now_ms;
    match find::parse_in(&text, app.shown_zone(), now_ms, app.lang) {
        Ok(query) => {
            app.find.error = None;
            app.find.searching = Some(query.clone());
            Some(Effect::Find { query, now_ms })
        }
        Err(e) => {
            app.find.error = Some(inline(&e.0, 200));
            None
        }
    }
}

/// Takes what the worker found (or why it could not look).
pub fn found(app: &mut App, query: Query, result: Result<Scan, String>) {
    if app.find.searching.as_ref() == Some(&query) {
        app.find.searching = None;
    }
    match result {
        Ok(scan) => {
            app.find.error = None;
            app.find.scanned = Some((query, Arc::new(scan)));
            join(app);
            app.tabs[Tab::Receipts.index()].pos = Default::default();
        }
        Err(why) => {
            let why = inline(&why, 200);
            app.find.error = Some(t!(app.lang, "status.find.failed", why = why));
        }
    }
}

/// Joins the last scan with the current reading (after a search, and after
/// each new reading), and lists its hits as the tab's rows.
pub fn join(app: &mut App) {
    let i = Tab::Receipts.index();
    app.find.outcome = match (&app.find.scanned, &app.snapshot) {
        (Some((query, scan)), Some(snap)) => Some(find::assemble(query, Scan::clone(scan), snap)),
        _ => None,
    };
    let n = app.find.outcome.as_ref().map_or(0, |o| o.hits.len());
    app.tabs[i].rows = (0..n).collect();
}

/// The selected hit.
pub fn selected_hit(app: &App) -> Option<&Hit> {
    let outcome = app.find.outcome.as_ref()?;
    let row = *app
        .rows(Tab::Receipts)
        .get(app.pos(Tab::Receipts).selected)?;
    outcome.hits.get(row)
}

/// The tab an item is decided on, from its id.
pub fn tab_of(item: &str) -> Option<Tab> {
    let (kind, _) = item.split_once(':')?;
    match kind {
        "dup" => Some(Tab::Duplicates),
        "conflict" => Some(Tab::Conflicts),
        "stuck" => Some(Tab::Stuck),
        _ => None,
    }
}

/// The first item of the selected hit that a tab shows: where `J` goes.
pub fn jump_target(app: &App) -> Option<(Tab, String)> {
    selected_hit(app)?
        .items
        .iter()
        .find_map(|i| tab_of(&i.item).map(|tab| (tab, i.item.clone())))
}
