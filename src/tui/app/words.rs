//! The screen's words for people: decisions, where an item stands, status
//! messages, confirmations and the help's explanations. Stored names
//! (`follow_up`, `in_flight`) never reach the screen; they are turned into
//! these words here, in one place, so that the screen says one thing one way
//! (and a translation has one file to follow).

use crate::model::{Decision, Kind};

/// A decision as people say it: `follow-up`, `original stands`, `still pending`.
pub fn decision(decision: Decision) -> &'static str {
    match decision {
        Decision::Duplicate => "duplicate",
        Decision::Correction => "correction",
        Decision::Distinct => "distinct",
        Decision::Spam => "spam",
        Decision::NotSpam => "not spam",
        Decision::OriginalStands => "original stands",
        Decision::FollowUp => "follow-up",
        Decision::Completed => "completed",
        Decision::Failed => "failed",
        Decision::StillPending => "still pending",
        Decision::Reopened => "reopened",
    }
}

/// [`decision`] of a stored name; a name this version does not know is
/// shown with spaces for its underscores.
pub fn decision_named(stored: &str) -> String {
    match Decision::parse(stored) {
        Some(d) => decision(d).to_string(),
        None => stored.replace('_', " "),
    }
}

/// What an item is, as a sentence starts: `Duplicate group`, `Stuck receipt`.
pub fn kind_named(stored: &str) -> String {
    match Kind::parse(stored) {
        Some(Kind::Duplicate) => "Duplicate group".into(),
        Some(Kind::Conflict) => "Conflict".into(),
        Some(Kind::Stuck) => "Stuck receipt".into(),
        Some(Kind::Bot) => "Bot group".into(),
        None => {
            let mut text = stored.replace('_', " ");
            if let Some(first) = text.get(..1) {
                let upper = first.to_uppercase();
                text.replace_range(..1, &upper);
            }
            text
        }
    }
}

/// A receipt state as people say it: `in flight`, `completed`, `failed`.
pub fn state_named(stored: &str) -> String {
    stored.replace('_', " ")
}

/// `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

// --- Where an item stands (the list's status column, the detail) ----------

pub const STANDING_PENDING: &str = "pending";
pub const STANDING_RESOLVED: &str = "resolved";
pub const STANDING_NEW_COPY: &str = "new copy";
pub const STANDING_LOOKED_AT: &str = "looked at";
pub const STANDING_SENDING: &str = "sending…";

/// The list's mark of a group that gained copies in the last readings: `+2`.
pub fn gained(copies: u32) -> String {
    format!("+{copies}")
}

/// The list's mark of a group that appeared in the last readings.
pub const FRESH_GROUP: &str = "new";

// --- Status messages ----------------------------------------------------------

/// The answer to a decision recorded: `conflict:40: follow-up recorded`.
pub fn recorded(item: &str, d: Decision) -> String {
    format!("{item}: {} recorded", decision(d))
}

/// A duplicate or correction recorded, with the copy it keeps.
pub fn recorded_keeping(item: &str, d: Decision, kept: crate::model::ReceiptId) -> String {
    format!("{item}: {} recorded, keeping #{kept}", decision(d))
}

/// Decisions sent, on their way.
pub fn recording(item: &str, d: Decision) -> String {
    format!("recording {item} as {}…", decision(d))
}

pub fn recording_many(n: usize, d: Decision) -> String {
    format!("recording {n} decision{} as {}…", plural(n), decision(d))
}

/// An undo recorded: `dup:12: duplicate undone, pending again`.
pub fn undone(item: &str, d: Decision) -> String {
    format!("{item}: {} undone, pending again", decision(d))
}

/// After [`undone`]: the receipt the undone decision had completed or failed.
pub fn undone_state_back(receipt_id: i64, was: &str) -> String {
    format!(
        "; receipt #{receipt_id} is in flight again (it was {})",
        state_named(was)
    )
}

/// After [`undone`]: the receipt changed since the decision, so its state stays.
pub fn undone_state_kept(receipt_id: i64, now: Option<&str>) -> String {
    match now {
        Some(state) => format!(
            "; receipt #{receipt_id} changed since, so it stays {}",
            state_named(state)
        ),
        None => format!("; receipt #{receipt_id} is gone, nothing to put back"),
    }
}

/// A decision on an item that is already resolved.
pub fn already_resolved(
    item: &str,
    stored: Option<&str>,
    by: Option<&str>,
    at: Option<&str>,
) -> String {
    let mut text = format!(
        "{item} is already resolved as {}",
        stored.map_or_else(|| "?".into(), decision_named)
    );
    if let Some(by) = by {
        text.push_str(&format!(" by {by}"));
    }
    if let Some(at) = at {
        text.push_str(&format!(" at {at}"));
    }
    text.push_str("; nothing changed (u undoes your own last decision)");
    text
}

