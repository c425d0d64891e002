//! The intake's writes on SQLite: every transaction `BEGIN IMMEDIATE`, so
//! that one writer at a time holds the file from its first read to its
//! commit; the server's commits durable (`synchronous=FULL` in WAL mode),
//! with the WAL copied back by a thread of its own ([`super::checkpoint`]).

use std::ops::ControlFlow;
use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::checkpoint::Checkpoints;
use super::schema::SCHEMA_SQL;
use crate::model::time::{format_rfc3339, parse_time_ref, read_text};
use crate::model::{Millis, ReceiptId, TimeRef};
use crate::storage::DEFAULT_BUSY_TIMEOUT;
use crate::storage::error::{Failure, show_path};
use crate::storage::intake::{
    AbsorbedKey, IntakeDatabase, IntakeLookups, IntakeMode, IntakeTx, KeyHolder, NewReceipt,
    OpenError, ReceiptAnswer, Settle, StoredReceipt, WriteFailure,
};
use crate::storage::location::Location;
use crate::t;

/// A SQLite database opened for the intake.
pub struct SqliteIntake {
    conn: Connection,
    location: Location,
    mode: IntakeMode,
    checkpoints: Option<Checkpoints>,
}

/// Opens `path` for the intake (see [`IntakeMode`]).
pub fn open(path: &Path, mode: IntakeMode) -> Result<Box<dyn IntakeDatabase>, OpenError> {
    let lang = crate::i18n::current();
    let shown = show_path(path);
    let failed = |e: rusqlite::Error| {
        let what = match mode {
            IntakeMode::Load => t!(lang, "commands.cannot_create", path = shown.clone()),
            _ => t!(lang, "serve.db.cannot_open", path = shown.clone()),
        };
        OpenError::Failed(format!("{what}: {}", failure(&e).detail))
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        let folder = show_path(folder);
        // A load creates the file: it says so, as `failed` does.
        return Err(OpenError::Refused(match mode {
            IntakeMode::Load => t!(
                lang,
                "commands.demo_no_folder",
                path = shown,
                folder = folder
            ),
            _ => t!(lang, "serve.db.no_folder", path = shown, folder = folder),
        }));
    }
    if path.is_dir() {
        return Err(OpenError::Refused(t!(
            lang,
            "serve.db.not_a_file",
            path = shown
        )));
    }
    if mode == IntakeMode::Load
        && let Ok(meta) = std::fs::metadata(path)
        && meta.len() > 0
    {
        return Err(OpenError::Refused(t!(
            lang,
            "commands.demo_exists",
            path = shown
        )));
    }
    let mut conn = Connection::open(path).map_err(failed)?;
    conn.busy_timeout(DEFAULT_BUSY_TIMEOUT).map_err(failed)?;
    match mode {
        IntakeMode::Serve => {
            let journal: String = conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
                .map_err(failed)?;
            if !journal.eq_ignore_ascii_case("wal") {
                return Err(OpenError::Refused(t!(
                    lang,
                    "serve.db.no_wal",
                    path = shown,
                    mode = journal
                )));
            }
            conn.pragma_update(None, "synchronous", "FULL")
                .map_err(failed)?;
            let kind: Option<String> = conn
                .query_row(
                    "SELECT type FROM sqlite_master WHERE name = 'receipts'",
                    [],
                    |r| r.get(0),
                )
                .optional()
                .map_err(failed)?;
            if kind.as_deref().is_some_and(|k| k != "table") {
                return Err(OpenError::Refused(t!(
                    lang,
                    "serve.db.receipts_not_a_table",
                    path = shown
                )));
            }
        }
        // Loading: a memory journal and no syncs; the file switches to WAL
        // when closed.
        IntakeMode::Load => conn
            .execute_batch(
                "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; \
                 PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;",
            )
            .map_err(failed)?,
        IntakeMode::Plain => {}
    }
    conn.execute_batch(SCHEMA_SQL)
        .and_then(|()| add_absorbed_digest(&conn))
        .map_err(failed)?;
    let checkpoints = match mode {
        IntakeMode::Serve => Some(Checkpoints::start(&mut conn).map_err(failed)?),
        _ => None,
    };
    Ok(Box::new(SqliteIntake {
        conn,
        location: Location::File(path.to_path_buf()),
        mode,
        checkpoints,
    }))
}

