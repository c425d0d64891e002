//! Suspected bot receipts grouped by their evidence. Each receipt is in one
//! group: a campaign's first (its copies of one body, in any scope), then a
//! filled honeypot, then an empty submission (those two per scope). A
//! campaign's copies chain while each gap is at most the window, as the rule
//! that found them reads them. A scope's honeypot or empty receipts are one
//! group per day (UTC): a scanner that comes back every few hours is one
//! decision a day, not one per visit.

use std::collections::HashSet;
use std::sync::Arc;

use super::sender::{Identities, sender};
use crate::model::{Millis, ReceiptId};
use crate::triage::facts::FactStore;
use crate::triage::model::{BotEvidence, BotGroup, BotReceipt};

/// What a bot group needs of one suspected bot receipt, kept by the engine
/// between readings (the fields it came from may be dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotFact {
    /// The receipt's index in the store.
    pub index: u32,
    pub evidence: BotEvidence,
    /// What its group shares: the body (hash, check) of a campaign copy, the
    /// scope id of the others.
    pub key: (u64, u32),
    pub sender: u64,
}

/// The bot fact of receipt `index`, when it is a suspected bot (`campaign`:
/// flagged by the campaign rule). Reads its fields: call it while it holds
/// them.
pub fn bot_fact(
    store: &FactStore,
    ids: &Identities,
    index: u32,
    campaign: bool,
) -> Option<BotFact> {
    let r = &store.receipts[index as usize];
    // An erased receipt has no fields left to be evidence of anything.
    if r.is_erased() {
        return None;
    }
    let evidence = if campaign {
        BotEvidence::Campaign
    } else if r.honeypot_filled() {
        BotEvidence::Honeypot
    } else if r.is_empty() {
        BotEvidence::Empty
    } else {
        return None;
    };
    let key = match (evidence, store.body(r)) {
        (BotEvidence::Campaign, Some(body)) => (body.value(), body.check()),
        _ => (u64::from(r.scope), 0),
    };
    Some(BotFact {
        index,
        evidence,
        key,
        sender: if r.is_empty() {
            0
        } else {
            sender(store, ids, r)
        },
    })
}

/// Every bot fact of a store that holds every receipt's fields.
pub fn bot_facts(store: &FactStore, campaigns: &[bool]) -> Vec<BotFact> {
    let ids = Identities::of(store);
    (0..store.receipts.len() as u32)
        .filter_map(|i| bot_fact(store, &ids, i, campaigns[i as usize]))
        .collect()
}

const DAY_MS: Millis = 86_400_000;

/// The groups of these facts, ordered by earliest receipt time, then id.
pub fn bot_groups(store: &FactStore, facts: &[BotFact], window_ms: Millis) -> Vec<Arc<BotGroup>> {
    let at = |f: &BotFact| {
        let r = &store.receipts[f.index as usize];
        (r.created_ms, r.id)
    };
    let mut sorted: Vec<&BotFact> = facts.iter().collect();
    sorted.sort_unstable_by_key(|f| (f.evidence, f.key, at(f)));
    let mut groups: Vec<BotGroup> = Vec::new();
    for same in sorted.chunk_by(|a, b| (a.evidence, a.key) == (b.evidence, b.key)) {
        let together = |a: &&BotFact, b: &&BotFact| match a.evidence {
            BotEvidence::Campaign => at(b).0 - at(a).0 <= window_ms,
            BotEvidence::Honeypot | BotEvidence::Empty => {
                at(a).0.div_euclid(DAY_MS) == at(b).0.div_euclid(DAY_MS)
            }
        };
        for chain in same.chunk_by(together) {
            groups.push(group_of(store, chain));
        }
    }
    groups.sort_unstable_by_key(|g| (g.receipts[0].created_ms, g.receipts[0].id));
    crate::triage::each_shared(groups)
}

fn group_of(store: &FactStore, chain: &[&BotFact]) -> BotGroup {
    let mut names: Vec<&str> = chain
        .iter()
        .map(|f| store.scopes.name(store.receipts[f.index as usize].scope))
        .collect();
    names.sort_unstable();
    names.dedup();
    let receipts: Vec<BotReceipt> = chain
        .iter()
        .map(|f| {
            let r = &store.receipts[f.index as usize];
            let name = store.scopes.name(r.scope);
            BotReceipt {
                id: r.id,
                created_ms: r.created_ms,
                scope: names.binary_search(&name).expect("listed") as u32,
            }
        })
        .collect();
    let senders: HashSet<u64> = chain.iter().map(|f| f.sender).filter(|&s| s != 0).collect();
    BotGroup {
        evidence: chain[0].evidence,
        receipts,
        senders: senders.len(),
        scopes: names.into_iter().map(str::to_string).collect(),
    }
}

/// The ids of the receipts of these facts, ascending (facts are by index,
/// and indices follow ids).
pub fn bot_ids(store: &FactStore, facts: &[BotFact]) -> Vec<ReceiptId> {
    facts
        .iter()
        .map(|f| store.receipts[f.index as usize].id)
        .collect()
}
