//! Suspected bots: a filled honeypot, an empty submission, or one message
//! body from three or more different senders within the window, in any
//! scope (a bot posts every form it finds); and their groups ([`groups`]).

use std::sync::Arc;

use rayon::prelude::*;

use super::facts::FactStore;
use super::hash::HashMap64;
use super::model::BotGroup;
use crate::model::{Millis, ReceiptId, Settings};

pub mod groups;
pub mod sender;

use sender::Identities;

/// How many different senders of one body make it a campaign.
pub const MIN_SENDERS: usize = 3;

/// One receipt with a body: the hash of its body and its index.
pub type BodyKey = (u64, u32);

/// A copy of a body as the campaign rule reads it: time, id, index, sender.
type Copy = (Millis, ReceiptId, u32, u64);

/// The body key of every receipt that has a body, sorted (by key, then index).
pub fn bodies(store: &FactStore) -> Vec<BodyKey> {
    let mut bodies: Vec<BodyKey> = store
        .receipts
        .par_iter()
        .enumerate()
        .filter_map(|(i, r)| body_key(store, i as u32, r))
        .collect();
    bodies.par_sort_unstable();
    bodies
}

/// The body key of one receipt.
pub fn body_key(store: &FactStore, index: u32, r: &super::facts::ReceiptFact) -> Option<BodyKey> {
    let body = store.body(r)?;
    Some((body.value(), index))
}

/// The suspected bots (ids, ascending) and their groups, of a store that
/// holds every receipt's fields.
pub fn suspected_bots(
    store: &FactStore,
    settings: &Settings,
) -> (Vec<ReceiptId>, Vec<Arc<BotGroup>>) {
    let flagged = campaign_flags(store, &bodies(store), settings);
    let facts = groups::bot_facts(store, &flagged);
    (
        groups::bot_ids(store, &facts),
        groups::bot_groups(store, &facts, settings.window_ms),
    )
}

/// Which receipts (by index) are part of a campaign, from the sorted bodies.
pub fn campaign_flags(store: &FactStore, bodies: &[BodyKey], settings: &Settings) -> Vec<bool> {
    let mut flagged = vec![false; store.receipts.len()];
    let ids = Identities::of(store);
    for run in bodies.chunk_by(|a, b| a.0 == b.0) {
        mark_run(store, &ids, run, settings.window_ms, &mut flagged);
    }
    flagged
}

/// Marks the campaigns among copies that share a body hash.
pub fn mark_run(
    store: &FactStore,
    ids: &Identities,
    run: &[BodyKey],
    window_ms: Millis,
    flagged: &mut [bool],
) {
    if run.len() < MIN_SENDERS {
        return;
    }
    // Confirm on the checks (a hash collision must not make a campaign).
    let identity = |i: u32| {
        let r = &store.receipts[i as usize];
        let body = store.body(r).expect("has a body");
        (body.value(), body.check())
    };
    let mut copies: Vec<((u64, u32), Copy)> = run
        .iter()
        .map(|&(_, i)| {
            let r = &store.receipts[i as usize];
            (
                identity(i),
                (r.created_ms, r.id, i, sender::sender(store, ids, r)),
            )
        })
        .collect();
    copies.sort_by(|a, b| a.0.cmp(&b.0).then((a.1.0, a.1.1).cmp(&(b.1.0, b.1.1))));
    for same in copies.chunk_by(|a, b| a.0 == b.0) {
        let same: Vec<Copy> = same.iter().map(|c| c.1).collect();
        mark_campaigns(&same, window_ms, flagged);
    }
}

/// Marks every copy that lies in some window holding [`MIN_SENDERS`] senders.
fn mark_campaigns(copies: &[Copy], window_ms: Millis, flagged: &mut [bool]) {
    if copies.len() < MIN_SENDERS {
        return;
    }
    let mut senders: HashMap64<usize> = HashMap64::default();
    let mut start = 0;
    let mut marked_to = 0; // copies[..marked_to] are marked
    for end in 0..copies.len() {
        if copies[end].3 != 0 {
            *senders.entry(copies[end].3).or_insert(0) += 1;
        }
        while copies[end].0 - copies[start].0 > window_ms {
            let s = copies[start].3;
            if s != 0 {
                let n = senders.get_mut(&s).expect("counted");
                *n -= 1;
                if *n == 0 {
                    senders.remove(&s);
                }
            }
            start += 1;
        }
        if senders.len() >= MIN_SENDERS {
            for c in &copies[start.max(marked_to)..=end] {
                flagged[c.2 as usize] = true;
            }
            marked_to = end + 1;
        }
    }
}
