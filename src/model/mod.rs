//! The vocabulary every layer shares: receipt ids, times, the rows storage
//! hands over, a receipt's state, the analysis options and the review log's
//! rows.
//!
//! It sits below storage, intake and triage so that none of them has to
//! import another for a word they all use. Times are unix milliseconds, UTC,
//! everywhere inside the program.

pub mod erasure;
mod review_log;
mod row;
mod settings;
mod state;
pub mod time;
pub mod zone;

pub use review_log::{
    BatchRow, Decision, Kind, LOG_COLUMNS, LogEntry, NewEntry, ReceiptStamp, StateWritten,
};
pub use row::{RawConflict, RawReceipt, Row, RowSink, RowSource, TimeRef, TimeValue};
pub use settings::Settings;
pub use state::ReceiptState;
pub use zone::Zone;

pub type ReceiptId = i64;
/// Unix time in milliseconds, UTC.
pub type Millis = i64;
