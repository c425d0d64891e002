//! The tab bar, with pending / total per tab.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments, text, whole_segments};
use crate::t;
use crate::tui::app::msg::TabPlace;
use crate::tui::app::{App, Tab};

/// How much of each tab the bar shows: the first that fits the width.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// Titles, and pending/all.
    Full,
    /// Shorter titles, and pending/all.
    Short,
    /// The shortest titles and what is pending.
    Tiny,
    /// The same, no space before the next tab.
    Snug,
    /// The same, each title against its number too: what lets Japanese (two
    /// columns a character) keep every name and count at 80 columns.
    Compact,
    /// Numbers, and the shown tab's title and pending count.
    Numbers,
}

/// Draws the tab bar; says where each tab's title went, as far as it shows.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Vec<TabPlace> {
    let c = &app.counts;
    let lang = app.lang;
    let w = usize::from(area.width);
    let segments = |fit: Fit| {
        let mut segments = Vec::new();
        for tab in Tab::ALL {
            let (pending, all) = match tab {
                Tab::Duplicates => (Some(c.groups_pending), Some(c.groups)),
                Tab::Conflicts => (Some(c.conflicts_pending), Some(c.conflicts)),
                Tab::Stuck => (Some(c.stuck_pending), Some(c.stuck)),
                Tab::Bots => (Some(c.bot_groups_pending), Some(c.bot_groups)),
                Tab::Damaged => (Some(c.damaged), None),
                Tab::Log => (Some(c.log), None),
                Tab::Receipts | Tab::Forms => (None, None),
            };
            let count = match (tab, fit) {
                (_, Fit::Full | Fit::Short) => match (pending, all) {
                    (Some(p), Some(a)) => format!("{p}/{a}"),
                    (Some(n), None) => n.to_string(),
                    _ => wide_count(app, tab),
                },
                _ => pending.map(|n| n.to_string()).unwrap_or_default(),
            };
            let active = tab == app.tab;
            let marker = if active { ">" } else { " " };
            let title = match fit {
                Fit::Full => tab.title(app.lang),
                Fit::Short => tab.short_title(app.lang),
                Fit::Tiny | Fit::Snug | Fit::Compact => tab.tiny_title(app.lang),
                Fit::Numbers if active => tab.tiny_title(app.lang),
                Fit::Numbers => "",
            };
            let number = tab.index() + 1;
            let (gap, end) = match fit {
                Fit::Compact => ("", ""),
                Fit::Snug => (" ", ""),
                _ => (" ", " "),
            };
            let text = match (title.is_empty(), count.is_empty() || title.is_empty()) {
                (true, _) => format!("{marker}{number} "),
                (false, true) => format!("{marker}{number}{gap}{title}{end}"),
                (false, false) => format!("{marker}{number}{gap}{title} {count}{end}"),
            };
            segments.push((text, theme.tab(active)));
            segments.push(("│".to_string(), theme.dim()));
        }
        segments.pop();
        // Without the legend after it, the last tab needs no space at its end.
        if fit != Fit::Full
            && let Some((last, _)) = segments.last_mut()
        {
            last.truncate(last.trim_end().len());
        }
        segments
    };
    let width = |segments: &[(String, ratatui::style::Style)]| -> usize {
        segments.iter().map(|(t, _)| text::width(t)).sum()
    };
    let mut full = segments(Fit::Full);
    let line = if width(&full) <= w {
        full.push((
            format!("  {}", t!(lang, "screen.tabs.pending_all")),
            theme.dim(),
        ));
        whole_segments(full, w)
    } else {
        // Every tab stays in sight: shorter titles, fewer counts, and a cut
        // only as a last resort.
        let fitting = [Fit::Short, Fit::Tiny, Fit::Snug, Fit::Compact, Fit::Numbers]
            .into_iter()
            .map(segments)
            .find(|s| width(s) <= w)
            .unwrap_or_else(|| segments(Fit::Numbers));
        fit_segments(fitting, w)
    };
    let places = places(&line, area);
    frame.render_widget(Paragraph::new(line), area);
    places
}

/// Where the bar's titles went: its segments alternate a tab's title and a
/// separator, in the order of [`Tab::ALL`]; the fitting keeps them in order
/// and only leaves out or cuts the last ones.
fn places(line: &Line, area: Rect) -> Vec<TabPlace> {
    let mut places = Vec::new();
    let mut x = area.x;
    for (i, span) in line.spans.iter().enumerate() {
        let width = u16::try_from(text::width(&span.content)).unwrap_or(u16::MAX);
        let shown = width.min(area.right().saturating_sub(x));
        if i % 2 == 0
            && let Some(&tab) = Tab::ALL.get(i / 2)
            && shown > 0
        {
            places.push(TabPlace {
                tab,
                area: Rect::new(x, area.y, shown, area.height.min(1)),
            });
        }
        x = x.saturating_add(width);
    }
    places
}

/// The Receipts tab's hits and the Forms tab's forms, where there is room.
fn wide_count(app: &App, tab: Tab) -> String {
    match tab {
        Tab::Receipts => app
            .find
            .outcome
            .as_ref()
            .map_or("–".to_string(), |o| o.total.to_string()),
        // Counted once the tab has been opened.
        Tab::Forms => match app.forms.view() {
            Some(_) => app.forms.rows().len().to_string(),
            None => String::new(),
        },
        _ => String::new(),
    }
}
