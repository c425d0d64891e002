//! The questions before an undo: one that reaches far (a bulk decision
//! taken as one step, or a decision on a bot group of many receipts), which
//! says how many it reopens; and the reopening of a decision the operator
//! chose (`U`), which says whose decision it is, what, and when. No has the
//! focus in both.

use crate::i18n::Lang;
use crate::model::{ReceiptId, Zone};
use crate::reading::ItemReview;
use crate::review::Wide;
use crate::sanitize::inline;
use crate::t;

use super::decision::{self, Decision};
use super::msg::Reopen;
use super::state::{Confirm, ConfirmAction};
use super::words;

/// The question before reopening the decision `review` on `item` (`None`
/// when no decision stands on it). `receipt` is the receipt a `completed`
/// or `failed` decision set the state of.
pub fn confirm_reopen(
    item: &str,
    review: &ItemReview,
    receipt: Option<ReceiptId>,
    zone: Zone,
    lang: Lang,
) -> Option<Confirm> {
    let stored = review.decision.as_deref()?;
    let chosen = item.to_string();
    let item = inline(item, 40);
    let who = inline(review.operator.as_deref().unwrap_or("?"), 40);
    let what = words::decision_named(stored, lang);
    let at = review.decided_at_ms.map_or_else(
        || "?".to_string(),
        |ms| format!("{} {}", zone.format_minutes(ms), zone.abbreviation(ms)),
    );
    let mut lines = vec![t!(
        lang,
        "status.reopen.decided",
        who = who,
        item = item,
        decision = what,
        at = at
    )];
    if let Some(note) = &review.note {
        lines.push(words::confirm_note(&inline(note, 200), lang));
    }
    let set_state = Decision::parse(stored).is_some_and(decision::changes_state);
    if let (true, Some(receipt)) = (set_state, receipt) {
        lines.push(t!(lang, "status.reopen.state", receipt = receipt));
    }
    lines.push(t!(lang, "status.reopen.back", item = item));
    Some(Confirm {
        title: t!(lang, "status.reopen.title", who = who, item = item),
        lines,
        yes_label: t!(lang, "status.reopen.yes", item = item),
        no_label: words::confirm_no(lang),
        yes_focused: false,
        action: ConfirmAction::Reopen(Reopen {
            item: chosen,
            expected_last: review.last_log_id,
        }),
    })
}

/// The confirmation for undoing `wide`, in `lang`.
pub fn confirm(wide: Wide, lang: Lang) -> Confirm {
    let (title, lines, yes_label) = match &wide {
        Wide::Batch {
            decisions, left, ..
        } => {
            let n = *decisions;
            let mut lines = vec![
                t!(lang, "status.undo.batch_recorded", total = n + left),
                if n == 1 {
                    t!(lang, "status.undo.batch_reopens_one", n = n)
                } else {
                    t!(lang, "status.undo.batch_reopens_many", n = n)
                },
            ];
            if *left > 0 {
                lines.push(if *left == 1 {
                    t!(lang, "status.undo.batch_left_one", left = left)
                } else {
                    t!(lang, "status.undo.batch_left_many", left = left)
                });
            }
            (
                if n == 1 {
                    t!(lang, "status.undo.batch_title_one").to_string()
                } else {
                    t!(lang, "status.undo.batch_title_many", n = n)
                },
                lines,
                t!(lang, "status.undo.yes", n = n),
            )
        }
        Wide::Group { item, receipts, .. } => {
            let item = inline(item, 40);
            (
                t!(
                    lang,
                    "status.undo.group_title",
                    item = item,
                    receipts = receipts
                ),
                vec![
                    t!(
                        lang,
                        "status.undo.group_covers",
                        item = item,
                        receipts = receipts
                    ),
                    t!(lang, "status.undo.group_back").to_string(),
                ],
                t!(lang, "status.undo.yes", n = receipts),
            )
        }
    };
    Confirm {
        title,
        lines,
        yes_label,
        no_label: words::confirm_no(lang),
        yes_focused: false,
        action: ConfirmAction::Undo(wide),
    }
}
