//! The facts the triage engine works on, and what it finds.
//!
//! These types are the contract between storage (which reads rows), the engine
//! (pure functions, no I/O) and everything that shows a result (report, TUI).
//! Times are unix milliseconds, UTC, everywhere inside the program.

use serde::Serialize;
use std::sync::Arc;

pub type ReceiptId = i64;
/// Unix time in milliseconds, UTC.
pub type Millis = i64;

/// A value of a time column exactly as SQLite handed it over.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    /// A BLOB or anything else that cannot be a time.
    Other(String),
}

/// One row of `receipts` as read, before it is checked. Optional columns that
/// the source lacks are already filled with the SPEC defaults, except `digest`,
/// which is `None` when the source has no digest column (it is then computed).
#[derive(Clone, Debug, PartialEq)]
pub struct RawReceipt {
    pub id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    pub digest: Option<String>,
    /// `Err` holds a description when the stored payload is not text (e.g. a BLOB
    /// that is not UTF-8): such a row is damaged, never dropped.
    pub payload: Result<String, String>,
    pub state: String,
    pub created_at: TimeValue,
    pub updated_at: TimeValue,
}

impl TimeValue {
    pub fn as_ref(&self) -> TimeRef<'_> {
        match self {
            Self::Null => TimeRef::Null,
            Self::Integer(n) => TimeRef::Integer(*n),
            Self::Real(x) => TimeRef::Real(*x),
            Self::Text(t) => TimeRef::Text(t),
            Self::Other(what) => TimeRef::Other(what),
        }
    }
}

/// A value of a time column, borrowed from wherever the row is held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    /// A BLOB or anything else that cannot be a time: its description.
    Other(&'a str),
}

/// One row of `receipts` as read, borrowed: what [`crate::triage::inspect`]
/// checks. The streaming reader hands these out without copying each value
/// into its own allocation; [`RawReceipt::row`] gives one for an owned row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row<'a> {
    pub id: ReceiptId,
    pub scope: &'a str,
    pub request_key: Option<&'a str>,
    pub digest: Option<&'a str>,
    /// `Err` holds why the stored payload is not text.
    pub payload: Result<&'a str, &'a str>,
    pub state: &'a str,
    pub created_at: TimeRef<'a>,
    pub updated_at: TimeRef<'a>,
}

impl RawReceipt {
    pub fn row(&self) -> Row<'_> {
        Row {
            id: self.id,
            scope: &self.scope,
            request_key: self.request_key.as_deref(),
            digest: self.digest.as_deref(),
            payload: self.payload.as_deref().map_err(String::as_str),
            state: &self.state,
            created_at: self.created_at.as_ref(),
            updated_at: self.updated_at.as_ref(),
        }
    }
}

/// One row of `key_conflicts`: a later attempt with the same key and another body.
#[derive(Clone, Debug, PartialEq)]
pub struct RawConflict {
    pub id: i64,
    pub receipt_id: ReceiptId,
    pub digest: String,
    pub payload: String,
    pub received_at: TimeValue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptState {
    InFlight,
    Completed,
    Failed,
}

impl ReceiptState {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "in_flight" => Some(Self::InFlight),
            "completed" => Some(Self::Completed),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::InFlight => "in_flight",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }
}

/// The visitor-typed fields of a payload after normalisation: sorted by key,
/// noise fields removed, values NFKC + trimmed + white space folded + case
/// folded, empty values and nulls absent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VisitorFields(pub Vec<(String, String)>);

/// A receipt that passed inspection: the compact facts the engine needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Receipt {
    pub id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    /// SHA-256 hex of the canonical payload (stored, and verified).
    pub digest: String,
    pub state: ReceiptState,
    pub created_ms: Millis,
    pub updated_ms: Option<Millis>,
    pub visitor: VisitorFields,
    /// A honeypot field (`_gotcha`, `bot-field`, `honeypot`, `hp`) was filled in.
    pub honeypot_filled: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DamageReason {
    Payload,
    Time,
    Digest,
    State,
}

impl DamageReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Payload => "payload",
            Self::Time => "time",
            Self::Digest => "digest",
            Self::State => "state",
        }
    }
}

/// A row that could not be analysed. It is listed, never silently skipped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Damaged {
    pub receipt_id: ReceiptId,
    pub reason: DamageReason,
    pub detail: String,
}

/// Options of the analysis (`--window`, `--stuck-after`, `--ignore-field`, `--now`).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub window_ms: Millis,
    pub stuck_after_ms: Millis,
    /// Extra payload keys to leave out of the visitor fingerprint.
    pub ignore_fields: Vec<String>,
    pub now_ms: Millis,
}

