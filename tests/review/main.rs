//! The review log: decisions, undo and status, and its export.

#[path = "../common/mod.rs"]
mod common;

mod decisions;
mod export;
mod log;
mod support;
