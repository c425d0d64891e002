//! The rows of each tab and the selection in them: filtering (the tab in
//! sight at once, the others when next shown), ordering, following the
//! selected item across readings, and keeping it in view.

use super::super::decision;
use super::super::layout;
use super::super::list_view;
use super::super::rows;
use super::super::search::{self, Known, TabIndex};
use super::super::state::{App, Focus};
use super::super::tab::{ClassFilter, Tab};
use super::status::info;
use crate::t;

/// The key ([`rows::row_key`]) of a tab's selected row.
pub(in crate::tui::app) fn selected_key(app: &App, tab: Tab) -> Option<i64> {
    let snap = app.snapshot.as_ref()?;
    let row = *app.rows(tab).get(app.pos(tab).selected)?;
    rows::row_key(snap, tab, row)
}

/// What a new reading's tab showed: what its rows answered (query and
/// class filter), the index they were found with, and the rows.
pub(super) type ShownBefore<'a> = (&'a (String, ClassFilter), &'a TabIndex, &'a [usize]);

/// Recomputes a tab's rows, doing no more than what the rows shown allow: a
/// query that extends the one they answer only narrows them; in a new
/// reading (`shown`, when they answered the query now asked) a chunk of rows
/// the two indexes share keeps its rows.
pub(in crate::tui::app) fn recompute_rows(app: &mut App, tab: Tab, shown: Option<ShownBefore<'_>>) {
    // The Receipts tab lists its search's hits (see `find::update::join`).
    if tab == Tab::Receipts {
        return;
    }
    if let Some((found, answers)) = find_rows(app, tab, shown) {
        app.tabs[tab.index()].matched = found;
        app.tabs[tab.index()].matched_for = Some(answers);
    }
    arrange(app, tab);
}

/// Arranges the rows a tab's filters found as the list view says.
pub(in crate::tui::app) fn arrange(app: &mut App, tab: Tab) {
    if !Tab::ORDERED.contains(&tab) {
        return;
    }
    let i = tab.index();
    let rows = match app.snapshot.as_ref() {
        Some(snap) if app.list_view.pending_only => {
            // Few items are resolved: their keys, not every row's id.
            let resolved = resolved_keys(snap, tab);
            app.list_view.arrange(tab, &app.tabs[i].matched, |row| {
                rows::row_key(snap, tab, row).is_some_and(|key| !resolved.contains(&key))
            })
        }
        _ => app.list_view.arrange(tab, &app.tabs[i].matched, |_| true),
    };
    app.tabs[i].rows = rows;
}

/// The keys ([`rows::row_key`]) of a tab's resolved items.
pub(in crate::tui::app) fn resolved_keys(
    snap: &crate::reading::Snapshot,
    tab: Tab,
) -> std::collections::HashSet<i64> {
    snap.reviews
        .iter()
        .filter(|(_, review)| super::super::standing::ScreenStatus::of(review).is_resolved())
        .filter_map(|(item, _)| crate::review::parse_item(item).ok())
        .filter(|(kind, _)| decision::tab_of_kind(*kind) == tab)
        .map(|(_, id)| id)
        .collect()
}

/// The rows the filters find, and the query and class they answer; `None`
/// when the rows found already answer them.
pub(in crate::tui::app) fn find_rows(
    app: &App,
    tab: Tab,
    shown: Option<ShownBefore<'_>>,
) -> Option<(Vec<usize>, (String, ClassFilter))> {
    let snap = app.snapshot.as_ref()?;
    let query = search::normalize_query(&app.filter);
    let class = app.class_filter;
    let i = tab.index();
    let known = match (shown, &app.tabs[i].matched_for) {
        (Some(((q, c), index, rows)), _) if *q == query && *c == class => {
            Known::Before(index, rows)
        }
        (None, Some((before, c)))
            if *c == class && !before.is_empty() && search::narrows(before, &query) =>
        {
            if *before == query {
                return None;
            }
            Known::Among(&app.tabs[i].matched)
        }
        _ => Known::Nothing,
    };
    let found = search::compute(snap, &app.search, tab, class, &query, known);
    Some((found, (query, class)))
}

/// Recomputes one tab's rows after a filter change, keeping the selection
/// when it is still shown, else the nearest row.
pub(in crate::tui::app) fn refilter(app: &mut App, tab: Tab) {
    let index = app.pos(tab).selected;
    let row = app.rows(tab).get(index).copied();
    recompute_rows(app, tab, None);
    // Same reading: the row is found by its index, and rows run one way.
    let found = row.and_then(|row| list_view::position(app.rows(tab), row));
    select(app, tab, found.unwrap_or(index));
}

/// After a change of the filters: the tab shown now, every other one when
/// it is shown ([`catch_up`]).
pub(in crate::tui::app) fn refilter_all(app: &mut App) {
    for tab in Tab::ALL {
        app.tabs[tab.index()].behind = tab != app.tab;
    }
    refilter(app, app.tab);
}

/// Brings a tab's rows up to the filters, if they changed since they were found.
pub(in crate::tui::app) fn catch_up(app: &mut App, tab: Tab) {
    if std::mem::take(&mut app.tabs[tab.index()].behind) {
        refilter(app, tab);
    }
}

