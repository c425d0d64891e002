//! The screen's state. Plain data: [`super::update`] changes it, the canvas reads it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::i18n::Lang;
use crate::model::{ReceiptId, Zone};
use crate::reading::{ItemReview, Snapshot};
use crate::review::ExportFile;

use super::cache::Cache;
use super::clock::Clock;
use super::counts::Counts;
use super::find::FindState;
use super::forms::FormsState;
use super::fresh::GroupChange;
use super::keymap::{Keymap, Mode};
use super::list_view::ListView;
use super::msg::{ItemDecision, PayloadRef, Places};
use super::palette::Palette;
use super::rows;
use super::search::SearchIndex;
use super::standing::ScreenStatus;
use super::tab::{ClassFilter, Tab};
use super::visitors::Visitor;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Focus {
    #[default]
    List,
    Detail,
}

/// Selection and scroll of one tab's list (indices into the visible rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListPos {
    pub selected: usize,
    pub offset: usize,
}

/// One tab's list: the rows it shows, the rows its filters found and what
/// they answer, and where the operator is in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TabState {
    /// Visible rows: indices into the snapshot's lists, in the order shown
    /// (see `list_view`).
    pub rows: Vec<usize>,
    /// The rows the class and text filters found, in reading order (Log:
    /// newest first), before `list_view` arranges them.
    pub matched: Vec<usize>,
    /// The folded query and class filter `matched` answers, when it answers
    /// one for the current reading (a longer query then only looks at these
    /// rows).
    pub matched_for: Option<(String, ClassFilter)>,
    /// The filters changed since its rows were found. Only the tab shown is
    /// filtered as the operator types; another is filtered when it is shown
    /// (or its rows are looked into), so that a key costs what the shown tab
    /// holds.
    pub behind: bool,
    pub pos: ListPos,
}

/// A line of text being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// The text filter; it applies as you type. Enter keeps it, Esc clears it.
    Filter { text: String },
    /// A note for the next decision on `item`.
    Note { item: String, text: String },
    /// A search of every receipt (the Receipts tab); Enter runs it. ↑
    /// brings back the searches before (`recall`: how far back).
    Find {
        text: String,
        recall: Option<Recall>,
    },
    /// Why an erasure is asked for (the request's reference), before it is planned.
    EraseNote {
        who: crate::erase::Who,
        text: String,
    },
}

/// Which of the searches before is in the line (0: the last one), and
/// what was typed before ↑, which ↓ past the last one gives back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recall {
    pub at: usize,
    pub draft: String,
}

impl Input {
    pub fn text(&self) -> &str {
        match self {
            Input::Filter { text }
            | Input::Note { text, .. }
            | Input::Find { text, .. }
            | Input::EraseNote { text, .. } => text,
        }
    }

    /// The text being typed, to change: a search changed is the operator's
    /// own again, no longer one brought back.
    pub fn text_mut(&mut self) -> &mut String {
        match self {
            Input::Filter { text } | Input::Note { text, .. } | Input::EraseNote { text, .. } => {
                text
            }
            Input::Find { text, recall } => {
                *recall = None;
                text
            }
        }
    }
}

/// What a confirmation does when answered yes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfirmAction {
    Decide(ItemDecision),
    DecideMany(Vec<ItemDecision>),
    /// Undo the operator's last step, which reaches this far.
    Undo(crate::review::Wide),
    /// Reopen the decision on the item the operator chose.
    Reopen(super::msg::Reopen),
    /// Quit although notes typed for decisions were never sent.
    Quit,
    /// Erase a visitor's receipts (`E`).
    Erase(super::msg::ErasePlanned),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirm {
    pub title: String,
    /// Already safe to show (built from sanitised text).
    pub lines: Vec<String>,
    pub yes_label: String,
    pub no_label: String,
    /// The focus starts on No, the safe answer.
    pub yes_focused: bool,
    pub action: ConfirmAction,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Confirm(Box<Confirm>),
    Export {
        choice: ExportFile,
    },
    /// `Y`: what of the selected receipt to copy.
    Copy {
        choice: super::copy_what::CopyWhat,
    },
}

/// What the export dialog offers, in the order it shows them.
pub const EXPORT_CHOICES: [ExportFile; 3] =
    [ExportFile::CSV, ExportFile::EXCEL_CSV, ExportFile::JSONL];

