//! What the intake asks of a receipts database, whichever engine holds it:
//! the rows the protocol writes (receipts, replays, key conflicts, absorbed
//! copies) and the few it reads back. The protocol itself (what a claim
//! means, when a key is free again) is `crate::intake`'s; an engine only
//! makes each step atomic and durable.
//!
//! - [`IntakeDatabase`]: an open database the intake writes;
//! - [`IntakeTx`]: one write transaction (a group commit holds many
//!   submissions); dropped without [`IntakeTx::commit`], it writes nothing;
//! - [`IntakeLookups`]: the reads the protocol makes, in a transaction or not.

use std::ops::ControlFlow;

use super::error::Failure;
use super::location::Location;
use crate::model::{Millis, ReceiptId};

/// How a database is opened for the intake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntakeMode {
    /// The intake server: the schema created or brought up to date, every
    /// commit durable before it returns; `receipts` must be a table.
    Serve,
    /// Loading a new database in one go (the demo): nothing is durable
    /// until [`IntakeDatabase::close`].
    Load,
    /// A library user or a test: the schema created when missing, commits
    /// as the engine makes them by default.
    Plain,
}

/// Why the engine could not do a step of the intake. Nothing of the
/// transaction it happened in is committed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct WriteFailure {
    pub failure: Failure,
    /// The engine's message, one line, terminal-safe.
    pub detail: String,
}

impl WriteFailure {
    pub fn other(detail: impl std::fmt::Display) -> Self {
        Self {
            failure: Failure::Other,
            detail: crate::sanitize::inline(detail.to_string().trim(), 200),
        }
    }
}

/// A receipt to insert, its payload already canonical and digested.
#[derive(Clone, Copy, Debug)]
pub struct NewReceipt<'a> {
    pub scope: &'a str,
    pub key: Option<&'a str>,
    pub digest: &'a str,
    pub payload: &'a str,
    pub at_ms: Millis,
}

/// The receipt holding a scope's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyHolder {
    pub id: ReceiptId,
    pub digest: String,
    /// As stored: `in_flight`, `completed`, `failed` (anything else is a
    /// damaged row, which the protocol refuses to act on).
    pub state: String,
    pub response: Option<String>,
    /// When it was last claimed (`updated_at`, else `created_at`); `None`
    /// when neither reads as a time.
    pub claimed_at: Option<Millis>,
}

/// A key that an absorbed copy was sent with: the receipt the copy was
/// absorbed into, and the digest of the body the copy was sent with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbsorbedKey {
    pub id: ReceiptId,
    pub receipt_digest: String,
    pub state: String,
    pub response: Option<String>,
    /// `None` in rows written before copies' digests were recorded: the
    /// receipt's own digest stands in for it.
    pub copy_digest: Option<String>,
}

/// A receipt's state and stored response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiptAnswer {
    pub state: String,
    pub response: Option<String>,
}

/// How a receipt in flight is settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle<'a> {
    /// Completed, with the response to replay.
    Completed(&'a str),
    /// Failed, which frees its key for a retry with the same body.
    Failed,
}

/// A completed receipt as the intake server reads them back at start.
#[derive(Clone, Copy, Debug)]
pub struct StoredReceipt<'a> {
    pub id: ReceiptId,
    pub scope: &'a str,
    pub payload: &'a str,
    /// `None` when its time does not read.
    pub created_ms: Option<Millis>,
}

/// What a batch of submissions will ask of its transaction, told before it
/// starts: an engine on a server reads it all in one go, locks the visitors
/// (in one order) and holds its writes back until the commit.
#[derive(Clone, Debug, Default)]
pub struct BatchPlan<'a> {
    /// The scope and key of each keyed submission.
    pub keys: Vec<(&'a str, &'a str)>,
    /// Each submission's visitor hash that may be absorbed, and since when.
    pub visitors: Vec<(&'a str, u128, Millis)>,
    /// How many receipts the batch may store at most.
    pub receipts: usize,
}

/// The reads the protocol makes: in a transaction they see its own writes.
pub trait IntakeLookups {
    /// The receipt holding `key` in `scope`, as committed (or written in
    /// this transaction).
    fn key_holder(&mut self, scope: &str, key: &str) -> Result<Option<KeyHolder>, WriteFailure>;

    /// The receipt an absorbed copy sent with `key` in `scope` was absorbed
    /// into, unless a receipt holds the key itself.
    fn absorbed_key_holder(
        &mut self,
        scope: &str,
        key: &str,
    ) -> Result<Option<AbsorbedKey>, WriteFailure>;

    /// A receipt's state and response; `None` when there is no such receipt.
    fn receipt_answer(&mut self, id: ReceiptId) -> Result<Option<ReceiptAnswer>, WriteFailure>;
}

/// One write transaction of the intake.
pub trait IntakeTx: IntakeLookups {
    /// Inserts an `in_flight` receipt unless its scope's key is held:
    /// `Some(id)` when inserted, `None` when the key is taken (a concurrent
    /// insert of the same key waits for the first to end).
    fn insert_in_flight(
        &mut self,
        receipt: &NewReceipt<'_>,
    ) -> Result<Option<ReceiptId>, WriteFailure>;

