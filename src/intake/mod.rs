//! The idempotent intake protocol: the one definition of what the receipts database holds.
//!
//! - [`canonical`]: canonical JSON text and its SHA-256 digest (byte-identical to Python's `json.dumps`);

pub mod canonical;