/// A choice's name in the dialog and in the status line (the footer's
/// word for the key that chooses it).
pub fn export_label(file: ExportFile, lang: Lang) -> &'static str {
    match (file.format, file.bom) {
        (crate::review::ExportFormat::Csv, false) => crate::t!(lang, "keys.hint.csv"),
        (crate::review::ExportFormat::Csv, true) => crate::t!(lang, "keys.hint.excel_csv"),
        (crate::review::ExportFormat::Jsonl, _) => crate::t!(lang, "keys.hint.jsonl"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusKind {
    Info,
    Success,
    Error,
}

/// The one-line message under the panes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusLine {
    pub text: String,
    pub kind: StatusKind,
    /// The wall clock when it was set (none before the clock's first report).
    pub set_at_ms: Option<crate::model::Millis>,
    pub lasts: Lasts,
}

/// How long a status message stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lasts {
    /// It says the database is being read: the reading's end ends it.
    UntilRead,
    /// It says work is under way (recording, undoing, exporting): the
    /// answer replaces it.
    UntilAnswered,
    /// An outcome: it goes this long after it was set.
    For(crate::model::Millis),
}

impl StatusLine {
    /// True once the wall clock has passed its time.
    pub fn expired(&self, wall_ms: crate::model::Millis) -> bool {
        match (self.lasts, self.set_at_ms) {
            (Lasts::For(span), Some(at)) => wall_ms.saturating_sub(at) >= span,
            _ => false,
        }
    }
}

/// What is selected, resolved against the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected {
    Group(usize),
    Conflict(usize),
    Stuck(usize),
    Bot(usize),
    Damaged(usize),
    /// A hit of the Receipts tab's search.
    Receipt(usize),
    Log(usize),
}

/// What the worker is doing, as the header shows it: a stage of the
/// reading, or the screen's own work after it (indexing for the filter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy {
    pub stage: &'static str,
    pub done: u64,
    pub total: Option<u64>,
}

/// How many of a bot group's receipts the detail reads the payloads of, for
/// their senders (a campaign may hold thousands).
pub const BOT_SENDERS_READ: usize = 200;

/// The whole state of the review screen.
#[derive(Debug)]
pub struct App {
    /// The colours; without any (`NO_COLOR`) the selection stays visible by
    /// reverse video and a marker.
    pub palette: Palette,
    /// The keys in effect: the table's, or the config file's remaps of it.
    pub keymap: Keymap,
    /// Who decisions are recorded as (shown in the header), when the runtime says.
    pub operator: Option<String>,
    /// The database being opened, shown while the first reading is under way.
    pub database: Option<PathBuf>,
    pub snapshot: Option<Arc<Snapshot>>,
    /// The filter index of `snapshot`.
    pub search: Arc<SearchIndex>,
    /// Totals of the current reading, for the header and the tab bar.
    pub counts: Counts,
    /// The first reading failed: why (already safe to show).
    pub load_error: Option<String>,
    /// The last reload failed: what is shown is an older reading.
    pub stale: bool,
    /// How far the background reading has got, while it is under way.
    pub progress: Option<Busy>,
    /// Ticks seen, for the progress spinner.
    pub ticks: u64,
    pub clock: Clock,
    pub size: (u16, u16),
    pub tab: Tab,
    pub class_filter: ClassFilter,
    /// The text filter (applies to every tab).
    pub filter: String,
    pub focus: Focus,
    /// Each tab's list: its rows, what they answer, the selection.
    pub tabs: [TabState; Tab::COUNT],
    /// Newest or oldest first, every item or the pending ones.
    pub list_view: ListView,
    /// Groups new or grown in the readings since the operator last moved
    /// past them, by first receipt id.
    pub fresh: HashMap<ReceiptId, GroupChange>,
    pub detail_scroll: usize,
    /// How far the detail pane could scroll at its last drawing (`Msg::Drawn`).
    pub detail_max_scroll: usize,
    /// How far the help could scroll at its last drawing (`Msg::Drawn`).
    pub help_max_scroll: usize,
    /// Where the last frame put what a click can mean (`Msg::Drawn`);
    /// forgotten once the state moves on, until the next frame.
    pub places: Places,
    pub raw_view: bool,
    pub overlay: Option<Overlay>,
    pub input: Option<Input>,
    pub status: Option<StatusLine>,
    /// Notes typed for the next decision on an item.
    pub notes: HashMap<String, String>,
    /// The copy chosen (`[` `]`) as the one to keep, per duplicate group.
    pub keep: HashMap<String, ReceiptId>,
    /// Decisions sent and not yet answered by `Recorded`, with the note each took.
    pub awaiting: HashMap<String, Option<String>>,
    /// Payloads and senders read on demand.
    pub cache: Cache,
    /// The Receipts tab: its search and what it found.
    pub find: FindState,
    /// The item an undo reopened, to select once a reading shows it pending.
    pub reopened: Option<String>,
    /// The operator's time zone, for every time shown and typed.
    pub zone: Zone,
    /// Times are shown in UTC instead (`z`).
    pub show_utc: bool,
    /// The Forms tab: its period, selection and view.
    pub forms: FormsState,
    /// The language of every word the screen says (never of visitor data).
    pub lang: Lang,
}

