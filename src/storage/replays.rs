//! Replays counted per receipt. A one-off reading counts them with one
//! `GROUP BY`; a reader that reads the database again and again keeps the
//! counts ([`Replays`]) and reads only the rows added since, by rowid: at a
//! million receipts the whole count took about 11 ms of every refresh.

use std::collections::HashMap;

use super::error::StorageError;
use super::open::Database;
use super::source::{Related, RelationKind};
use super::value::{integer_id, is_overflow};
use crate::model::ReceiptId;

/// Replays absorbed per receipt, and all replay rows (none when `replays` is
/// absent or unusable).
pub fn load_replays(db: &Database) -> Result<(HashMap<ReceiptId, u32>, u64), StorageError> {
    if !db.source().replays.is_usable() {
        return Ok((HashMap::new(), 0));
    }
    let err = |e| db.error("reading replays", e);
    let mut stmt = db
        .conn()
        .prepare("SELECT \"receipt_id\", count(*) FROM main.\"replays\" GROUP BY 1")
        .map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    let mut per_receipt = HashMap::new();
    let mut total: u64 = 0;
    while let Some(row) = rows.next().map_err(err)? {
        let n: i64 = row.get(1).map_err(err)?;
        let n = u64::try_from(n).unwrap_or(0);
        total = total.saturating_add(n);
        if let Some(id) = integer_id(row.get_ref(0).map_err(err)?) {
            let count = per_receipt.entry(id).or_insert(0u32);
            *count = count.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        }
    }
    Ok((per_receipt, total))
}

/// Replay counts kept between readings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replays {
    /// Replays absorbed per receipt.
    pub per_receipt: HashMap<ReceiptId, u32>,
    /// All replay rows, including any whose receipt id is not an integer.
    pub total: u64,
    /// The rows counted, by rowid; `None` when they were counted without
    /// (a view has no rowid): read whole each time then.
    rows: Option<Counted>,
}

/// Which rows of a table were counted: what is compared with the table to
/// see that none was deleted or added below the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counted {
    count: i64,
    sum: i128,
    last: i64,
}

impl Replays {
    /// Brings the counts up to date with the rows added since the last call
    /// (all of them the first time, or when the table is a view). Whether a
    /// row was deleted or added below them is told by [`Replays::unchanged`].
    pub fn read(&mut self, db: &Database) -> Result<(), StorageError> {
        match &db.source().replays {
            Related::Usable(RelationKind::Table) => {}
            Related::Usable(RelationKind::View) => {
                let (per_receipt, total) = load_replays(db)?;
                *self = Replays {
                    per_receipt,
                    total,
                    rows: None,
                };
                return Ok(());
            }
            _ => {
                *self = Replays::default();
                return Ok(());
            }
        }
        let err = |e| db.error("reading replays", e);
        // Every row the first time (a rowid may be as low as `i64::MIN`).
        let (sql, after) = match self.rows {
            Some(rows) => (
                "SELECT \"_rowid_\", \"receipt_id\" FROM main.\"replays\" \
                 WHERE \"_rowid_\" > ?1 ORDER BY \"_rowid_\"",
                Some(rows.last),
            ),
            None => (
                "SELECT \"_rowid_\", \"receipt_id\" FROM main.\"replays\" ORDER BY \"_rowid_\"",
                None,
            ),
        };
        let mut seen = self.rows.unwrap_or(Counted {
            count: 0,
            sum: 0,
            last: i64::MIN,
        });
        let mut stmt = db.conn().prepare_cached(sql).map_err(err)?;
        let mut rows = match after {
            Some(last) => stmt.query([last]),
            None => stmt.query([]),
        }
        .map_err(err)?;
        while let Some(row) = rows.next().map_err(err)? {
            let rowid: i64 = row.get(0).map_err(err)?;
            seen.count += 1;
            seen.sum += i128::from(rowid);
            seen.last = rowid;
            self.total += 1;
            if let Some(id) = integer_id(row.get_ref(1).map_err(err)?) {
                let count = self.per_receipt.entry(id).or_insert(0);
                *count = count.saturating_add(1);
            }
        }
        self.rows = Some(seen);
        Ok(())
    }

