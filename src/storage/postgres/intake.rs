//! The intake's writes on PostgreSQL, from any number of processes at once.
//!
//! A claim is `INSERT … ON CONFLICT (scope, request_key) DO NOTHING
//! RETURNING id`: of two processes inserting one key, the second waits for
//! the first's transaction to end and then inserts nothing; its read-back
//! (`READ COMMITTED`: each statement sees what committed before it began)
//! finds the first's row. Commits are durable before they return
//! (`synchronous_commit` left as the server has it, `on` by default).

use std::ops::ControlFlow;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, Statement};

use super::batch::Batch;
use super::connect;
use crate::model::time::{format_rfc3339, read_text};
use crate::model::{Millis, ReceiptId};
use crate::storage::intake::{
    AbsorbedKey, BatchPlan, IntakeDatabase, IntakeLookups, IntakeMode, IntakeTx, KeyHolder,
    NewReceipt, OpenError, ReceiptAnswer, Settle, StoredReceipt, WriteFailure,
};
use crate::storage::location::Location;

/// A PostgreSQL database opened for the intake.
pub struct PgIntake {
    client: Client,
    location: Location,
    statements: Statements,
}

/// The statements of the protocol, prepared once per connection.
struct Statements {
    key_holder: Statement,
    absorbed_key_holder: Statement,
    receipt_answer: Statement,
    insert_in_flight: Statement,
    next_id: Statement,
    insert_completed: Statement,
    reclaim_failed: Statement,
    complete: Statement,
    fail: Statement,
    exists: Statement,
    replay: Statement,
    conflict: Statement,
    absorbed: Statement,
    latest_visitor: Statement,
    note_visitor: Statement,
}

/// When a time column holds `at_ms`: text the server reads as `timestamptz`.
fn at(at_ms: Millis) -> String {
    format_rfc3339(at_ms)
}

impl Statements {
    fn prepare(client: &mut Client) -> Result<Self, postgres::Error> {
        let mut p = |sql: &str| client.prepare(sql);
        Ok(Self {
            key_holder: p("SELECT id, digest, state, response, \
                 (extract(epoch FROM coalesce(updated_at, created_at)) * 1000)::bigint \
                 FROM receipts WHERE scope = $1 AND request_key = $2")?,
            absorbed_key_holder: p("SELECT r.id, r.digest, r.state, r.response, a.digest \
                 FROM absorbed a JOIN receipts r ON r.id = a.receipt_id \
                 WHERE a.request_key = $1 AND r.scope = $2 \
                   AND NOT EXISTS (SELECT 1 FROM receipts h WHERE h.scope = $2 AND h.request_key = $1) \
                 ORDER BY a.id LIMIT 1")?,
            receipt_answer: p("SELECT state, response FROM receipts WHERE id = $1")?,
            insert_in_flight: p(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, 'in_flight', $5::text::timestamptz, $5::text::timestamptz) \
                 ON CONFLICT (scope, request_key) DO NOTHING RETURNING id",
            )?,
            next_id: p("SELECT nextval(pg_get_serial_sequence('receipts', 'id'))")?,
            insert_completed: p(
                "INSERT INTO receipts (id, scope, request_key, digest, payload, state, response, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, 'completed', $6, $7::text::timestamptz, $7::text::timestamptz) \
                 ON CONFLICT (scope, request_key) DO NOTHING RETURNING id",
            )?,
            reclaim_failed: p(
                "UPDATE receipts SET state = 'in_flight', updated_at = $2::text::timestamptz \
                 WHERE id = $1 AND state = 'failed'",
            )?,
            complete: p(
                "UPDATE receipts SET state = 'completed', response = $2, updated_at = $3::text::timestamptz \
                 WHERE id = $1 AND state = 'in_flight'",
            )?,
            fail: p(
                "UPDATE receipts SET state = 'failed', updated_at = $2::text::timestamptz \
                 WHERE id = $1 AND state = 'in_flight'",
            )?,
            exists: p("SELECT 1 FROM receipts WHERE id = $1")?,
            replay: p(
                "INSERT INTO replays (receipt_id, received_at) VALUES ($1, $2::text::timestamptz)",
            )?,
            conflict: p(
                "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) \
                 VALUES ($1, $2, $3, $4::text::timestamptz)",
            )?,
            absorbed: p(
                "INSERT INTO absorbed (receipt_id, request_key, received_at, digest) \
                 VALUES ($1, $2, $3::text::timestamptz, $4)",
            )?,
            latest_visitor: p(
                "SELECT receipt_id, (extract(epoch FROM received_at) * 1000)::bigint \
                 FROM recent_visitors WHERE scope = $1 AND visitor = $2 \
                   AND received_at >= $3::text::timestamptz \
                 ORDER BY received_at DESC, receipt_id DESC LIMIT 1",
            )?,
            note_visitor: p(
                "INSERT INTO recent_visitors (scope, visitor, receipt_id, received_at) \
                 VALUES ($1, $2, $3, $4::text::timestamptz)",
            )?,
        })
    }
}

