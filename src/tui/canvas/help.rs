//! The `?` help: the keys, generated from the keymap table, then the
//! words the screen uses and what each decision changes (see `words`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{Theme, centered, clear_popup, text};
use crate::i18n::Lang;
use crate::t;
use crate::tui::app::keymap::Keymap;
use crate::tui::app::{App, words};

pub fn help_lines(theme: &Theme, width: usize, lang: Lang, keymap: &Keymap) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let key_w = 16;
    for (title, rows) in keymap.help_sections(lang) {
        if rows.is_empty() {
            continue;
        }
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(title.to_string(), theme.title()));
        for (keys, help) in rows {
            let wrapped = text::wrap(help, width.saturating_sub(key_w + 2).max(10));
            for (i, part) in wrapped.into_iter().enumerate() {
                let k = if i == 0 { keys.as_str() } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {}", text::pad(k, key_w)), theme.key()),
                    Span::raw(part),
                ]));
            }
        }
    }
    // After the keys: the words the screen uses (and what the comparison's
    // cells say when a field is missing or empty), and what decisions do.
    let mut terms = words::glossary(lang).to_vec();
    terms.extend([
        ("—", t!(lang, "words.glossary.absent")),
        (
            t!(lang, "words.term.blank"),
            t!(lang, "words.glossary.blank"),
        ),
    ]);
    for (title, rows) in [
        (words::help_terms(lang), terms.as_slice()),
        (words::help_decisions(lang), words::decision_effects(lang)),
    ] {
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(title.to_string(), theme.title()));
        for (term, meaning) in rows {
            let room = width.saturating_sub(key_w + 2).max(10);
            if text::width(term) >= key_w {
                // A long term on its own line, the meaning under it.
                lines.push(Line::styled(format!("  {term}"), theme.key()));
                for part in text::wrap(meaning, room) {
                    lines.push(Line::raw(format!("  {}{part}", " ".repeat(key_w))));
                }
                continue;
            }
            for (i, part) in text::wrap(meaning, room).into_iter().enumerate() {
                let t = if i == 0 { *term } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {}", text::pad(t, key_w)), theme.key()),
                    Span::raw(part),
                ]));
            }
        }
    }
    lines
}

/// Draws the help; returns how far it can scroll.
pub fn draw(frame: &mut Frame, area: Rect, scroll: usize, app: &App, theme: &Theme) -> usize {
    let width = area.width.saturating_sub(4).min(96);
    let height = area.height.saturating_sub(2);
    let popup = centered(area, width, height);
    let block = Block::bordered()
        .title(format!(" {} ", t!(app.lang, "screen.help.title")))
        .border_style(theme.title());
    let inner = block.inner(popup);
    let lines = help_lines(theme, usize::from(inner.width), app.lang, &app.keymap);
    let visible = usize::from(inner.height);
    let max_scroll = lines.len().saturating_sub(visible);
    let scroll = scroll.min(max_scroll);
    let shown: Vec<Line> = lines.into_iter().skip(scroll).take(visible).collect();
    clear_popup(frame, popup);
    frame.render_widget(Paragraph::new(shown).block(block), popup);
    max_scroll
}
