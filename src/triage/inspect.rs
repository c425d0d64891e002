//! Checking one stored row: either the compact facts of a good receipt, or
//! the first reason it is damaged (payload, time, digest, state, in that order).

use super::digest::payload_digest;
use super::model::{DamageReason, Damaged, RawReceipt, Receipt, ReceiptState, Settings};
use super::visitor::{IgnoreList, fingerprint_owned};
use crate::intake::canonical::{self, CanonicalError};
use crate::sanitize;
use crate::time::parse_time;

/// The longest detail sentence, in characters.
const DETAIL_MAX: usize = 160;

/// Checks one row against the database contract.
pub fn inspect(raw: &RawReceipt, settings: &Settings) -> Result<Receipt, Damaged> {
    inspect_with(raw, &IgnoreList::new(&settings.ignore_fields))
}

/// [`inspect`] with the ignore list already prepared (once per analysis).
pub fn inspect_with(raw: &RawReceipt, ignore: &IgnoreList) -> Result<Receipt, Damaged> {
    let damaged = |reason, detail: String| Damaged {
        receipt_id: raw.id,
        reason,
        detail: sanitize::inline(&detail, DETAIL_MAX),
    };

    let text = raw.payload.as_ref().map_err(|what| {
        damaged(
            DamageReason::Payload,
            format!("payload is not text: {what}"),
        )
    })?;
    let payload = canonical::parse_object(text).map_err(|e| {
        let detail = match e {
            CanonicalError::NotAnObject { found } => {
                format!("payload is {found}, not a JSON object")
            }
            other => format!("payload is not valid JSON: {other}"),
        };
        damaged(DamageReason::Payload, detail)
    })?;
    let computed = payload_digest(&payload).map_err(|e| {
        damaged(
            DamageReason::Payload,
            format!("payload has no canonical form: {e}"),
        )
    })?;

    let created_ms = parse_time(&raw.created_at)
        .map_err(|e| damaged(DamageReason::Time, format!("created_at: {e}")))?;

    if let Some(stored) = &raw.digest
        && !stored.trim().eq_ignore_ascii_case(&computed)
    {
        return Err(damaged(
            DamageReason::Digest,
            format!(
                "stored digest {} does not match the payload (sha256 {})",
                short(stored),
                short(&computed)
            ),
        ));
    }

    let state = ReceiptState::parse(&raw.state).ok_or_else(|| {
        damaged(
            DamageReason::State,
            format!("unknown state {:?}", sanitize::inline(&raw.state, 40)),
        )
    })?;

    let visitor = fingerprint_owned(payload, ignore);
    Ok(Receipt {
        id: raw.id,
        scope: raw.scope.clone(),
        request_key: raw.request_key.clone(),
        digest: computed,
        state,
        created_ms,
        updated_ms: parse_time(&raw.updated_at).ok(),
        visitor: visitor.fields,
        honeypot_filled: visitor.honeypot_filled,
    })
}

