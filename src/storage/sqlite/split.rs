//! Reading `receipts` on several connections at once, each a range of rowids,
//! all within one state of the database.
//!
//! SQLite reads a table on one thread per connection, and page reading is a
//! good part of a full reading; with a connection per core the pages are read
//! (and the rows inspected) on every core. The connections must see exactly
//! what the main connection's read transaction sees, though, or a row updated
//! in between would be read in two states. Without SQLite's snapshot API (not
//! in the bundled build), that is checked: the helpers start their read
//! transactions *before* the main connection starts its own, and
//! `PRAGMA data_version` on the main connection, taken before they start and
//! again inside its transaction, tells whether anything was committed in
//! between. If so (or if anything else is off), the helpers are dropped and the
//! main connection reads alone: never a mixed reading, at worst a slower one.

use rusqlite::Connection;

use super::open::{Database, data_version};

/// Connections holding a read transaction, opened just before the main
/// connection's (see the module docs).
pub struct Helpers {
    conns: Vec<Connection>,
    /// `data_version` of the main connection before the helpers started.
    version: i64,
}

/// Fewer rowids than this are read by the main connection alone: a second
/// connection costs more than it saves.
const MIN_SPLIT: i64 = 16_384;

impl Helpers {
    /// Opens `n` helper connections, each in a read transaction, when the main
    /// connection is not in a transaction yet and `receipts` is a table that
    /// has rowids; `None` otherwise (or on any error: reading alone is always
    /// possible).
    pub fn open(db: &Database, n: usize) -> Option<Helpers> {
        if n == 0 || !db.conn().is_autocommit() || !has_rowids(db) {
            return None;
        }
        let version = data_version(db.conn()).ok()?;
        let mut conns = Vec::with_capacity(n);
        for _ in 0..n {
            let conn = db.connect().ok()?;
            conn.execute_batch("BEGIN").ok()?;
            // The first read of the transaction fixes what it sees.
            conn.query_row("SELECT count(*) FROM main.sqlite_master", [], |_| Ok(()))
                .ok()?;
            conns.push(conn);
        }
        Some(Helpers { conns, version })
    }

    /// Once the main connection is in its read transaction: the helpers and
    /// the rowid ranges to read, the first for the main connection and one for
    /// each helper, in ascending order and covering every rowid. `None` when
    /// something was committed since the helpers started, or when there are
    /// too few rows to be worth splitting. Also the rowids in each range (an
    /// upper bound of its rows).
    pub fn split(self, db: &Database) -> Option<(Vec<Connection>, Vec<Range>, u64)> {
        if db.conn().is_autocommit() || data_version(db.conn()).ok()? != self.version {
            return None;
        }
        let (lo, hi): (Option<i64>, Option<i64>) = db
            .conn()
            .query_row(BOUNDS, [], |row| Ok((row.get(0)?, row.get(1)?)))
            .ok()?;
        let (lo, hi) = (lo?, hi?);
        let parts = self.conns.len() + 1;
        let span = hi.checked_sub(lo)?;
        if span < MIN_SPLIT {
            return None;
        }
        let each = (span as u64 / parts as u64).saturating_add(1);
        Some((self.conns, ranges(lo, span, parts), each))
    }
}

/// The lowest and highest rowid. Each in a query of its own: SQLite finds a
/// lone `min` or `max` of the rowid at one end of the table, but one query
/// asking both reads the whole table (110 ms at a million receipts).
const BOUNDS: &str = "SELECT (SELECT min(_rowid_) FROM main.\"receipts\"), \
                             (SELECT max(_rowid_) FROM main.\"receipts\")";

/// A range of rowids: above `.0` (when given) and at most `.1` (when given).
pub type Range = (Option<i64>, Option<i64>);

/// `parts` ranges that split `lo..=lo + span` evenly; the first is open below
/// and the last above, so that together they cover every rowid. Rowids are
/// split by value, not by count: gaps only make the parts uneven.
fn ranges(lo: i64, span: i64, parts: usize) -> Vec<Range> {
    let cut = |k: usize| lo + (i128::from(span) * k as i128 / parts as i128) as i64;
    (0..parts)
        .map(|k| {
            let after = (k > 0).then(|| cut(k));
            let upto = (k + 1 < parts).then(|| cut(k + 1));
            (after, upto)
        })
        .collect()
}

/// True when `receipts` is a table whose `_rowid_` is its rowid (not a view,
/// and no column shadows the name).
fn has_rowids(db: &Database) -> bool {
    let source = db.source();
    !source.is_view()
        && !source.all_columns.iter().any(|c| {
            ["rowid", "_rowid_", "oid"]
                .iter()
                .any(|n| c.eq_ignore_ascii_case(n))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounds_are_found_without_reading_the_table() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE receipts (id INTEGER PRIMARY KEY, request_key TEXT UNIQUE);
             INSERT INTO receipts VALUES (3, 'a'), (9, 'b'), (40, NULL);",
        )
        .unwrap();
        let bounds: (i64, i64) = conn
            .query_row(BOUNDS, [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!(bounds, (3, 40));
        let mut plan = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {BOUNDS}"))
            .unwrap();
        let steps: Vec<String> = plan
            .query_map([], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // A search at each end, never a scan of the table or an index.
        assert!(
            steps.iter().filter(|s| s.starts_with("SEARCH")).count() == 2,
            "{steps:?}"
        );
        assert!(!steps.iter().any(|s| s.contains("SCAN main")), "{steps:?}");
    }

    #[test]
    fn ranges_cover_every_rowid_once() {
        for (lo, span, parts) in [(1, 999_999, 2), (-5, 10, 3), (7, 0, 1), (0, i64::MAX, 4)] {
            let r = ranges(lo, span, parts);
            assert_eq!(r.len(), parts);
            assert_eq!(r[0].0, None);
            assert_eq!(r[parts - 1].1, None);
            for w in r.windows(2) {
                assert_eq!(w[0].1, w[1].0, "{r:?}");
                assert!(w[0].1.is_some());
            }
            let inside = |id: i64| {
                r.iter()
                    .filter(|(a, b)| a.is_none_or(|a| id > a) && b.is_none_or(|b| id <= b))
                    .count()
            };
            for id in [lo, lo + span / 2, lo + span, i64::MIN, i64::MAX] {
                assert_eq!(inside(id), 1, "{id} in {r:?}");
            }
        }
    }
}