/// An `absorbed` table made before copies' digests were kept gains the
/// column; its old rows keep NULL (their receipt's digest stands in).
fn add_absorbed_digest(conn: &Connection) -> rusqlite::Result<()> {
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('absorbed') WHERE name = 'digest'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        conn.execute_batch("ALTER TABLE absorbed ADD COLUMN digest TEXT")?;
    }
    Ok(())
}

fn failure(e: &rusqlite::Error) -> WriteFailure {
    use rusqlite::ErrorCode;
    let failure = match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Failure::Busy,
        Some(ErrorCode::ReadOnly) => Failure::ReadOnly,
        Some(ErrorCode::DiskFull) => Failure::Full,
        _ => Failure::Other,
    };
    let text = e.to_string();
    WriteFailure {
        failure,
        detail: crate::sanitize::inline(
            &text.split_whitespace().collect::<Vec<_>>().join(" "),
            200,
        ),
    }
}

impl From<rusqlite::Error> for WriteFailure {
    fn from(e: rusqlite::Error) -> Self {
        failure(&e)
    }
}

/// When a stored time reads as one.
fn time_of(value: ValueRef<'_>) -> Option<Millis> {
    match value {
        ValueRef::Text(t) => read_text(std::str::from_utf8(t).ok()?).ok(),
        ValueRef::Integer(n) => parse_time_ref(TimeRef::Integer(n)).ok(),
        _ => None,
    }
}

fn key_holder(
    conn: &Connection,
    scope: &str,
    key: &str,
) -> Result<Option<KeyHolder>, WriteFailure> {
    Ok(conn
        .prepare_cached(
            "SELECT id, digest, state, response, coalesce(updated_at, created_at) FROM receipts \
             WHERE scope = ?1 AND request_key = ?2",
        )?
        .query_row(params![scope, key], |r| {
            Ok(KeyHolder {
                id: r.get(0)?,
                digest: r.get(1)?,
                state: r.get(2)?,
                response: r.get(3)?,
                claimed_at: time_of(r.get_ref(4)?),
            })
        })
        .optional()?)
}

fn absorbed_key_holder(
    conn: &Connection,
    scope: &str,
    key: &str,
) -> Result<Option<AbsorbedKey>, WriteFailure> {
    Ok(conn
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

fn receipt_answer(conn: &Connection, id: ReceiptId) -> Result<Option<ReceiptAnswer>, WriteFailure> {
    Ok(conn
        .prepare_cached("SELECT state, response FROM receipts WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(ReceiptAnswer {
                state: r.get(0)?,
                response: r.get(1)?,
            })
        })
        .optional()?)
}

impl IntakeLookups for SqliteIntake {
    fn key_holder(&mut self, scope: &str, key: &str) -> Result<Option<KeyHolder>, WriteFailure> {
        key_holder(&self.conn, scope, key)
    }

    fn absorbed_key_holder(
        &mut self,
        scope: &str,
        key: &str,
    ) -> Result<Option<AbsorbedKey>, WriteFailure> {
        absorbed_key_holder(&self.conn, scope, key)
    }

    fn receipt_answer(&mut self, id: ReceiptId) -> Result<Option<ReceiptAnswer>, WriteFailure> {
        receipt_answer(&self.conn, id)
    }
}

