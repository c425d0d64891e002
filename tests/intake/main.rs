//! The intake: canonical JSON, the protocol in memory, and its store on both
//! engines (SQLite, and PostgreSQL when `RECEIPT_REVIEW_TEST_PG` names a cluster).

#[path = "../common/mod.rs"]
mod common;

mod canonical;
mod protocol;
mod store;
