//! A guarded decision on PostgreSQL: one `READ COMMITTED` transaction that
//! first takes a transaction-scoped advisory lock held by every decision on
//! the database, so that what review reads (the item's last entry, a
//! receipt's state) and what it then writes are never interleaved with
//! another operator's: of two operators deciding one item at once, the
//! second reads the first's entry and is told who decided first.

use std::sync::MutexGuard;

use postgres::Client;

use super::review_log;
use super::schema::Shape;
use crate::model::{LogEntry, NewEntry, ReceiptId, ReceiptState};
use crate::storage::backend::WriteTx;
use crate::storage::error::LogError;

/// The advisory lock every decision holds ("review" in ASCII).
const DECISIONS_LOCK: i64 = 0x7265_7669_6577;

pub struct PgWrite<'db> {
    client: MutexGuard<'db, Client>,
    shape: &'db Shape,
    done: bool,
}

impl<'db> PgWrite<'db> {
    pub fn begin(mut client: MutexGuard<'db, Client>, shape: &'db Shape) -> Result<Self, LogError> {
        client.batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED")?;
        let mut write = Self {
            client,
            shape,
            done: false,
        };
        write
            .client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&DECISIONS_LOCK])?;
        Ok(write)
    }
}

impl Drop for PgWrite<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}

super::review_log::review_read_on_client!(PgWrite<'_>);

impl WriteTx for PgWrite<'_> {
    fn ensure_log(&mut self) -> Result<(), LogError> {
        review_log::ensure(&mut self.client)
    }

    fn append(&mut self, entry: &NewEntry<'_>) -> Result<LogEntry, LogError> {
        review_log::append(&mut self.client, entry)
    }

    fn set_state_if_in_flight(
        &mut self,
        receipt_id: ReceiptId,
        to: ReceiptState,
        now: &str,
    ) -> Result<bool, LogError> {
        review_log::set_state_if_in_flight(&mut self.client, self.shape, receipt_id, to, now)
    }

    fn revert_state_if(
        &mut self,
        receipt_id: ReceiptId,
        state: &str,
        updated_at: Option<&str>,
        now: &str,
    ) -> Result<bool, LogError> {
        review_log::revert_state_if(
            &mut self.client,
            self.shape,
            receipt_id,
            state,
            updated_at,
            now,
        )
    }

    fn erase_receipt(
        &mut self,
        receipt_id: ReceiptId,
        tombstone: &str,
    ) -> Result<crate::storage::Erasing, LogError> {
        review_log::erase_receipt(&mut self.client, self.shape, receipt_id, tombstone)
    }

    fn commit(mut self: Box<Self>) -> Result<(), LogError> {
        self.done = true;
        self.client.batch_execute("COMMIT")?;
        Ok(())
    }
}
