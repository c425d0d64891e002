//! Suspected bots: a filled honeypot, or one message body from three or more
//! different senders in the same scope within the window.

use rayon::prelude::*;

use super::facts::Facts;
use super::hash::{self, HashMap64};
use super::model::{Millis, Receipt, ReceiptId, Settings};

/// How many different senders of one body make it a campaign.
pub const MIN_SENDERS: usize = 3;

/// Receipt ids, ascending. `receipts` are sorted by id.
pub fn suspected_bots(
    receipts: &[Receipt],
    facts: &[Facts],
    settings: &Settings,
) -> Vec<ReceiptId> {
    let mut flagged: Vec<bool> = receipts.par_iter().map(|r| r.honeypot_filled).collect();

    // (scope, body) hash, time, index, sender: the other visitor fields (0: none).
    let mut bodies: Vec<(u64, Millis, ReceiptId, u32, u64)> = receipts
        .par_iter()
        .zip(facts)
        .enumerate()
        .filter_map(|(i, (r, f))| {
            let body = f.body()?;
            let others: u64 = f
                .fields
                .iter()
                .filter(|x| x.slot != body.slot)
                .fold(0u64, |s, x| s.wrapping_add(x.pair()));
            let sender = if f.fields.len() > 1 {
                hash::fmix(others) | 1
            } else {
                0
            };
            Some((
                hash::combine(f.scope, body.value),
                r.created_ms,
                r.id,
                i as u32,
                sender,
            ))
        })
        .collect();
    bodies.par_sort_unstable();

    let body_text = |i: u32| {
        let f = &facts[i as usize];
        let body = f.body().expect("has a body");
        (
            &receipts[i as usize].scope,
            &receipts[i as usize].visitor.0[body.slot as usize].1,
        )
    };
    for run in bodies.chunk_by(|a, b| a.0 == b.0) {
        if run.len() < MIN_SENDERS {
            continue;
        }
        // Confirm on the strings (a hash collision must not make a campaign).
        let mut run: Vec<_> = run.to_vec();
        run.sort_by(|a, b| {
            body_text(a.3)
                .cmp(&body_text(b.3))
                .then((a.1, a.2).cmp(&(b.1, b.2)))
        });
        for same in run.chunk_by(|a, b| body_text(a.3) == body_text(b.3)) {
            mark_campaigns(same, settings.window_ms, &mut flagged);
        }
    }

    receipts
        .iter()
        .zip(&flagged)
        .filter(|(_, f)| **f)
        .map(|(r, _)| r.id)
        .collect()
}

/// Marks every copy that lies in some window holding [`MIN_SENDERS`] senders.
fn mark_campaigns(
    copies: &[(u64, Millis, ReceiptId, u32, u64)],
    window_ms: Millis,
    flagged: &mut [bool],
) {
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
