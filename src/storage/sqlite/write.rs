//! A guarded decision's write transaction in SQLite: `BEGIN IMMEDIATE`, so
//! that what it reads cannot change before it commits (the busy timeout
//! waits for another writer; past it, the answer is busy).

use std::ops::ControlFlow;

use rusqlite::{Transaction, TransactionBehavior};

use crate::storage::backend::{ReviewRead, WriteTx};
use crate::storage::error::LogError;
use super::open::Database;
use super::review_log;
use crate::storage::source::Source;
use crate::model::{LogEntry, NewEntry, ReceiptId, ReceiptStamp, ReceiptState};

/// A write transaction on the database's connection; rolled back when
/// dropped uncommitted.
pub struct WriteSession<'db> {
    tx: Transaction<'db>,
    source: &'db Source,
}

impl<'db> WriteSession<'db> {
    pub fn begin(db: &'db mut Database) -> Result<Self, LogError> {
        let (conn, source) = db.write_parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        Ok(Self { tx, source })
    }
}

impl ReviewRead for WriteSession<'_> {
    fn log_exists(&mut self) -> Result<bool, LogError> {
        review_log::log_exists(&self.tx)
    }

    fn each_entry(
        &mut self,
        each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
    ) -> Result<usize, LogError> {
        review_log::each_entry(&self.tx, each)
    }

    fn history(&mut self, item: &str) -> Result<Vec<LogEntry>, LogError> {
        review_log::history(&self.tx, item)
    }

    fn latest_entry(&mut self, item: &str) -> Result<Option<LogEntry>, LogError> {
        review_log::latest_entry(&self.tx, item)
    }

    fn entry(&mut self, id: i64) -> Result<Option<LogEntry>, LogError> {
        review_log::entry(&self.tx, id)
    }

    fn latest_log_id(&mut self) -> Result<Option<i64>, LogError> {
        review_log::latest_log_id(&self.tx)
    }

    fn batch_entries(&mut self, batch: i64) -> Result<Vec<LogEntry>, LogError> {
        review_log::batch_entries(&self.tx, batch)
    }

    fn latest_standing_decision_by(
        &mut self,
        operator: &str,
    ) -> Result<Option<LogEntry>, LogError> {
        review_log::latest_standing_decision_by(&self.tx, operator)
    }

    fn latest_unreopened_decision_by(
        &mut self,
        operator: &str,
        after: Option<i64>,
    ) -> Result<Option<LogEntry>, LogError> {
        review_log::latest_unreopened_decision_by(&self.tx, operator, after)
    }

    fn receipt_state(&mut self, receipt_id: ReceiptId) -> Result<Option<ReceiptStamp>, LogError> {
        review_log::receipt_state(&self.tx, self.source, receipt_id)
    }
}

impl WriteTx for WriteSession<'_> {
    fn ensure_log(&mut self) -> Result<(), LogError> {
        review_log::ensure_review_log(&self.tx)
    }

    fn append(&mut self, entry: &NewEntry<'_>) -> Result<LogEntry, LogError> {
        review_log::append(&self.tx, entry)
    }

    fn set_state_if_in_flight(
        &mut self,
        receipt_id: ReceiptId,
        to: ReceiptState,
        now: &str,
    ) -> Result<bool, LogError> {
        review_log::set_state_if_in_flight(&self.tx, self.source, receipt_id, to, now)
    }

    fn revert_state_if(
        &mut self,
        receipt_id: ReceiptId,
        state: &str,
        updated_at: Option<&str>,
        now: &str,
    ) -> Result<bool, LogError> {
        review_log::revert_state_if(&self.tx, self.source, receipt_id, state, updated_at, now)
    }

    fn commit(self: Box<Self>) -> Result<(), LogError> {
        Ok(self.tx.commit()?)
    }
}
