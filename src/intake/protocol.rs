//! The idempotency protocol, in memory: classify, remember, replay, execute.
//!
//! The SQLite store ([`crate::intake::store`]) does the same atomically and durably; this
//! module is the reference for the semantics, and what a single-process service can use.
//!
//! Copies: a remembered response is the store's own copy, and a replay hands out a new copy,
//! so nothing a caller does with a response it got can change what a later retry receives.
//! In Rust that is carried by ownership: [`MemoryStore::remember`] clones what it is lent,
//! [`replay`] returns an owned clone, and no `&mut` into the store is ever handed out.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::canonical::{CanonicalError, fingerprint};
use super::key::{KeyError, scoped_key};

/// What is kept for one scoped key.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// SHA-256 hex of the canonical request body.
    pub fingerprint: String,
    /// The response of the first, successful execution.
    pub response: Value,
}

/// How a request relates to what is already recorded for its scoped key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Classification {
    /// Nothing recorded: run the action.
    New,
    /// Same key, same body: replay the recorded response.
    Replay,
    /// Same key, another body: refuse.
    Conflict,
}

impl Classification {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Replay => "replay",
            Self::Conflict => "conflict",
        }
    }
}

/// `New` without a record, `Replay` when the fingerprints are equal, else `Conflict`.
pub fn classify(record: Option<&Record>, digest: &str) -> Classification {
    match record {
        None => Classification::New,
        Some(r) if r.fingerprint == digest => Classification::Replay,
        Some(_) => Classification::Conflict,
    }
}

/// A copy of the recorded response.
pub fn replay(record: &Record) -> Value {
    record.response.clone()
}

/// Errors of the in-memory protocol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("{}", crate::t!(crate::i18n::current(), "error.intake.already_recorded", scoped_key = .scoped_key))]
    AlreadyRecorded { scoped_key: String },
}

/// Records by scoped key, in memory.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    records: HashMap<String, Record>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, scoped_key: &str) -> Option<&Record> {
        self.records.get(scoped_key)
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Stores a copy of `response` under a new key. An existing key is refused and its
    /// record kept as it was.
    pub fn remember(
        &mut self,
        scoped_key: &str,
        digest: &str,
        response: &Value,
    ) -> Result<(), ProtocolError> {
        if self.records.contains_key(scoped_key) {
            return Err(ProtocolError::AlreadyRecorded {
                scoped_key: scoped_key.to_string(),
            });
        }
        self.records.insert(
            scoped_key.to_string(),
            Record {
                fingerprint: digest.to_string(),
                response: response.clone(),
            },
        );
        Ok(())
    }

    /// A copy of the response recorded under `scoped_key`, if any.
    pub fn replay(&self, scoped_key: &str) -> Option<Value> {
        self.records.get(scoped_key).map(replay)
    }
}

/// Why [`execute`] did not return a response.
#[derive(Debug, thiserror::Error)]
pub enum ExecuteError<E> {
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("{}", crate::t!(crate::i18n::current(), "error.intake.body_not_canonical", error = .0))]
    Body(#[from] CanonicalError),
    /// The key was used before with another body; nothing was run.
    #[error("{}", crate::t!(crate::i18n::current(), "error.intake.body_conflict", scoped_key = .scoped_key))]
    Conflict { scoped_key: String },
    /// The action failed; nothing was recorded, so the key may be retried.
    #[error("{prefix}{0}", prefix = crate::t!(crate::i18n::current(), "error.intake.action_failed"))]
    Action(E),
}

/// Runs `action` at most once per scoped key and body.
///
/// New key: runs the action, records a copy of its response, returns the response.
/// Same key and body: returns a copy of the recorded response without running anything.
/// Same key, other body: [`ExecuteError::Conflict`], nothing run, the record unchanged.
/// The action's error is returned as [`ExecuteError::Action`] and nothing is recorded.
pub fn execute<F, E>(
    store: &mut MemoryStore,
    tenant: &str,
    method: &str,
    path: &str,
    key: &str,
    body: &Map<String, Value>,
    action: F,
) -> Result<Value, ExecuteError<E>>
where
    F: FnOnce() -> Result<Value, E>,
{
    let scope = scoped_key(tenant, method, path, key)?;
    let digest = fingerprint(body)?;
    match classify(store.get(&scope), &digest) {
        Classification::New => {
            let response = action().map_err(ExecuteError::Action)?;
            store
                .remember(&scope, &digest, &response)
                .expect("the key was checked as new under &mut");
            Ok(response)
        }
        Classification::Replay => Ok(replay(store.get(&scope).expect("classified as present"))),
        Classification::Conflict => Err(ExecuteError::Conflict { scoped_key: scope }),
    }
}