/// Where the group whose first receipt was `key` is shown when an earlier
/// copy has since become its first (its item id changes with it): the
/// selection stays on the group, and the operator is told its new id.
pub(in crate::tui::app) fn follow(app: &mut App, tab: Tab, key: i64) -> Option<usize> {
    let snap = app.snapshot.as_ref()?;
    if tab != Tab::Duplicates {
        return None;
    }
    let groups = &snap.triage.duplicates;
    let at = app.rows(tab).iter().position(|&row| {
        groups
            .get(row)
            .is_some_and(|g| g.members.iter().any(|m| m.id == key))
    })?;
    let now = groups[app.rows(tab)[at]].item();
    if app.tab == tab {
        let text = t!(app.lang, "status.group_renamed", key = key, now = now);
        info(app, text);
    }
    Some(at)
}

/// Where the row with this key ([`rows::row_key`]) is shown, if it is.
pub(in crate::tui::app) fn find_row(app: &App, tab: Tab, key: i64) -> Option<usize> {
    let snap = app.snapshot.as_ref()?;
    app.rows(tab)
        .iter()
        .position(|&row| rows::row_key(snap, tab, row) == Some(key))
}

pub(in crate::tui::app) fn is_pending_row(app: &App, tab: Tab, row: usize) -> bool {
    tab.decides()
        && app.row_id(tab, row).is_some_and(|item| {
            !app.standing(&item).is_resolved() && !app.awaiting.contains_key(&item)
        })
}

pub(in crate::tui::app) fn first_pending(app: &App, tab: Tab) -> Option<usize> {
    app.rows(tab)
        .iter()
        .position(|&row| is_pending_row(app, tab, row))
}

/// Selects a row (clamped) and scrolls it into view.
pub(in crate::tui::app) fn select(app: &mut App, tab: Tab, index: usize) {
    let len = app.rows(tab).len();
    let before = app.pos(tab).selected;
    app.tabs[tab.index()].pos.selected = index.min(len.saturating_sub(1));
    if tab == app.tab && app.pos(tab).selected != before {
        app.detail_scroll = 0;
    }
    scroll_into_view(app, tab);
}

/// The operator moves the selection to `index` (by key or by mouse): as
/// [`select`], and moving past a group's news marks it seen.
pub(in crate::tui::app) fn move_to(app: &mut App, tab: Tab, index: usize) {
    let current = app.pos(tab).selected;
    let seen = row_key_at(app, tab, current);
    select(app, tab, index);
    if app.pos(tab).selected != current
        && tab == Tab::Duplicates
        && let Some(key) = seen
    {
        app.fresh.remove(&key);
    }
}

/// The key of the row shown at `index` of a tab.
pub(in crate::tui::app) fn row_key_at(app: &App, tab: Tab, index: usize) -> Option<i64> {
    let row = *app.rows(tab).get(index)?;
    rows::row_key(app.snapshot.as_ref()?, tab, row)
}

/// `T` and `P`: the lists arranged anew, each selection on the same row
/// when it is still shown, else the nearest one that is.
pub(in crate::tui::app) fn rearrange(app: &mut App) {
    for &tab in Tab::ORDERED {
        let i = tab.index();
        let key_before = selected_key(app, tab);
        let before = std::mem::take(&mut app.tabs[i].rows);
        let at = app.tabs[i].pos.selected;
        arrange(app, tab);
        app.tabs[i].pos.selected = list_view::nearest(&before, at, app.rows(tab));
        if tab == app.tab && selected_key(app, tab) != key_before {
            app.detail_scroll = 0;
        }
        scroll_into_view(app, tab);
    }
}

/// Rows of the list in sight on the current tab.
pub(in crate::tui::app) fn list_rows(app: &App) -> usize {
    list_rows_in(app, app.tab)
}

pub(in crate::tui::app) fn list_rows_in(app: &App, tab: Tab) -> usize {
    let head = layout::list_head(tab);
    layout::list_rows_of(app.size, app.read_only().is_some(), app.focus, head)
}

pub(in crate::tui::app) fn scroll_into_view(app: &mut App, tab: Tab) {
    let height = list_rows_in(app, tab);
    let len = app.rows(tab).len();
    let pos = &mut app.tabs[tab.index()].pos;
    pos.offset = layout::offset_showing(pos.selected, pos.offset, height);
    // No empty space below the last row when the list could fill the pane.
    pos.offset = pos.offset.min(len.saturating_sub(height));
}

pub(in crate::tui::app) fn go_tab(app: &mut App, tab: Tab) {
    catch_up(app, tab);
    if tab != app.tab {
        app.tab = tab;
        app.focus = Focus::List;
        app.detail_scroll = 0;
        scroll_into_view(app, tab);
    }
}

/// Goes to `item`'s tab and selects it; `clear`: the filters are cleared
/// when they hide it. False when the reading does not show it.
pub(super) fn show_item(app: &mut App, item: &str, clear: bool) -> bool {
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
