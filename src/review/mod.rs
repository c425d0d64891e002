//! Decisions and the append-only review log: the rules, not the SQL.
//!
//! - [`decision`]: which decision fits which kind of item, and item ids;
//! - [`log`]: reading the log (every reader copes with there being none yet);
//! - [`decide`]: guarded writes: decisions, undo and reopen, each one short
//!   write transaction that never overwrites another operator silently;
//! - [`keep`]: which copy of a duplicate group a decision keeps;
//! - [`batch`]: several decisions taken as one step, in one transaction;
//! - [`undo`](mod@undo): the operator's last step undone as one step, asking first
//!   when it reaches far;
//! - [`erase`](mod@erase): an erasure of visitor data, tombstones and its log row in one
//!   transaction, then the old bytes scrubbed from the files;
//! - [`status`]: what the log says about an item now (pending, resolved, new copy since);
//! - [`export`]: the log as CSV (spreadsheet-safe) or JSONL (faithful).
//!
//! Nothing here opens a database or speaks its language: every function takes
//! a [`Storage`](crate::storage::Storage) prepared by the caller (busy
//! timeout, read-only or not), and the rows are the model's
//! ([`LogEntry`], [`Kind`], [`Decision`]).

pub mod batch;
pub mod decide;
pub mod decision;
pub mod erase;
pub mod export;
pub mod keep;
pub mod log;
pub mod status;
pub mod undo;

pub use crate::model::{Decision, Kind, LogEntry};
pub use crate::storage::LogError;
pub use batch::{BatchRecorded, decide_many};
pub use decide::{
    DecideError, DecisionRequest, Recorded, ReopenRequest, StateChange, StateRevert, Undone,
    decide, reopen, reopen_with, undo_last,
};
pub use decision::{DecisionError, item_id, parse_item};
pub use export::{
    ExportError, ExportFile, ExportFilter, ExportFormat, ItemMatch, Visitor, export,
    export_to_file, export_to_file_with, export_with, safe_cell, unquote_cell,
};
pub use log::{history, latest_entry, latest_log_id, log_exists, read_log};
pub use status::{ItemStatus, Status, load_statuses, status_in, status_of, statuses};
pub use undo::{BatchUndone, UndoOutcome, UndoRequest, Wide, undo};
