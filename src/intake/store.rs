//! The intake store: receipts that survive the process, safe across
//! connections and processes, on any engine behind [`IntakeDatabase`].
//!
//! - A submission is claimed with one atomic insert that does nothing when the
//!   scope's key is held (`INSERT ... ON CONFLICT(scope, request_key) DO
//!   NOTHING`) and, when it inserted nothing, a read-back of the holder, in the
//!   same short transaction. Never a replace (it deletes the original), never
//!   select-then-insert (two connections could both see nothing).
//! - New key: an `in_flight` receipt (digest = SHA-256 of the canonical payload, payload = the
//!   canonical text). Same key and digest: a replay, recorded in `replays`, the stored id and
//!   response returned. Same key, other digest: a conflict, refused; the original is kept and the
//!   attempt recorded in `key_conflicts`. Keyless (NULL key) submissions always insert.
//! - [`IntakeStore::complete`] and [`IntakeStore::fail`] move a receipt out of `in_flight`,
//!   guarded by `WHERE state = 'in_flight'`. A `failed` receipt releases its key: the same key
//!   and body claim it again (a guarded update) and the action runs again.
//! - "Not found" from [`IntakeStore::lookup`] means "not committed (yet)", never "failed": the
//!   original may still be running in another connection.
//!
//! All times are passed in (`at_ms`), so a simulated clock (the demo) writes the same rows.
//! See `docs/intake-protocol.md` for the protocol's table of answers.

use std::path::Path;

use serde_json::{Map, Value};

use super::canonical::{CanonicalError, canonical, sha256_hex};
use super::key::{KeyError, valid_key};
use crate::i18n::Lang;
use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::storage::Location;
use crate::storage::intake::{
    IntakeDatabase, IntakeMode, IntakeTx, NewReceipt, OpenError, Settle, WriteFailure,
};
use crate::t;

/// Why the store refused or could not do something. `Display` is in the
/// language of the messages ([`crate::i18n::current`]); [`StoreError::message`]
/// in any.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    Key(#[from] KeyError),
    EmptyScope,
    Payload(#[from] CanonicalError),
    /// The key was used before with another body. The original receipt is kept and this
    /// attempt is recorded in `key_conflicts`.
    Conflict {
        receipt_id: ReceiptId,
        scope: String,
        key: String,
    },
    NoSuchReceipt(ReceiptId),
    BadState {
        id: ReceiptId,
        state: String,
    },
    /// The database failed; nothing of the transaction was committed.
    Database(#[from] WriteFailure),
    /// The database could not be opened.
    Open(#[from] OpenError),
}

impl StoreError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Key(e) => t!(lang, "error.intake.invalid_key", error = e.message(lang)),
            Self::EmptyScope => t!(lang, "error.intake.empty_scope").to_string(),
            Self::Payload(e) => t!(
                lang,
                "error.intake.payload_not_canonical",
                error = e.message(lang)
            ),
            Self::Conflict {
                receipt_id,
                scope,
                key,
            } => t!(
                lang,
                "error.intake.key_conflict",
                key = format!("{key:?}"),
                scope = format!("{scope:?}"),
                receipt_id = receipt_id
            ),
            Self::NoSuchReceipt(id) => t!(lang, "error.intake.no_such_receipt", id = id),
            Self::BadState { id, state } => t!(
                lang,
                "error.intake.bad_state",
                id = id,
                state = format!("{state:?}")
            ),
            Self::Database(e) => t!(lang, "error.intake.database", error = e),
            Self::Open(e) => e.to_string(),
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(crate::i18n::current()))
    }
}

/// What a claim found or did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// A new `in_flight` receipt: run the action, then complete or fail it.
    New { id: ReceiptId },
    /// A `failed` receipt with this key and body, claimed again (now `in_flight`): run the
    /// action again.
    Reclaimed { id: ReceiptId },
    /// The same key and body as an existing receipt: do not run anything. Recorded in `replays`.
    /// `response` is what to answer when `state` is completed; `in_flight` means the original
    /// is still being processed (or is stuck).
    Replay {
        id: ReceiptId,
        state: ReceiptState,
        response: Option<String>,
    },
}

impl Claim {
    pub fn id(&self) -> ReceiptId {
        match self {
            Self::New { id } | Self::Reclaimed { id } | Self::Replay { id, .. } => *id,
        }
    }

    /// True when the caller must run the action now.
    pub fn must_run(&self) -> bool {
        matches!(self, Self::New { .. } | Self::Reclaimed { .. })
    }
}

