//! `update`: one message in, the state changed, effects out. No I/O.

use crossterm::event::KeyCode;
use crossterm::event::{KeyEvent, KeyEventKind};

use crate::model::Millis;
use crate::review::ExportFile;
use crate::sanitize::inline;
use crate::t;

use super::clipboard::CopyWhat;
use super::find;
use super::keymap::{KeyCommand, Mode};
use super::layout;
use super::msg::{Effect, Msg, PayloadRef, Places};
use super::state::{App, Busy, Confirm, ConfirmAction, EXPORT_CHOICES, Focus, Input, Overlay};
use super::tab::Tab;
use super::visitors::Visitor;
use super::words;

mod copy;
mod decisions;
pub(super) mod erase;
mod export;
mod input;
mod loaded;
mod mouse;
pub(super) mod selection;
pub(super) mod status;

use decisions::{answer, bulk, choose_copy, decide, note, reopen_chosen, undo};
use export::{export, next_export_choice};
use input::{cancel_input, submit_input, sync_filter, type_char};
use loaded::{on_loaded, request_payloads};
use selection::{
    go_tab, list_rows, move_to, rearrange, refilter, refilter_all, scroll_into_view, show_item,
};
use status::{error, info, reading_status, success};

/// Senders kept before they are forgotten (and read again when shown).
const VISITORS_KEPT: usize = 20_000;

/// Applies one message to the state and returns what the runtime should do.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut effects = Vec::new();
    if moves_the_screen(&msg) {
        // A click means what the operator saw: once the tabs, rows or panes
        // may have moved, until the next frame, nothing is sure to be where
        // it was drawn.
        app.places = Places::default();
    }
    match msg {
        Msg::Key(key) => on_key(app, key, &mut effects),
        Msg::Mouse(event) => mouse::on_mouse(app, event, &mut effects),
        Msg::Drawn(measured) => {
            if let Some(detail) = measured.detail_max_scroll {
                app.detail_max_scroll = detail;
            }
            if let Some(help) = measured.help_max_scroll {
                app.help_max_scroll = help;
            }
            app.places = measured.places;
        }
        Msg::Resize { width, height } => {
            app.size = (width, height);
            for tab in Tab::ALL {
                scroll_into_view(app, tab);
            }
        }
        Msg::Progress { stage, done, total } => {
            app.progress = Some(Busy { stage, done, total });
        }
        Msg::Loaded(reading) => on_loaded(app, reading, &mut effects),
        Msg::LoadFailed(why) => {
            app.progress = None;
            if app.snapshot.is_some() {
                app.stale = true;
                let text = t!(app.lang, "status.reload_failed", why = inline(&why, 200));
                error(app, text);
            } else {
                app.load_error = Some(inline(&why, 500));
            }
        }
        Msg::Payloads(list) => {
            for (r, text) in list {
                app.cache.requested.remove(&r);
                // The sender as typed, for the lists (kept when the
                // payload itself is trimmed from the cache).
                if let (PayloadRef::Receipt(id), Ok(body)) = (r, &text)
                    && let Some(visitor) = Visitor::from_payload(body)
                {
                    if app.cache.visitors.len() >= VISITORS_KEPT {
                        app.cache.visitors.clear();
                    }
                    app.cache.visitors.insert(id, visitor);
                }
                app.cache.payloads.insert(r, text);
            }
        }
        Msg::Recorded(Ok(message)) => {
            app.awaiting.clear();
            success(app, inline(&message, 300));
        }
        Msg::Recorded(Err(message)) => {
            // Nothing was recorded: give the notes back to their items.
            for (item, note) in std::mem::take(&mut app.awaiting) {
                if let Some(note) = note {
                    app.notes.entry(item).or_insert(note);
                }
            }
            error(app, inline(&message, 300));
        }
        Msg::Undone(Ok(reopened)) => {
            success(app, inline(&reopened.text, 300));
            // The selection goes to what was reopened: now if it is shown,
            // and again once the reading that follows shows it pending.
            if let Some(item) = reopened.items.into_iter().next() {
                show_item(app, &item, false);
                app.reopened = Some(item);
            }
        }
        Msg::Undone(Err(message)) => error(app, inline(&message, 300)),
        Msg::UndoAsks(wide) => {
            app.status = None;
            let confirm = super::undo::confirm(wide, app.lang);
            app.overlay = Some(Overlay::Confirm(Box::new(confirm)));
        }
        Msg::Exported(Ok(path)) => {
            let path = inline(&path.display().to_string(), 200);
            success(app, t!(app.lang, "status.exported", path = path));
        }
        Msg::Exported(Err(why)) => {
            let text = t!(app.lang, "status.export_failed", why = inline(&why, 200));
            error(app, text)
        }
        Msg::DatabaseChanged => {
            if app.snapshot.is_some() {
                reading_status(app, t!(app.lang, "status.database_changed").into());
            }
            effects.push(Effect::Reload);
        }
        Msg::Found { query, result } => find::update::found(app, query, result),
        Msg::ErasePlanned(planned) => erase::planned(app, planned),
        Msg::Erased(outcome) => erase::erased(app, outcome),
        Msg::Tick => app.ticks = app.ticks.wrapping_add(1),
        Msg::Clock(wall_ms) => on_clock(app, wall_ms, &mut effects),
    }
    // The Forms view is made when it is looked at (the tab bar's count
    // of forms is that of its last making).
    if app.tab == Tab::Forms {
        super::forms::update::refresh(app);
    }
    request_payloads(app, &mut effects);
    effects
}

