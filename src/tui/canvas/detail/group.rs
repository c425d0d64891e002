//! A duplicate group: the copy kept as the one to answer (marked ✓, chosen
//! with `[` `]`), its copies with time, gap and class, key, state, replays
//! and match kind (and why a near copy was grouped), then the field-by-field
//! comparison.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::{Theme, screen_time, text};
use super::compare::{self, Column};
use crate::i18n::Lang;
use crate::model::Zone;
use crate::model::time::human_duration_in;
use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::reading::{ItemReview, Snapshot};
use crate::sanitize::clean;
use crate::t;
use crate::triage::model::{DuplicateGroup, GapClass, MatchKind};
use crate::tui::app::msg::PayloadRef;
use crate::tui::app::{App, keep, words};

/// `10:15:30.123`, or `11-30 10:15:30` when the day differs from the first copy's.
fn time_of_day(zone: Zone, ms: Millis, first: Millis) -> String {
    let full = zone.format_rfc3339(ms);
    let day = |t: &str| t.get(..10).map(str::to_string);
    if day(&full) == day(&zone.format_rfc3339(first)) {
        full.get(11..23).unwrap_or(&full).to_string()
    } else {
        format!(
            "{} {}",
            full.get(5..10).unwrap_or(""),
            full.get(11..19).unwrap_or("")
        )
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
    let g = &snap.triage.duplicates[index];
    let item = g.item();
    let review = app.review(&item);
    let (word, word_style) = super::super::list::status(app, &item, theme);
    let partial = g
        .members
        .iter()
        .filter(|m| m.match_kind == MatchKind::Partial)
        .count();
    let edited = g
        .members
        .iter()
        .filter(|m| m.match_kind == MatchKind::Edited)
        .count();
    let erased = g
        .members
        .iter()
        .filter(|m| m.match_kind == MatchKind::Erased)
        .count();
    let kind = if erased == g.members.len() {
        t!(lang, "screen.detail.group.all_erased").to_string()
    } else if partial + edited == 0 {
        // The copies still compared are exact; the erased ones are said apart.
        let mut kind = t!(lang, "screen.detail.group.exact").to_string();
        if erased > 0 {
            kind.push_str(t!(lang, "screen.detail.group.list_separator"));
            kind.push_str(&t!(lang, "screen.detail.group.erased", n = erased));
        }
        kind
    } else {
        let mut parts = Vec::new();
        if partial > 0 {
            parts.push(t!(lang, "screen.detail.group.partial", n = partial));
        }
        if edited > 0 {
            parts.push(t!(lang, "screen.detail.group.edited", n = edited));
        }
        if erased > 0 {
            parts.push(t!(lang, "screen.detail.group.erased", n = erased));
        }
        let kinds = parts.join(t!(lang, "screen.detail.group.list_separator"));
        t!(lang, "screen.detail.group.near", kinds = kinds)
    };
    let heading = t!(
        lang,
        "screen.detail.group.heading",
        class = g.class.label_in(lang),
        copies = g.members.len(),
        kind = kind
    );
    let mut lines = super::heading(&item, (word, word_style), &heading, w, theme);
    let first_ms = snap.receipt(g.members[0].id).map(|r| r.created_ms);
    let mut about = t!(lang, "screen.detail.scope", scope = clean(&g.scope));
    if let Some(first) = first_ms {
        let time = screen_time(app, first);
        about.push_str(&format!(
            " · {}",
            t!(lang, "screen.detail.group.first_copy", time = time)
        ));
    }
    for part in text::wrap_at_most(&about, w, 2) {
        lines.push(Line::styled(part, theme.dim()));
    }
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    let bots: Vec<String> = g
        .members
        .iter()
        .filter(|m| snap.triage.suspected_bots.binary_search(&m.id).is_ok())
        .map(|m| format!("#{}", m.id))
        .collect();
    if !bots.is_empty() {
        let said = t!(
            lang,
            "screen.detail.group.suspected_bot",
            receipts = bots.join(t!(lang, "words.list.comma"))
        );
        for part in text::wrap(&said, w) {
            lines.push(Line::styled(part, theme.warn()));
        }
    }
    lines.push(Line::raw(""));
    let kept = if review.resolved {
        review.kept
    } else {
        keep::keeping(app, snap, g).kept
    };
    lines.extend(keep_lines(app, snap, g, &review, w, theme));
    lines.extend(copies(app.shown_zone(), lang, snap, g, kept, w, theme));
    lines.push(Line::raw(""));

    // Made whole for this drawing only (the reading keeps them compact).
    let receipts: Vec<_> = g.members.iter().map(|m| snap.receipt(m.id)).collect();
    let columns: Vec<Column> = g
        .members
        .iter()
        .zip(&receipts)
        .map(|(m, r)| Column {
            label: format!("#{}", m.id),
            fields: compare::fields(app, PayloadRef::Receipt(m.id)),
            visitor: r.as_ref().map(|r| &r.visitor),
        })
        .collect();
    lines.push(Line::styled(
        t!(lang, "screen.detail.fields"),
        theme.title(),
    ));
    lines.push(compare::legend(true, lang, theme, w));
    lines.extend(compare::compare(&columns, w, true, lang, theme));
    lines
}

/// The marker of the copy kept as the one to answer.
const KEPT: &str = "✓";

/// What the group keeps: the copy marked, why, and how to choose another.
fn keep_lines(
    app: &App,
    snap: &Snapshot,
    g: &DuplicateGroup,
    review: &ItemReview,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let lang = app.lang;
    let text = if review.resolved {
        match review.kept {
            Some(id) => format!(
                "{KEPT} {}",
                t!(lang, "screen.detail.group.kept_recorded", id = id)
            ),
            None => return Vec::new(),
        }
    } else {
        let k = keep::keeping(app, snap, g);
        let what = match (k.kept, k.chosen) {
            (Some(id), true) => format!(
                "{KEPT} {}",
                t!(lang, "screen.detail.group.keep_chosen", id = id)
            ),
            (Some(id), false) if id == k.latest => format!(
                "{KEPT} {}",
                t!(lang, "screen.detail.group.keep_complete", id = id)
            ),
            (Some(id), false) => format!(
                "{KEPT} {}",
                t!(
                    lang,
                    "screen.detail.group.keep_complete_or_latest",
                    id = id,
                    latest = k.latest
                )
            ),
            (None, _) => t!(lang, "screen.detail.group.keep_unread").to_string(),
        };
        // Decisions are off: nothing to choose for.
        if app.read_only().is_some() {
            what
        } else {
            format!("{what} · {}", t!(lang, "screen.detail.group.choose"))
        }
    };
    text::wrap_at_most(&text, w, 2)
        .into_iter()
        .map(|part| Line::styled(part, theme.key()))
        .collect()
}

/// The table of copies, one row each (plus a line saying why a near copy is
/// here); the copy `kept` is marked.
fn copies(
    zone: Zone,
    lang: Lang,
    snap: &Snapshot,
    g: &DuplicateGroup,
    kept: Option<ReceiptId>,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    // Fixed columns; the key takes what is left.
    const NUM: usize = 3;
    const ID: usize = 8;
    const TIME: usize = 12;
    const GAP: usize = 11;
    // The word columns are as wide as this language's header and words: in
    // Japanese they are shorter, and the match word (一部のみ) longer.
    let widest = |words: &[&str], at_least: usize| {
        words
            .iter()
            .map(|w| text::width(w))
            .max()
            .unwrap_or(0)
            .max(at_least)
    };
    let class_w = widest(
        &[
            t!(lang, "screen.detail.group.class"),
            GapClass::Simultaneous.label_in(lang),
            GapClass::Seconds.label_in(lang),
            GapClass::Minutes.label_in(lang),
        ],
        0,
    );
    let state_w = widest(
        &[
            t!(lang, "screen.detail.group.state"),
            ReceiptState::InFlight.label_in(lang),
            ReceiptState::Completed.label_in(lang),
            ReceiptState::Failed.label_in(lang),
        ],
        0,
    );
    // Counts right-aligned, with a blank after them.
    let replays_w = widest(&[t!(lang, "screen.detail.group.replays")], 5);
    let absorbed_w = widest(&[t!(lang, "screen.detail.group.absorbed")], 5);
    let match_w = widest(
        &[
            match_word(MatchKind::Exact, lang),
            match_word(MatchKind::Partial, lang),
            match_word(MatchKind::Edited, lang),
        ],
        7,
    );
    // Copies the intake absorbed, where the database counts them: a column
    // beside the replays when the pane has room, else said on the key's
    // line under a copy that has any.
    let counted = snap.absorbed_total.is_some();
    let mut fixed = NUM + ID + TIME + GAP + class_w + state_w + replays_w + match_w + 8;
    let absorbed = counted && w > fixed + absorbed_w;
    if absorbed {
        fixed += absorbed_w + 1;
    }
    // On a narrow pane the key goes on a line of its own under each copy.
    let key_inline = w >= fixed + 12;
    let key_w = if key_inline { (w - fixed).min(40) } else { 0 };
    let first = snap.receipt(g.members[0].id).map(|r| r.created_ms);
    // The zone the times are shown in (the first copy's abbreviation).
    let zone_name = match first {
        _ if zone.is_utc() => "UTC".to_string(),
        Some(t) => zone.abbreviation(t),
        None => zone.abbreviation(0),
    };
    let mut header = vec![
        text::pad("", NUM),
        text::pad(t!(lang, "screen.detail.group.receipt"), ID),
        text::pad(
            &t!(lang, "screen.detail.group.time", zone = zone_name),
            TIME,
        ),
        text::pad(t!(lang, "screen.detail.group.gap"), GAP),
        text::pad(t!(lang, "screen.detail.group.class"), class_w),
    ];
    if key_inline {
        header.push(text::pad(t!(lang, "screen.detail.group.key"), key_w));
    }
    header.extend([
        text::pad(t!(lang, "screen.detail.group.state"), state_w),
        text::pad(t!(lang, "screen.detail.group.replays"), replays_w),
    ]);
    if absorbed {
        header.push(text::pad(
            t!(lang, "screen.detail.group.absorbed"),
            absorbed_w,
        ));
    }
    header.push(text::pad(t!(lang, "screen.detail.group.match"), match_w));
    let header = header.join(" ");
    let mut lines = vec![Line::styled(text::fit(&header, w), theme.dim())];
    for (i, m) in g.members.iter().enumerate() {
        let r = snap.receipt(m.id);
        let r = r.as_ref();
        let time = match (r, first) {
            (Some(r), Some(first)) => time_of_day(zone, r.created_ms, first),
            _ => "?".into(),
        };
        let (gap, class) = match i.checked_sub(1).and_then(|p| g.gaps_ms.get(p)) {
            Some(&gap) => (
                format!("+{}", human_duration_in(gap, lang)),
                GapClass::of_gap(gap).label_in(lang).to_string(),
            ),
            None => ("—".into(), String::new()),
        };
        // A receipt not read yet (the items' receipts follow the analysis)
        // may well have a key: "?" as for its time and state, not "(none)".
        let key = match r {
            Some(r) => r.request_key.as_deref().map_or_else(
                || t!(lang, "screen.detail.no_key").into(),
                |k| clean(k).into_owned(),
            ),
            None => "?".into(),
        };
        let state = r.map_or_else(|| "?".into(), |r| r.state.label_in(lang).to_string());
        let replays = snap.replays_of(m.id).to_string();
        let match_style = if m.match_kind == MatchKind::Exact {
            theme.plain()
        } else {
            theme.differs()
        };
        let mark = if kept == Some(m.id) { KEPT } else { " " };
        let mut cells = vec![
            text::pad(&format!("{mark}{}.", i + 1), NUM),
            text::pad(&format!("#{}", m.id), ID),
            text::pad(&time, TIME),
            text::pad(&gap, GAP),
            text::pad(&class, class_w),
        ];
        if key_inline {
            cells.push(text::pad(&key, key_w));
        }
        cells.extend([
            text::pad(&state, state_w),
            text::pad_left(&replays, replays_w - 1) + " ",
        ]);
        let absorbed_n = snap.absorbed_of(m.id).unwrap_or(0);
        if absorbed {
            cells.push(text::pad_left(&absorbed_n.to_string(), absorbed_w - 1) + " ");
        }
        let mut used = 0;
        let mut spans = Vec::new();
        for cell in cells {
            let cell = format!("{cell} ");
            used += text::width(&cell);
            spans.push(Span::raw(cell));
        }
        spans.push(Span::styled(
            text::fit(match_word(m.match_kind, lang), w.saturating_sub(used)),
            match_style,
        ));
        lines.push(clip(spans, w));
        let indent = " ".repeat(NUM + 1 + ID + 1);
        if !key_inline {
            let mut key = t!(lang, "screen.detail.key", key = key);
            if !absorbed && absorbed_n > 0 {
                key.push_str(" · ");
                key.push_str(&t!(lang, "screen.detail.absorbed", n = absorbed_n));
            }
            lines.push(Line::styled(
                text::fit(&format!("{indent}{key}"), w),
                theme.dim(),
            ));
        }
        if m.match_kind != MatchKind::Exact {
            let why = why_near(snap, g, m, lang);
            for part in text::wrap_at_most(&why, w.saturating_sub(indent.len()), 2) {
                lines.push(Line::from(vec![
                    Span::raw(indent.clone()),
                    Span::styled(part, theme.differs()),
                ]));
            }
        }
    }
    lines
}

/// How a copy matches the first, in words.
fn match_word(kind: MatchKind, lang: Lang) -> &'static str {
    match kind {
        MatchKind::Exact => t!(lang, "screen.detail.match.exact"),
        MatchKind::Partial => t!(lang, "screen.detail.match.partial"),
        MatchKind::Edited => t!(lang, "screen.detail.match.edited"),
        MatchKind::Erased => t!(lang, "screen.detail.match.erased"),
    }
}

