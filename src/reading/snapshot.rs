//! A reading of a receipts database as everything else sees it: the
//! analysis plus what the review log says about each item. The report,
//! `resolve` and the screen all work from a snapshot, so they agree on what
//! is pending.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context;
use rayon::prelude::*;

use super::receipts::{Receipts, View};
use crate::model::{Millis, ReceiptId, Settings};
use crate::review::{self, Kind, LogEntry, Status};
use crate::storage::{Session, Storage};
use crate::triage::activity::Activity;
use crate::triage::model::{AttemptSource, DuplicateGroup, Receipt, Triage};

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
    /// The copy the latest decision keeps (a `duplicate` or `correction`).
    pub kept: Option<ReceiptId>,
}

impl ItemReview {
    /// A decision stands that needs no more work. A stuck receipt marked
    /// `still_pending` was looked at, but its outcome is still unknown: it
    /// stays pending, on the screen and in the report alike.
    pub fn is_settled(&self) -> bool {
        self.resolved
            && self.decision.as_deref() != Some(crate::model::Decision::StillPending.as_str())
    }
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
    /// The copy a `duplicate` or `correction` keeps.
    pub kept: Option<ReceiptId>,
    /// The step it was written in, with others (its first row's id).
    pub batch: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub database: crate::storage::Location,
    /// Why decisions are off, when they are (read-only file or folder, `--read-only`).
    pub read_only: Option<String>,
    /// Why decisions may not change `receipts.state` (read-only, or `receipts` is a view).
    pub state_changes_off: Option<String>,
    pub settings: Settings,
    /// Receipts that passed inspection.
    pub receipt_count: usize,
    /// The receipts the items show (members of duplicate groups, conflict
    /// originals, stuck receipts), compact and shared between readings;
    /// empty from [`super::read`], which serves reports, and filled by
    /// [`super::Reader::fill_receipts`].
    pub receipts: Receipts,
    /// True while the receipts the items show are still being read (the
    /// analysis is handed to the screen first): what is said of their texts,
    /// such as which items a text filter matches, is not yet the whole answer.
    pub receipts_pending: bool,
    /// Retries answered by each receipt's key (`replays`).
    pub replays: HashMap<ReceiptId, u32>,
    pub replay_total: u64,
    /// Exact copies of each receipt that the intake server answered with its
    /// response and never stored (`absorbed`).
    pub absorbed: HashMap<ReceiptId, u32>,
    /// All absorbed copies; `None` when the database has no usable
    /// `absorbed` table (nothing is said of them then, not "0").
    pub absorbed_total: Option<u64>,
    /// Shared with the screen's reader, which keeps it for the next reading.
    pub triage: Arc<Triage>,
    /// Keyed by item id (`dup:12`); an item absent here is pending.
    pub reviews: HashMap<String, ItemReview>,
    /// When receipts arrived per scope, and the facts of the items' copies
    /// the per-form view needs (see [`crate::triage::activity`]).
    pub activity: Arc<Activity>,
    /// The review log in append order.
    pub log: Vec<LogLine>,
    /// The latest erasure row of the log: a screen that held an earlier
    /// reading lets go of what it read of the erased receipts.
    pub latest_erasure: Option<i64>,
    /// Receipts whose visitor data was erased (counted in `receipt_count`).
    pub erased_receipts: usize,
}

impl Snapshot {
    pub fn review(&self, item: &str) -> ItemReview {
        self.reviews.get(item).cloned().unwrap_or_default()
    }

    /// The receipt with this id, if it passed inspection and an item shows
    /// it (made whole for the caller: ask for the few that are drawn), with
    /// an empty `digest` (see [`Receipts`]).
    pub fn receipt(&self, id: ReceiptId) -> Option<Receipt> {
        self.receipts.get(id)
    }

    /// The receipt with this id in its compact form, without copying it.
    pub fn receipt_view(&self, id: ReceiptId) -> Option<View<'_>> {
        self.receipts.view(id)
    }

    pub fn replays_of(&self, id: ReceiptId) -> u32 {
        self.replays.get(&id).copied().unwrap_or(0)
    }

    /// The exact copies of this receipt the intake absorbed; `None` when the
    /// database does not count them.
    pub fn absorbed_of(&self, id: ReceiptId) -> Option<u32> {
        self.absorbed_total
            .map(|_| self.absorbed.get(&id).copied().unwrap_or(0))
    }

    /// A group's copies as the choice of the one to keep sees them (see
    /// [`review::keep`]), earliest first; `None` while a copy's receipt is
    /// not read yet (the items' receipts follow the analysis).
    pub fn keep_candidates(&self, g: &DuplicateGroup) -> Option<Vec<review::keep::Candidate>> {
        g.members
            .iter()
            .map(|m| {
                let r = self.receipt_view(m.id)?;
                Some(review::keep::Candidate {
                    id: m.id,
                    filled: r.fields().count(),
                })
            })
            .collect()
    }
}

