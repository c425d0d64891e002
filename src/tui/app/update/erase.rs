//! `E` on a receipt of the Receipts tab: erase its visitor's data, as
//! `receipt-review erase` does. The operator types why (the request's
//! reference) first; the worker then finds every receipt the erasure takes
//! (the visitor's email, else phone, else this receipt alone), and the
//! question before it says how many (No has the focus). Nothing is erased
//! until Yes.

use crate::erase::Who;
use crate::sanitize::inline;
use crate::t;

use super::super::clipboard::{self, CopyWhat};
use super::super::msg::{Effect, EraseAsk, ErasePlanned};
use super::super::state::{App, Confirm, ConfirmAction, Input, Overlay};
use super::super::words;

use super::status::{decisions_off, error, info, success, working};

/// `E`: whose data, then the line for why.
pub(super) fn start(app: &mut App) {
    let lang = app.lang;
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some(chosen) = clipboard::selected(app) else {
        return error(app, t!(lang, "status.erase.nothing_selected").into());
    };
    let value = |what| chosen.value(what);
    let who = match (value(CopyWhat::Email), value(CopyWhat::Phone)) {
        (Err(_), _) | (_, Err(_)) => {
            return error(app, t!(lang, "status.copy_not_read").into());
        }
        (Ok(Some(email)), _) => Who::Email(email),
        (_, Ok(Some(phone))) => Who::Phone(phone),
        _ => Who::Receipts(vec![chosen.receipt()]),
    };
    app.input = Some(Input::EraseNote {
        who,
        text: String::new(),
    });
}

/// Enter on the line: a reason is needed; then the worker plans.
pub(super) fn submit_note(app: &mut App, who: Who, text: String, effects: &mut Vec<Effect>) {
    let note = text.trim().to_string();
    if note.is_empty() {
        return error(app, t!(app.lang, "status.erase.note_needed").into());
    }
    working(app, t!(app.lang, "status.erase.finding").into());
    effects.push(Effect::PlanErase(EraseAsk { who, note }));
}

/// The worker found what the erasure takes: the question, No focused.
pub(super) fn planned(app: &mut App, planned: Result<ErasePlanned, String>) {
    let lang = app.lang;
    let planned = match planned {
        Ok(planned) => planned,
        Err(why) => return error(app, inline(&why, 300)),
    };
    let n = planned.receipts.len();
    if n == 0 {
        return info(app, t!(lang, "status.erase.nothing").into());
    }
    app.status = None;
    let numbers = planned
        .receipts
        .iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ");
    let lines = vec![
        t!(
            lang,
            "status.erase.receipts",
            numbers = inline(&numbers, 400)
        ),
        t!(
            lang,
            "status.erase.note",
            note = inline(&planned.ask.note, 200)
        ),
        t!(lang, "status.erase.cannot_be_undone").into(),
    ];
    app.overlay = Some(Overlay::Confirm(Box::new(Confirm {
        title: t!(
            lang,
            "status.erase.title",
            n = n,
            who = words::erase_who(&planned.ask.who, lang)
        ),
        lines,
        yes_label: t!(lang, "status.erase.yes").into(),
        no_label: words::confirm_no(lang),
        yes_focused: false,
        action: ConfirmAction::Erase(planned),
    })));
}

/// Yes: erase.
pub(super) fn confirmed(app: &mut App, planned: ErasePlanned, effects: &mut Vec<Effect>) {
    working(app, t!(app.lang, "status.erase.erasing").into());
    effects.push(Effect::Erase(planned.ask));
}

/// What the worker did. (The reading after it lets go of what the screen
/// read of the erased receipts: see `loaded::forget_erased`.)
pub(super) fn erased(app: &mut App, outcome: Result<String, String>) {
    match outcome {
        Ok(text) => success(app, text),
        Err(why) => error(app, inline(&why, 300)),
    }
}
