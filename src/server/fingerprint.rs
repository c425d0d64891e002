//! What makes two submissions "exact copies of one visitor's fields": the
//! analysis's own visitor fingerprint ([`crate::triage::visitor`]), hashed
//! with the scope so that the server can remember it cheaply.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::triage::visitor::{IgnoreList, fingerprint_owned, honeypot_is_filled};

/// The hash of a payload's visitor fields within a scope, or `None` when the
/// payload must never be absorbed: a filled honeypot (a bot: stored so that
/// the analysis flags it) or no visitor field at all.
pub fn visitor_hash(
    scope: &str,
    payload: &Map<String, Value>,
    honeypot: Option<&str>,
) -> Option<u128> {
    if let Some(name) = honeypot
        && payload.get(name).is_some_and(honeypot_is_filled)
    {
        return None;
    }
    let ignore = IgnoreList::new(&honeypot.map(str::to_string).into_iter().collect::<Vec<_>>());
    let fp = fingerprint_owned(payload.clone(), &ignore);
    if fp.honeypot_filled || fp.fields.0.is_empty() {
        return None;
    }
    let mut hasher = Sha256::new();
    for part in std::iter::once(scope).chain(
        fp.fields
            .0
            .iter()
            .flat_map(|(k, v)| [k.as_str(), v.as_str()]),
    ) {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
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
    fn the_same_visitor_fields_hash_alike() {
        let a = hash(
            "s",
            json!({"email": "Ada@Example.org", "message": "Hi  there", "_key": "k1", "utm_source": "x"}),
            None,
        );
        let b = hash(
            "s",
            json!({"message": "hi there", "email": "ada@example.org", "_key": "k2"}),
            None,
        );
        assert!(a.is_some());
        assert_eq!(a, b);
        assert_ne!(
            a,
            hash(
                "t",
                json!({"email": "ada@example.org", "message": "hi there"}),
                None
            ),
            "another scope"
        );
        assert_ne!(
            a,
            hash(
                "s",
                json!({"email": "ada@example.org", "message": "hi there!"}),
                None
            ),
            "a changed field"
        );
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
    }
}
