//! The one keymap: dispatch, the footer hints and the `?` help are all read
//! from [`KEYMAP`], so what the screen says a key does is what it does.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::decision::Decision;
use super::tab::Tab;

/// A key as the table names it. Shift is not compared (an upper-case letter
/// arrives as itself, often with SHIFT set); Ctrl is; Alt never matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
}

const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn code(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

impl Key {
    pub fn matches(&self, event: &KeyEvent) -> bool {
        if event.modifiers.contains(KeyModifiers::ALT) {
            return false;
        }
        if event.modifiers.contains(KeyModifiers::CONTROL) != self.ctrl {
            return false;
        }
        match (self.code, event.code) {
            // Some terminals send Shift+Tab as Tab with SHIFT.
            (KeyCode::BackTab, KeyCode::Tab) => event.modifiers.contains(KeyModifiers::SHIFT),
            (KeyCode::Tab, KeyCode::Tab) => !event.modifiers.contains(KeyModifiers::SHIFT),
            (a, b) => a == b,
        }
    }

    /// How the footer and the help write the key.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Backspace => "Bksp".into(),
            other => format!("{other:?}"),
        };
        if self.ctrl {
            format!("Ctrl-{base}")
        } else {
            base
        }
    }
}

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, overlays and text input included.
    Always,
    /// Whenever no overlay or text input is open.
    Global,
    /// On these tabs, no overlay open (list or detail focus).
    Tabs(&'static [Tab]),
    /// On these tabs with the detail pane focused.
    TabsDetail(&'static [Tab]),
    /// The list has the focus.
    List,
    /// The detail pane has the focus.
    Detail,
    /// The help overlay.
    Help,
    /// A yes/no confirmation.
    Confirm,
    /// The export format choice.
    Export,
    /// Typing a filter or a note: keys not bound here are text.
    Input,
    /// The terminal is too small to show anything a key could act on.
    TooSmall,
}

impl Scope {
    fn help_title(&self) -> &'static str {
        match self {
            Scope::Always => "Everywhere",
            Scope::Global => "Anywhere on the main screen",
            Scope::Tabs([Tab::Duplicates]) => "Duplicates tab",
            Scope::Tabs([Tab::Conflicts]) => "Conflicts tab",
            Scope::Tabs([Tab::Stuck]) => "Stuck tab",
            Scope::Tabs([Tab::Bots]) => "Bots tab",
            Scope::Tabs([Tab::Receipts]) => "Receipts tab",
            Scope::Tabs([Tab::Forms]) => "Forms tab",
            Scope::Tabs(tabs) if *tabs == ORDERED => "The lists (every tab but Receipts and Forms)",
            Scope::Tabs(tabs) if *tabs == DECIDING => {
                "The lists of items to decide (Duplicates, Conflicts, Stuck, Bots)"
            }
            Scope::TabsDetail([Tab::Forms]) => "Forms tab, in a form's pathways (after Enter)",
            Scope::TabsDetail(_) => "Some tabs, in the detail pane",
            Scope::Tabs(_) => "Some tabs",
            Scope::List => "In the list",
            Scope::Detail => "In the detail pane (after Enter)",
            Scope::Help => "This help",
            Scope::Confirm => "Confirmation dialogs",
            Scope::Export => "Export dialog",
            Scope::Input => "Typing a filter or a note",
            Scope::TooSmall => "When the terminal is too small",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyCommand {
    Quit,
    ForceQuit,
    Help,
    Reload,
    Export,
    Undo,
    Note,
    RawToggle,
    Filter,
    NextTab,
    PrevTab,
    GoTab(Tab),
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    EnterDetail,
    Back,
    CycleClass,
    /// Newest first or oldest first.
    ToggleOrder,
    /// Every item, or the pending ones only.
    TogglePending,
    /// The Forms tab's period: 24 h, 7 d, 30 d, all.
    CyclePeriod,
    /// Open the selected pathway's example item on its tab.
    OpenExample,
    Decide(Decision),
    BulkDuplicate,
    /// Type a search of every receipt (the Receipts tab).
    FindQuery,
    /// Go to the selected receipt's item.
    JumpToItem,
    /// Times in UTC, or in the operator's zone again.
    ToggleUtc,
    /// The copy before / after the one kept, as the one to keep.
    PrevCopy,
    NextCopy,
    // Overlays.
    Close,
    Yes,
    No,
    ToggleChoice,
    /// The choice before the focused one (the export dialog has three).
    PreviousChoice,
    Accept,
    ChooseCsv,
    /// CSV with a UTF-8 BOM, which Excel reads as UTF-8.
    ChooseExcelCsv,
    ChooseJsonl,
    // Text input.
    InputSubmit,
    InputCancel,
    InputBackspace,
    InputClear,
}

impl KeyCommand {
    /// The row a movement lands on in a list of `len` rows (`len > 0`) from
    /// `current`, `page` rows a page; other commands stay.
    pub fn moved(self, current: usize, len: usize, page: usize) -> usize {
        let next = match self {
            KeyCommand::Down => current.saturating_add(1),
            KeyCommand::Up => current.saturating_sub(1),
            KeyCommand::Top => 0,
            KeyCommand::Bottom => len - 1,
            KeyCommand::PageDown => current.saturating_add(page),
            KeyCommand::PageUp => current.saturating_sub(page),
            _ => current,
        };
        next.min(len - 1)
    }
}

/// One row of the keymap.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    pub keys: &'static [Key],
    pub scope: Scope,
    pub command: KeyCommand,
    /// A word or two for the footer; empty for bindings the footer leaves to `?`.
    pub hint: &'static str,
    /// One line for the `?` help.
    pub help: &'static str,
}

const DUP: &[Tab] = &[Tab::Duplicates];
const CONFLICTS: &[Tab] = &[Tab::Conflicts];
const STUCK: &[Tab] = &[Tab::Stuck];
const BOTS: &[Tab] = &[Tab::Bots];
const RECEIPTS: &[Tab] = &[Tab::Receipts];
const FORMS: &[Tab] = &[Tab::Forms];
const ORDERED: &[Tab] = Tab::ORDERED;
const DECIDING: &[Tab] = Tab::DECIDING;

const fn b(
    keys: &'static [Key],
    scope: Scope,
    command: KeyCommand,
    hint: &'static str,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        scope,
        command,
        hint,
        help,
    }
}

/// The keymap, in the order the footer shows hints and the help lists keys.
/// The first binding that applies wins.
#[rustfmt::skip]
pub const KEYMAP: &[Binding] = &[
    b(&[ctrl('c')], Scope::Always, KeyCommand::ForceQuit, "", "quit at once"),
    // Nothing else acts on what the screen does not show.
    b(&[k('q')], Scope::TooSmall, KeyCommand::Quit, "quit", "quit (no other key acts until the terminal is larger)"),
    // Text input: everything not bound here is typed.
    b(&[code(KeyCode::Enter)], Scope::Input, KeyCommand::InputSubmit, "keep", "keep what you typed"),
    b(&[code(KeyCode::Esc)], Scope::Input, KeyCommand::InputCancel, "cancel", "cancel (a filter is cleared, a note left as it was)"),
    b(&[code(KeyCode::Backspace)], Scope::Input, KeyCommand::InputBackspace, "", "delete the last character"),
    b(&[ctrl('u')], Scope::Input, KeyCommand::InputClear, "", "clear the line"),
    // Confirmations: the safe answer has the focus.
    b(&[k('y')], Scope::Confirm, KeyCommand::Yes, "yes", "yes, do it"),
    b(&[k('n')], Scope::Confirm, KeyCommand::No, "no", "no, leave it"),
    b(&[code(KeyCode::Tab), code(KeyCode::Left), code(KeyCode::Right), k('h'), k('l')], Scope::Confirm, KeyCommand::ToggleChoice, "switch", "move between the answers"),
    b(&[code(KeyCode::Enter)], Scope::Confirm, KeyCommand::Accept, "answer", "give the focused answer (No unless you moved)"),
    b(&[code(KeyCode::Esc), k('q')], Scope::Confirm, KeyCommand::Close, "cancel", "cancel"),
    // Export.
    b(&[k('c')], Scope::Export, KeyCommand::ChooseCsv, "CSV", "export as CSV (safe to open in a spreadsheet)"),
    b(&[k('b')], Scope::Export, KeyCommand::ChooseExcelCsv, "CSV for Excel", "export as CSV for Excel (with a BOM, so Excel on Japanese Windows reads it as UTF-8)"),
    b(&[k('j')], Scope::Export, KeyCommand::ChooseJsonl, "JSONL", "export as JSON lines"),
    b(&[code(KeyCode::Tab), code(KeyCode::Right), k('l')], Scope::Export, KeyCommand::ToggleChoice, "switch", "move to the next format"),
    b(&[code(KeyCode::BackTab), code(KeyCode::Left), k('h')], Scope::Export, KeyCommand::PreviousChoice, "", "move to the previous format"),
    b(&[code(KeyCode::Enter)], Scope::Export, KeyCommand::Accept, "export", "export in the focused format"),
    b(&[code(KeyCode::Esc), k('q')], Scope::Export, KeyCommand::Close, "cancel", "cancel"),
    // Help.
    b(&[k('j'), code(KeyCode::Down)], Scope::Help, KeyCommand::Down, "scroll", "scroll down"),
    b(&[k('k'), code(KeyCode::Up)], Scope::Help, KeyCommand::Up, "", "scroll up"),
    b(&[code(KeyCode::PageDown), k(' ')], Scope::Help, KeyCommand::PageDown, "", "page down"),
    b(&[code(KeyCode::PageUp)], Scope::Help, KeyCommand::PageUp, "", "page up"),
    b(&[code(KeyCode::Esc), k('q'), k('?')], Scope::Help, KeyCommand::Close, "close", "close the help"),
    // Decisions on the selection.
    b(&[k('d')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Duplicate), "duplicate", "duplicate: answer only the copy marked ✓"),
    b(&[k('c')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Correction), "correction", "correction: keep the latest copy (or the one chosen)"),
    b(&[k('x')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Distinct), "distinct", "distinct: genuinely separate messages, answer each"),
    b(&[k('s')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Spam), "spam", "spam"),
    b(&[k('D')], Scope::Tabs(DUP), KeyCommand::BulkDuplicate, "all exact", "resolve every pending exact group shown as duplicate (asks first)"),
    b(&[k('t')], Scope::Tabs(DUP), KeyCommand::CycleClass, "class", "show all / simultaneous / seconds / minutes groups"),
    b(&[k('[')], Scope::Tabs(DUP), KeyCommand::PrevCopy, "", "mark the copy before as the one to keep (✓)"),
    b(&[k(']')], Scope::Tabs(DUP), KeyCommand::NextCopy, "", "mark the copy after as the one to keep (✓)"),
    b(&[k('o')], Scope::Tabs(CONFLICTS), KeyCommand::Decide(Decision::OriginalStands), "original stands", "original stands: the kept receipt is right"),
    b(&[k('f')], Scope::Tabs(CONFLICTS), KeyCommand::Decide(Decision::FollowUp), "follow-up", "follow-up: the change needs a reply"),
    b(&[k('C')], Scope::Tabs(STUCK), KeyCommand::Decide(Decision::Completed), "completed", "completed: you checked it was done; the receipt becomes completed if still in flight (asks first)"),
    b(&[k('F')], Scope::Tabs(STUCK), KeyCommand::Decide(Decision::Failed), "failed", "failed: you checked it was not done; the receipt becomes failed if still in flight, which frees its key for a retry (asks first)"),
    b(&[k('p')], Scope::Tabs(STUCK), KeyCommand::Decide(Decision::StillPending), "still pending", "still pending: you looked, the outcome is still unknown; it stays pending, marked looked at"),
    b(&[k('s')], Scope::Tabs(BOTS), KeyCommand::Decide(Decision::Spam), "spam", "spam: the whole group is junk, answer none (asks first, with the count)"),
    b(&[k('N')], Scope::Tabs(BOTS), KeyCommand::Decide(Decision::NotSpam), "not spam", "not spam: people wrote these after all, answer them"),
    b(&[k('T')], Scope::Tabs(ORDERED), KeyCommand::ToggleOrder, "order", "newest first or oldest first (the list's title says which; newest first at start)"),
    b(&[k('P')], Scope::Tabs(DECIDING), KeyCommand::TogglePending, "pending only", "show only the pending items, or every item again (the list's title says pending only)"),
    b(&[k('/')], Scope::Tabs(RECEIPTS), KeyCommand::FindQuery, "search", "search every receipt: email, name, phone, key, scope, #1907, 10:00, yesterday 10:00, 10:00..11:00 (or just start typing)"),
    b(&[k('J')], Scope::Tabs(RECEIPTS), KeyCommand::JumpToItem, "go to item", "go to the selected receipt's duplicate group, conflict or stuck entry"),
    b(&[k('p')], Scope::Tabs(FORMS), KeyCommand::CyclePeriod, "period", "show the last 24 hours / 7 days / 30 days / all receipts"),
    b(&[code(KeyCode::Enter)], Scope::TabsDetail(FORMS), KeyCommand::OpenExample, "open example", "open the pathway's example item on its tab"),
    // Moving around.
    b(&[k('j'), code(KeyCode::Down)], Scope::List, KeyCommand::Down, "", "next row"),
    b(&[k('k'), code(KeyCode::Up)], Scope::List, KeyCommand::Up, "", "previous row"),
    b(&[k('g'), code(KeyCode::Home)], Scope::List, KeyCommand::Top, "", "first row"),
    b(&[k('G'), code(KeyCode::End)], Scope::List, KeyCommand::Bottom, "", "last row"),
    b(&[code(KeyCode::PageDown)], Scope::List, KeyCommand::PageDown, "", "page down"),
    b(&[code(KeyCode::PageUp)], Scope::List, KeyCommand::PageUp, "", "page up"),
    b(&[code(KeyCode::Enter), k('l')], Scope::List, KeyCommand::EnterDetail, "detail", "into the detail pane"),
    b(&[code(KeyCode::Esc)], Scope::List, KeyCommand::Back, "", "clear the text filter"),
    b(&[k('j'), code(KeyCode::Down)], Scope::Detail, KeyCommand::Down, "", "scroll down"),
    b(&[k('k'), code(KeyCode::Up)], Scope::Detail, KeyCommand::Up, "", "scroll up"),
    b(&[k('g'), code(KeyCode::Home)], Scope::Detail, KeyCommand::Top, "", "scroll to the top"),
    b(&[k('G'), code(KeyCode::End)], Scope::Detail, KeyCommand::Bottom, "", "scroll to the end"),
    b(&[code(KeyCode::PageDown)], Scope::Detail, KeyCommand::PageDown, "", "page down"),
    b(&[code(KeyCode::PageUp)], Scope::Detail, KeyCommand::PageUp, "", "page up"),
    b(&[code(KeyCode::Esc), k('h')], Scope::Detail, KeyCommand::Back, "back", "back to the list"),
    b(&[code(KeyCode::Tab)], Scope::Global, KeyCommand::NextTab, "", "next tab"),
    b(&[code(KeyCode::BackTab)], Scope::Global, KeyCommand::PrevTab, "", "previous tab"),
    b(&[k('1')], Scope::Global, KeyCommand::GoTab(Tab::Duplicates), "", "Duplicates tab"),
    b(&[k('2')], Scope::Global, KeyCommand::GoTab(Tab::Conflicts), "", "Conflicts tab"),
    b(&[k('3')], Scope::Global, KeyCommand::GoTab(Tab::Stuck), "", "Stuck tab"),
    b(&[k('4')], Scope::Global, KeyCommand::GoTab(Tab::Bots), "", "Bots tab"),
    b(&[k('5')], Scope::Global, KeyCommand::GoTab(Tab::Damaged), "", "Damaged tab"),
    b(&[k('6')], Scope::Global, KeyCommand::GoTab(Tab::Receipts), "", "Receipts tab: find any receipt"),
    b(&[k('7')], Scope::Global, KeyCommand::GoTab(Tab::Forms), "", "Forms tab"),
    b(&[k('8')], Scope::Global, KeyCommand::GoTab(Tab::Log), "", "Log tab"),
    b(&[k('/')], Scope::Global, KeyCommand::Filter, "filter", "filter by text: scope, key, item id or field value"),
    b(&[k('n')], Scope::Global, KeyCommand::Note, "note", "attach a note to your next decision on the selection"),
    b(&[k('u')], Scope::Global, KeyCommand::Undo, "undo", "undo your last step (a bulk D or a bot group: asks first)"),
    b(&[k('v')], Scope::Global, KeyCommand::RawToggle, "raw", "show or hide the raw payloads"),
    b(&[k('e')], Scope::Global, KeyCommand::Export, "export", "export the review log (CSV or JSONL)"),
    b(&[k('r')], Scope::Global, KeyCommand::Reload, "", "read the database again"),
    b(&[k('z')], Scope::Global, KeyCommand::ToggleUtc, "", "show times in UTC, or in your time zone again"),
    b(&[k('?')], Scope::Global, KeyCommand::Help, "help", "this help"),
    b(&[k('q')], Scope::Global, KeyCommand::Quit, "quit", "quit"),
];

/// What the keyboard is talking to right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The terminal is too small: the screen shows only that.
    TooSmall,
    Input,
    Help,
    Confirm,
    Export,
    Main {
        tab: Tab,
        detail: bool,
    },
}