/// The snapshot of an analysis: the review log joined in, read in the
/// session's state of the database.
pub(super) fn assemble(
    db: &dyn Storage,
    session: &mut dyn Session,
    settings: Settings,
    receipt_count: usize,
    triage: Arc<Triage>,
) -> anyhow::Result<Snapshot> {
    let log = session
        .read_log()
        .context(crate::t!(crate::i18n::current(), "error.log.reading"))?;
    Ok(assemble_with_log(db, &log, settings, receipt_count, triage))
}

/// [`assemble`], the review log already read.
pub(super) fn assemble_with_log(
    db: &dyn Storage,
    log: &[LogEntry],
    settings: Settings,
    receipt_count: usize,
    triage: Arc<Triage>,
) -> Snapshot {
    let statuses = review::statuses(log);
    let mut reviews = HashMap::new();
    let t = &triage;
    // Most items have no log entry: only those whose id one names are
    // written out, into one buffer, and their receipts listed.
    let mut named: Vec<ReceiptId> = statuses
        .keys()
        .filter_map(|k| review::parse_item(k).ok())
        .map(|(_, id)| id)
        .collect();
    named.sort_unstable();
    named.dedup();
    let mut item = String::new();
    let mut review = |prefix: &str, id: ReceiptId, ids: &dyn Fn() -> Vec<ReceiptId>| {
        use std::fmt::Write;
        if named.binary_search(&id).is_err() {
            return;
        }
        item.clear();
        let _ = write!(item, "{prefix}:{id}");
        if let Some(status) = statuses.get(&item) {
            reviews.insert(
                item.clone(),
                item_review(&status.latest, status.status(&ids())),
            );
        }
    };
    // With no log (or none yet) there is nothing to join: a reading has many items.
    if !statuses.is_empty() {
        for g in &t.duplicates {
            review("dup", g.members[0].id, &|| g.receipt_ids());
        }
        for c in &t.conflicts {
            review("conflict", c.receipt_id, &|| vec![c.receipt_id]);
        }
        for s in &t.stuck {
            review("stuck", s.receipt_id, &|| vec![s.receipt_id]);
        }
        for g in &t.bot_groups {
            review("bot", g.receipts[0].id, &|| g.receipt_ids());
        }
    }
    Snapshot {
        database: db.location().clone(),
        read_only: db.read_only_reason().map(str::to_string).or_else(|| {
            db.is_read_only().then(|| {
                crate::t!(
                    crate::i18n::current(),
                    "error.storage.reason.opened_read_only"
                )
                .to_string()
            })
        }),
        state_changes_off: db.state_changes_off(),
        settings,
        receipt_count,
        receipts: Receipts::default(),
        receipts_pending: false,
        replays: HashMap::new(),
        replay_total: 0,
        absorbed: HashMap::new(),
        absorbed_total: None,
        triage,
        reviews,
        activity: Arc::default(),
        log: log.iter().map(log_line).collect(),
        latest_erasure: log
            .iter()
            .filter(|e| e.kind == Kind::Erasure)
            .map(|e| e.id)
            .max(),
        erased_receipts: 0,
    }
}

/// The ids of the receipts the items show, ascending: members of duplicate
/// groups, conflict originals (and receipts holding an attempt), stuck
/// receipts, the receipts of bot groups.
pub fn shown_ids(t: &Triage) -> Vec<ReceiptId> {
    let ids = t
        .duplicates
        .iter()
        .flat_map(|g| g.members.iter().map(|m| m.id))
        .chain(t.conflicts.iter().flat_map(|c| {
            std::iter::once(c.receipt_id).chain(
                c.attempts
                    .iter()
                    .filter(|a| a.source == AttemptSource::Receipts)
                    .map(|a| a.id),
            )
        }))
        .chain(t.stuck.iter().map(|s| s.receipt_id));
    let mut out: Vec<ReceiptId> = ids.collect();
    out.par_sort_unstable();
    out.dedup();
    out
}

fn item_review(latest: &LogEntry, status: Status) -> ItemReview {
    let last_log_id = Some(latest.id);
    let kept = latest.kept;
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
            decided_at_ms: crate::model::time::parse_text(&decided_at).ok(),
            note,
            new_copy_since_decision: false,
            last_log_id,
            kept,
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
            decided_at_ms: crate::model::time::parse_text(&decided_at).ok(),
            note,
            new_copy_since_decision: true,
            last_log_id,
            kept,
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
        kept: e.kept,
        batch: e.batch,
    }
}

/// An item of the current analysis that a decision can be recorded on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: Kind,
    pub receipt_ids: Vec<ReceiptId>,
}

/// Finds `dup:12`, `conflict:40`, `stuck:77` or `bot:91` in the snapshot.
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
        Kind::Bot => t
            .bot_groups
            .iter()
            .find(|g| g.receipts[0].id == id)?
            .receipt_ids(),
        // An erasure is no item of the analysis.
        Kind::Erasure => return None,
    };
    Some(Target { kind, receipt_ids })
}
