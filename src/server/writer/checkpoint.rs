//! The writer copies the WAL back into the database file itself, but only
//! after it has answered the batch that filled it. SQLite's automatic
//! checkpoint runs inside the commit, so every request of that batch would
//! wait for the checkpoint's page writes and its sync of the database file.
//! Run between batches, the checkpoint finds no transaction open and copies
//! every frame, so the next commit starts the WAL from its beginning again.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use rusqlite::Connection;

/// SQLite's own threshold for its automatic checkpoint, in pages.
pub const DUE_AT_PAGES: i32 = 1000;

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

    /// Checkpoints when the WAL has grown past [`DUE_AT_PAGES`]. A failure
    /// (a reader's snapshot holds the WAL) is left for the next time.
    pub fn checkpoint_if_due(&self, conn: &Connection) {
        if self.0.load(Ordering::Relaxed) < DUE_AT_PAGES {
            return;
        }
        if conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .is_ok()
        {
            self.0.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wal_pages(conn: &Connection) -> i64 {
        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
            .unwrap()
    }

    #[test]
    fn commits_leave_the_wal_alone_until_it_is_due() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("w.db")).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("CREATE TABLE t (x BLOB)").unwrap();
        let size = WalSize::watch(&mut conn).unwrap();
        // Each row fills about a page: SQLite alone would have checkpointed.
        for _ in 0..1200 {
            conn.execute("INSERT INTO t VALUES (zeroblob(3000))", [])
                .unwrap();
        }
        assert!(size.0.load(Ordering::Relaxed) >= DUE_AT_PAGES);
        let reader = Connection::open(dir.path().join("w.db")).unwrap();
        assert!(wal_pages(&reader) >= i64::from(DUE_AT_PAGES));
        size.checkpoint_if_due(&conn);
        assert_eq!(size.0.load(Ordering::Relaxed), 0);
        conn.execute("INSERT INTO t VALUES (1)", []).unwrap();
        assert!(
            wal_pages(&reader) < 10,
            "the next commit starts the WAL from its beginning"
        );
    }
}
