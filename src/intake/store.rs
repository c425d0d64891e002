//! The SQLite intake store (seed 000): receipts that survive the process, safe across
//! connections and processes.
//!
//! - A submission is claimed with one atomic `INSERT ... ON CONFLICT(scope, request_key) DO
//!   NOTHING` and, when it inserted nothing, a read-back of the existing row, in
//!   the same short `BEGIN IMMEDIATE` transaction. Never `REPLACE` (it deletes the original), never
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

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::{Map, Value};

use super::canonical::{CanonicalError, canonical, sha256_hex};
use super::key::{KeyError, valid_key};
use crate::i18n::Lang;
use crate::model::time::format_rfc3339;
use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::t;

/// The database contract, `assets/schema.sql`.
pub use crate::storage::SCHEMA_SQL;

/// How long a connection waits for another one's write lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

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
    Sql(#[from] rusqlite::Error),
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
            Self::Sql(e) => t!(lang, "error.intake.database", error = e),
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
#[derive(Debug)]
pub struct IntakeStore {
    conn: Connection,
}

impl IntakeStore {
    /// Opens (or creates) a database file. The schema is not created: see [`Self::create_schema`].
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::new(Connection::open(path)?)
    }

    /// Wraps a connection, setting the busy timeout.
    pub fn new(conn: Connection) -> Result<Self, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        Ok(Self { conn })
    }

    /// Creates the tables of `assets/schema.sql` if they are missing.
    pub fn create_schema(&self) -> Result<(), StoreError> {
        self.conn.execute_batch(SCHEMA_SQL)?;
        Ok(())
    }

    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    pub fn into_connection(self) -> Connection {
        self.conn
    }

    /// Claims a submission in its own short `BEGIN IMMEDIATE` transaction.
    ///
    /// A conflict is an error, but its `key_conflicts` row is committed.
    pub fn claim(
        &self,
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
        at_ms: Millis,
    ) -> Result<Claim, StoreError> {
        self.claim_prepared(&Submission::new(scope, key, payload)?, at_ms)
    }

    /// [`Self::claim`] for a submission already checked and canonicalised.
    pub fn claim_prepared(&self, s: &Submission, at_ms: Millis) -> Result<Claim, StoreError> {
        self.immediate(|ops| ops.claim(s, at_ms))
    }

    /// `in_flight` -> `completed` with its response. False when the receipt was not in flight
    /// (already completed or failed, e.g. by an operator): nothing was changed then.
    pub fn complete(
        &self,
        id: ReceiptId,
        response: &str,
        at_ms: Millis,
    ) -> Result<bool, StoreError> {
        self.immediate(|ops| ops.complete(id, response, at_ms))
    }

    /// `in_flight` -> `failed`, which releases the key for a retry with the same body. False
    /// when the receipt was not in flight.
    pub fn fail(&self, id: ReceiptId, at_ms: Millis) -> Result<bool, StoreError> {
        self.immediate(|ops| ops.fail(id, at_ms))
    }

    /// Claims, runs `action` exactly when the claim says so, and completes or fails the receipt.
    ///
    /// The action runs outside any transaction (it may be slow: the intake is never blocked by
    /// it). It gets the receipt id and returns the response text to store and replay.
    pub fn submit<F, E>(
        &self,
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
    pub fn lookup(&self, scope: &str, key: &str) -> Result<Lookup, StoreError> {
        Ops { conn: &self.conn }.lookup(scope, key)
    }

    /// The state of a receipt by id.
    pub fn state_of(&self, id: ReceiptId) -> Result<ReceiptState, StoreError> {
        let state: Option<String> = self
            .conn
            .query_row("SELECT state FROM receipts WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        let state = state.ok_or(StoreError::NoSuchReceipt(id))?;
        ReceiptState::parse(&state).ok_or(StoreError::BadState { id, state })
    }

    /// Runs many operations in ONE transaction, for bulk loading. Each operation has exactly
    /// the semantics it has on its own (the same SQL); only the commit is shared. An error
    /// returned by `f` rolls everything back.
    pub fn bulk<T, E>(&mut self, f: impl FnOnce(&BulkWrite<'_>) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(StoreError::from)?;
        let batch = BulkWrite {
            ops: Ops { conn: &tx },
        };
        let out = f(&batch)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(out)
    }

    fn immediate<T>(
        &self,
        f: impl FnOnce(&Ops<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let result = f(&Ops { conn: &tx });
        match result {
            // A conflict is refused, but its key_conflicts row is kept.
            Ok(_) | Err(StoreError::Conflict { .. }) => tx.commit()?,
            Err(_) => tx.rollback()?,
        }
        result
    }
}

/// The operations of one [`IntakeStore::bulk`] transaction.
pub struct BulkWrite<'c> {
    ops: Ops<'c>,
}

impl BulkWrite<'_> {
    /// [`IntakeStore::claim`], inside the batch's transaction. A conflict returns its error
    /// and its `key_conflicts` row stays in the batch.
    pub fn claim(
        &self,
        scope: &str,
        key: Option<&str>,
        payload: &Map<String, Value>,
        at_ms: Millis,
    ) -> Result<Claim, StoreError> {
        self.ops
            .claim(&Submission::new(scope, key, payload)?, at_ms)
    }

    /// [`Self::claim`] for a submission already checked and canonicalised.
    pub fn claim_prepared(&self, s: &Submission, at_ms: Millis) -> Result<Claim, StoreError> {
        self.ops.claim(s, at_ms)
    }

    pub fn complete(
        &self,
        id: ReceiptId,
        response: &str,
        at_ms: Millis,
    ) -> Result<bool, StoreError> {
        self.ops.complete(id, response, at_ms)
    }

    /// A new receipt completed at once (no action to wait for): its claim and
    /// its completion written as one row, with `response(id)` for the id it
    /// gets. `None` when the scope's key is held already, with nothing
    /// written: [`Self::claim_prepared`] then gives the protocol's answer.
    pub fn store_completed(
        &self,
        s: &Submission,
        at_ms: Millis,
        response: impl FnOnce(ReceiptId) -> String,
    ) -> Result<Option<(ReceiptId, String)>, StoreError> {
        self.ops.store_completed(s, at_ms, response)
    }

    pub fn fail(&self, id: ReceiptId, at_ms: Millis) -> Result<bool, StoreError> {
        self.ops.fail(id, at_ms)
    }

    /// [`IntakeStore::submit`] inside the batch; the receipt is completed (or failed) at
    /// `done_ms`, which may be later than `at_ms`.
    pub fn submit<F, E>(
        &self,
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
        &self,
        submission: &Submission,
        at_ms: Millis,
        done_ms: Millis,
        action: F,
    ) -> Result<Submitted, SubmitError<E>>
    where
        F: FnOnce(ReceiptId) -> Result<String, E>,
    {
        let claim = self.ops.claim(submission, at_ms)?;
        finish(claim, action, |id, response| match response {
            Some(text) => self.ops.complete(id, text, done_ms).map(|_| ()),
            None => self.ops.fail(id, done_ms).map(|_| ()),
        })
    }

    pub fn lookup(&self, scope: &str, key: &str) -> Result<Lookup, StoreError> {
        self.ops.lookup(scope, key)
    }

    /// The connection, for rows that the protocol would never write (the demo's damaged rows).
    pub fn connection(&self) -> &Connection {
        self.ops.conn
    }
}

/// Runs the action when the claim says so and records its outcome through `settle`
/// (`Some(response)` completes, `None` fails).
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

/// The SQL of the protocol, run on a connection that is already inside a transaction.
struct Ops<'c> {
    conn: &'c Connection,
}

