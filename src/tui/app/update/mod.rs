//! `update`: one message in, the state changed, effects out. No I/O.

use crossterm::event::KeyCode;
use crossterm::event::{KeyEvent, KeyEventKind};

use crate::model::Millis;
use crate::review::ExportFile;
use crate::sanitize::inline;
use crate::t;

use super::decision::{self, Decision};
use super::find;
use super::indexed::IndexedSnapshot;
use super::keymap::{self, KeyCommand, Mode};
use super::layout;
use super::msg::{Effect, ItemDecision, Msg, PayloadRef};
use super::state::{
    App, Busy, Confirm, ConfirmAction, EXPORT_CHOICES, Focus, Input, Lasts, Overlay, TabState,
    export_label,
};
use super::tab::{ClassFilter, Tab};
use super::visitors::Visitor;
use super::words;

pub(super) mod selection;
pub(super) mod status;

use selection::{
    catch_up, find_row, first_pending, follow, go_tab, is_pending_row, list_rows, rearrange,
    recompute_rows, refilter, refilter_all, row_key_at, scroll_into_view, select, selected_key,
};
use status::{error, info, reading_status, success, working};

/// How long a typed filter or note may grow.
const MAX_INPUT: usize = 500;
/// Payload texts kept before the cache is trimmed to what is on screen.
const PAYLOAD_CACHE: usize = 512;
/// Senders kept before they are forgotten (and read again when shown).
const VISITORS_KEPT: usize = 20_000;
/// Marks of groups new or grown kept before they are all dropped.
const FRESH_KEPT: usize = 10_000;

