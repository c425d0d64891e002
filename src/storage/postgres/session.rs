//! One reading on PostgreSQL: a `REPEATABLE READ READ ONLY` transaction, so
//! that everything read until it ends (receipts, conflicts, tallies, the
//! review log) is of one snapshot.
//!
//! Ids can commit out of order: a transaction that took id 100 may commit
//! after the one that took 101. A reading therefore notes the ids below its
//! highest that it did not see, and the snapshot's horizon (the first
//! transaction id not yet begun). Once every transaction running then has
//! ended (a later snapshot's oldest running id has passed the horizon), an
//! id not seen will never commit; until then the next reading asks for them
//! ([`Session::committed_below`]). A writer that draws an id from the
//! sequence before its transaction has an id of its own (a `nextval` before
//! the first write) is not among the running ones: each missed id is
//! therefore also looked for during a grace of a minute, and the intake's
//! own transactions take their id first.

use std::collections::HashMap;
use std::sync::MutexGuard;

use postgres::Client;

use super::connect::error;
use super::rows::{self, Held};
use super::schema::Shape;
use crate::model::{RawConflict, ReceiptId, RowSink, RowSource};
use crate::storage::backend::{ReadCursor, Session};
use crate::storage::error::StorageError;
use crate::storage::location::Location;
use crate::storage::tally::{CountedTable, Tallies, Tally};

/// The most unseen ids a cursor keeps; beyond it (a legacy table whose ids
/// leave wide gaps) every reading is a full one.
const MOST_PENDING: usize = 100_000;

/// What one connection's range gave: rows, the highest id, every id seen.
type RangeRead = (u64, Option<ReceiptId>, Vec<ReceiptId>);

/// How long an id not seen is looked for at least, whatever the running
/// transactions say.
const PENDING_GRACE: std::time::Duration = std::time::Duration::from_secs(60);

/// Fewer ids than this between the lowest and the highest are read on one
/// connection.
const MIN_SPLIT: i64 = 50_000;

pub struct PgSession<'db> {
    client: MutexGuard<'db, Client>,
    /// More connections in the same snapshot, for a reading split by id
    /// ranges (each given back to the pool at the end), and the ranges.
    helpers: Vec<Client>,
    pool: Option<&'db std::sync::Mutex<Vec<Client>>>,
    ranges: Vec<(ReceiptId, ReceiptId)>,
    shape: &'db Shape,
    location: &'db Location,
    /// The snapshot's oldest transaction still running, and the first not
    /// yet begun.
    xmin: u64,
    xmax: u64,
    ended: bool,
}

impl<'db> PgSession<'db> {
    pub fn begin(
        mut client: MutexGuard<'db, Client>,
        shape: &'db Shape,
        location: &'db Location,
        split: Option<Split<'db>>,
    ) -> Result<Self, StorageError> {
        let err = |e: postgres::Error| error(location, "starting a read", &e);
        client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(err)?;
        // The transaction's first query takes its snapshot.
        let row = client
            .query_one(
                "SELECT pg_snapshot_xmin(pg_current_snapshot())::text, \
                        pg_snapshot_xmax(pg_current_snapshot())::text",
                &[],
            )
            .map_err(err)?;
        let number = |i: usize| row.get::<_, String>(i).parse::<u64>().unwrap_or(0);
        let (xmin, xmax) = (number(0), number(1));
        let mut session = Self {
            client,
            helpers: Vec::new(),
            pool: None,
            ranges: Vec::new(),
            shape,
            location,
            xmin,
            xmax,
            ended: false,
        };
        if let Some(split) = split {
            session.split(split)?;
        }
        Ok(session)
    }

