//! Guarded writes: decisions, undo and reopen.
//!
//! Each call is one short write transaction ([`Storage::begin_write`]; the
//! storage sets the busy timeout): it re-reads what it depends on, refuses
//! when another operator got there first, changes `receipts.state` only where
//! the contract allows it (README, "The database contract") and only if the receipt is still `in_flight`, appends
//! one log row, and commits. Either all of it happens or none of it.

use std::fmt;

use super::decision::{DecisionError, parse_item};
use crate::i18n::{self, Lang};
use crate::model::time;
use crate::model::{
    BatchRow, Decision, Kind, LogEntry, Millis, NewEntry, ReceiptId, ReceiptState, StateWritten,
};
use crate::storage::{Failure, LogError, ReceiptColumns, Source, Storage, WriteTx};
use crate::{sanitize, t};

/// One operator's decision on one item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecisionRequest {
    /// `dup:<id>`, `conflict:<id>` or `stuck:<id>`.
    pub item: String,
    pub kind: Kind,
    pub decision: Decision,
    pub operator: String,
    /// An empty note is stored as no note.
    pub note: Option<String>,
    /// The receipts the decision covers (for a duplicate group: every member
    /// shown to the operator). Must include the receipt the item id names;
    /// empty means just that one. Stored sorted and without repeats.
    pub receipt_ids: Vec<ReceiptId>,
    pub now_ms: Millis,
    /// The id of the latest log entry for this item that the operator saw
    /// (`None`: saw none, i.e. believed it pending). If the log has moved on to
    /// a live decision since, nothing is written and the answer is
    /// [`DecideError::AlreadyDecided`].
    pub expected_last: Option<i64>,
    /// For a `duplicate` or `correction`: the receipt kept as the one to
    /// answer, one of `receipt_ids` (see [`super::keep`] for the default the
    /// screen and the command line give). `None` records none; any other
    /// decision keeps none.
    pub kept: Option<ReceiptId>,
}

/// A receipt state written by a decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateChange {
    pub receipt_id: ReceiptId,
    pub from: String,
    pub to: ReceiptState,
}

/// What [`decide`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The appended row, as stored.
    pub entry: LogEntry,
    pub state_change: Option<StateChange>,
}

/// Reopen one item explicitly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReopenRequest {
    pub item: String,
    pub operator: String,
    pub note: Option<String>,
    pub now_ms: Millis,
    /// When set: the id of the entry the operator means to reopen; if the log
    /// has moved on since, nothing is written ([`DecideError::AlreadyDecided`]).
    /// `None` reopens whatever decision is latest.
    pub expected_last: Option<i64>,
}

/// What happened to a receipt's state when its decision was reopened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateRevert {
    /// The reopened decision changed no receipt.
    NoStateChange,
    /// The receipt was put back `in_flight`.
    Reverted { receipt_id: ReceiptId, from: String },
    /// The receipt changed since the decision (or can no longer be written), so
    /// its state was kept. `now_state` is `None` when the receipt is gone.
    Kept {
        receipt_id: ReceiptId,
        now_state: Option<String>,
    },
}

/// What an undo or reopen wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undone {
    /// The appended `reopened` row.
    pub entry: LogEntry,
    /// The decision it reopens.
    pub reopened: LogEntry,
    pub state: StateRevert,
}

fn shown(text: &str) -> String {
    sanitize::inline(text, 60)
}

fn overtaken(
    lang: Lang,
    item: &str,
    operator: &str,
    decided_at: &str,
    decision: Decision,
) -> String {
    let (item, operator, at) = (shown(item), shown(operator), shown(decided_at));
    if decision.is_reopening() {
        t!(
            lang,
            "error.decide.reopened_since",
            item = item,
            operator = operator,
            at = at
        )
    } else {
        t!(
            lang,
            "error.decide.decided_since",
            item = item,
            operator = operator,
            at = at,
            decision = decision.label_in(lang)
        )
    }
}

