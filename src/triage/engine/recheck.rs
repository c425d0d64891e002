//! Rows that may change in place between readings: receipts in flight or
//! failed (the intake settles or claims them again) and damaged rows. They
//! are read again before each refresh, and compared with what was read.

use super::Engine;
use crate::model::{ReceiptId, RowSource};
use crate::triage::facts::{FactStore, ReceiptFact};
use crate::triage::ingest::ingest_by;

impl Engine {
    /// The ids of the rows to read again before a refresh, ascending.
    pub fn volatile_ids(&self) -> Vec<ReceiptId> {
        let store = &self.facts.store;
        let mut ids: Vec<ReceiptId> = self
            .unsettled
            .indices()
            .iter()
            .map(|&i| store.receipts[i as usize].id)
            .chain(store.damaged.iter().map(|d| d.receipt_id))
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Compares the rows with these ids (`ids`, as read again into `rows`)
    /// with what was read before. When at most the states of good receipts
    /// differ, applies them and returns the ids that changed; when anything
    /// else differs or a row is gone, returns `None` (read everything again).
    pub fn recheck<S: RowSource + ?Sized>(
        &mut self,
        ids: &[ReceiptId],
        rows: &S,
    ) -> Option<Vec<ReceiptId>> {
        let store = &mut self.facts.store;
        let mut again = FactStore::new();
        again.random = store.random;
        again.keys = store.keys.clone();
        again.scopes = store.scopes.clone();
        ingest_by(&mut again, &self.facts.inspector, rows);
        again.finish();
        let mut changed = Vec::new();
        for &id in ids {
            match (store.index_of(id), again.index_of(id)) {
                (Some(i), Some(j)) => {
                    let (a, b) = (&store.receipts[i as usize], &again.receipts[j as usize]);
                    // Equal fingerprints and checks are equal fields; those
                    // still held are compared too.
                    let same = ReceiptFact {
                        state: a.state,
                        fields: 0,
                        ..*a
                    } == ReceiptFact {
                        state: a.state,
                        fields: 0,
                        ..*b
                    } && (!a.holds_fields() || store.fields_of(a) == again.fields_of(b));
                    if !same {
                        return None;
                    }
                    if a.state != b.state {
                        changed.push(id);
                        store.receipts[i as usize].state = b.state;
                        self.unsettled.set_state(i, b.state);
                    }
                }
                (None, None) => {
                    let at = |s: &FactStore| s.damaged.binary_search_by_key(&id, |d| d.receipt_id);
                    let before = at(store).ok().map(|k| &store.damaged[k]);
                    let now = at(&again).ok().map(|k| &again.damaged[k]);
                    if before.is_none() || before != now {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        Some(changed)
    }
}
