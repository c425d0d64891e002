//! The receipts that are not completed (in flight or failed), kept between
//! readings: the intake settles or claims them again in place, so they are
//! read again at every reading, and the stuck ones are found among them
//! without walking every receipt.

use crate::model::{Millis, ReceiptState, Settings};
use crate::triage::facts::FactStore;
use crate::triage::stuck;

#[derive(Debug, Default)]
pub(super) struct Unsettled {
    /// Receipt indices, ascending.
    indices: Vec<u32>,
    /// Receipts before this index are sorted into `indices`.
    upto: usize,
}

impl Unsettled {
    /// The unsettled receipts of a store.
    pub(super) fn of(store: &FactStore) -> Self {
        let mut all = Self::default();
        all.take_in(store);
        all
    }

    /// Takes in the receipts added to `store` since.
    pub(super) fn take_in(&mut self, store: &FactStore) {
        let n = store.receipts.len();
        self.indices.extend(
            (self.upto as u32..n as u32)
                .filter(|&i| store.receipts[i as usize].state != ReceiptState::Completed),
        );
        self.upto = n;
    }

    pub(super) fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Receipt `i`, taken in before, is now in `state`.
    pub(super) fn set_state(&mut self, i: u32, state: ReceiptState) {
        match (self.indices.binary_search(&i), state) {
            (Ok(at), ReceiptState::Completed) => {
                self.indices.remove(at);
            }
            (Err(at), ReceiptState::InFlight | ReceiptState::Failed)
                if (i as usize) < self.upto =>
            {
                self.indices.insert(at, i);
            }
            _ => {}
        }
    }

    /// The stuck receipts among them (as `stuck::stuck_indices` finds them).
    pub(super) fn stuck(&self, store: &FactStore, settings: &Settings) -> Vec<u32> {
        self.indices
            .iter()
            .copied()
            .filter(|&i| {
                let r = &store.receipts[i as usize];
                r.state == ReceiptState::InFlight
                    && settings.now_ms.saturating_sub(r.created_ms) > settings.stuck_after_ms
            })
            .collect()
    }

    /// When the next of them that is in flight becomes stuck.
    pub(super) fn next_stuck_ms(&self, store: &FactStore, settings: &Settings) -> Option<Millis> {
        stuck::next_stuck_ms(store, self.indices.iter().copied(), settings)
    }
}
