//! The suspected bots kept between readings: each receipt's campaign flag.
//! A copy's flag is decided by the copies of its body within a window either
//! side, so a refresh runs the batch rule again over each touched scope from
//! two windows before its earliest added receipt, and takes the flags from
//! one window before it on.

use crate::model::{Millis, ReceiptId, Settings};
use crate::triage::bots::{self, BodyKey};
use crate::triage::facts::Store;

#[derive(Debug, Default)]
pub(super) struct Campaigns {
    /// By receipt index: part of a campaign.
    flags: Vec<bool>,
    /// Ids of suspected bots, ascending.
    bot_ids: Vec<ReceiptId>,
}

impl Campaigns {
    /// Every receipt's flag, as the batch rule finds it.
    pub(super) fn find(store: &Store, settings: &Settings) -> Vec<bool> {
        bots::campaign_flags(store, &bots::bodies(store), settings)
    }

    pub(super) fn new(store: &Store, flags: Vec<bool>) -> Self {
        Self {
            bot_ids: bots::flagged_ids(store, &flags),
            flags,
        }
    }

    pub(super) fn bot_ids(&self) -> &[ReceiptId] {
        &self.bot_ids
    }

    /// Takes in the receipts added from index `from` on; `runs` (by scope,
    /// in sweep order) hold them.
    pub(super) fn add(
        &mut self,
        store: &Store,
        settings: &Settings,
        runs: &[Vec<u32>],
        from: usize,
    ) {
        let n = store.receipts.len();
        self.flags.resize(n, false);
        let created = |i: u32| store.receipts[i as usize].created_ms;
        let mut earliest: Vec<(u32, Millis)> = Vec::new();
        for r in &store.receipts[from..] {
            if store.body(r).is_some() {
                match earliest.iter_mut().find(|e| e.0 == r.scope) {
                    Some(e) => e.1 = e.1.min(r.created_ms),
                    None => earliest.push((r.scope, r.created_ms)),
                }
            }
        }
        let window = settings.window_ms.max(0);
        let mut maybe: Vec<u32> = (from as u32..n as u32).collect();
        for (scope, first) in earliest {
            let run = &runs[scope as usize];
            let start = first.saturating_sub(window.saturating_mul(2));
            let decided = first.saturating_sub(window);
            let slice = &run[run.partition_point(|&i| created(i) < start)..];
            let mut bodies: Vec<BodyKey> = slice
                .iter()
                .filter_map(|&i| bots::body_key(store, i, &store.receipts[i as usize]))
                .collect();
            bodies.sort_unstable();
            for &(_, i) in &bodies {
                if created(i) >= decided {
                    self.flags[i as usize] = false;
                    maybe.push(i);
                }
            }
            for same in bodies.chunk_by(|a, b| a.0 == b.0) {
                bots::mark_run(store, same, settings.window_ms, &mut self.flags);
            }
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
