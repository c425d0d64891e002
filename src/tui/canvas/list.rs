//! The list pane: one row per item of the current tab, under a header
//! naming its columns. The columns each tab shows are fitted to the pane
//! (see `columns`); side by side with the detail, the pane is as wide as
//! they want ([`wanted_width`]), within limits.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::columns::{self, Column, column};
use super::{Theme, compact_time, fit_segments, text};
use crate::i18n::Lang;
use crate::model::time::human_duration_in;
use crate::model::{Decision, Millis};
use crate::reading::Snapshot;
use crate::sanitize::clean;
use crate::t;
use crate::triage::model::{BotEvidence, DamageReason, GapClass, scopes_label};
use crate::tui::app::fresh::GroupChange;
use crate::tui::app::msg::ShownRows;
use crate::tui::app::standing::ScreenStatus;
use crate::tui::app::{App, ClassFilter, Focus, Tab, words};

/// The marker before each row (`> ` on the selection).
const MARKER: usize = 2;

/// Draws the list pane; says where its rows went (`None`: no row shown).
pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<ShownRows> {
    let snap = app.snapshot.as_ref()?;
    if area.height == 0 {
        return None;
    }
    let w = usize::from(area.width);
    let lang = app.lang;
    let tab = app.tab;
    let rows = app.rows(tab);
    let focused = app.focus == Focus::List;
    let title = vec![(
        format!(" {} ", tab.title(app.lang)),
        theme.pane_title(focused),
    )];
    // Until the items' receipts are in, a text filter has seen only part of
    // what it searches: its matches are a lower bound.
    let partial = snap.receipts_pending && !app.filter.is_empty();
    let count = t!(
        lang,
        "screen.list.count",
        shown = rows.len(),
        total = total(snap, tab)
    );
    let count = if partial {
        t!(lang, "screen.list.so_far", count = count)
    } else {
        count
    };
    // The active filters come first and whole; what the list is (its count,
    // order and class) follows, shortened when the width runs out. Each
    // segment has a long form (with its key) and a short one.
    let view = app.list_view;
    let mut active: Vec<(String, String, Style)> = Vec::new();
    if !app.filter.is_empty() {
        let text = text::safe(&app.filter, 30);
        active.push((
            format!("· {} ", t!(lang, "screen.list.filter", text = text)),
            format!("· {} ", t!(lang, "screen.list.filter_short", text = text)),
            theme.key(),
        ));
    }
    let class = match app.class_filter {
        ClassFilter::All => None,
        ClassFilter::Only(class) => Some(class.label_in(lang)),
    };
    if tab == Tab::Duplicates
        && let Some(class) = class
    {
        active.push((
            format!("· {} ", t!(lang, "screen.list.class", class = class)),
            format!("· {} ", t!(lang, "screen.list.class_plain", class = class)),
            theme.key(),
        ));
    }
    if view.pending_only && Tab::DECIDING.contains(&tab) {
        let only = words::pending_only(app.lang);
        active.push((format!("· {only} (P) "), format!("· {only} "), theme.key()));
    }
    let mut rest: Vec<(String, String, Style)> =
        vec![(format!("· {count} "), format!("· {count} "), theme.dim())];
    if Tab::ORDERED.contains(&tab) {
        let order = words::order(view.newest_first, app.lang);
        rest.push((
            format!("· {order} (T) "),
            format!("· {order} "),
            theme.plain(),
        ));
    }
    if tab == Tab::Duplicates && class.is_none() {
        let all = t!(lang, "screen.list.class_all");
        rest.push((
            format!("· {} ", t!(lang, "screen.list.class", class = all)),
            String::new(),
            theme.plain(),
        ));
    }
    let line = |active_long: bool, rest_long: bool| {
        let pick = |(long, short, style): &(String, String, Style), long_too: bool| {
            (if long_too { long } else { short }.clone(), *style)
        };
        let mut segments = title.clone();
        segments.extend(active.iter().map(|s| pick(s, active_long)));
        segments.extend(rest.iter().map(|s| pick(s, rest_long)));
        segments.retain(|(text, _)| !text.is_empty());
        segments
    };
    let fits = |segments: &[(String, Style)]| {
        segments.iter().map(|(t, _)| text::width(t)).sum::<usize>() <= w
    };
    let title = [(true, true), (true, false), (false, false)]
        .into_iter()
        .map(|(a, r)| line(a, r))
        .find(|s| fits(s))
        .unwrap_or_else(|| line(false, false));
    let mut lines = vec![fit_segments(title, w)];

    let inner = w.saturating_sub(MARKER);
    let cols = tab_columns(app, snap, tab);
    let widths = columns::fit(&cols, inner);
    if area.height > 1 {
        let mut head = vec![Span::raw(" ".repeat(MARKER.min(w)))];
        head.extend(columns::spans(columns::heads(&cols, theme.head()), &widths));
        lines.push(Line::from(head));
    }
    let height = usize::from(
        area.height
            .saturating_sub(crate::tui::app::layout::LIST_HEAD),
    );
    if rows.is_empty() {
        let why = if total(snap, tab) == 0 {
            empty_tab(tab, lang).to_string()
        } else if partial {
            t!(lang, "screen.list.still_reading").to_string()
        } else if Tab::DECIDING.contains(&tab) && words::standing_typed(&app.filter) {
            words::standing_not_text(app.lang).to_string()
        } else {
            words::nothing_shown(
                !app.filter.is_empty(),
                tab == Tab::Duplicates && app.class_filter != Default::default(),
                view.pending_only && Tab::DECIDING.contains(&tab),
                app.lang,
            )
        };
        for part in text::wrap_at_most(&why, w.saturating_sub(2), height.max(1)) {
            lines.push(Line::styled(format!("  {part}"), theme.dim()));
        }
        frame.render_widget(Paragraph::new(lines), area);
        return None;
    }
    let pos = app.pos(tab);
    let selected = pos.selected.min(rows.len() - 1);
    // The same rule as `update`, in case the screen size changed since.
    let offset = crate::tui::app::layout::offset_showing(selected, pos.offset, height);
    let top = lines.len();
    for (i, &row) in rows.iter().enumerate().skip(offset).take(height) {
        let is_selected = i == selected;
        let marker = if is_selected { "> " } else { "  " };
        crate::tui::app::work::items(1);
        let (cells, row_style) = row_cells(app, snap, tab, row, &widths, theme);
        let mut spans = vec![Span::raw(marker)];
        spans.extend(columns::spans(cells, &widths));
        let mut line = Line::from(spans).style(row_style);
        if is_selected {
            line = line.patch_style(theme.selected(focused));
        }
        lines.push(line);
    }
    let shown = shown_rows(area, top, lines.len() - top, offset);
    frame.render_widget(Paragraph::new(lines), area);
    shown
}

