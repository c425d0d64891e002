//! Suspected bots: a filled honeypot, or one message body from three or more
//! different senders in the same scope within the window.

use rayon::prelude::*;

use super::facts::Store;
use super::hash::{self, HashMap64};
use super::model::{Millis, ReceiptId, Settings};

/// How many different senders of one body make it a campaign.
pub const MIN_SENDERS: usize = 3;

/// One receipt with a body: (scope, body) hash, time, id, index, sender.
pub type BodyKey = (u64, Millis, ReceiptId, u32, u64);

/// The body key of every receipt that has a body, sorted.
pub fn bodies(store: &Store) -> Vec<BodyKey> {
    let mut bodies: Vec<BodyKey> = store
        .receipts
        .par_iter()
        .enumerate()
        .filter_map(|(i, r)| body_key(store, i as u32, r))
        .collect();
    bodies.par_sort_unstable();
    bodies
}

/// The body key of one receipt (sender 0: nobody else to tell senders apart).
pub fn body_key(store: &Store, index: u32, r: &super::facts::ReceiptFact) -> Option<BodyKey> {
    let body = store.body(r)?;
    let fields = store.fields_of(r);
    let others: u64 = fields
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != r.body as usize)
        .fold(0u64, |s, (_, x)| s.wrapping_add(store.pair(x)));
    let sender = if fields.len() > 1 {
        hash::fmix(others) | 1
    } else {
        0
    };
    Some((
        hash::combine(store.scopes.hash(r.scope), body.value()),
        r.created_ms,
        r.id,
        index,
        sender,
    ))
}

/// Receipt ids, ascending.
pub fn suspected_bots(store: &Store, settings: &Settings) -> Vec<ReceiptId> {
    let flagged = campaign_flags(store, &bodies(store), settings);
    flagged_ids(store, &flagged)
}

/// Ids of receipts with a filled honeypot or flagged in `campaigns`.
pub fn flagged_ids(store: &Store, campaigns: &[bool]) -> Vec<ReceiptId> {
    store
        .receipts
        .iter()
        .zip(campaigns)
        .filter(|(r, c)| r.honeypot_filled() || **c)
        .map(|(r, _)| r.id)
        .collect()
}

/// Which receipts (by index) are part of a campaign, from the sorted bodies.
pub fn campaign_flags(store: &Store, bodies: &[BodyKey], settings: &Settings) -> Vec<bool> {
    let mut flagged = vec![false; store.receipts.len()];
    for run in bodies.chunk_by(|a, b| a.0 == b.0) {
        mark_run(store, run, settings.window_ms, &mut flagged);
    }
    flagged
}

/// Marks the campaigns among copies that share a (scope, body) hash.
pub fn mark_run(store: &Store, run: &[BodyKey], window_ms: Millis, flagged: &mut [bool]) {
    if run.len() < MIN_SENDERS {
        return;
    }
    // Confirm on the checks (a hash collision must not make a campaign).
    let identity = |k: &BodyKey| {
        let r = &store.receipts[k.3 as usize];
        let body = store.body(r).expect("has a body");
        (r.scope, body.value(), body.check())
    };
    let mut run: Vec<BodyKey> = run.to_vec();
    run.sort_by(|a, b| {
        identity(a)
            .cmp(&identity(b))
            .then((a.1, a.2).cmp(&(b.1, b.2)))
    });
    for same in run.chunk_by(|a, b| identity(a) == identity(b)) {
        mark_campaigns(same, window_ms, flagged);
    }
}

/// Marks every copy that lies in some window holding [`MIN_SENDERS`] senders.
fn mark_campaigns(copies: &[BodyKey], window_ms: Millis, flagged: &mut [bool]) {
    if copies.len() < MIN_SENDERS {
        return;
    }
    let mut senders: HashMap64<usize> = HashMap64::default();
    let mut start = 0;
    let mut marked_to = 0; // copies[..marked_to] are marked
    for end in 0..copies.len() {
        if copies[end].4 != 0 {
            *senders.entry(copies[end].4).or_insert(0) += 1;
        }
        while copies[end].1 - copies[start].1 > window_ms {
            let s = copies[start].4;
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
                flagged[c.3 as usize] = true;
            }
            marked_to = end + 1;
        }
    }
}
