//! The TUI's I/O: a background worker that owns the database connection,
//! reads snapshots, records decisions, exports, and watches for changes.

mod throttle;
mod worker;

pub use worker::{Request, Worker, WorkerConfig};
