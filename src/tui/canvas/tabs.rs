//! The tab bar, with pending / total per tab.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments};
use crate::tui::app::{App, Tab};

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let c = &app.counts;
    let mut segments = Vec::new();
    for tab in Tab::ALL {
        let count = match tab {
            Tab::Duplicates => format!("{}/{}", c.groups_pending, c.groups),
            Tab::Conflicts => format!("{}/{}", c.conflicts_pending, c.conflicts),
            Tab::Stuck => format!("{}/{}", c.stuck_pending, c.stuck),
            Tab::Damaged => c.damaged.to_string(),
            Tab::Log => c.log.to_string(),
        };
        let active = tab == app.tab;
        let marker = if active { ">" } else { " " };
        segments.push((
            format!("{marker}{} {} {count} ", tab.index() + 1, tab.title()),
            theme.tab(active),
        ));
        segments.push(("│".to_string(), theme.dim()));
    }
    segments.pop();
    segments.push(("  (pending/all)".to_string(), theme.dim()));
    let line = fit_segments(segments, usize::from(area.width));
    frame.render_widget(Paragraph::new(line), area);
}
