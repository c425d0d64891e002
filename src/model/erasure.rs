//! What an erased receipt's payload becomes: a tombstone that says when and
//! by whom, and which receipts shared its duplicate group, and nothing the
//! visitor typed (see docs/erasure.md).
//!
//! `{"_erased":{"at":"2026-12-07T10:15:30.123Z","by":"aiko","with":[1907,1908]}}`
//!
//! The stored digest is left as it was (a retry with the same body stays a
//! replay), so a tombstone is a payload of this shape whose digest is not
//! its own: a visitor who sends a field named `_erased` has a matching one.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ReceiptId;

/// The payload key of a tombstone.
pub const KEY: &str = "_erased";

/// An erased receipt's payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tombstone {
    /// When it was erased: RFC 3339, UTC, milliseconds (the review-log row's time).
    pub at: String,
    /// Who erased it (the review-log row's operator).
    pub by: String,
    /// The receipts of its duplicate group when it was erased, itself
    /// included, ascending; empty when it was in none.
    #[serde(default)]
    pub with: Vec<ReceiptId>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wrapped {
    #[serde(rename = "_erased")]
    erased: Tombstone,
}

impl Tombstone {
    /// The payload to store: canonical JSON (keys sorted, no spaces), so
    /// that it reads as every intake payload does.
    pub fn payload(&self) -> String {
        let mut with = self.with.clone();
        with.sort_unstable();
        with.dedup();
        // Keys in sorted order: at, by, with; inside `_erased`.
        let body = serde_json::json!({
            KEY: { "at": self.at, "by": self.by, "with": with }
        });
        serde_json::to_string(&body).expect("a tombstone serialises")
    }

    /// The tombstone a stored row holds, if it is one: its payload has this
    /// shape and its stored digest (when the table has one) is not the
    /// payload's own.
    pub fn of_row(payload: &str, stored_digest: Option<&str>) -> Option<Tombstone> {
        if !payload.trim_start().starts_with("{\"_erased\"") {
            return None;
        }
        let tombstone = serde_json::from_str::<Wrapped>(payload).ok()?.erased;
        match stored_digest {
            Some(stored) if digest_of(payload).eq_ignore_ascii_case(stored.trim()) => None,
            _ => Some(tombstone),
        }
    }
}

fn digest_of(payload: &str) -> String {
    hex::encode(Sha256::digest(payload.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tombstone() -> Tombstone {
        Tombstone {
            at: "2026-12-07T10:15:30.123Z".into(),
            by: "aiko".into(),
            with: vec![1908, 1907, 1908],
        }
    }

    #[test]
    fn the_payload_is_canonical_and_reads_back() {
        let text = tombstone().payload();
        assert_eq!(
            text,
            r#"{"_erased":{"at":"2026-12-07T10:15:30.123Z","by":"aiko","with":[1907,1908]}}"#
        );
        assert_eq!(
            crate::intake::canonical::canonical_text(&text).unwrap(),
            text
        );
        let original_digest = "ab".repeat(32);
        let read = Tombstone::of_row(&text, Some(&original_digest)).unwrap();
        assert_eq!(read.with, vec![1907, 1908]);
        // A table without a digest column: the shape alone.
        assert!(Tombstone::of_row(&text, None).is_some());
    }

    #[test]
    fn a_visitors_own_field_named_erased_is_no_tombstone() {
        let text = tombstone().payload();
        // The intake stored the digest of exactly this text: the visitor sent it.
        assert_eq!(Tombstone::of_row(&text, Some(&digest_of(&text))), None);
        assert_eq!(
            Tombstone::of_row(&text, Some(&digest_of(&text).to_uppercase())),
            None
        );
        for other in [
            r#"{"_erased":true}"#,
            r#"{"_erased":{"at":"x","by":"y"},"name":"Aiko"}"#,
            r#"{"name":"Aiko"}"#,
            "not json",
        ] {
            assert_eq!(Tombstone::of_row(other, Some("00")), None, "{other}");
        }
    }
}
