//! The Receipts tab: the search's hits (newest first) or what a miss means,
//! and the selected hit's receipt, items and fields. Times are in the zone
//! the screen shows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments, text};
use crate::find::text::{explain_miss_in, found_where_in, item_line_in, summary_in};
use crate::model::ReceiptState;
use crate::t;
use crate::tui::app::find::update::{jump_target, selected_hit};
use crate::tui::app::msg::ShownRows;
use crate::tui::app::{App, Focus, Tab};

/// The list pane of the Receipts tab; says where its hits went (`None`:
/// none is shown).
pub fn draw_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<ShownRows> {
    if area.height == 0 {
        return None;
    }
    let w = usize::from(area.width);
    let lang = app.lang;
    let zone = app.shown_zone();
    let focused = app.focus == Focus::List;
    let mut title = vec![(
        format!(" {} ", t!(lang, "screen.receipts.title")),
        theme.pane_title(focused),
    )];
    let outcome = app.find.outcome.as_ref();
    if let Some(q) = &app.find.searching {
        title.push((
            format!(
                "· {} ",
                t!(
                    lang,
                    "screen.receipts.searching",
                    query = text::safe(&q.raw, 30)
                )
            ),
            theme.key(),
        ));
    } else if let Some(o) = outcome {
        let raw = o.query.as_ref().map_or("", |q| q.raw.as_str());
        let shown = if o.total > o.hits.len() as u64 {
            t!(lang, "screen.receipts.newest", n = o.hits.len())
        } else {
            String::new()
        };
        title.push((
            format!(
                "· {} ",
                t!(
                    lang,
                    "screen.receipts.matches",
                    total = o.total,
                    shown = shown,
                    query = text::safe(raw, 30)
                )
            ),
            theme.dim(),
        ));
    }
    let mut lines = vec![fit_segments(title, w)];
    let mut shown = None;
    let push_wrapped = |lines: &mut Vec<Line<'static>>, t: &str, style| {
        for part in text::wrap(t, w.saturating_sub(2).max(1)) {
            lines.push(Line::styled(format!("  {part}"), style));
        }
    };
    if let Some(e) = &app.find.error {
        push_wrapped(&mut lines, &format!("⚠ {e}"), theme.warn());
    }
    match outcome {
        None => {
            let hint = t!(lang, "screen.receipts.hint", zone = zone.name());
            push_wrapped(&mut lines, &hint, theme.dim());
        }
        Some(o) if o.hits.is_empty() => {
            let raw = o.query.as_ref().map_or("", |q| q.raw.as_str());
            push_wrapped(
                &mut lines,
                &t!(
                    lang,
                    "screen.receipts.no_match",
                    query = text::safe(raw, 60)
                ),
                theme.warn(),
            );
            for line in explain_miss_in(o, zone, lang) {
                push_wrapped(&mut lines, &line, theme.plain());
            }
        }
        Some(o) => {
            let rows = app.rows(Tab::Receipts);
            let height = usize::from(area.height).saturating_sub(lines.len());
            let pos = app.pos(Tab::Receipts);
            let selected = pos.selected.min(rows.len().saturating_sub(1));
            let offset = crate::tui::app::layout::offset_showing(selected, pos.offset, height);
            let inner = w.saturating_sub(2);
            let top = lines.len();
            for (i, &row) in rows.iter().enumerate().skip(offset).take(height) {
                let Some(hit) = o.hits.get(row) else {
                    continue;
                };
                let when = hit
                    .created_ms
                    .map(|t| format!("{} {}", zone.format_minutes(t), zone.abbreviation(t)))
                    .unwrap_or_else(|| t!(lang, "find.time_unreadable").into());
                let state = if hit.outcome_unknown {
                    t!(lang, "screen.receipts.not_known_yet").to_string()
                } else {
                    ReceiptState::say_in(&hit.state, lang).replace('_', " ")
                };
                let key = hit
                    .request_key
                    .as_deref()
                    .map_or(t!(lang, "find.no_key").to_string(), |k| {
                        t!(lang, "find.key", key = text::safe(k, 16))
                    });
                let cells = [
                    text::pad(&format!("#{}", hit.receipt_id), 9),
                    text::pad(&when, 21),
                    text::pad(&state, 16),
                    text::pad(&text::safe(&hit.scope, 24), 25),
                    key,
                ]
                .concat();
                let marker = if i == selected { "> " } else { "  " };
                let body = text::pad(&text::fit(&cells, inner), inner);
                let style = if hit.outcome_unknown {
                    theme.warn()
                } else {
                    theme.plain()
                };
                let mut line = Line::from(vec![Span::raw(marker), Span::styled(body, style)]);
                if i == selected {
                    line = line.patch_style(theme.selected(focused));
                }
                lines.push(line);
            }
            shown = super::list::shown_rows(area, top, lines.len() - top, offset);
        }
    }
    lines.truncate(usize::from(area.height));
    frame.render_widget(Paragraph::new(lines), area);
    shown
}

