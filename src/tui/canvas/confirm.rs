//! Confirmation dialogs (focus starts on the safe answer) and the export choice.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{Theme, centered, clear_popup, text};
use crate::i18n::Lang;
use crate::review::ExportFile;
use crate::t;
use crate::tui::app::App;
use crate::tui::app::clipboard::{self, CopyWhat};
use crate::tui::app::state::{Confirm, EXPORT_CHOICES, export_label};

/// A button: `[ No ]`, or `> [ No ] <` in reverse video when it has the focus.
fn button(label: &str, focused: bool, theme: &Theme) -> Vec<Span<'static>> {
    if focused {
        vec![
            Span::styled("> ", theme.key()),
            Span::styled(format!("[ {label} ]"), theme.selected(true)),
            Span::styled(" <", theme.key()),
        ]
    } else {
        vec![Span::raw(format!("  [ {label} ]  "))]
    }
}

fn popup(frame: &mut Frame, area: Rect, title: &str, body: Vec<Line<'static>>, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(76);
    let height = (body.len() as u16 + 2).min(area.height);
    let rect = centered(area, width, height);
    let block = Block::bordered()
        .title(format!(
            " {} ",
            text::safe(title, usize::from(width.saturating_sub(4)))
        ))
        .border_style(theme.warn());
    clear_popup(frame, rect);
    frame.render_widget(Paragraph::new(body).block(block), rect);
}

pub fn draw_confirm(frame: &mut Frame, area: Rect, confirm: &Confirm, theme: &Theme) {
    let inner_w = usize::from(area.width.saturating_sub(4).min(76).saturating_sub(2));
    let mut body: Vec<Line<'static>> = Vec::new();
    for line in &confirm.lines {
        for part in text::wrap(&crate::sanitize::clean(line), inner_w.saturating_sub(1)) {
            body.push(Line::raw(format!(" {part}")));
        }
    }
    body.push(Line::raw(""));
    let mut buttons = vec![Span::raw(" ")];
    buttons.extend(button(&confirm.no_label, !confirm.yes_focused, theme));
    buttons.push(Span::raw("  "));
    buttons.extend(button(&confirm.yes_label, confirm.yes_focused, theme));
    body.push(Line::from(buttons));
    popup(frame, area, &confirm.title, body, theme);
}

pub fn draw_export(frame: &mut Frame, area: Rect, choice: &ExportFile, lang: Lang, theme: &Theme) {
    let inner_w = usize::from(area.width.saturating_sub(4).min(76).saturating_sub(2));
    let said = |text: &str| -> Vec<Line<'static>> {
        text::wrap(text, inner_w.saturating_sub(1))
            .into_iter()
            .map(|part| Line::raw(format!(" {part}")))
            .collect()
    };
    let mut buttons = vec![Span::raw(" ")];
    for (i, file) in EXPORT_CHOICES.into_iter().enumerate() {
        if i > 0 {
            buttons.push(Span::raw(" "));
        }
        buttons.extend(button(export_label(file, lang), file == *choice, theme));
    }
    let mut body = said(t!(lang, "screen.dialog.export_what"));
    body.push(Line::raw(""));
    body.push(Line::from(buttons));
    body.push(Line::raw(""));
    body.extend(said(t!(lang, "screen.dialog.export_bom")));
    popup(
        frame,
        area,
        t!(lang, "screen.dialog.export_title"),
        body,
        theme,
    );
}

/// The `Y` menu: each thing that can be copied, its key and its value (cut to a line,
/// terminal-safe), the choice highlighted.
pub fn draw_copy(frame: &mut Frame, area: Rect, choice: CopyWhat, app: &App, theme: &Theme) {
    let lang = app.lang;
    let inner_w = usize::from(area.width.saturating_sub(4).min(76).saturating_sub(2));
    let keys = ['e', 'n', 'p', 'm', 'r', 'i'];
    let mut body = vec![Line::raw(format!(
        " {}",
        t!(lang, "screen.dialog.copy_what")
    ))];
    body.push(Line::raw(""));
    let label_cells = CopyWhat::ALL
        .iter()
        .map(|w| text::width(w.label(lang)))
        .max()
        .unwrap_or(0);
    let chosen = clipboard::selected(app);
    for (what, key) in CopyWhat::ALL.into_iter().zip(keys) {
        let label = what.label(lang);
        let value = match chosen.as_ref().map(|c| c.value(what)) {
            Some(Ok(Some(v))) => v.replace('\n', " "),
            Some(Err(_)) => t!(lang, "screen.dialog.copy_reading").to_string(),
            _ => t!(lang, "screen.dialog.copy_none").to_string(),
        };
        let head = format!("{key}  {}", text::pad(label, label_cells));
        let room = inner_w.saturating_sub(text::width(&head) + 4);
        let line = format!("{head}  {}", text::safe(&value, room));
        body.push(if what == choice {
            Line::from(vec![
                Span::styled("> ", theme.key()),
                Span::styled(line, theme.selected(true)),
            ])
        } else {
            Line::raw(format!("  {line}"))
        });
    }
    popup(
        frame,
        area,
        t!(lang, "screen.dialog.copy_title"),
        body,
        theme,
    );
}
