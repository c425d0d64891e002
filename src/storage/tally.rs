//! Rows that point at a receipt, counted per receipt: the retries a key
//! answered with the stored response (`replays`) and the exact copies the
//! intake server answered with the original's response (`absorbed`). Both
//! tables are optional and of one shape (`receipt_id`); neither is ever read
//! row by row, only counted.
//!
//! A one-off reading counts a table with one `GROUP BY`; a reader that reads
//! the database again and again keeps the counts ([`Tally`]) and reads only
//! the rows added since, by rowid: at a million receipts the whole count of
//! `replays` took about 11 ms of every refresh.

use std::collections::HashMap;

use super::error::StorageError;
use super::source::{Related, RelationKind, Source};
use super::sqlite::open::Database;
use super::sqlite::value::{integer_id, is_overflow};
use crate::model::ReceiptId;

/// A table whose rows each point at a receipt and are counted per receipt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CountedTable {
    /// Retries the key answered with the stored response.
    Replays,
    /// Exact copies of one visitor's fields that the intake server answered
    /// with the original's response within a form's window (never stored).
    Absorbed,
}

impl CountedTable {
    pub const ALL: [CountedTable; 2] = [CountedTable::Replays, CountedTable::Absorbed];

    /// The table's name: one of the contract's fixed names, the only kind of
    /// identifier put into SQL.
    pub fn name(self) -> &'static str {
        match self {
            Self::Replays => "replays",
            Self::Absorbed => "absorbed",
        }
    }

    /// How the table was found when the database was opened.
    pub fn related(self, source: &Source) -> &Related {
        match self {
            Self::Replays => &source.replays,
            Self::Absorbed => &source.absorbed,
        }
    }

    /// What is being done when its rows are read (a storage error's context).
    fn reading(self) -> &'static str {
        match self {
            Self::Replays => "reading replays",
            Self::Absorbed => "reading absorbed",
        }
    }

    /// What is being done when its rows are counted.
    fn counting(self) -> &'static str {
        match self {
            Self::Replays => "counting replays",
            Self::Absorbed => "counting absorbed",
        }
    }
}

/// The rows of `table` per receipt, and all its rows (none when the table is
/// absent or unusable).
pub fn load_tally(
    db: &Database,
    table: CountedTable,
) -> Result<(HashMap<ReceiptId, u32>, u64), StorageError> {
    if !table.related(db.source()).is_usable() {
        return Ok((HashMap::new(), 0));
    }
    let err = |e| db.error(table.reading(), e);
    let sql = format!(
        "SELECT \"receipt_id\", count(*) FROM main.\"{}\" GROUP BY 1",
        table.name()
    );
    let mut stmt = db.conn().prepare(&sql).map_err(err)?;
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

/// The counts of one table kept between readings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    table: CountedTable,
    /// Rows per receipt.
    pub per_receipt: HashMap<ReceiptId, u32>,
    /// All rows, including any whose receipt id is not an integer.
    pub total: u64,
    /// The rows counted, by rowid; `None` when they were counted without
    /// (a view has no rowid): read whole each time then.
    rows: Option<CountedRows>,
}

/// Which rows of a table were counted: what is compared with the table to
/// see that none was deleted or added below the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CountedRows {
    count: i64,
    sum: i128,
    last: i64,
}

impl Tally {
    /// Nothing counted yet.
    pub fn new(table: CountedTable) -> Self {
        Self {
            table,
            per_receipt: HashMap::new(),
            total: 0,
            rows: None,
        }
    }

    pub fn table(&self) -> CountedTable {
        self.table
    }

