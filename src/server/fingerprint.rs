//! What makes two submissions "exact copies of one visitor's fields": the
//! fields a visitor typed, byte for byte in canonical JSON, hashed with the
//! scope so that the server can remember it cheaply.
//!
//! Only the *choice* of fields is the analysis's ([`is_noise_key`]: event
//! ids, tokens, `utm_*`, honeypots are not typed by the visitor). Values are
//! never folded: `Serial AbC123` and `serial abc123` are two texts, and an
//! absorbed copy is never stored, so folding would lose what the second
//! visitor typed. Copies that differ by case, width or spacing are stored
//! and left to the screen's near-duplicate groups.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::intake::canonical::canonical;
use crate::triage::visitor::{honeypot_is_filled, is_honeypot_key, is_noise_key, normalize_key};

/// The hash of a payload's visitor fields within a scope, or `None` when the
/// payload must never be absorbed: a filled honeypot (a bot: stored so that
/// the analysis flags it) or no visitor field at all.
pub fn visitor_hash(
    scope: &str,
    payload: &Map<String, Value>,
    honeypot: Option<&str>,
) -> Option<u128> {
    let mut typed = Map::new();
    for (key, value) in payload {
        if honeypot == Some(key.as_str()) {
            if honeypot_is_filled(value) {
                return None;
            }
            continue;
        }
        let normal = normalize_key(key);
        if is_noise_key(&normal) {
            if is_honeypot_key(&normal) && honeypot_is_filled(value) {
                return None;
            }
            continue;
        }
        // A field left empty says nothing the visitor typed: a plain form
        // sends it as "", a script may leave it out.
        if matches!(value, Value::Null) || value.as_str() == Some("") {
            continue;
        }
        typed.insert(key.clone(), value.clone());
    }
    if typed.is_empty() {
        return None;
    }
    let text = canonical(&typed).ok()?;
    let mut hasher = Sha256::new();
    hasher.update((scope.len() as u64).to_le_bytes());
    hasher.update(scope.as_bytes());
    hasher.update(text.as_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 16];
    first.copy_from_slice(&digest[..16]);
    Some(u128::from_le_bytes(first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hash(scope: &str, v: Value, honeypot: Option<&str>) -> Option<u128> {
        visitor_hash(scope, v.as_object().unwrap(), honeypot)
    }

    #[test]
    fn the_same_typed_fields_hash_alike_whatever_the_noise() {
        let a = hash(
            "s",
            json!({"email": "ada@example.org", "message": "Hi there", "_key": "k1",
                   "utm_source": "x", "event_id": "e1", "csrf_token": "t1"}),
            None,
        );
        let b = hash(
            "s",
            json!({"message": "Hi there", "email": "ada@example.org", "_key": "k2",
                   "event_id": "e2", "company": ""}),
            None,
        );
        assert!(a.is_some());
        assert_eq!(a, b, "noise fields and empty fields aside");
        assert_ne!(
            a,
            hash(
                "t",
                json!({"email": "ada@example.org", "message": "Hi there"}),
                None
            ),
            "another scope"
        );
        assert_ne!(
            a,
            hash(
                "s",
                json!({"email": "ada@example.org", "message": "Hi there!"}),
                None
            ),
            "a changed field"
        );
    }

    #[test]
    fn texts_that_fold_alike_are_not_the_same_copy() {
        let serial = |text: &str| hash("s", json!({"email": "a@b.c", "serial": text}), None);
        let typed = [
            "Serial AbC123",
            "serial abc123",
            "ＳＥＲＩＡＬ   ABC123",
            "Serial AbC123 ",
        ];
        for (i, a) in typed.iter().enumerate() {
            for b in &typed[i + 1..] {
                assert_ne!(serial(a), serial(b), "{a:?} and {b:?}");
            }
        }
        assert_eq!(serial("Serial AbC123"), serial("Serial AbC123"));
    }

    #[test]
    fn bots_and_empty_payloads_are_never_absorbed() {
        assert_eq!(
            hash("s", json!({"email": "a@b.c", "_gotcha": "x"}), None),
            None
        );
        assert_eq!(
            hash(
                "s",
                json!({"email": "a@b.c", "website": "spam"}),
                Some("website")
            ),
            None
        );
        assert!(
            hash(
                "s",
                json!({"email": "a@b.c", "website": ""}),
                Some("website")
            )
            .is_some()
        );
        assert_eq!(
            hash(
                "s",
                json!({"email": "a@b.c", "website": ""}),
                Some("website")
            ),
            hash("s", json!({"email": "a@b.c"}), Some("website")),
        );
        assert_eq!(hash("s", json!({"_key": "k"}), None), None);
        assert_eq!(hash("s", json!({"name": "", "email": null}), None), None);
    }
}