/// Where `count` rows drawn from line `top` of `area` went, the first of
/// them the list's row `first` (`None`: none is in the area).
pub fn shown_rows(area: Rect, top: usize, count: usize, first: usize) -> Option<ShownRows> {
    let top = u16::try_from(top).ok().filter(|&t| t < area.height)?;
    let count = u16::try_from(count).unwrap_or(u16::MAX);
    let height = count.min(area.height - top);
    (height > 0).then(|| ShownRows {
        area: Rect::new(area.x, area.y + top, area.width, height),
        first,
    })
}

/// What a tab with no items at all says.
fn empty_tab(tab: Tab, lang: Lang) -> &'static str {
    match tab {
        Tab::Duplicates => t!(lang, "screen.list.empty.duplicates"),
        Tab::Conflicts => t!(lang, "screen.list.empty.conflicts"),
        Tab::Stuck => t!(lang, "screen.list.empty.stuck"),
        Tab::Bots => t!(lang, "screen.list.empty.bots"),
        Tab::Damaged => t!(lang, "screen.list.empty.damaged"),
        Tab::Receipts => "",
        Tab::Log => t!(lang, "screen.list.empty.log"),
        Tab::Forms => t!(lang, "screen.list.empty.forms"),
    }
}

/// The cells the list of the current tab wants, its row marker included:
/// side by side, the list pane is this wide (within limits).
pub fn wanted_width(app: &App) -> u16 {
    let Some(snap) = app.snapshot.as_ref() else {
        return 0;
    };
    let cols = tab_columns(app, snap, app.tab);
    u16::try_from(MARKER + columns::wanted(&cols)).unwrap_or(u16::MAX)
}

fn total(snap: &Snapshot, tab: Tab) -> usize {
    let t = &snap.triage;
    match tab {
        Tab::Duplicates => t.duplicates.len(),
        Tab::Conflicts => t.conflicts.len(),
        Tab::Stuck => t.stuck.len(),
        Tab::Bots => t.bot_groups.len(),
        Tab::Damaged => t.damaged.len(),
        Tab::Receipts => 0,
        Tab::Log => snap.log.len(),
        Tab::Forms => 0,
    }
}

