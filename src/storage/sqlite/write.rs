//! A guarded decision's write transaction in SQLite: `BEGIN IMMEDIATE`, so
//! that what it reads cannot change before it commits (the busy timeout
//! waits for another writer; past it, the answer is busy).

use std::ops::ControlFlow;

use rusqlite::{Transaction, TransactionBehavior};

use super::open::Database;
use super::review_log;
use crate::model::{LogEntry, NewEntry, ReceiptId, ReceiptStamp, ReceiptState};
use crate::storage::backend::{ReviewRead, WriteTx};
use crate::storage::error::LogError;
use crate::storage::source::Source;

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

    fn latest_erasure_id(&mut self) -> Result<Option<i64>, LogError> {
        review_log::latest_erasure_id(&self.tx)
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

    fn erase_receipt(
        &mut self,
        receipt_id: ReceiptId,
        tombstone: &str,
    ) -> Result<crate::storage::Erasing, LogError> {
        review_log::erase_receipt(&self.tx, self.source, receipt_id, tombstone)
    }

    fn commit(self: Box<Self>) -> Result<(), LogError> {
        Ok(self.tx.commit()?)
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, params};

    use super::super::schema::init;
    use super::*;
    use crate::review::{self, Decision, DecisionRequest, Kind};
    use crate::storage::Access;

    /// 2026-11-29T12:00:00Z
    const NOW_MS: i64 = 1_795_953_600_000;

    /// A database made by `init` with receipts 1..=`n` in flight.
    fn stuck(dir: &tempfile::TempDir, n: i64) -> std::path::PathBuf {
        let path = dir.path().join("full.db");
        init(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        for id in 1..=n {
            conn.execute(
                "INSERT INTO receipts (id, scope, request_key, digest, payload, state, created_at) \
                 VALUES (?1, 's', ?2, 'd', ?3, 'in_flight', '2026-11-29T09:00:00Z')",
                params![id, format!("full-{id}"), format!(r#"{{"order":"{id}"}}"#)],
            )
            .unwrap();
        }
        path
    }

    fn failed(id: i64) -> DecisionRequest {
        DecisionRequest {
            item: format!("stuck:{id}"),
            kind: Kind::Stuck,
            decision: Decision::Failed,
            operator: "aiko".into(),
            note: Some("x".repeat(2000)),
            receipt_ids: vec![id],
            now_ms: NOW_MS,
            expected_last: None,
            kept: None,
        }
    }

    fn log_count(conn: &Connection) -> i64 {
        let exists: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'review_log'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        if exists == 0 {
            return 0;
        }
        conn.query_row("SELECT count(*) FROM review_log", [], |r| r.get(0))
            .unwrap()
    }

    fn state(conn: &Connection, id: i64) -> (String, Option<String>) {
        conn.query_row(
            "SELECT state, updated_at FROM receipts WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    }

    /// Decision after decision until the database is full: the one that
    /// does not fit is refused as such, and neither its log row nor its
    /// state change is written (SQLite may have rolled the transaction back
    /// itself). A page limit of the engine's own connection makes it full.
    #[test]
    fn a_full_database_refuses_the_decision_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = stuck(&dir, 200);
        let mut db = Database::open(&path, Access::PreferWrite).unwrap();
        let pages: i64 = db
            .conn()
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap();
        db.conn()
            .pragma_update(None, "max_page_count", pages + 24)
            .unwrap();
        let mut recorded = 0;
        let mut refused = None;
        for id in 1..=200 {
            let before = log_count(db.conn());
            match review::decide(&mut db, &failed(id)) {
                Ok(_) => recorded += 1,
                Err(e) => {
                    let text = e.to_string();
                    assert!(
                        text.contains("full") && text.contains("nothing recorded"),
                        "{text}"
                    );
                    assert_eq!(log_count(db.conn()), before);
                    assert_eq!(
                        state(db.conn(), id).0,
                        "in_flight",
                        "a state change without its log row"
                    );
                    refused = Some(id);
                    break;
                }
            }
        }
        let refused = refused.expect("the page limit was never reached");
        assert!(recorded > 0);
        drop(db);

        let conn = Connection::open(&path).unwrap();
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(integrity, "ok");
        assert_eq!(log_count(&conn), recorded);
        // Every receipt failed has its log row, which wrote just that.
        for id in 1..=200 {
            let (state, updated_at) = state(&conn, id);
            if id < refused {
                let logged: (String, Option<String>) = conn
                    .query_row(
                        "SELECT state_after, updated_at_after FROM review_log WHERE item = ?1",
                        [format!("stuck:{id}")],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .unwrap();
                assert_eq!((state, updated_at), logged, "receipt {id}");
            } else {
                assert_eq!(state, "in_flight", "receipt {id}");
            }
        }
        drop(conn);

        // With room again, the refused decision goes through.
        let mut db = Database::open(&path, Access::PreferWrite).unwrap();
        review::decide(&mut db, &failed(refused)).unwrap();
        assert_eq!(state(db.conn(), refused).0, "failed");
    }
}
