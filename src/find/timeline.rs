//! What a search keeps of every receipt it reads, so that the analysis can be
//! read around its hits alone (see [`super::around`]): when each receipt
//! arrived, and which receipts share a scope and request key.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use crate::model::{Millis, ReceiptId};

/// Every receipt read, by arrival and by request key, in the order read: a
/// search looks through them once or twice, which costs less than sorting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// (arrival, id) of each receipt whose time reads.
    pub arrivals: Vec<(Millis, ReceiptId)>,
    /// (hash of scope and request key, id) of each receipt with a key.
    pub keys: Vec<(u64, ReceiptId)>,
    /// The earliest and latest arrival.
    bounds: Option<(Millis, Millis)>,
}

impl Timeline {
    /// Records one receipt.
    pub fn push(
        &mut self,
        id: ReceiptId,
        created: Option<Millis>,
        scope: &str,
        request_key: Option<&str>,
    ) {
        if let Some(at) = created {
            self.arrivals.push((at, id));
            self.bounds = Some(match self.bounds {
                Some((first, last)) => (first.min(at), last.max(at)),
                None => (at, at),
            });
        }
        if let Some(key) = request_key {
            self.keys.push((key_hash(scope, key), id));
        }
    }

    /// Joins the timelines of several connections.
    pub fn merge(parts: impl IntoIterator<Item = Timeline>) -> Timeline {
        let mut all = Timeline::default();
        for part in parts {
            if all.arrivals.is_empty() {
                all = part;
                continue;
            }
            all.arrivals.extend(part.arrivals);
            all.keys.extend(part.keys);
            all.bounds = match (all.bounds, part.bounds) {
                (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
                (a, b) => a.or(b),
            };
        }
        all
    }

    /// How many receipts it holds a time for.
    pub fn timed(&self) -> usize {
        self.arrivals.len()
    }

    /// The receipts that arrived within any of `spans` (inclusive, sorted and
    /// disjoint), with when.
    pub fn arrived_within<'a>(
        &'a self,
        spans: &'a [(Millis, Millis)],
    ) -> impl Iterator<Item = (ReceiptId, Millis)> + 'a {
        let within = |at: Millis| {
            let i = spans.partition_point(|&(_, to)| to < at);
            spans.get(i).is_some_and(|&(from, _)| from <= at)
        };
        self.arrivals
            .iter()
            .filter(move |&&(at, _)| within(at))
            .map(|&(at, id)| (id, at))
    }

    /// The receipts with any of these (scope, request key) pairs; a hash
    /// that collides only adds receipts.
    pub fn sharing_keys(&self, scope_keys: &[(&str, &str)]) -> Vec<ReceiptId> {
        if scope_keys.is_empty() {
            return Vec::new();
        }
        let mut wanted: Vec<u64> = scope_keys.iter().map(|(s, k)| key_hash(s, k)).collect();
        wanted.sort_unstable();
        self.keys
            .iter()
            .filter(|(h, _)| wanted.binary_search(h).is_ok())
            .map(|&(_, id)| id)
            .collect()
    }

    /// The earliest and latest arrival, when any time reads.
    pub fn bounds(&self) -> Option<(Millis, Millis)> {
        self.bounds
    }
}

/// The same hash for the same scope and key within one process.
fn key_hash(scope: &str, key: &str) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one((scope, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline() -> Timeline {
        let mut a = Timeline::default();
        a.push(1, Some(100), "f", Some("k1"));
        a.push(3, Some(300), "f", Some("k2"));
        let mut b = Timeline::default();
        b.push(2, Some(200), "g", Some("k1"));
        b.push(4, None, "f", Some("k1"));
        b.push(5, Some(500), "f", None);
        Timeline::merge([a, b])
    }

    #[test]
    fn receipts_are_found_by_the_time_they_arrived() {
        let t = timeline();
        let within = |spans: &[(Millis, Millis)]| -> Vec<(ReceiptId, Millis)> {
            let mut found: Vec<_> = t.arrived_within(spans).collect();
            found.sort_unstable();
            found
        };
        assert_eq!(within(&[(150, 300)]), vec![(2, 200), (3, 300)]);
        assert_eq!(within(&[(0, 100), (400, 900)]), vec![(1, 100), (5, 500)]);
        assert_eq!(within(&[(600, 900)]), vec![]);
        assert_eq!((t.timed(), t.bounds()), (4, Some((100, 500))));
    }

    #[test]
    fn receipts_sharing_a_key_are_those_of_the_same_scope() {
        let t = timeline();
        let mut ids = t.sharing_keys(&[("f", "k1")]);
        ids.sort_unstable();
        assert_eq!(ids, vec![1, 4]);
        assert_eq!(t.sharing_keys(&[("g", "k2")]), Vec::<ReceiptId>::new());
    }
}
