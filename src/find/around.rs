//! The analysis a search's hits need, read around them alone.
//!
//! Which items a receipt belongs to depends only on receipts near it:
//! - a duplicate group's copies are of one scope, each within the window of
//!   the copy before it, so a group is found from the receipts that arrived
//!   around it;
//! - a campaign's copies of one body chain the same way, in any scope;
//! - a conflict is made of the receipts sharing a scope and request key,
//!   whenever they arrived;
//! - a stuck receipt, and a honeypot or empty one, are so by themselves.
//!
//! So the receipts of every scope that arrived within a margin of each hit,
//! and those sharing a hit's key, are analysed as if they were the database
//! ([`crate::reading::Subsets`]). Two things could make that analysis
//! differ from the whole one: a group that goes on past the margin, and a
//! receipt near the margin's edge that joined a group begun outside it
//! (which can change where the copies after it go). So the margin is doubled
//! until every hit's group and campaign keep a window clear of its edges and
//! the hits' items, copies included, are the same at two margins in a row.
//! When the margins take in most receipts, the whole database is read.

use std::collections::{HashMap, HashSet};

use super::hits::{ItemRef, items_of};
use super::scan::Scan;
use super::timeline::Timeline;
use crate::model::{Millis, ReceiptId, Settings};
use crate::reading::{self, Snapshot, Subsets};
use crate::storage::Storage;
use crate::triage::model::BotEvidence;

/// The first margin, in windows, on each side of a hit.
const FIRST_MARGIN: i64 = 2;

/// Past this share of the receipts, reading all costs little more.
const MOST: f64 = 0.5;

/// What the hits of `scan` are found in: the analysis of the receipts around
/// them, or of the whole database.
pub fn read_around(
    db: &dyn Storage,
    scan: &Scan,
    timeline: &Timeline,
    settings: &Settings,
) -> anyhow::Result<Snapshot> {
    let window = settings.window_ms.max(1);
    let hits: Vec<ReceiptId> = scan.matches.iter().map(|m| m.id).collect();
    let wanted: HashSet<ReceiptId> = hits.iter().copied().collect();
    let times: Vec<Millis> = scan.matches.iter().filter_map(|m| m.created_ms).collect();
    let scope_keys: Vec<(&str, &str)> = scan
        .matches
        .iter()
        .filter_map(|m| Some((m.scope.as_str(), m.request_key.as_deref()?)))
        .collect();
    let sharing = timeline.sharing_keys(&scope_keys);
    let mut subsets = Subsets::begin(db, settings.clone())?;
    let mut margin = FIRST_MARGIN.saturating_mul(window);
    let mut before: Option<Vec<Answer>> = None;
    loop {
        let spans = spans(&times, margin, timeline.bounds());
        let arrived: HashMap<ReceiptId, Millis> = timeline.arrived_within(&spans).collect();
        if arrived.len() as f64 > MOST * timeline.timed() as f64 {
            subsets.end()?;
            return reading::read(db, settings.clone(), &mut |_| {});
        }
        let mut ids: Vec<ReceiptId> = arrived.keys().copied().collect();
        ids.extend(&hits);
        ids.extend(&sharing);
        ids.sort_unstable();
        ids.dedup();
        let snap = subsets.read(&ids)?;
        let answers = answers(&snap, &hits, &wanted);
        let clear = clear_of_edges(&snap, &wanted, &spans, &arrived, window);
        if clear && before.as_ref() == Some(&answers) {
            subsets.end()?;
            return Ok(snap);
        }
        before = Some(answers);
        margin = margin.saturating_mul(2);
    }
}

/// Each hit's span of `margin` on either side, joined where they meet; the
/// first and last reach past the earliest and latest receipts when they get
/// that far (nothing lies beyond those edges).
fn spans(
    times: &[Millis],
    margin: Millis,
    bounds: Option<(Millis, Millis)>,
) -> Vec<(Millis, Millis)> {
    let mut times = times.to_vec();
    times.sort_unstable();
    let mut out: Vec<(Millis, Millis)> = Vec::new();
    for at in times {
        let (from, to) = (at.saturating_sub(margin), at.saturating_add(margin));
        match out.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => out.push((from, to)),
        }
    }
    if let Some((earliest, latest)) = bounds {
        if let Some(first) = out.first_mut()
            && first.0 <= earliest
        {
            first.0 = Millis::MIN;
        }
        if let Some(last) = out.last_mut()
            && last.1 >= latest
        {
            last.1 = Millis::MAX;
        }
    }
    out
}

/// What is said of one hit: its items, and the copies of its duplicate group
/// and of its bot group.
#[derive(Debug, PartialEq)]
struct Answer {
    items: Vec<ItemRef>,
    copies: Vec<ReceiptId>,
    bots: Vec<ReceiptId>,
}

fn answers(snap: &Snapshot, hits: &[ReceiptId], wanted: &HashSet<ReceiptId>) -> Vec<Answer> {
    let mut items = items_of(wanted, snap);
    let t = &snap.triage;
    hits.iter()
        .map(|id| Answer {
            items: items.remove(id).unwrap_or_default(),
            copies: t
                .duplicates
                .iter()
                .find(|g| g.members.iter().any(|m| m.id == *id))
                .map(|g| g.receipt_ids())
                .unwrap_or_default(),
            bots: t
                .bot_groups
                .iter()
                .find(|g| g.receipts.iter().any(|r| r.id == *id))
                .map(|g| g.receipt_ids())
                .unwrap_or_default(),
        })
        .collect()
}

/// True when every copy of the hits' duplicate groups and campaigns arrived
/// a window or more inside the edges of its span.
fn clear_of_edges(
    snap: &Snapshot,
    hits: &HashSet<ReceiptId>,
    spans: &[(Millis, Millis)],
    arrived: &HashMap<ReceiptId, Millis>,
    window: Millis,
) -> bool {
    let inside = |id: &ReceiptId| {
        arrived.get(id).is_some_and(|&at| {
            spans.iter().any(|&(from, to)| {
                (from == Millis::MIN || at >= from.saturating_add(window))
                    && (to == Millis::MAX || at <= to.saturating_sub(window))
            })
        })
    };
    let t = &snap.triage;
    let groups = t
        .duplicates
        .iter()
        .filter(|g| g.members.iter().any(|m| hits.contains(&m.id)))
        .flat_map(|g| g.members.iter().map(|m| m.id));
    let campaigns = t
        .bot_groups
        .iter()
        .filter(|g| g.evidence == BotEvidence::Campaign)
        .filter(|g| g.receipts.iter().any(|r| hits.contains(&r.id)))
        .flat_map(|g| g.receipts.iter().map(|r| r.id));
    groups.chain(campaigns).all(|id| inside(&id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_join_where_they_meet_and_open_at_the_ends() {
        let bounds = Some((0, 1_000));
        assert_eq!(
            spans(&[500, 100, 130], 20, bounds),
            vec![(80, 150), (480, 520)]
        );
        assert_eq!(
            spans(&[10, 990], 20, bounds),
            vec![(Millis::MIN, 30), (970, Millis::MAX)]
        );
        assert_eq!(spans(&[], 20, bounds), vec![]);
    }
}
