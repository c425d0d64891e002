//! The triage engine: pure functions over the rows that storage read.
//!
//! - [`inspect`] checks one row (payload, time, digest, state) and extracts the
//!   visitor fingerprint ([`visitor`]);
//! - [`analyze`] runs every check: duplicate groups (exact and near), key
//!   conflicts, stuck receipts, suspected bots, damaged rows.
//!
//! The rules where the design leaves room (free text, "a few words", bots) are
//! constants in [`text`] and [`bots`], documented where they are defined.

pub mod model;

mod blocking;
pub mod bots;
mod conflicts;
mod digest;
mod facts;
mod groups;
mod hash;
mod inspect;
mod near;
mod stuck;
pub mod text;
pub mod visitor;

use rayon::prelude::*;

pub use inspect::inspect;
use model::{Damaged, RawConflict, RawReceipt, Receipt, Settings, Triage};

/// What [`analyze`] found, with the receipts that passed inspection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// The good receipts, by id.
    pub receipts: Vec<Receipt>,
    pub triage: Triage,
}

/// Runs the whole triage over the rows of `receipts` and `key_conflicts`.
pub fn analyze(
    raws: &[RawReceipt],
    conflict_rows: &[RawConflict],
    settings: &Settings,
) -> Analysis {
    let ignore = visitor::IgnoreList::new(&settings.ignore_fields);
    let checked: Vec<Result<(Receipt, facts::Facts), Damaged>> = raws
        .par_iter()
        .with_min_len(256)
        .map(|raw| {
            inspect::inspect_with(raw, &ignore).map(|r| {
                let f = facts::Facts::of(&r);
                (r, f)
            })
        })
        .collect();

    let mut good: Vec<(Receipt, facts::Facts)> = Vec::with_capacity(checked.len());
    let mut damaged: Vec<Damaged> = Vec::new();
    for c in checked {
        match c {
            Ok(pair) => good.push(pair),
            Err(d) => damaged.push(d),
        }
    }
    if !good.is_sorted_by_key(|(r, _)| r.id) {
        good.par_sort_by_key(|(r, _)| r.id);
    }
    damaged.sort_by_key(|d| d.receipt_id);
    let (receipts, facts): (Vec<Receipt>, Vec<facts::Facts>) = good.into_iter().unzip();

    let (duplicates, (conflicts, (stuck, suspected_bots))) = rayon::join(
        || groups::duplicate_groups(&receipts, &facts, settings),
        || {
            rayon::join(
                || conflicts::conflicts(raws, &receipts, conflict_rows),
                || {
                    rayon::join(
                        || stuck::stuck(&receipts, settings),
                        || bots::suspected_bots(&receipts, &facts, settings),
                    )
                },
            )
        },
    );

    Analysis {
        receipts,
        triage: Triage {
            duplicates,
            conflicts,
            stuck,
            suspected_bots,
            damaged,
        },
    }
}
