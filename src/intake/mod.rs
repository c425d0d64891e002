//! The idempotent intake protocol: the one definition of what the receipts database holds.
//!
//! - [`canonical`]: canonical JSON text and its SHA-256 digest (byte-identical to Python's `json.dumps`);
//! - [`key`]: idempotency key grammar and the scoped key;
//! - [`protocol`]: classify / remember / replay / execute, in memory;
//! - [`store`]: the same protocol on SQLite, atomic across connections and processes, on any engine.

pub mod canonical;
pub mod key;
pub mod protocol;
pub mod store;
