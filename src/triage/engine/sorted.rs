//! A sorted index of receipts by a 64-bit hash of a scope and a request
//! key that keeps, beside each receipt's index,
//! only the hash's upper half: eight bytes an entry instead of sixteen (at a
//! million keyed receipts, 6 MB instead of 13). The whole hash is worked out
//! again from the receipt's facts for the few entries a lookup finds.

/// (upper half of the hash, receipt index), in two parts so that adding a
/// few entries does not move them all: a large main part and a small delta,
/// merged when the delta grows past a fraction of the main part. Both are
/// in order of the upper half.
#[derive(Clone, Debug, Default)]
pub(super) struct SortedIndex {
    main: Vec<(u32, u32)>,
    delta: Vec<(u32, u32)>,
}

fn upper(h: u64) -> u32 {
    (h >> 32) as u32
}

impl SortedIndex {
    /// From (hash, index) entries sorted by hash.
    pub(super) fn from_sorted(entries: Vec<(u64, u32)>) -> Self {
        Self {
            main: entries.into_iter().map(|(h, i)| (upper(h), i)).collect(),
            delta: Vec::new(),
        }
    }

    pub(super) fn add(&mut self, entries: Vec<(u64, u32)>) {
        if entries.is_empty() {
            return;
        }
        let mut entries: Vec<(u32, u32)> =
            entries.into_iter().map(|(h, i)| (upper(h), i)).collect();
        entries.sort_unstable();
        self.delta.extend(entries);
        self.delta.sort(); // two sorted runs: a merge
        if self.delta.len() * 32 > self.main.len() {
            self.main.append(&mut self.delta);
            self.main.sort();
        }
    }

    /// The entries with hash `h`, as (hash, index) sorted; `hash_of` gives
    /// the hash of an indexed receipt.
    pub(super) fn equal(&self, h: u64, hash_of: impl Fn(u32) -> Option<u64>) -> Vec<(u64, u32)> {
        let half = upper(h);
        let range = |v: &[(u32, u32)]| {
            let lo = v.partition_point(|e| e.0 < half);
            let hi = v.partition_point(|e| e.0 <= half);
            v[lo..hi]
                .iter()
                .filter(|e| hash_of(e.1) == Some(h))
                .map(|e| (h, e.1))
                .collect::<Vec<_>>()
        };
        let mut out = range(&self.main);
        out.extend(range(&self.delta));
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// What a lookup finds is what a list of every (hash, index) holds,
        /// whatever the hashes share: built at once, then added to.
        #[test]
        fn a_lookup_finds_the_entries_with_its_hash(
            first in proptest::collection::vec((0u64..6, 0u64..4), 0..60),
            added in proptest::collection::vec(proptest::collection::vec((0u64..6, 0u64..4), 0..8), 0..6),
        ) {
            // Hashes that share their upper half and differ below it.
            let hash = |(hi, lo): (u64, u64)| (hi << 32) | lo;
            let mut all: Vec<(u64, u32)> = Vec::new();
            let mut start: Vec<(u64, u32)> = first
                .iter()
                .enumerate()
                .map(|(i, &p)| (hash(p), i as u32))
                .collect();
            start.sort_unstable();
            all.extend(&start);
            let mut index = SortedIndex::from_sorted(start);
            let mut next = all.len() as u32;
            for batch in &added {
                let entries: Vec<(u64, u32)> = batch
                    .iter()
                    .map(|&p| {
                        next += 1;
                        (hash(p), next)
                    })
                    .collect();
                all.extend(&entries);
                index.add(entries);
            }
            let hash_of = |i: u32| all.iter().find(|e| e.1 == i).map(|e| e.0);
            for hi in 0..6 {
                for lo in 0..4 {
                    let h = hash((hi, lo));
                    let mut expected: Vec<(u64, u32)> =
                        all.iter().copied().filter(|e| e.0 == h).collect();
                    expected.sort_unstable();
                    proptest::prop_assert_eq!(index.equal(h, hash_of), expected);
                }
            }
        }
    }
}