impl IntakeDatabase for SqliteIntake {
    fn begin(&mut self) -> Result<Box<dyn IntakeTx + '_>, WriteFailure> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        Ok(Box::new(SqliteIntakeTx {
            tx,
            conn: &self.conn,
            checkpoints: self.checkpoints.as_ref(),
        }))
    }

    fn newest_completed(
        &mut self,
        each: &mut dyn FnMut(StoredReceipt<'_>) -> ControlFlow<()>,
    ) -> Result<(), WriteFailure> {
        let mut stmt = self.conn.prepare(
            "SELECT id, scope, payload, created_at FROM receipts WHERE state = 'completed' ORDER BY id DESC",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (Ok(scope), Ok(payload)) = (row.get_ref(1)?.as_str(), row.get_ref(2)?.as_str())
            else {
                continue;
            };
            let receipt = StoredReceipt {
                id: row.get(0)?,
                scope,
                payload,
                created_ms: time_of(row.get_ref(3)?),
            };
            if each(receipt).is_break() {
                break;
            }
        }
        Ok(())
    }

    fn shares_writes(&self) -> bool {
        // One file on one machine: the server is its one writer.
        false
    }

    fn forget_visitors_before(&mut self, _before_ms: Millis) -> Result<(), WriteFailure> {
        Ok(())
    }

    fn location(&self) -> &Location {
        &self.location
    }

    fn close(self: Box<Self>) -> Result<(), WriteFailure> {
        let SqliteIntake {
            conn,
            location,
            mode,
            checkpoints,
        } = *self;
        if let Some(checkpoints) = checkpoints {
            checkpoints.finish();
        }
        if mode == IntakeMode::Load {
            let journal: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            if !journal.eq_ignore_ascii_case("wal") {
                return Err(WriteFailure::other(t!(
                    crate::i18n::current(),
                    "commands.demo_no_wal",
                    path = location.shown(),
                    mode = journal
                )));
            }
            conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA optimize;")?;
        }
        conn.close().map_err(|(_, e)| failure(&e))
    }
}

/// One `BEGIN IMMEDIATE` transaction of the intake.
struct SqliteIntakeTx<'c> {
    tx: Transaction<'c>,
    /// The transaction's connection, to checkpoint on after the commit.
    conn: &'c Connection,
    checkpoints: Option<&'c Checkpoints>,
}

impl SqliteIntakeTx<'_> {
    fn at(at_ms: Millis) -> String {
        format_rfc3339(at_ms)
    }
}

impl IntakeLookups for SqliteIntakeTx<'_> {
    fn key_holder(&mut self, scope: &str, key: &str) -> Result<Option<KeyHolder>, WriteFailure> {
        key_holder(&self.tx, scope, key)
    }

    fn absorbed_key_holder(
        &mut self,
        scope: &str,
        key: &str,
    ) -> Result<Option<AbsorbedKey>, WriteFailure> {
        absorbed_key_holder(&self.tx, scope, key)
    }

    fn receipt_answer(&mut self, id: ReceiptId) -> Result<Option<ReceiptAnswer>, WriteFailure> {
        receipt_answer(&self.tx, id)
    }
}

