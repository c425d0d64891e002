//! The database contract of SPEC.md: what the rest of the program asks of a
//! receipts database ([`backend`]), and the SQLite engine that answers (the
//! rest of this folder). Reading, review, the screen and the command line
//! reach a database only through [`backend`]'s traits.
//!
//! - [`backend`]: [`Storage`], what the program asks of a receipts database,
//!   [`Session`], one state of it read, and [`ReviewRead`], [`WriteTx`]:
//!   what review reads and writes;
//! - [`sqlite`]: the SQLite engine behind them ([`open_database`]);
//! - [`schema`]: the schema (`assets/schema.sql`) and [`init`];
//! - [`open`]: [`Database::open`], read-only or writable when possible;
//! - [`source`]: the shape of `receipts` (a table, or a view over a legacy table);
//! - [`load`]: reading receipts, key conflicts and the tallies for triage;
//! - [`tally`]: replays and absorbed copies counted per receipt, kept between
//!   readings and brought up to date;
//! - [`stream`]: reading receipts in batches, for analyses that keep only facts;
//! - [`session`]: [`ReadSession`], one state of the database read on one connection or several;
//! - [`split`]: helper connections that read ranges of rows in the same state;
//! - [`review_log`]: the `review_log` table and the guarded state change in SQL;
//! - [`write`](mod@write): [`WriteSession`], a guarded decision's `BEGIN IMMEDIATE` transaction;
//! - [`check`]: what `check` says about the schema;
//! - [`error`]: [`StorageError`], one clear line per failure, and [`LogError`].
//!
//! Reading needs only `SELECT` on `receipts`; all SQL is parameterised, and the
//! only identifiers ever put into SQL are the fixed names of the contract.

pub mod backend;
pub mod check;
pub mod error;
pub mod file;
pub mod load;
mod log_upgrade;
pub mod open;
pub mod review_log;
pub mod schema;
pub mod session;
pub mod source;
pub mod split;
pub mod sqlite;
pub mod stream;
pub mod tally;
mod value;
pub mod write;

pub use backend::{ChangeMark, Connections, ReviewRead, Session, Storage, WriteTx};
pub use check::{schema_notes, schema_problems};
pub use error::{Failure, LogError, StorageError};
pub use load::{
    Loaded, count_and_sum_conflict_ids, count_and_sum_ids, load, load_conflict_payload,
    load_conflict_rows, load_conflicts, load_payload,
};
pub use open::{Access, DEFAULT_BUSY_TIMEOUT, Database, OpenOptions, data_version};
pub use review_log::{REVIEW_LOG_SQL, ensure_review_log};
pub use schema::{SCHEMA_SQL, init};
pub use session::ReadSession;
pub use source::{ReceiptColumns, Related, RelationKind, Source};
pub use sqlite::open_database;
pub use tally::{CountedTable, Tallies, Tally, load_tally};
pub use write::WriteSession;