/// Opens `location` for the intake: the schema created when missing; the
/// load of a demo refused where receipts are already stored.
pub fn open(location: &Location, mode: IntakeMode) -> Result<Box<dyn IntakeDatabase>, OpenError> {
    let refused = |e: crate::storage::StorageError| match e.exit_code() {
        crate::storage::error::EXIT_UNUSABLE => OpenError::Refused(e.to_string()),
        _ => OpenError::Failed(e.to_string()),
    };
    let config = connect::config(location).map_err(refused)?;
    let mut client = connect::connect(location, &config).map_err(refused)?;
    let shape = super::schema::detect(&mut client, location);
    if let Ok(shape) = &shape
        && shape.source.is_view()
    {
        return Err(OpenError::Refused(crate::t!(
            crate::i18n::current(),
            "serve.db.receipts_not_a_table",
            path = location.shown()
        )));
    }
    // Created only when something is missing: creating takes locks that
    // wait for every write in progress.
    if !super::schema::complete(&mut client)
        .map_err(|e| refused(connect::error(location, "opening", &e)))?
    {
        super::schema::create(&mut client, location).map_err(refused)?;
    }
    if mode == IntakeMode::Load {
        let any: bool = client
            .query_one("SELECT EXISTS (SELECT 1 FROM receipts)", &[])
            .map_err(|e| refused(connect::error(location, "opening", &e)))?
            .get(0);
        if any {
            return Err(OpenError::Refused(crate::t!(
                crate::i18n::current(),
                "commands.demo_exists",
                path = location.shown()
            )));
        }
    }
    let statements = Statements::prepare(&mut client)
        .map_err(|e| refused(connect::error(location, "opening", &e)))?;
    Ok(Box::new(PgIntake {
        client,
        location: location.clone(),
        statements,
    }))
}

impl From<postgres::Error> for WriteFailure {
    fn from(e: postgres::Error) -> Self {
        let (failure, detail) = connect::failure(&e);
        WriteFailure { failure, detail }
    }
}

/// The protocol's reads, on a connection in or out of a transaction.
fn key_holder(
    client: &mut Client,
    s: &Statements,
    scope: &str,
    key: &str,
) -> Result<Option<KeyHolder>, WriteFailure> {
    Ok(client
        .query_opt(&s.key_holder, &[&scope, &key])?
        .map(|r| KeyHolder {
            id: r.get(0),
            digest: r.get(1),
            state: r.get(2),
            response: r.get(3),
            claimed_at: r.get(4),
        }))
}

fn absorbed_key_holder(
    client: &mut Client,
    s: &Statements,
    scope: &str,
    key: &str,
) -> Result<Option<AbsorbedKey>, WriteFailure> {
    Ok(client
        .query_opt(&s.absorbed_key_holder, &[&key, &scope])?
        .map(|r| AbsorbedKey {
            id: r.get(0),
            receipt_digest: r.get(1),
            state: r.get(2),
            response: r.get(3),
            copy_digest: r.get(4),
        }))
}

