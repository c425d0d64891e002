//! The database contract: what the rest of the program asks of a receipts
//! database, and the engines that answer. Reading, review, the intake, the
//! screen and the command line reach a database only through the traits
//! here; the engines are private to this folder, so the compiler says so.
//!
//! - [`location`]: [`Location`], a database as the user named it (a file or a URL);
//! - [`backend`]: [`Storage`], what reading and review ask of a database,
//!   [`Session`], one state of it read, and [`ReviewRead`], [`WriteTx`]:
//!   what review reads and writes;
//! - [`intake`]: [`IntakeDatabase`] and [`IntakeTx`], what the intake writes;
//! - [`source`]: the shape of `receipts` (a table, or a view over a legacy table);
//! - [`tally`]: replays and absorbed copies counted per receipt;
//! - [`error`]: [`StorageError`], one clear line per failure, and [`LogError`];
//! - `sqlite`: the SQLite engine, the embedded default;
//! - `postgres`: the PostgreSQL engine, for a database a team shares.
//!
//! Reading needs only `SELECT` on `receipts`; all SQL is parameterised, and the
//! only identifiers ever put into SQL are the fixed names of the contract.

pub mod backend;
pub mod error;
pub mod intake;
pub mod location;
mod log_entry;
mod postgres;
pub mod source;
mod sqlite;
pub mod tally;

use std::time::Duration;

pub use backend::{
    ChangeMark, Connections, Erasing, ReadCursor, ReviewRead, Scrubbed, Session, Storage, WriteTx,
};

/// A payload that does not begin as a tombstone does (SQL both engines
/// take): an erasure that committed first is not written again.
pub(crate) const NOT_A_TOMBSTONE_SQL: &str = "substr(payload, 1, 12) <> '{\"_erased\":{'";
pub use error::{Failure, LogError, StorageError};
pub use intake::{IntakeDatabase, IntakeMode, IntakeTx};
pub use location::Location;
pub use source::{ReceiptColumns, Related, RelationKind, Source};
pub use tally::{CountedTable, Tallies, Tally};

/// How a command opens a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reading only: nothing is ever written.
    ReadOnly,
    /// Writable when possible, else read-only with a reason (for a banner).
    PreferWrite,
}

/// How long a connection waits for another one's write lock by default.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Options for [`open_database_with`].
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    pub access: Access,
    /// How long to wait for another writer.
    pub busy_timeout: Duration,
}

impl OpenOptions {
    pub fn new(access: Access) -> Self {
        Self {
            access,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        }
    }

    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }
}

/// Opens the receipts database at `location` with the engine that holds it.
pub fn open_database(
    location: impl Into<Location>,
    access: Access,
) -> Result<Box<dyn Storage + Send>, StorageError> {
    open_database_with(location, OpenOptions::new(access))
}

/// [`open_database`] with options.
pub fn open_database_with(
    location: impl Into<Location>,
    options: OpenOptions,
) -> Result<Box<dyn Storage + Send>, StorageError> {
    let location = location.into();
    match &location {
        Location::File(path) => sqlite::open_database(path, options),
        Location::Postgres(_) => postgres::open_database(&location, options),
    }
}

/// Creates an empty receipts database at `location` with the schema (see
/// `assets/schema.sql`). Anything already holding tables is refused and left
/// as it was.
pub fn init(location: impl Into<Location>) -> Result<(), StorageError> {
    let location = location.into();
    match &location {
        Location::File(path) => sqlite::schema::init(path),
        Location::Postgres(_) => postgres::init(&location),
    }
}

/// Opens the receipts database at `location` for the intake.
pub fn open_intake(
    location: &Location,
    mode: IntakeMode,
) -> Result<Box<dyn IntakeDatabase>, intake::OpenError> {
    match location {
        Location::File(path) => sqlite::intake::open(path, mode),
        Location::Postgres(_) => postgres::intake::open(location, mode),
    }
}
