//! receipt-review: triage a web-form intake's receipts database.
//!
//! Layers, each standing on the ones before it:
//! - [`model`]: the vocabulary every layer shares (ids, times and their
//!   formats, rows as stored, the review log's rows, settings);
//! - [`storage`]: the database behind the [`storage::Storage`] traits, and
//!   SQLite's engine for them (the database contract);
//! - [`intake`]: the idempotent intake protocol, the one definition of what
//!   the database holds;
//! - [`triage`]: pure analysis over receipts (duplicates, conflicts, stuck,
//!   bots, damage), no I/O;
//! - [`review`]: decisions, their status and the export of the review log;
//! - [`reading`]: the one pipeline that reads a database (first reading and
//!   refreshes) into a snapshot;
//! - [`find`]: finding any receipt by its text, number or time (a scan of
//!   every receipt, joined with a snapshot's items);
//! - [`forms`]: the per-form view of a reading (counts over a period, the
//!   likely pathways that make duplicates, with their fix);
//! - [`i18n`]: the English and Japanese catalogues every screen and
//!   command-line string is read from;
//! - [`server`]: the intake protocol over HTTP (`serve`), writing through
//!   the intake's store;
//! - [`traffic`]: one model of visitors and the pathways that make copies,
//!   drawn from a seed; [`demo`] writes it through the intake store,
//!   [`simulate`] sends it over HTTP to a running server (`simulate`);
//! - [`report`], [`tui`], [`cli`]: the report for people and scripts, the
//!   screen, the command line.
//!
//! Beside them: [`sanitize`] (untrusted text made terminal-safe), [`memory`]
//! (the allocator set up for large readings).

pub mod cli;
pub mod demo;
pub mod erase;
pub mod find;
pub mod forms;
pub mod i18n;
pub mod intake;
pub mod memory;
pub mod model;
pub mod reading;
pub mod report;
pub mod review;
pub mod sanitize;
pub mod server;
pub mod simulate;
pub mod storage;
pub mod traffic;
pub mod triage;
pub mod tui;
