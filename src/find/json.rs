//! `find --json`: `{"query", "hits": [{"receipt_id", "scope", "created_at",
//! "state", "request_key", "items": [{"item", "status", "decision"}]}]}`,
//! newest first, times RFC 3339 UTC (the operator's zone never reaches JSON).

use serde::Serialize;

use super::hits::{Hit, Outcome};
use crate::model::ReceiptId;
use crate::model::time::format_rfc3339;

#[derive(Serialize)]
struct Answer<'a> {
    query: &'a str,
    /// The query's time, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<SpanOut>,
    /// How many receipts matched (`hits` holds the newest of them).
    total: u64,
    hits: Vec<HitOut<'a>>,
    /// For a miss: what it does and does not mean, in counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    miss: Option<MissOut>,
}

#[derive(Serialize)]
struct SpanOut {
    from: String,
    to: String,
}

#[derive(Serialize)]
struct HitOut<'a> {
    receipt_id: ReceiptId,
    scope: &'a str,
    created_at: Option<String>,
    state: &'a str,
    request_key: Option<&'a str>,
    replays: u32,
    outcome_known: bool,
    items: Vec<ItemOut<'a>>,
    /// When and by whom its fields were erased.
    #[serde(skip_serializing_if = "Option::is_none")]
    erased: Option<ErasedOut<'a>>,
}

#[derive(Serialize)]
struct ErasedOut<'a> {
    at: &'a str,
    by: &'a str,
}

#[derive(Serialize)]
struct ItemOut<'a> {
    item: &'a str,
    status: &'a str,
    decision: Option<&'a str>,
}

#[derive(Serialize)]
struct MissOut {
    in_flight: u64,
    recent: u64,
    recent_s: u64,
    in_span: Option<u64>,
    searched: u64,
    /// Receipts erased: searched, but nothing of their fields is left.
    erased: u64,
}

fn hit(h: &Hit) -> HitOut<'_> {
    HitOut {
        receipt_id: h.receipt_id,
        scope: &h.scope,
        created_at: h.created_ms.map(format_rfc3339),
        state: &h.state,
        request_key: h.request_key.as_deref(),
        replays: h.replays,
        outcome_known: !h.outcome_unknown,
        items: h
            .items
            .iter()
            .map(|i| ItemOut {
                item: &i.item,
                status: &i.status,
                decision: i.decision.as_deref(),
            })
            .collect(),
        erased: h.erased.as_ref().map(|e| ErasedOut {
            at: &e.at,
            by: &e.by,
        }),
    }
}

/// The answer as JSON text (terminal-safe), with a final newline.
pub fn render(outcome: &Outcome) -> String {
    let query = outcome.query.as_ref();
    let span = query.and_then(|q| q.span);
    let all = outcome.all_forms();
    let answer = Answer {
        query: query.map_or("", |q| q.raw.as_str()),
        span: span.map(|s| SpanOut {
            from: format_rfc3339(s.from_ms),
            to: format_rfc3339(s.to_ms),
        }),
        total: outcome.total,
        hits: outcome.hits.iter().map(hit).collect(),
        miss: outcome.hits.is_empty().then(|| MissOut {
            in_flight: all.in_flight,
            recent: all.recent,
            recent_s: (super::scan::RECENT_MS / 1000) as u64,
            in_span: span.map(|_| all.in_span),
            searched: all.receipts,
            erased: all.erased,
        }),
    };
    let mut text = crate::sanitize::json::to_string_pretty(&answer);
    text.push('\n');
    text
}
