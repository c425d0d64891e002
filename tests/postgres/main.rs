//! The PostgreSQL engine end to end, each test on a database of its own
//! (tests/common/pg.rs; skipped without `RECEIPT_REVIEW_TEST_PG` outside CI):
//! the command line, the same answers as SQLite on the same rows, refreshes
//! while ids commit out of order, two operators deciding one item at once,
//! failures to connect, and the intake protocol from several connections.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod decisions;
mod faults;
mod intake;
mod log_upgrade;
mod refresh;
mod same_answers;
mod support;
