//! One state of the database, read on one connection or on one per core.
//!
//! A [`ReadSession`] is a read transaction held as a value: everything read
//! through it (receipts, receipts read again, key conflicts, tallies, counts)
//! comes from the same state of the database, and the transaction ends when
//! the session ends or is dropped. Whether the receipts are read on several
//! connections is decided here, once, when the session begins (see
//! [`super::split`]): the caller hands over one [`RowSink`] per connection
//! ([`Session::connections`]) and never asks which reading it got.
//!
//! [`Session`] is what a reading asks of any engine; [`ReadSession`] is
//! SQLite's.
//!
//! [`Session`]: crate::storage::backend::Session

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use rusqlite::{Connection, Transaction};

use super::open::Database;
use super::review_log;
use super::split::{Helpers, Range};
use super::stream::{self, Batch, Batches, Origin};
use crate::model::{LogEntry, RawConflict, ReceiptId, ReceiptStamp, RowSink, RowSource};
use crate::storage::backend::{Connections, ReadCursor, ReviewRead, Session};
use crate::storage::error::{LogError, StorageError};
use crate::storage::tally::{Tallies, Tally};

/// What one connection does with its piece of a reading: reads it into
/// its sink, telling how many rows were read so far; gives how many it read.
type Work<'a, P> = dyn Fn(&Connection, P, &mut dyn RowSink, &mut dyn FnMut(u64)) -> Result<u64, StorageError>
    + Sync
    + 'a;

/// Rows per batch when one connection reads while another thread inspects.
const BATCH_ROWS: usize = 8192;
/// Rows per batch of a connection that inspects what it reads itself, and
/// rows between reports of progress.
const LANE_ROWS: usize = 256;

/// A read transaction on the database's connection, and on helper
/// connections in the same state when the reading is split.
pub struct ReadSession<'db> {
    db: &'db Database,
    /// `None` inside a caller's transaction, whose state is read instead.
    tx: Option<Transaction<'db>>,
    helpers: Vec<Connection>,
    /// The rowid ranges of every receipt, one per connection, and an upper
    /// bound of the rows in each: only a reading of all receipts is split.
    ranges: Option<(Vec<Range>, u64)>,
}

/// How many helper connections to open: one per core besides the main one.
fn helpers_wanted() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        - 1
}

impl<'db> ReadSession<'db> {
    /// Begins a read of `db`. With [`Connections::EveryCore`] the helper
    /// connections start their transactions first; if anything was committed
    /// before the main one started its own, they are dropped and the session
    /// reads on one connection (never a reading of two states).
    pub fn begin(db: &'db Database, connections: Connections) -> Result<Self, StorageError> {
        Self::begin_with(db, connections, &mut || {})
    }

    /// [`ReadSession::begin`], running `between` after the helpers began
    /// and before the main connection does (a test commits there).
    fn begin_with(
        db: &'db Database,
        connections: Connections,
        between: &mut dyn FnMut(),
    ) -> Result<Self, StorageError> {
        let helpers = match connections {
            Connections::EveryCore => Helpers::open(db, helpers_wanted()),
            Connections::One => None,
        };
        between();
        let tx = db.read_transaction()?;
        let (helpers, ranges) = match helpers.and_then(|h| h.split(db)) {
            Some((conns, ranges, each)) => (conns, Some((ranges, each))),
            None => (Vec::new(), None),
        };
        Ok(Self {
            db,
            tx,
            helpers,
            ranges,
        })
    }
}

