//! The matches of a search made into what an operator answers a visitor
//! with: each receipt's state, its replays, the items it belongs to with
//! what was decided, and its fields.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::query::Query;
use super::scan::{FormCounts, FoundIn, Match, Scan};
use crate::model::erasure::Tombstone;
use crate::model::{Millis, ReceiptId};
use crate::reading::Snapshot;
use crate::triage::model::AttemptSource;

/// An item a receipt belongs to, and where its review stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemRef {
    /// `dup:12`, `conflict:40`, `stuck:77`, `bot:90`.
    pub item: String,
    /// `pending`, `resolved`, `pending, new copy`, `suspected`.
    pub status: String,
    /// The latest decision, when there is one.
    pub decision: Option<String>,
}

/// One receipt found.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub created_ms: Option<Millis>,
    pub state: String,
    pub request_key: Option<String>,
    pub replays: u32,
    pub items: Vec<ItemRef>,
    /// The payload's top-level fields as stored (values as compact JSON
    /// unless text); empty when the payload is not an object.
    pub fields: Vec<(String, String)>,
    /// The payload as stored when it is not an object (or not text).
    pub unreadable: Option<String>,
    /// When and by whom its fields were erased (then it has none).
    pub erased: Option<Tombstone>,
    pub found: FoundIn,
    /// In flight and not yet stuck: nobody knows yet how it ends.
    pub outcome_unknown: bool,
}

/// Everything a search answers.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub query: Option<Query>,
    /// Newest first.
    pub hits: Vec<Hit>,
    /// How many receipts matched (more than `hits` when many did).
    pub total: u64,
    /// Per scope, sorted by scope.
    pub tallies: Vec<(String, FormCounts)>,
    pub now_ms: Millis,
    pub stuck_after_ms: Millis,
}

impl Outcome {
    /// The counts over every form.
    pub fn all_forms(&self) -> FormCounts {
        self.tallies
            .iter()
            .fold(FormCounts::default(), |mut a, (_, t)| {
                a.receipts += t.receipts;
                a.in_flight += t.in_flight;
                a.recent += t.recent;
                a.in_span += t.in_span;
                a.erased += t.erased;
                a
            })
    }

    /// The forms the query's text names (part of a scope), with their counts.
    pub fn named_forms(&self) -> Vec<&(String, FormCounts)> {
        let Some(needle) = self.query.as_ref().and_then(|q| q.needle.as_deref()) else {
            return Vec::new();
        };
        self.tallies
            .iter()
            .filter(|(scope, _)| crate::triage::text::normalize_text(scope).contains(needle))
            .collect()
    }
}

/// A search that found nothing needs no analysis: what a miss says comes
/// from the counts alone.
pub fn miss(query: &Query, scan: Scan, settings: &crate::model::Settings) -> Outcome {
    debug_assert!(scan.matches.is_empty());
    Outcome {
        query: Some(query.clone()),
        hits: Vec::new(),
        total: scan.total,
        tallies: scan.tallies,
        now_ms: settings.now_ms,
        stuck_after_ms: settings.stuck_after_ms,
    }
}

/// The hits of `scan`, with what `snap` says of each.
pub fn assemble(query: &Query, scan: Scan, snap: &Snapshot) -> Outcome {
    let wanted: HashSet<ReceiptId> = scan.matches.iter().map(|m| m.id).collect();
    let items = items_of(&wanted, snap);
    let hits = scan
        .matches
        .into_iter()
        .map(|m| {
            let items = items.get(&m.id).cloned().unwrap_or_default();
            hit(m, items, snap)
        })
        .collect();
    Outcome {
        query: Some(query.clone()),
        hits,
        total: scan.total,
        tallies: scan.tallies,
        now_ms: snap.settings.now_ms,
        stuck_after_ms: snap.settings.stuck_after_ms,
    }
}

fn hit(m: Match, items: Vec<ItemRef>, snap: &Snapshot) -> Hit {
    let (fields, unreadable) = match &m.payload {
        _ if m.erased.is_some() => (Vec::new(), None),
        Ok(text) => match serde_json::from_str::<Map<String, Value>>(text) {
            Ok(map) => (
                map.into_iter()
                    .map(|(k, v)| {
                        let shown = match v {
                            Value::String(s) => s,
                            other => other.to_string(),
                        };
                        (k, shown)
                    })
                    .collect(),
                None,
            ),
            Err(_) => (Vec::new(), Some(text.clone())),
        },
        Err(why) => (Vec::new(), Some(why.clone())),
    };
    let settings = &snap.settings;
    let outcome_unknown = m.state == "in_flight"
        && m.created_ms
            .is_none_or(|at| settings.now_ms - at < settings.stuck_after_ms);
    Hit {
        receipt_id: m.id,
        replays: snap.replays_of(m.id),
        scope: m.scope,
        created_ms: m.created_ms,
        state: m.state,
        request_key: m.request_key,
        items,
        fields,
        unreadable,
        erased: m.erased,
        found: m.found,
        outcome_unknown,
    }
}

/// The items each wanted receipt belongs to, in the order of the tabs.
pub(crate) fn items_of(
    wanted: &HashSet<ReceiptId>,
    snap: &Snapshot,
) -> HashMap<ReceiptId, Vec<ItemRef>> {
    let mut out: HashMap<ReceiptId, Vec<ItemRef>> = HashMap::new();
    if wanted.is_empty() {
        return out;
    }
    let reviewed = |item: String| {
        let review = snap.review(&item);
        let status = if review.is_settled() {
            "resolved"
        } else if review.new_copy_since_decision {
            "pending, new copy"
        } else {
            "pending"
        };
        ItemRef {
            item,
            status: status.to_string(),
            decision: review.decision,
        }
    };
    let t = &snap.triage;
    for g in &t.duplicates {
        for m in g.members.iter().filter(|m| wanted.contains(&m.id)) {
            out.entry(m.id).or_default().push(reviewed(g.item()));
        }
    }
    for c in &t.conflicts {
        let attempts = c
            .attempts
            .iter()
            .filter(|a| a.source == AttemptSource::Receipts)
            .map(|a| a.id);
        for id in std::iter::once(c.receipt_id).chain(attempts) {
            if wanted.contains(&id) {
                out.entry(id).or_default().push(reviewed(c.item()));
            }
        }
    }
    for s in t.stuck.iter().filter(|s| wanted.contains(&s.receipt_id)) {
        out.entry(s.receipt_id)
            .or_default()
            .push(reviewed(s.item()));
    }
    for &id in t.suspected_bots.iter().filter(|id| wanted.contains(id)) {
        out.entry(id).or_default().push(ItemRef {
            item: bot_item(id),
            status: "suspected".into(),
            decision: None,
        });
    }
    out
}

/// How a suspected bot receipt is named among a hit's items.
pub fn bot_item(id: ReceiptId) -> String {
    format!("bot:{id}")
}
