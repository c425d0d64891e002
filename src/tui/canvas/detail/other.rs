//! The detail of a conflict, a stuck receipt, a damaged row and a log entry.

use ratatui::text::{Line, Span};

use super::super::{Theme, screen_time, text};
use super::compare::{self, Column};
use crate::i18n::Lang;
use crate::model::time::human_duration_in;
use crate::reading::Snapshot;
use crate::sanitize::clean;
use crate::t;
use crate::triage::model::AttemptSource;
use crate::tui::app::msg::PayloadRef;
use crate::tui::app::rows::attempt_ref;
use crate::tui::app::{App, words};

fn heading(app: &App, item: &str, rest: String, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let status = super::super::list::status(app, item, theme);
    super::heading(item, status, &rest, w, theme)
}

fn wrapped(lines: &mut Vec<Line<'static>>, text_: &str, w: usize, style: ratatui::style::Style) {
    for part in text::wrap(text_, w) {
        lines.push(Line::styled(part, style));
    }
}

pub fn conflict(
    app: &App,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let lang = app.lang;
    let c = &snap.triage.conflicts[index];
    let item = c.item();
    let review = app.review(&item);
    let mut lines = heading(
        app,
        &item,
        format!(
            "  {}",
            t!(
                lang,
                "screen.detail.conflict.heading",
                key = clean(&c.request_key),
                scope = clean(&c.scope)
            )
        ),
        w,
        theme,
    );
    wrapped(
        &mut lines,
        t!(lang, "screen.detail.conflict.explain"),
        w,
        theme.dim(),
    );
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    lines.push(Line::raw(""));
    let original = snap.receipt(c.receipt_id);
    let original_ms = original.as_ref().map(|r| r.created_ms);
    let mut head = t!(lang, "screen.detail.conflict.original", id = c.receipt_id);
    if let Some(r) = original {
        head.push_str(&format!(
            "  {}",
            t!(
                lang,
                "screen.detail.conflict.original_facts",
                time = screen_time(app, r.created_ms),
                state = r.state.label_in(lang),
                replays = snap.replays_of(r.id)
            )
        ));
        if let Some(n) = snap.absorbed_of(r.id) {
            head.push_str(&t!(lang, "screen.detail.conflict.original_absorbed", n = n));
        }
    }
    wrapped(&mut lines, &head, w, theme.plain());
    for (i, a) in c.attempts.iter().enumerate() {
        let source = match a.source {
            AttemptSource::KeyConflicts => {
                t!(lang, "screen.detail.conflict.refused", id = a.id)
            }
            AttemptSource::Receipts => t!(lang, "screen.detail.conflict.receipt", id = a.id),
        };
        let mut line = t!(
            lang,
            "screen.detail.conflict.attempt",
            n = i + 1,
            source = source
        );
        if let Some(at) = a.at_ms {
            line.push_str(&format!("  {}", screen_time(app, at)));
            if let Some(first) = original_ms {
                line.push_str(&format!(
                    "  {}",
                    t!(
                        lang,
                        "screen.detail.conflict.after",
                        gap = human_duration_in(at - first, lang)
                    )
                ));
            }
        }
        wrapped(&mut lines, &line, w, theme.plain());
    }
    lines.push(Line::raw(""));
    let mut columns = vec![Column {
        label: t!(
            lang,
            "screen.detail.conflict.original_column",
            id = c.receipt_id
        ),
        fields: compare::compared_fields(app, PayloadRef::Receipt(c.receipt_id)),
        visitor: None,
    }];
    for (i, a) in c.attempts.iter().enumerate() {
        columns.push(Column {
            label: t!(lang, "screen.detail.conflict.attempt_column", n = i + 1),
            fields: compare::compared_fields(app, attempt_ref(a)),
            visitor: None,
        });
    }
    lines.push(Line::styled(
        t!(lang, "screen.detail.fields"),
        theme.title(),
    ));
    // Compared as a group's copies are: by what the visitor typed.
    lines.push(compare::legend(true, lang, theme, w));
    lines.extend(compare::compare(&columns, w, true, lang, theme));
    lines
}

