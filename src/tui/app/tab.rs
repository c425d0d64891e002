//! The tabs of the screen and the Duplicates tab's class filter: what every
//! part of the app names (the keymap, the rows, the filter index, the state).

use crate::i18n::Lang;
use crate::t;
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

    /// The tab's name in `lang`, as the tab bar and the list's title show it.
    pub fn title(self, lang: Lang) -> &'static str {
        match self {
            Tab::Duplicates => t!(lang, "tabs.duplicates"),
            Tab::Conflicts => t!(lang, "tabs.conflicts"),
            Tab::Stuck => t!(lang, "tabs.stuck"),
            Tab::Bots => t!(lang, "tabs.bots"),
            Tab::Damaged => t!(lang, "tabs.damaged"),
            Tab::Receipts => t!(lang, "tabs.receipts"),
            Tab::Forms => t!(lang, "tabs.forms"),
            Tab::Log => t!(lang, "tabs.log"),
        }
    }

    /// A shorter name, for a tab bar that the full names do not fit.
    pub fn short_title(self, lang: Lang) -> &'static str {
        match self {
            Tab::Duplicates => t!(lang, "tabs.short.duplicates"),
            Tab::Conflicts => t!(lang, "tabs.short.conflicts"),
            Tab::Stuck => t!(lang, "tabs.short.stuck"),
            Tab::Bots => t!(lang, "tabs.short.bots"),
            Tab::Damaged => t!(lang, "tabs.short.damaged"),
            Tab::Receipts => t!(lang, "tabs.short.receipts"),
            Tab::Forms => t!(lang, "tabs.short.forms"),
            Tab::Log => t!(lang, "tabs.short.log"),
        }
    }

    /// The shortest name, for the narrowest tab bar.
    pub fn tiny_title(self, lang: Lang) -> &'static str {
        match self {
            Tab::Duplicates => t!(lang, "tabs.tiny.duplicates"),
            Tab::Conflicts => t!(lang, "tabs.tiny.conflicts"),
            Tab::Stuck => t!(lang, "tabs.tiny.stuck"),
            Tab::Bots => t!(lang, "tabs.tiny.bots"),
            Tab::Damaged => t!(lang, "tabs.tiny.damaged"),
            Tab::Receipts => t!(lang, "tabs.tiny.receipts"),
            Tab::Forms => t!(lang, "tabs.tiny.forms"),
            Tab::Log => t!(lang, "tabs.tiny.log"),
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

    /// What the filter shows, in `lang`: `all`, `seconds`.
    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            ClassFilter::All => t!(lang, "words.class.all"),
            ClassFilter::Only(class) => class.label_in(lang),
        }
    }

    pub fn admits(self, class: GapClass) -> bool {
        match self {
            ClassFilter::All => true,
            ClassFilter::Only(only) => only == class,
        }
    }
}
