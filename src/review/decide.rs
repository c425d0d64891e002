//! Guarded writes: decisions, undo and reopen.
//!
//! Each call is one short `BEGIN IMMEDIATE` transaction (the caller sets the
//! busy timeout): it re-reads what it depends on, refuses when another operator
//! got there first, changes `receipts.state` only where the SPEC allows it and
//! only if the receipt is still `in_flight`, appends one `review_log` row, and
//! commits. Either all of it happens or none of it.

use rusqlite::types::Value;
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

use super::decision::{DecisionError, parse_item};
use super::error::ReviewError;
use super::log::{entry_by_id, latest_entry_unchecked};
use super::schema::{ensure_review_log, log_table_exists};
use crate::model::{Decision, Kind, LogEntry, Millis, ReceiptId, ReceiptState};
use crate::sanitize;
use crate::time;

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

fn overtaken(item: &str, operator: &str, decided_at: &str, decision: Decision) -> String {
    let (item, operator, at) = (shown(item), shown(operator), shown(decided_at));
    if decision.is_reopening() {
        format!("{item} was reopened by {operator} at {at}")
    } else {
        format!("{item} was decided again by {operator} at {at} ({decision})")
    }
}

/// Why a decision, undo or reopen wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    #[error(transparent)]
    Invalid(#[from] DecisionError),
    /// Another decision stands that the operator had not seen.
    #[error("already decided by {} at {} ({decision})", shown(.operator), shown(.decided_at))]
    AlreadyDecided {
        /// The log entry that stands.
        id: i64,
        item: String,
        operator: String,
        decided_at: String,
        decision: Decision,
    },
    /// Undo: the operator's last decision has been overtaken by a later entry.
    #[error("cannot undo: {}", overtaken(.item, .operator, .decided_at, *.decision))]
    Superseded {
        id: i64,
        item: String,
        operator: String,
        decided_at: String,
        decision: Decision,
    },
    #[error("receipt {receipt_id} is no longer in flight (it is {} now); nothing recorded", shown(.now_state))]
    NotInFlight {
        receipt_id: ReceiptId,
        now_state: String,
    },
    #[error("receipt {receipt_id} does not exist; nothing recorded")]
    ReceiptNotFound { receipt_id: ReceiptId },
    #[error(
        "receipts is a view in this database, so receipt states cannot be changed; nothing recorded"
    )]
    ReceiptsIsView,
    #[error("the database is busy (another program is writing); nothing recorded, try again")]
    Busy,
    #[error("the database is read-only; nothing recorded")]
    ReadOnly,
    #[error("the disk is full (or the database is at its size limit); nothing recorded")]
    Full,
    #[error(transparent)]
    Log(ReviewError),
    #[error("database error: {}; nothing recorded", super::error::one_line(.0))]
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for DecideError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Self::Busy,
            Some(ErrorCode::ReadOnly) => Self::ReadOnly,
            Some(ErrorCode::DiskFull) => Self::Full,
            _ => Self::Sqlite(e),
        }
    }
}

impl From<ReviewError> for DecideError {
    fn from(e: ReviewError) -> Self {
        match e {
            ReviewError::Sqlite(e) => e.into(),
            other => Self::Log(other),
        }
    }
}

fn check_operator(operator: &str) -> Result<&str, DecisionError> {
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
    Ok((receipt_id, ids))
}