/// Whether a message can move what a click points at: the tabs, the rows or
/// the panes. The mouse forgets on its own what its clicks and turns move.
fn moves_the_screen(msg: &Msg) -> bool {
    !matches!(
        msg,
        Msg::Mouse(_)
            | Msg::Drawn(_)
            | Msg::Progress { .. }
            | Msg::Payloads(_)
            | Msg::Tick
            | Msg::Clock(_)
    )
}

/// The wall clock moved: ages, the stuck receipts and expired messages.
fn on_clock(app: &mut App, wall_ms: Millis, effects: &mut Vec<Effect>) {
    app.clock.wall_ms = Some(wall_ms);
    if app.status.as_ref().is_some_and(|s| s.expired(wall_ms)) {
        app.status = None;
    }
    let Some(snap) = app.snapshot.as_ref() else {
        return;
    };
    let next_stuck = snap.triage.next_stuck_ms;
    // A reading under way will see the new time; asking again would only queue.
    if app.progress.is_none() && app.clock.reading_due(next_stuck, snap.settings.now_ms) {
        app.clock.asked_for = next_stuck;
        effects.push(Effect::Reload);
    }
}

fn on_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    if key.kind == KeyEventKind::Release {
        return;
    }
    let Some(command) = app.keymap.lookup(app.mode(), &key) else {
        return;
    };
    // The commands that take the character typed (the keymap says where).
    match (command, key.code) {
        (KeyCommand::Type, KeyCode::Char(c)) => type_char(app, c),
        (KeyCommand::FindTyped, KeyCode::Char(c)) => find::update::start(app, Some(c)),
        _ => run(app, command, effects),
    }
}