/// Why a decision, undo or reopen wrote nothing. `Display` is in the
/// language of the messages ([`i18n::current`]); [`DecideError::message`]
/// in any.
#[derive(Debug)]
pub enum DecideError {
    Invalid(DecisionError),
    /// Another decision stands that the operator had not seen.
    AlreadyDecided {
        /// The log entry that stands.
        id: i64,
        item: String,
        operator: String,
        decided_at: String,
        decision: Decision,
    },
    /// Undo: the operator's last decision has been overtaken by a later entry.
    Superseded {
        id: i64,
        item: String,
        operator: String,
        decided_at: String,
        decision: Decision,
    },
    NotInFlight {
        receipt_id: ReceiptId,
        now_state: String,
    },
    ReceiptNotFound {
        receipt_id: ReceiptId,
    },
    ReceiptsIsView,
    Busy,
    ReadOnly,
    Full,
    Log(LogError),
    /// Any other failure of the database; its message, on one line.
    Database(String),
}

impl DecideError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Invalid(e) => e.message(lang),
            Self::AlreadyDecided {
                operator,
                decided_at,
                decision,
                ..
            } => t!(
                lang,
                "error.decide.already_decided",
                operator = shown(operator),
                at = shown(decided_at),
                decision = decision.label_in(lang)
            ),
            Self::Superseded {
                item,
                operator,
                decided_at,
                decision,
                ..
            } => t!(
                lang,
                "error.decide.cannot_undo",
                reason = overtaken(lang, item, operator, decided_at, *decision)
            ),
            Self::NotInFlight {
                receipt_id,
                now_state,
            } => t!(
                lang,
                "error.decide.not_in_flight",
                receipt_id = receipt_id,
                state = ReceiptState::say_in(&shown(now_state), lang)
            ),
            Self::ReceiptNotFound { receipt_id } => t!(
                lang,
                "error.decide.receipt_not_found",
                receipt_id = receipt_id
            ),
            Self::ReceiptsIsView => t!(lang, "error.decide.receipts_is_view").to_string(),
            Self::Busy => t!(lang, "error.decide.busy").to_string(),
            Self::ReadOnly => t!(lang, "error.decide.read_only").to_string(),
            Self::Full => t!(lang, "error.decide.full").to_string(),
            Self::Log(e) => e.message(lang),
            Self::Database(detail) => t!(lang, "error.decide.database", detail = detail),
        }
    }
}

impl fmt::Display for DecideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(i18n::current()))
    }
}

/// As `#[error(transparent)]` did: a wrapped error is this error, not its cause.
impl std::error::Error for DecideError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Invalid(e) => std::error::Error::source(e),
            Self::Log(e) => std::error::Error::source(e),
            _ => None,
        }
    }
}

impl From<DecisionError> for DecideError {
    fn from(e: DecisionError) -> Self {
        Self::Invalid(e)
    }
}

impl From<LogError> for DecideError {
    fn from(e: LogError) -> Self {
        match e {
            LogError::Engine { failure, detail } => match failure {
                Failure::Busy => Self::Busy,
                Failure::ReadOnly => Self::ReadOnly,
                Failure::Full => Self::Full,
                Failure::Other => Self::Database(detail),
            },
            other => Self::Log(other),
        }
    }
}

/// What a decision may write to `receipts`, as the storage found it.
pub(super) struct Writable {
    view: bool,
    columns: ReceiptColumns,
}

impl Writable {
    pub(super) fn of(source: &Source) -> Self {
        Self {
            view: source.is_view(),
            columns: source.columns.clone(),
        }
    }

    /// True when a state can be written here at all.
    fn states(&self) -> bool {
        !self.view && self.columns.state
    }
}

pub(super) fn check_operator(operator: &str) -> Result<&str, DecisionError> {
    let operator = operator.trim();
    if operator.is_empty() {
        Err(DecisionError::NoOperator)
    } else {
        Ok(operator)
    }
}

fn clean_note(note: Option<&str>) -> Option<&str> {
    note.filter(|n| !n.is_empty())
}