impl ReadSession<'_> {
    fn receipts_split(
        &mut self,
        ranges: &[Range],
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, StorageError> {
        let origin = Origin::of(self.db);
        let columns = &self.db.source().columns;
        let done = AtomicU64::new(0);
        let work =
            |conn: &Connection, range: Range, sink: &mut dyn RowSink, tell: &mut dyn FnMut(u64)| {
                let mut since = 0u64;
                let read = stream::each_rowid(conn, origin, columns, range, &mut |row| {
                    sink.row(row);
                    since += 1;
                    if since == LANE_ROWS as u64 {
                        let n = std::mem::take(&mut since);
                        tell(done.fetch_add(n, Ordering::Relaxed) + n);
                    }
                });
                tell(done.fetch_add(since, Ordering::Relaxed) + since);
                read
            };
        self.on_every_connection(ranges.iter().copied(), sinks, progress, &work)
    }

    /// The highest receipt id there is, in this session's state.
    fn highest_id(&self) -> Result<Option<ReceiptId>, StorageError> {
        self.db
            .conn()
            .query_row("SELECT max(\"id\") FROM main.\"receipts\"", [], |row| {
                Ok(super::value::integer_id(row.get_ref(0)?))
            })
            .map_err(|e| self.db.error("reading receipts", e))
    }

    /// Reads on the database's own connection while `sink` receives each batch
    /// on another thread; `progress` is told the rows read so far.
    fn pipelined(
        &self,
        sink: &mut dyn RowSink,
        progress: &mut dyn FnMut(u64),
        read: &mut dyn FnMut(&Database, Sink<'_>) -> Result<u64, StorageError>,
    ) -> Result<u64, StorageError> {
        let mut done = 0u64;
        pipeline(
            &mut |hand_over| {
                read(self.db, &mut |b| {
                    done += b.len() as u64;
                    progress(done);
                    hand_over(b)
                })
            },
            &mut |batch| sink.rows(batch),
        )
    }

    /// Runs `work` on every connection at once, each with its sink and its
    /// piece of the reading (the first on the database's own connection,
    /// whose `tell` is `progress`); gives the rows read in all. `pieces`
    /// must not run out before the connections do.
    fn on_every_connection<P: Send>(
        &mut self,
        mut pieces: impl Iterator<Item = P>,
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
        work: &Work<'_, P>,
    ) -> Result<u64, StorageError> {
        let first_piece = pieces.next().expect("a piece for each connection");
        let (first, rest) = sinks.split_first_mut().expect("one sink per connection");
        let helpers = std::mem::take(&mut self.helpers);
        let db = self.db;
        std::thread::scope(|scope| {
            let threads: Vec<_> = helpers
                .into_iter()
                .zip(rest.iter_mut())
                .zip(pieces)
                .map(|((conn, sink), piece)| {
                    scope.spawn(move || (work(&conn, piece, &mut **sink, &mut |_| {}), conn))
                })
                .collect();
            let mut total = work(db.conn(), first_piece, &mut **first, progress);
            for t in threads {
                let (read, conn) = t
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                self.helpers.push(conn);
                total = total.and_then(|n| Ok(n + read?));
            }
            total
        })
    }
}

impl ReviewRead for ReadSession<'_> {
    fn log_exists(&mut self) -> Result<bool, LogError> {
        review_log::log_exists(self.db.conn())
    }

    fn each_entry(
        &mut self,
        each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
    ) -> Result<usize, LogError> {
        review_log::each_entry(self.db.conn(), each)
    }

    fn history(&mut self, item: &str) -> Result<Vec<LogEntry>, LogError> {
        review_log::history(self.db.conn(), item)
    }

    fn latest_entry(&mut self, item: &str) -> Result<Option<LogEntry>, LogError> {
        review_log::latest_entry(self.db.conn(), item)
    }

    fn entry(&mut self, id: i64) -> Result<Option<LogEntry>, LogError> {
        review_log::entry(self.db.conn(), id)
    }

    fn latest_log_id(&mut self) -> Result<Option<i64>, LogError> {
        review_log::latest_log_id(self.db.conn())
    }

    fn latest_erasure_id(&mut self) -> Result<Option<i64>, LogError> {
        review_log::latest_erasure_id(self.db.conn())
    }

    fn batch_entries(&mut self, batch: i64) -> Result<Vec<LogEntry>, LogError> {
        review_log::batch_entries(self.db.conn(), batch)
    }

    fn latest_standing_decision_by(
        &mut self,
        operator: &str,
    ) -> Result<Option<LogEntry>, LogError> {
        review_log::latest_standing_decision_by(self.db.conn(), operator)
    }

    fn latest_unreopened_decision_by(
        &mut self,
        operator: &str,
        after: Option<i64>,
    ) -> Result<Option<LogEntry>, LogError> {
        review_log::latest_unreopened_decision_by(self.db.conn(), operator, after)
    }

    fn receipt_state(&mut self, receipt_id: ReceiptId) -> Result<Option<ReceiptStamp>, LogError> {
        review_log::receipt_state(self.db.conn(), self.db.source(), receipt_id)
    }
}

