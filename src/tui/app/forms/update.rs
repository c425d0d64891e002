//! The Forms tab's keys: moving through the forms (list focus) or the
//! selected form's pathways (detail focus), cycling the period, and opening
//! a pathway's example item on its own tab.

use crate::forms::Pathway;
use crate::review::Kind;
use crate::t;

use super::super::keymap::KeyCommand;
use super::super::layout;
use super::super::msg::Effect;
use super::super::state::{App, Focus};
use super::super::tab::{ClassFilter, Tab};
use super::super::update::selection::{catch_up, go_tab, refilter_all, select};
use super::super::update::status::info;

/// Handles a command on the Forms tab; `false` leaves it to the other tabs'
/// handling (quitting, the filter, switching tabs...).
pub fn run(app: &mut App, command: KeyCommand, _effects: &mut [Effect]) -> bool {
    match command {
        KeyCommand::CyclePeriod => {
            app.forms.period = app.forms.period.next();
            refresh(app);
            let shown = app.forms.rows().len();
            let period = app.forms.period.label_in(app.lang);
            let text = if shown == 1 {
                t!(
                    app.lang,
                    "status.forms.period_one",
                    period = period,
                    n = shown
                )
            } else {
                t!(
                    app.lang,
                    "status.forms.period_many",
                    period = period,
                    n = shown
                )
            };
            info(app, text);
        }
        KeyCommand::Up
        | KeyCommand::Down
        | KeyCommand::Top
        | KeyCommand::Bottom
        | KeyCommand::PageUp
        | KeyCommand::PageDown => move_by(app, command),
        KeyCommand::EnterDetail => {
            if app.forms.selected_form().is_some() {
                app.focus = Focus::Detail;
            }
        }
        KeyCommand::Back if app.focus == Focus::Detail => app.focus = Focus::List,
        KeyCommand::OpenExample => open_example(app),
        _ => return false,
    }
    true
}

/// Makes the view again for the current reading, period and filter.
pub fn refresh(app: &mut App) {
    let snapshot = app.snapshot.clone();
    app.forms.refresh(snapshot.as_ref(), &app.filter);
}

fn move_by(app: &mut App, command: KeyCommand) {
    match app.focus {
        Focus::List => move_form(app, command),
        Focus::Detail => move_pathway(app, command),
    }
}

/// Moves through the forms, whichever pane has the focus.
pub fn move_form(app: &mut App, command: KeyCommand) {
    let len = app.forms.rows().len();
    if len == 0 {
        return;
    }
    let next = command.moved(app.forms.selected, len, page(app));
    select_form(app, next);
}

/// Selects the form shown at `index`; its first pathway with it.
pub fn select_form(app: &mut App, index: usize) {
    let index = index.min(app.forms.rows().len().saturating_sub(1));
    if index != app.forms.selected {
        app.forms.selected = index;
        app.forms.pathway = 0;
    }
}

/// Moves through the selected form's pathways, whichever pane has the focus.
pub fn move_pathway(app: &mut App, command: KeyCommand) {
    let len = app.forms.selected_form().map_or(0, |r| r.pathways.len());
    if len == 0 {
        return;
    }
    app.forms.pathway = command.moved(app.forms.pathway, len, page(app));
}

fn page(app: &App) -> usize {
    layout::list_rows(app.size, app.read_only().is_some(), Focus::List)
}

/// Opens the selected pathway's example item on its tab (the filters that
/// hide it are cleared first), or says which receipt shows it when no item
/// does.
fn open_example(app: &mut App) {
    let Some(finding) = app.forms.selected_finding().cloned() else {
        return info(app, t!(app.lang, "status.forms.no_pathway").into());
    };
    let lang = app.lang;
    let Some(item) = finding.example.clone() else {
        let what = match (finding.pathway, finding.example_receipt) {
            (Pathway::Bots, Some(id)) => t!(lang, "status.forms.bot_receipt", id = id),
            (Pathway::RetriesAbsorbed, Some(id)) if finding.absorbed > 0 => {
                t!(lang, "status.forms.retries_and_copies", id = id)
            }
            (Pathway::RetriesAbsorbed, Some(id)) => t!(lang, "status.forms.retries", id = id),
            _ => t!(
                lang,
                "status.forms.no_example",
                pathway = finding.pathway.title_in(lang)
            ),
        };
        return info(app, what);
    };
    let Some((tab, index)) = item_place(app, &item) else {
        return info(app, t!(lang, "status.forms.gone", item = item));
    };
    catch_up(app, tab);
    let row = |app: &App| app.rows(tab).iter().position(|&r| r == index);
    let at = match row(app) {
        Some(at) => at,
        None => {
            // Hidden by a filter: the filters go, the item shows.
            app.filter.clear();
            app.class_filter = ClassFilter::All;
            refilter_all(app);
            catch_up(app, tab);
            refresh(app);
            match row(app) {
                Some(at) => at,
                None => return info(app, t!(lang, "status.forms.hidden", item = item)),
            }
        }
    };
    go_tab(app, tab);
    select(app, tab, at);
    let text = t!(
        lang,
        "status.forms.example",
        item = item,
        pathway = finding.pathway.title_in(lang),
        key = Tab::Forms.index() + 1,
        tab = Tab::Forms.title(lang)
    );
    info(app, text);
}

/// The tab an item is on, and its index in the reading's list there.
fn item_place(app: &App, item: &str) -> Option<(Tab, usize)> {
    let snap = app.snapshot.as_ref()?;
    let t = &snap.triage;
    let (kind, id) = crate::review::parse_item(item).ok()?;
    match kind {
        Kind::Duplicate => t
            .duplicates
            .iter()
            .position(|g| g.members[0].id == id)
            .map(|i| (Tab::Duplicates, i)),
        Kind::Conflict => t
            .conflicts
            .iter()
            .position(|c| c.receipt_id == id)
            .map(|i| (Tab::Conflicts, i)),
        Kind::Stuck => t
            .stuck
            .iter()
            .position(|s| s.receipt_id == id)
            .map(|i| (Tab::Stuck, i)),
        Kind::Bot => t
            .bot_groups
            .iter()
            .position(|g| g.receipts[0].id == id)
            .map(|i| (Tab::Bots, i)),
        Kind::Erasure => None,
    }
}