/// The standing word of a decision item, and its style.
pub fn status(app: &App, item: &str, theme: &Theme) -> (&'static str, Style) {
    if app.awaiting.contains_key(item) {
        return (words::sending(app.lang), theme.dim());
    }
    let standing = app.standing(item);
    let style = match standing {
        ScreenStatus::Resolved => theme.resolved(),
        ScreenStatus::NewCopy => theme.warn(),
        ScreenStatus::LookedAt => theme.plain(),
        ScreenStatus::Pending => theme.pending(),
    };
    (standing.word(app.lang), style)
}

// --- Columns ---------------------------------------------------------------------

/// `pending`, `resolved`, `new copy`, `sending…`; the Stuck tab's `looked at`.
fn status_column(lang: Lang, tab: Tab) -> Column {
    let head = t!(lang, "screen.list.column.status");
    if tab == Tab::Stuck {
        column(head, 10, 10, 10)
    } else {
        column(head, 9, 9, 10)
    }
}

fn received_column(lang: Lang) -> Column {
    column(t!(lang, "screen.list.column.received"), 12, 12, 5)
}

fn visitor_column(lang: Lang) -> Column {
    column(t!(lang, "screen.list.column.visitor"), 22, 12, 7)
}

/// Shown while some group has news (see `fresh`).
fn news_column(lang: Lang) -> Column {
    column(t!(lang, "screen.list.column.new"), 4, 4, 6)
}

fn key_column(lang: Lang) -> Column {
    column(t!(lang, "screen.list.column.key"), 24, 10, 3)
}

/// The item column: as wide as the longest id of the tab (ids grow with
/// the database), and a cell for the note mark. The same width whatever
/// the filter shows, so that the columns stay put as the operator types.
fn item_column(app: &App, tab: Tab) -> Column {
    let prefix = match tab {
        Tab::Duplicates => "dup:",
        Tab::Conflicts => "conflict:",
        Tab::Stuck => "stuck:",
        Tab::Bots => "bot:",
        _ => "",
    };
    let digits = match app.counts.largest_key[tab.index()] {
        0 => 4,
        key => key.to_string().len(),
    };
    let w = prefix.len() + digits + 2;
    column(t!(app.lang, "screen.list.column.item"), w, w, 10)
}

/// The scope column: as wide as the longest form name of the reading, up to a limit.
fn scope_column(lang: Lang, snap: &Snapshot) -> Column {
    let longest = snap
        .activity
        .scopes
        .iter()
        .map(|s| text::width(&clean(&s.scope)))
        .max()
        .unwrap_or(20);
    column(
        t!(lang, "screen.list.column.scope"),
        longest.clamp(9, 32) + 1,
        10,
        8,
    )
}

/// A bot group's scopes: as wide as the longest label of the reading's
/// groups (the first scope and how many more, in this language), within limits.
fn scopes_column(lang: Lang, app: &App) -> Column {
    let longest = app
        .counts
        .bot_scopes
        .iter()
        .map(|(first, n)| text::width(&clean(&scopes_label(first, *n, lang))))
        .max()
        .unwrap_or(0);
    let want = (longest + 1).clamp(24, 40);
    column(t!(lang, "screen.list.column.scopes"), want, 10, 4)
}