/// Keeps a row of spans within `w` cells.
fn clip(spans: Vec<Span<'static>>, w: usize) -> Line<'static> {
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let sw = text::width(&span.content);
        if used + sw <= w {
            used += sw;
            out.push(span);
        } else {
            let room = w - used;
            if room > 0 {
                let style: Style = span.style;
                out.push(Span::styled(text::fit(&span.content, room), style));
            }
            break;
        }
    }
    Line::from(out)
}

/// Why a near copy is in its group, in words: which fields only one of it
/// and the first copy has (partial), or which differ by a few words or by
/// which sentences (edited).
fn why_near(
    snap: &Snapshot,
    g: &crate::triage::model::DuplicateGroup,
    m: &crate::triage::model::Member,
    lang: crate::i18n::Lang,
) -> String {
    let fields: Vec<String> = m.fields.iter().map(|f| clean(f).into_owned()).collect();
    match m.match_kind {
        MatchKind::Partial => {
            let has = |id: i64, field: &str| {
                snap.receipt_view(id)
                    .map(|r| r.fields().any(|(k, _)| k == field))
            };
            let first = g.members[0].id;
            let (mut here, mut there, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
            for (field, shown) in m.fields.iter().zip(fields) {
                match (has(m.id, field), has(first, field)) {
                    (Some(true), Some(false)) => here.push(shown),
                    (Some(false), Some(true)) => there.push(shown),
                    _ => unknown.push(shown),
                }
            }
            words::partial_copy(&here, &there, &unknown, lang)
        }
        MatchKind::Edited if !m.sentence_changes.is_empty() => {
            words::edited_by_sentences(&fields, &m.sentence_changes, lang)
        }
        MatchKind::Edited => words::edited_copy(&fields, lang),
        MatchKind::Exact | MatchKind::Erased => String::new(),
    }
}