    /// Shares the snapshot with helper connections (`pg_export_snapshot`,
    /// `SET TRANSACTION SNAPSHOT`) and divides the ids between them: a
    /// reading split so sees exactly what one connection would.
    fn split(&mut self, split: Split<'db>) -> Result<(), StorageError> {
        let err = |e: postgres::Error| error(self.location, "starting a read", &e);
        let bounds = self
            .client
            .query_one(
                "SELECT min(\"id\")::bigint, max(\"id\")::bigint FROM receipts",
                &[],
            )
            .map_err(err)?;
        let (Some(lo), Some(hi)) = (
            bounds.get::<_, Option<i64>>(0),
            bounds.get::<_, Option<i64>>(1),
        ) else {
            return Ok(());
        };
        if hi.saturating_sub(lo) < MIN_SPLIT || split.connections < 2 {
            return Ok(());
        }
        let snapshot: String = self
            .client
            .query_one("SELECT pg_export_snapshot()", &[])
            .map_err(err)?
            .get(0);
        let mut helpers = Vec::new();
        for _ in 1..split.connections {
            let taken = split.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let mut helper = match taken {
                Some(c) if !c.is_closed() => c,
                _ => match super::connect::connect(self.location, split.config) {
                    Ok(c) => c,
                    // Fewer helpers: the reading is split fewer ways.
                    Err(_) => break,
                },
            };
            // The snapshot's id is quoted as a literal: it is the server's own.
            let joined = helper.batch_execute(&format!(
                "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '{}'",
                snapshot.replace('\'', "")
            ));
            if joined.is_err() {
                let _ = helper.batch_execute("ROLLBACK");
                break;
            }
            helpers.push(helper);
        }
        if helpers.is_empty() {
            return Ok(());
        }
        let parts = helpers.len() as i64 + 1;
        let width = (hi - lo) / parts + 1;
        self.ranges = (0..parts)
            .map(|i| (lo + i * width, (lo + (i + 1) * width - 1).min(hi)))
            .collect();
        self.helpers = helpers;
        self.pool = Some(split.pool);
        Ok(())
    }

    /// Gives the helpers back to the pool, their transactions ended.
    fn release(&mut self) {
        for mut helper in self.helpers.drain(..) {
            if helper.batch_execute("COMMIT").is_ok()
                && let Some(pool) = self.pool
            {
                pool.lock().unwrap_or_else(|e| e.into_inner()).push(helper);
            }
        }
    }

    fn error(&self, context: &str, e: &postgres::Error) -> StorageError {
        error(self.location, context, e)
    }

    /// Reads every receipt, each connection its range of ids into its sink
    /// at once; gives the rows, the highest id and every id seen (ascending).
    fn receipts_split(
        &mut self,
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<RangeRead, StorageError> {
        let sql = format!(
            "{} WHERE \"id\" BETWEEN $1 AND $2 ORDER BY \"id\"",
            rows::receipt_select(self.shape, false)
        );
        let shape = self.shape;
        let done = std::sync::atomic::AtomicU64::new(0);
        let mut clients: Vec<&mut Client> = vec![&mut *self.client];
        clients.extend(self.helpers.iter_mut());
        let read: Vec<Result<RangeRead, postgres::Error>> = std::thread::scope(|scope| {
            let mut first = None;
            let mut others = Vec::new();
            for ((client, sink), &(lo, hi)) in
                clients.into_iter().zip(sinks.iter_mut()).zip(&self.ranges)
            {
                let sql = &sql;
                let done = &done;
                let mut job = move |tell: &mut dyn FnMut(u64)| {
                    let mut noting = Noting {
                        inner: &mut **sink,
                        ids: Vec::new(),
                    };
                    let mut before = 0;
                    let (count, last) =
                        rows::stream(client, shape, sql, &[&lo, &hi], &mut noting, &mut |n| {
                            let all = done
                                .fetch_add(n - before, std::sync::atomic::Ordering::Relaxed)
                                + (n - before);
                            before = n;
                            tell(all);
                        })?;
                    Ok((count, last, noting.ids))
                };
                if first.is_none() {
                    first = Some(job);
                } else {
                    others.push(scope.spawn(move || job(&mut |_| {})));
                }
            }
            let mut results =
                vec![first.map_or(Ok((0, None, Vec::new())), |mut job| job(progress))];
            results.extend(others.into_iter().map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }));
            results
        });
        let mut count = 0;
        let mut last = None;
        let mut seen = Vec::new();
        for part in read {
            let (n, l, ids) = part.map_err(|e| error(self.location, "reading receipts", &e))?;
            count += n;
            last = last.max(l);
            seen.extend(ids);
        }
        Ok((count, last, seen))
    }

    fn count_and_sum(&mut self, sql: &str, max: i64) -> Result<(i64, i128), StorageError> {
        let row = self
            .client
            .query_one(sql, &[&max])
            .map_err(|e| error(self.location, "counting receipts", &e))?;
        let sum: String = row.get(1);
        Ok((row.get(0), sum.parse().unwrap_or(0)))
    }
}

impl Drop for PgSession<'_> {
    fn drop(&mut self) {
        self.release();
        if !self.ended {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}

/// What a reading needs to split itself over more connections.
pub struct Split<'db> {
    pub connections: usize,
    /// Connections kept from earlier readings.
    pub pool: &'db std::sync::Mutex<Vec<Client>>,
    pub config: &'db postgres::Config,
}