    /// True when the table holds, up to the last rowid counted, just the
    /// rows counted (by number and sum of rowids), or the counts were made
    /// whole; false when the sum does not fit an integer.
    pub fn unchanged(&self, db: &Database) -> Result<bool, StorageError> {
        let Some(rows) = self.rows else {
            return Ok(true);
        };
        if !matches!(db.source().replays, Related::Usable(RelationKind::Table)) {
            return Ok(false);
        }
        let found = db.conn().query_row(
            "SELECT count(*), sum(\"_rowid_\") FROM main.\"replays\" WHERE \"_rowid_\" <= ?1",
            [rows.last],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Option<i64>>(1)?)),
        );
        match found {
            Ok((n, s)) => Ok(n == rows.count && i128::from(s.unwrap_or(0)) == rows.sum),
            Err(e) if is_overflow(&e) => Ok(false),
            Err(e) => Err(db.error("counting replays", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Access;

    fn db_with_replays(rows: &[(i64, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        crate::storage::init(&path).unwrap();
        // Replays of receipts not in the table, and one whose id is not one.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        for (id, receipt) in rows {
            conn.execute(
                "INSERT INTO replays(id, receipt_id, received_at) VALUES (?1, ?2, 'now')",
                rusqlite::params![id, receipt],
            )
            .unwrap();
        }
        (dir, path)
    }

    fn open(path: &std::path::Path) -> Database {
        Database::open(path, Access::ReadOnly).unwrap()
    }

    /// What a `GROUP BY` over the whole table counts.
    fn counted_whole(path: &std::path::Path) -> (HashMap<ReceiptId, u32>, u64) {
        load_replays(&open(path)).unwrap()
    }

    #[test]
    fn counts_kept_and_brought_up_to_date_equal_a_whole_count() {
        let (_dir, path) =
            db_with_replays(&[(i64::MIN, "9"), (1, "7"), (2, "7"), (5, "8"), (6, "x")]);
        let mut kept = Replays::default();
        kept.read(&open(&path)).unwrap();
        assert_eq!((kept.per_receipt.clone(), kept.total), counted_whole(&path));
        assert_eq!(kept.per_receipt[&7], 2);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        // Appended: read from the last rowid on, and the same as counted whole.
        conn.execute_batch("INSERT INTO replays VALUES (9, 8, 'now'), (10, 11, 'now');")
            .unwrap();
        assert!(kept.unchanged(&open(&path)).unwrap());
        kept.read(&open(&path)).unwrap();
        assert_eq!((kept.per_receipt.clone(), kept.total), counted_whole(&path));
        assert_eq!((kept.per_receipt[&8], kept.total), (2, 7));
        // Deleted, or added below the last rowid (even as many as deleted):
        // told, so that the reader counts them whole again.
        for sql in [
            "DELETE FROM replays WHERE id = 2;",
            "INSERT INTO replays VALUES (3, 7, 'now');",
            "DELETE FROM replays WHERE id = 5; INSERT INTO replays VALUES (4, 7, 'now');",
            "DELETE FROM replays;",
        ] {
            conn.execute_batch(sql).unwrap();
            assert!(!kept.unchanged(&open(&path)).unwrap(), "{sql}");
            kept = Replays::default();
            kept.read(&open(&path)).unwrap();
            assert_eq!(
                (kept.per_receipt.clone(), kept.total),
                counted_whole(&path),
                "{sql}"
            );
        }
        assert_eq!((kept.per_receipt.len(), kept.total), (0, 0));
    }

    #[test]
    fn a_view_of_replays_is_counted_whole_each_time() {
        let (_dir, path) = db_with_replays(&[(1, "7")]);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             ALTER TABLE replays RENAME TO replays_data;
             CREATE VIEW replays AS SELECT * FROM replays_data;",
        )
        .unwrap();
        let mut kept = Replays::default();
        kept.read(&open(&path)).unwrap();
        conn.execute_batch("INSERT INTO replays_data VALUES (2, 7, 'now');")
            .unwrap();
        kept.read(&open(&path)).unwrap();
        assert_eq!((kept.per_receipt[&7], kept.total, kept.rows), (2, 2, None));
        assert!(kept.unchanged(&open(&path)).unwrap());
    }
}