fn run(app: &mut App, command: KeyCommand, effects: &mut Vec<Effect>) {
    if app.tab == Tab::Forms
        && matches!(app.mode(), Mode::Main { .. })
        && super::forms::update::run(app, command, effects)
    {
        return;
    }
    match command {
        KeyCommand::ForceQuit => effects.push(Effect::Quit),
        KeyCommand::Quit => quit(app, effects),
        KeyCommand::Help => app.overlay = Some(Overlay::Help { scroll: 0 }),
        KeyCommand::Close => {
            if matches!(app.overlay, Some(Overlay::Confirm(_))) {
                info(app, t!(app.lang, "status.cancelled").into());
            }
            app.overlay = None;
        }
        KeyCommand::Reload => {
            app.cache.payloads.clear();
            app.cache.requested.clear();
            reading_status(app, t!(app.lang, "status.reading_again").into());
            effects.push(Effect::Reload);
        }
        KeyCommand::Export => {
            app.overlay = Some(Overlay::Export {
                choice: ExportFile::CSV,
            })
        }
        KeyCommand::ChooseCsv => export(app, ExportFile::CSV, effects),
        KeyCommand::ChooseExcelCsv => export(app, ExportFile::EXCEL_CSV, effects),
        KeyCommand::ChooseJsonl => export(app, ExportFile::JSONL, effects),
        KeyCommand::Undo => undo(app, effects),
        KeyCommand::ReopenChosen => reopen_chosen(app),
        KeyCommand::Note => note(app),
        KeyCommand::CopyEmail => copy::copy_email(app, effects),
        KeyCommand::CopyMenu => copy::open_menu(app),
        KeyCommand::CopyPick(what) => copy::copy(app, what, effects),
        KeyCommand::RawToggle => {
            app.raw_view = !app.raw_view;
            app.detail_scroll = 0;
        }
        KeyCommand::Filter => {
            app.input = Some(Input::Filter {
                text: app.filter.clone(),
            })
        }
        KeyCommand::NextTab => go_tab(app, app.tab.next()),
        KeyCommand::PrevTab => go_tab(app, app.tab.prev()),
        KeyCommand::GoTab(tab) => go_tab(app, tab),
        KeyCommand::Up | KeyCommand::Down | KeyCommand::Top | KeyCommand::Bottom => {
            move_by(app, command)
        }
        KeyCommand::PageUp | KeyCommand::PageDown => move_by(app, command),
        KeyCommand::EnterDetail => {
            if app.selected().is_some() {
                app.focus = Focus::Detail;
                app.detail_scroll = 0;
                scroll_into_view(app, app.tab);
            }
        }
        KeyCommand::Back => back(app),
        KeyCommand::CycleClass => {
            app.class_filter = app.class_filter.next();
            refilter(app, Tab::Duplicates);
            let class = app.class_filter.label(app.lang);
            info(app, t!(app.lang, "status.class_shown", class = class));
        }
        KeyCommand::ToggleOrder => {
            app.list_view.newest_first = !app.list_view.newest_first;
            rearrange(app);
            let order = words::order(app.list_view.newest_first, app.lang);
            info(app, t!(app.lang, "status.order", order = order));
        }
        KeyCommand::TogglePending => {
            app.list_view.pending_only = !app.list_view.pending_only;
            rearrange(app);
            let text = words::pending_only_status(app.list_view.pending_only, app.lang);
            info(app, text.into());
        }
        KeyCommand::Decide(decision) => decide(app, decision, effects),
        // The Forms tab's own (see `forms::update`).
        KeyCommand::CyclePeriod | KeyCommand::OpenExample => {}
        KeyCommand::BulkDuplicate => bulk(app),
        KeyCommand::PrevCopy => choose_copy(app, -1),
        KeyCommand::NextCopy => choose_copy(app, 1),
        KeyCommand::FindQuery => find::update::start(app, None),
        // The character comes with the key (see `on_key`).
        KeyCommand::Type | KeyCommand::FindTyped => {}
        KeyCommand::InputOlder => find::update::recall(app, true),
        KeyCommand::InputNewer => find::update::recall(app, false),
        KeyCommand::JumpToItem => jump(app),
        KeyCommand::EraseVisitor => erase::start(app),
        KeyCommand::ToggleUtc => {
            app.show_utc = !app.show_utc;
            let zone = app.shown_zone();
            info(app, t!(app.lang, "status.times_in", zone = zone.name()));
        }
        KeyCommand::Yes => answer(app, true, effects),
        KeyCommand::No => answer(app, false, effects),
        KeyCommand::Accept => match &app.overlay {
            Some(Overlay::Confirm(c)) => {
                let yes = c.yes_focused;
                answer(app, yes, effects)
            }
            Some(Overlay::Export { choice }) => {
                let choice = *choice;
                export(app, choice, effects)
            }
            Some(Overlay::Copy { choice }) => {
                let choice = *choice;
                copy::copy(app, choice, effects)
            }
            _ => {}
        },
        KeyCommand::ToggleChoice => match &mut app.overlay {
            Some(Overlay::Confirm(c)) => c.yes_focused = !c.yes_focused,
            Some(Overlay::Export { choice }) => *choice = next_export_choice(*choice, 1),
            Some(Overlay::Copy { choice }) => *choice = copy::next_choice(*choice, 1),
            _ => {}
        },
        KeyCommand::PreviousChoice => match &mut app.overlay {
            Some(Overlay::Confirm(c)) => c.yes_focused = !c.yes_focused,
            Some(Overlay::Export { choice }) => {
                *choice = next_export_choice(*choice, EXPORT_CHOICES.len() - 1)
            }
            Some(Overlay::Copy { choice }) => {
                *choice = copy::next_choice(*choice, CopyWhat::ALL.len() - 1)
            }
            _ => {}
        },
        KeyCommand::InputSubmit => submit_input(app, effects),
        KeyCommand::InputCancel => cancel_input(app),
        KeyCommand::InputBackspace => {
            if let Some(input) = app.input.as_mut() {
                input.text_mut().pop();
                sync_filter(app);
            }
        }
        KeyCommand::InputClear => {
            if let Some(input) = app.input.as_mut() {
                input.text_mut().clear();
                sync_filter(app);
            }
        }
    }
}