/// The first characters of a digest, enough to tell two apart.
fn short(digest: &str) -> String {
    let d = digest.trim();
    if d.chars().count() > 16 {
        format!("{}…", d.chars().take(12).collect::<String>())
    } else if d.is_empty() {
        "(empty)".to_string()
    } else {
        d.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::model::{TimeValue, VisitorFields};

    const T: &str = "2026-11-29T10:15:30.123Z";
    const T_MS: i64 = 1_795_947_330_123;

    fn raw(payload: &str) -> RawReceipt {
        RawReceipt {
            id: 7,
            scope: "site".into(),
            request_key: Some("k1".into()),
            digest: None,
            payload: Ok(payload.into()),
            state: "completed".into(),
            created_at: TimeValue::Text(T.into()),
            updated_at: TimeValue::Null,
        }
    }

    fn reason(r: &RawReceipt) -> DamageReason {
        inspect(r, &Settings::new(0)).unwrap_err().reason
    }

    #[test]
    fn a_good_row() {
        let r = inspect(
            &raw(r#"{"Name":" Ada ","_csrf":"x","hp":""}"#),
            &Settings::new(0),
        )
        .unwrap();
        assert_eq!(r.id, 7);
        assert_eq!(r.created_ms, T_MS);
        assert_eq!(r.state, ReceiptState::Completed);
        assert_eq!(
            r.visitor,
            VisitorFields(vec![("name".into(), "ada".into())])
        );
        assert_eq!(r.digest.len(), 64);
        assert!(!r.honeypot_filled);
        assert_eq!(r.updated_ms, None);
    }

    #[test]
    fn stored_digest_is_verified() {
        let mut r = raw(r#"{"a":1}"#);
        let good = inspect(&r, &Settings::new(0)).unwrap().digest;
        r.digest = Some(good.to_uppercase());
        assert_eq!(inspect(&r, &Settings::new(0)).unwrap().digest, good);
        r.digest = Some("0".repeat(64));
        let d = inspect(&r, &Settings::new(0)).unwrap_err();
        assert_eq!(d.reason, DamageReason::Digest);
        assert!(d.detail.contains("000000000000…"), "{}", d.detail);
    }

    #[test]
    fn digest_is_of_the_canonical_text() {
        let r = raw(r#"{ "b" : 1.50, "a" : "é\u00e9", "n": 1E2 }"#);
        let expected = canonical::sha256_hex(r#"{"a":"éé","b":1.5,"n":100.0}"#);
        assert_eq!(inspect(&r, &Settings::new(0)).unwrap().digest, expected);
        let mut stored = r.clone();
        stored.digest = Some(expected.clone());
        assert!(inspect(&stored, &Settings::new(0)).is_ok());
        let d = inspect(&raw(r#"{"x": 1e400}"#), &Settings::new(0)).unwrap_err();
        assert_eq!(d.reason, DamageReason::Payload);
        assert!(d.detail.contains("not finite"), "{}", d.detail);
    }

    #[test]
    fn each_damage_reason() {
        let mut r = raw("{}");
        r.payload = Err("BLOB of 12 bytes".into());
        assert_eq!(reason(&r), DamageReason::Payload);
        assert_eq!(reason(&raw("{not json")), DamageReason::Payload);
        assert_eq!(reason(&raw("[1,2]")), DamageReason::Payload);
        assert_eq!(reason(&raw("\"text\"")), DamageReason::Payload);
        let mut r = raw("{}");
        r.created_at = TimeValue::Text("yesterday".into());
        assert_eq!(reason(&r), DamageReason::Time);
        r.created_at = TimeValue::Null;
        assert_eq!(reason(&r), DamageReason::Time);
        let mut r = raw("{}");
        r.digest = Some("abc".into());
        assert_eq!(reason(&r), DamageReason::Digest);
        let mut r = raw("{}");
        r.state = "done".into();
        assert_eq!(reason(&r), DamageReason::State);
    }

    #[test]
    fn reasons_come_in_order() {
        let mut r = raw("[]");
        r.created_at = TimeValue::Null;
        r.digest = Some("x".into());
        r.state = "?".into();
        assert_eq!(reason(&r), DamageReason::Payload);
        r.payload = Ok("{}".into());
        assert_eq!(reason(&r), DamageReason::Time);
        r.created_at = TimeValue::Integer(1_795_947_330);
        assert_eq!(reason(&r), DamageReason::Digest);
        r.digest = None;
        assert_eq!(reason(&r), DamageReason::State);
    }

    #[test]
    fn details_are_inert() {
        let mut r = raw("{}");
        r.state = "\u{1b}[31mevil\u{202e}".into();
        let d = inspect(&r, &Settings::new(0)).unwrap_err();
        assert!(
            !d.detail.chars().any(crate::sanitize::is_unsafe),
            "{}",
            d.detail
        );
        let d = inspect(&raw("{\"a\":\u{1b}}"), &Settings::new(0)).unwrap_err();
        assert!(
            !d.detail.chars().any(crate::sanitize::is_unsafe),
            "{}",
            d.detail
        );
        let mut r = raw("{}");
        r.created_at = TimeValue::Other("BLOB \u{7}".into());
        let d = inspect(&r, &Settings::new(0)).unwrap_err();
        assert_eq!(d.reason, DamageReason::Time);
        assert!(
            !d.detail.chars().any(crate::sanitize::is_unsafe),
            "{}",
            d.detail
        );
    }
}
