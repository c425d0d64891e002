//! Below 60×16 the screen only says so.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::Theme;
use crate::i18n::Lang;
use crate::t;
use crate::tui::app::layout::{MIN_HEIGHT, MIN_WIDTH};

pub fn draw(frame: &mut Frame, area: Rect, lang: Lang, theme: &Theme) {
    let lines = vec![
        Line::styled(t!(lang, "screen.progress.too_small"), theme.warn()),
        Line::raw(t!(
            lang,
            "screen.progress.size",
            width = area.width,
            height = area.height,
            min_width = MIN_WIDTH,
            min_height = MIN_HEIGHT
        )),
        Line::raw(t!(lang, "screen.progress.enlarge")),
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
