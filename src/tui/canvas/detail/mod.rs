//! The detail pane of the selection: a group's copies and their comparison,
//! a conflict's original beside its attempts, a stuck receipt, a damaged row,
//! a log entry; or the raw payloads (`v`).

mod bots;
mod compare;
mod diff;
mod group;
mod other;
mod raw;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::list::decision_word;
use super::{Theme, fit_segments, text};
use crate::reading::ItemReview;
use crate::sanitize::clean;
use crate::t;
use crate::tui::app::standing::ScreenStatus;
use crate::tui::app::{App, Focus, Selected, words};

/// Draws the selected item's detail; returns how far it can scroll (`None`
/// when nothing was drawn).
pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Option<usize> {
    if area.height == 0 {
        return None;
    }
    let snap = app.snapshot.as_ref()?;
    let w = usize::from(area.width);
    let lang = app.lang;
    let body_w = w.saturating_sub(1).max(1);
    let selection = app.selected();
    let lines: Vec<Line<'static>> = match selection {
        None => vec![Line::styled(
            format!("  {}", t!(lang, "screen.detail.nothing_selected")),
            theme.dim(),
        )],
        Some(_) if app.raw_view => raw::lines(app, body_w, theme),
        Some(Selected::Group(i)) => group::lines(app, snap, i, body_w, theme),
        Some(Selected::Conflict(i)) => other::conflict(app, snap, i, body_w, theme),
        Some(Selected::Stuck(i)) => other::stuck(app, snap, i, body_w, theme),
        Some(Selected::Bot(i)) => bots::lines(app, snap, i, body_w, theme),
        Some(Selected::Damaged(i)) => other::damaged(lang, snap, i, body_w, theme),
        Some(Selected::Log(i)) => other::log_entry(app, snap, i, body_w, theme),
        // Drawn by `canvas::receipts`.
        Some(Selected::Receipt(_)) => Vec::new(),
    };
    let visible = usize::from(area.height - 1);
    let max_scroll = lines.len().saturating_sub(visible);
    let scroll = app.detail_scroll.min(max_scroll);

    let focused = app.focus == Focus::Detail;
    let mut title = vec![(
        format!(" {} ", t!(lang, "screen.detail.title")),
        theme.pane_title(focused),
    )];
    if app.raw_view {
        title.push((
            format!("· {} ", t!(lang, "screen.detail.raw_view")),
            theme.key(),
        ));
    }
    if max_scroll > 0 {
        let last = (scroll + visible).min(lines.len());
        let shown = t!(
            lang,
            "screen.detail.lines",
            from = scroll + 1,
            to = last,
            total = lines.len()
        );
        title.push((format!("· {shown} "), theme.dim()));
    }
    title.push((
        if focused {
            format!("· {} ", t!(lang, "screen.detail.scroll_hint"))
        } else if selection.is_some() {
            format!("· {} ", t!(lang, "screen.detail.read_hint"))
        } else {
            String::new()
        },
        theme.dim(),
    ));
    let mut shown = vec![fit_segments(title, w)];
    shown.extend(
        lines
            .into_iter()
            .skip(scroll)
            .take(visible)
            .map(|line| indent(line)),
    );
    frame.render_widget(Paragraph::new(shown), area);
    Some(max_scroll)
}

/// One cell of left margin.
/// An item's first lines: its id, where it stands (`word`, in `style`), then
/// `rest`; what does not fit goes on the lines under it instead of being cut.
pub(crate) fn heading(
    item: &str,
    (word, style): (&str, ratatui::style::Style),
    rest: &str,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let used = text::width(item) + 2 + text::width(word);
    let rest = rest.trim_start();
    let room = w.saturating_sub(used + 2);
    let ranges = text::wrap_ranges(rest, room);
    let first = ranges.first().map_or("", |r| &rest[r.clone()]);
    let mut lines = vec![Line::from(vec![
        Span::styled(item.to_string(), theme.title()),
        Span::raw("  "),
        Span::styled(word.to_string(), style),
        Span::raw(format!("  {first}")),
    ])];
    if let Some(next) = ranges.get(1) {
        for part in text::wrap(&rest[next.start..], w.saturating_sub(2)) {
            lines.push(Line::raw(format!("  {part}")));
        }
    }
    lines
}

fn indent(line: Line<'static>) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    spans.extend(line.spans);
    Line::from(spans).style(line.style)
}

/// Lines saying what the review log says about an item, and any pending note.
pub(crate) fn review_lines(
    app: &App,
    item: &str,
    review: &ItemReview,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let lang = app.lang;
    let mut lines = Vec::new();
    let who = |r: &ItemReview| {
        let decision = r
            .decision
            .as_deref()
            .map(|d| decision_word(&clean(d), lang))
            .unwrap_or_else(|| "?".into());
        let operator = r.operator.as_deref().map(clean);
        let at = r.decided_at_ms.map(|at| super::screen_time(app, at));
        match (operator, at) {
            (Some(operator), Some(at)) => t!(
                lang,
                "screen.detail.who_by_at",
                decision = decision,
                operator = operator,
                at = at
            ),
            (Some(operator), None) => t!(
                lang,
                "screen.detail.who_by",
                decision = decision,
                operator = operator
            ),
            (None, Some(at)) => t!(lang, "screen.detail.who_at", decision = decision, at = at),
            (None, None) => decision,
        }
    };
    if app.awaiting.contains_key(item) {
        lines.push(Line::styled(
            t!(lang, "screen.detail.recording"),
            theme.dim(),
        ));
    }
    let standing = ScreenStatus::of(review);
    if standing == ScreenStatus::LookedAt {
        for part in text::wrap(&words::looked_at(&who(review), app.lang), width) {
            lines.push(Line::styled(part, theme.plain()));
        }
        if let Some(note) = &review.note {
            let said = t!(lang, "screen.detail.note", note = clean(note));
            for part in text::wrap_at_most(&said, width, 4) {
                lines.push(Line::raw(part));
            }
        }
    } else if review.resolved {
        for part in text::wrap(&words::resolved_as(&who(review), app.lang), width) {
            lines.push(Line::styled(part, theme.resolved()));
        }
        if let Some(note) = &review.note {
            let said = t!(lang, "screen.detail.note", note = clean(note));
            for part in text::wrap_at_most(&said, width, 4) {
                lines.push(Line::raw(part));
            }
        }
    } else if review.new_copy_since_decision {
        let text = words::new_copy_since(&who(review), app.lang);
        for part in text::wrap(&text, width) {
            lines.push(Line::styled(part, theme.warn()));
        }
    } else if review.decision.is_some() {
        let text = words::reopened_after(&who(review), app.lang);
        for part in text::wrap(&text, width) {
            lines.push(Line::styled(part, theme.dim()));
        }
    }
    if let Some(note) = app.notes.get(item) {
        let said = t!(lang, "screen.detail.next_note", note = clean(note));
        for part in text::wrap_at_most(&said, width, 4) {
            lines.push(Line::styled(part, theme.key()));
        }
    }
    lines
}
