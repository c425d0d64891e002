//! One submission's work inside the writer's transaction: the protocol of
//! the intake server, on top of the store's claim / complete / fail.

use crate::intake::store::{BulkWrite, Claim, StoreError, Submission};
use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::storage::intake::{AbsorbedKey, KeyHolder};

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

pub fn apply(w: &mut BulkWrite<'_>, seen: &mut dyn Seen, job: &Job) -> Result<Outcome, StoreError> {
    let s = &job.submission;
    // A key that an absorbed copy was sent with holds the receipt it was
    // absorbed into, for ever, as if it were that receipt's own key.
    if let Some(key) = s.key()
        && let Some(holder) = w.tx().absorbed_key_holder(s.scope(), key)?
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
        holder = w.tx().key_holder(s.scope(), key)?;
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

/// A retry of a receipt still in flight: 409 while its action may still be
/// running (nothing written); the 202 again once the action has timed out.
fn in_flight(w: &mut BulkWrite<'_>, job: &Job, holder: &KeyHolder) -> Result<Outcome, StoreError> {
    let given_up = holder
        .claimed_at
        .is_none_or(|at| job.at_ms.saturating_sub(at) >= job.action_timeout_ms);
    if !given_up {
        return Ok(Outcome::InFlight { id: holder.id });
    }
    count_replay(w, holder.id, job.at_ms)?;
    Ok(Outcome::Pending { id: holder.id })
}

fn count_replay(w: &mut BulkWrite<'_>, id: ReceiptId, at_ms: Millis) -> Result<(), StoreError> {
    Ok(w.tx().record_replay(id, at_ms)?)
}

/// The protocol's answer for a key held through an absorbed copy: the same
/// body is a replay of the receipt, another body a conflict with it.
fn answer_absorbed_key(
    w: &mut BulkWrite<'_>,
    job: &Job,
    holder: AbsorbedKey,
) -> Result<Outcome, StoreError> {
    let s = &job.submission;
    let sent_before = holder
        .copy_digest
        .as_deref()
        .unwrap_or(&holder.receipt_digest);
    if sent_before != s.digest() {
        w.tx()
            .record_conflict(holder.id, s.digest(), s.payload(), job.at_ms)?;
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
    w: &mut BulkWrite<'_>,
    seen: &mut dyn Seen,
    job: &Job,
) -> Result<Option<Outcome>, StoreError> {
    let Some(id) = copy_candidate(seen, job) else {
        return Ok(None);
    };
    let Some(original) = w.tx().receipt_answer(id)? else {
        return Ok(None);
    };
    let (Some(response), "completed") = (original.response, original.state.as_str()) else {
        return Ok(None);
    };
    let s = &job.submission;
    w.tx()
        .record_absorbed(id, s.key(), s.key().map(|_| s.digest()), job.at_ms)?;
    Ok(Some(Outcome::Absorbed { id, response }))
}