/// What [`IntakeStore::lookup`] found for a scope and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// No committed receipt. NOT evidence of failure: the original may be uncommitted in
    /// another connection, or still on its way.
    NotFoundYet,
    InFlight {
        id: ReceiptId,
    },
    Completed {
        id: ReceiptId,
        response: Option<String>,
    },
    Failed {
        id: ReceiptId,
    },
}

/// How a [`IntakeStore::submit`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    pub id: ReceiptId,
    /// The claim; the action ran exactly when `claim.must_run()`.
    pub claim: Claim,
    /// The response to answer with: the action's for a new or reclaimed receipt, the stored one
    /// for a replay (`None` while the original is in flight).
    pub response: Option<String>,
}

/// Why a [`IntakeStore::submit`] gave no response.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError<E> {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The action failed: the receipt is marked `failed`, which releases its key for a retry.
    #[error("{}{error}", crate::t!(crate::i18n::current(), "error.intake.receipt_action_failed", id = .id))]
    Action { id: ReceiptId, error: E },
}

/// The intake side of the receipts database.
pub struct IntakeStore {
    db: Box<dyn IntakeDatabase>,
}

impl std::fmt::Debug for IntakeStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntakeStore")
            .field("location", self.db.location())
            .finish()
    }
}

impl IntakeStore {
    /// Opens (or creates) a database file, creating the schema's missing tables.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_at(&Location::File(path.to_path_buf()), IntakeMode::Plain)
    }

    /// Opens the database at `location` as `mode` says.
    pub fn open_at(location: &Location, mode: IntakeMode) -> Result<Self, StoreError> {
        Ok(Self::new(crate::storage::open_intake(location, mode)?))
    }

    /// Wraps an open database.
    pub fn new(db: Box<dyn IntakeDatabase>) -> Self {
        Self { db }
    }

    /// The database, for what the protocol does not cover.
    pub fn database(&mut self) -> &mut dyn IntakeDatabase {
        &mut *self.db
    }

    /// Ends the store (for a database being loaded: makes it durable and ready).
    pub fn close(self) -> Result<(), StoreError> {
        Ok(self.db.close()?)
    }

    /// Claims a submission in its own short transaction.
    ///
    /// A conflict is an error, but its `key_conflicts` row is committed.
    pub fn claim(
        &mut self,
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
        at_ms: Millis,
    ) -> Result<Claim, StoreError> {
        self.claim_prepared(&Submission::new(scope, key, payload)?, at_ms)
    }

    /// [`Self::claim`] for a submission already checked and canonicalised.
    pub fn claim_prepared(&mut self, s: &Submission, at_ms: Millis) -> Result<Claim, StoreError> {
        self.immediate(|tx| claim(tx, s, at_ms))
    }

    /// `in_flight` -> `completed` with its response. False when the receipt was not in flight
    /// (already completed or failed, e.g. by an operator): nothing was changed then.
    pub fn complete(
        &mut self,
        id: ReceiptId,
        response: &str,
        at_ms: Millis,
    ) -> Result<bool, StoreError> {
        self.immediate(|tx| settle(tx, id, Settle::Completed(response), at_ms))
    }

    /// `in_flight` -> `failed`, which releases the key for a retry with the same body. False
    /// when the receipt was not in flight.
    pub fn fail(&mut self, id: ReceiptId, at_ms: Millis) -> Result<bool, StoreError> {
        self.immediate(|tx| settle(tx, id, Settle::Failed, at_ms))
    }

    /// Claims, runs `action` exactly when the claim says so, and completes or fails the receipt.
    ///
    /// The action runs outside any transaction (it may be slow: the intake is never blocked by
    /// it). It gets the receipt id and returns the response text to store and replay.
    pub fn submit<F, E>(
        &mut self,
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
        at_ms: Millis,
        action: F,
    ) -> Result<Submitted, SubmitError<E>>
    where
        F: FnOnce(ReceiptId) -> Result<String, E>,
    {
        let claim = self.claim(scope, key, payload, at_ms)?;
        finish(claim, action, |id, response| match response {
            Some(text) => self.complete(id, text, at_ms).map(|_| ()),
            None => self.fail(id, at_ms).map(|_| ()),
        })
    }

    /// The receipt for a scope and key, as committed now.
    pub fn lookup(&mut self, scope: &str, key: &str) -> Result<Lookup, StoreError> {
        lookup(&mut *self.db, scope, key)
    }

    /// The state of a receipt by id.
    pub fn state_of(&mut self, id: ReceiptId) -> Result<ReceiptState, StoreError> {
        let answer = self
            .db
            .receipt_answer(id)?
            .ok_or(StoreError::NoSuchReceipt(id))?;
        ReceiptState::parse(&answer.state).ok_or(StoreError::BadState {
            id,
            state: answer.state,
        })
    }

    /// Runs many operations in ONE transaction, for bulk loading and the
    /// server's group commit. Each operation has exactly the semantics it
    /// has on its own; only the commit is shared. An error returned by `f`
    /// rolls everything back.
    pub fn bulk<T, E>(&mut self, f: impl FnOnce(&mut BulkWrite<'_>) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let tx = self.db.begin().map_err(StoreError::from)?;
        let mut batch = BulkWrite { tx };
        let out = f(&mut batch)?;
        batch.tx.commit().map_err(StoreError::from)?;
        Ok(out)
    }

    fn immediate<T>(
        &mut self,
        f: impl FnOnce(&mut dyn IntakeTx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut tx = self.db.begin()?;
        let result = f(&mut *tx);
        match result {
            // A conflict is refused, but its key_conflicts row is kept.
            Ok(_) | Err(StoreError::Conflict { .. }) => tx.commit()?,
            // Dropped: rolled back.
            Err(_) => drop(tx),
        }
        result
    }
}

/// The operations of one [`IntakeStore::bulk`] transaction.
pub struct BulkWrite<'c> {
    tx: Box<dyn IntakeTx + 'c>,
}

