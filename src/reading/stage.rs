//! Where a reading is, for a progress display.

use crate::triage::engine::Stage as AnalysisStage;

/// A step of a reading, in the order a reading takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading every receipt (or those appended) into facts.
    Receipts,
    /// Counting the replays while the analysis works out what to read again.
    Replays,
    /// Reading again the receipts whose texts the analysis compares.
    Texts,
    /// A step of the analysis itself.
    Analysis(AnalysisStage),
    /// Reading the review log.
    ReviewLog,
    /// Reading the receipts the items show: the screen has the analysis
    /// already, and says so from its first frame.
    ItemsReceipts,
}

impl Stage {
    /// The stage in words, for the screen.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Receipts => "reading receipts",
            Stage::Replays => "analysing: reading replays",
            Stage::Texts => "analysing: reading texts to compare",
            Stage::Analysis(step) => step.label(),
            Stage::ReviewLog => "reading the review log",
            Stage::ItemsReceipts => "reading the items' receipts",
        }
    }
}

/// How far a reading has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub stage: Stage,
    pub done: u64,
    pub total: Option<u64>,
}

impl Progress {
    pub fn new(stage: Stage, done: u64, total: Option<u64>) -> Self {
        Self { stage, done, total }
    }
}
