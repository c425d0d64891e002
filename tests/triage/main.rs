//! The analysis: duplicate groups, findings, a planted ground truth, and the
//! refresh that analyses only what was appended, and `find`'s analysis of
//! the receipts around its hits.

#[path = "../common/mod.rs"]
mod common;

mod bots;
mod erased;
mod find_around;
mod findings;
mod ground_truth;
mod groups;
mod refresh;
mod sentence_edits;
mod support;