impl Settings {
    pub const DEFAULT_WINDOW_MS: Millis = 10 * 60 * 1000;
    pub const DEFAULT_STUCK_AFTER_MS: Millis = 5 * 60 * 1000;

    pub fn new(now_ms: Millis) -> Self {
        Self {
            window_ms: Self::DEFAULT_WINDOW_MS,
            stuck_after_ms: Self::DEFAULT_STUCK_AFTER_MS,
            ignore_fields: Vec::new(),
            now_ms,
        }
    }
}

/// The time gap class of a duplicate group (the class of its largest gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapClass {
    /// Under 1 s: two handlers, or a bot.
    Simultaneous,
    /// 1 s to under 60 s: a second click or a retry.
    Seconds,
    /// 60 s up to the window: a reload or the back button.
    Minutes,
}

impl GapClass {
    pub fn of_gap(gap_ms: Millis) -> Self {
        if gap_ms < 1_000 {
            Self::Simultaneous
        } else if gap_ms < 60_000 {
            Self::Seconds
        } else {
            Self::Minutes
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Simultaneous => "simultaneous",
            Self::Seconds => "seconds",
            Self::Minutes => "minutes",
        }
    }

    pub const ALL: [GapClass; 3] = [Self::Simultaneous, Self::Seconds, Self::Minutes];
}

/// Why a copy belongs to its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// Same visitor fingerprint as the group's earliest copy (the earliest copy itself too).
    Exact,
    /// Its non-empty visitor fields are a strict subset of the earliest copy's, or
    /// the other way round, with equal values.
    Partial,
    /// Same fields, all equal but one free-text field that differs by a few words.
    Edited,
}

impl MatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Partial => "partial",
            Self::Edited => "edited",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Member {
    pub id: ReceiptId,
    #[serde(rename = "match")]
    pub match_kind: MatchKind,
    /// For a near member: which fields made it near (the missing fields of a
    /// partial copy, the edited field of an edited copy).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
}

/// Copies of one submission, earliest first.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicateGroup {
    pub scope: String,
    pub class: GapClass,
    /// Earliest first; `members[0]` is the copy to answer.
    pub members: Vec<Member>,
    /// `gaps_ms[i]` is the gap between `members[i]` and `members[i + 1]`.
    pub gaps_ms: Vec<Millis>,
}

impl DuplicateGroup {
    /// The stable item id: `dup:<earliest receipt id>`.
    pub fn item(&self) -> String {
        format!("dup:{}", self.members[0].id)
    }

    pub fn receipt_ids(&self) -> Vec<ReceiptId> {
        self.members.iter().map(|m| m.id).collect()
    }

    /// True when every member is an exact copy.
    pub fn is_exact(&self) -> bool {
        self.members
            .iter()
            .all(|m| m.match_kind == MatchKind::Exact)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptSource {
    KeyConflicts,
    Receipts,
}

/// One refused (or legacy, duplicated) attempt at a key that already had a receipt.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub source: AttemptSource,
    /// `key_conflicts.id` or `receipts.id`, depending on `source`.
    pub id: i64,
    #[serde(skip)]
    pub at_ms: Option<Millis>,
    #[serde(skip)]
    pub digest: String,
}

/// The same scope and key arrived with a different body; the original is kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub request_key: String,
    /// In arrival order.
    pub attempts: Vec<Attempt>,
}

impl Conflict {
    pub fn item(&self) -> String {
        format!("conflict:{}", self.receipt_id)
    }
}

/// An `in_flight` receipt older than `stuck_after` as of `now`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    pub age_ms: Millis,
}

impl Stuck {
    pub fn item(&self) -> String {
        format!("stuck:{}", self.receipt_id)
    }
}

/// Everything the engine found, each list in a stable order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Triage {
    /// Ordered by earliest copy time, then id. Each group is shared, so that
    /// a reading made while the screen holds the last one copies only the
    /// pointers and the groups that changed.
    pub duplicates: Vec<Arc<DuplicateGroup>>,
    /// Ordered by original receipt id; shared one by one as the groups.
    pub conflicts: Vec<Arc<Conflict>>,
    /// Ordered by receipt id.
    pub stuck: Vec<Stuck>,
    /// Receipt ids, ascending.
    pub suspected_bots: Vec<ReceiptId>,
    /// Ordered by receipt id.
    pub damaged: Vec<Damaged>,
}