impl App {
    pub fn new(no_color: bool) -> Self {
        App {
            palette: Palette::chosen(Palette::Dark, no_color),
            keymap: Keymap::default(),
            operator: None,
            database: None,
            snapshot: None,
            search: Arc::default(),
            counts: Counts::default(),
            load_error: None,
            stale: false,
            progress: None,
            ticks: 0,
            clock: Clock::default(),
            size: (80, 24),
            tab: Tab::Duplicates,
            class_filter: ClassFilter::All,
            filter: String::new(),
            focus: Focus::List,
            tabs: Default::default(),
            list_view: ListView::default(),
            fresh: HashMap::new(),
            detail_scroll: 0,
            detail_max_scroll: usize::MAX,
            help_max_scroll: usize::MAX,
            places: Places::default(),
            raw_view: false,
            overlay: None,
            input: None,
            status: None,
            notes: HashMap::new(),
            keep: HashMap::new(),
            awaiting: HashMap::new(),
            cache: Cache::default(),
            find: FindState::default(),
            reopened: None,
            zone: Zone::UTC,
            show_utc: false,
            forms: FormsState::default(),
            lang: Lang::default(),
        }
    }

    /// The colours to draw in.
    pub fn with_palette(mut self, palette: Palette) -> Self {
        self.palette = palette;
        self
    }

    /// The keys, as the config file remapped them.
    pub fn with_keymap(mut self, keymap: Keymap) -> Self {
        self.keymap = keymap;
        self
    }

    /// The language the screen speaks.
    pub fn with_lang(mut self, lang: Lang) -> Self {
        self.lang = lang;
        self
    }

    /// The operator's time zone.
    pub fn with_zone(mut self, zone: Zone) -> Self {
        self.zone = zone;
        self
    }

    /// The zone times are shown in: the operator's, or UTC after `z`.
    pub fn shown_zone(&self) -> Zone {
        if self.show_utc { Zone::UTC } else { self.zone }
    }

    /// Who decisions are recorded as; shown in the header.
    pub fn with_operator(mut self, operator: impl Into<String>) -> Self {
        self.operator = Some(operator.into());
        self
    }

    /// The database being opened, shown before the first reading arrives.
    pub fn with_database(mut self, database: impl Into<PathBuf>) -> Self {
        self.database = Some(database.into());
        self
    }

    /// Analyse as of the reading's time, not the wall clock's (`--now`).
    pub fn with_frozen_clock(mut self) -> Self {
        self.clock = Clock::frozen();
        self
    }

    /// The time the screen shows: the wall clock, or the reading's under `--now`.
    pub fn now_ms(&self) -> Option<crate::model::Millis> {
        let snap = self.snapshot.as_ref()?;
        Some(self.clock.now(snap.settings.now_ms))
    }

    /// How long a receipt has been in flight as the screen's clock stands.
    pub fn age_ms(&self, reading_age_ms: crate::model::Millis) -> crate::model::Millis {
        match self.snapshot.as_ref() {
            Some(snap) => {
                reading_age_ms + (self.clock.now(snap.settings.now_ms) - snap.settings.now_ms)
            }
            None => reading_age_ms,
        }
    }

    pub fn mode(&self) -> Mode {
        if super::screen_size::too_small(self.size.0, self.size.1) {
            return Mode::TooSmall;
        }
        if self.input.is_some() {
            return Mode::Input;
        }
        match &self.overlay {
            Some(Overlay::Help { .. }) => Mode::Help,
            Some(Overlay::Confirm(_)) => Mode::Confirm,
            Some(Overlay::Export { .. }) => Mode::Export,
            Some(Overlay::Copy { .. }) => Mode::Copy,
            None => Mode::Main {
                tab: self.tab,
                detail: self.focus == Focus::Detail,
            },
        }
    }

    pub fn read_only(&self) -> Option<&str> {
        self.snapshot.as_ref()?.read_only.as_deref()
    }

    /// The rows a tab shows; a tab out of sight may not have caught up
    /// with the filters yet (`rows_behind`): it does when it is shown.
    pub fn rows(&self, tab: Tab) -> &[usize] {
        &self.tabs[tab.index()].rows
    }

    pub fn pos(&self, tab: Tab) -> &ListPos {
        &self.tabs[tab.index()].pos
    }

    /// The selected row of the current tab, resolved.
    pub fn selected(&self) -> Option<Selected> {
        self.selected_in(self.tab)
    }

    pub fn selected_in(&self, tab: Tab) -> Option<Selected> {
        let index = *self.rows(tab).get(self.pos(tab).selected)?;
        Some(match tab {
            Tab::Duplicates => Selected::Group(index),
            Tab::Conflicts => Selected::Conflict(index),
            Tab::Stuck => Selected::Stuck(index),
            Tab::Bots => Selected::Bot(index),
            Tab::Damaged => Selected::Damaged(index),
            Tab::Receipts => Selected::Receipt(index),
            Tab::Log => Selected::Log(index),
            // The Forms tab has no rows of items (see `forms`).
            Tab::Forms => return None,
        })
    }

