//! The list pane: one row per item of the current tab.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments, short_time, text};
use crate::model::time::human_duration;
use crate::reading::Snapshot;
use crate::tui::app::{App, Focus, Tab};

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(snap) = app.snapshot.as_ref() else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let w = usize::from(area.width);
    let tab = app.tab;
    let rows = app.rows(tab);
    let focused = app.focus == Focus::List;
    let mut title = vec![(format!(" {} ", tab.title()), theme.pane_title(focused))];
    // Until the items' receipts are in, a text filter has seen only part of
    // what it searches: its matches are a lower bound.
    let partial = snap.receipts_pending && !app.filter.is_empty();
    title.push((
        format!(
            "· {} of {}{} ",
            rows.len(),
            total(snap, tab),
            if partial { " so far" } else { "" }
        ),
        theme.dim(),
    ));
    if tab == Tab::Duplicates {
        title.push((
            format!("· class {} (t) ", app.class_filter.label()),
            theme.plain(),
        ));
    }
    if !app.filter.is_empty() {
        title.push((
            format!("· filter \"{}\" (Esc clears) ", text::safe(&app.filter, 30)),
            theme.key(),
        ));
    }
    let mut lines = vec![fit_segments(title, w)];

    let height = usize::from(area.height - 1);
    if rows.is_empty() {
        let why = if app.filter.is_empty() && app.class_filter == Default::default() {
            match tab {
                Tab::Duplicates => "No duplicate groups: nothing slipped past the keys.",
                Tab::Conflicts => "No key conflicts.",
                Tab::Stuck => "No receipts stuck in flight.",
                Tab::Bots => "No suspected bots.",
                Tab::Damaged => "No damaged rows.",
                Tab::Receipts => "",
                Tab::Log => "The review log is empty: no decisions yet.",
                Tab::Forms => "No forms in this period.",
            }
        } else if partial {
            "Nothing matches so far: the receipts are still being read."
        } else {
            "Nothing matches the filter (Esc clears the text filter, t the class)."
        };
        lines.push(Line::styled(
            format!("  {}", text::fit(why, w.saturating_sub(2))),
            theme.dim(),
        ));
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let pos = app.pos(tab);
    let selected = pos.selected.min(rows.len() - 1);
    // The same rule as `update`, in case the screen size changed since.
    let offset = crate::tui::app::layout::offset_showing(selected, pos.offset, height);
    let inner = w.saturating_sub(2);
    // The item column is as wide as the longest id in sight (ids grow with the database).
    let item_w = rows
        .iter()
        .skip(offset)
        .take(height)
        .filter_map(|&row| app.row_id(tab, row))
        .map(|id| id.len())
        .max()
        .unwrap_or(8)
        + 1;
    for (i, &row) in rows.iter().enumerate().skip(offset).take(height) {
        let is_selected = i == selected;
        let marker = if is_selected { "> " } else { "  " };
        let (cells, row_style) = row_cells(app, snap, tab, row, inner, item_w, theme);
        let mut spans = vec![Span::raw(marker)];
        let mut used = 0;
        for (cell, style) in cells {
            used += text::width(&cell);
            spans.push(Span::styled(cell, style));
        }
        if used < inner {
            spans.push(Span::raw(" ".repeat(inner - used)));
        }
        let mut line = Line::from(spans).style(row_style);
        if is_selected {
            line = line.patch_style(theme.selected(focused));
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), area);
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

/// The status word of a decision item, and its style.
pub fn status(app: &App, item: &str, theme: &Theme) -> (&'static str, Style) {
    if app.awaiting.contains_key(item) {
        return ("sending…", theme.dim());
    }
    let review = app.review(item);
    if review.resolved {
        ("resolved", theme.resolved())
    } else if review.new_copy_since_decision {
        ("new copy", theme.warn())
    } else {
        ("pending", theme.pending())
    }
}

/// Cells of a row, each padded to its column; never wider than the row.
struct Cells {
    cells: Vec<(String, Style)>,
    left: usize,
}

impl Cells {
    /// A column of `cells` cells, its last one a blank separator.
    fn push(&mut self, text: &str, cells: usize, style: Style) {
        let cells = cells.min(self.left);
        if cells > 1 {
            self.cells.push((text::pad(text, cells - 1) + " ", style));
            self.left -= cells;
        }
    }

    /// The last column takes what is left.
    fn rest(&mut self, text: &str, style: Style) {
        let cells = self.left;
        if cells > 0 {
            self.cells.push((text::pad(text, cells), style));
            self.left = 0;
        }
    }
}

fn note_flag(app: &App, item: &str) -> &'static str {
    if app.notes.contains_key(item) {
        "✎"
    } else {
        " "
    }
}