fn quit(app: &mut App, effects: &mut Vec<Effect>) {
    if app.notes.is_empty() {
        effects.push(Effect::Quit);
        return;
    }
    let n = app.notes.len();
    let lang = app.lang;
    let lost = if n == 1 {
        t!(lang, "status.quit.notes_lost_one", n = n)
    } else {
        t!(lang, "status.quit.notes_lost_many", n = n)
    };
    app.overlay = Some(Overlay::Confirm(Box::new(Confirm {
        title: t!(lang, "status.quit.title").into(),
        lines: vec![lost],
        yes_label: t!(lang, "status.quit.yes").into(),
        no_label: t!(lang, "status.quit.no").into(),
        yes_focused: false,
        action: ConfirmAction::Quit,
    })));
}

fn move_by(app: &mut App, command: KeyCommand) {
    if matches!(app.overlay, Some(Overlay::Help { .. })) {
        scroll_help(app, command);
    } else if app.focus == Focus::Detail {
        scroll_detail(app, command);
    } else {
        move_in_list(app, command);
    }
}

fn scroll_help(app: &mut App, command: KeyCommand) {
    let page = usize::from(app.size.1.saturating_sub(6)).max(1);
    let max = app.help_max_scroll;
    let Some(Overlay::Help { scroll }) = &mut app.overlay else {
        return;
    };
    *scroll = (*scroll).min(max);
    *scroll = match command {
        KeyCommand::Down => scroll.saturating_add(1).min(max),
        KeyCommand::Up => scroll.saturating_sub(1),
        KeyCommand::PageDown => scroll.saturating_add(page).min(max),
        KeyCommand::PageUp => scroll.saturating_sub(page),
        _ => *scroll,
    };
}

fn scroll_detail(app: &mut App, command: KeyCommand) {
    let page = layout::detail_rows(app.size, app.read_only().is_some(), app.focus);
    let max = app.detail_max_scroll;
    let s = app.detail_scroll.min(max);
    app.detail_scroll = match command {
        KeyCommand::Down => s.saturating_add(1).min(max),
        KeyCommand::Up => s.saturating_sub(1),
        KeyCommand::Top => 0,
        KeyCommand::Bottom => max,
        KeyCommand::PageDown => s.saturating_add(page.saturating_sub(1).max(1)).min(max),
        KeyCommand::PageUp => s.saturating_sub(page.saturating_sub(1).max(1)),
        _ => s,
    };
}

/// Moves the selection of the current tab's list (not the Forms tab's).
fn move_in_list(app: &mut App, command: KeyCommand) {
    let tab = app.tab;
    let len = app.rows(tab).len();
    if len == 0 {
        return;
    }
    let page = list_rows(app);
    let current = app.pos(tab).selected;
    move_to(app, tab, command.moved(current, len, page));
}

fn back(app: &mut App) {
    if app.focus == Focus::Detail {
        app.focus = Focus::List;
        scroll_into_view(app, app.tab);
    } else if !app.filter.is_empty() {
        app.filter.clear();
        refilter_all(app);
        info(app, t!(app.lang, "status.filter_cleared").into());
    }
}

/// `J` on the Receipts tab: to the selected receipt's item, on its tab,
/// clearing the filters when they hide it.
fn jump(app: &mut App) {
    let Some((tab, item)) = find::update::jump_target(app) else {
        return info(app, t!(app.lang, "status.jump_nowhere").into());
    };
    if show_item(app, &item, true) {
        let title = tab.title(app.lang);
        info(app, t!(app.lang, "status.jumped", item = item, tab = title));
    } else {
        error(app, t!(app.lang, "status.item_gone", item = item));
    }
}
