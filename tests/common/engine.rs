//! One behavioural test, both engines. A test body is written once as
//! `fn case(engine: Engine)`; `both!(case)` makes it two tests,
//! `case::sqlite` and `case::postgres` (the second skipped, as in
//! [`super::pg`], when there is no cluster outside CI):
//!
//! ```ignore
//! fn a_replay_is_one_receipt(engine: Engine) {
//!     let place = Place::new(engine);
//!     let mut store = IntakeStore::open_at(place.location(), IntakeMode::Plain).unwrap();
//!     // ...
//!     assert_eq!(place.count("receipts"), 1);
//! }
//! both!(a_replay_is_one_receipt);
//! ```
//!
//! [`Place`] is a database of the test's own on one engine, and [`Sql`] a
//! connection of the test's own to it, for reading rows behind the program's
//! back with SQL that both engines take (times go through [`Place::time`]).

use std::path::{Path, PathBuf};

use receipt_review::storage::Location;

use super::pg::{PgDatabase, pg_database, why};

/// The engines a behavioural test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// Runs `case` on `engine`; on PostgreSQL only when there is a cluster to
/// run it on (under CI there must be one).
pub fn run(engine: Engine, case: fn(Engine)) {
    if engine == Engine::Sqlite || super::pg::wanted() {
        case(engine);
    }
}

/// Two tests of one case: `$case::sqlite` and `$case::postgres`.
#[macro_export]
macro_rules! both {
    ($($case:ident),+ $(,)?) => {$(
        mod $case {
            use $crate::common::engine::{Engine, run};

            #[test]
            fn sqlite() {
                run(Engine::Sqlite, super::$case);
            }

            #[test]
            fn postgres() {
                run(Engine::Postgres, super::$case);
            }
        }
    )+};
}

/// A database of the test's own, alive as long as the value: a file in a
/// folder of its own (not created until something opens it), or a fresh
/// PostgreSQL database (dropped with the value).
pub struct Place {
    location: Location,
    sqlite: Option<(tempfile::TempDir, PathBuf)>,
    pg: Option<PgDatabase>,
}

impl Place {
    pub fn new(engine: Engine) -> Self {
        match engine {
            Engine::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("receipts.db");
                Self {
                    location: Location::File(path.clone()),
                    sqlite: Some((dir, path)),
                    pg: None,
                }
            }
            Engine::Postgres => {
                let db = pg_database().expect("a PostgreSQL cluster (see engine::run)");
                Self {
                    location: Location::Postgres(db.url.clone()),
                    sqlite: None,
                    pg: Some(db),
                }
            }
        }
    }

    pub fn engine(&self) -> Engine {
        match self.location {
            Location::File(_) => Engine::Sqlite,
            Location::Postgres(_) => Engine::Postgres,
        }
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// What a command line takes as `DB`: the file's path or the URL.
    pub fn arg(&self) -> &str {
        match &self.location {
            Location::File(path) => path.to_str().unwrap(),
            Location::Postgres(url) => url,
        }
    }

    /// The file of a SQLite database; a test on PostgreSQL has none.
    pub fn path(&self) -> &Path {
        match &self.sqlite {
            Some((_, path)) => path,
            None => panic!("a database on PostgreSQL has no file"),
        }
    }

    /// The folder of a SQLite database's file, for the test's other files.
    pub fn dir(&self) -> Option<&Path> {
        self.sqlite.as_ref().map(|(dir, _)| dir.path())
    }

    /// The PostgreSQL database, on PostgreSQL.
    pub fn pg(&self) -> Option<&PgDatabase> {
        self.pg.as_ref()
    }

    /// A new connection of the test's own.
    pub fn sql(&self) -> Sql {
        match &self.location {
            Location::File(path) => Sql::Sqlite(rusqlite::Connection::open(path).unwrap()),
            Location::Postgres(_) => Sql::Postgres(self.pg.as_ref().unwrap().client()),
        }
    }

    /// How many rows `table` holds.
    pub fn count(&self, table: &str) -> i64 {
        self.sql().count(table)
    }

    /// Every row `sql` reads.
    pub fn rows<R: Columns>(&self, sql: &str) -> Vec<R> {
        self.sql().rows(sql)
    }

    /// The one row `sql` reads.
    pub fn one<R: Columns>(&self, sql: &str) -> R {
        self.sql().one(sql)
    }

    /// Runs statements that read nothing.
    pub fn execute(&self, sql: &str) {
        self.sql().execute(sql);
    }

    /// `column` (a time) as the intake writes it on SQLite, RFC 3339 UTC
    /// with milliseconds (`2026-11-29T10:15:30.123Z`), on either engine.
    pub fn time(&self, column: &str) -> String {
        match self.engine() {
            Engine::Sqlite => column.to_string(),
            Engine::Postgres => {
                format!("to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")
            }
        }
    }
}

/// A connection of the test's own to a [`Place`].
pub enum Sql {
    Sqlite(rusqlite::Connection),
    Postgres(postgres::Client),
}

impl Sql {
    pub fn count(&mut self, table: &str) -> i64 {
        self.one::<(i64,)>(&format!("SELECT count(*) FROM {table}"))
            .0
    }

    pub fn rows<R: Columns>(&mut self, sql: &str) -> Vec<R> {
        match self {
            Sql::Sqlite(conn) => {
                let mut statement = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
                statement
                    .query_map([], |row| R::from_sqlite(row))
                    .and_then(|rows| rows.collect::<Result<Vec<R>, _>>())
                    .unwrap_or_else(|e| panic!("{sql}: {e}"))
            }
            Sql::Postgres(client) => client
                .query(sql, &[])
                .unwrap_or_else(|e| panic!("{sql}: {}", why(&e)))
                .iter()
                .map(|row| R::from_pg(row, sql))
                .collect(),
        }
    }

    pub fn one<R: Columns>(&mut self, sql: &str) -> R {
        let mut rows = self.rows(sql);
        assert_eq!(rows.len(), 1, "{sql}: one row");
        rows.pop().unwrap()
    }

    pub fn execute(&mut self, sql: &str) {
        match self {
            Sql::Sqlite(conn) => conn
                .execute_batch(sql)
                .unwrap_or_else(|e| panic!("{sql}: {e}")),
            Sql::Postgres(client) => client
                .batch_execute(sql)
                .unwrap_or_else(|e| panic!("{sql}: {}", why(&e))),
        }
    }
}

/// A value both drivers read: `i64`, `String`, `Option` of them.
pub trait Cell: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

impl<T> Cell for T where T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

/// A row read by either driver: a tuple of [`Cell`]s.
pub trait Columns: Sized {
    fn from_sqlite(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;
    fn from_pg(row: &postgres::Row, sql: &str) -> Self;
}

macro_rules! columns {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Cell),+> Columns for ($($t,)+) {
            fn from_sqlite(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
                Ok(($(row.get::<_, $t>($i)?,)+))
            }

            fn from_pg(row: &postgres::Row, sql: &str) -> Self {
                ($(row
                    .try_get::<_, $t>($i)
                    .unwrap_or_else(|e| panic!("{sql}: column {}: {}", $i, why(&e))),)+)
            }
        }
    };
}

columns!(A 0);
columns!(A 0, B 1);
columns!(A 0, B 1, C 2);
columns!(A 0, B 1, C 2, D 3);
columns!(A 0, B 1, C 2, D 3, E 4);
columns!(A 0, B 1, C 2, D 3, E 4, F 5);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