/// The detail pane of the Receipts tab: the selected hit.
pub fn draw_detail(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<usize> {
    if area.height == 0 {
        return None;
    }
    let w = usize::from(area.width);
    let body_w = w.saturating_sub(2).max(1);
    let lang = app.lang;
    let zone = app.shown_zone();
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut wrapped = |t: &str, style| {
        for part in text::wrap(t, body_w) {
            lines.push(Line::styled(format!(" {part}"), style));
        }
    };
    match selected_hit(app) {
        None => wrapped(t!(lang, "screen.detail.nothing_selected"), theme.dim()),
        Some(hit) => {
            wrapped(&summary_in(hit, zone, lang), theme.title());
            if hit.outcome_unknown {
                wrapped(
                    &format!("⚠ {}", t!(lang, "find.outcome_unknown")),
                    theme.warn(),
                );
            }
            wrapped(
                &t!(
                    lang,
                    "screen.receipts.found_in",
                    place = found_where_in(&hit.found, lang)
                ),
                theme.dim(),
            );
            if hit.items.is_empty() {
                wrapped(t!(lang, "screen.receipts.no_items"), theme.plain());
            } else {
                wrapped(t!(lang, "screen.receipts.items"), theme.plain());
                for item in &hit.items {
                    wrapped(&format!("  {}", item_line_in(item, lang)), theme.key());
                }
                if let Some((tab, item)) = jump_target(app) {
                    // On the list J is typed: the pane says how to get there.
                    let tab = tab.title(lang);
                    let jump = if app.focus == Focus::Detail {
                        t!(lang, "screen.receipts.jump", item = item, tab = tab)
                    } else {
                        t!(
                            lang,
                            "screen.receipts.jump_after_enter",
                            item = item,
                            tab = tab
                        )
                    };
                    wrapped(&jump, theme.dim());
                }
            }
            if let Some(erased) = &hit.erased {
                wrapped(
                    &crate::find::text::erased_line(erased, app.shown_zone(), lang),
                    theme.warn(),
                );
            }
            wrapped(t!(lang, "screen.receipts.fields"), theme.plain());
            for (k, v) in &hit.fields {
                wrapped(
                    &format!("  {}: {}", text::safe(k, 40), text::safe(v, 2000)),
                    theme.plain(),
                );
            }
            if let Some(raw) = &hit.unreadable {
                wrapped(
                    &format!(
                        "  {}",
                        t!(lang, "find.stored", text = text::safe(raw, 2000))
                    ),
                    theme.warn(),
                );
            }
        }
    }
    let visible = usize::from(area.height - 1);
    let max_scroll = lines.len().saturating_sub(visible);
    let scroll = app.detail_scroll.min(max_scroll);
    let focused = app.focus == Focus::Detail;
    let title = vec![
        (
            format!(" {} ", t!(lang, "screen.receipts.detail_title")),
            theme.pane_title(focused),
        ),
        (
            if focused {
                format!("· {} ", t!(lang, "screen.detail.scroll_hint"))
            } else {
                format!("· {} ", t!(lang, "screen.detail.read_hint"))
            },
            theme.dim(),
        ),
    ];
    let mut shown = vec![fit_segments(title, w)];
    shown.extend(lines.into_iter().skip(scroll).take(visible));
    frame.render_widget(Paragraph::new(shown), area);
    Some(max_scroll)
}
