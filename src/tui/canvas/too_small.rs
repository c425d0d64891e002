//! Below 60×16 the screen only says so.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::Theme;
use crate::tui::app::layout::{MIN_HEIGHT, MIN_WIDTH};

pub fn draw(frame: &mut Frame, area: Rect, theme: &Theme) {
    let lines = vec![
        Line::styled("Terminal too small", theme.warn()),
        Line::raw(format!(
            "{}×{} here, {MIN_WIDTH}×{MIN_HEIGHT} needed.",
            area.width, area.height
        )),
        Line::raw("Enlarge the window, or q to quit."),
    ];
    let height = (lines.len() as u16 + 2).min(area.height);
    let top = area.y + area.height.saturating_sub(height) / 2;
    let inner = Rect::new(area.x, top, area.width, area.height - (top - area.y));
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        inner,
    );
}