impl Session for ReadSession<'_> {
    /// How many connections read: one [`RowSink`] each.
    fn connections(&self) -> usize {
        1 + self.helpers.len()
    }

    /// About how many rows each sink receives when every receipt is read (an
    /// upper bound: rowids may have gaps), for sizing what they hold.
    fn rows_each(&self) -> Option<u64> {
        self.ranges.as_ref().map(|(_, each)| *each)
    }

    /// Ends the read transaction.
    fn end(mut self: Box<Self>) -> Result<(), StorageError> {
        self.helpers.clear();
        match self.tx.take() {
            Some(tx) => tx.commit().map_err(|e| self.db.error("ending a read", e)),
            None => Ok(()),
        }
    }

    /// Reads the receipts (all, or those with an id above `after`) into
    /// `sinks`, one per connection: every receipt on every connection, each
    /// row inspected by the sink of the connection that read it; otherwise on
    /// one, `sinks[0]` hearing batches while the next is read. `updated_at`
    /// is left out (no rule reads it). `progress` is told the rows read so far.
    fn receipts(
        &mut self,
        after: Option<&ReadCursor>,
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<(u64, ReadCursor), StorageError> {
        assert_eq!(sinks.len(), self.connections(), "one sink per connection");
        // One writer at a time takes ids in order: the highest read is
        // where the next reading starts.
        let after = after.and_then(ReadCursor::last);
        let mut last = after;
        let rows = match self.ranges.clone() {
            Some((ranges, _)) if after.is_none() => {
                let rows = self.receipts_split(&ranges, sinks, progress)?;
                last = self.highest_id()?;
                rows
            }
            _ => self.pipelined(&mut *sinks[0], progress, &mut |db, hand_over| {
                stream::stream_receipts_with(db, after, BATCH_ROWS, false, &mut |b| {
                    last = last.max(b.ids().max());
                    hand_over(b)
                })
            })?,
        };
        Ok((rows, ReadCursor::up_to(last)))
    }

    fn committed_below(&mut self, _cursor: &ReadCursor) -> Result<bool, StorageError> {
        // The write lock is held from an id's insert to its commit.
        Ok(false)
    }

    /// Reads the receipts with these ids (ascending) into `sinks`, one per
    /// connection, each connection a share of the ids in order. Ids that are
    /// not there are skipped. `progress` is told the rows read so far.
    fn receipts_by_id(
        &mut self,
        ids: &[ReceiptId],
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, StorageError> {
        assert_eq!(sinks.len(), self.connections(), "one sink per connection");
        if self.helpers.is_empty() {
            return self.pipelined(&mut *sinks[0], progress, &mut |db, hand_over| {
                stream::read_receipts_by_id(db, ids, BATCH_ROWS, hand_over)
            });
        }
        let share = ids.len().div_ceil(self.connections()).max(1);
        let shares = ids.chunks(share);
        let origin = Origin::of(self.db);
        let columns = &self.db.source().columns;
        let done = AtomicU64::new(0);
        let work = |conn: &Connection,
                    ids: &[ReceiptId],
                    sink: &mut dyn RowSink,
                    tell: &mut dyn FnMut(u64)| {
            let mut buf = String::new();
            stream::read_ids_on(conn, origin, columns, ids, LANE_ROWS, &mut |b| {
                for i in 0..b.len() {
                    sink.row(&b.row(i, &mut buf));
                }
                let n = b.len() as u64;
                tell(done.fetch_add(n, Ordering::Relaxed) + n);
                b
            })
        };
        let pieces = shares.chain(std::iter::repeat(&[][..]));
        let total = self.on_every_connection(pieces, sinks, progress, &work);
        // The helpers' last rows, read after the main share was done.
        progress(done.load(Ordering::Relaxed));
        total
    }

    /// The receipts with these ids (ascending), held together, for rules that
    /// look at all of them at once.
    fn receipts_held(&mut self, ids: &[ReceiptId]) -> Result<Box<dyn RowSource>, StorageError> {
        let mut batches: Vec<Batch> = Vec::new();
        stream::read_receipts_by_id(self.db, ids, BATCH_ROWS, &mut |b| {
            batches.push(b);
            Batch::with_capacity(BATCH_ROWS)
        })?;
        Ok(Box::new(Batches(batches)))
    }

    fn state_stamps(
        &mut self,
        ids: &[ReceiptId],
    ) -> Result<Vec<(ReceiptId, String)>, StorageError> {
        super::load::state_stamps(self.db, ids)
    }

    /// The rows of `key_conflicts` with an id above `after` (all with
    /// `None`), by id, their payloads (which no rule reads) left empty.
    fn conflict_rows(&mut self, after: Option<i64>) -> Result<Vec<RawConflict>, StorageError> {
        super::load::load_conflict_rows(self.db, after, false)
    }

    /// Brings the counts of one table's rows per receipt up to date.
    fn tally(&mut self, tally: &mut Tally) -> Result<(), StorageError> {
        tally.read(self.db)
    }

    /// True when the database holds the receipts and key conflicts a reader
    /// read: `count` receipts with ids summing to `sum` up to `max`, the
    /// `conflicts` (by id), and the rows `tallies` counted.
    fn holds(
        &mut self,
        max: ReceiptId,
        count: usize,
        sum: i128,
        conflicts: &[RawConflict],
        tallies: &Tallies,
    ) -> Result<bool, StorageError> {
        let Some((n, s)) = super::load::count_and_sum_ids(self.db, max)? else {
            return Ok(false);
        };
        if n != count as i64 || i128::from(s) != sum {
            return Ok(false);
        }
        let conflicts_ok = match conflicts.last() {
            None => true,
            Some(last) => {
                let sum: i128 = conflicts.iter().map(|c| i128::from(c.id)).sum();
                super::load::count_and_sum_conflict_ids(self.db, last.id)?
                    .is_some_and(|(n, s)| n == conflicts.len() as i64 && i128::from(s) == sum)
            }
        };
        Ok(conflicts_ok && tallies.unchanged(self.db)?)
    }
}

/// Takes a full batch and gives back an empty one to fill.
type Sink<'s> = &'s mut dyn FnMut(Batch) -> Batch;

/// Runs `produce` on this thread (it owns the connection) and `consume` on
/// another, handing batches over and recycling their buffers.
fn pipeline<T>(
    produce: &mut dyn FnMut(Sink<'_>) -> Result<T, StorageError>,
    consume: &mut (dyn FnMut(&Batch) + Send),
) -> Result<T, StorageError> {
    let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(1);
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    std::thread::scope(|scope| {
        let consumer = scope.spawn(move || {
            for mut batch in full_rx {
                consume(&batch);
                batch.clear();
                if empty_tx.send(batch).is_err() {
                    break;
                }
            }
        });
        let result = produce(&mut |batch| {
            // A consumer that died has dropped its end; its panic is raised below.
            let _ = full_tx.send(batch);
            empty_rx
                .try_recv()
                .unwrap_or_else(|_| Batch::with_capacity(BATCH_ROWS))
        });
        drop(full_tx);
        if let Err(panic) = consumer.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Access;

    /// A table of `n` receipts whose ids run far enough apart to be split.
    fn database(dir: &tempfile::TempDir, n: i64) -> std::path::PathBuf {
        let path = dir.path().join("r.db");
        let conn = Connection::open(&path).unwrap();
        // As `init` makes it: readers never block the intake's commits.
        conn.pragma_update(None, "journal_mode", "wal").unwrap();
        conn.execute_batch(super::super::schema::SCHEMA_SQL)
            .unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        for k in 0..n {
            tx.execute(
                "INSERT INTO receipts (id, scope, digest, payload, created_at) \
                 VALUES (?1, 's', 'd', '{}', '2026-11-29 10:00:00')",
                [k * 10 + 1],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        path
    }

    /// Collects the ids it receives.
    #[derive(Default)]
    struct Ids(Vec<ReceiptId>);

    impl RowSink for Ids {
        fn row(&mut self, row: &crate::model::Row<'_>) {
            self.0.push(row.id);
        }
    }

    fn read_ids(session: &mut ReadSession<'_>) -> Vec<Vec<ReceiptId>> {
        let mut sinks: Vec<Ids> = (0..session.connections()).map(|_| Ids::default()).collect();
        let mut dyn_sinks: Vec<&mut dyn RowSink> =
            sinks.iter_mut().map(|s| s as &mut dyn RowSink).collect();
        session.receipts(None, &mut dyn_sinks, &mut |_| {}).unwrap();
        sinks.into_iter().map(|s| s.0).collect()
    }

    #[test]
    fn a_reading_on_every_core_hears_each_row_once_in_order() {
        if helpers_wanted() == 0 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(database(&dir, 3000), Access::ReadOnly).unwrap();
        let mut session = ReadSession::begin(&db, Connections::EveryCore).unwrap();
        assert!(session.connections() > 1);
        let lanes = read_ids(&mut session);
        assert!(
            lanes.iter().all(|ids| !ids.is_empty()),
            "every connection read a share"
        );
        let all: Vec<ReceiptId> = lanes.concat();
        assert_eq!(all, (0..3000).map(|k| k * 10 + 1).collect::<Vec<_>>());
    }

    #[test]
    fn a_commit_while_the_helpers_begin_means_one_connection_and_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = database(&dir, 3000);
        let db = Database::open(&path, Access::ReadOnly).unwrap();
        let writer = Connection::open(&path).unwrap();
        let mut commit = || {
            writer
                .execute(
                    "INSERT INTO receipts (id, scope, digest, payload, created_at) \
                     VALUES (99999, 's', 'd', '{}', '2026-11-29 10:00:00')",
                    [],
                )
                .unwrap();
        };
        let mut session =
            ReadSession::begin_with(&db, Connections::EveryCore, &mut commit).unwrap();
        // The helpers saw the database before the commit: they are dropped.
        assert_eq!(session.connections(), 1);
        let lanes = read_ids(&mut session);
        assert_eq!(lanes.len(), 1);
        assert_eq!(lanes[0].len(), 3001, "the committed row is read too");
        assert_eq!(lanes[0].last(), Some(&99999));
        Box::new(session).end().unwrap();
    }

    #[test]
    fn a_read_inside_a_callers_transaction_reads_its_state_and_leaves_it_open() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(database(&dir, 2), Access::PreferWrite).unwrap();
        let tx = db
            .conn_mut()
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        tx.execute("UPDATE receipts SET state = 'failed' WHERE id = 11", [])
            .unwrap();
        drop(tx); // rolled back
        assert!(db.conn().is_autocommit());
        db.conn().execute_batch("BEGIN").unwrap();
        db.conn()
            .execute(
                "INSERT INTO receipts (id, scope, digest, payload, created_at) \
                 VALUES (21, 's', 'd', '{}', '2026-11-29 10:00:00')",
                [],
            )
            .unwrap();
        let mut session = ReadSession::begin(&db, Connections::One).unwrap();
        assert_eq!(
            read_ids(&mut session),
            [vec![1, 11, 21]],
            "what the caller wrote is read"
        );
        Box::new(session).end().unwrap();
        assert!(
            !db.conn().is_autocommit(),
            "the caller's transaction is left alone"
        );
        db.conn().execute_batch("ROLLBACK").unwrap();
        let mut session = ReadSession::begin(&db, Connections::One).unwrap();
        let mut rows: Vec<crate::model::RawReceipt> = Vec::new();
        session
            .receipts_by_id(&[1, 11, 21], &mut [&mut rows], &mut |_| {})
            .unwrap();
        Box::new(session).end().unwrap();
        let states: Vec<(ReceiptId, &str)> =
            rows.iter().map(|r| (r.id, r.state.as_str())).collect();
        assert_eq!(states, [(1, "completed"), (11, "completed")]);
        assert!(db.conn().is_autocommit(), "a read of its own ends");
    }
}
