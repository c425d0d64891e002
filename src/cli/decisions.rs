//! The command line's side of choosing what to keep (`resolve --keep`) and
//! of undoing (`reopen`): the same review paths as the screen's `d` and `u`.

use super::error::{Finding, unusable};
use super::{operator, output};
use crate::i18n;
use crate::model::ReceiptId;
use crate::reading::{Snapshot, Target};
use crate::review::{self, Decision, keep};
use crate::sanitize::inline;
use crate::storage::{self, Access};
use crate::t;

/// The copy a decision on `item` keeps: `--keep` when given (a copy of the
/// group, and only for `duplicate` or `correction`: else exit 2), else the
/// default (the most complete copy; for a correction, the latest); `None`
/// for a decision that keeps none.
pub fn kept_copy(
    snap: &Snapshot,
    item: &str,
    target: &Target,
    decision: Decision,
    keep: Option<ReceiptId>,
) -> anyhow::Result<Option<ReceiptId>> {
    if let Some(id) = keep {
        if !keep::keeps(decision) {
            return Err(unusable(t!(
                i18n::current(),
                "decisions.keep.keeps_none",
                decision = decision.label_in(i18n::current())
            )));
        }
        if !target.receipt_ids.contains(&id) {
            let copies = target
                .receipt_ids
                .iter()
                .map(|id| id.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(unusable(t!(
                i18n::current(),
                "decisions.keep.not_a_copy",
                kept = id,
                item = inline(item, 40),
                copies = copies
            )));
        }
    }
    if !keep::keeps(decision) {
        return Ok(None);
    }
    let group = snap.triage.duplicates.iter().find(|g| g.item() == item);
    // The receipts are read with the analysis for a group; were one not,
    // every copy counts as empty and the earliest is the most complete.
    let candidates = group
        .and_then(|g| snap.keep_candidates(g))
        .unwrap_or_else(|| {
            target
                .receipt_ids
                .iter()
                .map(|&id| keep::Candidate { id, filled: 0 })
                .collect()
        });
    Ok(keep::kept(decision, &candidates, keep))
}

/// The line `resolve` prints for a decision that keeps a copy.
pub fn recorded_keeping(
    item: &str,
    decision: Decision,
    operator: &str,
    kept: ReceiptId,
    entry: i64,
) -> String {
    t!(
        i18n::current(),
        "decisions.keep.recorded",
        item = inline(item, 40),
        decision = decision.label_in(i18n::current()),
        operator = inline(operator, 40),
        kept = kept,
        id = entry
    )
}

/// `reopen DB ITEM [--note N] [--operator O]`: the item's decision no longer
/// stands, through the screen's guarded path. Exit 1 when there is nothing
/// to reopen; 2 for an id that is not an item id.
pub fn reopen(
    db: &crate::storage::Location,
    item: &str,
    note: Option<String>,
    operator: Option<String>,
) -> anyhow::Result<i32> {
    let lang = i18n::current();
    let operator = operator::resolve(operator)?;
    if review::parse_item(item).is_err() {
        return Err(unusable(t!(
            lang,
            "decisions.reopen.bad_item",
            item = inline(item, 40)
        )));
    }
    let mut database = storage::open_database(db, Access::PreferWrite)?;
    if let Some(reason) = database.read_only_reason() {
        return Err(unusable(t!(
            lang,
            "decisions.reopen.read_only",
            reason = inline(reason, 200)
        )));
    }
    let request = review::ReopenRequest {
        item: item.to_string(),
        operator,
        note,
        now_ms: crate::model::time::now_ms(),
        expected_last: None,
    };
    let Some(undone) = review::reopen_with(&mut *database, &request)? else {
        return Err(nothing_to_reopen(&*database, item));
    };
    let reopened = &undone.reopened;
    let mut text = t!(
        lang,
        "decisions.reopen.done",
        item = inline(item, 40),
        decision = reopened.decision.label_in(i18n::current()),
        operator = inline(&reopened.operator, 40),
        id = undone.entry.id
    );
    match &undone.state {
        review::StateRevert::NoStateChange => {}
        review::StateRevert::Reverted { receipt_id, from } => {
            text.push_str("; ");
            text.push_str(&t!(
                lang,
                "decisions.reopen.state_reverted",
                receipt = receipt_id,
                state = inline(from, 40)
            ));
        }
        review::StateRevert::Kept {
            receipt_id,
            now_state,
        } => {
            text.push_str("; ");
            text.push_str(&t!(
                lang,
                "decisions.reopen.state_kept",
                receipt = receipt_id,
                state = inline(now_state.as_deref().unwrap_or("-"), 40)
            ));
        }
    }
    text.push('\n');
    output::print(&text)?;
    Ok(0)
}

/// Why an item has nothing to reopen (exit 1): it was reopened already, or
/// no decision on it was ever recorded.
fn nothing_to_reopen(database: &dyn storage::Storage, item: &str) -> anyhow::Error {
    let lang = i18n::current();
    let text = match review::latest_entry(database, item) {
        Ok(Some(latest)) => t!(
            lang,
            "decisions.reopen.already_pending",
            item = inline(item, 40),
            operator = inline(&latest.operator, 40),
            at = inline(&latest.decided_at, 40)
        ),
        _ => t!(
            lang,
            "decisions.reopen.never_decided",
            item = inline(item, 40)
        ),
    };
    anyhow::Error::new(Finding(text))
}
