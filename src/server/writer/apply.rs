//! One submission's work inside the writer's transaction: the protocol of
//! the intake server, on top of the store's claim / complete / fail.

use rusqlite::{OptionalExtension, params};

use crate::intake::store::{BulkWrite, Claim, StoreError, Submission};
use crate::model::time::{format_rfc3339, read_text};
use crate::model::{Millis, ReceiptId, ReceiptState};

/// A checked submission, ready for the writer.
#[derive(Clone, Debug)]
pub struct Job {
    pub submission: Submission,
    pub at_ms: Millis,
    /// The hash of its visitor fields ([`crate::server::fingerprint`]);
    /// `None`: never absorbed.
    pub visitor: Option<u128>,
    /// The form's window for exact copies; 0: off.
    pub window_ms: Millis,
    /// No action: the receipt is completed in the same transaction.
    pub complete_now: bool,
    /// How long the form's action may take. A retry of a receipt still in
    /// flight after this is answered with the 202 its first send got: the
    /// action has given up by then, and only an operator settles it.
    pub action_timeout_ms: Millis,
}

/// What the writer did with a submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A new receipt, completed and committed: answer `response` (201).
    Stored { id: ReceiptId, response: String },
    /// A new receipt, committed `in_flight`: run the action.
    Claimed { id: ReceiptId },
    /// The same key and body as a completed receipt: its stored response
    /// (a `replays` row).
    Replayed {
        id: ReceiptId,
        response: Option<String>,
    },
    /// The same key and body while the first's action is still running (or
    /// it was failed meanwhile): nothing written.
    InFlight { id: ReceiptId },
    /// The same key and body as a receipt whose action's outcome is unknown
    /// and whose action has timed out: the 202 again (a `replays` row).
    Pending { id: ReceiptId },
    /// The same key with another body: refused (a `key_conflicts` row).
    Conflict { id: ReceiptId },
    /// An exact copy of a completed receipt within the window: its response
    /// (an `absorbed` row), never a second receipt.
    Absorbed { id: ReceiptId, response: String },
}

