//! The suspected bots kept between readings: each receipt's campaign flag
//! and the index of bodies, so that an added copy of a body decides again
//! only the copies of that body within a window of it.

use super::sorted::SortedIndex;
use crate::model::{Millis, ReceiptId, Settings};
use crate::triage::bots::{self, BodyKey};
use crate::triage::facts::Store;
use crate::triage::hash::HashMap64;

#[derive(Debug, Default)]
pub(super) struct Campaigns {
    /// (scope, body) hashes with receipt indices.
    pub(super) bodies: SortedIndex,
    /// By receipt index: part of a campaign.
    flags: Vec<bool>,
    /// Ids of suspected bots, ascending.
    bot_ids: Vec<ReceiptId>,
}

impl Campaigns {
    /// The bodies of every receipt, sorted, and which are part of a campaign
    /// (for [`Campaigns::new`]).
    pub(super) fn find(store: &Store, settings: &Settings) -> (Vec<BodyKey>, Vec<bool>) {
        let bodies = bots::bodies(store);
        let flags = bots::campaign_flags(store, &bodies, settings);
        (bodies, flags)
    }

    /// What [`Campaigns::find`] found; `bodies` is indexed later
    /// ([`Campaigns::index_bodies`]), once the old fields are let go.
    pub(super) fn new(store: &Store, flags: Vec<bool>) -> Self {
        Self {
            bodies: SortedIndex::default(),
            bot_ids: bots::flagged_ids(store, &flags),
            flags,
        }
    }

    pub(super) fn index_bodies(&mut self, bodies: Vec<BodyKey>) {
        self.bodies = SortedIndex::from_sorted(bodies);
    }

    pub(super) fn bot_ids(&self) -> &[ReceiptId] {
        &self.bot_ids
    }

    /// Takes in the receipts added from index `from` on: the copies of their
    /// bodies within a window of them are decided again.
    pub(super) fn add(&mut self, store: &Store, settings: &Settings, from: usize) {
        let n = store.receipts.len();
        let body_of = |i: u32| bots::body_key(store, i, &store.receipts[i as usize]).map(|b| b.0);
        self.flags.resize(n, false);
        let added: Vec<BodyKey> = (from..n)
            .filter_map(|i| bots::body_key(store, i as u32, &store.receipts[i]))
            .collect();
        // The earliest added copy of each body: a copy more than a window
        // before it keeps its flag (no window holds both), and a flag is
        // decided by the copies within a window either side.
        let created = |i: u32| store.receipts[i as usize].created_ms;
        let mut earliest: HashMap64<Millis> = HashMap64::default();
        for &(h, i) in &added {
            let t = earliest.entry(h).or_insert(Millis::MAX);
            *t = (*t).min(created(i));
        }
        self.bodies.add(added);
        let window = settings.window_ms.max(0);
        let mut maybe: Vec<u32> = (from as u32..n as u32).collect();
        for (h, first) in earliest {
            let mut run = self.bodies.equal(h, body_of);
            run.retain(|b| created(b.1) >= first.saturating_sub(window.saturating_mul(2)));
            for b in run
                .iter()
                .filter(|b| created(b.1) >= first.saturating_sub(window))
            {
                self.flags[b.1 as usize] = false;
                maybe.push(b.1);
            }
            bots::mark_run(store, &run, settings.window_ms, &mut self.flags);
        }
        maybe.sort_unstable();
        maybe.dedup();
        for i in maybe {
            let r = &store.receipts[i as usize];
            let flagged = r.honeypot_filled() || self.flags[i as usize];
            match (self.bot_ids.binary_search(&r.id), flagged) {
                (Err(at), true) => self.bot_ids.insert(at, r.id),
                (Ok(at), false) => {
                    self.bot_ids.remove(at);
                }
                _ => {}
            }
        }
    }
}
