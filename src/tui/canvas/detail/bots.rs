//! The detail of a bot group: why it is suspected, its receipts with their
//! times, scopes and senders, and what the review log says.

use ratatui::text::Line;

use super::super::{Theme, screen_time, text};
use crate::i18n::Lang;
use crate::reading::Snapshot;
use crate::sanitize::clean;
use crate::t;
use crate::triage::model::{BotEvidence, BotGroup};
use crate::triage::visitor::{is_noise_key, normalize_key};
use crate::tui::app::App;
use crate::tui::app::bots::sender_of;
use crate::tui::app::msg::PayloadRef;

fn why(evidence: BotEvidence, lang: Lang) -> &'static str {
    match evidence {
        BotEvidence::Campaign => t!(lang, "screen.detail.bots.campaign"),
        BotEvidence::Honeypot => t!(lang, "screen.detail.bots.honeypot"),
        BotEvidence::Empty => t!(lang, "screen.detail.bots.empty"),
    }
}

pub fn lines(
    app: &App,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let lang = app.lang;
    let g = &snap.triage.bot_groups[index];
    let item = g.item();
    let review = app.review(&item);
    let (word, style) = super::super::list::status(app, &item, theme);
    let n = g.receipts.len();
    let receipts = if n == 1 {
        t!(lang, "screen.detail.bots.receipts_one", n = n)
    } else {
        t!(lang, "screen.detail.bots.receipts_many", n = n)
    };
    let senders = if g.senders == 1 {
        t!(lang, "screen.detail.bots.senders_one", n = g.senders)
    } else {
        t!(lang, "screen.detail.bots.senders_many", n = g.senders)
    };
    let rest = format!(
        "  {} · {receipts} · {senders}",
        g.evidence.describe_in(lang)
    );
    let mut lines = super::heading(&item, (word, style), &rest, w, theme);
    for part in text::wrap(why(g.evidence, lang), w) {
        lines.push(Line::styled(part, theme.dim()));
    }
    if g.evidence == BotEvidence::Campaign
        && let Some(message) = shared_message(app, snap, g)
    {
        let said = t!(
            lang,
            "screen.detail.bots.message",
            text = clean(&text::head(&message, 400))
        );
        for part in text::wrap_at_most(&said, w, 4) {
            lines.push(Line::raw(part));
        }
    }
    let span = t!(
        lang,
        "screen.detail.bots.span",
        from = screen_time(app, g.first_ms()),
        to = screen_time(app, g.last_ms())
    );
    for part in text::wrap(&span, w) {
        lines.push(Line::raw(part));
    }
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    lines.push(Line::raw(""));
    // The receipt's number and time columns, as the rows below pad them.
    // The time column as wide as its longest time (the year only when it
    // is not this one's), as the list says them.
    let times: Vec<String> = g
        .receipts
        .iter()
        .map(|r| screen_time(app, r.created_ms))
        .collect();
    let time_w = times
        .iter()
        .map(|t| text::width(t))
        .chain([text::width(t!(lang, "screen.detail.bots.time"))])
        .max()
        .unwrap_or(0)
        + 2;
    let head = format!(
        "{}{}{}",
        text::pad(t!(lang, "screen.detail.bots.receipt"), 11),
        text::pad(t!(lang, "screen.detail.bots.time"), time_w),
        t!(lang, "screen.detail.bots.sender_scope")
    );
    lines.push(Line::styled(text::fit(&head, w), theme.dim()));
    for (r, time) in g.receipts.iter().zip(&times) {
        let asked = app.payload(PayloadRef::Receipt(r.id));
        let payload = asked.and_then(|p| p.as_ref().ok()).map(String::as_str);
        let read = asked.is_some() || snap.receipt_view(r.id).is_some();
        let sender = match sender_of(snap, payload, r.id) {
            Some(s) => clean(&s).into_owned(),
            None if read => t!(lang, "screen.detail.bots.no_sender").into(),
            // Not read yet (or past the first receipts, whose payloads are read).
            None => "…".into(),
        };
        let row = format!(
            "#{:<9} {} {} · {}",
            r.id,
            text::pad(time, time_w - 1),
            sender,
            clean(g.scope_of(r))
        );
        lines.push(Line::raw(text::fit(&row, w)));
    }
    lines.push(Line::raw(""));
    for part in text::wrap(t!(lang, "screen.detail.bots.keys"), w) {
        lines.push(Line::styled(part, theme.dim()));
    }
    lines
}

/// The message a campaign's receipts share: the longest text of its first
/// receipt (the field the campaign rule compares), as sent when its payload
/// is read, else as the analysis folded it.
fn shared_message(app: &App, snap: &Snapshot, g: &BotGroup) -> Option<String> {
    let first = g.receipts.first()?.id;
    let longest = |texts: &mut dyn Iterator<Item = &str>| {
        texts
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .max_by_key(|t| t.chars().count())
            .map(str::to_string)
    };
    if let Some(Ok(payload)) = app.payload(PayloadRef::Receipt(first))
        && let Ok(serde_json::Value::Object(map)) = serde_json::from_str(payload)
    {
        return longest(
            &mut map
                .iter()
                .filter(|(k, _)| !is_noise_key(&normalize_key(k)))
                .filter_map(|(_, v)| v.as_str()),
        );
    }
    let view = snap.receipt_view(first)?;
    longest(&mut view.fields().map(|(_, v)| v))
}