/// The body of a completed receipt's answer, stored as its `response`.
pub fn completed_response(id: ReceiptId) -> String {
    format!(r#"{{"receipt":{id},"state":"completed"}}"#)
}

/// The body of a 202: received, the action's outcome not known. Never
/// stored as the receipt's `response`, which is the completed answer.
pub fn pending_response(id: ReceiptId) -> String {
    format!(r#"{{"receipt":{id},"state":"in_flight"}}"#)
}

/// Where [`apply`] looks for the receipt an exact copy repeats, and notes
/// the receipts it stores.
pub trait Seen {
    fn latest(&self, scope: &str, visitor: u128) -> Option<(ReceiptId, Millis)>;
    fn note(&mut self, scope: &str, visitor: u128, id: ReceiptId, at_ms: Millis);
}

pub fn apply(w: &BulkWrite<'_>, seen: &mut dyn Seen, job: &Job) -> Result<Outcome, StoreError> {
    let s = &job.submission;
    // A key that an absorbed copy was sent with holds the receipt it was
    // absorbed into, for ever, as if it were that receipt's own key.
    if let Some(key) = s.key()
        && let Some(holder) = absorbed_key_holder(w, s.scope(), key)?
    {
        return answer_absorbed_key(w, job, holder);
    }
    // The usual case, a new receipt that repeats nothing recent: one row
    // written once. A held key falls through to the whole protocol below.
    if job.complete_now
        && copy_candidate(seen, job).is_none()
        && let Some((id, response)) = w.store_completed(s, job.at_ms, completed_response)?
    {
        note(seen, job, id);
        return Ok(Outcome::Stored { id, response });
    }
    let mut holder = None;
    if let Some(key) = s.key() {
        holder = key_holder(w, s.scope(), key)?;
        if let Some(h) = &holder
            && h.digest == s.digest()
            && h.state == "in_flight"
        {
            return in_flight(w, job, h);
        }
    }
    if holder.is_none()
        && let Some(absorbed) = absorb(w, seen, job)?
    {
        return Ok(absorbed);
    }
    let claim = match w.claim_prepared(s, job.at_ms) {
        Ok(claim) => claim,
        Err(StoreError::Conflict { receipt_id, .. }) => {
            return Ok(Outcome::Conflict { id: receipt_id });
        }
        Err(e) => return Err(e),
    };
    match claim {
        Claim::New { id } | Claim::Reclaimed { id } => {
            note(seen, job, id);
            if !job.complete_now {
                return Ok(Outcome::Claimed { id });
            }
            let response = completed_response(id);
            w.complete(id, &response, job.at_ms)?;
            Ok(Outcome::Stored { id, response })
        }
        Claim::Replay {
            id,
            state: ReceiptState::Completed,
            response,
        } => Ok(Outcome::Replayed { id, response }),
        Claim::Replay { id, .. } => Ok(Outcome::InFlight { id }),
    }
}

fn note(seen: &mut dyn Seen, job: &Job, id: ReceiptId) {
    if let Some(visitor) = job.visitor {
        seen.note(job.submission.scope(), visitor, id, job.at_ms);
    }
}

/// The receipt holding a scope's key.
struct KeyHolder {
    id: ReceiptId,
    digest: String,
    state: String,
    /// When it was last claimed (its `updated_at`, else `created_at`).
    claimed_at: Option<Millis>,
}

fn key_holder(w: &BulkWrite<'_>, scope: &str, key: &str) -> Result<Option<KeyHolder>, StoreError> {
    Ok(w.connection()
        .prepare_cached(
            "SELECT id, digest, state, coalesce(updated_at, created_at) FROM receipts \
             WHERE scope = ?1 AND request_key = ?2",
        )?
        .query_row(params![scope, key], |r| {
            Ok(KeyHolder {
                id: r.get(0)?,
                digest: r.get(1)?,
                state: r.get(2)?,
                claimed_at: claimed_at(r.get_ref(3)?),
            })
        })
        .optional()?)
}

fn claimed_at(value: rusqlite::types::ValueRef<'_>) -> Option<Millis> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) => read_text(std::str::from_utf8(t).ok()?).ok(),
        ValueRef::Integer(n) => {
            crate::model::time::parse_time_ref(crate::model::TimeRef::Integer(n)).ok()
        }
        _ => None,
    }
}

/// A retry of a receipt still in flight: 409 while its action may still be
/// running (nothing written); the 202 again once the action has timed out.
fn in_flight(w: &BulkWrite<'_>, job: &Job, holder: &KeyHolder) -> Result<Outcome, StoreError> {
    let given_up = holder
        .claimed_at
        .is_none_or(|at| job.at_ms.saturating_sub(at) >= job.action_timeout_ms);
    if !given_up {
        return Ok(Outcome::InFlight { id: holder.id });
    }
    count_replay(w, holder.id, job.at_ms)?;
    Ok(Outcome::Pending { id: holder.id })
}

fn count_replay(w: &BulkWrite<'_>, id: ReceiptId, at_ms: Millis) -> Result<(), StoreError> {
    w.connection()
        .prepare_cached("INSERT INTO replays (receipt_id, received_at) VALUES (?1, ?2)")?
        .execute(params![id, format_rfc3339(at_ms)])?;
    Ok(())
}

/// An absorbed copy's key: the receipt the copy was absorbed into, and the
/// digest of the body the copy was sent with.
struct AbsorbedKey {
    id: ReceiptId,
    receipt_digest: String,
    state: String,
    response: Option<String>,
    /// `None` in rows written before copies' digests were recorded: the
    /// receipt's own digest stands in for it.
    copy_digest: Option<String>,
}

fn absorbed_key_holder(
    w: &BulkWrite<'_>,
    scope: &str,
    key: &str,
) -> Result<Option<AbsorbedKey>, StoreError> {
    // A key that a receipt holds itself is that receipt's, whatever was
    // absorbed under it.
    Ok(w.connection()
        .prepare_cached(
            "SELECT r.id, r.digest, r.state, r.response, a.digest \
             FROM absorbed a JOIN receipts r ON r.id = a.receipt_id \
             WHERE a.request_key = ?1 AND r.scope = ?2 \
               AND NOT EXISTS (SELECT 1 FROM receipts h WHERE h.scope = ?2 AND h.request_key = ?1) \
             ORDER BY a.id LIMIT 1",
        )?
        .query_row(params![key, scope], |r| {
            Ok(AbsorbedKey {
                id: r.get(0)?,
                receipt_digest: r.get(1)?,
                state: r.get(2)?,
                response: r.get(3)?,
                copy_digest: r.get(4)?,
            })
        })
        .optional()?)
}

/// The protocol's answer for a key held through an absorbed copy: the same
/// body is a replay of the receipt, another body a conflict with it.
fn answer_absorbed_key(
    w: &BulkWrite<'_>,
    job: &Job,
    holder: AbsorbedKey,
) -> Result<Outcome, StoreError> {
    let s = &job.submission;
    let sent_before = holder
        .copy_digest
        .as_deref()
        .unwrap_or(&holder.receipt_digest);
    if sent_before != s.digest() {
        w.connection()
            .prepare_cached(
                "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                holder.id,
                s.digest(),
                s.payload(),
                format_rfc3339(job.at_ms)
            ])?;
        return Ok(Outcome::Conflict { id: holder.id });
    }
    count_replay(w, holder.id, job.at_ms)?;
    Ok(match ReceiptState::parse(&holder.state) {
        Some(ReceiptState::Completed) => Outcome::Replayed {
            id: holder.id,
            response: holder.response,
        },
        _ => Outcome::Pending { id: holder.id },
    })
}

/// The receipt stored last with the job's visitor fields within its window.
fn copy_candidate(seen: &dyn Seen, job: &Job) -> Option<ReceiptId> {
    if job.window_ms <= 0 {
        return None;
    }
    let (id, at) = seen.latest(job.submission.scope(), job.visitor?)?;
    (job.at_ms.saturating_sub(at) <= job.window_ms).then_some(id)
}

/// An exact copy of a completed receipt within the window: counted in
/// `absorbed` (with the key and digest it came with, so that its key holds
/// the receipt from then on) and answered with the original's response.
fn absorb(
    w: &BulkWrite<'_>,
    seen: &mut dyn Seen,
    job: &Job,
) -> Result<Option<Outcome>, StoreError> {
    let Some(id) = copy_candidate(seen, job) else {
        return Ok(None);
    };
    let original: Option<(String, Option<String>)> = w
        .connection()
        .prepare_cached("SELECT state, response FROM receipts WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((state, Some(response))) = original else {
        return Ok(None);
    };
    if state != "completed" {
        return Ok(None);
    }
    let s = &job.submission;
    w.connection()
        .prepare_cached(
            "INSERT INTO absorbed (receipt_id, request_key, received_at, digest) \
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            id,
            s.key(),
            format_rfc3339(job.at_ms),
            s.key().map(|_| s.digest())
        ])?;
    Ok(Some(Outcome::Absorbed { id, response }))
}
