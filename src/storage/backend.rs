//! What the rest of the program asks of a receipts database, whichever
//! engine holds it. The SQLite engine ([`super::sqlite`]) keeps every
//! SQLite-specific part (rowid ranges, `PRAGMA data_version`, `BEGIN
//! IMMEDIATE`, WAL) behind these traits; this file names none of it.
//!
//! - [`Storage`]: the database: what it is, and where reads and writes begin;
//! - [`Session`]: one state of the database, read;
//! - [`ReviewRead`]: what review reads, in a session or a write;
//! - [`WriteTx`]: one short write transaction of a guarded decision.

use std::ops::ControlFlow;

use super::error::{LogError, StorageError};
use super::location::Location;
use super::source::Source;
use super::tally::{Tallies, Tally};
use crate::model::{
    LogEntry, NewEntry, RawConflict, ReceiptId, ReceiptStamp, ReceiptState, RowSink, RowSource,
};

/// A receipts database.
pub trait Storage {
    /// Begins a read of one state of the database, on one connection or on
    /// one per core (the engine decides which it can).
    fn begin_read(&self, connections: Connections) -> Result<Box<dyn Session + '_>, StorageError>;

    /// Begins a write transaction that no other writer can interleave with
    /// (it waits for one in progress, up to the busy timeout). Dropped
    /// without [`WriteTx::commit`], it writes nothing.
    fn begin_write(&mut self) -> Result<Box<dyn WriteTx + '_>, LogError>;

    /// The shape of `receipts` (a table or a view, its columns) and of the
    /// optional `key_conflicts`, `replays` and `absorbed`, as found when it
    /// was opened.
    fn source(&self) -> &Source;

    /// What the user named to open it: a file, or a URL (shown without
    /// its password: [`Location::shown`]).
    fn location(&self) -> &Location;

    /// True when nothing may be written (asked for, or the fallback).
    fn is_read_only(&self) -> bool;

    /// Why it was opened read-only though writing was asked for, for a
    /// banner; `None` when writable or when read-only was asked for.
    fn read_only_reason(&self) -> Option<&str>;

    /// A mark that moves when another connection (the intake, a colleague)
    /// commits: compare successive marks to notice that the database changed.
    /// (This storage's own writes may leave it where it was.)
    fn change_mark(&self) -> Result<ChangeMark, StorageError>;

    /// The stored payload of one receipt, for a detail view; `None` when
    /// there is no such receipt. A payload that is not text is shown as well
    /// as it can be.
    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError>;

    /// The body of a refused attempt (a key conflict row), as text.
    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError>;

    /// After an erasure has committed: makes the erased bytes leave the
    /// database's files (SQLite: the WAL checkpointed into the file and
    /// truncated; PostgreSQL: the erased tables rewritten). What could not
    /// be done now is said, not failed: the erasure itself stands.
    fn scrub(&mut self) -> Result<Scrubbed, StorageError>;

    /// Ways the schema falls short of the contract (what `check` reports);
    /// empty when all is well.
    fn schema_problems(&self) -> Vec<String>;

    /// Why decisions may not change `receipts.state`, when they may not: a
    /// read-only database, or `receipts` is a view over a legacy table.
    fn state_changes_off(&self) -> Option<String> {
        if let Some(reason) = self.read_only_reason() {
            return Some(reason.to_string());
        }
        let lang = crate::i18n::current();
        if self.is_read_only() {
            return Some(crate::t!(lang, "error.storage.reason.opened_read_only").into());
        }
        self.source()
            .is_view()
            .then(|| crate::t!(lang, "check.note.view").to_string())
    }
}

/// How many connections a session may read on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connections {
    /// The database's own connection alone (a reading of a few rows).
    One,
    /// One per core, when the receipts are a table with enough rows.
    EveryCore,
}

/// What a reading asks of one state of a receipts database, whichever
/// engine holds it: everything read through one session is of that state,
/// the review log too.
pub trait Session: ReviewRead {
    /// How many connections read: one [`RowSink`] each.
    fn connections(&self) -> usize;

    /// About how many rows each sink receives when every receipt is read (an
    /// upper bound), for sizing what they hold.
    fn rows_each(&self) -> Option<u64>;

    /// Ends the read.
    fn end(self: Box<Self>) -> Result<(), StorageError>;

