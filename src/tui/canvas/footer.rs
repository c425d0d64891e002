//! The status line (or the line being typed) and the key hints, which come
//! from the keymap table.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit_segments, text};
use crate::sanitize::clean;
use crate::t;
use crate::tui::app::keymap::{KeyCommand, Mode};
use crate::tui::app::{App, Input, StatusKind};

pub fn draw(frame: &mut Frame, status: Rect, hints: Rect, app: &App, theme: &Theme) {
    if status.height > 0 {
        draw_status(frame, status, app, theme);
    }
    if hints.height > 0 {
        draw_hints(frame, hints, app, theme);
    }
}

fn draw_status(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let w = usize::from(area.width);
    if let Some(input) = &app.input {
        let prompt = match input {
            Input::Filter { .. } => "/".to_string(),
            Input::Note { item, .. } => t!(app.lang, "screen.footer.note_prompt", item = item),
            Input::Find { .. } => t!(app.lang, "screen.footer.find_prompt").to_string(),
            Input::EraseNote { who, .. } => t!(
                app.lang,
                "screen.footer.erase_prompt",
                who = crate::tui::app::words::erase_who(who, app.lang)
            ),
        };
        // Show the end of what is typed; the cursor sits after it.
        let typed = clean(input.text()).into_owned();
        let room = w.saturating_sub(text::width(&prompt) + 1);
        let shown = tail(&typed, room);
        let x = area.x + (text::width(&prompt) + text::width(&shown)) as u16;
        let mut spans = vec![Span::styled(prompt, theme.key()), Span::raw(shown)];
        // An empty search line shows the last search, dim, until a key
        // replaces it (↑ brings it back).
        if let (Input::Find { .. }, Some(last)) = (input, app.find.last_search())
            && typed.is_empty()
        {
            spans.push(Span::styled(text::fit(&clean(last), room), theme.dim()));
        }
        let line = Line::from(spans);
        frame.render_widget(Paragraph::new(line), area);
        frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), area.y));
        return;
    }
    let Some(status) = &app.status else {
        return;
    };
    let style = match status.kind {
        StatusKind::Info => theme.plain(),
        StatusKind::Success => theme.success(),
        StatusKind::Error => theme.warn(),
    };
    let line = Line::styled(text::safe(&status.text, w), style);
    frame.render_widget(Paragraph::new(line), area);
}

/// The end of `text` that fits in `cells`, marked with `…` when cut.
fn tail(text: &str, cells: usize) -> String {
    if text::width(text) <= cells {
        return text.to_string();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in text.chars().rev() {
        let w = text::width(c.encode_utf8(&mut [0; 4]));
        if used + w > cells {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

fn is_decision(command: KeyCommand) -> bool {
    matches!(
        command,
        KeyCommand::Decide(_)
            | KeyCommand::BulkDuplicate
            | KeyCommand::Note
            | KeyCommand::Undo
            | KeyCommand::ReopenChosen
    )
}

fn draw_hints(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let w = usize::from(area.width);
    let mode = app.mode();
    let read_only = app.read_only().is_some() && matches!(mode, Mode::Main { .. });
    let mut lead: Vec<(String, Style)> = Vec::new();
    if read_only {
        lead.push((
            format!("{}  ", t!(app.lang, "screen.footer.read_only")),
            theme.warn(),
        ));
    }
    let mut essential = Vec::new();
    let mut others = Vec::new();
    for (binding, key) in app.keymap.hinted(mode) {
        if read_only && is_decision(binding.command) {
            continue;
        }
        // Notes go with decisions: no hint where nothing is decided.
        if binding.command == KeyCommand::Note && !app.tab.decides() {
            continue;
        }
        // Reopening is offered where a decision stands.
        if binding.command == KeyCommand::ReopenChosen && !app.selection_decided() {
            continue;
        }
        let pair = vec![
            (key.label(app.lang), theme.key()),
            (format!(" {}  ", binding.hint_in(app.lang)), theme.plain()),
        ];
        if matches!(binding.command, KeyCommand::Help | KeyCommand::Quit) {
            essential.push(pair);
        } else {
            others.push(pair);
        }
    }
    let width_of =
        |pair: &Vec<(String, Style)>| pair.iter().map(|(t, _)| text::width(t)).sum::<usize>();
    let lead_w: usize = lead.iter().map(|(t, _)| text::width(t)).sum();
    let essential_w: usize = essential.iter().map(width_of).sum();
    let mut room = w.saturating_sub(lead_w + essential_w);
    let mut segments = lead;
    for pair in others {
        let pw = width_of(&pair);
        if pw > room {
            break;
        }
        room -= pw;
        segments.extend(pair);
    }
    for pair in essential {
        segments.extend(pair);
    }
    frame.render_widget(Paragraph::new(fit_segments(segments, w)), area);
}
