//! The question before an undo that reaches far: a bulk decision taken as
//! one step, or a decision on a bot group of many receipts. It says how many
//! it reopens, and No has the focus.

use crate::i18n::Lang;
use crate::review::Wide;
use crate::sanitize::inline;
use crate::t;

use super::state::{Confirm, ConfirmAction};
use super::words;

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
