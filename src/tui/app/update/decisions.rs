//! Decisions from the screen: one item, several at once, the copy a
//! duplicate keeps, notes, undo and reopening; each sent to the worker as
//! an effect, and the answer awaited.

use super::super::decision::{self, Decision};
use super::super::msg::{Effect, ItemDecision};
use super::super::state::{App, Confirm, ConfirmAction, Input, Overlay};
use super::super::tab::Tab;
use super::super::words;
use super::selection::{is_pending_row, select};
use super::status::{decisions_off, error, info, working};
use crate::sanitize::inline;
use crate::t;

/// `U`: asks to reopen the decision on the selected item, whoever made it.
pub(super) fn reopen_chosen(app: &mut App) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some((item, receipt_ids)) = app.selected_item() else {
        return info(app, t!(app.lang, "status.nothing_selected").into());
    };
    if app.awaiting.contains_key(&item) {
        return info(app, t!(app.lang, "status.being_recorded", item = item));
    }
    let review = app.review(&item);
    let receipt = receipt_ids.first().copied();
    match super::super::undo::confirm_reopen(&item, &review, receipt, app.shown_zone(), app.lang) {
        Some(confirm) => {
            app.status = None;
            app.overlay = Some(Overlay::Confirm(Box::new(confirm)));
        }
        None => {
            let item = inline(&item, 40);
            info(app, t!(app.lang, "status.reopen.nothing", item = item));
        }
    }
}

pub(super) fn note(app: &mut App) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some((item, _)) = app.selected_item() else {
        return info(app, t!(app.lang, "status.note_needs_item").into());
    };
    let text = app.notes.get(&item).cloned().unwrap_or_default();
    app.input = Some(Input::Note { item, text });
}

pub(super) fn decide(app: &mut App, decision: Decision, effects: &mut Vec<Effect>) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    if !decision::fits(app.tab, decision) {
        return;
    }
    let Some((item, receipt_ids)) = app.selected_item() else {
        return info(app, t!(app.lang, "status.nothing_selected").into());
    };
    if app.awaiting.contains_key(&item) {
        return info(app, t!(app.lang, "status.being_recorded", item = item));
    }
    let review = app.review(&item);
    if app.standing(&item).is_resolved() {
        let by = review.operator.as_deref().map(|op| inline(op, 40));
        let at = review
            .decided_at_ms
            .map(|at| app.shown_zone().format_minutes(at));
        let text = words::already_resolved(
            &item,
            review.decision.as_deref(),
            by.as_deref(),
            at.as_deref(),
            app.lang,
        );
        return info(app, text);
    }
    let kept = match (app.selected(), app.snapshot.as_ref()) {
        (Some(super::super::Selected::Group(i)), Some(snap)) => {
            super::super::keep::kept_for(app, snap, &snap.triage.duplicates[i], decision)
        }
        _ => None,
    };
    let request = ItemDecision {
        item: item.clone(),
        decision: decision.as_str().to_string(),
        receipt_ids,
        note: app.notes.get(&item).cloned(),
        expected_last: review.last_log_id,
        kept,
    };
    if let (Decision::Spam, Some(super::super::Selected::Bot(i))) = (decision, app.selected()) {
        let g = app
            .snapshot
            .as_ref()
            .map(|s| s.triage.bot_groups[i].clone());
        if let Some(g) = g {
            let confirm = super::super::bots::confirm_spam(request, &g, app.lang);
            app.overlay = Some(Overlay::Confirm(Box::new(confirm)));
            return;
        }
    }
    if decision::changes_state(decision) {
        let id = request.receipt_ids.first().copied().unwrap_or_default();
        let lang = app.lang;
        let mut lines = words::confirm_state_lines(id, decision, lang);
        if let Some(note) = &request.note {
            lines.push(words::confirm_note(&inline(note, 200), lang));
        }
        app.overlay = Some(Overlay::Confirm(Box::new(Confirm {
            title: words::confirm_state_title(&item, decision, lang),
            lines,
            yes_label: words::confirm_state_yes(decision, lang),
            no_label: words::confirm_no(lang),
            yes_focused: false,
            action: ConfirmAction::Decide(request),
        })));
        return;
    }
    send(app, vec![request], false, effects);
}

/// Hands decisions to the runtime (the bulk action as one `DecideMany`, even
/// of one), and moves on to the next pending row.
pub(super) fn send(
    app: &mut App,
    requests: Vec<ItemDecision>,
    bulk: bool,
    effects: &mut Vec<Effect>,
) {
    for r in &requests {
        app.notes.remove(&r.item);
        app.keep.remove(&r.item);
        app.awaiting.insert(r.item.clone(), r.note.clone());
    }
    advance_to_pending(app);
    if bulk {
        let n = requests.len();
        info(app, words::recording_many(n, Decision::Duplicate, app.lang));
        effects.push(Effect::DecideMany(requests));
    } else {
        for r in requests {
            let text = match Decision::parse(&r.decision) {
                Some(d) => words::recording(&r.item, d, app.lang),
                None => t!(app.lang, "status.recording_item", item = r.item),
            };
            working(app, text);
            effects.push(Effect::Decide(r));
        }
    }
}

