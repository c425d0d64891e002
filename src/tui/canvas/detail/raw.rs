//! The raw payloads of the selection (`v`), pretty-printed and made safe.

use ratatui::text::Line;

use super::super::{Theme, text};
use crate::sanitize::clean_lines;
use crate::tui::app::App;
use crate::tui::app::msg::PayloadRef;

fn label(r: PayloadRef) -> String {
    match r {
        PayloadRef::Receipt(id) => format!("receipt #{id}"),
        PayloadRef::KeyConflict(id) => format!("refused attempt (key_conflicts #{id})"),
    }
}

pub fn lines(app: &App, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let wanted = app.wanted_payloads();
    if wanted.is_empty() {
        lines.push(Line::styled("  No payload for this row.", theme.dim()));
    }
    for r in wanted {
        lines.push(Line::styled(format!("── {} ──", label(r)), theme.title()));
        match app.payload(r) {
            None => lines.push(Line::styled("  loading…", theme.dim())),
            Some(Err(why)) => {
                for part in text::wrap(&crate::sanitize::clean(why), width) {
                    lines.push(Line::styled(part, theme.warn()));
                }
            }
            Some(Ok(body)) => {
                let pretty = serde_json::from_str::<serde_json::Value>(body)
                    .ok()
                    .and_then(|v| serde_json::to_string_pretty(&v).ok())
                    .unwrap_or_else(|| body.clone());
                for line in clean_lines(&pretty) {
                    for part in text::wrap(&line, width) {
                        lines.push(Line::raw(part));
                    }
                }
            }
        }
        lines.push(Line::raw(""));
    }
    lines
}