fn tab_columns(app: &App, snap: &Snapshot, tab: Tab) -> Vec<Column> {
    let lang = app.lang;
    match tab {
        Tab::Duplicates => {
            let mut columns = vec![status_column(lang, tab)];
            if shows_news(app) {
                columns.push(news_column(lang));
            }
            columns.extend([
                item_column(app, tab),
                received_column(lang),
                column(t!(lang, "screen.list.column.gap"), 13, 8, 4),
                column(t!(lang, "screen.list.column.copies"), 7, 7, 2),
                column(t!(lang, "screen.list.column.match"), 6, 6, 3),
                scope_column(lang, snap),
                visitor_column(lang),
                column(t!(lang, "screen.list.column.subject"), 0, 12, 0),
            ]);
            columns
        }
        Tab::Conflicts => vec![
            status_column(lang, tab),
            item_column(app, tab),
            received_column(lang),
            column(t!(lang, "screen.list.column.attempts"), 9, 9, 4),
            visitor_column(lang),
            scope_column(lang, snap),
            key_column(lang),
        ],
        Tab::Stuck => vec![
            status_column(lang, tab),
            item_column(app, tab),
            column(t!(lang, "screen.list.column.in_flight"), 12, 10, 9),
            received_column(lang),
            visitor_column(lang),
            scope_column(lang, snap),
            key_column(lang),
        ],
        Tab::Bots => vec![
            status_column(lang, tab),
            item_column(app, tab),
            column(t!(lang, "screen.list.column.evidence"), 13, 9, 8),
            column(t!(lang, "screen.list.column.receipts"), 9, 9, 6),
            column(t!(lang, "screen.list.column.senders"), 8, 8, 5),
            column(t!(lang, "screen.list.column.received"), 12, 12, 7),
            scopes_column(lang, app),
        ],
        Tab::Damaged => {
            // As wide as the longest problem's name in this language.
            let problem = [
                DamageReason::Payload,
                DamageReason::Time,
                DamageReason::Digest,
                DamageReason::State,
            ]
            .iter()
            .map(|r| text::width(r.label_in(lang)) + 1)
            .max()
            .unwrap_or(0)
            .max(9);
            vec![
                column(t!(lang, "screen.list.column.receipt"), 10, 10, 10),
                column(t!(lang, "screen.list.column.problem"), problem, problem, 9),
                column(t!(lang, "screen.list.column.detail"), 40, 10, 8),
            ]
        }
        Tab::Log => {
            // As wide as the longest decision's name in this language.
            let decision = Decision::ALL
                .iter()
                .map(|d| text::width(d.label_in(lang)) + 1)
                .max()
                .unwrap_or(0)
                .max(10);
            vec![
                column(t!(lang, "screen.list.column.decided"), 12, 12, 9),
                column(t!(lang, "screen.list.column.operator"), 13, 8, 8),
                column(
                    t!(lang, "screen.list.column.decision"),
                    decision,
                    decision,
                    10,
                ),
                column(t!(lang, "screen.list.column.item"), 17, 10, 9),
                column(t!(lang, "screen.list.column.note"), 24, 8, 5),
            ]
        }
        Tab::Receipts | Tab::Forms => Vec::new(),
    }
}

/// True while some group has news to mark: the column is there only then.
fn shows_news(app: &App) -> bool {
    !app.fresh.is_empty()
}

fn class_word(class: GapClass, cells: usize, lang: Lang) -> &'static str {
    let word = class.label_in(lang);
    if cells >= text::width(word) {
        return word;
    }
    match class {
        GapClass::Simultaneous => t!(lang, "screen.list.class_short.simultaneous"),
        GapClass::Seconds => t!(lang, "screen.list.class_short.seconds"),
        GapClass::Minutes => t!(lang, "screen.list.class_short.minutes"),
    }
}

/// A decision as stored, in plain words in `lang` (`original stands`); a
/// name this version does not know, with spaces for its underscores.
pub fn decision_word(stored: &str, lang: Lang) -> String {
    match Decision::parse(stored) {
        Some(d) => d.label_in(lang).to_string(),
        None => stored.replace('_', " "),
    }
}

fn note_flag(app: &App, item: &str) -> &'static str {
    if app.notes.contains_key(item) {
        "✎"
    } else {
        ""
    }
}

/// The sender cells of a row: who (name, else email) and what about; dim
/// while only the folded text is known.
fn sender_cells(
    app: &App,
    id: Option<i64>,
    theme: &Theme,
    with_about: bool,
) -> Vec<(String, Style)> {
    let visitor = id.and_then(|id| app.visitor(id));
    let style = match &visitor {
        Some(v) if !v.folded => theme.plain(),
        _ => theme.dim(),
    };
    let who = visitor
        .as_ref()
        .and_then(|v| v.who())
        .map(|w| text::safe(w, 60))
        .unwrap_or_default();
    let mut cells = vec![(who, style)];
    if with_about {
        let about = visitor
            .as_ref()
            .and_then(|v| v.about.as_deref())
            .map(|a| text::safe(a, 120))
            .unwrap_or_default();
        cells.push((about, theme.dim()));
    }
    cells
}