impl BulkWrite<'_> {
    /// [`IntakeStore::claim`], inside the batch's transaction. A conflict returns its error
    /// and its `key_conflicts` row stays in the batch.
    pub fn claim(
        &mut self,
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
        at_ms: Millis,
    ) -> Result<Claim, StoreError> {
        claim(&mut *self.tx, &Submission::new(scope, key, payload)?, at_ms)
    }

    /// [`Self::claim`] for a submission already checked and canonicalised.
    pub fn claim_prepared(&mut self, s: &Submission, at_ms: Millis) -> Result<Claim, StoreError> {
        claim(&mut *self.tx, s, at_ms)
    }

    pub fn complete(
        &mut self,
        id: ReceiptId,
        response: &str,
        at_ms: Millis,
    ) -> Result<bool, StoreError> {
        settle(&mut *self.tx, id, Settle::Completed(response), at_ms)
    }

    /// A new receipt stored `completed` at once, with `response(id)`, when
    /// its key is free: the usual submission of a form without an action,
    /// one row written once. `None` when the key is held (then claim it).
    pub fn store_completed(
        &mut self,
        s: &Submission,
        at_ms: Millis,
        response: impl Fn(ReceiptId) -> String,
    ) -> Result<Option<(ReceiptId, String)>, StoreError> {
        Ok(self.tx.insert_completed(&s.as_new(at_ms), &response)?)
    }

    pub fn fail(&mut self, id: ReceiptId, at_ms: Millis) -> Result<bool, StoreError> {
        settle(&mut *self.tx, id, Settle::Failed, at_ms)
    }

    /// [`IntakeStore::submit`] inside the batch: the action runs inside the
    /// transaction (for loading, where it is a plain function); `done_ms` is
    /// when it settled.
    pub fn submit<F, E>(
        &mut self,
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
        at_ms: Millis,
        done_ms: Millis,
        action: F,
    ) -> Result<Submitted, SubmitError<E>>
    where
        F: FnOnce(ReceiptId) -> Result<String, E>,
    {
        let submission = Submission::new(scope, key, payload)?;
        self.submit_prepared(&submission, at_ms, done_ms, action)
    }

    /// [`Self::submit`] for a submission already checked and canonicalised.
    pub fn submit_prepared<F, E>(
        &mut self,
        submission: &Submission,
        at_ms: Millis,
        done_ms: Millis,
        action: F,
    ) -> Result<Submitted, SubmitError<E>>
    where
        F: FnOnce(ReceiptId) -> Result<String, E>,
    {
        let claim = claim(&mut *self.tx, submission, at_ms)?;
        let tx = &mut *self.tx;
        finish(claim, action, |id, response| match response {
            Some(text) => settle(tx, id, Settle::Completed(text), done_ms).map(|_| ()),
            None => settle(tx, id, Settle::Failed, done_ms).map(|_| ()),
        })
    }

    pub fn lookup(&mut self, scope: &str, key: &str) -> Result<Lookup, StoreError> {
        lookup(&mut *self.tx, scope, key)
    }

    /// The transaction itself, for the steps of the server's protocol
    /// beyond a claim (absorbed copies, replays of keys held through them).
    pub fn tx(&mut self) -> &mut dyn IntakeTx {
        &mut *self.tx
    }
}

