//! One consistent reading of a receipts database: the analysis plus what the
//! review log says about each item. The report, `resolve` and the TUI all work
//! from a snapshot, so they agree on what is pending.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;

use crate::review::{self, Kind, LogEntry, Status};
use crate::storage::{self, Database};
use crate::triage::{
    self,
    model::{Millis, Receipt, ReceiptId, Settings, Triage},
};

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
    /// Why decisions are off, when they are (read-only file or folder, `--read-only`).
    pub read_only: Option<String>,
    /// Why decisions may not change `receipts.state` (read-only, or `receipts` is a view).
    pub state_changes_off: Option<String>,
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

/// How far a [`read`] has got, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub stage: &'static str,
    pub done: u64,
    pub total: Option<u64>,
}

/// Reads and analyses the database, and joins in the review log.
pub fn read(
    db: &Database,
    settings: Settings,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<Snapshot> {
    progress(Progress {
        stage: "reading receipts",
        done: 0,
        total: None,
    });
    let loaded = storage::load(db)?;
    let rows = loaded.receipts.len() as u64;
    progress(Progress {
        stage: "analysing",
        done: 0,
        total: Some(rows),
    });
    let analysis = triage::analyze(&loaded.receipts, &loaded.conflicts, &settings);
    drop(loaded.receipts);
    progress(Progress {
        stage: "reading the review log",
        done: rows,
        total: Some(rows),
    });
    let statuses = review::load_statuses(db.conn()).context("reading review_log")?;
    let log = review::read_log(db.conn()).context("reading review_log")?;
    let mut reviews = HashMap::new();
    let t = &analysis.triage;
    let items = t
        .duplicates
        .iter()
        .map(|g| (g.item(), g.receipt_ids()))
        .chain(t.conflicts.iter().map(|c| (c.item(), vec![c.receipt_id])))
        .chain(t.stuck.iter().map(|s| (s.item(), vec![s.receipt_id])));
    for (item, ids) in items {
        if let Some(status) = statuses.get(&item) {
            reviews.insert(item, item_review(&status.latest, status.status(&ids)));
        }
    }
    Ok(Snapshot {
        database: db.path().to_path_buf(),
        read_only: db
            .read_only_reason()
            .map(str::to_string)
            .or_else(|| db.is_read_only().then(|| "opened read-only".to_string())),
        state_changes_off: db.state_changes_off(),
        settings,
        receipts: analysis.receipts,
        replays: loaded.replays,
        replay_total: loaded.replay_total,
        triage: analysis.triage,
        reviews,
        log: log.iter().map(log_line).collect(),
    })
}

fn item_review(latest: &LogEntry, status: Status) -> ItemReview {
    let last_log_id = Some(latest.id);
    match status {
        Status::Pending => ItemReview {
            last_log_id,
            ..ItemReview::default()
        },
        Status::Resolved {
            decision,
            operator,
            decided_at,
            note,
        } => ItemReview {
            resolved: true,
            decision: Some(decision.as_str().to_string()),
            operator: Some(operator),
            decided_at_ms: crate::time::parse_text(&decided_at).ok(),
            note,
            new_copy_since_decision: false,
            last_log_id,
        },
        Status::PendingNewCopy {
            decision,
            operator,
            decided_at,
            note,
            ..
        } => ItemReview {
            resolved: false,
            decision: Some(decision.as_str().to_string()),
            operator: Some(operator),
            decided_at_ms: crate::time::parse_text(&decided_at).ok(),
            note,
            new_copy_since_decision: true,
            last_log_id,
        },
    }
}

fn log_line(e: &LogEntry) -> LogLine {
    LogLine {
        id: e.id,
        item: e.item.clone(),
        kind: e.kind.as_str().to_string(),
        decision: e.decision.as_str().to_string(),
        operator: e.operator.clone(),
        decided_at_ms: e.decided_ms(),
        receipt_ids: e.receipt_ids.clone(),
        note: e.note.clone(),
        reopens: e.reopens,
    }
}

/// An item of the current analysis that a decision can be recorded on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: Kind,
    pub receipt_ids: Vec<ReceiptId>,
}

/// Finds `dup:12`, `conflict:40` or `stuck:77` in the snapshot.
pub fn find_item(snap: &Snapshot, item: &str) -> Option<Target> {
    let (kind, id) = review::parse_item(item).ok()?;
    let t = &snap.triage;
    let receipt_ids = match kind {
        Kind::Duplicate => t
            .duplicates
            .iter()
            .find(|g| g.members[0].id == id)?
            .receipt_ids(),
        Kind::Conflict => vec![t.conflicts.iter().find(|c| c.receipt_id == id)?.receipt_id],
        Kind::Stuck => vec![t.stuck.iter().find(|s| s.receipt_id == id)?.receipt_id],
    };
    Some(Target { kind, receipt_ids })
}