impl IntakeTx for SqliteIntakeTx<'_> {
    fn insert_in_flight(&mut self, r: &NewReceipt<'_>) -> Result<Option<ReceiptId>, WriteFailure> {
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'in_flight', ?5, ?5) \
                 ON CONFLICT (scope, request_key) DO NOTHING",
            )?
            .execute(params![r.scope, r.key, r.digest, r.payload, Self::at(r.at_ms)])?;
        // Same connection, same transaction: the row this statement inserted.
        Ok((inserted == 1).then(|| self.tx.last_insert_rowid()))
    }

    fn insert_completed(
        &mut self,
        r: &NewReceipt<'_>,
        response: &dyn Fn(ReceiptId) -> String,
    ) -> Result<Option<(ReceiptId, String)>, WriteFailure> {
        // The id SQLite would choose itself: the transaction holds the write
        // lock, so no other row can take it meanwhile, and the row is
        // written once, response and all.
        let id: ReceiptId = self
            .tx
            .prepare_cached("SELECT coalesce(max(id), 0) + 1 FROM receipts")?
            .query_row([], |row| row.get(0))?;
        let text = response(id);
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT INTO receipts (id, scope, request_key, digest, payload, state, response, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'completed', ?6, ?7, ?7) \
                 ON CONFLICT (scope, request_key) DO NOTHING",
            )?
            .execute(params![id, r.scope, r.key, r.digest, r.payload, text, Self::at(r.at_ms)])?;
        Ok((inserted == 1).then_some((id, text)))
    }

    fn insert_raw(
        &mut self,
        scope: &str,
        digest: &str,
        payload: &str,
        created_at: &str,
    ) -> Result<Option<ReceiptId>, WriteFailure> {
        self.tx
            .prepare_cached(
                "INSERT INTO receipts (scope, request_key, digest, payload, state, response, created_at, updated_at) \
                 VALUES (?1, NULL, ?2, ?3, 'completed', NULL, ?4, ?4)",
            )?
            .execute(params![scope, digest, payload, created_at])?;
        Ok(Some(self.tx.last_insert_rowid()))
    }

    fn reclaim_failed(&mut self, id: ReceiptId, at_ms: Millis) -> Result<bool, WriteFailure> {
        let changed = self
            .tx
            .prepare_cached(
                "UPDATE receipts SET state = 'in_flight', updated_at = ?2 WHERE id = ?1 AND state = 'failed'",
            )?
            .execute(params![id, Self::at(at_ms)])?;
        Ok(changed == 1)
    }

    fn settle(
        &mut self,
        id: ReceiptId,
        settle: Settle<'_>,
        at_ms: Millis,
    ) -> Result<Option<bool>, WriteFailure> {
        let changed = match settle {
            Settle::Completed(response) => self
                .tx
                .prepare_cached(
                    "UPDATE receipts SET state = 'completed', response = ?2, updated_at = ?3 \
                     WHERE id = ?1 AND state = 'in_flight'",
                )?
                .execute(params![id, response, Self::at(at_ms)])?,
            Settle::Failed => self
                .tx
                .prepare_cached(
                    "UPDATE receipts SET state = 'failed', updated_at = ?2 WHERE id = ?1 AND state = 'in_flight'",
                )?
                .execute(params![id, Self::at(at_ms)])?,
        };
        if changed == 1 {
            return Ok(Some(true));
        }
        let exists: Option<i64> = self
            .tx
            .prepare_cached("SELECT 1 FROM receipts WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        Ok(exists.map(|_| false))
    }

    fn record_replay(&mut self, id: ReceiptId, at_ms: Millis) -> Result<(), WriteFailure> {
        self.tx
            .prepare_cached("INSERT INTO replays (receipt_id, received_at) VALUES (?1, ?2)")?
            .execute(params![id, Self::at(at_ms)])?;
        Ok(())
    }

    fn record_conflict(
        &mut self,
        id: ReceiptId,
        digest: &str,
        payload: &str,
        at_ms: Millis,
    ) -> Result<(), WriteFailure> {
        self.tx
            .prepare_cached(
                "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, digest, payload, Self::at(at_ms)])?;
        Ok(())
    }

    fn record_absorbed(
        &mut self,
        id: ReceiptId,
        key: Option<&str>,
        digest: Option<&str>,
        at_ms: Millis,
    ) -> Result<(), WriteFailure> {
        self.tx
            .prepare_cached(
                "INSERT INTO absorbed (receipt_id, request_key, received_at, digest) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, key, Self::at(at_ms), digest])?;
        Ok(())
    }

    fn latest_visitor(
        &mut self,
        _scope: &str,
        _visitor: u128,
        _since_ms: Millis,
    ) -> Result<Option<(ReceiptId, Millis)>, WriteFailure> {
        Ok(None)
    }

    fn note_visitor(
        &mut self,
        _scope: &str,
        _visitor: u128,
        _id: ReceiptId,
        _at_ms: Millis,
    ) -> Result<(), WriteFailure> {
        Ok(())
    }

    fn serialize_on(&mut self, _lock: i64) -> Result<(), WriteFailure> {
        // BEGIN IMMEDIATE: one writer at a time already.
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<(), WriteFailure> {
        let SqliteIntakeTx {
            tx,
            conn,
            checkpoints,
        } = *self;
        tx.commit()?;
        if let Some(checkpoints) = checkpoints {
            checkpoints.after_batch(conn);
        }
        Ok(())
    }
}