    /// Brings the counts up to date with the rows added since the last call
    /// (all of them the first time, or when the table is a view). Whether a
    /// row was deleted or added below them is told by [`Tally::unchanged`].
    pub fn read(&mut self, db: &Database) -> Result<(), StorageError> {
        let table = self.table;
        match table.related(db.source()) {
            Related::Usable(RelationKind::Table) => {}
            Related::Usable(RelationKind::View) => {
                let (per_receipt, total) = load_tally(db, table)?;
                *self = Tally {
                    per_receipt,
                    total,
                    ..Tally::new(table)
                };
                return Ok(());
            }
            _ => {
                *self = Tally::new(table);
                return Ok(());
            }
        }
        let err = |e| db.error(table.reading(), e);
        // Every row the first time (a rowid may be as low as `i64::MIN`).
        let (sql, after) = match self.rows {
            Some(rows) => (
                format!(
                    "SELECT \"_rowid_\", \"receipt_id\" FROM main.\"{}\" \
                     WHERE \"_rowid_\" > ?1 ORDER BY \"_rowid_\"",
                    table.name()
                ),
                Some(rows.last),
            ),
            None => (
                format!(
                    "SELECT \"_rowid_\", \"receipt_id\" FROM main.\"{}\" ORDER BY \"_rowid_\"",
                    table.name()
                ),
                None,
            ),
        };
        let mut seen = self.rows.unwrap_or(CountedRows {
            count: 0,
            sum: 0,
            last: i64::MIN,
        });
        let mut stmt = db.conn().prepare_cached(&sql).map_err(err)?;
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
        let table = self.table;
        if !matches!(
            table.related(db.source()),
            Related::Usable(RelationKind::Table)
        ) {
            return Ok(false);
        }
        let sql = format!(
            "SELECT count(*), sum(\"_rowid_\") FROM main.\"{}\" WHERE \"_rowid_\" <= ?1",
            table.name()
        );
        let found = db.conn().query_row(&sql, [rows.last], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, Option<i64>>(1)?))
        });
        match found {
            Ok((n, s)) => Ok(n == rows.count && i128::from(s.unwrap_or(0)) == rows.sum),
            Err(e) if is_overflow(&e) => Ok(false),
            Err(e) => Err(db.error(table.counting(), e)),
        }
    }
}

/// The tallies a reading keeps: replays and absorbed copies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tallies {
    pub replays: Tally,
    pub absorbed: Tally,
}

impl Default for Tallies {
    fn default() -> Self {
        Self {
            replays: Tally::new(CountedTable::Replays),
            absorbed: Tally::new(CountedTable::Absorbed),
        }
    }
}

impl Tallies {
    /// Each tally, to bring up to date.
    pub fn each_mut(&mut self) -> [&mut Tally; 2] {
        [&mut self.replays, &mut self.absorbed]
    }

