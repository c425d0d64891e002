//! The vocabulary every layer shares: receipt ids, times, the rows storage
//! hands over, a receipt's state and the analysis options.
//!
//! It sits below storage, intake and triage so that none of them has to
//! import another for a word they all use. Times are unix milliseconds, UTC,
//! everywhere inside the program.

mod row;
mod settings;
mod state;

pub use row::{RawConflict, RawReceipt, Row, RowSink, RowSource, TimeRef, TimeValue};
pub use settings::Settings;
pub use state::ReceiptState;

pub type ReceiptId = i64;
/// Unix time in milliseconds, UTC.
pub type Millis = i64;