fn receipt_answer(
    client: &mut Client,
    s: &Statements,
    id: ReceiptId,
) -> Result<Option<ReceiptAnswer>, WriteFailure> {
    Ok(client
        .query_opt(&s.receipt_answer, &[&id])?
        .map(|r| ReceiptAnswer {
            state: r.get(0),
            response: r.get(1),
        }))
}

impl IntakeLookups for PgIntake {
    fn key_holder(&mut self, scope: &str, key: &str) -> Result<Option<KeyHolder>, WriteFailure> {
        key_holder(&mut self.client, &self.statements, scope, key)
    }

    fn absorbed_key_holder(
        &mut self,
        scope: &str,
        key: &str,
    ) -> Result<Option<AbsorbedKey>, WriteFailure> {
        absorbed_key_holder(&mut self.client, &self.statements, scope, key)
    }

    fn receipt_answer(&mut self, id: ReceiptId) -> Result<Option<ReceiptAnswer>, WriteFailure> {
        receipt_answer(&mut self.client, &self.statements, id)
    }
}

impl IntakeDatabase for PgIntake {
    fn begin(&mut self) -> Result<Box<dyn IntakeTx + '_>, WriteFailure> {
        // A transaction id before any id is drawn from the sequence: a
        // reading that misses an id this transaction holds then knows a
        // transaction that may still commit it is running (see
        // `session.rs`).
        self.client
            .batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_current_xact_id()")?;
        Ok(Box::new(PgIntakeTx {
            client: &mut self.client,
            s: &self.statements,
            done: false,
            batch: None,
        }))
    }

    fn newest_completed(
        &mut self,
        each: &mut dyn FnMut(StoredReceipt<'_>) -> ControlFlow<()>,
    ) -> Result<(), WriteFailure> {
        let mut rows = self.client.query_raw(
            "SELECT id, scope, payload, (extract(epoch FROM created_at) * 1000)::bigint \
             FROM receipts WHERE state = 'completed' ORDER BY id DESC",
            std::iter::empty::<&(dyn ToSql + Sync)>(),
        )?;
        while let Some(row) = rows.next()? {
            let receipt = StoredReceipt {
                id: row.get(0),
                scope: row.get(1),
                payload: row.get(2),
                created_ms: row.get(3),
            };
            if each(receipt).is_break() {
                break;
            }
        }
        Ok(())
    }

    fn shares_writes(&self) -> bool {
        true
    }

    fn forget_visitors_before(&mut self, before_ms: Millis) -> Result<(), WriteFailure> {
        self.client.execute(
            "DELETE FROM recent_visitors WHERE received_at < $1::text::timestamptz",
            &[&at(before_ms)],
        )?;
        Ok(())
    }

    fn location(&self) -> &Location {
        &self.location
    }

    fn close(self: Box<Self>) -> Result<(), WriteFailure> {
        Ok(self.client.close()?)
    }
}

/// One transaction of the intake.
struct PgIntakeTx<'c> {
    client: &'c mut Client,
    s: &'c Statements,
    done: bool,
    /// A batch's reads made at once and writes held back ([`Batch`]).
    batch: Option<Batch>,
}

impl PgIntakeTx<'_> {
    /// Writes what the batch held back, before a statement that may read it.
    fn flush(&mut self) -> Result<(), WriteFailure> {
        match self.batch.as_mut() {
            Some(batch) => batch.flush(self.client),
            None => Ok(()),
        }
    }
}

impl Drop for PgIntakeTx<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}