impl Mode {
    pub fn allows(&self, scope: Scope) -> bool {
        match (self, scope) {
            (_, Scope::Always) => true,
            (Mode::TooSmall, s) => s == Scope::TooSmall,
            (Mode::Input, s) => s == Scope::Input,
            (Mode::Help, s) => s == Scope::Help,
            (Mode::Confirm, s) => s == Scope::Confirm,
            (Mode::Export, s) => s == Scope::Export,
            (Mode::Main { .. }, Scope::Global) => true,
            (Mode::Main { tab, .. }, Scope::Tabs(tabs)) => tabs.contains(tab),
            (Mode::Main { tab, detail }, Scope::TabsDetail(tabs)) => *detail && tabs.contains(tab),
            (Mode::Main { detail, .. }, Scope::List) => !detail,
            (Mode::Main { detail, .. }, Scope::Detail) => *detail,
            (Mode::Main { .. }, _) => false,
        }
    }
}

/// The command a key press means in this mode, if any.
pub fn lookup(mode: Mode, event: &KeyEvent) -> Option<KeyCommand> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    KEYMAP
        .iter()
        .find(|b| mode.allows(b.scope) && b.keys.iter().any(|key| key.matches(event)))
        .map(|b| b.command)
}

/// The footer hints for this mode, in table order: (keys, hint). A binding
/// that an earlier one shadows in this mode (a tab's own `/`) is left out.
pub fn hints(mode: Mode) -> Vec<(String, &'static str)> {
    KEYMAP
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.hint.is_empty() && mode.allows(b.scope) && b.scope != Scope::Always)
        .filter(|(i, b)| !shadowed(mode, *i, b))
        .map(|(_, b)| (keys_label(b.keys), b.hint))
        .collect()
}