    /// Inserts a `completed` receipt with the response `response(id)`
    /// unless its scope's key is held (`None` then).
    fn insert_completed(
        &mut self,
        receipt: &NewReceipt<'_>,
        response: &dyn Fn(ReceiptId) -> String,
    ) -> Result<Option<(ReceiptId, String)>, WriteFailure>;

    /// Inserts a row as given, whatever it holds (the demo plants damaged
    /// rows this way): completed, keyless, `created_at` as the text given.
    /// `None` when the engine cannot hold such a row (a time column that
    /// takes only times).
    fn insert_raw(
        &mut self,
        scope: &str,
        digest: &str,
        payload: &str,
        created_at: &str,
    ) -> Result<Option<ReceiptId>, WriteFailure>;

    /// `failed` → `in_flight` again; false when it was not failed.
    fn reclaim_failed(&mut self, id: ReceiptId, at_ms: Millis) -> Result<bool, WriteFailure>;

    /// Settles a receipt `in_flight`: `Some(true)` when it was, `Some(false)`
    /// when it was not (nothing changed), `None` when there is no such
    /// receipt.
    fn settle(
        &mut self,
        id: ReceiptId,
        settle: Settle<'_>,
        at_ms: Millis,
    ) -> Result<Option<bool>, WriteFailure>;

    /// A retry answered from the stored receipt (a `replays` row).
    fn record_replay(&mut self, id: ReceiptId, at_ms: Millis) -> Result<(), WriteFailure>;

    /// A refused body sent with a held key (a `key_conflicts` row).
    fn record_conflict(
        &mut self,
        id: ReceiptId,
        digest: &str,
        payload: &str,
        at_ms: Millis,
    ) -> Result<(), WriteFailure>;

    /// An exact copy answered with the original's response (an `absorbed`
    /// row), with the key and digest it came with.
    fn record_absorbed(
        &mut self,
        id: ReceiptId,
        key: Option<&str>,
        digest: Option<&str>,
        at_ms: Millis,
    ) -> Result<(), WriteFailure>;

    /// The receipt stored last in `scope` with the visitor fields whose hash
    /// is `visitor`, at or after `since_ms`, as other processes noted it
    /// ([`Self::note_visitor`]); `None` on an engine with one writer, whose
    /// own memory is complete ([`IntakeDatabase::shares_writes`]).
    fn latest_visitor(
        &mut self,
        scope: &str,
        visitor: u128,
        since_ms: Millis,
    ) -> Result<Option<(ReceiptId, Millis)>, WriteFailure>;

    /// Notes a stored receipt's visitor hash for other processes' exact
    /// copies (nothing on an engine with one writer).
    fn note_visitor(
        &mut self,
        scope: &str,
        visitor: u128,
        id: ReceiptId,
        at_ms: Millis,
    ) -> Result<(), WriteFailure>;

    /// Waits, until this transaction ends, for any other transaction that
    /// holds the same `lock` (a hash of a scope and a visitor's fields):
    /// what two processes check and then write under one lock, only one of
    /// them does at a time. An engine with one writer at a time already
    /// serialises them and may do nothing.
    fn serialize_on(&mut self, lock: i64) -> Result<(), WriteFailure>;

    /// Reads what `plan` will ask in one go, and locks its visitors as
    /// [`Self::serialize_on`] does; an engine whose reads are cheap does
    /// nothing. A write held back that the commit finds cannot be made (a
    /// key another process took meanwhile) fails the commit: the batch is
    /// then done again, one submission at a time.
    fn prefetch(&mut self, _plan: &BatchPlan<'_>) -> Result<(), WriteFailure> {
        Ok(())
    }

    /// Commits; each write is durable when this returns (as the mode says).
    fn commit(self: Box<Self>) -> Result<(), WriteFailure>;
}

/// A receipts database opened for the intake.
pub trait IntakeDatabase: IntakeLookups + Send {
    /// Begins a write transaction.
    fn begin(&mut self) -> Result<Box<dyn IntakeTx + '_>, WriteFailure>;

    /// The completed receipts, newest first, until `each` breaks: what the
    /// server remembers of recent receipts at start.
    fn newest_completed(
        &mut self,
        each: &mut dyn FnMut(StoredReceipt<'_>) -> ControlFlow<()>,
    ) -> Result<(), WriteFailure>;

    /// True when other processes may write the same database at once
    /// (PostgreSQL): exact copies are then looked for in the database too.
    fn shares_writes(&self) -> bool;

    /// Forgets the visitor hashes noted before `before_ms` (their windows
    /// have ended).
    fn forget_visitors_before(&mut self, before_ms: Millis) -> Result<(), WriteFailure>;

    /// Where it is.
    fn location(&self) -> &Location;

    /// Ends a [`IntakeMode::Load`]: makes what was written durable and the
    /// database ready for everyday use. Other modes just close.
    fn close(self: Box<Self>) -> Result<(), WriteFailure>;
}

/// Why a database could not be opened for the intake, one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// Unusable as given (no such folder, a view for `receipts`, an
    /// existing database where a new one was wanted, a wrong password):
    /// the command exits 2.
    #[error("{0}")]
    Refused(String),
    /// The engine failed while opening.
    #[error("{0}")]
    Failed(String),
}