pub fn stuck(
    app: &App,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let lang = app.lang;
    let s = &snap.triage.stuck[index];
    let item = s.item();
    let review = app.review(&item);
    let r = snap.receipt(s.receipt_id);
    let age = human_duration_in(app.age_ms(s.age_ms), lang);
    let mut lines = heading(
        app,
        &item,
        format!("  {}", t!(lang, "screen.detail.stuck.heading", age = age)),
        w,
        theme,
    );
    let mut facts = vec![t!(lang, "screen.detail.receipt", id = s.receipt_id)];
    if let Some(r) = r {
        let since = screen_time(app, r.created_ms);
        facts.push(t!(lang, "screen.detail.stuck.since", time = since));
        let state = r.state.label_in(lang);
        facts.push(t!(lang, "screen.detail.stuck.state", state = state));
        if let Some(u) = r.updated_ms {
            let updated = screen_time(app, u);
            facts.push(t!(lang, "screen.detail.stuck.updated", time = updated));
        }
    }
    let replays = snap.replays_of(s.receipt_id);
    facts.push(t!(lang, "screen.detail.replays", n = replays));
    if let Some(n) = snap.absorbed_of(s.receipt_id) {
        facts.push(t!(lang, "screen.detail.absorbed", n = n));
    }
    wrapped(&mut lines, &facts.join(" · "), w, theme.plain());
    wrapped(
        &mut lines,
        &t!(lang, "screen.detail.scope", scope = clean(&s.scope)),
        w,
        theme.plain(),
    );
    let key = s
        .request_key
        .as_deref()
        .map(|k| clean(k).into_owned())
        .unwrap_or_else(|| t!(lang, "screen.detail.no_key").into());
    wrapped(
        &mut lines,
        &t!(lang, "screen.detail.key", key = key),
        w,
        theme.plain(),
    );
    wrapped(
        &mut lines,
        t!(lang, "screen.detail.stuck.explain"),
        w,
        theme.dim(),
    );
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        t!(lang, "screen.detail.fields"),
        theme.title(),
    ));
    let columns = [Column {
        label: format!("#{}", s.receipt_id),
        fields: compare::fields(app, PayloadRef::Receipt(s.receipt_id)),
        visitor: None,
    }];
    lines.extend(compare::compare(&columns, w, false, lang, theme));
    lines
}

pub fn damaged(
    lang: Lang,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let d = &snap.triage.damaged[index];
    let mut lines = vec![Line::from(vec![
        Span::styled(
            t!(lang, "screen.detail.receipt", id = d.receipt_id),
            theme.title(),
        ),
        Span::raw(format!("  {} ", t!(lang, "screen.detail.damaged.heading"))),
        Span::styled(d.reason.label_in(lang).to_string(), theme.warn()),
    ])];
    wrapped(
        &mut lines,
        &clean(&d.detail.message(lang)),
        w,
        theme.plain(),
    );
    lines.push(Line::raw(""));
    wrapped(
        &mut lines,
        t!(lang, "screen.detail.damaged.explain"),
        w,
        theme.dim(),
    );
    lines
}

pub fn log_entry(
    app: &App,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let lang = app.lang;
    let l = &snap.log[index];
    let mut lines = vec![Line::styled(
        text::fit(&t!(lang, "screen.detail.log.heading", id = l.id), w),
        theme.title(),
    )];
    let when = l
        .decided_at_ms
        .map(|t| screen_time(app, t))
        .unwrap_or_else(|| "?".into());
    wrapped(
        &mut lines,
        &words::log_sentence(
            &clean(&l.kind),
            &clean(&l.item),
            &clean(&l.decision),
            &clean(&l.operator),
            &when,
            lang,
        ),
        w,
        theme.plain(),
    );
    let ids: Vec<String> = l.receipt_ids.iter().map(|id| format!("#{id}")).collect();
    wrapped(
        &mut lines,
        &t!(
            lang,
            "screen.detail.log.receipts",
            ids = ids.join(t!(lang, "words.list.comma"))
        ),
        w,
        theme.plain(),
    );
    if let Some(r) = l.reopens {
        wrapped(
            &mut lines,
            &t!(lang, "screen.detail.log.reopens", id = r),
            w,
            theme.plain(),
        );
    }
    if let Some(kept) = l.kept {
        wrapped(
            &mut lines,
            &t!(lang, "screen.detail.log.keeps", id = kept),
            w,
            theme.plain(),
        );
    }
    if let Some(batch) = l.batch {
        let n = snap.log.iter().filter(|e| e.batch == Some(batch)).count();
        wrapped(
            &mut lines,
            &t!(lang, "screen.detail.log.batch", n = n, id = batch),
            w,
            theme.plain(),
        );
    }
    if let Some(note) = &l.note {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            t!(lang, "screen.detail.log.note"),
            theme.title(),
        ));
        for line in crate::sanitize::clean_lines(note) {
            wrapped(&mut lines, &line, w, theme.plain());
        }
    }
    lines
}
