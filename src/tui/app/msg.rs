//! What flows into `update` (messages) and out of it (effects).
//!
//! `update` never does I/O: it turns a message into a new state plus effects,
//! and the runtime carries the effects out (database reads and writes, export,
//! quitting) and feeds their results back in as messages.

use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};
use ratatui::layout::{Position, Rect};

use crate::find::{Query, Scan};
use crate::model::{Millis, ReceiptId};
use crate::review::ExportFile;

use super::indexed::IndexedSnapshot;
use super::tab::Tab;

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    /// A press of the left button or a notch of the wheel (the runtime
    /// passes on nothing else the mouse does).
    Mouse(MouseEvent),
    Resize {
        width: u16,
        height: u16,
    },
    /// Progress of the background analysis (`total` when known).
    Progress {
        stage: &'static str,
        done: u64,
        total: Option<u64>,
    },
    /// A fresh reading of the database (first load, reload, or after a change).
    Loaded(IndexedSnapshot),
    /// The database could not be read; the message is one line, already safe to show.
    LoadFailed(String),
    /// Payload texts asked for with [`Effect::LoadPayloads`].
    Payloads(Vec<(PayloadRef, Result<String, String>)>),
    /// The outcome of [`Effect::Decide`] or [`Effect::DecideMany`]: a one-line message
    /// for the status bar; `Err` when nothing was recorded (e.g. someone else
    /// decided first — the runtime reloads after either).
    Recorded(Result<String, String>),
    /// [`Effect::Undo`] reaches far (a bulk decision, a bot group): nothing
    /// was undone; the operator is to be asked first.
    UndoAsks(crate::review::Wide),
    /// The outcome of [`Effect::Undo`], [`Effect::UndoConfirmed`] or
    /// [`Effect::Reopen`]: what was reopened, or why nothing was (one line,
    /// already safe to show).
    Undone(Result<Reopened, String>),
    /// The outcome of [`Effect::Export`]: the file written, or why not.
    Exported(Result<PathBuf, String>),
    /// The database changed (its change mark moved).
    DatabaseChanged,
    /// What [`Effect::Find`] found, or why it could not look (one line).
    Found {
        query: Query,
        result: Result<Scan, String>,
    },
    /// The spinner's beat while something is under way.
    Tick,
    /// The wall clock, reported every second.
    Clock(crate::model::Millis),
    /// The receipts an erasure would take, or why it cannot be (one line,
    /// already safe to show).
    ErasePlanned(Result<ErasePlanned, String>),
    /// The outcome of [`Effect::Erase`]: one line for the status bar.
    Erased(Result<String, String>),
    /// A frame was drawn: what it measured.
    Drawn(Measured),
}

/// What a frame measured as it was drawn: how far its panes can scroll (the
/// canvas works it out from the wrapped text) and where it put what the
/// mouse can point at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// How far the detail pane could scroll (`None`: not drawn).
    pub detail_max_scroll: Option<usize>,
    /// How far the help could scroll (`None`: not shown).
    pub help_max_scroll: Option<usize>,
    pub places: Places,
}

/// Where a frame put the parts a click can mean. A click is resolved
/// against these, what the operator saw, rather than a layout worked out
/// again: the tab bar's titles depend on counts, language and width, and
/// each list draws its rows its own way. Empty where nothing was drawn
/// that a click could mean (too small a screen, before the first reading).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// Each tab's title on the tab bar, as far as it was shown.
    pub tabs: Vec<TabPlace>,
    /// The list pane, its title included (on the Forms tab: the table of forms).
    pub list: Option<Rect>,
    /// The rows of the list.
    pub list_rows: Option<ShownRows>,
    /// The detail pane, its title included (on the Forms tab: the selected
    /// form's chart and pathways).
    pub detail: Option<Rect>,
    /// The Forms tab's pathways, which its detail moves through.
    pub pathway_rows: Option<ShownRows>,
}

impl Places {
    /// The tab whose title is at `at`.
    pub fn tab_at(&self, at: Position) -> Option<Tab> {
        self.tabs
            .iter()
            .find(|place| place.area.contains(at))
            .map(|place| place.tab)
    }
}

/// A tab's title on the tab bar: one line, the columns it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TabPlace {
    pub tab: Tab,
    pub area: Rect,
}

/// Rows of a list drawn one a line from the top of `area`; the top one is
/// the list's row `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShownRows {
    pub area: Rect,
    pub first: usize,
}

impl ShownRows {
    /// The list's row drawn at `at`, if one is.
    pub fn row_at(&self, at: Position) -> Option<usize> {
        self.area
            .contains(at)
            .then(|| self.first + usize::from(at.y - self.area.y))
    }
}

/// A payload the detail pane can show on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadRef {
    Receipt(ReceiptId),
    /// A `key_conflicts` row (a refused attempt).
    KeyConflict(i64),
}

/// A decision on one item as the operator made it; the runtime adds who and
/// when, and records it through the same code path as `receipt-review resolve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemDecision {
    /// `dup:12`, `conflict:40`, `stuck:77`.
    pub item: String,
    pub decision: String,
    pub receipt_ids: Vec<ReceiptId>,
    pub note: Option<String>,
    /// The latest review_log id for the item that the screen showed.
    pub expected_last: Option<i64>,
    /// The copy a `duplicate` or `correction` keeps, as the detail showed it
    /// (`None`: the decision keeps none, or the runtime gives the default).
    pub kept: Option<ReceiptId>,
}

/// A decision the operator chose to reopen (`U`), as the screen showed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reopen {
    pub item: String,
    /// The latest review_log id for the item that the screen showed: the
    /// item is reopened only while it is still the latest.
    pub expected_last: Option<i64>,
}

/// An erasure the operator asked for (`E`): whose receipts, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EraseAsk {
    pub who: crate::erase::Who,
    /// What the operator typed as the reason (the request's reference).
    pub note: String,
}

/// The receipts an erasure would take, as the worker found them, for the
/// question before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErasePlanned {
    pub ask: EraseAsk,
    /// Their numbers, ascending.
    pub receipts: Vec<ReceiptId>,
}

/// What an undo or a reopening did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reopened {
    /// One line for the status bar.
    pub text: String,
    /// The items now pending again, in the order undone.
    pub items: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Read the database again (keeps the selection by item id).
    Reload,
    LoadPayloads(Vec<PayloadRef>),
    Decide(ItemDecision),
    /// Several decisions confirmed at once (the bulk action), each guarded on
    /// its own, written as one step.
    DecideMany(Vec<ItemDecision>),
    /// Undo this operator's last step (a reopening is appended per decision);
    /// one that reaches far is asked about first ([`Msg::UndoAsks`]).
    Undo,
    /// Undo the operator's last step, which they agreed to when asked.
    UndoConfirmed(crate::review::Wide),
    /// Reopen the decision on one item, which the operator agreed to when
    /// asked, through the same guarded path as `receipt-review reopen`.
    Reopen(Reopen),
    Export(ExportFile),
    /// Put this text on the clipboard, through the terminal (OSC 52).
    Copy(String),
    /// Search every receipt (the Receipts tab), counting what arrived lately as of `now_ms`.
    Find {
        query: Query,
        now_ms: Millis,
    },
    /// Find the receipts an erasure would take ([`Msg::ErasePlanned`]).
    PlanErase(EraseAsk),
    /// Erase them, which the operator agreed to when asked.
    Erase(EraseAsk),
}