/// The request made consistent: the receipt the item names, sorted ids.
fn validate(req: &DecisionRequest) -> Result<(ReceiptId, Vec<ReceiptId>), DecisionError> {
    let (item_kind, receipt_id) = parse_item(&req.item)?;
    if item_kind != req.kind {
        return Err(DecisionError::KindMismatch {
            item: req.item.clone(),
            kind: req.kind,
        });
    }
    req.decision.check_for(req.kind)?;
    check_operator(&req.operator)?;
    let mut ids = req.receipt_ids.clone();
    if ids.is_empty() {
        ids.push(receipt_id);
    }
    ids.sort_unstable();
    ids.dedup();
    if !ids.contains(&receipt_id) {
        return Err(DecisionError::ItemNotCovered {
            item: req.item.clone(),
            receipt_id,
        });
    }
    if let Some(kept) = req.kept {
        if !super::keep::keeps(req.decision) {
            return Err(DecisionError::KeepsNone {
                decision: req.decision,
            });
        }
        if !ids.contains(&kept) {
            return Err(DecisionError::NotACopy {
                item: req.item.clone(),
                kept,
                copies: ids,
            });
        }
    }
    Ok((receipt_id, ids))
}

/// Records a decision. See [`DecisionRequest`] for the guard against
/// overwriting another operator. A stuck `completed` / `failed` also sets the
/// receipt's state (and `updated_at`) in the same transaction, only while it
/// is `in_flight`; `still_pending` and every other decision change no receipt.
pub fn decide(storage: &mut dyn Storage, req: &DecisionRequest) -> Result<Recorded, DecideError> {
    validate(req)?;
    let writable = Writable::of(storage.source());
    let mut tx = storage.begin_write()?;
    tx.ensure_log()?;
    let recorded = record_in(&mut *tx, &writable, req, None)?;
    tx.commit()?;
    Ok(recorded)
}

/// The guard of [`DecisionRequest::expected_last`], in the caller's transaction.
pub(super) fn check_guard(tx: &mut dyn WriteTx, req: &DecisionRequest) -> Result<(), DecideError> {
    if let Some(latest) = tx.latest_entry(&req.item)?
        && Some(latest.id) != req.expected_last
        && !latest.is_reopening()
    {
        return Err(already_decided(latest));
    }
    Ok(())
}

/// One decision in the caller's write transaction (the log is there): the
/// guard, the state change, the row (as a row of a step when `batch` says so).
pub(super) fn record_in(
    tx: &mut dyn WriteTx,
    writable: &Writable,
    req: &DecisionRequest,
    batch: Option<BatchRow>,
) -> Result<Recorded, DecideError> {
    let (receipt_id, receipt_ids) = validate(req)?;
    let operator = req.operator.trim();
    check_guard(tx, req)?;
    let now_text = time::format_rfc3339(req.now_ms);
    let state_change = match req.decision.target_state() {
        Some(target) => Some(set_state(tx, writable, receipt_id, target, &now_text)?),
        None => None,
    };
    let entry = tx.append(&NewEntry {
        item: &req.item,
        kind: req.kind,
        decision: req.decision,
        operator,
        decided_at: &now_text,
        receipt_ids: &receipt_ids,
        note: clean_note(req.note.as_deref()),
        reopens: None,
        state: state_change.as_ref().map(|c| &c.written),
        kept: req.kept,
        batch,
    })?;
    Ok(Recorded {
        entry,
        state_change: state_change.map(|c| c.change),
    })
}

