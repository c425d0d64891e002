//! The review log: decisions, undo and status, and its export.

mod export;
mod log;
