//! The steps a first analysis tells as it goes: on a large database it takes
//! seconds, and the screen says where it is. A refresh takes milliseconds and
//! tells none.

/// One step of a first analysis, in the order they come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    GroupingCopies,
    LookingForCampaigns,
    ConflictsAndStuck,
}

impl Stage {
    /// Every step, in order.
    pub const ALL: [Stage; 3] = [
        Stage::GroupingCopies,
        Stage::LookingForCampaigns,
        Stage::ConflictsAndStuck,
    ];

    /// How many steps there are.
    pub const COUNT: u64 = Self::ALL.len() as u64;

    /// Which step this is, from 0: how many came before it.
    pub fn step(self) -> u64 {
        match self {
            Stage::GroupingCopies => 0,
            Stage::LookingForCampaigns => 1,
            Stage::ConflictsAndStuck => 2,
        }
    }

    /// What the screen shows while the step runs.
    pub fn label(self) -> &'static str {
        match self {
            Stage::GroupingCopies => "analysing: grouping copies",
            Stage::LookingForCampaigns => "analysing: looking for campaigns",
            Stage::ConflictsAndStuck => "analysing: key conflicts and stuck receipts",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Stage;

    #[test]
    fn the_steps_count_up_in_order_each_with_its_own_label() {
        let steps: Vec<u64> = Stage::ALL.iter().map(|s| s.step()).collect();
        assert_eq!(steps, (0..Stage::COUNT).collect::<Vec<_>>());
        let mut labels: Vec<&str> = Stage::ALL.iter().map(|s| s.label()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), Stage::ALL.len());
        assert!(labels.iter().all(|l| l.starts_with("analysing: ")));
    }
}