    /// The stable id of a row: the item id for decision items, `damaged:<id>`
    /// and `log:<id>` for the others.
    pub fn row_id(&self, tab: Tab, index: usize) -> Option<String> {
        let snap = self.snapshot.as_ref()?;
        rows::row_id(snap, tab, index)
    }

    /// The selected decision item (`dup:12`) with the receipts it covers.
    pub fn selected_item(&self) -> Option<(String, Vec<ReceiptId>)> {
        let snap = self.snapshot.as_ref()?;
        let t = &snap.triage;
        match self.selected()? {
            Selected::Group(i) => {
                let g = &t.duplicates[i];
                Some((g.item(), g.receipt_ids()))
            }
            Selected::Conflict(i) => {
                let c = &t.conflicts[i];
                Some((c.item(), rows::conflict_receipt_ids(c)))
            }
            Selected::Stuck(i) => {
                let s = &t.stuck[i];
                Some((s.item(), vec![s.receipt_id]))
            }
            Selected::Bot(i) => {
                let g = &t.bot_groups[i];
                Some((g.item(), g.receipt_ids()))
            }
            Selected::Damaged(_) | Selected::Receipt(_) | Selected::Log(_) => None,
        }
    }

    /// True when a decision stands on the selected item (`U` can reopen it).
    pub fn selection_decided(&self) -> bool {
        self.selected_item()
            .is_some_and(|(item, _)| self.review(&item).decision.is_some())
    }

    pub fn review(&self, item: &str) -> ItemReview {
        self.snapshot
            .as_ref()
            .map(|s| s.review(item))
            .unwrap_or_default()
    }

    /// Where an item stands by the review log (a decision on its way aside).
    pub fn standing(&self, item: &str) -> ScreenStatus {
        match self.snapshot.as_ref().and_then(|s| s.reviews.get(item)) {
            Some(review) => ScreenStatus::of(review),
            None => ScreenStatus::Pending,
        }
    }

    /// The receipt whose sender a row of `tab` shows: a group's first copy,
    /// a conflict's original, the stuck receipt.
    pub fn sender_of(&self, tab: Tab, row: usize) -> Option<ReceiptId> {
        let t = &self.snapshot.as_ref()?.triage;
        match tab {
            Tab::Duplicates => t.duplicates.get(row).map(|g| g.members[0].id),
            Tab::Conflicts => t.conflicts.get(row).map(|c| c.receipt_id),
            Tab::Stuck => t.stuck.get(row).map(|s| s.receipt_id),
            _ => None,
        }
    }

    /// A receipt's sender as typed, else as folded (until its payload arrives).
    pub fn visitor(&self, id: ReceiptId) -> Option<Cow<'_, Visitor>> {
        if let Some(v) = self.cache.visitors.get(&id) {
            return Some(Cow::Borrowed(v));
        }
        let view = self.snapshot.as_ref()?.receipt_view(id)?;
        Some(Cow::Owned(Visitor::from_folded(view.fields())))
    }

    /// Payloads the detail pane wants for the current selection.
    pub fn wanted_payloads(&self) -> Vec<PayloadRef> {
        let Some(snap) = self.snapshot.as_ref() else {
            return Vec::new();
        };
        let t = &snap.triage;
        match self.selected() {
            Some(Selected::Group(i)) => t.duplicates[i]
                .members
                .iter()
                .map(|m| PayloadRef::Receipt(m.id))
                .collect(),
            Some(Selected::Conflict(i)) => {
                let c = &t.conflicts[i];
                std::iter::once(PayloadRef::Receipt(c.receipt_id))
                    .chain(c.attempts.iter().map(rows::attempt_ref))
                    .collect()
            }
            Some(Selected::Stuck(i)) => vec![PayloadRef::Receipt(t.stuck[i].receipt_id)],
            // The senders its detail lists, from the first receipts.
            Some(Selected::Bot(i)) => t.bot_groups[i]
                .receipts
                .iter()
                .take(BOT_SENDERS_READ)
                .filter(|r| snap.receipt_view(r.id).is_none())
                .map(|r| PayloadRef::Receipt(r.id))
                .collect(),
            Some(Selected::Damaged(i)) if self.raw_view => {
                vec![PayloadRef::Receipt(t.damaged[i].receipt_id)]
            }
            _ => Vec::new(),
        }
    }

    pub fn payload(&self, r: PayloadRef) -> Option<&Result<String, String>> {
        self.cache.payloads.get(&r)
    }
}