/// True when every key of the binding at `at` is taken by an earlier one in this mode.
pub fn shadowed(mode: Mode, at: usize, binding: &Binding) -> bool {
    binding.keys.iter().all(|key| {
        KEYMAP[..at]
            .iter()
            .any(|b| mode.allows(b.scope) && b.keys.contains(key))
    })
}

/// `j/↓`, `Esc/q`.
pub fn keys_label(keys: &[Key]) -> String {
    keys.iter().map(Key::label).collect::<Vec<_>>().join("/")
}

/// The `?` help: sections of (keys, help text), generated from the table.
pub fn help_sections() -> Vec<(&'static str, Vec<(String, &'static str)>)> {
    let order = [
        Scope::Tabs(DUP),
        Scope::Tabs(CONFLICTS),
        Scope::Tabs(STUCK),
        Scope::Tabs(BOTS),
        Scope::Tabs(RECEIPTS),
        Scope::Tabs(FORMS),
        Scope::TabsDetail(FORMS),
        Scope::Tabs(ORDERED),
        Scope::Tabs(DECIDING),
        Scope::List,
        Scope::Detail,
        Scope::Global,
        Scope::Always,
        Scope::Input,
        Scope::Confirm,
        Scope::Export,
        Scope::Help,
        Scope::TooSmall,
    ];
    order
        .iter()
        .map(|scope| {
            let rows = KEYMAP
                .iter()
                .filter(|b| b.scope == *scope)
                .map(|b| (keys_label(b.keys), b.help))
                .collect();
            (scope.help_title(), rows)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn a_movement_lands_inside_the_list() {
        use KeyCommand::*;
        assert_eq!(Down.moved(3, 5, 10), 4);
        assert_eq!(Down.moved(4, 5, 10), 4);
        assert_eq!(Up.moved(0, 5, 10), 0);
        assert_eq!(PageDown.moved(1, 5, 10), 4);
        assert_eq!(PageUp.moved(4, 50, 3), 1);
        assert_eq!((Top.moved(4, 5, 3), Bottom.moved(0, 5, 3)), (0, 4));
        assert_eq!(Help.moved(2, 5, 3), 2);
    }

    #[test]
    fn no_key_is_bound_twice_in_one_mode() {
        let modes = [
            Mode::TooSmall,
            Mode::Input,
            Mode::Help,
            Mode::Confirm,
            Mode::Export,
            Mode::Main {
                tab: Tab::Duplicates,
                detail: false,
            },
            Mode::Main {
                tab: Tab::Conflicts,
                detail: true,
            },
            Mode::Main {
                tab: Tab::Stuck,
                detail: false,
            },
            Mode::Main {
                tab: Tab::Log,
                detail: true,
            },
            Mode::Main {
                tab: Tab::Bots,
                detail: false,
            },
            Mode::Main {
                tab: Tab::Bots,
                detail: true,
            },
            Mode::Main {
                tab: Tab::Receipts,
                detail: false,
            },
            Mode::Main {
                tab: Tab::Forms,
                detail: false,
            },
            Mode::Main {
                tab: Tab::Forms,
                detail: true,
            },
        ];
        for mode in modes {
            // A tab may give a global key its own meaning: its binding comes
            // first and wins; nothing else is bound twice.
            let mut seen: Vec<(Key, Scope)> = Vec::new();
            for binding in KEYMAP.iter().filter(|b| mode.allows(b.scope)) {
                for key in binding.keys {
                    let before = seen.iter().find(|(k, _)| k == key);
                    let tab_over_global = matches!(before, Some((_, Scope::Tabs(_))))
                        && binding.scope == Scope::Global;
                    assert!(
                        before.is_none() || tab_over_global,
                        "{key:?} bound twice in {mode:?}"
                    );
                    seen.push((*key, binding.scope));
                }
            }
        }
    }

    #[test]
    fn shift_letters_and_backtab() {
        let main = Mode::Main {
            tab: Tab::Stuck,
            detail: false,
        };
        assert_eq!(
            lookup(main, &press(KeyCode::Char('C'), KeyModifiers::SHIFT)),
            Some(KeyCommand::Decide(Decision::Completed))
        );
        assert_eq!(
            lookup(main, &press(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(KeyCommand::PrevTab)
        );
        assert_eq!(
            lookup(main, &press(KeyCode::Tab, KeyModifiers::SHIFT)),
            Some(KeyCommand::PrevTab)
        );
        assert_eq!(
            lookup(main, &press(KeyCode::Char('d'), KeyModifiers::ALT)),
            None
        );
        assert_eq!(
            lookup(main, &press(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(KeyCommand::ForceQuit)
        );
    }

    #[test]
    fn every_binding_is_in_the_help() {
        let listed: usize = help_sections().iter().map(|(_, rows)| rows.len()).sum();
        assert_eq!(listed, KEYMAP.len());
    }
}