/// The sort order, for the list's title and the status line.
pub fn order(newest_first: bool) -> &'static str {
    if newest_first {
        "newest first"
    } else {
        "oldest first"
    }
}

pub const PENDING_ONLY: &str = "pending only";

pub fn pending_only_status(on: bool) -> &'static str {
    if on {
        "showing pending items only (P shows every item again)"
    } else {
        "showing every item, resolved ones too"
    }
}

// --- Confirmations -------------------------------------------------------------

/// The title of the question before `completed` or `failed`.
pub fn confirm_state_title(item: &str, d: Decision) -> String {
    format!("Mark {item} as {}?", decision(d))
}

pub fn confirm_state_yes(d: Decision) -> String {
    format!("Yes, mark {}", decision(d))
}

/// What `completed` or `failed` changes, and what to have checked first.
pub fn confirm_state_lines(receipt_id: i64, d: Decision) -> Vec<String> {
    let mut lines = vec![format!(
        "Receipt #{receipt_id} becomes {} in the receipts table, only if it is still in flight.",
        decision(d)
    )];
    if d == Decision::Failed {
        lines.push("Failed frees its key: the visitor's retry will be accepted as new.".into());
        lines.push(
            "Time alone never makes a receipt failed: answer yes only after checking that the work was not done."
                .into(),
        );
    } else {
        lines.push("Answer yes only after checking that the work was done.".into());
    }
    lines
}

// --- The detail pane -----------------------------------------------------------

/// Why a partial copy is in its group: which fields only one of the two
/// copies has. `None` for a side not known (its receipt not read yet).
pub fn partial_copy(only_here: &[String], only_first: &[String], unknown: &[String]) -> String {
    let mut parts = Vec::new();
    let verb = |fields: &[String]| if fields.len() == 1 { "is" } else { "are" };
    if !only_here.is_empty() {
        parts.push(format!(
            "{} {} filled in only in this copy",
            and_list(only_here),
            verb(only_here)
        ));
    }
    if !only_first.is_empty() {
        parts.push(format!(
            "{} {} filled in only in the first copy",
            and_list(only_first),
            verb(only_first)
        ));
    }
    if !unknown.is_empty() {
        parts.push(format!(
            "{} {} filled in only in one of this copy and the first",
            and_list(unknown),
            verb(unknown)
        ));
    }
    format!("partial copy: {}", parts.join("; "))
}

/// Why an edited copy is in its group.
pub fn edited_copy(fields: &[String]) -> String {
    let verb = if fields.len() == 1 {
        "differs"
    } else {
        "differ"
    };
    format!(
        "edited copy: {} {verb} from the first copy by a few words",
        and_list(fields)
    )
}

/// A review log entry in one sentence: `Duplicate group dup:73 — marked
/// spam by aiko at 2026-11-29T10:15:30Z.`
pub fn log_sentence(kind: &str, item: &str, stored: &str, operator: &str, at: &str) -> String {
    let what = match Decision::parse(stored) {
        Some(Decision::Reopened) => "reopened".to_string(),
        _ => format!("marked {}", decision_named(stored)),
    };
    // The item's own prefix names its kind; the stored kind says it again.
    let kind = match crate::review::parse_item(item) {
        Ok((k, _)) => kind_named(k.as_str()),
        Err(_) => kind_named(kind),
    };
    format!("{kind} {item} — {what} by {operator} at {at}.")
}

/// What the review log says of an item, for its detail.
pub fn resolved_as(who: &str) -> String {
    format!("Resolved as {who}.")
}

pub fn looked_at(who: &str) -> String {
    format!("Marked {who}: looked at, the outcome still unknown, so it stays pending.")
}

pub fn new_copy_since(who: &str) -> String {
    format!(
        "NEW COPY SINCE DECISION: resolved as {who}, then another copy arrived. Pending again: decide anew."
    )
}

pub fn reopened_after(who: &str) -> String {
    format!("Reopened; last decided as {who}.")
}

// --- Empty lists ---------------------------------------------------------------

/// The text filter searches what items say, not where they stand: typed
/// "pending" or "resolved", it is told where the key that does that is.
pub fn standing_typed(filter: &str) -> bool {
    let typed = filter.trim().to_lowercase();
    ["pending", "unresolved", "resolved", "open"].contains(&typed.as_str())
}

pub const STANDING_NOT_TEXT: &str = "Nothing matches: the filter searches the items' text, not where they stand (P shows only the pending items; Esc clears the filter).";

/// Why a list shows nothing although it has items: what hides them, and
/// the key that shows them again (only keys that work on this tab).
pub fn nothing_shown(text_filter: bool, class_filter: bool, pending_only: bool) -> String {
    let mut ways = Vec::new();
    if text_filter {
        ways.push("Esc clears the text filter".to_string());
    }
    if class_filter {
        ways.push("t shows every class".to_string());
    }
    if pending_only {
        ways.push("P shows resolved items too".to_string());
    }
    if ways.is_empty() {
        return "Nothing to show.".into();
    }
    if pending_only && !text_filter && !class_filter {
        return "Nothing pending here (P shows resolved items too).".into();
    }
    format!("Nothing matches ({}).", ways.join("; "))
}

