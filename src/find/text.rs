//! A search's answer in words, times in the operator's zone: what `find`
//! prints, and the lines the screen takes for a hit's warning and for a miss.

use std::fmt::Write as _;

use super::hits::{Hit, Outcome};
use super::scan::{FoundIn, RECENT_MS};
use crate::i18n::Lang;
use crate::model::time::human_duration_in;
use crate::model::{Decision, ReceiptState, Zone};
use crate::sanitize::inline;
use crate::t;

/// What a young in-flight receipt is, to be said as it is (English; the
/// catalogue's `find.outcome_unknown` in any language).
pub const OUTCOME_UNKNOWN: &str = "outcome not known yet — do not tell the visitor it failed";

/// `find` without `--json`, our words in `lang`.
pub fn render(outcome: &Outcome, zone: Zone, lang: Lang) -> String {
    let mut out = String::new();
    let raw = outcome.query.as_ref().map_or("", |q| q.raw.as_str());
    // Quoted by the catalogue, in the marks of its language (「」 in Japanese).
    let query = inline(raw, 80);
    let span = outcome
        .query
        .as_ref()
        .and_then(|q| q.span)
        .map(|s| t!(lang, "find.span", span = s.describe(zone)))
        .unwrap_or_default();
    if outcome.hits.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            t!(lang, "find.no_match", query = query, span = span)
        );
        for line in explain_miss_in(outcome, zone, lang) {
            let _ = writeln!(out, "  {line}");
        }
        return out;
    }
    let heading = if outcome.total == 1 {
        t!(
            lang,
            "find.matches_one",
            total = outcome.total,
            query = query,
            span = span,
            zone = zone.name()
        )
    } else {
        t!(
            lang,
            "find.matches_many",
            total = outcome.total,
            query = query,
            span = span,
            zone = zone.name()
        )
    };
    let _ = writeln!(out, "{heading}");
    if outcome.total > outcome.hits.len() as u64 {
        let _ = writeln!(
            out,
            "{}",
            t!(lang, "find.truncated", n = outcome.hits.len())
        );
    }
    for hit in &outcome.hits {
        out.push('\n');
        for line in hit_lines(hit, zone, lang) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The receipt's one-line summary in English (see [`summary_in`]).
pub fn summary(hit: &Hit, zone: Zone) -> String {
    summary_in(hit, zone, Lang::En)
}

/// The receipt's one-line summary: number, scope, local time, state, key, replays.
pub fn summary_in(hit: &Hit, zone: Zone, lang: Lang) -> String {
    let mut line = format!(
        "#{}  {}  {}  {}",
        hit.receipt_id,
        inline(&hit.scope, 48),
        hit.created_ms
            .map(|t| zone.format_named(t))
            .unwrap_or_else(|| t!(lang, "find.time_unreadable").into()),
        ReceiptState::say_in(&hit.state, lang).replace('_', " "),
    );
    line.push_str("  ");
    match &hit.request_key {
        Some(k) => line.push_str(&t!(lang, "find.key", key = inline(k, 40))),
        None => line.push_str(t!(lang, "find.no_key")),
    }
    if hit.replays > 0 {
        line.push_str("  ");
        line.push_str(&t!(lang, "find.replays", n = hit.replays));
    }
    line
}

/// Where the query was found, in English words (see [`found_where_in`]).
pub fn found_where(found: &FoundIn) -> String {
    found_where_in(found, Lang::En)
}

/// Where the query was found, in words.
pub fn found_where_in(found: &FoundIn, lang: Lang) -> String {
    match found {
        FoundIn::Number => t!(lang, "find.found.number").into(),
        FoundIn::Field(name) if name.is_empty() => t!(lang, "find.found.stored_text").into(),
        FoundIn::Field(name) => t!(lang, "find.found.field", name = inline(name, 40)),
        FoundIn::RequestKey => t!(lang, "find.found.request_key").into(),
        FoundIn::Scope => t!(lang, "find.found.scope").into(),
        FoundIn::Time => t!(lang, "find.found.time").into(),
    }
}

/// One item line in English (see [`item_line_in`]).
pub fn item_line(item: &super::ItemRef) -> String {
    item_line_in(item, Lang::En)
}

/// One item line: `dup:12 pending`, `conflict:40 resolved (original stands)`.
pub fn item_line_in(item: &super::ItemRef, lang: Lang) -> String {
    let status = status_in(&item.status, lang);
    match &item.decision {
        Some(d) => {
            let decision = match Decision::parse(d) {
                Some(decision) => decision.label_in(lang).to_string(),
                None => d.replace('_', " "),
            };
            t!(
                lang,
                "find.item_decided",
                item = item.item,
                status = status,
                decision = decision
            )
        }
        None => format!("{} {}", item.item, status),
    }
}

/// An item's status as [`super::hits`] words it (`pending, new copy`), in `lang`.
pub fn status_in(status: &str, lang: Lang) -> String {
    match status {
        "pending" => t!(lang, "find.status.pending").into(),
        "resolved" => t!(lang, "find.status.resolved").into(),
        "pending, new copy" => t!(lang, "find.status.new_copy").into(),
        "suspected" => t!(lang, "find.status.suspected").into(),
        other => other.to_string(),
    }
}

/// Every line `find` prints for a hit.
pub fn hit_lines(hit: &Hit, zone: Zone, lang: Lang) -> Vec<String> {
    let mut lines = vec![summary_in(hit, zone, lang)];
    if hit.outcome_unknown {
        lines.push(format!("  ⚠ {}", t!(lang, "find.outcome_unknown")));
    }
    lines.push(format!(
        "  {}",
        t!(
            lang,
            "find.found_in",
            place = found_where_in(&hit.found, lang)
        )
    ));
    if hit.items.is_empty() {
        lines.push(format!("  {}", t!(lang, "find.no_items")));
    } else {
        let items: Vec<String> = hit.items.iter().map(|i| item_line_in(i, lang)).collect();
        lines.push(format!(
            "  {}",
            t!(lang, "find.items", items = items.join(", "))
        ));
    }
    if let Some(erased) = &hit.erased {
        lines.push(format!("  {}", erased_line(erased, zone, lang)));
    }
    // Visitor data, as it was typed.
    for (k, v) in &hit.fields {
        lines.push(format!("  {}: {}", inline(k, 40), inline(v, 200)));
    }
    if let Some(raw) = &hit.unreadable {
        lines.push(format!(
            "  {}",
            t!(lang, "find.stored", text = inline(raw, 200))
        ));
    }
    lines
}

/// "its fields were erased on … by …", in the operator's zone.
pub fn erased_line(erased: &crate::model::erasure::Tombstone, zone: Zone, lang: Lang) -> String {
    let at = crate::model::time::parse_text(&erased.at)
        .map(|ms| zone.format_named(ms))
        .unwrap_or_else(|_| inline(&erased.at, 40));
    t!(lang, "find.erased", at = at, by = inline(&erased.by, 40))
}

/// What a miss does and does not mean, in English (see [`explain_miss_in`]).
pub fn explain_miss(outcome: &Outcome, zone: Zone) -> Vec<String> {
    explain_miss_in(outcome, zone, Lang::En)
}

/// What a miss does and does not mean.
pub fn explain_miss_in(outcome: &Outcome, zone: Zone, lang: Lang) -> Vec<String> {
    let mut lines = Vec::new();
    let recent = human_duration_in(RECENT_MS, lang);
    let all = outcome.all_forms();
    for (scope, t) in outcome.named_forms() {
        lines.push(t!(
            lang,
            "find.miss.form",
            form = inline(scope, 48),
            in_flight = t.in_flight,
            recent = t.recent,
            window = recent
        ));
    }
    lines.push(t!(
        lang,
        "find.miss.all",
        in_flight = all.in_flight,
        recent = all.recent,
        window = recent,
        receipts = all.receipts
    ));
    if let Some(span) = outcome.query.as_ref().and_then(|q| q.span) {
        lines.push(t!(
            lang,
            "find.miss.span",
            n = all.in_span,
            span = span.describe(zone)
        ));
    }
    if all.in_flight > 0 {
        lines.push(t!(
            lang,
            "find.miss.young",
            age = human_duration_in(outcome.stuck_after_ms, lang)
        ));
    }
    if all.erased > 0 {
        lines.push(t!(lang, "find.miss.erased", n = all.erased));
    }
    lines.push(t!(lang, "find.not_proof").into());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_english_constant_is_the_catalogues() {
        assert_eq!(OUTCOME_UNKNOWN, t!(Lang::En, "find.outcome_unknown"));
    }

    #[test]
    fn statuses_and_decisions_in_plain_words() {
        let item = super::super::ItemRef {
            item: "conflict:40".into(),
            status: "resolved".into(),
            decision: Some("original_stands".into()),
        };
        assert_eq!(
            item_line_in(&item, Lang::En),
            "conflict:40 resolved (original stands)"
        );
        assert_eq!(
            item_line_in(&item, Lang::Ja),
            "conflict:40 対応済み（元のまま）"
        );
        assert_eq!(
            status_in("pending, new copy", Lang::Ja),
            "未対応（新着あり）"
        );
        assert_eq!(
            found_where_in(&FoundIn::RequestKey, Lang::Ja),
            "リクエストキー"
        );
    }
}
