//! A `review_log` row as an engine reads it, checked into a [`LogEntry`]:
//! the same checks whichever engine stores the log.

use crate::model::{Decision, Kind, LogEntry, ReceiptId};
use crate::storage::error::LogError;

/// The columns of a `review_log` row, as stored.
pub struct StoredEntry {
    pub id: i64,
    pub item: String,
    pub kind: String,
    pub decision: String,
    pub operator: String,
    pub decided_at: String,
    /// A JSON array of receipt ids.
    pub receipt_ids: String,
    pub note: Option<String>,
    pub reopens: Option<i64>,
    pub state_before: Option<String>,
    pub state_after: Option<String>,
    pub updated_at_before: Option<String>,
    pub updated_at_after: Option<String>,
    pub kept: Option<ReceiptId>,
    pub batch: Option<i64>,
}

impl StoredEntry {
    /// The entry, or why the row is not one the table's checks allow.
    pub fn into_entry(self) -> Result<LogEntry, LogError> {
        let id = self.id;
        let bad = |detail: String| LogError::BadRow { id, detail };
        let lang = crate::i18n::current();
        let kind = Kind::parse(&self.kind).ok_or_else(|| {
            bad(crate::t!(
                lang,
                "error.log.unknown_kind",
                kind = format!("{:?}", self.kind)
            ))
        })?;
        let decision = Decision::parse(&self.decision).ok_or_else(|| {
            bad(crate::t!(
                lang,
                "error.log.unknown_decision",
                decision = format!("{:?}", self.decision)
            ))
        })?;
        let receipt_ids: Vec<ReceiptId> = serde_json::from_str(&self.receipt_ids)
            .map_err(|e| bad(crate::t!(lang, "error.log.bad_receipt_ids", error = e)))?;
        Ok(LogEntry {
            id,
            item: self.item,
            kind,
            decision,
            operator: self.operator,
            decided_at: self.decided_at,
            receipt_ids,
            note: self.note,
            reopens: self.reopens,
            state_before: self.state_before,
            state_after: self.state_after,
            updated_at_before: self.updated_at_before,
            updated_at_after: self.updated_at_after,
            kept: self.kept,
            batch: self.batch,
        })
    }
}