impl Ops<'_> {
    fn claim(&self, p: &Submission, at_ms: Millis) -> Result<Claim, StoreError> {
        let at = format_rfc3339(at_ms);
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'in_flight', ?5, ?5) \
                 ON CONFLICT (scope, request_key) DO NOTHING",
            )?
            .execute(params![p.scope, p.key, p.digest, p.payload, at])?;
        if inserted == 1 {
            // Same connection, same transaction: the row this statement just inserted.
            return Ok(Claim::New {
                id: self.conn.last_insert_rowid(),
            });
        }
        // Only a keyed submission can conflict; read back the row that holds the key.
        let key = p
            .key()
            .expect("a keyless insert cannot hit the unique constraint");
        let (id, digest, state, response): (ReceiptId, String, String, Option<String>) = self
            .conn
            .prepare_cached(
                "SELECT id, digest, state, response FROM receipts WHERE scope = ?1 AND request_key = ?2",
            )?
            .query_row(params![p.scope, key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?;
        if digest != p.digest {
            self.conn
                .prepare_cached(
                    "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![id, p.digest, p.payload, at])?;
            return Err(StoreError::Conflict {
                receipt_id: id,
                scope: p.scope.to_string(),
                key: key.to_string(),
            });
        }
        let state = ReceiptState::parse(&state).ok_or(StoreError::BadState { id, state })?;
        if state == ReceiptState::Failed {
            let changed = self
                .conn
                .prepare_cached(
                    "UPDATE receipts SET state = 'in_flight', updated_at = ?2 WHERE id = ?1 AND state = 'failed'",
                )?
                .execute(params![id, at])?;
            if changed == 1 {
                return Ok(Claim::Reclaimed { id });
            }
        }
        self.conn
            .prepare_cached("INSERT INTO replays (receipt_id, received_at) VALUES (?1, ?2)")?
            .execute(params![id, at])?;
        Ok(Claim::Replay {
            id,
            state,
            response,
        })
    }

    fn store_completed(
        &self,
        p: &Submission,
        at_ms: Millis,
        response: impl FnOnce(ReceiptId) -> String,
    ) -> Result<Option<(ReceiptId, String)>, StoreError> {
        // The id SQLite would choose itself; the transaction holds the write
        // lock, so no other row can take it meanwhile.
        let id: ReceiptId = self
            .conn
            .prepare_cached("SELECT coalesce(max(id), 0) + 1 FROM receipts")?
            .query_row([], |r| r.get(0))?;
        let text = response(id);
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO receipts (id, scope, request_key, digest, payload, state, response, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'completed', ?6, ?7, ?7) \
                 ON CONFLICT (scope, request_key) DO NOTHING",
            )?
            .execute(params![id, p.scope, p.key, p.digest, p.payload, text, format_rfc3339(at_ms)])?;
        Ok((inserted == 1).then_some((id, text)))
    }

    fn complete(&self, id: ReceiptId, response: &str, at_ms: Millis) -> Result<bool, StoreError> {
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE receipts SET state = 'completed', response = ?2, updated_at = ?3 \
                 WHERE id = ?1 AND state = 'in_flight'",
            )?
            .execute(params![id, response, format_rfc3339(at_ms)])?;
        self.settled(id, changed)
    }

    fn fail(&self, id: ReceiptId, at_ms: Millis) -> Result<bool, StoreError> {
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE receipts SET state = 'failed', updated_at = ?2 WHERE id = ?1 AND state = 'in_flight'",
            )?
            .execute(params![id, format_rfc3339(at_ms)])?;
        self.settled(id, changed)
    }

    /// True when the guarded update changed the row; an error when there is no such receipt.
    fn settled(&self, id: ReceiptId, changed: usize) -> Result<bool, StoreError> {
        if changed == 1 {
            return Ok(true);
        }
        let exists: Option<i64> = self
            .conn
            .prepare_cached("SELECT 1 FROM receipts WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        match exists {
            Some(_) => Ok(false),
            None => Err(StoreError::NoSuchReceipt(id)),
        }
    }

    fn lookup(&self, scope: &str, key: &str) -> Result<Lookup, StoreError> {
        let row: Option<(ReceiptId, String, Option<String>)> = self
            .conn
            .prepare_cached(
                "SELECT id, state, response FROM receipts WHERE scope = ?1 AND request_key = ?2",
            )?
            .query_row(params![scope, key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        let Some((id, state, response)) = row else {
            return Ok(Lookup::NotFoundYet);
        };
        match ReceiptState::parse(&state) {
            Some(ReceiptState::InFlight) => Ok(Lookup::InFlight { id }),
            Some(ReceiptState::Completed) => Ok(Lookup::Completed { id, response }),
            Some(ReceiptState::Failed) => Ok(Lookup::Failed { id }),
            None => Err(StoreError::BadState { id, state }),
        }
    }
}