    /// Reads the receipts (all, or those a reading that ended at `after`
    /// did not see) into `sinks`, one per connection, without `updated_at`
    /// (no rule reads it), and says where this reading ended. `progress`
    /// receives the rows read so far.
    fn receipts(
        &mut self,
        after: Option<&ReadCursor>,
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<(u64, ReadCursor), StorageError>;

    /// True when receipts have committed below where the reading at
    /// `cursor` ended, which that reading could not see (where ids commit
    /// out of order: a transaction that took id 100 commits after the one
    /// that took 101). Reading on from `cursor` would miss them: read all.
    fn committed_below(&mut self, cursor: &ReadCursor) -> Result<bool, StorageError>;

    /// Reads the receipts with these ids (ascending), every column, into
    /// `sinks`, one per connection, each a share of the ids in order; ids not
    /// there are skipped. `progress` is told the rows read so far.
    fn receipts_by_id(
        &mut self,
        ids: &[ReceiptId],
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, StorageError>;

    /// The receipts with these ids (ascending), every column, held
    /// together, for rules that look at all of them at once.
    fn receipts_held(&mut self, ids: &[ReceiptId]) -> Result<Box<dyn RowSource>, StorageError>;

    /// For each receipt with these ids (ascending) that is there, by id: a
    /// text that changes whenever the columns the intake changes in place
    /// (`state`, `updated_at`) do. Without the payload, so that many rows
    /// cost little: a reader reads whole only those whose text changed.
    fn state_stamps(
        &mut self,
        ids: &[ReceiptId],
    ) -> Result<Vec<(ReceiptId, String)>, StorageError> {
        let rows = self.receipts_held(ids)?;
        let mut buf = String::new();
        Ok((0..rows.len())
            .map(|i| {
                let row = rows.row(i, &mut buf);
                (row.id, format!("{:?} {:?}", row.state, row.updated_at))
            })
            .collect())
    }

    /// The key conflict rows with an id above `after` (all with `None`), by
    /// id, their payloads (which no rule reads) left empty.
    fn conflict_rows(&mut self, after: Option<i64>) -> Result<Vec<RawConflict>, StorageError>;

    /// Brings the counts of one table's rows per receipt (its
    /// [`Tally::table`]) up to date; a table that is absent or unusable
    /// counts none.
    fn tally(&mut self, tally: &mut Tally) -> Result<(), StorageError>;

    /// True when the database holds what a reader read: `count` receipts
    /// with ids summing to `sum` up to `max`, the key conflict rows
    /// `conflicts`, and the rows `tallies` counted.
    fn holds(
        &mut self,
        max: ReceiptId,
        count: usize,
        sum: i128,
        conflicts: &[RawConflict],
        tallies: &Tallies,
    ) -> Result<bool, StorageError>;
}

/// Where a database stood when [`Storage::change_mark`] was asked: equal
/// marks, no change seen. Only the engine knows what its number counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeMark(i64);

impl ChangeMark {
    pub fn new(mark: i64) -> Self {
        Self(mark)
    }
}

/// What [`WriteTx::erase_receipt`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Erasing {
    Erased,
    /// Its payload is a tombstone already.
    AlreadyErased,
    NoSuchReceipt,
}

/// What [`Storage::scrub`] managed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scrubbed {
    /// The old bytes are gone from the database's files.
    Done,
    /// Not now: why (one line), and the erased bytes stay in the files'
    /// free space until a later scrub (the next erasure, or `erase --scrub`).
    NotNow(String),
}

/// Where a reading of the receipts ended: the highest id it read, and,
/// where ids can commit out of order, the ids below it that may still
/// commit (the engine's own). A reading of the rows appended since starts
/// from here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadCursor {
    last: Option<ReceiptId>,
    /// Ids below `last` that were not seen and may still commit, and the
    /// engine's mark of when they can no longer.
    pending: Vec<ReceiptId>,
    horizon: u64,
    /// When the oldest of them was first missed.
    pending_since: Option<std::time::Instant>,
}

impl ReadCursor {
    /// After the receipts up to `last` (none read: `None`), with nothing
    /// pending below it.
    pub fn up_to(last: Option<ReceiptId>) -> Self {
        Self {
            last,
            pending: Vec::new(),
            horizon: 0,
            pending_since: None,
        }
    }

    /// The highest id read.
    pub fn last(&self) -> Option<ReceiptId> {
        self.last
    }

    /// With ids below [`Self::last`] that may still commit, until the
    /// engine's `horizon` passes.
    pub(crate) fn with_pending(
        mut self,
        pending: Vec<ReceiptId>,
        horizon: u64,
        since: Option<std::time::Instant>,
    ) -> Self {
        self.pending_since = since.filter(|_| !pending.is_empty());
        self.pending = pending;
        self.horizon = horizon;
        self
    }

    pub(crate) fn pending_since(&self) -> Option<std::time::Instant> {
        self.pending_since
    }

    pub(crate) fn pending(&self) -> &[ReceiptId] {
        &self.pending
    }

    pub(crate) fn horizon(&self) -> u64 {
        self.horizon
    }
}

