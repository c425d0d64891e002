//! The receipts stored within each scope's window, by the hash of their
//! visitor fields: what an exact copy is absorbed into. Kept in memory by the
//! one writer; filled from the database at start.
//!
//! Each scope holds at most [`CAPACITY`] receipts: a flood must not grow
//! the server's memory with the window (26,000 submissions a second over a
//! 10-minute window would be 15 million entries). Past it the oldest are
//! forgotten first, and counted: a copy of a forgotten receipt is stored, not
//! absorbed, which loses nothing (the screen groups it with its original).

use std::collections::{HashMap, VecDeque};

use crate::model::{Millis, ReceiptId};

/// The most receipts remembered per scope: a 10-minute window at 160
/// submissions a second, about 7 MB.
pub const CAPACITY: usize = 100_000;

#[derive(Debug, Default)]
pub struct Recent {
    scopes: HashMap<String, ScopeRecent>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct ScopeRecent {
    window_ms: Millis,
    /// The latest stored receipt of each hash.
    latest: HashMap<u128, (ReceiptId, Millis)>,
    /// Every noted hash in the order noted, to forget them once too old.
    order: VecDeque<(Millis, u128)>,
    /// Receipts forgotten while still within the window, not yet reported.
    forgotten_early: u64,
}

impl Recent {
    /// Remembers receipts of each `(scope, window)`.
    pub fn new<'a>(windows: impl IntoIterator<Item = (&'a str, Millis)>) -> Self {
        Self::with_capacity(windows, CAPACITY)
    }

    pub fn with_capacity<'a>(
        windows: impl IntoIterator<Item = (&'a str, Millis)>,
        capacity: usize,
    ) -> Self {
        let mut scopes: HashMap<String, ScopeRecent> = HashMap::new();
        for (scope, window_ms) in windows {
            if window_ms > 0 {
                let entry = scopes.entry(scope.to_string()).or_default();
                entry.window_ms = entry.window_ms.max(window_ms);
            }
        }
        Self {
            scopes,
            capacity: capacity.max(1),
        }
    }

    /// The latest receipt of `scope` with this hash, and when it was stored.
    pub fn get(&self, scope: &str, hash: u128) -> Option<(ReceiptId, Millis)> {
        self.scopes.get(scope)?.latest.get(&hash).copied()
    }

    pub fn note(&mut self, scope: &str, hash: u128, id: ReceiptId, at_ms: Millis) {
        let capacity = self.capacity;
        let Some(s) = self.scopes.get_mut(scope) else {
            return;
        };
        s.latest.insert(hash, (id, at_ms));
        s.order.push_back((at_ms, hash));
        while s.order.len() > capacity {
            if s.pop_oldest().is_some() {
                s.forgotten_early += 1;
            }
        }
    }

    /// Forgets what is older than each scope's window as of `now_ms`.
    pub fn forget_before(&mut self, now_ms: Millis) {
        for s in self.scopes.values_mut() {
            let oldest = now_ms.saturating_sub(s.window_ms);
            while s.order.front().is_some_and(|&(at, _)| at < oldest) {
                s.pop_oldest();
            }
        }
    }

    /// The scopes that forgot receipts within their window since the last
    /// call, with how many.
    pub fn take_forgotten(&mut self) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = self
            .scopes
            .iter_mut()
            .filter(|(_, s)| s.forgotten_early > 0)
            .map(|(scope, s)| (scope.clone(), std::mem::take(&mut s.forgotten_early)))
            .collect();
        out.sort();
        out
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.scopes.values().map(|s| s.latest.len()).sum()
    }
}

impl ScopeRecent {
    /// Drops the oldest note; the receipt it forgot, if that note was still
    /// its hash's latest.
    fn pop_oldest(&mut self) -> Option<ReceiptId> {
        let (at, hash) = self.order.pop_front()?;
        match self.latest.get(&hash) {
            Some(&(id, t)) if t == at => {
                self.latest.remove(&hash);
                Some(id)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_and_forgets_the_old() {
        let mut r = Recent::new([("s", 1000), ("t", 1000)]);
        r.note("s", 7, 1, 0);
        r.note("s", 7, 2, 500);
        r.note("s", 8, 3, 600);
        assert_eq!(r.get("s", 7), Some((2, 500)));
        assert_eq!(r.get("t", 7), None, "per scope");
        r.forget_before(1200);
        assert_eq!(
            r.get("s", 7),
            Some((2, 500)),
            "the older note of 7 goes, not the newer"
        );
        r.forget_before(1550);
        assert_eq!(r.get("s", 7), None);
        assert_eq!(r.get("s", 8), Some((3, 600)));
        assert_eq!(r.len(), 1);
        assert!(r.take_forgotten().is_empty(), "forgotten by time only");
    }

    #[test]
    fn each_scope_has_its_own_window() {
        let mut r = Recent::new([("short", 100), ("long", 1000), ("off", 0)]);
        r.note("short", 1, 1, 0);
        r.note("long", 1, 2, 0);
        r.note("off", 1, 3, 0);
        assert_eq!(
            r.get("off", 1),
            None,
            "a scope without a window keeps nothing"
        );
        r.forget_before(500);
        assert_eq!(r.get("short", 1), None);
        assert_eq!(r.get("long", 1), Some((2, 0)));
    }

    #[test]
    fn a_flood_is_bounded_and_what_it_pushed_out_is_counted() {
        let mut r = Recent::with_capacity([("s", 600_000), ("quiet", 600_000)], 1000);
        r.note("quiet", 1, 1, 0);
        for i in 0..5000u128 {
            r.note("s", 10 + i, 10 + i as i64, 1 + i as i64);
        }
        assert_eq!(r.len(), 1000 + 1);
        assert_eq!(r.get("s", 10), None, "the oldest went first");
        assert_eq!(r.get("s", 10 + 4999), Some((5009, 5000)));
        assert_eq!(
            r.get("quiet", 1),
            Some((1, 0)),
            "a flood on one form leaves another's alone"
        );
        assert_eq!(r.take_forgotten(), vec![("s".to_string(), 4000)]);
        assert!(r.take_forgotten().is_empty(), "reported once");
        // The same hash noted again and again takes one slot of the map,
        // and its stale notes are not counted as forgotten receipts.
        let mut r = Recent::with_capacity([("s", 600_000)], 10);
        for i in 0..100 {
            r.note("s", 7, i, i);
        }
        assert_eq!(r.len(), 1);
        assert_eq!(r.get("s", 7), Some((99, 99)));
        assert!(r.take_forgotten().is_empty());
    }
}
