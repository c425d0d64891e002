//! Before the first reading: progress, or why the database could not be read.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, centered, text};
use crate::t;
use crate::tui::app::App;

const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(76);
    let w = usize::from(width);
    let lang = app.lang;
    let mut lines = vec![Line::styled("receipt-review", theme.title()), Line::raw("")];
    let database = app
        .database
        .as_ref()
        .map(|p| text::safe(&p.display().to_string(), w.saturating_sub(8)))
        .unwrap_or_else(|| t!(lang, "screen.progress.the_database").into());
    if let Some(why) = &app.load_error {
        lines.push(Line::styled(
            t!(lang, "screen.progress.could_not_read", database = database),
            theme.warn(),
        ));
        for line in text::wrap(&crate::sanitize::clean(why), w) {
            lines.push(Line::raw(line));
        }
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("r", theme.key()),
            Span::raw(format!(" {}   ", t!(lang, "screen.progress.try_again"))),
            Span::styled("q", theme.key()),
            Span::raw(format!(" {}", t!(lang, "screen.progress.quit"))),
        ]));
    } else {
        let spin = SPINNER[(app.ticks % 4) as usize];
        lines.push(Line::raw(format!(
            "{spin} {}",
            t!(lang, "screen.progress.reading", database = database)
        )));
        if let Some(p) = &app.progress {
            let stage = text::safe(p.stage, w / 2);
            let counted = match p.total {
                Some(total) if total > 0 => {
                    let pct = (p.done.min(total) * 100) / total;
                    let bar_w = w.saturating_sub(8).min(50);
                    let filled = (bar_w as u64 * p.done.min(total) / total) as usize;
                    lines.push(Line::raw(t!(
                        lang,
                        "screen.progress.counted",
                        stage = stage,
                        done = p.done,
                        total = total
                    )));
                    format!(
                        "[{}{}] {pct:>3}%",
                        "#".repeat(filled),
                        " ".repeat(bar_w - filled)
                    )
                }
                // A step with nothing to count shows only its name.
                _ if p.done == 0 => stage.to_string(),
                _ => t!(lang, "screen.progress.done", stage = stage, done = p.done),
            };
            lines.push(Line::raw(counted));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            t!(lang, "screen.progress.patience"),
            theme.dim(),
        ));
    }
    let height = lines.len() as u16;
    frame.render_widget(Paragraph::new(lines), centered(area, width, height));
}
