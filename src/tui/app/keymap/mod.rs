//! The one keymap: dispatch, the footer hints and the `?` help are all read
//! from a [`Keymap`] — [`KEYMAP`] as shipped, or with the config file's
//! remaps (see [`remap`]) — so what the screen says a key does is what it does.

pub mod remap;

use std::borrow::Cow;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::copy_what::CopyWhat;
use super::decision::Decision;
use super::tab::Tab;
use crate::i18n::Lang;
use crate::t;

/// A key as the table names it. Shift is not compared (an upper-case letter
/// arrives as itself, often with SHIFT set); Ctrl is; Alt never matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Press {
        code: KeyCode,
        ctrl: bool,
    },
    /// Any character typed (no Ctrl, no Alt): the text of a line being
    /// typed, or of a search on the Receipts tab's list. It comes last in
    /// its scope, so that a key bound there is never text.
    Text,
}

const fn k(c: char) -> Key {
    Key::Press {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn code(code: KeyCode) -> Key {
    Key::Press { code, ctrl: false }
}

const fn ctrl(c: char) -> Key {
    Key::Press {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

const TEXT: Key = Key::Text;

/// True for a key press that is a character typed: no Ctrl, no Alt.
fn is_text(event: &KeyEvent) -> bool {
    matches!(event.code, KeyCode::Char(c) if !c.is_control())
        && !event
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

impl Key {
    pub fn matches(&self, event: &KeyEvent) -> bool {
        let (code, ctrl) = match *self {
            Key::Text => return is_text(event),
            Key::Press { code, ctrl } => (code, ctrl),
        };
        if event.modifiers.contains(KeyModifiers::ALT) {
            return false;
        }
        if event.modifiers.contains(KeyModifiers::CONTROL) != ctrl {
            return false;
        }
        match (code, event.code) {
            // Some terminals send Shift+Tab as Tab with SHIFT.
            (KeyCode::BackTab, KeyCode::Tab) => event.modifiers.contains(KeyModifiers::SHIFT),
            (KeyCode::Tab, KeyCode::Tab) => !event.modifiers.contains(KeyModifiers::SHIFT),
            (a, b) => a == b,
        }
    }

    /// True for a key that types a character where text is typed.
    pub fn is_text(&self) -> bool {
        match *self {
            Key::Text => true,
            Key::Press { code, ctrl } => {
                !ctrl && matches!(code, KeyCode::Char(c) if !c.is_control())
            }
        }
    }

    /// How the footer and the help write the key in `lang`.
    pub fn label(&self, lang: Lang) -> String {
        let (code, ctrl) = match *self {
            Key::Text => return t!(lang, "keys.label.text").to_string(),
            Key::Press { code, ctrl } => (code, ctrl),
        };
        let base = match code {
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
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        if ctrl { format!("Ctrl-{base}") } else { base }
    }
}

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, overlays and text input included.
    Always,
    /// Whenever no overlay or text input is open, the Receipts tab's list
    /// included: the keys that switch tabs.
    Main,
    /// Whenever no overlay or text input is open; on the Receipts tab's
    /// list only the keys that type no character.
    Global,
    /// On these tabs, no overlay open (list or detail focus).
    Tabs(&'static [Tab]),
    /// On these tabs with the detail pane focused.
    TabsDetail(&'static [Tab]),
    /// The Receipts tab's list, where what is typed is a search: its own
    /// keys, and any other character opens the search line with itself.
    Typing,
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
    /// The copy menu (`Y`).
    Copy,
    /// Typing a filter or a note: keys not bound here are text.
    Input,
    /// The terminal is too small to show anything a key could act on.
    TooSmall,
}

impl Scope {
    /// The help's heading of the keys that apply here.
    pub fn help_title(&self, lang: Lang) -> &'static str {
        match self {
            Scope::Always => t!(lang, "keys.scope.always"),
            Scope::Main => t!(lang, "keys.scope.global"),
            Scope::Global => t!(lang, "keys.scope.global_not_typing"),
            Scope::Tabs([Tab::Duplicates]) => t!(lang, "keys.scope.duplicates"),
            Scope::Tabs([Tab::Conflicts]) => t!(lang, "keys.scope.conflicts"),
            Scope::Tabs([Tab::Stuck]) => t!(lang, "keys.scope.stuck"),
            Scope::Tabs([Tab::Bots]) => t!(lang, "keys.scope.bots"),
            Scope::Tabs([Tab::Forms]) => t!(lang, "keys.scope.forms"),
            Scope::Tabs(tabs) if *tabs == ORDERED => t!(lang, "keys.scope.ordered"),
            Scope::Tabs(tabs) if *tabs == DECIDING => t!(lang, "keys.scope.deciding"),
            Scope::TabsDetail([Tab::Forms]) => t!(lang, "keys.scope.forms_detail"),
            Scope::TabsDetail([Tab::Receipts]) => t!(lang, "keys.scope.receipts_detail"),
            Scope::TabsDetail(_) => t!(lang, "keys.scope.tabs_detail"),
            Scope::Tabs(_) => t!(lang, "keys.scope.tabs"),
            Scope::Typing => t!(lang, "keys.scope.receipts_list"),
            Scope::List => t!(lang, "keys.scope.list"),
            Scope::Detail => t!(lang, "keys.scope.detail"),
            Scope::Help => t!(lang, "keys.scope.help"),
            Scope::Confirm => t!(lang, "keys.scope.confirm"),
            Scope::Export => t!(lang, "keys.scope.export"),
            Scope::Copy => t!(lang, "keys.scope.copy"),
            Scope::Input => t!(lang, "keys.scope.input"),
            Scope::TooSmall => t!(lang, "keys.scope.too_small"),
        }
    }

    /// True when this scope's character keys still act where a character
    /// is text ([`Mode::types`]): the line's own keys, the tab switches,
    /// and the typing tab's own. Any other letter there is typed.
    fn acts_on_text(self) -> bool {
        matches!(
            self,
            Scope::Always | Scope::Main | Scope::Typing | Scope::Input
        )
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
    /// Reopen the decision on the selected item (asks first).
    ReopenChosen,
    Note,
    /// Copy the selected receipt's email to the clipboard.
    CopyEmail,
    /// The menu of what to copy.
    CopyMenu,
    /// Copy this of the selected receipt (a choice of the menu).
    CopyPick(CopyWhat),
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
    /// Open an empty search line of every receipt (the Receipts tab).
    FindQuery,
    /// Open the search line with the character typed.
    FindTyped,
    /// Go to the selected receipt's item.
    JumpToItem,
    /// Erase the selected receipt's visitor data (asks first).
    EraseVisitor,
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
    /// The character typed goes into the line.
    Type,
    /// The searches typed before, newest first; and back.
    InputOlder,
    InputNewer,
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
#[derive(Clone, Debug)]
pub struct Binding {
    /// The table's own keys, or those a remap gave.
    pub keys: Cow<'static, [Key]>,
    pub scope: Scope,
    pub command: KeyCommand,
    /// The catalogue key of a word or two for the footer; empty for
    /// bindings the footer leaves to `?`.
    pub hint: &'static str,
    /// The catalogue key of one line for the `?` help.
    pub help: &'static str,
}

impl Binding {
    /// The footer's word for this key in `lang` (empty when it has none).
    pub fn hint_in(&self, lang: Lang) -> &'static str {
        if self.hint.is_empty() {
            ""
        } else {
            crate::i18n::text(lang, self.hint)
        }
    }

    /// The help's line for this key in `lang`.
    pub fn help_in(&self, lang: Lang) -> &'static str {
        crate::i18n::text(lang, self.help)
    }
}

const DUP: &[Tab] = &[Tab::Duplicates];
const CONFLICTS: &[Tab] = &[Tab::Conflicts];
const STUCK: &[Tab] = &[Tab::Stuck];
const BOTS: &[Tab] = &[Tab::Bots];
const RECEIPTS: &[Tab] = &[Tab::Receipts];
/// The tabs whose list takes what is typed as a search.
const TYPING: &[Tab] = &[Tab::Receipts];
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
        keys: Cow::Borrowed(keys),
        scope,
        command,
        hint,
        help,
    }
}

/// The keymap, in the order the footer shows hints and the help lists keys.
/// The first binding that applies wins. Hints and help lines are catalogue
/// keys (`assets/i18n/*.toml`, `[keys.hint]` and `[keys.help]`), so that one
/// table speaks every language.
#[rustfmt::skip]
pub const KEYMAP: &[Binding] = &[
    b(&[ctrl('c')], Scope::Always, KeyCommand::ForceQuit, "", "keys.help.force_quit"),
    // Nothing else acts on what the screen does not show.
    b(&[k('q')], Scope::TooSmall, KeyCommand::Quit, "keys.hint.quit", "keys.help.quit_too_small"),
    // Text input: everything not bound here is typed.
    b(&[code(KeyCode::Enter)], Scope::Input, KeyCommand::InputSubmit, "keys.hint.keep_typed", "keys.help.keep_typed"),
    b(&[code(KeyCode::Esc)], Scope::Input, KeyCommand::InputCancel, "keys.hint.cancel", "keys.help.cancel_typed"),
    b(&[code(KeyCode::Backspace)], Scope::Input, KeyCommand::InputBackspace, "", "keys.help.backspace"),
    b(&[ctrl('u')], Scope::Input, KeyCommand::InputClear, "", "keys.help.clear_line"),
    b(&[code(KeyCode::Up)], Scope::Input, KeyCommand::InputOlder, "", "keys.help.older_search"),
    b(&[code(KeyCode::Down)], Scope::Input, KeyCommand::InputNewer, "", "keys.help.newer_search"),
    b(&[TEXT], Scope::Input, KeyCommand::Type, "", "keys.help.type_text"),
    // Confirmations: the safe answer has the focus.
    b(&[k('y')], Scope::Confirm, KeyCommand::Yes, "keys.hint.yes", "keys.help.yes"),
    b(&[k('n')], Scope::Confirm, KeyCommand::No, "keys.hint.no", "keys.help.no"),
    b(&[code(KeyCode::Tab), code(KeyCode::Left), code(KeyCode::Right), k('h'), k('l')], Scope::Confirm, KeyCommand::ToggleChoice, "keys.hint.switch", "keys.help.switch_answer"),
    b(&[code(KeyCode::Enter)], Scope::Confirm, KeyCommand::Accept, "keys.hint.answer", "keys.help.answer"),
    b(&[code(KeyCode::Esc), k('q')], Scope::Confirm, KeyCommand::Close, "keys.hint.cancel", "keys.help.cancel"),
    // What to copy.
    b(&[k('e')], Scope::Copy, KeyCommand::CopyPick(CopyWhat::Email), "keys.hint.copy_what_email", "keys.help.copy_what_email"),
    b(&[k('n')], Scope::Copy, KeyCommand::CopyPick(CopyWhat::Name), "keys.hint.copy_what_name", "keys.help.copy_what_name"),
    b(&[k('p')], Scope::Copy, KeyCommand::CopyPick(CopyWhat::Phone), "keys.hint.copy_what_phone", "keys.help.copy_what_phone"),
    b(&[k('m')], Scope::Copy, KeyCommand::CopyPick(CopyWhat::Message), "keys.hint.copy_what_message", "keys.help.copy_what_message"),
    b(&[k('r')], Scope::Copy, KeyCommand::CopyPick(CopyWhat::ReceiptNumber), "keys.hint.copy_what_receipt", "keys.help.copy_what_receipt"),
    b(&[k('i')], Scope::Copy, KeyCommand::CopyPick(CopyWhat::ItemId), "keys.hint.copy_what_item", "keys.help.copy_what_item"),
    b(&[code(KeyCode::Tab), code(KeyCode::Down), code(KeyCode::Right), k('j'), k('l')], Scope::Copy, KeyCommand::ToggleChoice, "", "keys.help.next_copy"),
    b(&[code(KeyCode::BackTab), code(KeyCode::Up), code(KeyCode::Left), k('k'), k('h')], Scope::Copy, KeyCommand::PreviousChoice, "", "keys.help.previous_copy"),
    b(&[code(KeyCode::Enter)], Scope::Copy, KeyCommand::Accept, "keys.hint.copy_now", "keys.help.copy_now"),
    b(&[code(KeyCode::Esc), k('q')], Scope::Copy, KeyCommand::Close, "keys.hint.cancel", "keys.help.cancel"),
    // Export.
    b(&[k('c')], Scope::Export, KeyCommand::ChooseCsv, "keys.hint.csv", "keys.help.csv"),
    b(&[k('b')], Scope::Export, KeyCommand::ChooseExcelCsv, "keys.hint.excel_csv", "keys.help.excel_csv"),
    b(&[k('j')], Scope::Export, KeyCommand::ChooseJsonl, "keys.hint.jsonl", "keys.help.jsonl"),
    b(&[code(KeyCode::Tab), code(KeyCode::Right), k('l')], Scope::Export, KeyCommand::ToggleChoice, "keys.hint.switch", "keys.help.next_format"),
    b(&[code(KeyCode::BackTab), code(KeyCode::Left), k('h')], Scope::Export, KeyCommand::PreviousChoice, "", "keys.help.previous_format"),
    b(&[code(KeyCode::Enter)], Scope::Export, KeyCommand::Accept, "keys.hint.export_now", "keys.help.export_now"),
    b(&[code(KeyCode::Esc), k('q')], Scope::Export, KeyCommand::Close, "keys.hint.cancel", "keys.help.cancel"),
    // Help.
    b(&[k('j'), code(KeyCode::Down)], Scope::Help, KeyCommand::Down, "keys.hint.scroll", "keys.help.scroll_down"),
    b(&[k('k'), code(KeyCode::Up)], Scope::Help, KeyCommand::Up, "", "keys.help.scroll_up"),
    b(&[code(KeyCode::PageDown), k(' ')], Scope::Help, KeyCommand::PageDown, "", "keys.help.page_down"),
    b(&[code(KeyCode::PageUp)], Scope::Help, KeyCommand::PageUp, "", "keys.help.page_up"),
    b(&[code(KeyCode::Esc), k('q'), k('?'), code(KeyCode::F(1))], Scope::Help, KeyCommand::Close, "keys.hint.close", "keys.help.close_help"),
    // Decisions on the selection.
    b(&[k('d')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Duplicate), "keys.hint.duplicate", "keys.help.duplicate"),
    b(&[k('c')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Correction), "keys.hint.correction", "keys.help.correction"),
    b(&[k('x')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Distinct), "keys.hint.distinct", "keys.help.distinct"),
    b(&[k('s')], Scope::Tabs(DUP), KeyCommand::Decide(Decision::Spam), "keys.hint.spam", "keys.help.spam"),
    b(&[k('D')], Scope::Tabs(DUP), KeyCommand::BulkDuplicate, "keys.hint.all_exact", "keys.help.all_exact"),
    b(&[k('t')], Scope::Tabs(DUP), KeyCommand::CycleClass, "keys.hint.class", "keys.help.class"),
    b(&[k('[')], Scope::Tabs(DUP), KeyCommand::PrevCopy, "", "keys.help.copy_before"),
    b(&[k(']')], Scope::Tabs(DUP), KeyCommand::NextCopy, "", "keys.help.copy_after"),
    b(&[k('o')], Scope::Tabs(CONFLICTS), KeyCommand::Decide(Decision::OriginalStands), "keys.hint.original_stands", "keys.help.original_stands"),
    b(&[k('f')], Scope::Tabs(CONFLICTS), KeyCommand::Decide(Decision::FollowUp), "keys.hint.follow_up", "keys.help.follow_up"),
    b(&[k('C')], Scope::Tabs(STUCK), KeyCommand::Decide(Decision::Completed), "keys.hint.completed", "keys.help.completed"),
    b(&[k('F')], Scope::Tabs(STUCK), KeyCommand::Decide(Decision::Failed), "keys.hint.failed", "keys.help.failed"),
    b(&[k('p')], Scope::Tabs(STUCK), KeyCommand::Decide(Decision::StillPending), "keys.hint.still_pending", "keys.help.still_pending"),
    b(&[k('s')], Scope::Tabs(BOTS), KeyCommand::Decide(Decision::Spam), "keys.hint.spam", "keys.help.bot_spam"),
    b(&[k('N')], Scope::Tabs(BOTS), KeyCommand::Decide(Decision::NotSpam), "keys.hint.not_spam", "keys.help.not_spam"),
    b(&[k('T')], Scope::Tabs(ORDERED), KeyCommand::ToggleOrder, "keys.hint.order", "keys.help.order"),
    b(&[k('P')], Scope::Tabs(DECIDING), KeyCommand::TogglePending, "keys.hint.pending_only", "keys.help.pending_only"),
    b(&[k('U')], Scope::Tabs(DECIDING), KeyCommand::ReopenChosen, "keys.hint.reopen", "keys.help.reopen"),
    // The Receipts tab's list types: its `/` and the tab switches aside,
    // a character opens the search line (see the last binding).
    b(&[k('/')], Scope::Typing, KeyCommand::FindQuery, "keys.hint.search", "keys.help.search_line"),
    b(&[k('/')], Scope::TabsDetail(RECEIPTS), KeyCommand::FindQuery, "keys.hint.search", "keys.help.search_line"),
    b(&[k('J')], Scope::TabsDetail(RECEIPTS), KeyCommand::JumpToItem, "keys.hint.go_to_item", "keys.help.go_to_item"),
    b(&[k('E')], Scope::TabsDetail(RECEIPTS), KeyCommand::EraseVisitor, "", "keys.help.erase"),
    b(&[k('p')], Scope::Tabs(FORMS), KeyCommand::CyclePeriod, "keys.hint.period", "keys.help.period"),
    b(&[code(KeyCode::Enter)], Scope::TabsDetail(FORMS), KeyCommand::OpenExample, "keys.hint.open_example", "keys.help.open_example"),
    // Moving around.
    b(&[k('j'), code(KeyCode::Down)], Scope::List, KeyCommand::Down, "", "keys.help.next_row"),
    b(&[k('k'), code(KeyCode::Up)], Scope::List, KeyCommand::Up, "", "keys.help.previous_row"),
    b(&[k('g'), code(KeyCode::Home)], Scope::List, KeyCommand::Top, "", "keys.help.first_row"),
    b(&[k('G'), code(KeyCode::End)], Scope::List, KeyCommand::Bottom, "", "keys.help.last_row"),
    b(&[code(KeyCode::PageDown)], Scope::List, KeyCommand::PageDown, "", "keys.help.page_down"),
    b(&[code(KeyCode::PageUp)], Scope::List, KeyCommand::PageUp, "", "keys.help.page_up"),
    b(&[code(KeyCode::Enter), k('l')], Scope::List, KeyCommand::EnterDetail, "keys.hint.detail", "keys.help.detail"),
    b(&[code(KeyCode::Esc)], Scope::List, KeyCommand::Back, "", "keys.help.clear_filter"),
    b(&[k('j'), code(KeyCode::Down)], Scope::Detail, KeyCommand::Down, "", "keys.help.scroll_down"),
    b(&[k('k'), code(KeyCode::Up)], Scope::Detail, KeyCommand::Up, "", "keys.help.scroll_up"),
    b(&[k('g'), code(KeyCode::Home)], Scope::Detail, KeyCommand::Top, "", "keys.help.scroll_top"),
    b(&[k('G'), code(KeyCode::End)], Scope::Detail, KeyCommand::Bottom, "", "keys.help.scroll_end"),
    b(&[code(KeyCode::PageDown)], Scope::Detail, KeyCommand::PageDown, "", "keys.help.page_down"),
    b(&[code(KeyCode::PageUp)], Scope::Detail, KeyCommand::PageUp, "", "keys.help.page_up"),
    b(&[code(KeyCode::Esc), k('h')], Scope::Detail, KeyCommand::Back, "keys.hint.back", "keys.help.back"),
    b(&[code(KeyCode::Tab)], Scope::Main, KeyCommand::NextTab, "", "keys.help.next_tab"),
    b(&[code(KeyCode::BackTab)], Scope::Main, KeyCommand::PrevTab, "", "keys.help.previous_tab"),
    b(&[k('1')], Scope::Main, KeyCommand::GoTab(Tab::Duplicates), "", "keys.help.tab_duplicates"),
    b(&[k('2')], Scope::Main, KeyCommand::GoTab(Tab::Conflicts), "", "keys.help.tab_conflicts"),
    b(&[k('3')], Scope::Main, KeyCommand::GoTab(Tab::Stuck), "", "keys.help.tab_stuck"),
    b(&[k('4')], Scope::Main, KeyCommand::GoTab(Tab::Bots), "", "keys.help.tab_bots"),
    b(&[k('5')], Scope::Main, KeyCommand::GoTab(Tab::Damaged), "", "keys.help.tab_damaged"),
    b(&[k('6')], Scope::Main, KeyCommand::GoTab(Tab::Receipts), "", "keys.help.tab_receipts"),
    b(&[k('7')], Scope::Main, KeyCommand::GoTab(Tab::Forms), "", "keys.help.tab_forms"),
    b(&[k('8')], Scope::Main, KeyCommand::GoTab(Tab::Log), "", "keys.help.tab_log"),
    b(&[k('/')], Scope::Global, KeyCommand::Filter, "keys.hint.filter", "keys.help.filter"),
    b(&[k('n')], Scope::Global, KeyCommand::Note, "keys.hint.note", "keys.help.note"),
    b(&[k('y')], Scope::Global, KeyCommand::CopyEmail, "", "keys.help.copy_email"),
    b(&[k('Y')], Scope::Global, KeyCommand::CopyMenu, "", "keys.help.copy_menu"),
    b(&[k('u')], Scope::Global, KeyCommand::Undo, "keys.hint.undo", "keys.help.undo"),
    b(&[k('v')], Scope::Global, KeyCommand::RawToggle, "keys.hint.raw", "keys.help.raw"),
    b(&[k('e')], Scope::Global, KeyCommand::Export, "keys.hint.export", "keys.help.export"),
    b(&[k('r')], Scope::Global, KeyCommand::Reload, "", "keys.help.reload"),
    b(&[k('z')], Scope::Global, KeyCommand::ToggleUtc, "", "keys.help.utc"),
    // F1 and F10 type no character: they act on the Receipts tab's list too.
    b(&[k('?'), code(KeyCode::F(1))], Scope::Global, KeyCommand::Help, "keys.hint.help", "keys.help.help"),
    b(&[k('q'), code(KeyCode::F(10))], Scope::Global, KeyCommand::Quit, "keys.hint.quit", "keys.help.quit"),
    // Last: every key bound above wins over the search typed.
    b(&[TEXT], Scope::Typing, KeyCommand::FindTyped, "", "keys.help.type_search"),
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
    Copy,
    Main {
        tab: Tab,
        detail: bool,
    },
}

impl Mode {
    /// True where a character typed is text: a line being typed, and the
    /// Receipts tab's list (a search).
    pub fn types(&self) -> bool {
        match self {
            Mode::Input => true,
            Mode::Main { tab, detail } => !detail && TYPING.contains(tab),
            _ => false,
        }
    }

    pub fn allows(&self, scope: Scope) -> bool {
        match (self, scope) {
            (_, Scope::Always) => true,
            (Mode::TooSmall, s) => s == Scope::TooSmall,
            (Mode::Input, s) => s == Scope::Input,
            (Mode::Help, s) => s == Scope::Help,
            (Mode::Confirm, s) => s == Scope::Confirm,
            (Mode::Export, s) => s == Scope::Export,
            (Mode::Copy, s) => s == Scope::Copy,
            (Mode::Main { .. }, Scope::Main | Scope::Global) => true,
            (Mode::Main { tab, detail }, Scope::Typing) => !detail && TYPING.contains(tab),
            (Mode::Main { tab, .. }, Scope::Tabs(tabs)) => tabs.contains(tab),
            (Mode::Main { tab, detail }, Scope::TabsDetail(tabs)) => *detail && tabs.contains(tab),
            (Mode::Main { detail, .. }, Scope::List) => !detail,
            (Mode::Main { detail, .. }, Scope::Detail) => *detail,
            (Mode::Main { .. }, _) => false,
        }
    }
}

/// True when `key` of `binding` acts in this mode: its scope applies, and
/// where a character is text only the scopes that expect it take one.
fn acts(mode: Mode, binding: &Binding, key: &Key) -> bool {
    mode.allows(binding.scope) && (!key.is_text() || !mode.types() || binding.scope.acts_on_text())
}

/// The keymap in effect: the table's rows in its order, with their keys as
/// shipped or as the config file remapped them.
#[derive(Clone, Debug)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: KEYMAP.to_vec(),
        }
    }
}

impl Keymap {
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The command a key press means in this mode, if any.
    pub fn lookup(&self, mode: Mode, event: &KeyEvent) -> Option<KeyCommand> {
        if event.kind == KeyEventKind::Release {
            return None;
        }
        self.bindings
            .iter()
            .find(|b| {
                b.keys
                    .iter()
                    .any(|key| key.matches(event) && acts(mode, b, key))
            })
            .map(|b| b.command)
    }

    /// The footer hints for this mode in `lang`, in table order: (keys, hint).
    /// A binding that an earlier one shadows in this mode (a tab's own `/`) is
    /// left out.
    pub fn hints(&self, mode: Mode, lang: Lang) -> Vec<(String, &'static str)> {
        self.hinted(mode)
            .map(|(b, key)| (key.label(lang), b.hint_in(lang)))
            .collect()
    }

    /// The bindings the footer hints in this mode, each with the key it names.
    pub fn hinted(&self, mode: Mode) -> impl Iterator<Item = (&Binding, Key)> {
        self.bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.hint.is_empty() && b.scope != Scope::Always)
            .filter_map(move |(i, b)| self.footer_key(mode, i).map(|key| (b, key)))
    }

    /// The key the footer names for the binding at `at`: its first that acts
    /// in this mode and that no earlier binding takes (none: the binding does
    /// nothing here).
    fn footer_key(&self, mode: Mode, at: usize) -> Option<Key> {
        let binding = &self.bindings[at];
        binding.keys.iter().copied().find(|key| {
            acts(mode, binding, key)
                && !self.bindings[..at]
                    .iter()
                    .any(|b| b.keys.contains(key) && acts(mode, b, key))
        })
    }

    /// The `?` help in `lang`: sections of (keys, help text), generated from the table.
    pub fn help_sections(&self, lang: Lang) -> Vec<(&'static str, Vec<(String, &'static str)>)> {
        HELP_ORDER
            .iter()
            .map(|scope| {
                let rows = self
                    .bindings
                    .iter()
                    .filter(|b| b.scope == *scope)
                    .map(|b| (keys_label(&b.keys, lang), b.help_in(lang)))
                    .collect();
                (scope.help_title(lang), rows)
            })
            .collect()
    }
}

/// The order of the help's sections.
const HELP_ORDER: [Scope; 21] = [
    Scope::Tabs(DUP),
    Scope::Tabs(CONFLICTS),
    Scope::Tabs(STUCK),
    Scope::Tabs(BOTS),
    Scope::Typing,
    Scope::TabsDetail(RECEIPTS),
    Scope::Tabs(FORMS),
    Scope::TabsDetail(FORMS),
    Scope::Tabs(ORDERED),
    Scope::Tabs(DECIDING),
    Scope::List,
    Scope::Detail,
    Scope::Main,
    Scope::Global,
    Scope::Always,
    Scope::Input,
    Scope::Confirm,
    Scope::Export,
    Scope::Copy,
    Scope::Help,
    Scope::TooSmall,
];

/// `j/↓`, `Esc/q`.
pub fn keys_label(keys: &[Key], lang: Lang) -> String {
    keys.iter()
        .map(|k| k.label(lang))
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests;