/// Cells of one row, fitted so that together they take at most `w` cells.
fn row_cells(
    app: &App,
    snap: &Snapshot,
    tab: Tab,
    row: usize,
    w: usize,
    item_w: usize,
    theme: &Theme,
) -> (Vec<(String, Style)>, Style) {
    let t = &snap.triage;
    let plain = Style::default();
    let mut c = Cells {
        cells: Vec::new(),
        left: w,
    };
    let mut row_style = plain;
    let mut item_status = |c: &mut Cells, item: &str| {
        let (word, style) = status(app, item, theme);
        if app.review(item).resolved {
            row_style = theme.dim();
        }
        c.push(word, 9, style);
        c.push(
            &format!("{item}{}", note_flag(app, item)),
            item_w + 1,
            plain,
        );
    };
    match tab {
        Tab::Duplicates => {
            let g = &t.duplicates[row];
            item_status(&mut c, &g.item());
            c.push(g.class.as_str(), 13, plain);
            c.push(&format!("{}×", g.members.len()), 5, plain);
            c.push(if g.is_exact() { "exact" } else { "near" }, 6, plain);
            let scope_w = (c.left / 3).clamp(9, 19);
            c.push(&text::safe(&g.scope, scope_w), scope_w, plain);
            c.rest(&text::safe(&preview(snap, g.members[0].id), w), theme.dim());
        }
        Tab::Conflicts => {
            let k = &t.conflicts[row];
            item_status(&mut c, &k.item());
            let n = k.attempts.len();
            c.push(
                &format!("{n} attempt{}", if n == 1 { "" } else { "s" }),
                12,
                plain,
            );
            let key_w = (c.left * 2 / 3).clamp(8, 30);
            c.push(
                &format!("key {}", text::safe(&k.request_key, key_w)),
                key_w,
                plain,
            );
            c.rest(&text::safe(&k.scope, w), theme.dim());
        }
        Tab::Stuck => {
            let s = &t.stuck[row];
            item_status(&mut c, &s.item());
            c.push(&human_duration(app.age_ms(s.age_ms)), 13, plain);
            let key = match s.request_key.as_deref() {
                Some(k) => format!("key {}", text::safe(k, w)),
                None => "no key".into(),
            };
            let key_w = (c.left / 2).clamp(6, 26);
            c.push(&key, key_w, plain);
            c.rest(&text::safe(&s.scope, w), theme.dim());
        }
        Tab::Bots => {
            let g = &t.bot_groups[row];
            item_status(&mut c, &g.item());
            let evidence = match g.evidence {
                crate::triage::model::BotEvidence::Campaign => "same message",
                crate::triage::model::BotEvidence::Honeypot => "bot trap",
                crate::triage::model::BotEvidence::Empty => "empty",
            };
            c.push(evidence, 13, theme.warn());
            c.push(&format!("{}×", g.receipts.len()), 6, plain);
            let senders = match g.senders {
                0 => "no sender".to_string(),
                1 => "1 sender".to_string(),
                n => format!("{n} senders"),
            };
            c.push(&senders, 11, plain);
            c.push(&short_time(app.shown_zone(), g.first_ms()), 17, theme.dim());
            let scopes = g.scopes_label();
            c.rest(&text::safe(&scopes, w), theme.dim());
        }
        // Drawn by `canvas::receipts`.
        Tab::Receipts => {}
        Tab::Damaged => {
            let d = &t.damaged[row];
            c.push(&format!("#{}", d.receipt_id), 10, plain);
            c.push(d.reason.as_str(), 9, theme.warn());
            c.rest(&text::safe(&d.detail, w), plain);
        }
        Tab::Log => {
            let l = &snap.log[row];
            let when = l
                .decided_at_ms
                .map(|t| short_time(app.shown_zone(), t))
                .unwrap_or_else(|| "?".into());
            c.push(&when, 17, theme.dim());
            c.push(&text::safe(&l.operator, 12), 13, plain);
            c.push(&text::safe(&l.decision, 16), 17, theme.key());
            c.push(&text::safe(&l.item, 18), 19, plain);
            let note = l
                .note
                .as_deref()
                .map(|n| text::safe(n, w))
                .unwrap_or_default();
            c.rest(&note, theme.dim());
        }
        // Drawn by its own canvas (see `forms`).
        Tab::Forms => {}
    }
    (c.cells, row_style)
}

/// A few of a receipt's visitor values, to recognise a row (already normalised).
fn preview(snap: &Snapshot, id: i64) -> String {
    let Some(r) = snap.receipt_view(id) else {
        return String::new();
    };
    let mut picked: Vec<&str> = ["name", "email", "subject"]
        .iter()
        .filter_map(|k| r.fields().find(|(f, _)| f == k).map(|(_, v)| v))
        .collect();
    if picked.is_empty() {
        picked = r.fields().take(2).map(|(_, v)| v).collect();
    }
    picked.join(" · ")
}
