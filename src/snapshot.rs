//! One consistent reading of a receipts database: the analysis plus what the
//! review log says about each item. The report, `resolve` and the TUI all work
//! from a snapshot, so they agree on what is pending.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::triage::model::{Millis, Receipt, ReceiptId, Settings, Triage};

/// What the review log says about one item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemReview {
    /// The latest log entry is a decision that still covers every copy.
    pub resolved: bool,
    /// The latest decision (also kept when a new copy made the item pending again).
    pub decision: Option<String>,
    pub operator: Option<String>,
    pub decided_at_ms: Option<Millis>,
    pub note: Option<String>,
    /// A resolved duplicate group that has gained a copy since its decision.
    pub new_copy_since_decision: bool,
    /// The id of the latest review_log entry for this item: a decision is
    /// recorded only if this is still the latest (two operators never overwrite
    /// each other silently).
    pub last_log_id: Option<i64>,
}

/// One review_log entry, as the Log tab shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub id: i64,
    pub item: String,
    pub kind: String,
    pub decision: String,
    pub operator: String,
    pub decided_at_ms: Option<Millis>,
    pub receipt_ids: Vec<ReceiptId>,
    pub note: Option<String>,
    pub reopens: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub database: PathBuf,
    /// Why decisions are off, when they are (read-only file, a view, `--read-only`).
    pub read_only: Option<String>,
    pub settings: Settings,
    /// Receipts that passed inspection, ordered by id.
    pub receipts: Vec<Receipt>,
    /// Retries absorbed by each receipt's key.
    pub replays: HashMap<ReceiptId, u32>,
    pub replay_total: u64,
    pub triage: Triage,
    /// Keyed by item id (`dup:12`); an item absent here is pending.
    pub reviews: HashMap<String, ItemReview>,
    /// The review log in append order.
    pub log: Vec<LogLine>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new(0)
    }
}

impl Snapshot {
    pub fn review(&self, item: &str) -> ItemReview {
        self.reviews.get(item).cloned().unwrap_or_default()
    }

    /// The receipt with this id, if it passed inspection.
    pub fn receipt(&self, id: ReceiptId) -> Option<&Receipt> {
        self.receipts
            .binary_search_by_key(&id, |r| r.id)
            .ok()
            .map(|i| &self.receipts[i])
    }

    pub fn replays_of(&self, id: ReceiptId) -> u32 {
        self.replays.get(&id).copied().unwrap_or(0)
    }
}
