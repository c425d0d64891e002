//! A row of a tab by what it stands for: its stable id, and the receipts
//! and payloads it covers. (Which rows a tab shows is the filter's: [`super::search`].)

use crate::model::ReceiptId;
use crate::reading::Snapshot;
use crate::triage::model::{Attempt, AttemptSource, Conflict};

use super::msg::PayloadRef;
use super::tab::Tab;

/// The receipts a conflict decision covers: the original, and any legacy
/// duplicate receipts that hold an attempt.
pub fn conflict_receipt_ids(c: &Conflict) -> Vec<ReceiptId> {
    std::iter::once(c.receipt_id)
        .chain(
            c.attempts
                .iter()
                .filter(|a| a.source == AttemptSource::Receipts)
                .map(|a| a.id),
        )
        .collect()
}

pub fn attempt_ref(a: &Attempt) -> PayloadRef {
    match a.source {
        AttemptSource::KeyConflicts => PayloadRef::KeyConflict(a.id),
        AttemptSource::Receipts => PayloadRef::Receipt(a.id),
    }
}

pub fn row_id(snap: &Snapshot, tab: Tab, index: usize) -> Option<String> {
    super::work::items(1);
    let t = &snap.triage;
    Some(match tab {
        Tab::Duplicates => t.duplicates.get(index)?.item(),
        Tab::Conflicts => t.conflicts.get(index)?.item(),
        Tab::Stuck => t.stuck.get(index)?.item(),
        Tab::Bots => t.bot_groups.get(index)?.item(),
        Tab::Damaged => format!("damaged:{}", t.damaged.get(index)?.receipt_id),
        // A search's hits are not the reading's rows.
        Tab::Receipts => return None,
        Tab::Log => format!("log:{}", snap.log.get(index)?.id),
        Tab::Forms => return None,
    })
}

/// The number in a row's id ([`row_id`] without the allocation): the
/// group's first receipt, the receipt, or the log entry. Unique within a tab.
pub fn row_key(snap: &Snapshot, tab: Tab, index: usize) -> Option<i64> {
    super::work::items(1);
    let t = &snap.triage;
    Some(match tab {
        Tab::Duplicates => t.duplicates.get(index)?.members[0].id,
        Tab::Conflicts => t.conflicts.get(index)?.receipt_id,
        Tab::Stuck => t.stuck.get(index)?.receipt_id,
        Tab::Bots => t.bot_groups.get(index)?.receipts[0].id,
        Tab::Damaged => t.damaged.get(index)?.receipt_id,
        Tab::Receipts => return None,
        Tab::Log => snap.log.get(index)?.id,
        Tab::Forms => return None,
    })
}