/// The ids above `from` and below the highest of `seen` (ascending) that
/// `seen` lacks, added to `gaps` while it holds fewer than `room`; false
/// when it ran out of room.
fn note_gaps(gaps: &mut Vec<ReceiptId>, from: ReceiptId, seen: &[ReceiptId], room: usize) -> bool {
    let mut before = from;
    for &id in seen {
        let mut missing = before.saturating_add(1);
        while missing < id {
            if gaps.len() >= room {
                return false;
            }
            gaps.push(missing);
            missing += 1;
        }
        before = before.max(id);
    }
    true
}

/// A sink that notes the ids it passes on.
struct Noting<'s> {
    inner: &'s mut dyn RowSink,
    ids: Vec<ReceiptId>,
}

impl RowSink for Noting<'_> {
    fn row(&mut self, row: &crate::model::Row<'_>) {
        self.ids.push(row.id);
        self.inner.row(row);
    }

    fn rows(&mut self, rows: &dyn RowSource) {
        let mut buf = String::new();
        for i in 0..rows.len() {
            self.ids.push(rows.row(i, &mut buf).id);
        }
        self.inner.rows(rows);
    }
}

impl Session for PgSession<'_> {
    fn connections(&self) -> usize {
        1 + self.helpers.len()
    }

    fn rows_each(&self) -> Option<u64> {
        self.ranges
            .first()
            .map(|&(lo, hi)| u64::try_from(hi - lo + 1).unwrap_or(0))
    }

    fn end(mut self: Box<Self>) -> Result<(), StorageError> {
        self.release();
        self.ended = true;
        self.client
            .batch_execute("COMMIT")
            .map_err(|e| error(self.location, "ending a read", &e))
    }

    fn receipts(
        &mut self,
        after: Option<&ReadCursor>,
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<(u64, ReadCursor), StorageError> {
        let from = after.and_then(ReadCursor::last);
        let (count, last, seen) = if from.is_none() && !self.helpers.is_empty() {
            self.receipts_split(sinks, progress)?
        } else {
            let sql = format!(
                "{} WHERE \"id\" > $1 ORDER BY \"id\"",
                rows::receipt_select(self.shape, false)
            );
            let mut noting = Noting {
                inner: &mut *sinks[0],
                ids: Vec::new(),
            };
            let (count, last) = rows::stream(
                &mut self.client,
                self.shape,
                &sql,
                &[&from.unwrap_or(i64::MIN)],
                &mut noting,
                progress,
            )
            .map_err(|e| self.error("reading receipts", &e))?;
            (count, last, noting.ids)
        };
        let last = last.max(from);
        // Ids a reading before this one did not see, still able to commit:
        // while a transaction running then may still be running, and for a
        // grace besides (a writer that draws an id before its transaction
        // has an id of its own is not among those running).
        let (mut pending, mut since) = match after {
            Some(c)
                if self.xmin < c.horizon()
                    || c.pending_since()
                        .is_some_and(|at| at.elapsed() < PENDING_GRACE) =>
            {
                (c.pending().to_vec(), c.pending_since())
            }
            _ => (Vec::new(), None),
        };
        let before = pending.len();
        // Ids count from 1 in the schema's table; a table whose ids start
        // far above has no gaps below its first.
        let start = from.unwrap_or_else(|| match seen.first() {
            Some(&first) if first > MOST_PENDING as ReceiptId => first - 1,
            _ => 0,
        });
        let room = note_gaps(&mut pending, start, &seen, MOST_PENDING);
        if pending.len() > before {
            since = since.or_else(|| Some(std::time::Instant::now()));
        }
        let cursor = if room {
            let horizon = if pending.is_empty() { 0 } else { self.xmax };
            ReadCursor::up_to(last).with_pending(pending, horizon, since)
        } else {
            // Too many to keep: every later reading is a full one.
            ReadCursor::up_to(last).with_pending(vec![ReceiptId::MIN], u64::MAX, since)
        };
        Ok((count, cursor))
    }

    fn committed_below(&mut self, cursor: &ReadCursor) -> Result<bool, StorageError> {
        let pending = cursor.pending();
        if pending.is_empty() {
            return Ok(false);
        }
        if cursor.horizon() == u64::MAX {
            return Ok(true);
        }
        let row = self
            .client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM receipts WHERE \"id\" = ANY($1))",
                &[&pending],
            )
            .map_err(|e| self.error("reading receipts", &e))?;
        Ok(row.get(0))
    }

    fn receipts_by_id(
        &mut self,
        ids: &[ReceiptId],
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, StorageError> {
        let sql = format!(
            "{} WHERE \"id\" = ANY($1) ORDER BY \"id\"",
            rows::receipt_select(self.shape, true)
        );
        let ids = ids.to_vec();
        rows::stream(
            &mut self.client,
            self.shape,
            &sql,
            &[&ids],
            &mut *sinks[0],
            progress,
        )
        .map(|(count, _)| count)
        .map_err(|e| self.error("reading receipts", &e))
    }

    fn receipts_held(&mut self, ids: &[ReceiptId]) -> Result<Box<dyn RowSource>, StorageError> {
        let mut held: Vec<crate::model::RawReceipt> = Vec::new();
        self.receipts_by_id(ids, &mut [&mut held], &mut |_| {})?;
        Ok(Box::new(Held(held)))
    }

    fn state_stamps(
        &mut self,
        ids: &[ReceiptId],
    ) -> Result<Vec<(ReceiptId, String)>, StorageError> {
        let sql = rows::state_stamp_select(self.shape);
        let rows = self
            .client
            .query(&sql, &[&ids])
            .map_err(|e| self.error("reading the states of receipts", &e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn conflict_rows(&mut self, after: Option<i64>) -> Result<Vec<RawConflict>, StorageError> {
        rows::conflicts(&mut self.client, self.shape, after, false)
            .map_err(|e| error(self.location, "reading key_conflicts", &e))
    }

    fn tally(&mut self, tally: &mut Tally) -> Result<(), StorageError> {
        let table = tally.table();
        let mut per_receipt = HashMap::new();
        let mut total = 0u64;
        if table.related(&self.shape.source).is_usable() {
            let sql = format!(
                "SELECT \"receipt_id\"::bigint, count(*) FROM \"{}\" GROUP BY 1",
                table.name()
            );
            let rows = self
                .client
                .query(&sql, &[])
                .map_err(|e| error(self.location, counting(table), &e))?;
            for row in rows {
                let n = u64::try_from(row.get::<_, i64>(1)).unwrap_or(0);
                total = total.saturating_add(n);
                if let Some(id) = row.get::<_, Option<i64>>(0) {
                    per_receipt.insert(id, u32::try_from(n).unwrap_or(u32::MAX));
                }
            }
        }
        tally.per_receipt = per_receipt;
        tally.total = total;
        Ok(())
    }

    fn holds(
        &mut self,
        max: ReceiptId,
        count: usize,
        sum: i128,
        conflicts: &[RawConflict],
        tallies: &Tallies,
    ) -> Result<bool, StorageError> {
        let (n, s) = self.count_and_sum(
            "SELECT count(*), coalesce(sum(\"id\"), 0)::text FROM receipts WHERE \"id\" <= $1",
            max,
        )?;
        if n != count as i64 || s != sum {
            return Ok(false);
        }
        if let Some(last) = conflicts.last() {
            let want: i128 = conflicts.iter().map(|c| i128::from(c.id)).sum();
            let (n, s) = self.count_and_sum(
                "SELECT count(*), coalesce(sum(\"id\"), 0)::text FROM key_conflicts WHERE \"id\" <= $1",
                last.id,
            )?;
            if n != conflicts.len() as i64 || s != want {
                return Ok(false);
            }
        }
        for tally in [&tallies.replays, &tallies.absorbed] {
            let table = tally.table();
            if !table.related(&self.shape.source).is_usable() {
                continue;
            }
            let sql = format!("SELECT count(*) FROM \"{}\"", table.name());
            let n: i64 = self
                .client
                .query_one(&sql, &[])
                .map_err(|e| error(self.location, counting(table), &e))?
                .get(0);
            if u64::try_from(n).unwrap_or(0) != tally.total {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

fn counting(table: CountedTable) -> &'static str {
    match table {
        CountedTable::Replays => "counting replays",
        CountedTable::Absorbed => "counting absorbed",
    }
}

super::review_log::review_read_on_client!(PgSession<'_>);

#[cfg(test)]
mod tests {
    use super::note_gaps;

    #[test]
    fn gaps_are_the_ids_not_seen_below_the_highest() {
        let mut gaps = Vec::new();
        assert!(note_gaps(&mut gaps, 0, &[1, 2, 5, 6, 9], 100));
        assert_eq!(gaps, vec![3, 4, 7, 8]);
        let mut gaps = vec![1];
        assert!(!note_gaps(&mut gaps, 10, &[11, 20], 4));
        assert_eq!(gaps.len(), 4);
    }
}
