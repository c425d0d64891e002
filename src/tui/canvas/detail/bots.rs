//! The detail of a bot group: why it is suspected, its receipts with their
//! times, scopes and senders, and what the review log says.

use ratatui::text::{Line, Span};

use super::super::{Theme, short_time, text};
use crate::reading::Snapshot;
use crate::sanitize::clean;
use crate::triage::model::BotEvidence;
use crate::tui::app::App;
use crate::tui::app::bots::sender_of;
use crate::tui::app::msg::PayloadRef;

fn why(evidence: BotEvidence) -> &'static str {
    match evidence {
        BotEvidence::Campaign => {
            "One message body arrived from three or more different senders within the window, \
             on one form or several: a bot posting every form it finds."
        }
        BotEvidence::Honeypot => {
            "A hidden bot-trap field was filled in. People never see that field; bots fill \
             every field they find."
        }
        BotEvidence::Empty => {
            "Every field the visitor could type was empty: a scanner trying the form."
        }
    }
}

pub fn lines(
    app: &App,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let g = &snap.triage.bot_groups[index];
    let item = g.item();
    let review = app.review(&item);
    let (word, style) = super::super::list::status(app, &item, theme);
    let n = g.receipts.len();
    let rest = format!(
        "  {} · {n} receipt{} · {} sender{}",
        g.evidence.describe(),
        if n == 1 { "" } else { "s" },
        g.senders,
        if g.senders == 1 { "" } else { "s" }
    );
    let used = text::width(&item) + 2 + text::width(word);
    let mut lines = vec![Line::from(vec![
        Span::styled(item.clone(), theme.title()),
        Span::raw("  "),
        Span::styled(word.to_string(), style),
        Span::raw(text::fit(&rest, w.saturating_sub(used))),
    ])];
    for part in text::wrap(why(g.evidence), w) {
        lines.push(Line::styled(part, theme.dim()));
    }
    let span = format!(
        "From {} to {}.",
        app.shown_zone().format_rfc3339(g.first_ms()),
        app.shown_zone().format_rfc3339(g.last_ms())
    );
    lines.push(Line::raw(text::fit(&span, w)));
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        text::fit("receipt    time              sender / scope", w),
        theme.dim(),
    ));
    for r in &g.receipts {
        let asked = app.payload(PayloadRef::Receipt(r.id));
        let payload = asked.and_then(|p| p.as_ref().ok()).map(String::as_str);
        let read = asked.is_some() || snap.receipt_view(r.id).is_some();
        let sender = match sender_of(snap, payload, r.id) {
            Some(s) => clean(&s).into_owned(),
            None if read => "(no sender)".into(),
            // Not read yet (or past the first receipts, whose payloads are read).
            None => "…".into(),
        };
        let row = format!(
            "#{:<9} {:<17} {} · {}",
            r.id,
            short_time(app.shown_zone(), r.created_ms),
            sender,
            clean(g.scope_of(r))
        );
        lines.push(Line::raw(text::fit(&row, w)));
    }
    lines.push(Line::raw(""));
    for part in text::wrap(
        "s marks the whole group spam (asks first); N marks it not spam; u undoes.",
        w,
    ) {
        lines.push(Line::styled(part, theme.dim()));
    }
    lines
}
