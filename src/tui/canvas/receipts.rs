//! The Receipts tab: the search's hits (newest first) or what a miss means,
//! and the selected hit's receipt, items and fields. Times are in the zone
//! the screen shows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments, text};
use crate::find::text::{OUTCOME_UNKNOWN, explain_miss, found_where, item_line};
use crate::tui::app::find::update::{jump_target, selected_hit};
use crate::tui::app::{App, Focus, Tab};

/// The list pane of the Receipts tab.
pub fn draw_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let w = usize::from(area.width);
    let zone = app.shown_zone();
    let focused = app.focus == Focus::List;
    let mut title = vec![(" Receipts ".to_string(), theme.pane_title(focused))];
    let outcome = app.find.outcome.as_ref();
    if let Some(q) = &app.find.searching {
        title.push((
            format!("· searching \"{}\"… ", text::safe(&q.raw, 30)),
            theme.key(),
        ));
    } else if let Some(o) = outcome {
        let raw = o.query.as_ref().map_or("", |q| q.raw.as_str());
        let shown = if o.total > o.hits.len() as u64 {
            format!(" (newest {})", o.hits.len())
        } else {
            String::new()
        };
        title.push((
            format!(
                "· {} match{shown} \"{}\" · newest first · / search ",
                o.total,
                text::safe(raw, 30)
            ),
            theme.dim(),
        ));
    }
    let mut lines = vec![fit_segments(title, w)];
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
            let hint = format!(
                "Type to search every receipt, then Enter: an email, a name, a phone number, a request key, a scope, #1907, or a time in {} (10:00, yesterday 10:00, 11-29 10:00, 10:00..11:00).",
                zone.name()
            );
            push_wrapped(&mut lines, &hint, theme.dim());
        }
        Some(o) if o.hits.is_empty() => {
            let raw = o.query.as_ref().map_or("", |q| q.raw.as_str());
            push_wrapped(
                &mut lines,
                &format!("No receipt matches \"{}\".", text::safe(raw, 60)),
                theme.warn(),
            );
            for line in explain_miss(o, zone) {
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
            for (i, &row) in rows.iter().enumerate().skip(offset).take(height) {
                let Some(hit) = o.hits.get(row) else {
                    continue;
                };
                let when = hit
                    .created_ms
                    .map(|t| format!("{} {}", zone.format_minutes(t), zone.abbreviation(t)))
                    .unwrap_or_else(|| "time unreadable".into());
                let state = if hit.outcome_unknown {
                    "⚠ not known yet".to_string()
                } else {
                    hit.state.replace('_', " ")
                };
                let key = hit
                    .request_key
                    .as_deref()
                    .map_or("no key".to_string(), |k| {
                        format!("key {}", text::safe(k, 16))
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
        }
    }
    lines.truncate(usize::from(area.height));
    frame.render_widget(Paragraph::new(lines), area);
}

/// The detail pane of the Receipts tab: the selected hit.
pub fn draw_detail(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let w = usize::from(area.width);
    let body_w = w.saturating_sub(2).max(1);
    let zone = app.shown_zone();
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut wrapped = |t: &str, style| {
        for part in text::wrap(t, body_w) {
            lines.push(Line::styled(format!(" {part}"), style));
        }
    };
    match selected_hit(app) {
        None => wrapped("Nothing selected.", theme.dim()),
        Some(hit) => {
            wrapped(&crate::find::text::summary(hit, zone), theme.title());
            if hit.outcome_unknown {
                wrapped(&format!("⚠ {OUTCOME_UNKNOWN}"), theme.warn());
            }
            wrapped(
                &format!("Found in {}.", found_where(&hit.found)),
                theme.dim(),
            );
            if hit.items.is_empty() {
                wrapped(
                    "In no item: not a duplicate, a key conflict, stuck or a suspected bot.",
                    theme.plain(),
                );
            } else {
                wrapped("Items:", theme.plain());
                for item in &hit.items {
                    wrapped(&format!("  {}", item_line(item)), theme.key());
                }
                if let Some((tab, item)) = jump_target(app) {
                    wrapped(
                        &format!("J goes to {item} on the {} tab.", tab.title(app.lang)),
                        theme.dim(),
                    );
                }
            }
            wrapped("Fields:", theme.plain());
            for (k, v) in &hit.fields {
                wrapped(
                    &format!("  {}: {}", text::safe(k, 40), text::safe(v, 2000)),
                    theme.plain(),
                );
            }
            if let Some(raw) = &hit.unreadable {
                wrapped(
                    &format!("  stored: {}", text::safe(raw, 2000)),
                    theme.warn(),
                );
            }
        }
    }
    let visible = usize::from(area.height - 1);
    let max_scroll = lines.len().saturating_sub(visible);
    app.detail_max_scroll.set(max_scroll);
    let scroll = app.detail_scroll.min(max_scroll);
    let focused = app.focus == Focus::Detail;
    let title = vec![
        (" Receipt ".to_string(), theme.pane_title(focused)),
        (
            if focused {
                "· j/k scroll, Esc back ".to_string()
            } else {
                "· Enter to read ".to_string()
            },
            theme.dim(),
        ),
    ];
    let mut shown = vec![fit_segments(title, w)];
    shown.extend(lines.into_iter().skip(scroll).take(visible));
    frame.render_widget(Paragraph::new(shown), area);
}