impl IntakeLookups for PgIntakeTx<'_> {
    fn key_holder(&mut self, scope: &str, key: &str) -> Result<Option<KeyHolder>, WriteFailure> {
        let wanted = (scope.to_string(), key.to_string());
        if let Some(found) = self.batch.as_ref().and_then(|b| b.key_holders.get(&wanted)) {
            return Ok(found.clone());
        }
        self.flush()?;
        key_holder(self.client, self.s, scope, key)
    }

    fn absorbed_key_holder(
        &mut self,
        scope: &str,
        key: &str,
    ) -> Result<Option<AbsorbedKey>, WriteFailure> {
        let wanted = (scope.to_string(), key.to_string());
        if let Some(found) = self.batch.as_ref().and_then(|b| b.absorbed.get(&wanted)) {
            return Ok(found.clone());
        }
        self.flush()?;
        absorbed_key_holder(self.client, self.s, scope, key)
    }

    fn receipt_answer(&mut self, id: ReceiptId) -> Result<Option<ReceiptAnswer>, WriteFailure> {
        if let Some(found) = self.batch.as_ref().and_then(|b| b.answers.get(&id)) {
            return Ok(Some(found.clone()));
        }
        // What is held back never changes a stored receipt's answer.
        receipt_answer(self.client, self.s, id)
    }
}

