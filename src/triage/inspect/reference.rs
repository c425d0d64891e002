//! The first version of inspecting a row (through `serde_json` and the
//! intake's canonical form, every time), kept to check the fast one against.

use super::{digest_mismatch, unknown_state, unparsed};
use crate::intake::canonical;
use crate::model::time::parse_time;
use crate::model::{RawReceipt, ReceiptState, Settings};
use crate::triage::digest::payload_digest;
use crate::triage::model::{DamageCause, DamageDetail, DamageReason, Damaged, Receipt};
use crate::triage::visitor::{IgnoreList, fingerprint_owned};

/// Checks one row against the database contract.
#[allow(dead_code)]
pub fn inspect(raw: &RawReceipt, settings: &Settings) -> Result<Receipt, Damaged> {
    inspect_with(raw, &IgnoreList::new(&settings.ignore_fields))
}

/// [`inspect`] with the ignore list already prepared (once per analysis).
pub fn inspect_with(raw: &RawReceipt, ignore: &IgnoreList) -> Result<Receipt, Damaged> {
    let damaged = |reason, cause| Damaged {
        receipt_id: raw.id,
        reason,
        detail: DamageDetail::new(cause),
    };

    let text = raw.payload.as_ref().map_err(|what| {
        damaged(
            DamageReason::Payload,
            DamageCause::PayloadNotText(what.clone()),
        )
    })?;
    let payload =
        canonical::parse_object(text).map_err(|e| damaged(DamageReason::Payload, unparsed(e)))?;
    let computed = payload_digest(&payload)
        .map_err(|e| damaged(DamageReason::Payload, DamageCause::NoCanonicalForm(e)))?;

    let created_ms = parse_time(&raw.created_at)
        .map_err(|e| damaged(DamageReason::Time, DamageCause::CreatedAt(e)))?;

    if let Some(stored) = &raw.digest
        && !stored.trim().eq_ignore_ascii_case(&computed)
    {
        return Err(damaged(
            DamageReason::Digest,
            digest_mismatch(stored, &computed),
        ));
    }

    let state = ReceiptState::parse(&raw.state)
        .ok_or_else(|| damaged(DamageReason::State, unknown_state(&raw.state)))?;

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