// --- Help ----------------------------------------------------------------------

/// The help's explanations of the words the screen uses: (term, meaning).
pub const GLOSSARY: &[(&str, &str)] = &[
    (
        "simultaneous",
        "copies under a second apart: usually two handlers posting one form",
    ),
    (
        "seconds",
        "copies one second to a minute apart: a double click, or a page that sends a new key per click",
    ),
    (
        "minutes",
        "copies over a minute apart (within the window): a reload, the back button, or a visitor sending again",
    ),
    (
        "exact",
        "every field the visitor typed is the same once case and spacing are folded",
    ),
    (
        "partial",
        "one copy has fields the other left empty; the fields both have are the same",
    ),
    (
        "edited",
        "the same fields, all equal but one text that differs by a few words (or characters)",
    ),
    (
        "not compared",
        "fields that are bookkeeping, not typed by the visitor (event_id, submitted_at, tokens, utm_*…): they may differ between copies and never make two copies different",
    ),
    (
        "pending",
        "no decision stands yet, or a new copy arrived after one (new copy)",
    ),
    (
        "looked at",
        "a stuck receipt marked still pending: someone checked and the outcome is still unknown; it still counts as pending",
    ),
    (
        "resolved",
        "a decision stands; a stuck receipt marked completed or failed leaves the Stuck tab and counts as resolved in the header",
    ),
    (
        "new / +1",
        "in the list: a group that appeared, or gained copies, since the reading before; the mark goes once you move past the row",
    ),
];

/// What each decision changes, and what it does not: (decisions, effect).
pub const DECISION_EFFECTS: &[(&str, &str)] = &[
    (
        "duplicate, correction, distinct, spam",
        "record how to answer a duplicate group; no receipt is changed or deleted",
    ),
    (
        "original stands, follow-up",
        "record whether a changed resend needs a reply; the kept receipt is not changed",
    ),
    (
        "completed, failed",
        "change the receipt's state, only if it is still in flight; failed also frees its key, so the visitor's retry is accepted as new",
    ),
    (
        "still pending",
        "records that you looked; the receipt stays in flight and the item stays pending",
    ),
    (
        "spam, not spam (bots)",
        "record the whole group at once; nothing is deleted",
    ),
    (
        "u (undo)",
        "appends a reopening: the item is pending again, and a receipt you marked completed or failed is put back in flight if nothing changed it since",
    ),
];

pub const HELP_TERMS: &str = "Words on this screen";
pub const HELP_DECISIONS: &str = "What a decision changes";

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn stored_names_become_words() {
        assert_eq!(decision(Decision::FollowUp), "follow-up");
        assert_eq!(decision_named("original_stands"), "original stands");
        assert_eq!(decision_named("still_pending"), "still pending");
        assert_eq!(decision_named("some_new_one"), "some new one");
        assert_eq!(state_named("in_flight"), "in flight");
    }

    #[test]
    fn why_a_near_copy_is_in_its_group_reads_as_a_sentence() {
        assert_eq!(
            partial_copy(&[], &list(&["company", "phone", "subject"]), &[]),
            "partial copy: company, phone and subject are filled in only in the first copy"
        );
        assert_eq!(
            partial_copy(&list(&["phone"]), &list(&["company"]), &[]),
            "partial copy: phone is filled in only in this copy; company is filled in only in the first copy"
        );
        assert_eq!(
            edited_copy(&list(&["message"])),
            "edited copy: message differs from the first copy by a few words"
        );
    }

    #[test]
    fn a_log_entry_is_one_sentence() {
        assert_eq!(
            log_sentence(
                "duplicate",
                "dup:73",
                "spam",
                "aiko",
                "2026-11-29T10:15:30Z"
            ),
            "Duplicate group dup:73 — marked spam by aiko at 2026-11-29T10:15:30Z."
        );
        assert_eq!(
            log_sentence("stuck", "stuck:9", "reopened", "ken", "t"),
            "Stuck receipt stuck:9 — reopened by ken at t."
        );
        assert_eq!(
            log_sentence("conflict", "conflict:4", "follow_up", "ken", "t"),
            "Conflict conflict:4 — marked follow-up by ken at t."
        );
    }

    #[test]
    fn an_empty_list_names_only_what_hides_its_items() {
        assert_eq!(
            nothing_shown(true, false, false),
            "Nothing matches (Esc clears the text filter)."
        );
        assert_eq!(
            nothing_shown(true, true, true),
            "Nothing matches (Esc clears the text filter; t shows every class; P shows resolved items too)."
        );
        assert_eq!(
            nothing_shown(false, false, true),
            "Nothing pending here (P shows resolved items too)."
        );
    }
}
