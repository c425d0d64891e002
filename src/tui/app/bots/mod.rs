//! The Bots tab's own rules: who a bot receipt says it is, and the question
//! asked before a whole group is marked spam.

use crate::reading::Snapshot;
use crate::sanitize::inline;
use crate::triage::model::BotGroup;
use crate::triage::visitor::{Identity, identity_of};

use super::msg::ItemDecision;
use super::state::{Confirm, ConfirmAction};

/// The sender a receipt names (its email, else phone, else name), as the
/// campaign rule counts senders; `None` when its fields are not read yet
/// or name no one. Not yet safe to show: pass it through `sanitize`.
pub fn sender_of(snap: &Snapshot, id: i64) -> Option<String> {
    let r = snap.receipt_view(id)?;
    r.fields()
        .filter_map(|(k, v)| match identity_of(k) {
            Some(Identity::Organisation) | None => None,
            Some(identity) => Some((identity, v.to_string())),
        })
        .min()
        .map(|(_, v)| v)
}

/// The question before `spam` on a whole group: it says how many receipts
/// it covers, and No has the focus.
pub fn confirm_spam(request: ItemDecision, g: &BotGroup) -> Confirm {
    let n = request.receipt_ids.len();
    let s = if n == 1 { "" } else { "s" };
    let mut lines = vec![
        format!(
            "This records all {n} receipt{s} of {} as spam ({}).",
            request.item,
            g.evidence.describe()
        ),
        "Nothing is deleted: the receipts stay, and u undoes it as one step.".into(),
    ];
    if let Some(note) = &request.note {
        lines.push(format!("Note: {}", inline(note, 200)));
    }
    Confirm {
        title: format!("Mark {n} receipt{s} as spam?"),
        lines,
        yes_label: format!("Yes, {n} are spam"),
        no_label: "No".into(),
        yes_focused: false,
        action: ConfirmAction::Decide(request),
    }
}