/// Undoes `operator`'s latest decision still in force (the latest entry for
/// its item), that one alone: appends a `reopened` row for it and, if it
/// changed a receipt's state, puts the receipt back `in_flight` unless
/// someone changed the receipt since (then the state is kept and
/// [`StateRevert::Kept`] says so). `Ok(None)` when there is nothing to undo.
/// The screen's `u` is [`super::undo()`]: it reopens a step of several
/// decisions as it was taken, and asks first when a step reaches far.
///
/// When the operator's most recent decision has since been overtaken by
/// another operator's entry for the same item, nothing is written
/// ([`DecideError::Superseded`]): undo never reaches past it to an older
/// decision the operator did not mean ([`reopen`] names an item explicitly).
pub fn undo_last(
    storage: &mut dyn Storage,
    operator: &str,
    now_ms: Millis,
) -> Result<Option<Undone>, DecideError> {
    let operator = check_operator(operator)?;
    let writable = Writable::of(storage.source());
    let mut tx = storage.begin_write()?;
    if !tx.log_exists()? {
        return Ok(None);
    }
    tx.ensure_log()?;
    let target = tx.latest_standing_decision_by(operator)?;
    // A later decision of this operator that is no longer in force and was
    // not reopened has been overtaken; by whom?
    let overtaken = tx.latest_unreopened_decision_by(operator, target.as_ref().map(|t| t.id))?;
    if let Some(overtaken) = overtaken
        && let Some(latest) = tx.latest_entry(&overtaken.item)?
        && latest.operator != operator
    {
        return Err(DecideError::Superseded {
            id: latest.id,
            item: latest.item,
            operator: latest.operator,
            decided_at: latest.decided_at,
            decision: latest.decision,
        });
    }
    let Some(target) = target else {
        return Ok(None);
    };
    let undone = append_reopening(&mut *tx, &writable, target, operator, None, now_ms, None)?;
    tx.commit()?;
    Ok(Some(undone))
}

/// Reopens one item: appends a `reopened` row for its latest decision (and
/// reverts a state change as [`undo_last`] does). `Ok(None)` when the item has
/// no decision in force (never decided, or already reopened).
pub fn reopen(
    storage: &mut dyn Storage,
    item: &str,
    operator: &str,
    now_ms: Millis,
) -> Result<Option<Undone>, DecideError> {
    reopen_with(
        storage,
        &ReopenRequest {
            item: item.to_string(),
            operator: operator.to_string(),
            note: None,
            now_ms,
            expected_last: None,
        },
    )
}

/// [`reopen`] with a note and an optional guard (see [`ReopenRequest`]).
pub fn reopen_with(
    storage: &mut dyn Storage,
    req: &ReopenRequest,
) -> Result<Option<Undone>, DecideError> {
    parse_item(&req.item)?;
    let operator = check_operator(&req.operator)?;
    let writable = Writable::of(storage.source());
    let mut tx = storage.begin_write()?;
    if !tx.log_exists()? {
        return Ok(None);
    }
    tx.ensure_log()?;
    let Some(latest) = tx.latest_entry(&req.item)? else {
        return Ok(None);
    };
    if latest.is_reopening() {
        // Already pending: nothing to reopen, whatever the operator saw.
        return Ok(None);
    }
    if let Some(expected) = req.expected_last
        && expected != latest.id
    {
        return Err(already_decided(latest));
    }
    let undone = append_reopening(
        &mut *tx,
        &writable,
        latest,
        operator,
        clean_note(req.note.as_deref()),
        req.now_ms,
        None,
    )?;
    tx.commit()?;
    Ok(Some(undone))
}

fn already_decided(latest: LogEntry) -> DecideError {
    DecideError::AlreadyDecided {
        id: latest.id,
        item: latest.item,
        operator: latest.operator,
        decided_at: latest.decided_at,
        decision: latest.decision,
    }
}

struct WrittenState {
    change: StateChange,
    written: StateWritten,
}

