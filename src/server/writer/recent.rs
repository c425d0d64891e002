//! The receipts stored within the longest window, by the hash of their
//! visitor fields: what an exact copy is absorbed into. Kept in memory by the
//! one writer; filled from the database at start.

use std::collections::{HashMap, VecDeque};

use crate::model::{Millis, ReceiptId};

#[derive(Debug, Default)]
pub struct Recent {
    /// The latest stored receipt of each hash.
    latest: HashMap<u128, (ReceiptId, Millis)>,
    /// Every noted hash in the order noted, to forget them once too old.
    order: VecDeque<(Millis, u128)>,
    /// Nothing older than this (the longest window) is kept.
    horizon_ms: Millis,
}

impl Recent {
    pub fn new(horizon_ms: Millis) -> Self {
        Self {
            horizon_ms,
            ..Self::default()
        }
    }

    /// The latest receipt with this hash, and when it was stored.
    pub fn get(&self, hash: u128) -> Option<(ReceiptId, Millis)> {
        self.latest.get(&hash).copied()
    }

    pub fn note(&mut self, hash: u128, id: ReceiptId, at_ms: Millis) {
        self.latest.insert(hash, (id, at_ms));
        self.order.push_back((at_ms, hash));
    }

    /// Forgets what is older than the horizon as of `now_ms`.
    pub fn forget_before(&mut self, now_ms: Millis) {
        let oldest = now_ms.saturating_sub(self.horizon_ms);
        while let Some(&(at, hash)) = self.order.front() {
            if at >= oldest {
                break;
            }
            self.order.pop_front();
            if self.latest.get(&hash).is_some_and(|&(_, t)| t == at) {
                self.latest.remove(&hash);
            }
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.latest.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_and_forgets_the_old() {
        let mut r = Recent::new(1000);
        r.note(7, 1, 0);
        r.note(7, 2, 500);
        r.note(8, 3, 600);
        assert_eq!(r.get(7), Some((2, 500)));
        r.forget_before(1200);
        assert_eq!(
            r.get(7),
            Some((2, 500)),
            "the older note of 7 goes, not the newer"
        );
        r.forget_before(1550);
        assert_eq!(r.get(7), None);
        assert_eq!(r.get(8), Some((3, 600)));
        assert_eq!(r.len(), 1);
    }
}
