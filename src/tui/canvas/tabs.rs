//! The tab bar, with pending / total per tab.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments, text, whole_segments};
use crate::tui::app::{App, Tab};

fn short_title(tab: Tab) -> &'static str {
    match tab {
        Tab::Duplicates => "Dup",
        Tab::Conflicts => "Confl",
        Tab::Stuck => "Stuck",
        Tab::Damaged => "Dmg",
        Tab::Forms => "Forms",
        Tab::Log => "Log",
    }
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = &app.counts;
    let w = usize::from(area.width);
    let segments = |short: bool| {
        let mut segments = Vec::new();
        for tab in Tab::ALL {
            let count = match tab {
                Tab::Duplicates => format!("{}/{}", c.groups_pending, c.groups),
                Tab::Conflicts => format!("{}/{}", c.conflicts_pending, c.conflicts),
                Tab::Stuck => format!("{}/{}", c.stuck_pending, c.stuck),
                Tab::Damaged => c.damaged.to_string(),
                // Counted once the tab has been opened.
                Tab::Forms => match app.forms.view() {
                    Some(_) => app.forms.rows().len().to_string(),
                    None => String::new(),
                },
                Tab::Log => c.log.to_string(),
            };
            let active = tab == app.tab;
            let marker = if active { ">" } else { " " };
            let title = if short { short_title(tab) } else { tab.title() };
            segments.push((
                if count.is_empty() {
                    format!("{marker}{} {title} ", tab.index() + 1)
                } else {
                    format!("{marker}{} {title} {count} ", tab.index() + 1)
                },
                theme.tab(active),
            ));
            segments.push(("│".to_string(), theme.dim()));
        }
        segments.pop();
        segments
    };
    let mut full = segments(false);
    let width: usize = full.iter().map(|(t, _)| text::width(t)).sum();
    let line = if width <= w {
        full.push(("  (pending/all)".to_string(), theme.dim()));
        whole_segments(full, w)
    } else {
        // Every tab stays in sight: shorter titles, and a cut only as a last resort.
        fit_segments(segments(true), w)
    };
    frame.render_widget(Paragraph::new(line), area);
}
