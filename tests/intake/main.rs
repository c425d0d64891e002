//! The intake: canonical JSON, the protocol in memory, and its SQLite store.

mod canonical;
mod protocol;
mod store;