/// Records a decision. See [`DecisionRequest`] for the guard against
/// overwriting another operator. A stuck `completed` / `failed` also sets the
/// receipt's state (and `updated_at`) in the same transaction, only while it
/// is `in_flight`; `still_pending` and every other decision change no receipt.
pub fn decide(conn: &mut Connection, req: &DecisionRequest) -> Result<Recorded, DecideError> {
    let (receipt_id, receipt_ids) = validate(req)?;
    let operator = req.operator.trim();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    ensure_review_log(&tx)?;
    if let Some(latest) = latest_entry_unchecked(&tx, &req.item)?
        && Some(latest.id) != req.expected_last
        && !latest.is_reopening()
    {
        return Err(already_decided(latest));
    }
    let now_text = time::format_rfc3339(req.now_ms);
    let state_change = match req.decision.target_state() {
        Some(target) => Some(set_state(&tx, receipt_id, target, &now_text)?),
        None => None,
    };
    let entry = append(
        &tx,
        &NewRow {
            item: &req.item,
            kind: req.kind,
            decision: req.decision,
            operator,
            decided_at: &now_text,
            receipt_ids: &receipt_ids,
            note: clean_note(req.note.as_deref()),
            reopens: None,
            state: state_change.as_ref().map(|c| RowState {
                before: c.change.from.clone(),
                after: c.change.to.as_str().to_string(),
                updated_before: c.updated_before.clone(),
                updated_after: c.updated_after.clone(),
            }),
        },
    )?;
    tx.commit()?;
    Ok(Recorded {
        entry,
        state_change: state_change.map(|c| c.change),
    })
}