    /// True when every table holds just the rows counted (see
    /// [`Tally::unchanged`]).
    pub fn unchanged(&self, db: &Database) -> Result<bool, StorageError> {
        Ok(self.replays.unchanged(db)? && self.absorbed.unchanged(db)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Access;

    /// A database made by `init` with these rows in `table`: some point at
    /// receipts not in the table, and one at an id that is not one.
    fn db_with(
        table: CountedTable,
        rows: &[(i64, &str)],
    ) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        crate::storage::init(&path).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        for (id, receipt) in rows {
            insert(&conn, table, *id, receipt);
        }
        (dir, path)
    }

    fn insert(conn: &rusqlite::Connection, table: CountedTable, id: i64, receipt: &str) {
        conn.execute(
            &format!(
                "INSERT INTO {}(id, receipt_id, received_at) VALUES (?1, ?2, 'now')",
                table.name()
            ),
            rusqlite::params![id, receipt],
        )
        .unwrap();
    }

    fn open(path: &std::path::Path) -> Database {
        Database::open(path, Access::ReadOnly).unwrap()
    }

    /// What a `GROUP BY` over the whole table counts.
    fn counted_whole(
        path: &std::path::Path,
        table: CountedTable,
    ) -> (HashMap<ReceiptId, u32>, u64) {
        load_tally(&open(path), table).unwrap()
    }

    #[test]
    fn counts_kept_and_brought_up_to_date_equal_a_whole_count() {
        for table in CountedTable::ALL {
            let name = table.name();
            let (_dir, path) = db_with(
                table,
                &[(i64::MIN, "9"), (1, "7"), (2, "7"), (5, "8"), (6, "x")],
            );
            let mut kept = Tally::new(table);
            kept.read(&open(&path)).unwrap();
            assert_eq!(
                (kept.per_receipt.clone(), kept.total),
                counted_whole(&path, table)
            );
            assert_eq!(kept.per_receipt[&7], 2, "{name}");
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
            // Appended: read from the last rowid on, and the same as counted whole.
            insert(&conn, table, 9, "8");
            insert(&conn, table, 10, "11");
            assert!(kept.unchanged(&open(&path)).unwrap(), "{name}");
            kept.read(&open(&path)).unwrap();
            assert_eq!(
                (kept.per_receipt.clone(), kept.total),
                counted_whole(&path, table)
            );
            assert_eq!((kept.per_receipt[&8], kept.total), (2, 7), "{name}");
            // Deleted, or added below the last rowid (even as many as deleted):
            // told, so that the reader counts them whole again.
            let changes: [&dyn Fn(); 4] = [
                &|| {
                    conn.execute_batch(&format!("DELETE FROM {name} WHERE id = 2;"))
                        .unwrap()
                },
                &|| insert(&conn, table, 3, "7"),
                &|| {
                    conn.execute_batch(&format!("DELETE FROM {name} WHERE id = 5;"))
                        .unwrap();
                    insert(&conn, table, 4, "7");
                },
                &|| conn.execute_batch(&format!("DELETE FROM {name};")).unwrap(),
            ];
            for (i, change) in changes.iter().enumerate() {
                change();
                assert!(!kept.unchanged(&open(&path)).unwrap(), "{name} change {i}");
                kept = Tally::new(table);
                kept.read(&open(&path)).unwrap();
                assert_eq!(
                    (kept.per_receipt.clone(), kept.total),
                    counted_whole(&path, table),
                    "{name} change {i}"
                );
            }
            assert_eq!((kept.per_receipt.len(), kept.total), (0, 0), "{name}");
        }
    }

    #[test]
    fn a_view_is_counted_whole_each_time() {
        for table in CountedTable::ALL {
            let name = table.name();
            let (_dir, path) = db_with(table, &[(1, "7")]);
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(&format!(
                "PRAGMA foreign_keys = OFF;
                 ALTER TABLE {name} RENAME TO {name}_data;
                 CREATE VIEW {name} AS SELECT * FROM {name}_data;"
            ))
            .unwrap();
            let mut kept = Tally::new(table);
            kept.read(&open(&path)).unwrap();
            conn.execute_batch(&format!(
                "INSERT INTO {name}_data(id, receipt_id, received_at) VALUES (2, 7, 'now');"
            ))
            .unwrap();
            kept.read(&open(&path)).unwrap();
            assert_eq!((kept.per_receipt[&7], kept.total, kept.rows), (2, 2, None));
            assert!(kept.unchanged(&open(&path)).unwrap());
        }
    }

    #[test]
    fn the_two_tables_are_counted_apart() {
        let (_dir, path) = db_with(CountedTable::Replays, &[(1, "7"), (2, "7")]);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        insert(&conn, CountedTable::Absorbed, 1, "8");
        let mut tallies = Tallies::default();
        for tally in tallies.each_mut() {
            tally.read(&open(&path)).unwrap();
        }
        assert_eq!(
            (tallies.replays.total, tallies.replays.per_receipt[&7]),
            (2, 2)
        );
        assert_eq!(
            (tallies.absorbed.total, tallies.absorbed.per_receipt[&8]),
            (1, 1)
        );
        assert!(!tallies.absorbed.per_receipt.contains_key(&7));
        assert!(tallies.unchanged(&open(&path)).unwrap());
        // A row deleted from either table is told.
        conn.execute("DELETE FROM absorbed", []).unwrap();
        assert!(!tallies.unchanged(&open(&path)).unwrap());
    }

    #[test]
    fn a_database_without_the_absorbed_table_counts_none() {
        let (_dir, path) = db_with(CountedTable::Replays, &[(1, "7")]);
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch("DROP TABLE absorbed")
            .unwrap();
        let db = open(&path);
        assert_eq!(db.source().absorbed, Related::Absent);
        let mut tally = Tally::new(CountedTable::Absorbed);
        tally.read(&db).unwrap();
        assert_eq!((tally.total, tally.per_receipt.len()), (0, 0));
        assert!(tally.unchanged(&db).unwrap());
        assert_eq!(load_tally(&db, CountedTable::Absorbed).unwrap().1, 0);
    }
}
