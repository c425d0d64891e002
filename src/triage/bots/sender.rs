//! Who sent a copy, as the campaign rule and the bot groups count senders.
//!
//! A sender is the value of the field that names them best: an email
//! address, else a phone number, else a name (whatever the form calls the
//! field, so one address on two forms is one sender). Only a copy without
//! any such field falls back to all its other fields. So one visitor's own
//! copies (a partial copy sent by a second handler, a resend with a
//! corrected field) stay one sender, and never make a campaign by
//! themselves.

use crate::triage::facts::{FactStore, ReceiptFact};
use crate::triage::hash;
use crate::triage::visitor::{Identity, identity_of};

/// What each visitor key (by interned id) says of the sender.
pub struct Identities(Vec<Option<Identity>>);

impl Identities {
    pub fn of(store: &FactStore) -> Self {
        Self(
            (0..store.keys.len() as u32)
                .map(|k| identity_of(store.keys.name(k)))
                .collect(),
        )
    }

    fn get(&self, key: u32) -> Option<Identity> {
        self.0.get(key as usize).copied().flatten()
    }
}

/// The sender of a receipt that holds its fields; 0 when nothing but its
/// body (or nothing at all) tells senders apart.
pub fn sender(store: &FactStore, ids: &Identities, r: &ReceiptFact) -> u64 {
    let fields = store.fields_of(r);
    let body = r.body as usize;
    let best = fields
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != body)
        .filter_map(|(_, f)| match ids.get(f.key()) {
            Some(Identity::Organisation) | None => None,
            Some(id) => Some((id, f.value())),
        })
        .min();
    if let Some((identity, value)) = best {
        return hash::combine(identity as u64 + 1, value) | 1;
    }
    let others: u64 = fields
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != body)
        .fold(0u64, |s, (_, x)| s.wrapping_add(store.pair(x)));
    if others == 0 {
        0
    } else {
        hash::mix(others) | 1
    }
}