/// Undoes `operator`'s latest decision still in force (the latest entry for
/// its item): appends a `reopened` row for it and, if it changed a receipt's
/// state, puts the receipt back `in_flight` unless someone changed the receipt
/// since (then the state is kept and [`StateRevert::Kept`] says so).
/// `Ok(None)` when there is nothing to undo.
///
/// When the operator's most recent decision has since been overtaken by
/// another operator's entry for the same item, nothing is written
/// ([`DecideError::Superseded`]): undo never reaches past it to an older
/// decision the operator did not mean ([`reopen`] names an item explicitly).
pub fn undo_last(
    conn: &mut Connection,
    operator: &str,
    now_ms: Millis,
) -> Result<Option<Undone>, DecideError> {
    let operator = check_operator(operator)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !log_table_exists(&tx)? {
        return Ok(None);
    }
    ensure_review_log(&tx)?;
    let target: Option<i64> = tx
        .query_row(
            "SELECT d.id FROM review_log d \
             WHERE d.operator = ?1 AND d.decision <> 'reopened' \
               AND d.id = (SELECT max(x.id) FROM review_log x WHERE x.item = d.item) \
             ORDER BY d.id DESC LIMIT 1",
            [operator],
            |row| row.get(0),
        )
        .optional()?;
    // A later decision of this operator that is no longer in force and was
    // not reopened has been overtaken; by whom?
    let overtaken: Option<i64> = tx
        .query_row(
            "SELECT d.id FROM review_log d \
             WHERE d.operator = ?1 AND d.decision <> 'reopened' AND d.id > ?2 \
               AND NOT EXISTS (SELECT 1 FROM review_log r WHERE r.reopens = d.id) \
             ORDER BY d.id DESC LIMIT 1",
            params![operator, target.unwrap_or(i64::MIN)],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(overtaken) = overtaken
        .map(|id| entry_by_id(&tx, id))
        .transpose()?
        .flatten()
        && let Some(latest) = latest_entry_unchecked(&tx, &overtaken.item)?
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
    let Some(target) = target.map(|id| entry_by_id(&tx, id)).transpose()?.flatten() else {
        return Ok(None);
    };
    let undone = append_reopening(&tx, target, operator, None, now_ms)?;
    tx.commit()?;
    Ok(Some(undone))
}

/// Reopens one item: appends a `reopened` row for its latest decision (and
/// reverts a state change as [`undo_last`] does). `Ok(None)` when the item has
/// no decision in force (never decided, or already reopened).
pub fn reopen(
    conn: &mut Connection,
    item: &str,
    operator: &str,
    now_ms: Millis,
) -> Result<Option<Undone>, DecideError> {
    reopen_with(
        conn,
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
    conn: &mut Connection,
    req: &ReopenRequest,
) -> Result<Option<Undone>, DecideError> {
    parse_item(&req.item)?;
    let operator = check_operator(&req.operator)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !log_table_exists(&tx)? {
        return Ok(None);
    }
    ensure_review_log(&tx)?;
    let Some(latest) = latest_entry_unchecked(&tx, &req.item)? else {
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
        &tx,
        latest,
        operator,
        clean_note(req.note.as_deref()),
        req.now_ms,
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

struct RowState {
    before: String,
    after: String,
    updated_before: Option<String>,
    updated_after: Option<String>,
}

struct NewRow<'a> {
    item: &'a str,
    kind: Kind,
    decision: Decision,
    operator: &'a str,
    decided_at: &'a str,
    receipt_ids: &'a [ReceiptId],
    note: Option<&'a str>,
    reopens: Option<i64>,
    state: Option<RowState>,
}

fn append(conn: &Connection, row: &NewRow<'_>) -> Result<LogEntry, DecideError> {
    let ids = serde_json::to_string(row.receipt_ids).expect("a list of integers serialises");
    let state = row.state.as_ref();
    conn.prepare_cached(
        "INSERT INTO review_log (item, kind, decision, operator, decided_at, receipt_ids, note, \
         reopens, state_before, state_after, updated_at_before, updated_at_after) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        row.item,
        row.kind.as_str(),
        row.decision.as_str(),
        row.operator,
        row.decided_at,
        ids,
        row.note,
        row.reopens,
        state.map(|s| &s.before),
        state.map(|s| &s.after),
        state.and_then(|s| s.updated_before.as_ref()),
        state.and_then(|s| s.updated_after.as_ref()),
    ])?;
    let id = conn.last_insert_rowid();
    // A damaged file can lose the row it was just given: the transaction is
    // then rolled back, not trusted.
    entry_by_id(conn, id)?.ok_or_else(|| {
        DecideError::Log(ReviewError::BadRow {
            id,
            detail: "the row just written cannot be read back (the database file may be \
                     damaged); nothing recorded"
                .into(),
        })
    })
}

/// What `receipts` is in this database (the temp schema shadows main).
fn receipts_is_view(conn: &Connection) -> Result<Option<bool>, rusqlite::Error> {
    for master in ["sqlite_temp_master", "sqlite_master"] {
        let kind: Option<String> = conn
            .query_row(
                &format!(
                    "SELECT type FROM {master} WHERE name = 'receipts' COLLATE NOCASE \
                     AND type IN ('table', 'view')"
                ),
                [],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(kind) = kind {
            return Ok(Some(kind == "view"));
        }
    }
    Ok(None)
}

/// Which of the optional columns `state` and `updated_at` the table has.
fn receipts_columns(conn: &Connection) -> Result<(bool, bool), rusqlite::Error> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('receipts')")?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let has = |c: &str| names.iter().any(|n| n.eq_ignore_ascii_case(c));
    Ok((has("state"), has("updated_at")))
}

fn value_text(value: Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Integer(n) => Some(n.to_string()),
        Value::Real(x) => Some(x.to_string()),
        Value::Text(s) => Some(s),
        Value::Blob(b) => Some(format!("x'{}'", hex::encode(b))),
    }
}

/// The receipt's state and updated_at, `None` when there is no such receipt.
fn read_receipt(
    conn: &Connection,
    receipt_id: ReceiptId,
    has_updated: bool,
) -> Result<Option<(String, Option<String>)>, rusqlite::Error> {
    let sql = if has_updated {
        "SELECT state, updated_at FROM receipts WHERE id = ?1"
    } else {
        "SELECT state, NULL FROM receipts WHERE id = ?1"
    };
    conn.query_row(sql, [receipt_id], |row| {
        Ok((
            value_text(row.get(0)?).unwrap_or_default(),
            value_text(row.get(1)?),
        ))
    })
    .optional()
}

struct WrittenState {
    change: StateChange,
    updated_before: Option<String>,
    updated_after: Option<String>,
}

/// `in_flight` → `target`, or a typed refusal.
fn set_state(
    conn: &Connection,
    receipt_id: ReceiptId,
    target: ReceiptState,
    now_text: &str,
) -> Result<WrittenState, DecideError> {
    match receipts_is_view(conn)? {
        Some(true) => return Err(DecideError::ReceiptsIsView),
        Some(false) => {}
        None => return Err(DecideError::ReceiptNotFound { receipt_id }),
    }
    let (has_state, has_updated) = receipts_columns(conn)?;
    if !has_state {
        // Without a state column every receipt is `completed` (SPEC default).
        return Err(DecideError::NotInFlight {
            receipt_id,
            now_state: ReceiptState::Completed.as_str().to_string(),
        });
    }
    let Some((state, updated_before)) = read_receipt(conn, receipt_id, has_updated)? else {
        return Err(DecideError::ReceiptNotFound { receipt_id });
    };
    if state != ReceiptState::InFlight.as_str() {
        return Err(DecideError::NotInFlight {
            receipt_id,
            now_state: state,
        });
    }
    let changed = if has_updated {
        conn.execute(
            "UPDATE receipts SET state = ?1, updated_at = ?2 WHERE id = ?3 AND state = 'in_flight'",
            params![target.as_str(), now_text, receipt_id],
        )?
    } else {
        conn.execute(
            "UPDATE receipts SET state = ?1 WHERE id = ?2 AND state = 'in_flight'",
            params![target.as_str(), receipt_id],
        )?
    };
    if changed != 1 {
        // Not reachable inside the write transaction; kept as the guard it is.
        return Err(DecideError::NotInFlight {
            receipt_id,
            now_state: state,
        });
    }
    Ok(WrittenState {
        change: StateChange {
            receipt_id,
            from: state,
            to: target,
        },
        updated_before,
        updated_after: has_updated.then(|| now_text.to_string()),
    })
}

/// Appends the `reopened` row for `target` (in the caller's transaction) and
/// reverts the receipt state it wrote when nobody has changed it since.
fn append_reopening(
    conn: &Connection,
    target: LogEntry,
    operator: &str,
    note: Option<&str>,
    now_ms: Millis,
) -> Result<Undone, DecideError> {
    let now_text = time::format_rfc3339(now_ms);
    let (revert, row_state) = match &target.state_after {
        None => (StateRevert::NoStateChange, None),
        Some(written) => {
            let (_, receipt_id) = parse_item(&target.item)?;
            revert_state(
                conn,
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
    let entry = append(
        conn,
        &NewRow {
            item: &target.item,
            kind: target.kind,
            decision: Decision::Reopened,
            operator,
            decided_at: &now_text,
            receipt_ids: &target.receipt_ids,
            note,
            reopens: Some(target.id),
            state: row_state,
        },
    )?;
    Ok(Undone {
        entry,
        reopened: target,
        state: revert,
    })
}

/// Puts the receipt back `in_flight` only while it still holds exactly the
/// state and `updated_at` that the reopened decision wrote.
fn revert_state(
    conn: &Connection,
    receipt_id: ReceiptId,
    written_state: &str,
    written_updated: Option<&str>,
    now_text: &str,
) -> Result<(StateRevert, Option<RowState>), DecideError> {
    let kept = |now_state| StateRevert::Kept {
        receipt_id,
        now_state,
    };
    let (has_state, has_updated) = receipts_columns(conn)?;
    if receipts_is_view(conn)? != Some(false) || !has_state {
        // Not writable here (any more): say what it is, if it can be read.
        let now = read_receipt(conn, receipt_id, false).ok().flatten();
        return Ok((kept(now.map(|(s, _)| s)), None));
    }
    let changed = if has_updated {
        conn.execute(
            "UPDATE receipts SET state = 'in_flight', updated_at = ?1 \
             WHERE id = ?2 AND state = ?3 AND updated_at IS ?4",
            params![now_text, receipt_id, written_state, written_updated],
        )?
    } else {
        conn.execute(
            "UPDATE receipts SET state = 'in_flight' WHERE id = ?1 AND state = ?2",
            params![receipt_id, written_state],
        )?
    };
    if changed == 1 {
        let state = RowState {
            before: written_state.to_string(),
            after: ReceiptState::InFlight.as_str().to_string(),
            updated_before: written_updated.map(str::to_string),
            updated_after: has_updated.then(|| now_text.to_string()),
        };
        Ok((
            StateRevert::Reverted {
                receipt_id,
                from: written_state.to_string(),
            },
            Some(state),
        ))
    } else {
        let now = read_receipt(conn, receipt_id, false)?.map(|(s, _)| s);
        Ok((kept(now), None))
    }
}
