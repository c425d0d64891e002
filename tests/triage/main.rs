//! The analysis: duplicate groups, findings, a planted ground truth, and the
//! refresh that analyses only what was appended.

mod bots;
mod findings;
mod ground_truth;
mod groups;
mod refresh;
