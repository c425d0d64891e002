//! Erasing visitor data: a visitor's receipts on request (`--email`,
//! `--phone`, `--receipt`), or what has been kept long enough
//! (`--older-than`, a form's `retention`). See docs/erasure.md.
//!
//! - [`period`]: how long receipts are kept (`2y`), for `--older-than`
//!   and a form's `retention`;
//! - [`select`]: which receipts, matched on whole values;
//! - [`plan`](Plan::of): each receipt with its duplicate group, read from
//!   the analysis, so that the group outlives its fields;
//! - [`Plan::erase`]: the erasure itself, through `review::erase` (one
//!   transaction, one log row, then the scrub).

pub mod period;
pub mod select;

use crate::model::{Millis, ReceiptId, Settings};
use crate::reading;
use crate::review::erase::{EraseError, EraseRequest, Erased, ErasedReceipt};
use crate::storage::Storage;
pub use period::period_ms;
pub use select::{Chosen, Selection, Who, select};

/// The receipts an erasure takes, each with the receipts of its group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub selection: Selection,
    /// For each of `selection.chosen`, in its order: its duplicate group's
    /// receipts (itself included), or none.
    pub with: Vec<Vec<ReceiptId>>,
}

impl Plan {
    /// Selects the receipts `who` names and reads the analysis for their
    /// groups (as of `settings`).
    pub fn of(db: &dyn Storage, who: &Who, settings: &Settings) -> anyhow::Result<Plan> {
        let selection = select(db, who)?;
        if selection.chosen.is_empty() {
            return Ok(Plan {
                selection,
                with: Vec::new(),
            });
        }
        let snap = reading::read(db, settings.clone(), &mut |_| {})?;
        let with = selection
            .chosen
            .iter()
            .map(|c| {
                snap.triage
                    .duplicates
                    .iter()
                    .find(|g| g.members.iter().any(|m| m.id == c.id))
                    .map(|g| g.receipt_ids())
                    .unwrap_or_default()
            })
            .collect();
        // As for the report: the process may end soon after, and a large
        // analysis is given back faster whole.
        drop(snap);
        Ok(Plan { selection, with })
    }

    pub fn is_empty(&self) -> bool {
        self.selection.chosen.is_empty()
    }

    /// The visitor values the erasure takes away (names, emails, phones as
    /// typed): what its note must not keep.
    pub fn erased_values(&self) -> Vec<&str> {
        let mut values: Vec<&str> = self
            .selection
            .chosen
            .iter()
            .flat_map(|c| [&c.name, &c.email, &c.phone])
            .filter_map(|v| v.as_deref())
            .map(str::trim)
            .filter(|v| v.chars().count() >= 3)
            .collect();
        values.sort_unstable();
        values.dedup();
        values
    }

    /// Erases the planned receipts as `operator`, with `note`, at `now_ms`.
    pub fn erase(
        &self,
        db: &mut dyn Storage,
        operator: &str,
        note: Option<String>,
        now_ms: Millis,
    ) -> Result<Erased, EraseError> {
        let receipts = self
            .selection
            .chosen
            .iter()
            .zip(&self.with)
            .map(|(c, with)| ErasedReceipt {
                id: c.id,
                with: with.clone(),
            })
            .collect();
        crate::review::erase::erase(
            db,
            &EraseRequest {
                receipts,
                operator: operator.to_string(),
                note,
                now_ms,
            },
        )
    }
}

/// The first of `values` that `note` holds (case and width folded), if any.
pub fn note_names<'v>(note: &str, values: &[&'v str]) -> Option<&'v str> {
    let note = crate::triage::text::normalize_text(note);
    values
        .iter()
        .copied()
        .find(|v| note.contains(&crate::triage::text::normalize_text(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_may_not_keep_what_is_erased() {
        let values = ["Aiko Tanaka", "aiko@example.jp", "070-4350-0720"];
        assert_eq!(
            note_names("request from AIKO@example.jp", &values),
            Some("aiko@example.jp")
        );
        assert_eq!(note_names("request 2026-12-07-03", &values), None);
        assert_eq!(
            note_names("Ａｉｋｏ　Ｔａｎａｋａ asked", &values),
            Some("Aiko Tanaka")
        );
    }
}
