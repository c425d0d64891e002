//! The steps a first analysis tells as it goes: on a large database it takes
//! seconds, and the screen says where it is. A refresh takes milliseconds and
//! tells none.

/// One step of a first analysis, in the order they come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnalysisStage {
    GroupingCopies,
    LookingForCampaigns,
    ConflictsAndStuck,
}

impl AnalysisStage {
    /// Every step, in order.
    pub const ALL: [AnalysisStage; 3] = [
        AnalysisStage::GroupingCopies,
        AnalysisStage::LookingForCampaigns,
        AnalysisStage::ConflictsAndStuck,
    ];

    /// How many steps there are.
    pub const COUNT: u64 = Self::ALL.len() as u64;

    /// Which step this is, from 0: how many came before it.
    pub fn step(self) -> u64 {
        match self {
            AnalysisStage::GroupingCopies => 0,
            AnalysisStage::LookingForCampaigns => 1,
            AnalysisStage::ConflictsAndStuck => 2,
        }
    }

    /// What the screen shows while the step runs.
    pub fn label(self) -> &'static str {
        match self {
            AnalysisStage::GroupingCopies => "analysing: grouping copies",
            AnalysisStage::LookingForCampaigns => "analysing: looking for campaigns",
            AnalysisStage::ConflictsAndStuck => "analysing: key conflicts and stuck receipts",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AnalysisStage;

    #[test]
    fn the_steps_count_up_in_order_each_with_its_own_label() {
        let steps: Vec<u64> = AnalysisStage::ALL.iter().map(|s| s.step()).collect();
        assert_eq!(steps, (0..AnalysisStage::COUNT).collect::<Vec<_>>());
        let mut labels: Vec<&str> = AnalysisStage::ALL.iter().map(|s| s.label()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), AnalysisStage::ALL.len());
        assert!(labels.iter().all(|l| l.starts_with("analysing: ")));
    }
}