/// What review reads: the log (every method copes with there being none
/// yet: nothing was decided) and a receipt's state.
pub trait ReviewRead {
    /// True when the database has a usable review log (an error when it has
    /// one this tool did not make). Never creates it.
    fn log_exists(&mut self) -> Result<bool, LogError>;

    /// Calls `each` with every entry in append order until it breaks;
    /// returns how many it was given.
    fn each_entry(
        &mut self,
        each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
    ) -> Result<usize, LogError>;

    /// The whole log in append order.
    fn read_log(&mut self) -> Result<Vec<LogEntry>, LogError> {
        let mut log = Vec::new();
        self.each_entry(&mut |entry| {
            log.push(entry);
            ControlFlow::Continue(())
        })?;
        Ok(log)
    }

    /// Every entry for one item, in append order.
    fn history(&mut self, item: &str) -> Result<Vec<LogEntry>, LogError>;

    /// The latest entry for one item.
    fn latest_entry(&mut self, item: &str) -> Result<Option<LogEntry>, LogError>;

    /// One entry by id.
    fn entry(&mut self, id: i64) -> Result<Option<LogEntry>, LogError>;

    /// The id of the latest erasure row: an erasure changes payloads in
    /// place, so a reader that saw another one reads everything again.
    fn latest_erasure_id(&mut self) -> Result<Option<i64>, LogError> {
        let mut latest = None;
        self.each_entry(&mut |entry| {
            if entry.kind == crate::model::Kind::Erasure {
                latest = Some(entry.id);
            }
            ControlFlow::Continue(())
        })?;
        Ok(latest)
    }

    /// The rows of one step written at once (a bulk decision, or its undo):
    /// those whose `batch` is `batch`, in append order.
    fn batch_entries(&mut self, batch: i64) -> Result<Vec<LogEntry>, LogError> {
        let mut rows = Vec::new();
        self.each_entry(&mut |entry| {
            if entry.batch == Some(batch) {
                rows.push(entry);
            }
            ControlFlow::Continue(())
        })?;
        Ok(rows)
    }

    /// The id of the newest entry: a cheap way to notice that someone else
    /// has appended since the last look.
    fn latest_log_id(&mut self) -> Result<Option<i64>, LogError>;

    /// The operator's latest decision (not an undo) that is still the latest
    /// entry for its item.
    fn latest_standing_decision_by(&mut self, operator: &str)
    -> Result<Option<LogEntry>, LogError>;

    /// The operator's latest decision (not an undo) with an id above `after`
    /// (any, with `None`) that no entry reopens.
    fn latest_unreopened_decision_by(
        &mut self,
        operator: &str,
        after: Option<i64>,
    ) -> Result<Option<LogEntry>, LogError>;

    /// The receipt's state and `updated_at` (`None` where `receipts` has
    /// none); `None` when there is no such receipt or `receipts` has no state.
    fn receipt_state(&mut self, receipt_id: ReceiptId) -> Result<Option<ReceiptStamp>, LogError>;
}

/// One write transaction: review's logic reads what it depends on and
/// writes, and either all of it happens ([`WriteTx::commit`]) or none.
pub trait WriteTx: ReviewRead {
    /// Creates the review log when absent (with what keeps it append-only),
    /// and checks an existing one.
    fn ensure_log(&mut self) -> Result<(), LogError>;

    /// Appends one entry; gives it back as stored (with its id).
    fn append(&mut self, entry: &NewEntry<'_>) -> Result<LogEntry, LogError>;

    /// Sets the receipt's state to `to` (and its `updated_at`, where
    /// `receipts` has one, to `now`) if it is `in_flight`; false if it is not.
    fn set_state_if_in_flight(
        &mut self,
        receipt_id: ReceiptId,
        to: ReceiptState,
        now: &str,
    ) -> Result<bool, LogError>;

    /// Puts the receipt back `in_flight` (and its `updated_at` to `now`)
    /// only while it holds exactly `state` and `updated_at`; false if not.
    fn revert_state_if(
        &mut self,
        receipt_id: ReceiptId,
        state: &str,
        updated_at: Option<&str>,
        now: &str,
    ) -> Result<bool, LogError>;

    /// Erases a receipt's visitor data: its payload, and the body of every
    /// refused attempt with its key (`key_conflicts`), become `tombstone`;
    /// the freed bytes are overwritten where the engine can (SQLite's
    /// `secure_delete`). A receipt erased already (by another erasure that
    /// committed first) is left as it is.
    fn erase_receipt(
        &mut self,
        receipt_id: ReceiptId,
        tombstone: &str,
    ) -> Result<Erasing, LogError>;

    fn commit(self: Box<Self>) -> Result<(), LogError>;
}