/// The cells of one row, one per column of the tab (`widths`: the
/// columns' widths as fitted), and the row's style.
fn row_cells(
    app: &App,
    snap: &Snapshot,
    tab: Tab,
    row: usize,
    widths: &[usize],
    theme: &Theme,
) -> (Vec<(String, Style)>, Style) {
    let t = &snap.triage;
    let lang = app.lang;
    let plain = Style::default();
    let zone = app.shown_zone();
    let now = app.now_ms().unwrap_or(snap.settings.now_ms);
    let when = |ms: Option<Millis>| ms.map_or_else(|| "?".into(), |ms| compact_time(zone, ms, now));
    let created = |id: i64| snap.receipt_view(id).map(|r| r.created_ms());
    let mut row_style = plain;
    let mut item_cells = |item: &str| {
        let (word, style) = status(app, item, theme);
        if app.standing(item).is_resolved() && !app.awaiting.contains_key(item) {
            row_style = theme.dim();
        }
        [
            (word.to_string(), style),
            (format!("{item}{}", note_flag(app, item)), plain),
        ]
    };
    let mut cells = Vec::new();
    match tab {
        Tab::Duplicates => {
            let g = &t.duplicates[row];
            let [status, item] = item_cells(&g.item());
            let first = g.members[0].id;
            let news = match app.fresh.get(&first) {
                Some(GroupChange::Group) => words::fresh_group(app.lang).to_string(),
                Some(GroupChange::Gained(n)) => words::gained(*n),
                None => String::new(),
            };
            cells.push(status);
            if shows_news(app) {
                cells.push((news, theme.warn()));
            }
            cells.push(item);
            cells.push((when(created(first)), theme.dim()));
            let class_at = if shows_news(app) { 4 } else { 3 };
            let class_w = widths.get(class_at).copied().unwrap_or(0).saturating_sub(1);
            cells.push((class_word(g.class, class_w, lang).to_string(), plain));
            cells.push((g.members.len().to_string(), plain));
            let all_erased = g
                .members
                .iter()
                .all(|m| m.match_kind == crate::triage::model::MatchKind::Erased);
            let kind = if g.is_exact() {
                t!(lang, "screen.list.exact")
            } else if all_erased {
                // Nothing of it is left to compare: neither exact nor near
                // (the detail says it was erased).
                "—"
            } else {
                t!(lang, "screen.list.near")
            };
            cells.push((kind.to_string(), plain));
            cells.push((text::safe(&g.scope, 40), theme.dim()));
            cells.extend(sender_cells(app, Some(first), theme, true));
        }
        Tab::Conflicts => {
            let k = &t.conflicts[row];
            let [status, item] = item_cells(&k.item());
            cells.push(status);
            cells.push(item);
            cells.push((when(created(k.receipt_id)), theme.dim()));
            cells.push((k.attempts.len().to_string(), plain));
            cells.extend(sender_cells(app, Some(k.receipt_id), theme, false));
            cells.push((text::safe(&k.scope, 40), theme.dim()));
            cells.push((text::safe(&k.request_key, 60), plain));
        }
        Tab::Stuck => {
            let s = &t.stuck[row];
            let [status, item] = item_cells(&s.item());
            cells.push(status);
            cells.push(item);
            cells.push((human_duration_in(app.age_ms(s.age_ms), lang), plain));
            cells.push((when(created(s.receipt_id)), theme.dim()));
            cells.extend(sender_cells(app, Some(s.receipt_id), theme, false));
            cells.push((text::safe(&s.scope, 40), theme.dim()));
            let key = match s.request_key.as_deref() {
                Some(k) => text::safe(k, 60),
                None => t!(lang, "screen.list.no_key").into(),
            };
            cells.push((key, plain));
        }
        Tab::Bots => {
            let g = &t.bot_groups[row];
            let [status, item] = item_cells(&g.item());
            cells.push(status);
            cells.push(item);
            let evidence = match g.evidence {
                BotEvidence::Campaign => t!(lang, "screen.list.bot.campaign"),
                BotEvidence::Honeypot => t!(lang, "screen.list.bot.honeypot"),
                BotEvidence::Empty => t!(lang, "screen.list.bot.empty"),
            };
            cells.push((evidence.to_string(), theme.warn()));
            cells.push((g.receipts.len().to_string(), plain));
            cells.push((g.senders.to_string(), plain));
            cells.push((when(Some(g.first_ms())), theme.dim()));
            cells.push((text::safe(&g.scopes_label_in(lang), 120), theme.dim()));
        }
        // Drawn by `canvas::receipts`.
        Tab::Receipts => {}
        Tab::Damaged => {
            let d = &t.damaged[row];
            cells.push((format!("#{}", d.receipt_id), plain));
            cells.push((d.reason.label_in(lang).to_string(), theme.warn()));
            cells.push((text::safe(&d.detail.message(lang), 200), plain));
        }
        Tab::Log => {
            let l = &snap.log[row];
            cells.push((when(l.decided_at_ms), theme.dim()));
            cells.push((text::safe(&l.operator, 40), plain));
            let decision = text::safe(&decision_word(&l.decision, lang), 30);
            cells.push((decision, theme.key()));
            cells.push((text::safe(&l.item, 40), plain));
            let note = l
                .note
                .as_deref()
                .map(|n| text::safe(n, 200))
                .unwrap_or_default();
            cells.push((note, theme.dim()));
        }
        // Drawn by its own canvas (see `forms`).
        Tab::Forms => {}
    }
    (cells, row_style)
}
