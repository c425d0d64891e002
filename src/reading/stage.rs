//! Where a reading is, for a progress display.

use crate::triage::engine::AnalysisStage;

/// A step of a reading, in the order a reading takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadingStage {
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

impl ReadingStage {
    /// The stage in words, for the screen.
    pub fn label(self) -> &'static str {
        match self {
            ReadingStage::Receipts => "reading receipts",
            ReadingStage::Replays => "analysing: reading replays",
            ReadingStage::Texts => "analysing: reading texts to compare",
            ReadingStage::Analysis(step) => step.label(),
            ReadingStage::ReviewLog => "reading the review log",
            ReadingStage::ItemsReceipts => "reading the items' receipts",
        }
    }
}

/// How far a reading has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub stage: ReadingStage,
    pub done: u64,
    pub total: Option<u64>,
}

impl Progress {
    pub fn new(stage: ReadingStage, done: u64, total: Option<u64>) -> Self {
        Self { stage, done, total }
    }
}
