//! The review log's row as stored, and the stored names of item kinds and
//! decisions: what storage writes and reads back. Which decision fits which
//! kind, and what a decision means, is review's (`crate::review::decision`).

use serde::Serialize;

use super::ReceiptId;

/// The columns of a review log row, in export order (the field order of
/// [`LogEntry`]). `kept` and `batch` came later: a log made before them is
/// given them by the first write (see `storage::log_upgrade`).
pub const LOG_COLUMNS: [&str; 15] = [
    "id",
    "item",
    "kind",
    "decision",
    "operator",
    "decided_at",
    "receipt_ids",
    "note",
    "reopens",
    "state_before",
    "state_after",
    "updated_at_before",
    "updated_at_after",
    "kept",
    "batch",
];

/// What an item is. Stored in `review_log.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A group of near-duplicate receipts (`dup:<earliest receipt id>`).
    Duplicate,
    /// The same key arrived with another body (`conflict:<original receipt id>`).
    Conflict,
    /// An `in_flight` receipt whose outcome is unknown (`stuck:<receipt id>`).
    Stuck,
    /// A group of suspected bot receipts (`bot:<earliest receipt id>`).
    Bot,
    /// Receipts whose visitor data was erased (`erase:<smallest receipt
    /// id>`): a row of the audit, not an item anyone decides.
    Erasure,
}

impl Kind {
    /// The kinds of items operators decide.
    pub const ALL: [Kind; 4] = [Self::Duplicate, Self::Conflict, Self::Stuck, Self::Bot];

    /// Every kind a review-log row may have.
    pub const STORED: [Kind; 5] = [
        Self::Duplicate,
        Self::Conflict,
        Self::Stuck,
        Self::Bot,
        Self::Erasure,
    ];

    /// The stored name: `duplicate`, `conflict`, `stuck`, `bot`, `erasure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Duplicate => "duplicate",
            Self::Conflict => "conflict",
            Self::Stuck => "stuck",
            Self::Bot => "bot",
            Self::Erasure => "erasure",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::STORED.into_iter().find(|k| k.as_str() == text)
    }
}

/// A decision, as stored in `review_log.decision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Duplicate group: the copies are one submission; one (`kept`) is the one to answer.
    Duplicate,
    /// Duplicate group: a later copy corrects the earlier one and supersedes it.
    Correction,
    /// Duplicate group: the copies are genuinely different messages.
    Distinct,
    /// Duplicate group or bot group: junk.
    Spam,
    /// Bot group: people wrote these after all.
    NotSpam,
    /// Conflict: the original body stands; nothing to do.
    OriginalStands,
    /// Conflict: the changed body needs a follow-up with the sender.
    FollowUp,
    /// Stuck receipt: checked, the work was done (`receipts.state` becomes `completed`).
    Completed,
    /// Stuck receipt: checked, the work was not done (`failed`, which releases the key).
    Failed,
    /// Stuck receipt: checked, still undetermined; the receipt is left alone.
    StillPending,
    /// An undo: the entry named by `reopens` no longer stands; the item is pending.
    Reopened,
    /// An erasure: the receipts' visitor data is gone (never undone).
    Erased,
}

impl Decision {
    pub const ALL: [Decision; 12] = [
        Self::Duplicate,
        Self::Correction,
        Self::Distinct,
        Self::Spam,
        Self::NotSpam,
        Self::OriginalStands,
        Self::FollowUp,
        Self::Completed,
        Self::Failed,
        Self::StillPending,
        Self::Reopened,
        Self::Erased,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Duplicate => "duplicate",
            Self::Correction => "correction",
            Self::Distinct => "distinct",
            Self::Spam => "spam",
            Self::NotSpam => "not_spam",
            Self::OriginalStands => "original_stands",
            Self::FollowUp => "follow_up",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::StillPending => "still_pending",
            Self::Reopened => "reopened",
            Self::Erased => "erased",
        }
    }

    /// Exactly the stored names; nothing else.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == text)
    }

    pub fn is_reopening(self) -> bool {
        self == Self::Reopened
    }
}

/// One row of the review log, exactly as stored. Serialises (field order =
/// export column order) to the JSONL export line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// Append order.
    pub id: i64,
    pub item: String,
    pub kind: Kind,
    pub decision: Decision,
    pub operator: String,
    /// RFC 3339 UTC with milliseconds, as stored.
    pub decided_at: String,
    /// Ascending.
    pub receipt_ids: Vec<ReceiptId>,
    pub note: Option<String>,
    /// For a `reopened` row: the row it reopens.
    pub reopens: Option<i64>,
    /// Set when this row changed `receipts.state`: the state it found...
    pub state_before: Option<String>,
    /// ...and the state it wrote.
    pub state_after: Option<String>,
    /// The receipt's `updated_at` it found (as text; `None` for NULL)...
    pub updated_at_before: Option<String>,
    /// ...and the `updated_at` it wrote.
    pub updated_at_after: Option<String>,
    /// For a `duplicate` or `correction`: the receipt kept as the one to
    /// answer (`None` for every other decision, and for rows written before
    /// the log had the column).
    pub kept: Option<ReceiptId>,
    /// For a row written with others as one step (a bulk decision, or the
    /// undo of one): the id of the step's first row. `None` for a row
    /// written on its own.
    pub batch: Option<i64>,
}

impl LogEntry {
    /// True for an undo row.
    pub fn is_reopening(&self) -> bool {
        self.decision.is_reopening()
    }

    /// True when this row changed a receipt's state.
    pub fn changed_state(&self) -> bool {
        self.state_after.is_some()
    }
}

/// A row to append: a [`LogEntry`] before storage gives it its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewEntry<'a> {
    pub item: &'a str,
    pub kind: Kind,
    pub decision: Decision,
    pub operator: &'a str,
    pub decided_at: &'a str,
    /// Ascending, without repeats.
    pub receipt_ids: &'a [ReceiptId],
    pub note: Option<&'a str>,
    pub reopens: Option<i64>,
    /// When the row changed a receipt's state: what it found and wrote.
    pub state: Option<&'a StateWritten>,
    /// The receipt a `duplicate` or `correction` keeps.
    pub kept: Option<ReceiptId>,
    /// Its place in a step of several rows, if it is in one.
    pub batch: Option<BatchRow>,
}

/// Where a row stands in a step written as several rows at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchRow {
    /// The step's first row: its `batch` is its own id.
    First,
    /// A later row of the step whose first row has this id.
    Of(i64),
}

/// A change of `receipts.state` (and `updated_at`) that a log row records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateWritten {
    pub before: String,
    pub after: String,
    pub updated_before: Option<String>,
    pub updated_after: Option<String>,
}

/// A receipt's `state` and `updated_at` as stored, as text (`None` for NULL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiptStamp {
    pub state: Option<String>,
    pub updated_at: Option<String>,
}