/// After a decision: the next pending row below, else above; else stay.
pub(super) fn advance_to_pending(app: &mut App) {
    let tab = app.tab;
    let current = app.pos(tab).selected;
    let rows = app.rows(tab);
    let next = (current + 1..rows.len())
        .chain((0..current).rev())
        .find(|&i| is_pending_row(app, tab, rows[i]));
    if let Some(next) = next {
        select(app, tab, next);
    }
}

pub(super) fn bulk(app: &mut App) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some(snap) = app.snapshot.as_ref() else {
        return;
    };
    let requests: Vec<ItemDecision> = app
        .rows(Tab::Duplicates)
        .iter()
        .map(|&i| &snap.triage.duplicates[i])
        .filter(|g| g.is_exact())
        .filter_map(|g| {
            let item = g.item();
            let review = snap.review(&item);
            if review.resolved || app.awaiting.contains_key(&item) {
                return None;
            }
            Some(ItemDecision {
                note: app.notes.get(&item).cloned(),
                item,
                decision: Decision::Duplicate.as_str().to_string(),
                receipt_ids: g.receipt_ids(),
                expected_last: review.last_log_id,
                kept: super::super::keep::kept_for(app, snap, g, Decision::Duplicate),
            })
        })
        .collect();
    if requests.is_empty() {
        return info(app, t!(app.lang, "status.bulk.none").into());
    }
    let lang = app.lang;
    let n = requests.len();
    let receipts: usize = requests.iter().map(|r| r.receipt_ids.len()).sum();
    let mut view = t!(
        lang,
        "status.bulk.class",
        class = app.class_filter.label(lang)
    );
    if !app.filter.is_empty() {
        let filter = inline(&app.filter, 40);
        view.push_str(&t!(lang, "status.bulk.filter", filter = filter));
    }
    let (title, shown) = if n == 1 {
        (
            t!(lang, "status.bulk.title_one", n = n),
            t!(
                lang,
                "status.bulk.shown_one",
                n = n,
                receipts = receipts,
                view = view
            ),
        )
    } else {
        (
            t!(lang, "status.bulk.title_many", n = n),
            t!(
                lang,
                "status.bulk.shown_many",
                n = n,
                receipts = receipts,
                view = view
            ),
        )
    };
    app.overlay = Some(Overlay::Confirm(Box::new(Confirm {
        title,
        lines: vec![
            shown,
            t!(lang, "status.bulk.near_left").into(),
            t!(lang, "status.bulk.keeps").into(),
        ],
        yes_label: t!(lang, "status.bulk.yes", n = n),
        no_label: words::confirm_no(lang),
        yes_focused: false,
        action: ConfirmAction::DecideMany(requests),
    })));
}

pub(super) fn answer(app: &mut App, yes: bool, effects: &mut Vec<Effect>) {
    let Some(Overlay::Confirm(confirm)) = app.overlay.take() else {
        return;
    };
    if !yes {
        return info(app, t!(app.lang, "status.cancelled").into());
    }
    match confirm.action {
        ConfirmAction::Decide(request) => send(app, vec![request], false, effects),
        ConfirmAction::DecideMany(requests) => send(app, requests, true, effects),
        ConfirmAction::Undo(wide) => {
            working(app, t!(app.lang, "status.undoing_step").into());
            effects.push(Effect::UndoConfirmed(wide));
        }
        ConfirmAction::Reopen(reopen) => {
            let item = inline(&reopen.item, 40);
            working(app, t!(app.lang, "status.reopen.reopening", item = item));
            effects.push(Effect::Reopen(reopen));
        }
        ConfirmAction::Quit => effects.push(Effect::Quit),
        ConfirmAction::Erase(planned) => super::erase::confirmed(app, planned, effects),
    }
}

pub(super) fn undo(app: &mut App, effects: &mut Vec<Effect>) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    working(app, t!(app.lang, "status.undoing").into());
    effects.push(Effect::Undo);
}

/// `[` / `]` on a duplicate group: the copy before / after the marked one
/// becomes the one to keep.
pub(super) fn choose_copy(app: &mut App, by: isize) {
    let Some(super::super::Selected::Group(i)) = app.selected() else {
        return;
    };
    let Some(snap) = app.snapshot.clone() else {
        return;
    };
    let g = &snap.triage.duplicates[i];
    let item = g.item();
    if app.review(&item).resolved {
        return info(app, t!(app.lang, "status.keep.resolved", item = item));
    }
    let id = super::super::keep::step(app, &snap, g, by);
    app.keep.insert(item, id);
    let at = g.members.iter().position(|m| m.id == id).unwrap_or(0);
    let text = t!(
        app.lang,
        "status.keep.chosen",
        id = id,
        at = at + 1,
        n = g.members.len()
    );
    info(app, text);
}
