//! The digest of a payload object, exactly as the intake computes it.

use serde_json::{Map, Value};

use crate::intake::canonical;

/// SHA-256 hex of the canonical text of a payload object, or why it has none.
pub fn payload_digest(payload: &Map<String, Value>) -> Result<String, canonical::CanonicalError> {
    canonical::fingerprint(payload)
}
