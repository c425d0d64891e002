//! What the review log says about an item now.

use std::collections::HashMap;

use super::log::read_log;
use crate::model::{Decision, Kind, LogEntry, ReceiptId};
use crate::storage::{LogError, Storage};

/// An item's review status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Never decided, or the last decision was reopened.
    Pending,
    /// Decided, and the decision still covers everything the item holds.
    Resolved {
        decision: Decision,
        operator: String,
        decided_at: String,
        note: Option<String>,
    },
    /// Decided, but the item has since gained receipts the decision did not
    /// cover ("new copy since decision"): pending again.
    PendingNewCopy {
        decision: Decision,
        operator: String,
        decided_at: String,
        note: Option<String>,
        /// The receipt ids the decision did not cover, ascending.
        new_ids: Vec<ReceiptId>,
    },
}

impl Status {
    /// `pending` or `resolved`, as in `report --json`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Resolved { .. } => "resolved",
            Self::Pending | Self::PendingNewCopy { .. } => "pending",
        }
    }

    pub fn is_pending(&self) -> bool {
        !matches!(self, Self::Resolved { .. })
    }

    /// The decision in force (`Resolved`) or the one overtaken by a new copy.
    pub fn decision(&self) -> Option<Decision> {
        match self {
            Self::Pending => None,
            Self::Resolved { decision, .. } | Self::PendingNewCopy { decision, .. } => {
                Some(*decision)
            }
        }
    }

    /// A short label for lists: `pending`, `resolved: duplicate`,
    /// `pending: new copy since decision (duplicate)`.
    pub fn label(&self) -> String {
        match self {
            Self::Pending => "pending".to_string(),
            Self::Resolved { decision, .. } => format!("resolved: {decision}"),
            Self::PendingNewCopy { decision, .. } => {
                format!("pending: new copy since decision ({decision})")
            }
        }
    }
}

/// The status given an item's latest log entry and the receipt ids the item
/// holds now. Pure. A latest entry that is a reopening means pending; a
/// decision that does not cover every current receipt id means a new copy
/// arrived since (this matters for duplicate groups; callers pass the ids they
/// know, and an empty list never makes anything pending).
pub fn status_of(entry: Option<&LogEntry>, current_receipt_ids: &[ReceiptId]) -> Status {
    let Some(entry) = entry else {
        return Status::Pending;
    };
    if entry.is_reopening() {
        return Status::Pending;
    }
    let mut new_ids: Vec<ReceiptId> = current_receipt_ids
        .iter()
        .copied()
        .filter(|id| !entry.receipt_ids.contains(id))
        .collect();
    new_ids.sort_unstable();
    new_ids.dedup();
    let (decision, operator, decided_at, note) = (
        entry.decision,
        entry.operator.clone(),
        entry.decided_at.clone(),
        entry.note.clone(),
    );
    if new_ids.is_empty() {
        Status::Resolved {
            decision,
            operator,
            decided_at,
            note,
        }
    } else {
        Status::PendingNewCopy {
            decision,
            operator,
            decided_at,
            note,
            new_ids,
        }
    }
}

/// An item's place in the log: its latest entry and how many it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemStatus {
    pub latest: LogEntry,
    /// How many log entries the item has (decisions and reopenings).
    pub entries: usize,
}

impl ItemStatus {
    pub fn kind(&self) -> Kind {
        self.latest.kind
    }

    /// See [`status_of`].
    pub fn status(&self, current_receipt_ids: &[ReceiptId]) -> Status {
        status_of(Some(&self.latest), current_receipt_ids)
    }

    /// What to pass as `expected_last` when deciding this item after showing
    /// this status.
    pub fn expected_last(&self) -> Option<i64> {
        Some(self.latest.id)
    }
}

/// The status of an item in a map from [`load_statuses`].
pub fn status_in(
    statuses: &HashMap<String, ItemStatus>,
    item: &str,
    current_receipt_ids: &[ReceiptId],
) -> Status {
    status_of(statuses.get(item).map(|s| &s.latest), current_receipt_ids)
}

/// Every item that has log entries, with its latest entry. Empty when the
/// database has no review log (everything is pending).
pub fn load_statuses(storage: &dyn Storage) -> Result<HashMap<String, ItemStatus>, LogError> {
    Ok(statuses(&read_log(storage)?))
}

/// Every item of `log` (in append order) with its latest entry. Pure.
pub fn statuses(log: &[LogEntry]) -> HashMap<String, ItemStatus> {
    let mut out: HashMap<String, ItemStatus> = HashMap::new();
    for entry in log {
        match out.get_mut(&entry.item) {
            Some(status) => {
                status.latest = entry.clone();
                status.entries += 1;
            }
            None => {
                out.insert(
                    entry.item.clone(),
                    ItemStatus {
                        latest: entry.clone(),
                        entries: 1,
                    },
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(decision: Decision, ids: &[ReceiptId]) -> LogEntry {
        LogEntry {
            id: 1,
            item: "dup:12".into(),
            kind: Kind::Duplicate,
            decision,
            operator: "alice".into(),
            decided_at: "2026-11-29T10:15:30.123Z".into(),
            receipt_ids: ids.to_vec(),
            note: Some("same person".into()),
            reopens: None,
            state_before: None,
            state_after: None,
            updated_at_before: None,
            updated_at_after: None,
            kept: None,
            batch: None,
        }
    }

    #[test]
    fn nothing_logged_is_pending() {
        assert_eq!(status_of(None, &[12, 13]), Status::Pending);
    }

    #[test]
    fn a_decision_covering_everything_resolves() {
        let e = entry(Decision::Duplicate, &[12, 13]);
        let s = status_of(Some(&e), &[13, 12]);
        assert_eq!(s.as_str(), "resolved");
        assert_eq!(s.decision(), Some(Decision::Duplicate));
        assert!(matches!(s, Status::Resolved { ref operator, .. } if operator == "alice"));
        // Losing a member does not reopen.
        assert_eq!(status_of(Some(&e), &[12]).as_str(), "resolved");
    }

    #[test]
    fn a_new_copy_makes_it_pending_again() {
        let e = entry(Decision::Duplicate, &[12, 13]);
        let s = status_of(Some(&e), &[12, 13, 15, 14, 15]);
        assert!(s.is_pending());
        assert_eq!(s.as_str(), "pending");
        match s {
            Status::PendingNewCopy {
                decision, new_ids, ..
            } => {
                assert_eq!(decision, Decision::Duplicate);
                assert_eq!(new_ids, vec![14, 15]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn statuses_keep_each_items_latest_entry_and_how_many_it_has() {
        let first = entry(Decision::Duplicate, &[12, 13]);
        let mut undo = entry(Decision::Reopened, &[12, 13]);
        undo.id = 2;
        undo.reopens = Some(1);
        let mut other = entry(Decision::Spam, &[40]);
        other.id = 3;
        other.item = "dup:40".into();
        let s = statuses(&[first, undo.clone(), other.clone()]);
        assert_eq!(s.len(), 2);
        assert_eq!((s["dup:12"].entries, &s["dup:12"].latest), (2, &undo));
        assert_eq!((s["dup:40"].entries, &s["dup:40"].latest), (1, &other));
        assert!(statuses(&[]).is_empty());
    }

    #[test]
    fn a_reopening_is_pending() {
        let mut e = entry(Decision::Reopened, &[12, 13]);
        e.reopens = Some(1);
        assert_eq!(status_of(Some(&e), &[12, 13]), Status::Pending);
    }
}