impl IntakeTx for PgIntakeTx<'_> {
    fn insert_in_flight(&mut self, r: &NewReceipt<'_>) -> Result<Option<ReceiptId>, WriteFailure> {
        self.flush()?;
        if let (Some(batch), Some(key)) = (self.batch.as_mut(), r.key) {
            // Written at once: whoever holds the key is read again.
            let key = (r.scope.to_string(), key.to_string());
            batch.key_holders.remove(&key);
            batch.absorbed.remove(&key);
        }
        let row = self.client.query_opt(
            &self.s.insert_in_flight,
            &[&r.scope, &r.key, &r.digest, &r.payload, &at(r.at_ms)],
        )?;
        Ok(row.map(|r| r.get(0)))
    }

    fn insert_completed(
        &mut self,
        r: &NewReceipt<'_>,
        response: &dyn Fn(ReceiptId) -> String,
    ) -> Result<Option<(ReceiptId, String)>, WriteFailure> {
        if let Some(held) = self
            .batch
            .as_mut()
            .and_then(|b| b.insert_completed(r, response))
        {
            return Ok(Some(held));
        }
        self.flush()?;
        if let (Some(batch), Some(key)) = (self.batch.as_mut(), r.key) {
            let key = (r.scope.to_string(), key.to_string());
            batch.key_holders.remove(&key);
            batch.absorbed.remove(&key);
        }
        let id: ReceiptId = self.client.query_one(&self.s.next_id, &[])?.get(0);
        let text = response(id);
        let row = self.client.query_opt(
            &self.s.insert_completed,
            &[
                &id,
                &r.scope,
                &r.key,
                &r.digest,
                &r.payload,
                &text,
                &at(r.at_ms),
            ],
        )?;
        Ok(row.map(|_| (id, text)))
    }

    fn insert_raw(
        &mut self,
        scope: &str,
        digest: &str,
        payload: &str,
        created_at: &str,
    ) -> Result<Option<ReceiptId>, WriteFailure> {
        // A time column holds only times: a row whose time is not one
        // cannot be stored here.
        if read_text(created_at).is_err() {
            return Ok(None);
        }
        self.flush()?;
        let row = self.client.query_one(
            "INSERT INTO receipts (scope, request_key, digest, payload, state, response, created_at, updated_at) \
             VALUES ($1, NULL, $2, $3, 'completed', NULL, $4::text::timestamptz, $4::text::timestamptz) RETURNING id",
            &[&scope, &digest, &payload, &created_at],
        )?;
        Ok(Some(row.get(0)))
    }

    fn reclaim_failed(&mut self, id: ReceiptId, at_ms: Millis) -> Result<bool, WriteFailure> {
        self.flush()?;
        self.forget_holder_of(id);
        Ok(self
            .client
            .execute(&self.s.reclaim_failed, &[&id, &at(at_ms)])?
            == 1)
    }

    fn settle(
        &mut self,
        id: ReceiptId,
        settle: Settle<'_>,
        at_ms: Millis,
    ) -> Result<Option<bool>, WriteFailure> {
        self.flush()?;
        self.forget_holder_of(id);
        let changed = match settle {
            Settle::Completed(response) => self
                .client
                .execute(&self.s.complete, &[&id, &response, &at(at_ms)])?,
            Settle::Failed => self.client.execute(&self.s.fail, &[&id, &at(at_ms)])?,
        };
        if changed == 1 {
            return Ok(Some(true));
        }
        let exists = self.client.query_opt(&self.s.exists, &[&id])?;
        Ok(exists.map(|_| false))
    }

    fn record_replay(&mut self, id: ReceiptId, at_ms: Millis) -> Result<(), WriteFailure> {
        if let Some(batch) = self.batch.as_mut() {
            batch.replay(id, at_ms);
            return Ok(());
        }
        self.client.execute(&self.s.replay, &[&id, &at(at_ms)])?;
        Ok(())
    }

    fn record_conflict(
        &mut self,
        id: ReceiptId,
        digest: &str,
        payload: &str,
        at_ms: Millis,
    ) -> Result<(), WriteFailure> {
        if let Some(batch) = self.batch.as_mut() {
            batch.conflict(id, digest, payload, at_ms);
            return Ok(());
        }
        self.client
            .execute(&self.s.conflict, &[&id, &digest, &payload, &at(at_ms)])?;
        Ok(())
    }

    fn record_absorbed(
        &mut self,
        id: ReceiptId,
        key: Option<&str>,
        digest: Option<&str>,
        at_ms: Millis,
    ) -> Result<(), WriteFailure> {
        if let Some(batch) = self.batch.as_mut() {
            batch.absorbed_copy(id, key, digest, at_ms);
            return Ok(());
        }
        self.client
            .execute(&self.s.absorbed, &[&id, &key, &at(at_ms), &digest])?;
        Ok(())
    }

    fn latest_visitor(
        &mut self,
        scope: &str,
        visitor: u128,
        since_ms: Millis,
    ) -> Result<Option<(ReceiptId, Millis)>, WriteFailure> {
        let wanted = (scope.to_string(), visitor);
        if let Some(found) = self.batch.as_ref().and_then(|b| b.visitors.get(&wanted)) {
            return Ok(found.filter(|&(_, at)| at >= since_ms));
        }
        self.flush()?;
        let row = self.client.query_opt(
            &self.s.latest_visitor,
            &[&scope, &visitor.to_le_bytes().as_slice(), &at(since_ms)],
        )?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }

    fn note_visitor(
        &mut self,
        scope: &str,
        visitor: u128,
        id: ReceiptId,
        at_ms: Millis,
    ) -> Result<(), WriteFailure> {
        if let Some(batch) = self.batch.as_mut() {
            batch.note_visitor(scope, visitor, id, at_ms);
            return Ok(());
        }
        self.client.execute(
            &self.s.note_visitor,
            &[&scope, &visitor.to_le_bytes().as_slice(), &id, &at(at_ms)],
        )?;
        Ok(())
    }

    fn serialize_on(&mut self, lock: i64) -> Result<(), WriteFailure> {
        self.client
            .execute("SELECT pg_advisory_xact_lock($1)", &[&lock])?;
        Ok(())
    }

    fn prefetch(&mut self, plan: &BatchPlan<'_>) -> Result<(), WriteFailure> {
        self.flush()?;
        self.batch = Some(Batch::prefetch(self.client, plan)?);
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<(), WriteFailure> {
        // Written before the commit; a failure leaves the drop to roll back.
        self.flush()?;
        self.done = true;
        self.client.batch_execute("COMMIT")?;
        Ok(())
    }
}

impl PgIntakeTx<'_> {
    /// A receipt whose state is changed here: its key's holder is read again.
    fn forget_holder_of(&mut self, id: ReceiptId) {
        if let Some(batch) = self.batch.as_mut() {
            batch
                .key_holders
                .retain(|_, h| h.as_ref().is_none_or(|h| h.id != id));
            batch.answers.remove(&id);
        }
    }
}
