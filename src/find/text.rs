//! A search's answer in words, times in the operator's zone: what `find`
//! prints, and the lines the screen takes for a hit's warning and for a miss.

use std::fmt::Write as _;

use super::hits::{Hit, Outcome};
use super::scan::{Found, RECENT_MS};
use crate::model::Zone;
use crate::model::time::human_duration;
use crate::sanitize::inline;

/// What a young in-flight receipt is, to be said as it is.
pub const OUTCOME_UNKNOWN: &str = "outcome not known yet — do not tell the visitor it failed";

/// A miss is never proof: the last line of every miss.
pub const NOT_PROOF: &str = "A miss is not proof that the request never arrived: it may have been typed differently, sent from another address, or still be on its way.";

/// `find` without `--json`.
pub fn render(outcome: &Outcome, zone: Zone) -> String {
    let mut out = String::new();
    let raw = outcome.query.as_ref().map_or("", |q| q.raw.as_str());
    let span = outcome
        .query
        .as_ref()
        .and_then(|q| q.span)
        .map(|s| format!(" ({})", s.describe(zone)))
        .unwrap_or_default();
    if outcome.hits.is_empty() {
        let _ = writeln!(out, "No receipt matches {:?}{span}.", inline(raw, 80));
        for line in explain_miss(outcome, zone) {
            let _ = writeln!(out, "  {line}");
        }
        return out;
    }
    let _ = writeln!(
        out,
        "{} {} {:?}{span}, newest first; times in {}",
        outcome.total,
        if outcome.total == 1 {
            "receipt matches"
        } else {
            "receipts match"
        },
        inline(raw, 80),
        zone.name(),
    );
    if outcome.total > outcome.hits.len() as u64 {
        let _ = writeln!(
            out,
            "(the newest {} shown; add words or a time to narrow it)",
            outcome.hits.len()
        );
    }
    for hit in &outcome.hits {
        out.push('\n');
        for line in hit_lines(hit, zone) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The receipt's one-line summary: number, scope, local time, state, key, replays.
pub fn summary(hit: &Hit, zone: Zone) -> String {
    let mut line = format!(
        "#{}  {}  {}  {}",
        hit.receipt_id,
        inline(&hit.scope, 48),
        hit.created_ms
            .map(|t| zone.format_named(t))
            .unwrap_or_else(|| "time unreadable".into()),
        hit.state.replace('_', " "),
    );
    match &hit.request_key {
        Some(k) => line.push_str(&format!("  key {}", inline(k, 40))),
        None => line.push_str("  no key"),
    }
    if hit.replays > 0 {
        line.push_str(&format!("  replays {}", hit.replays));
    }
    line
}

/// Where the query was found, in words.
pub fn found_where(found: &Found) -> String {
    match found {
        Found::Number => "its number".into(),
        Found::Field(name) if name.is_empty() => "its stored text".into(),
        Found::Field(name) => format!("field {}", inline(name, 40)),
        Found::RequestKey => "its request key".into(),
        Found::Scope => "its scope".into(),
        Found::Time => "its time".into(),
    }
}

/// One item line: `dup:12 pending`, `conflict:40 resolved (original_stands)`.
pub fn item_line(item: &super::ItemRef) -> String {
    match &item.decision {
        Some(d) => format!("{} {} ({})", item.item, item.status, d.replace('_', " ")),
        None => format!("{} {}", item.item, item.status),
    }
}

/// Every line `find` prints for a hit.
pub fn hit_lines(hit: &Hit, zone: Zone) -> Vec<String> {
    let mut lines = vec![summary(hit, zone)];
    if hit.outcome_unknown {
        lines.push(format!("  ⚠ {OUTCOME_UNKNOWN}"));
    }
    lines.push(format!("  found in {}", found_where(&hit.found)));
    if hit.items.is_empty() {
        lines.push("  items: none (not a duplicate, conflict, stuck or bot receipt)".into());
    } else {
        let items: Vec<String> = hit.items.iter().map(item_line).collect();
        lines.push(format!("  items: {}", items.join(", ")));
    }
    for (k, v) in &hit.fields {
        lines.push(format!("  {}: {}", inline(k, 40), inline(v, 200)));
    }
    if let Some(raw) = &hit.unreadable {
        lines.push(format!("  stored: {}", inline(raw, 200)));
    }
    lines
}

/// What a miss does and does not mean.
pub fn explain_miss(outcome: &Outcome, zone: Zone) -> Vec<String> {
    let mut lines = Vec::new();
    let recent = human_duration(RECENT_MS);
    let all = outcome.all_forms();
    for (scope, t) in outcome.named_forms() {
        lines.push(format!(
            "Form {}: {} in flight (outcome not known yet), {} arrived in the last {recent}.",
            inline(scope, 48),
            t.in_flight,
            t.recent
        ));
    }
    lines.push(format!(
        "All forms: {} in flight (outcome not known yet), {} arrived in the last {recent}, {} receipts searched.",
        all.in_flight, all.recent, all.receipts
    ));
    if let Some(span) = outcome.query.as_ref().and_then(|q| q.span) {
        lines.push(format!(
            "{} receipts arrived {}, none matching the rest of the search.",
            all.in_span,
            span.describe(zone)
        ));
    }
    if all.in_flight > 0 {
        lines.push(format!(
            "An in-flight receipt younger than {} may still complete.",
            human_duration(outcome.stuck_after_ms)
        ));
    }
    lines.push(NOT_PROOF.into());
    lines
}
