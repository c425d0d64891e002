//! The suspected bots kept between readings: each receipt's campaign flag,
//! and what the bot groups need of every suspected bot (its fields may be
//! dropped later). A copy's flag is decided by the copies of its body within
//! a window either side, in any scope, so a refresh runs the batch rule
//! again over every scope from two windows before the earliest added
//! receipt with a body, and takes the flags from one window before it on.

use std::sync::Arc;

use crate::model::{Millis, ReceiptId, Settings};
use crate::triage::bots::groups::{self, BotFact};
use crate::triage::bots::sender::Identities;
use crate::triage::bots::{self, BodyKey};
use crate::triage::facts::FactStore;
use crate::triage::model::BotGroup;

#[derive(Debug, Default)]
pub(super) struct Campaigns {
    /// By receipt index: part of a campaign.
    flags: Vec<bool>,
    /// Every suspected bot, by index.
    facts: Vec<BotFact>,
    /// Ids of suspected bots, ascending.
    bot_ids: Vec<ReceiptId>,
}

impl Campaigns {
    /// Every receipt's flag, as the batch rule finds it.
    pub(super) fn find(store: &FactStore, settings: &Settings) -> Vec<bool> {
        bots::campaign_flags(store, &bots::bodies(store), settings)
    }

    /// Made while every receipt holds its fields.
    pub(super) fn new(store: &FactStore, flags: Vec<bool>) -> Self {
        let facts = groups::bot_facts(store, &flags);
        Self {
            bot_ids: groups::bot_ids(store, &facts),
            facts,
            flags,
        }
    }

    pub(super) fn bot_ids(&self) -> &[ReceiptId] {
        &self.bot_ids
    }

    pub(super) fn groups(&self, store: &FactStore, settings: &Settings) -> Vec<Arc<BotGroup>> {
        groups::bot_groups(store, &self.facts, settings.window_ms)
    }

    /// Takes in the receipts added from index `from` on; `runs` (by scope,
    /// in sweep order) hold them.
    pub(super) fn add(
        &mut self,
        store: &FactStore,
        settings: &Settings,
        runs: &[Vec<u32>],
        from: usize,
    ) {
        let n = store.receipts.len();
        self.flags.resize(n, false);
        let created = |i: u32| store.receipts[i as usize].created_ms;
        let ids = Identities::of(store);
        let first: Option<Millis> = store.receipts[from..]
            .iter()
            .filter(|r| store.body(r).is_some())
            .map(|r| r.created_ms)
            .min();
        let mut maybe: Vec<u32> = (from as u32..n as u32).collect();
        if let Some(first) = first {
            let window = settings.window_ms.max(0);
            let start = first.saturating_sub(window.saturating_mul(2));
            let decided = first.saturating_sub(window);
            let mut bodies: Vec<BodyKey> = runs
                .iter()
                .flat_map(|run| &run[run.partition_point(|&i| created(i) < start)..])
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
                bots::mark_run(store, &ids, same, settings.window_ms, &mut self.flags);
            }
        }
        maybe.sort_unstable();
        maybe.dedup();
        for i in maybe {
            let fact = groups::bot_fact(store, &ids, i, self.flags[i as usize]);
            let id = store.receipts[i as usize].id;
            match (self.facts.binary_search_by_key(&i, |f| f.index), fact) {
                (Ok(at), Some(f)) => self.facts[at] = f,
                (Ok(at), None) => {
                    self.facts.remove(at);
                }
                (Err(at), Some(f)) => self.facts.insert(at, f),
                (Err(_), None) => {}
            }
            match (self.bot_ids.binary_search(&id), fact.is_some()) {
                (Err(at), true) => self.bot_ids.insert(at, id),
                (Ok(at), false) => {
                    self.bot_ids.remove(at);
                }
                _ => {}
            }
        }
    }
}
