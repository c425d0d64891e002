//! Decisions and the append-only review log.
//!
//! - [`decision`]: the vocabulary (item kinds, decisions, which decision fits which kind);
//! - [`schema`]: the `review_log` table (`assets/review_log.sql`), created only by writers;
//! - [`log`]: reading the log (every reader copes with the table being absent);
//! - [`decide`]: guarded writes: decisions, undo and reopen, each one short
//!   `BEGIN IMMEDIATE` transaction that never overwrites another operator silently;
//! - [`status`]: what the log says about an item now (pending, resolved, new copy since);
//! - [`export`]: the log as CSV (spreadsheet-safe) or JSONL (faithful).
//!
//! Nothing here opens a database: every function takes a `rusqlite::Connection`
//! prepared by the caller (busy timeout, read-only or not).

pub mod decide;
pub mod decision;
pub mod error;
pub mod export;
pub mod log;
pub mod schema;
pub mod status;

pub use crate::model::{Decision, Kind, LogEntry};
pub use decide::{
    DecideError, DecisionRequest, Recorded, ReopenRequest, StateChange, StateRevert, Undone,
    decide, reopen, reopen_with, undo_last,
};
pub use decision::{DecisionError, item_id, parse_item};
pub use error::ReviewError;
pub use export::{ExportError, ExportFormat, export, export_to_file, safe_cell, unquote_cell};
pub use log::{history, latest_entry, latest_log_id, log_exists, read_log};
pub use schema::{REVIEW_LOG_SQL, ensure_review_log};
pub use status::{ItemStatus, Status, load_statuses, status_in, status_of};
