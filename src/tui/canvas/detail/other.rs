//! The detail of a conflict, a stuck receipt, a damaged row and a log entry.

use ratatui::text::{Line, Span};

use super::super::{Theme, text};
use super::compare::{self, Column};
use crate::model::Zone;
use crate::model::time::human_duration;
use crate::reading::Snapshot;
use crate::sanitize::clean;
use crate::triage::model::AttemptSource;
use crate::tui::app::msg::PayloadRef;
use crate::tui::app::rows::attempt_ref;
use crate::tui::app::{App, words};

fn heading(app: &App, item: &str, rest: String, w: usize, theme: &Theme) -> Line<'static> {
    let (word, style) = super::super::list::status(app, item, theme);
    let used = text::width(item) + 2 + text::width(word);
    Line::from(vec![
        Span::styled(item.to_string(), theme.title()),
        Span::raw("  "),
        Span::styled(word.to_string(), style),
        Span::raw(text::fit(&rest, w.saturating_sub(used))),
    ])
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
    let c = &snap.triage.conflicts[index];
    let item = c.item();
    let review = app.review(&item);
    let mut lines = vec![heading(
        app,
        &item,
        format!(
            "  key {} · scope {}",
            clean(&c.request_key),
            clean(&c.scope)
        ),
        w,
        theme,
    )];
    wrapped(
        &mut lines,
        "The same key came back with a different body. The original was kept; decide whether the change needs a follow-up.",
        w,
        theme.dim(),
    );
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    lines.push(Line::raw(""));
    let original = snap.receipt(c.receipt_id);
    let original_ms = original.as_ref().map(|r| r.created_ms);
    let mut head = format!("original  #{}", c.receipt_id);
    if let Some(r) = original {
        head.push_str(&format!(
            "  {}  {} · replays {}",
            app.shown_zone().format_rfc3339(r.created_ms),
            words::state_named(r.state.as_str(), app.lang),
            snap.replays_of(r.id)
        ));
    }
    lines.push(Line::raw(text::fit(&head, w)));
    for (i, a) in c.attempts.iter().enumerate() {
        let source = match a.source {
            AttemptSource::KeyConflicts => format!("refused, key_conflicts #{}", a.id),
            AttemptSource::Receipts => format!("receipt #{}", a.id),
        };
        let mut line = format!("attempt {} {source}", i + 1);
        if let Some(at) = a.at_ms {
            line.push_str(&format!("  {}", app.shown_zone().format_rfc3339(at)));
            if let Some(first) = original_ms {
                line.push_str(&format!(
                    "  +{} after the original",
                    human_duration(at - first)
                ));
            }
        }
        lines.push(Line::raw(text::fit(&line, w)));
    }
    lines.push(Line::raw(""));
    let mut columns = vec![Column {
        label: format!("original #{}", c.receipt_id),
        fields: compare::compared_fields(app, PayloadRef::Receipt(c.receipt_id)),
        visitor: None,
    }];
    for (i, a) in c.attempts.iter().enumerate() {
        columns.push(Column {
            label: format!("attempt {}", i + 1),
            fields: compare::compared_fields(app, attempt_ref(a)),
            visitor: None,
        });
    }
    lines.push(Line::styled("Fields", theme.title()));
    // Compared as a group's copies are: by what the visitor typed.
    lines.push(compare::legend(true, theme, w));
    lines.extend(compare::compare(&columns, w, true, theme));
    lines
}

pub fn stuck(
    app: &App,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let s = &snap.triage.stuck[index];
    let item = s.item();
    let review = app.review(&item);
    let r = snap.receipt(s.receipt_id);
    let mut lines = vec![heading(
        app,
        &item,
        format!("  in flight for {}", human_duration(app.age_ms(s.age_ms))),
        w,
        theme,
    )];
    let mut facts = vec![format!("receipt #{}", s.receipt_id)];
    if let Some(r) = r {
        facts.push(format!(
            "since {}",
            app.shown_zone().format_rfc3339(r.created_ms)
        ));
        facts.push(format!(
            "state {}",
            words::state_named(r.state.as_str(), app.lang)
        ));
        if let Some(u) = r.updated_ms {
            facts.push(format!("updated {}", app.shown_zone().format_rfc3339(u)));
        }
    }
    facts.push(format!("replays {}", snap.replays_of(s.receipt_id)));
    wrapped(&mut lines, &facts.join(" · "), w, theme.plain());
    wrapped(
        &mut lines,
        &format!("scope {}", clean(&s.scope)),
        w,
        theme.plain(),
    );
    let key = s
        .request_key
        .as_deref()
        .map(|k| clean(k).into_owned())
        .unwrap_or_else(|| "(none)".into());
    wrapped(&mut lines, &format!("key {key}"), w, theme.plain());
    wrapped(
        &mut lines,
        "The outcome is unknown. Time alone never makes a receipt failed: mark it completed (C) or failed (F) only after checking; p if it is still pending.",
        w,
        theme.dim(),
    );
    lines.extend(super::review_lines(app, &item, &review, w, theme));
    lines.push(Line::raw(""));
    lines.push(Line::styled("Fields", theme.title()));
    let columns = [Column {
        label: format!("#{}", s.receipt_id),
        fields: compare::fields(app, PayloadRef::Receipt(s.receipt_id)),
        visitor: None,
    }];
    lines.extend(compare::compare(&columns, w, false, theme));
    lines
}

pub fn damaged(snap: &Snapshot, index: usize, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let d = &snap.triage.damaged[index];
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("receipt #{}", d.receipt_id), theme.title()),
        Span::raw("  damaged: "),
        Span::styled(d.reason.as_str().to_string(), theme.warn()),
    ])];
    wrapped(&mut lines, &clean(&d.detail), w, theme.plain());
    lines.push(Line::raw(""));
    wrapped(
        &mut lines,
        "Listed so that it is never silently skipped: the row could not be analysed. Fix it at the source, then r reads the database again. v shows its raw payload.",
        w,
        theme.dim(),
    );
    lines
}

pub fn log_entry(
    zone: Zone,
    snap: &Snapshot,
    index: usize,
    w: usize,
    theme: &Theme,
    lang: crate::i18n::Lang,
) -> Vec<Line<'static>> {
    let l = &snap.log[index];
    let mut lines = vec![Line::styled(
        text::fit(&format!("review log entry #{}", l.id), w),
        theme.title(),
    )];
    let when = l
        .decided_at_ms
        .map(|t| zone.format_rfc3339(t))
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
        &format!("receipts {}", ids.join(", ")),
        w,
        theme.plain(),
    );
    if let Some(r) = l.reopens {
        wrapped(
            &mut lines,
            &format!("It reopens entry #{r}: that decision no longer stands."),
            w,
            theme.plain(),
        );
    }
    if let Some(kept) = l.kept {
        wrapped(
            &mut lines,
            &format!("keeps #{kept} as the copy to answer"),
            w,
            theme.plain(),
        );
    }
    if let Some(batch) = l.batch {
        let n = snap.log.iter().filter(|e| e.batch == Some(batch)).count();
        wrapped(
            &mut lines,
            &format!("one of {n} entries written together (from entry #{batch})"),
            w,
            theme.plain(),
        );
    }
    if let Some(note) = &l.note {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Note", theme.title()));
        for line in crate::sanitize::clean_lines(note) {
            wrapped(&mut lines, &line, w, theme.plain());
        }
    }
    lines
}
