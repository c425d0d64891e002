//! The raw payloads of the selection (`v`), pretty-printed and made safe.

use ratatui::text::Line;

use super::super::{Theme, text};
use crate::i18n::Lang;
use crate::sanitize::clean_lines;
use crate::t;
use crate::tui::app::App;
use crate::tui::app::msg::PayloadRef;

fn label(r: PayloadRef, lang: Lang) -> String {
    match r {
        PayloadRef::Receipt(id) => t!(lang, "screen.detail.raw.receipt", id = id),
        PayloadRef::KeyConflict(id) => t!(lang, "screen.detail.raw.refused", id = id),
    }
}

/// How much of one payload's pretty text is shown: far more than anyone
/// reads on a screen, and a bound on the work of every frame (a hostile 1 MB
/// field would otherwise be cleaned and wrapped at each key press).
const SHOWN_BYTES: usize = 64 * 1024;

/// `text` cut to at most `max` bytes at a character boundary, and how many
/// bytes were left out.
fn cut(text: &str, max: usize) -> (&str, usize) {
    if text.len() <= max {
        return (text, 0);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
}

pub fn lines(app: &App, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let lang = app.lang;
    let mut lines = Vec::new();
    let wanted = app.wanted_payloads();
    if wanted.is_empty() {
        lines.push(Line::styled(
            format!("  {}", t!(lang, "screen.detail.raw.none")),
            theme.dim(),
        ));
    }
    for r in wanted {
        lines.push(Line::styled(
            format!("── {} ──", label(r, lang)),
            theme.title(),
        ));
        match app.payload(r) {
            None => lines.push(Line::styled(
                format!("  {}", t!(lang, "screen.detail.loading")),
                theme.dim(),
            )),
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
                let (shown, left_out) = cut(&pretty, SHOWN_BYTES);
                for line in clean_lines(shown) {
                    for part in text::wrap(&line, width) {
                        lines.push(Line::raw(part));
                    }
                }
                if left_out > 0 {
                    lines.push(Line::styled(
                        format!(
                            "  {}",
                            t!(lang, "screen.detail.raw.more_bytes", n = left_out)
                        ),
                        theme.dim(),
                    ));
                }
            }
        }
        lines.push(Line::raw(""));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn a_huge_payload_is_cut_at_a_character_boundary() {
        assert_eq!(cut("abc", 10), ("abc", 0));
        assert_eq!(cut("日本語", 4), ("日", 6));
        let huge = "x".repeat(100_000);
        assert_eq!(cut(&huge, 1000).1, 99_000);
    }
}
