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
//!   transaction, one log row, then the scrub); [`Plan::parts`] and
//!   [`Plan::record`] for a large one done in parts and scrubbed once
//!   (`serve`'s retention, `crate::server::retention`).

pub mod period;
pub mod select;

use std::collections::HashMap;

use crate::model::{LogEntry, Millis, ReceiptId, Settings};
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
        let mut plans = Plan::of_each(db, std::slice::from_ref(who), settings)?;
        Ok(plans.pop().unwrap_or_default())
    }

    /// [`Plan::of`] for each of `whos`, in order, from one reading of the
    /// analysis (none when nothing is selected).
    pub fn of_each(
        db: &dyn Storage,
        whos: &[Who],
        settings: &Settings,
    ) -> anyhow::Result<Vec<Plan>> {
        let selections = whos
            .iter()
            .map(|who| select(db, who))
            .collect::<anyhow::Result<Vec<Selection>>>()?;
        if selections.iter().all(|s| s.chosen.is_empty()) {
            return Ok(selections
                .into_iter()
                .map(|selection| Plan {
                    selection,
                    with: Vec::new(),
                })
                .collect());
        }
        let snap = reading::read(db, settings.clone(), &mut |_| {})?;
        // By receipt, so that a large erasure does not search every group
        // for each of its receipts.
        let mut groups: HashMap<ReceiptId, usize> = HashMap::new();
        for (at, group) in snap.triage.duplicates.iter().enumerate() {
            for member in &group.members {
                groups.entry(member.id).or_insert(at);
            }
        }
        let plans = selections
            .into_iter()
            .map(|selection| {
                let with = selection
                    .chosen
                    .iter()
                    .map(|c| {
                        groups
                            .get(&c.id)
                            .map(|&at| snap.triage.duplicates[at].receipt_ids())
                            .unwrap_or_default()
                    })
                    .collect();
                Plan { selection, with }
            })
            .collect();
        // As for the report: the process may end soon after, and a large
        // analysis is given back faster whole.
        drop(snap);
        Ok(plans)
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

    /// How many receipts it erases.
    pub fn len(&self) -> usize {
        self.selection.chosen.len()
    }

    /// The plan cut into plans of at most `size` receipts each, in order,
    /// so that no one transaction holds the database for long.
    pub fn parts(&self, size: usize) -> impl Iterator<Item = Plan> + '_ {
        let size = size.max(1);
        self.selection
            .chosen
            .chunks(size)
            .zip(self.with.chunks(size))
            .map(|(chosen, with)| Plan {
                selection: Selection {
                    chosen: chosen.to_vec(),
                    ..Selection::default()
                },
                with: with.to_vec(),
            })
    }

    /// Erases the planned receipts as `operator`, with `note`, at `now_ms`.
    pub fn erase(
        &self,
        db: &mut dyn Storage,
        operator: &str,
        note: Option<String>,
        now_ms: Millis,
    ) -> Result<Erased, EraseError> {
        crate::review::erase::erase(db, &self.request(operator, note, now_ms))
    }

    /// [`Plan::erase`] but for the scrub, which the caller does once after
    /// several (see [`crate::review::erase::scrub`]).
    pub fn record(
        &self,
        db: &mut dyn Storage,
        operator: &str,
        note: Option<String>,
        now_ms: Millis,
    ) -> Result<LogEntry, EraseError> {
        crate::review::erase::record(db, &self.request(operator, note, now_ms))
    }

    fn request(&self, operator: &str, note: Option<String>, now_ms: Millis) -> EraseRequest {
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
        EraseRequest {
            receipts,
            operator: operator.to_string(),
            note,
            now_ms,
        }
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
    fn a_plan_in_parts_keeps_each_receipt_with_its_group() {
        let chosen = |id| Chosen {
            id,
            scope: "s".into(),
            state: "completed".into(),
            created_ms: Some(0),
            name: None,
            email: None,
            phone: None,
        };
        let plan = Plan {
            selection: Selection {
                chosen: (1..=5).map(chosen).collect(),
                already_erased: vec![9],
                missing: Vec::new(),
            },
            with: vec![vec![1, 2], vec![1, 2], vec![], vec![4, 5], vec![4, 5]],
        };
        let parts: Vec<Plan> = plan.parts(2).collect();
        let ids: Vec<Vec<ReceiptId>> = parts
            .iter()
            .map(|p| p.selection.chosen.iter().map(|c| c.id).collect())
            .collect();
        assert_eq!(ids, [vec![1, 2], vec![3, 4], vec![5]]);
        assert_eq!(parts[1].with, [vec![], vec![4, 5]]);
        assert_eq!(parts.iter().map(Plan::len).sum::<usize>(), plan.len());
        assert!(parts.iter().all(|p| p.selection.already_erased.is_empty()));
        assert_eq!(Plan::default().parts(500).count(), 0);
    }

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
