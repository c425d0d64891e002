//! The question before an undo that reaches far: a bulk decision taken as
//! one step, or a decision on a bot group of many receipts. It says how many
//! it reopens, and No has the focus.

use crate::review::Wide;
use crate::sanitize::inline;

use super::state::{Confirm, ConfirmAction};

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The confirmation for undoing `wide`.
pub fn confirm(wide: Wide) -> Confirm {
    let (title, lines, yes_label) = match &wide {
        Wide::Batch {
            decisions, left, ..
        } => {
            let n = *decisions;
            let mut lines = vec![
                format!("Your last step recorded {} decisions at once.", n + left),
                format!(
                    "Reopening puts {n} item{} back to pending; nothing else changes.",
                    plural(n)
                ),
            ];
            if *left > 0 {
                lines.push(format!(
                    "{left} of them {} decided or reopened by someone since: left as {}.",
                    if *left == 1 { "was" } else { "were" },
                    if *left == 1 { "it is" } else { "they are" }
                ));
            }
            (
                if n == 1 {
                    "Reopen the 1 decision of that batch?".to_string()
                } else {
                    format!("Reopen all {n} decisions of that batch?")
                },
                lines,
                format!("Yes, reopen {n}"),
            )
        }
        Wide::Group { item, receipts, .. } => {
            let item = inline(item, 40);
            (
                format!("Reopen {item}: {receipts} receipts?"),
                vec![
                    format!("Your last decision covers all {receipts} receipts of {item}."),
                    "They go back to pending; nothing is deleted.".to_string(),
                ],
                format!("Yes, reopen {receipts}"),
            )
        }
    };
    Confirm {
        title,
        lines,
        yes_label,
        no_label: "No".into(),
        yes_focused: false,
        action: ConfirmAction::Undo(wide),
    }
}
