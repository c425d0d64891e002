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
mod scan;
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

    let mut receipts: Vec<Receipt> = Vec::with_capacity(checked.len());
    let mut facts: Vec<facts::Facts> = Vec::with_capacity(checked.len());
    let mut damaged: Vec<Damaged> = Vec::new();
    for c in checked {
        match c {
            Ok((r, f)) => {
                receipts.push(r);
                facts.push(f);
            }
            Err(d) => damaged.push(d),
        }
    }
    if !receipts.is_sorted_by_key(|r| r.id) {
        // Rows usually arrive by id; when not, put both lists in id order.
        let mut pairs: Vec<(Receipt, facts::Facts)> = receipts.into_iter().zip(facts).collect();
        pairs.par_sort_by_key(|(r, _)| r.id);
        (receipts, facts) = pairs.into_iter().unzip();
    }
    damaged.sort_by_key(|d| d.receipt_id);

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
