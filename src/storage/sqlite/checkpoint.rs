//! Copying the WAL back into the database file off the writer's path.
//!
//! SQLite's automatic checkpoint runs inside a commit, so every request of
//! that batch waited for the checkpoint's page writes and its sync of the
//! database file, and so did every request queued behind it. Instead a
//! thread of its own checkpoints (`PASSIVE`, never blocking the writer) once
//! the WAL has grown past [`DUE_AT_PAGES`], at most every [`EVERY`].
//!
//! A passive checkpoint cannot restart a WAL that the writer keeps
//! appending to, so under a steady load the writer still checkpoints by
//! itself, between batches, once the WAL reaches [`BACKSTOP_PAGES`]: by
//! then most pages are copied, and the next commit starts the WAL from its
//! beginning again.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

/// SQLite's own threshold for its automatic checkpoint, in pages.
pub const DUE_AT_PAGES: i32 = 1000;

/// The WAL's size at which the writer checkpoints by itself.
pub const BACKSTOP_PAGES: i32 = 8192;

/// The least time between two checkpoints of the thread.
pub const EVERY: Duration = Duration::from_millis(50);

/// The WAL's size after the last commit, in pages.
#[derive(Clone, Debug, Default)]
pub struct WalSize(Arc<AtomicI32>);

impl WalSize {
    /// Follows `conn`'s commits. This replaces SQLite's automatic
    /// checkpoint on `conn` (it is a WAL hook too).
    pub fn watch(conn: &mut Connection) -> rusqlite::Result<Self> {
        let size = Self::default();
        let seen = size.clone();
        conn.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages| {
            seen.0.store(pages, Ordering::Relaxed);
            Ok(())
        }))?;
        Ok(size)
    }

    pub fn pages(&self) -> i32 {
        self.0.load(Ordering::Relaxed)
    }

    fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

/// The thread that checkpoints, and the writer's backstop.
pub struct Checkpoints {
    wal: WalSize,
    nudge: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpoints {
    /// Starts the thread on a connection of its own to `writer`'s file;
    /// without one (a database in memory) the writer checkpoints alone.
    pub fn start(writer: &mut Connection) -> rusqlite::Result<Self> {
        let wal = WalSize::watch(writer)?;
        let own = writer
            .path()
            .filter(|p| !p.is_empty())
            .map(Connection::open)
            .transpose()?;
        let (nudge, thread) = match own {
            Some(conn) => {
                conn.busy_timeout(Duration::from_millis(100))?;
                let (nudge, nudged) = mpsc::sync_channel(1);
                let thread = std::thread::Builder::new()
                    .name("receipt-checkpoint".into())
                    .spawn(move || run(&conn, &nudged))
                    .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
                (Some(nudge), Some(thread))
            }
            None => (None, None),
        };
        Ok(Self { wal, nudge, thread })
    }

    /// After a batch was answered: a checkpoint by the thread when due, or
    /// by the writer itself at the backstop.
    pub fn after_batch(&self, writer: &Connection) {
        let pages = self.wal.pages();
        let nudged = pages >= DUE_AT_PAGES
            && self.nudge.as_ref().is_some_and(|n| {
                !matches!(n.try_send(()), Err(mpsc::TrySendError::Disconnected(())))
            });
        if (pages >= BACKSTOP_PAGES || (pages >= DUE_AT_PAGES && !nudged))
            && writer
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                .is_ok()
        {
            self.wal.reset();
        }
    }

    /// A last checkpoint, then the thread ends.
    pub fn finish(mut self) {
        drop(self.nudge.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(conn: &Connection, nudged: &mpsc::Receiver<()>) {
    loop {
        let last = match nudged.recv_timeout(Duration::from_secs(5)) {
            Ok(()) => false,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => true,
        };
        // Busy (the writer's own checkpoint): tried again at the next nudge.
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        if last {
            return;
        }
        std::thread::sleep(EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wal_pages(conn: &Connection) -> (i64, i64) {
        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((r.get(1)?, r.get(2)?))
        })
        .unwrap()
    }

    #[test]
    fn commits_leave_the_wal_to_the_thread_and_the_backstop_restarts_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let mut conn = Connection::open(&path).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("CREATE TABLE t (x BLOB)").unwrap();
        let checkpoints = Checkpoints::start(&mut conn).unwrap();
        // Each row fills about a page: SQLite alone would have checkpointed
        // inside the commits.
        for _ in 0..1200 {
            conn.execute("INSERT INTO t VALUES (zeroblob(3000))", [])
                .unwrap();
        }
        assert!(
            checkpoints.wal.pages() >= DUE_AT_PAGES,
            "no checkpoint in a commit"
        );
        checkpoints.after_batch(&conn);
        // The thread copies the pages back.
        let reader = Connection::open(&path).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            let (log, copied) = wal_pages(&reader);
            if copied == log {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for _ in 0..(BACKSTOP_PAGES - 1200) {
            conn.execute("INSERT INTO t VALUES (zeroblob(3000))", [])
                .unwrap();
        }
        checkpoints.after_batch(&conn);
        assert_eq!(
            checkpoints.wal.pages(),
            0,
            "the writer checkpointed at the backstop"
        );
        conn.execute("INSERT INTO t VALUES (1)", []).unwrap();
        assert!(
            wal_pages(&reader).0 < 10,
            "the next commit starts the WAL from its beginning"
        );
        checkpoints.finish();
    }
}