fn finish<F, E>(
    claim: Claim,
    action: F,
    settle: impl FnOnce(ReceiptId, Option<&str>) -> Result<(), StoreError>,
) -> Result<Submitted, SubmitError<E>>
where
    F: FnOnce(ReceiptId) -> Result<String, E>,
{
    let id = claim.id();
    if let Claim::Replay { response, .. } = &claim {
        let response = response.clone();
        return Ok(Submitted {
            id,
            claim,
            response,
        });
    }
    match action(id) {
        Ok(response) => {
            settle(id, Some(&response))?;
            Ok(Submitted {
                id,
                claim,
                response: Some(response),
            })
        }
        Err(error) => {
            settle(id, None)?;
            Err(SubmitError::Action { id, error })
        }
    }
}

/// A submission checked and put in canonical form: scope, key, canonical payload text and its
/// digest, computed once. Build it where it is convenient (another thread, say) and claim it
/// with [`IntakeStore::claim_prepared`] or [`BulkWrite::claim_prepared`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    scope: String,
    key: Option<String>,
    payload: String,
    digest: String,
}

impl Submission {
    /// Checks the scope (not empty) and key ([`valid_key`]), and canonicalises the payload.
    pub fn new(
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
    ) -> Result<Self, StoreError> {
        if scope.is_empty() {
            return Err(StoreError::EmptyScope);
        }
        let key = key.map(valid_key).transpose()?.map(str::to_string);
        let payload = canonical(payload)?;
        let digest = sha256_hex(&payload);
        Ok(Self {
            scope: scope.to_string(),
            key,
            payload,
            digest,
        })
    }

    /// The row to insert for it, received at `at_ms`.
    pub fn as_new(&self, at_ms: Millis) -> NewReceipt<'_> {
        NewReceipt {
            scope: &self.scope,
            key: self.key.as_deref(),
            digest: &self.digest,
            payload: &self.payload,
            at_ms,
        }
    }

    pub fn scope(&self) -> &str {
        &self.scope
    }

    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The canonical payload text, as stored.
    pub fn payload(&self) -> &str {
        &self.payload
    }

    /// SHA-256 hex of [`Self::payload`].
    pub fn digest(&self) -> &str {
        &self.digest
    }
}

/// Claims a submission inside `tx`: a new receipt, a failed one claimed
/// again, a replay, or a conflict (an error whose `key_conflicts` row is
/// written).
fn claim(tx: &mut dyn IntakeTx, p: &Submission, at_ms: Millis) -> Result<Claim, StoreError> {
    if let Some(id) = tx.insert_in_flight(&p.as_new(at_ms))? {
        return Ok(Claim::New { id });
    }
    // Only a keyed submission can conflict; read back the row that holds the key.
    let key = p
        .key()
        .expect("a keyless insert cannot hit the unique constraint");
    let holder = tx.key_holder(&p.scope, key)?.ok_or_else(|| {
        WriteFailure::other("the key's receipt could not be read back after the insert")
    })?;
    let id = holder.id;
    if holder.digest != p.digest {
        tx.record_conflict(id, &p.digest, &p.payload, at_ms)?;
        return Err(StoreError::Conflict {
            receipt_id: id,
            scope: p.scope.to_string(),
            key: key.to_string(),
        });
    }
    let state = ReceiptState::parse(&holder.state).ok_or(StoreError::BadState {
        id,
        state: holder.state,
    })?;
    if state == ReceiptState::Failed && tx.reclaim_failed(id, at_ms)? {
        return Ok(Claim::Reclaimed { id });
    }
    tx.record_replay(id, at_ms)?;
    Ok(Claim::Replay {
        id,
        state,
        response: holder.response,
    })
}

/// True when the guarded update changed the row; an error when there is no such receipt.
fn settle(
    tx: &mut dyn IntakeTx,
    id: ReceiptId,
    to: Settle<'_>,
    at_ms: Millis,
) -> Result<bool, StoreError> {
    tx.settle(id, to, at_ms)?
        .ok_or(StoreError::NoSuchReceipt(id))
}

fn lookup(
    db: &mut dyn crate::storage::intake::IntakeLookups,
    scope: &str,
    key: &str,
) -> Result<Lookup, StoreError> {
    let Some(holder) = db.key_holder(scope, key)? else {
        return Ok(Lookup::NotFoundYet);
    };
    let id = holder.id;
    match ReceiptState::parse(&holder.state) {
        Some(ReceiptState::InFlight) => Ok(Lookup::InFlight { id }),
        Some(ReceiptState::Completed) => Ok(Lookup::Completed {
            id,
            response: holder.response,
        }),
        Some(ReceiptState::Failed) => Ok(Lookup::Failed { id }),
        None => Err(StoreError::BadState {
            id,
            state: holder.state,
        }),
    }
}
