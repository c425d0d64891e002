//! receipt-review: triage a web-form intake's receipts database.
//!
//! Layers, each standing on the ones before it:
//! - [`model`]: the vocabulary every layer shares (ids, times, rows, settings);
//! - [`storage`]: SQLite access and the schema (the database contract);
//! - [`intake`]: the idempotent intake protocol, the one definition of what the database holds;
//! - [`triage`]: pure analysis over receipts (duplicates, conflicts, stuck, bots, damage);
//! - [`review`]: decisions, the append-only review log, guarded writes, export;
//! - [`reading`]: a full reading of the receipts into facts, on every core;
//! - [`report`]: the triage summary for people and scripts;
//! - [`tui`]: the terminal interface (state, `update`, view);
//! - [`memory`]: giving what a reading freed back to the system, freeing off the caller's path;
//! - [`cli`]: the command line.

pub mod cli;
pub mod demo;
pub mod error_line;
pub mod intake;
pub mod memory;
pub mod model;
pub mod reading;
pub mod report;
pub mod review;
pub mod sanitize;
pub mod storage;
pub mod time;
pub mod triage;
pub mod tui;
