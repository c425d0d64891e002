//! A reading arrives: the rows of every tab found again, the selection
//! kept on its item, and the payloads the screen shows asked for.

use super::super::cache::Cache;
use super::super::find;
use super::super::indexed::IndexedSnapshot;
use super::super::msg::{Effect, PayloadRef};
use super::super::state::{App, Busy, Focus, Lasts, TabState};
use super::super::tab::Tab;
use super::super::words;
use super::selection::{
    find_row, first_pending, follow, list_rows, recompute_rows, select, selected_key, show_item,
};
use crate::reading::Snapshot;

/// Payload texts kept before the cache is trimmed to what is on screen.
const PAYLOAD_CACHE: usize = 512;

/// Marks of groups new or grown kept before they are all dropped.
const FRESH_KEPT: usize = 10_000;

/// Asks for the payloads the selection shows, and those of the senders the
/// list shows, that are neither here nor on their way.
pub(super) fn request_payloads(app: &mut App, effects: &mut Vec<Effect>) {
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
pub(super) fn shown_senders(app: &App) -> Vec<crate::model::ReceiptId> {
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

pub(super) fn on_loaded(app: &mut App, reading: IndexedSnapshot, effects: &mut Vec<Effect>) {
    let first = app.snapshot.is_none();
    let erased_since = app
        .snapshot
        .as_ref()
        .is_some_and(|s| s.latest_erasure != reading.snapshot.latest_erasure);
    if erased_since {
        forget_erased(app, &reading.snapshot, effects);
    }
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

/// Someone erased visitor data since the last reading: what the screen read
/// of receipts (payloads, senders) may hold it, and so may the search the
/// Receipts tab shows. All of it goes; the search runs again.
fn forget_erased(app: &mut App, reading: &Snapshot, effects: &mut Vec<Effect>) {
    app.cache = Cache::default();
    if let Some((query, _)) = app.find.scanned.take() {
        app.find.outcome = None;
        app.find.searching = Some(query.clone());
        effects.push(Effect::Find {
            query,
            now_ms: reading.settings.now_ms,
        });
    }
}
