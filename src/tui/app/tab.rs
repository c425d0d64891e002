//! The tabs of the screen and the Duplicates tab's class filter: what every
//! part of the app names (the keymap, the rows, the filter index, the state).

use crate::triage::model::GapClass;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tab {
    Duplicates,
    Conflicts,
    Stuck,
    Bots,
    Damaged,
    /// Any receipt, found by its text, number or time.
    Receipts,
    /// One row per form (scope), with its likely pathways.
    Forms,
    Log,
}

impl Tab {
    pub const ALL: [Tab; 8] = [
        Tab::Duplicates,
        Tab::Conflicts,
        Tab::Stuck,
        Tab::Bots,
        Tab::Damaged,
        Tab::Receipts,
        Tab::Forms,
        Tab::Log,
    ];

    /// How many tabs there are (the length of per-tab state).
    pub const COUNT: usize = Tab::ALL.len();

    /// The lists of the reading, which turn newest or oldest first.
    pub const ORDERED: &'static [Tab] = &[
        Tab::Duplicates,
        Tab::Conflicts,
        Tab::Stuck,
        Tab::Bots,
        Tab::Damaged,
        Tab::Log,
    ];

    /// The lists whose items take decisions, which narrow to pending items.
    pub const DECIDING: &'static [Tab] = &[Tab::Duplicates, Tab::Conflicts, Tab::Stuck, Tab::Bots];

    pub fn index(self) -> usize {
        match self {
            Tab::Duplicates => 0,
            Tab::Conflicts => 1,
            Tab::Stuck => 2,
            Tab::Bots => 3,
            Tab::Damaged => 4,
            Tab::Receipts => 5,
            Tab::Forms => 6,
            Tab::Log => 7,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Tab::Duplicates => "Duplicates",
            Tab::Conflicts => "Conflicts",
            Tab::Stuck => "Stuck",
            Tab::Bots => "Bots",
            Tab::Damaged => "Damaged",
            Tab::Receipts => "Receipts",
            Tab::Forms => "Forms",
            Tab::Log => "Log",
        }
    }

    pub fn next(self) -> Tab {
        Tab::ALL[(self.index() + 1) % Tab::ALL.len()]
    }

    pub fn prev(self) -> Tab {
        Tab::ALL[(self.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]
    }

    /// True for the tabs whose items take decisions.
    pub fn decides(self) -> bool {
        matches!(
            self,
            Tab::Duplicates | Tab::Conflicts | Tab::Stuck | Tab::Bots
        )
    }
}

/// Which duplicate groups the Duplicates tab shows, by time-gap class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClassFilter {
    #[default]
    All,
    Only(GapClass),
}

impl ClassFilter {
    pub fn next(self) -> Self {
        match self {
            ClassFilter::All => ClassFilter::Only(GapClass::Simultaneous),
            ClassFilter::Only(GapClass::Simultaneous) => ClassFilter::Only(GapClass::Seconds),
            ClassFilter::Only(GapClass::Seconds) => ClassFilter::Only(GapClass::Minutes),
            ClassFilter::Only(GapClass::Minutes) => ClassFilter::All,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ClassFilter::All => "all",
            ClassFilter::Only(class) => class.as_str(),
        }
    }

    pub fn admits(self, class: GapClass) -> bool {
        match self {
            ClassFilter::All => true,
            ClassFilter::Only(only) => only == class,
        }
    }
}