/// Applies one message to the state and returns what the runtime should do.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut effects = Vec::new();
    match msg {
        Msg::Key(key) => on_key(app, key, &mut effects),
        Msg::Drawn(limits) => {
            if let Some(detail) = limits.detail {
                app.detail_max_scroll = detail;
            }
            if let Some(help) = limits.help {
                app.help_max_scroll = help;
            }
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
        Msg::Loaded(reading) => on_loaded(app, reading),
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

/// Asks for the payloads the selection shows, and those of the senders the
/// list shows, that are neither here nor on their way.
fn request_payloads(app: &mut App, effects: &mut Vec<Effect>) {
    let mut wanted = app.wanted_payloads();
    for id in shown_senders(app) {
        let r = PayloadRef::Receipt(id);
        if !app.cache.visitors.contains_key(&id) && !wanted.contains(&r) {
            wanted.push(r);
        }
    }
    let missing: Vec<_> = wanted
        .iter()
        .copied()
        .filter(|r| !app.cache.payloads.contains_key(r) && !app.cache.requested.contains(r))
        .collect();
    if missing.is_empty() {
        return;
    }
    if app.cache.payloads.len() > PAYLOAD_CACHE {
        app.cache.payloads.retain(|r, _| wanted.contains(r));
    }
    app.cache.requested.extend(missing.iter().copied());
    effects.push(Effect::LoadPayloads(missing));
}

/// The receipts whose senders the list in sight shows.
fn shown_senders(app: &App) -> Vec<crate::model::ReceiptId> {
    let tab = app.tab;
    if !matches!(tab, Tab::Duplicates | Tab::Conflicts | Tab::Stuck) || app.overlay.is_some() {
        return Vec::new();
    }
    let pos = app.pos(tab);
    app.rows(tab)
        .iter()
        .skip(pos.offset)
        .take(list_rows(app))
        .filter_map(|&row| app.sender_of(tab, row))
        .collect()
}

fn on_loaded(app: &mut App, reading: IndexedSnapshot) {
    let first = app.snapshot.is_none();
    if !first {
        if app.fresh.len() + reading.fresh.len() > FRESH_KEPT {
            app.fresh.clear();
        }
        for &(key, news) in &reading.fresh {
            let merged = match app.fresh.get(&key) {
                Some(&before) => before.then(news),
                None => news,
            };
            app.fresh.insert(key, merged);
        }
        // A mark whose group is gone (renamed by an earlier copy, or no
        // longer a group) goes with it.
        for key in &reading.gone {
            app.fresh.remove(key);
        }
    }
    let receipts_pending = reading.snapshot.receipts_pending;
    let before: Vec<(Option<i64>, usize)> = Tab::ALL
        .iter()
        .map(|&tab| (selected_key(app, tab), app.pos(tab).selected))
        .collect();
    app.counts = reading.counts;
    app.snapshot = Some(reading.snapshot);
    // The rows shown, and what they answer, with the index they came from.
    let search_before = std::mem::replace(&mut app.search, reading.search);
    let matched_before: Vec<TabState> = app
        .tabs
        .iter_mut()
        .map(|t| TabState {
            matched: std::mem::take(&mut t.matched),
            matched_for: t.matched_for.take(),
            ..TabState::default()
        })
        .collect();
    // The receipts follow an analysis handed over first: until the worker
    // counts them, the header says they are coming.
    app.progress = receipts_pending.then_some(Busy {
        stage: words::stage(crate::reading::ReadingStage::ItemsReceipts, app.lang),
        done: 0,
        total: None,
    });
    app.load_error = None;
    app.stale = false;
    if !receipts_pending
        && app
            .status
            .as_ref()
            .is_some_and(|s| s.lasts == Lasts::UntilRead)
    {
        app.status = None;
    }
    // The hits of the last search, with this reading's items.
    find::update::join(app);
    for t in &mut app.tabs {
        t.behind = false;
    }
    for tab in Tab::ALL {
        let i = tab.index();
        let shown = (tab != Tab::Log)
            .then_some(&matched_before[i].matched_for)
            .and_then(Option::as_ref)
            .map(|answered| {
                (
                    answered,
                    search_before.tab(tab),
                    matched_before[i].matched.as_slice(),
                )
            });
        recompute_rows(app, tab, shown);
        let (key, index) = before[tab.index()];
        let selected = if first {
            first_pending(app, tab).unwrap_or(0)
        } else if tab != app.tab && index == 0 && app.list_view.newest_first {
            // A tab out of sight that was on its newest row opens on the
            // newest again, with what arrived since; the tab in sight keeps
            // its item under the operator's eyes.
            0
        } else {
            match key.and_then(|key| find_row(app, tab, key).or_else(|| follow(app, tab, key))) {
                Some(row) => row,
                None => index,
            }
        };
        select(app, tab, selected);
    }
    if app.selected().is_none() {
        app.focus = Focus::List;
    }
    if selected_key(app, app.tab) != before[app.tab.index()].0 {
        app.detail_scroll = 0;
    }
    // Anything asked for and not answered is asked again if still wanted.
    app.cache.requested.clear();
    if let Some(item) = app.reopened.take() {
        show_item(app, &item, true);
    }
}

fn on_key(app: &mut App, key: KeyEvent, effects: &mut Vec<Effect>) {
    if key.kind == KeyEventKind::Release {
        return;
    }
    let Some(command) = keymap::lookup(app.mode(), &key) else {
        return;
    };
    // The commands that take the character typed (the keymap says where).
    match (command, key.code) {
        (KeyCommand::Type, KeyCode::Char(c)) => type_char(app, c),
        (KeyCommand::FindTyped, KeyCode::Char(c)) => find::update::start(app, Some(c)),
        _ => run(app, command, effects),
    }
}

fn type_char(app: &mut App, c: char) {
    let Some(input) = app.input.as_mut() else {
        return;
    };
    let text = input.text_mut();
    if text.chars().count() >= MAX_INPUT || c.is_control() {
        return;
    }
    text.push(c);
    sync_filter(app);
}

/// While the filter is being typed it applies at once.
fn sync_filter(app: &mut App) {
    if let Some(Input::Filter { text }) = &app.input {
        if *text == app.filter {
            return;
        }
        app.filter = text.clone();
        refilter_all(app);
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
            _ => {}
        },
        KeyCommand::ToggleChoice => match &mut app.overlay {
            Some(Overlay::Confirm(c)) => c.yes_focused = !c.yes_focused,
            Some(Overlay::Export { choice }) => *choice = next_export_choice(*choice, 1),
            _ => {}
        },
        KeyCommand::PreviousChoice => match &mut app.overlay {
            Some(Overlay::Confirm(c)) => c.yes_focused = !c.yes_focused,
            Some(Overlay::Export { choice }) => {
                *choice = next_export_choice(*choice, EXPORT_CHOICES.len() - 1)
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
    if let Some(Overlay::Help { scroll }) = &mut app.overlay {
        let page = usize::from(app.size.1.saturating_sub(6)).max(1);
        let max = app.help_max_scroll;
        *scroll = (*scroll).min(max);
        *scroll = match command {
            KeyCommand::Down => scroll.saturating_add(1).min(max),
            KeyCommand::Up => scroll.saturating_sub(1),
            KeyCommand::PageDown => scroll.saturating_add(page).min(max),
            KeyCommand::PageUp => scroll.saturating_sub(page),
            _ => *scroll,
        };
        return;
    }
    if app.focus == Focus::Detail {
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
        return;
    }
    let tab = app.tab;
    let len = app.rows(tab).len();
    if len == 0 {
        return;
    }
    let page = list_rows(app);
    let current = app.pos(tab).selected;
    let seen = row_key_at(app, tab, current);
    select(app, tab, command.moved(current, len, page));
    // Moving past a group's news marks it seen.
    if app.pos(tab).selected != current
        && tab == Tab::Duplicates
        && let Some(key) = seen
    {
        app.fresh.remove(&key);
    }
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

fn submit_input(app: &mut App, effects: &mut Vec<Effect>) {
    match app.input.take() {
        Some(Input::Find { text, .. }) => {
            if let Some(effect) = find::update::submit(app, text) {
                effects.push(effect);
            }
        }
        Some(Input::Filter { text }) => {
            app.filter = text;
            refilter_all(app);
            if !app.filter.is_empty() {
                let shown = app.rows(app.tab).len();
                let filter = inline(&app.filter, 40);
                let text = if shown == 1 {
                    t!(
                        app.lang,
                        "status.filter_rows_one",
                        filter = filter,
                        n = shown
                    )
                } else {
                    t!(
                        app.lang,
                        "status.filter_rows_many",
                        filter = filter,
                        n = shown
                    )
                };
                info(app, text);
            }
        }
        Some(Input::Note { item, text }) => {
            let text = text.trim().to_string();
            if text.is_empty() {
                let had = app.notes.remove(&item).is_some();
                if had {
                    info(app, t!(app.lang, "status.note_removed", item = item));
                }
            } else {
                app.notes.insert(item.clone(), text);
                info(app, t!(app.lang, "status.note_kept", item = item));
            }
        }
        None => {}
    }
}

fn cancel_input(app: &mut App) {
    match app.input.take() {
        Some(Input::Filter { .. }) => {
            app.filter.clear();
            refilter_all(app);
        }
        Some(Input::Note { .. }) | Some(Input::Find { .. }) | None => {}
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

/// Goes to `item`'s tab and selects it; `clear`: the filters are cleared
/// when they hide it. False when the reading does not show it.
fn show_item(app: &mut App, item: &str, clear: bool) -> bool {
    let Ok((kind, key)) = crate::review::parse_item(item) else {
        return false;
    };
    let tab = decision::tab_of_kind(kind);
    catch_up(app, tab);
    // An item's number is its row's key: compared, not formatted, per row.
    let at = |app: &App| find_row(app, tab, key);
    let mut row = at(app);
    let filtered = !app.filter.is_empty() || app.class_filter != ClassFilter::All;
    if row.is_none() && clear && filtered {
        app.filter.clear();
        app.class_filter = ClassFilter::All;
        refilter_all(app);
        catch_up(app, tab);
        row = at(app);
    }
    let Some(row) = row else {
        return false;
    };
    go_tab(app, tab);
    select(app, tab, row);
    true
}

/// `U`: asks to reopen the decision on the selected item, whoever made it.
fn reopen_chosen(app: &mut App) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some((item, receipt_ids)) = app.selected_item() else {
        return info(app, t!(app.lang, "status.nothing_selected").into());
    };
    if app.awaiting.contains_key(&item) {
        return info(app, t!(app.lang, "status.being_recorded", item = item));
    }
    let review = app.review(&item);
    let receipt = receipt_ids.first().copied();
    match super::undo::confirm_reopen(&item, &review, receipt, app.shown_zone(), app.lang) {
        Some(confirm) => {
            app.status = None;
            app.overlay = Some(Overlay::Confirm(Box::new(confirm)));
        }
        None => {
            let item = inline(&item, 40);
            info(app, t!(app.lang, "status.reopen.nothing", item = item));
        }
    }
}

/// Why decisions cannot be made right now, if they cannot.
fn decisions_off(app: &App) -> Option<String> {
    if app.snapshot.is_none() {
        return Some(t!(app.lang, "status.still_reading").into());
    }
    app.read_only()
        .map(|why| t!(app.lang, "status.read_only", reason = inline(why, 200)))
}

fn note(app: &mut App) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some((item, _)) = app.selected_item() else {
        return info(app, t!(app.lang, "status.note_needs_item").into());
    };
    let text = app.notes.get(&item).cloned().unwrap_or_default();
    app.input = Some(Input::Note { item, text });
}

fn decide(app: &mut App, decision: Decision, effects: &mut Vec<Effect>) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    if !decision::fits(app.tab, decision) {
        return;
    }
    let Some((item, receipt_ids)) = app.selected_item() else {
        return info(app, t!(app.lang, "status.nothing_selected").into());
    };
    if app.awaiting.contains_key(&item) {
        return info(app, t!(app.lang, "status.being_recorded", item = item));
    }
    let review = app.review(&item);
    if app.standing(&item).is_resolved() {
        let by = review.operator.as_deref().map(|op| inline(op, 40));
        let at = review
            .decided_at_ms
            .map(|at| app.shown_zone().format_minutes(at));
        let text = words::already_resolved(
            &item,
            review.decision.as_deref(),
            by.as_deref(),
            at.as_deref(),
            app.lang,
        );
        return info(app, text);
    }
    let kept = match (app.selected(), app.snapshot.as_ref()) {
        (Some(super::Selected::Group(i)), Some(snap)) => {
            super::keep::kept_for(app, snap, &snap.triage.duplicates[i], decision)
        }
        _ => None,
    };
    let request = ItemDecision {
        item: item.clone(),
        decision: decision.as_str().to_string(),
        receipt_ids,
        note: app.notes.get(&item).cloned(),
        expected_last: review.last_log_id,
        kept,
    };
    if let (Decision::Spam, Some(super::Selected::Bot(i))) = (decision, app.selected()) {
        let g = app
            .snapshot
            .as_ref()
            .map(|s| s.triage.bot_groups[i].clone());
        if let Some(g) = g {
            let confirm = super::bots::confirm_spam(request, &g, app.lang);
            app.overlay = Some(Overlay::Confirm(Box::new(confirm)));
            return;
        }
    }
    if decision::changes_state(decision) {
        let id = request.receipt_ids.first().copied().unwrap_or_default();
        let lang = app.lang;
        let mut lines = words::confirm_state_lines(id, decision, lang);
        if let Some(note) = &request.note {
            lines.push(words::confirm_note(&inline(note, 200), lang));
        }
        app.overlay = Some(Overlay::Confirm(Box::new(Confirm {
            title: words::confirm_state_title(&item, decision, lang),
            lines,
            yes_label: words::confirm_state_yes(decision, lang),
            no_label: words::confirm_no(lang),
            yes_focused: false,
            action: ConfirmAction::Decide(request),
        })));
        return;
    }
    send(app, vec![request], false, effects);
}

/// Hands decisions to the runtime (the bulk action as one `DecideMany`, even
/// of one), and moves on to the next pending row.
fn send(app: &mut App, requests: Vec<ItemDecision>, bulk: bool, effects: &mut Vec<Effect>) {
    for r in &requests {
        app.notes.remove(&r.item);
        app.keep.remove(&r.item);
        app.awaiting.insert(r.item.clone(), r.note.clone());
    }
    advance_to_pending(app);
    if bulk {
        let n = requests.len();
        info(app, words::recording_many(n, Decision::Duplicate, app.lang));
        effects.push(Effect::DecideMany(requests));
    } else {
        for r in requests {
            let text = match Decision::parse(&r.decision) {
                Some(d) => words::recording(&r.item, d, app.lang),
                None => t!(app.lang, "status.recording_item", item = r.item),
            };
            working(app, text);
            effects.push(Effect::Decide(r));
        }
    }
}

/// After a decision: the next pending row below, else above; else stay.
fn advance_to_pending(app: &mut App) {
    let tab = app.tab;
    let current = app.pos(tab).selected;
    let rows = app.rows(tab);
    let next = (current + 1..rows.len())
        .chain((0..current).rev())
        .find(|&i| is_pending_row(app, tab, rows[i]));
    if let Some(next) = next {
        select(app, tab, next);
    }
}

fn bulk(app: &mut App) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    let Some(snap) = app.snapshot.as_ref() else {
        return;
    };
    let requests: Vec<ItemDecision> = app
        .rows(Tab::Duplicates)
        .iter()
        .map(|&i| &snap.triage.duplicates[i])
        .filter(|g| g.is_exact())
        .filter_map(|g| {
            let item = g.item();
            let review = snap.review(&item);
            if review.resolved || app.awaiting.contains_key(&item) {
                return None;
            }
            Some(ItemDecision {
                note: app.notes.get(&item).cloned(),
                item,
                decision: Decision::Duplicate.as_str().to_string(),
                receipt_ids: g.receipt_ids(),
                expected_last: review.last_log_id,
                kept: super::keep::kept_for(app, snap, g, Decision::Duplicate),
            })
        })
        .collect();
    if requests.is_empty() {
        return info(app, t!(app.lang, "status.bulk.none").into());
    }
    let lang = app.lang;
    let n = requests.len();
    let receipts: usize = requests.iter().map(|r| r.receipt_ids.len()).sum();
    let mut view = t!(
        lang,
        "status.bulk.class",
        class = app.class_filter.label(lang)
    );
    if !app.filter.is_empty() {
        let filter = inline(&app.filter, 40);
        view.push_str(&t!(lang, "status.bulk.filter", filter = filter));
    }
    let (title, shown) = if n == 1 {
        (
            t!(lang, "status.bulk.title_one", n = n),
            t!(
                lang,
                "status.bulk.shown_one",
                n = n,
                receipts = receipts,
                view = view
            ),
        )
    } else {
        (
            t!(lang, "status.bulk.title_many", n = n),
            t!(
                lang,
                "status.bulk.shown_many",
                n = n,
                receipts = receipts,
                view = view
            ),
        )
    };
    app.overlay = Some(Overlay::Confirm(Box::new(Confirm {
        title,
        lines: vec![
            shown,
            t!(lang, "status.bulk.near_left").into(),
            t!(lang, "status.bulk.keeps").into(),
        ],
        yes_label: t!(lang, "status.bulk.yes", n = n),
        no_label: words::confirm_no(lang),
        yes_focused: false,
        action: ConfirmAction::DecideMany(requests),
    })));
}

fn answer(app: &mut App, yes: bool, effects: &mut Vec<Effect>) {
    let Some(Overlay::Confirm(confirm)) = app.overlay.take() else {
        return;
    };
    if !yes {
        return info(app, t!(app.lang, "status.cancelled").into());
    }
    match confirm.action {
        ConfirmAction::Decide(request) => send(app, vec![request], false, effects),
        ConfirmAction::DecideMany(requests) => send(app, requests, true, effects),
        ConfirmAction::Undo(wide) => {
            working(app, t!(app.lang, "status.undoing_step").into());
            effects.push(Effect::UndoConfirmed(wide));
        }
        ConfirmAction::Reopen(reopen) => {
            let item = inline(&reopen.item, 40);
            working(app, t!(app.lang, "status.reopen.reopening", item = item));
            effects.push(Effect::Reopen(reopen));
        }
        ConfirmAction::Quit => effects.push(Effect::Quit),
    }
}

fn undo(app: &mut App, effects: &mut Vec<Effect>) {
    if let Some(why) = decisions_off(app) {
        return error(app, why);
    }
    working(app, t!(app.lang, "status.undoing").into());
    effects.push(Effect::Undo);
}

/// The dialog's choice `steps` places on from `choice`, round the end.
fn next_export_choice(choice: ExportFile, steps: usize) -> ExportFile {
    let at = EXPORT_CHOICES
        .iter()
        .position(|c| *c == choice)
        .unwrap_or(0);
    EXPORT_CHOICES[(at + steps) % EXPORT_CHOICES.len()]
}

fn export(app: &mut App, file: ExportFile, effects: &mut Vec<Effect>) {
    app.overlay = None;
    let name = export_label(file, app.lang);
    working(app, t!(app.lang, "status.exporting", name = name));
    effects.push(Effect::Export(file));
}

/// `[` / `]` on a duplicate group: the copy before / after the marked one
/// becomes the one to keep.
fn choose_copy(app: &mut App, by: isize) {
    let Some(super::Selected::Group(i)) = app.selected() else {
        return;
    };
    let Some(snap) = app.snapshot.clone() else {
        return;
    };
    let g = &snap.triage.duplicates[i];
    let item = g.item();
    if app.review(&item).resolved {
        return info(app, t!(app.lang, "status.keep.resolved", item = item));
    }
    let id = super::keep::step(app, &snap, g, by);
    app.keep.insert(item, id);
    let at = g.members.iter().position(|m| m.id == id).unwrap_or(0);
    let text = t!(
        app.lang,
        "status.keep.chosen",
        id = id,
        at = at + 1,
        n = g.members.len()
    );
    info(app, text);
}