/// `in_flight` → `target`, or a typed refusal.
fn set_state(
    tx: &mut dyn WriteTx,
    writable: &Writable,
    receipt_id: ReceiptId,
    target: ReceiptState,
    now_text: &str,
) -> Result<WrittenState, DecideError> {
    if writable.view {
        return Err(DecideError::ReceiptsIsView);
    }
    if !writable.columns.state {
        // Without a state column every receipt is `completed` (the contract's default).
        return Err(DecideError::NotInFlight {
            receipt_id,
            now_state: ReceiptState::Completed.as_str().to_string(),
        });
    }
    let Some(found) = tx.receipt_state(receipt_id)? else {
        return Err(DecideError::ReceiptNotFound { receipt_id });
    };
    let state = found.state.unwrap_or_default();
    if state != ReceiptState::InFlight.as_str() {
        return Err(DecideError::NotInFlight {
            receipt_id,
            now_state: state,
        });
    }
    if !tx.set_state_if_in_flight(receipt_id, target, now_text)? {
        // Not reachable inside the write transaction; kept as the guard it is.
        return Err(DecideError::NotInFlight {
            receipt_id,
            now_state: state,
        });
    }
    Ok(WrittenState {
        written: StateWritten {
            before: state.clone(),
            after: target.as_str().to_string(),
            updated_before: found.updated_at,
            updated_after: writable.columns.updated_at.then(|| now_text.to_string()),
        },
        change: StateChange {
            receipt_id,
            from: state,
            to: target,
        },
    })
}

/// Appends the `reopened` row for `target` (in the caller's transaction, as
/// a row of a step when `batch` says so) and reverts the receipt state it
/// wrote when nobody has changed it since.
pub(super) fn append_reopening(
    tx: &mut dyn WriteTx,
    writable: &Writable,
    target: LogEntry,
    operator: &str,
    note: Option<&str>,
    now_ms: Millis,
    batch: Option<BatchRow>,
) -> Result<Undone, DecideError> {
    let now_text = time::format_rfc3339(now_ms);
    let (revert, row_state) = match &target.state_after {
        None => (StateRevert::NoStateChange, None),
        Some(written) => {
            let (_, receipt_id) = parse_item(&target.item)?;
            revert_state(
                tx,
                writable,
                receipt_id,
                written,
                target.updated_at_after.as_deref(),
                &now_text,
            )?
        }
    };
    let kept_note;
    let note = match &revert {
        StateRevert::Kept {
            receipt_id,
            now_state,
        } => {
            let now = now_state.as_deref().unwrap_or("gone");
            kept_note = match note {
                Some(n) => {
                    format!("state kept: receipt {receipt_id} changed since (now {now}); {n}")
                }
                None => format!("state kept: receipt {receipt_id} changed since (now {now})"),
            };
            Some(kept_note.as_str())
        }
        _ => note,
    };
    let entry = tx.append(&NewEntry {
        item: &target.item,
        kind: target.kind,
        decision: Decision::Reopened,
        operator,
        decided_at: &now_text,
        receipt_ids: &target.receipt_ids,
        note,
        reopens: Some(target.id),
        state: row_state.as_ref(),
        kept: None,
        batch,
    })?;
    Ok(Undone {
        entry,
        reopened: target,
        state: revert,
    })
}

/// Puts the receipt back `in_flight` only while it still holds exactly the
/// state and `updated_at` that the reopened decision wrote.
fn revert_state(
    tx: &mut dyn WriteTx,
    writable: &Writable,
    receipt_id: ReceiptId,
    written_state: &str,
    written_updated: Option<&str>,
    now_text: &str,
) -> Result<(StateRevert, Option<StateWritten>), DecideError> {
    let kept = |now_state| StateRevert::Kept {
        receipt_id,
        now_state,
    };
    if !writable.states() {
        // Not writable here (any more): say what it is, if it can be read.
        let now = tx.receipt_state(receipt_id).ok().flatten();
        return Ok((kept(now.map(|s| s.state.unwrap_or_default())), None));
    }
    if tx.revert_state_if(receipt_id, written_state, written_updated, now_text)? {
        let state = StateWritten {
            before: written_state.to_string(),
            after: ReceiptState::InFlight.as_str().to_string(),
            updated_before: written_updated.map(str::to_string),
            updated_after: writable.columns.updated_at.then(|| now_text.to_string()),
        };
        Ok((
            StateRevert::Reverted {
                receipt_id,
                from: written_state.to_string(),
            },
            Some(state),
        ))
    } else {
        let now = tx
            .receipt_state(receipt_id)?
            .map(|s| s.state.unwrap_or_default());
        Ok((kept(now), None))
    }
}
