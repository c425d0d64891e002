//! `report --json`: the format documented in the README, in a stable order.

use serde::Serialize;

use super::safe_json;
use crate::forms::Period;
use crate::model::time::format_rfc3339;
use crate::model::{Millis, ReceiptId};
use crate::reading::{ItemReview, Snapshot};
use crate::triage::model::{
    Attempt, BotEvidence, Conflict, DamageReason, DuplicateGroup, GapClass, Member,
};

#[derive(Serialize)]
struct Report<'a> {
    now: String,
    settings: SettingsOut<'a>,
    counts: CountsJson,
    duplicates: Vec<DuplicateOut<'a>>,
    conflicts: Vec<ConflictOut<'a>>,
    stuck: Vec<StuckOut<'a>>,
    suspected_bots: &'a [ReceiptId],
    bot_groups: Vec<BotGroupOut<'a>>,
    damaged: Vec<DamagedOut<'a>>,
    /// The period `forms` covers (`24h`, `7d`, `30d` or `all`).
    forms_period: &'static str,
    forms: Vec<super::forms_json::FormOut<'a>>,
}

#[derive(Serialize)]
struct SettingsOut<'a> {
    window_s: serde_json::Number,
    stuck_after_s: serde_json::Number,
    ignore_fields: &'a [String],
}

#[derive(Serialize)]
struct CountsJson {
    receipts: usize,
    duplicate_groups: usize,
    conflicts: usize,
    stuck: usize,
    suspected_bots: usize,
    bot_groups: usize,
    damaged: usize,
    /// Receipts whose visitor data was erased (they are among `receipts`).
    erased: usize,
    replays: u64,
    /// Exact copies the intake absorbed; absent when the database has no
    /// `absorbed` table.
    #[serde(skip_serializing_if = "Option::is_none")]
    absorbed: Option<u64>,
}

#[derive(Serialize)]
struct BotGroupOut<'a> {
    item: String,
    evidence: BotEvidence,
    receipt_ids: Vec<ReceiptId>,
    senders: usize,
    scopes: &'a [String],
    first_at: String,
    last_at: String,
    // The review's fields, in place (flattening would serialise a map).
    status: &'static str,
    decision: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    new_copy_since_decision: bool,
}

#[derive(Serialize)]
struct DuplicateOut<'a> {
    item: String,
    scope: &'a str,
    class: GapClass,
    exact: bool,
    receipt_ids: Vec<ReceiptId>,
    members: &'a [Member],
    gaps_ms: &'a [Millis],
    // The review's fields, in place (flattening would serialise a map).
    status: &'static str,
    decision: Option<String>,
    /// The copy the decision keeps as the one to answer (`duplicate`, `correction`).
    kept: Option<ReceiptId>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    new_copy_since_decision: bool,
}

#[derive(Serialize)]
struct ConflictOut<'a> {
    item: String,
    receipt_id: ReceiptId,
    scope: &'a str,
    request_key: &'a str,
    attempts: &'a [Attempt],
    // The review's fields, in place (flattening would serialise a map).
    status: &'static str,
    decision: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    new_copy_since_decision: bool,
}

#[derive(Serialize)]
struct StuckOut<'a> {
    item: String,
    receipt_id: ReceiptId,
    scope: &'a str,
    request_key: Option<&'a str>,
    age_s: i64,
    // The review's fields, in place (flattening would serialise a map).
    status: &'static str,
    decision: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    new_copy_since_decision: bool,
}

#[derive(Serialize)]
struct DamagedOut<'a> {
    receipt_id: ReceiptId,
    reason: DamageReason,
    detail: &'a str,
}

/// What the review log says of an item, as the report shows it (in place in
/// each item's object).
struct ReviewOut {
    status: &'static str,
    decision: Option<String>,
    kept: Option<ReceiptId>,
    new_copy_since_decision: bool,
}

impl From<ItemReview> for ReviewOut {
    fn from(r: ItemReview) -> Self {
        Self {
            status: if r.is_settled() {
                "resolved"
            } else {
                "pending"
            },
            decision: r.decision,
            kept: r.kept,
            new_copy_since_decision: r.new_copy_since_decision,
        }
    }
}

/// Whole seconds as an integer (`600`), anything else as a decimal (`1.5`).
fn seconds(ms: Millis) -> serde_json::Number {
    if ms % 1000 == 0 {
        (ms / 1000).into()
    } else {
        serde_json::Number::from_f64(ms as f64 / 1000.0).unwrap_or_else(|| 0.into())
    }
}

/// The report as pretty-printed JSON. Text from the database is written with
/// terminal-unsafe characters escaped (`\u202e`), which any JSON reader decodes
/// back to the original.
pub fn render(input: &Snapshot) -> String {
    let mut out = Vec::new();
    write(input, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// [`render`], written to `out` as it is made (no copy of the whole text);
/// `forms` covers every receipt.
pub fn write(input: &Snapshot, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    write_for(input, Period::All, out)
}

/// [`write`], with `forms` over `period`.
pub fn write_for(
    input: &Snapshot,
    period: Period,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let forms = crate::forms::compute(input, period);
    let t = &input.triage;
    let report = Report {
        now: format_rfc3339(input.settings.now_ms),
        settings: SettingsOut {
            window_s: seconds(input.settings.window_ms),
            stuck_after_s: seconds(input.settings.stuck_after_ms),
            ignore_fields: &input.settings.ignore_fields,
        },
        counts: CountsJson {
            receipts: super::receipt_count(input),
            duplicate_groups: t.duplicates.len(),
            conflicts: t.conflicts.len(),
            stuck: t.stuck.len(),
            suspected_bots: t.suspected_bots.len(),
            bot_groups: t.bot_groups.len(),
            damaged: t.damaged.len(),
            erased: input.erased_receipts,
            replays: input.replay_total,
            absorbed: input.absorbed_total,
        },
        // The long lists are put in place of these (see below).
        duplicates: Vec::new(),
        conflicts: Vec::new(),
        stuck: t
            .stuck
            .iter()
            .map(|s| {
                let item = s.item();
                let r = ReviewOut::from(input.review(&item));
                StuckOut {
                    item,
                    receipt_id: s.receipt_id,
                    scope: &s.scope,
                    request_key: s.request_key.as_deref(),
                    age_s: s.age_ms / 1000,
                    status: r.status,
                    decision: r.decision,
                    new_copy_since_decision: r.new_copy_since_decision,
                }
            })
            .collect(),
        suspected_bots: &t.suspected_bots,
        bot_groups: t
            .bot_groups
            .iter()
            .map(|g| {
                let item = g.item();
                let r = ReviewOut::from(input.review(&item));
                BotGroupOut {
                    item,
                    evidence: g.evidence,
                    receipt_ids: g.receipt_ids(),
                    senders: g.senders,
                    scopes: &g.scopes,
                    first_at: format_rfc3339(g.first_ms()),
                    last_at: format_rfc3339(g.last_ms()),
                    status: r.status,
                    decision: r.decision,
                    new_copy_since_decision: r.new_copy_since_decision,
                }
            })
            .collect(),
        damaged: t
            .damaged
            .iter()
            .map(|d| DamagedOut {
                receipt_id: d.receipt_id,
                reason: d.reason,
                detail: &d.detail,
            })
            .collect(),
        forms_period: period.as_arg(),
        forms: super::forms_json::forms_out(&forms),
    };
    let mut head = Vec::new();
    super::safe_json::to_writer_pretty(&mut head, &report)?;
    // The duplicates and conflicts, nearly all of a report, are rendered in
    // parallel and written in place of their empty arrays in the rest.
    let duplicates = safe_json::pretty_elements(&t.duplicates, 2, |g| duplicate_out(input, g));
    let conflicts = safe_json::pretty_elements(&t.conflicts, 2, |c| conflict_out(input, c));
    let mut rest = &head[..];
    for (key, chunks) in [("duplicates", duplicates), ("conflicts", conflicts)] {
        let marker = format!("\n  \"{key}\": [");
        let at = find(rest, marker.as_bytes()).expect("the report has every list") + marker.len();
        out.write_all(&rest[..at])?;
        if !chunks.is_empty() {
            for chunk in &chunks {
                out.write_all(chunk)?;
            }
            out.write_all(b"\n  ")?;
        }
        rest = &rest[at..];
    }
    out.write_all(rest)?;
    out.write_all(b"\n")
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn duplicate_out<'a>(input: &Snapshot, g: &'a DuplicateGroup) -> DuplicateOut<'a> {
    let item = g.item();
    let r = ReviewOut::from(input.review(&item));
    DuplicateOut {
        item,
        scope: &g.scope,
        class: g.class,
        exact: g.is_exact(),
        receipt_ids: g.receipt_ids(),
        members: &g.members,
        gaps_ms: &g.gaps_ms,
        status: r.status,
        decision: r.decision,
        kept: r.kept,
        new_copy_since_decision: r.new_copy_since_decision,
    }
}

fn conflict_out<'a>(input: &Snapshot, c: &'a Conflict) -> ConflictOut<'a> {
    let item = c.item();
    let r = ReviewOut::from(input.review(&item));
    ConflictOut {
        item,
        receipt_id: c.receipt_id,
        scope: &c.scope,
        request_key: &c.request_key,
        attempts: &c.attempts,
        status: r.status,
        decision: r.decision,
        new_copy_since_decision: r.new_copy_since_decision,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use super::*;
    use crate::model::*;
    use crate::triage::model::*;

    fn sample() -> Triage {
        Triage {
            duplicates: vec![Arc::new(DuplicateGroup {
                scope: "corp/contact".into(),
                class: GapClass::Seconds,
                members: vec![
                    Member {
                        id: 12,
                        match_kind: MatchKind::Exact,
                        fields: vec![],
                        sentence_changes: Vec::new(),
                    },
                    Member {
                        id: 13,
                        match_kind: MatchKind::Partial,
                        fields: vec!["phone".into()],
                        sentence_changes: Vec::new(),
                    },
                ],
                gaps_ms: vec![2300],
            })],
            conflicts: vec![Arc::new(Conflict {
                receipt_id: 40,
                scope: "s".into(),
                request_key: "k\u{202e}1".into(),
                attempts: vec![Attempt {
                    source: AttemptSource::KeyConflicts,
                    id: 3,
                    at_ms: None,
                    digest: "d".into(),
                }],
            })],
            stuck: vec![Stuck {
                receipt_id: 77,
                scope: "s".into(),
                request_key: None,
                age_ms: 1_234_567,
            }],
            next_stuck_ms: None,
            suspected_bots: vec![91, 92],
            bot_groups: vec![Arc::new(BotGroup {
                evidence: BotEvidence::Campaign,
                receipts: vec![
                    BotReceipt {
                        id: 92,
                        created_ms: 1_795_947_000_000,
                        scope: 1,
                    },
                    BotReceipt {
                        id: 91,
                        created_ms: 1_795_947_001_000,
                        scope: 0,
                    },
                ],
                senders: 2,
                scopes: vec!["a/contact".into(), "b/contact".into()],
            })],
            damaged: vec![Damaged {
                receipt_id: 5,
                reason: DamageReason::Payload,
                detail: "not JSON".into(),
            }],
        }
    }

    #[test]
    fn matches_the_documented_shape() {
        let triage = sample();
        let settings = Settings::new(1_795_947_330_123);
        let mut reviews = HashMap::new();
        reviews.insert(
            "dup:12".to_string(),
            ItemReview {
                resolved: true,
                decision: Some("duplicate".into()),
                kept: Some(13),
                ..ItemReview::default()
            },
        );
        // Looked at, outcome still unknown: the item is still pending.
        reviews.insert(
            "stuck:77".to_string(),
            ItemReview {
                resolved: true,
                decision: Some("still_pending".into()),
                ..ItemReview::default()
            },
        );
        let input = Snapshot {
            settings,
            replay_total: 7,
            triage: triage.into(),
            reviews,
            ..Snapshot::default()
        };
        let text = render(&input);
        // Terminal-unsafe text is escaped in the bytes but decodes to the original.
        assert!(text.contains(r"k\u202e1"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["now"], "2026-11-29T10:15:30.123Z");
        assert_eq!(v["settings"]["window_s"].as_i64(), Some(600));
        assert_eq!(v["settings"]["stuck_after_s"].as_i64(), Some(300));
        assert_eq!(v["counts"]["receipts"].as_u64(), Some(1)); // the damaged row
        assert_eq!(v["counts"]["replays"].as_u64(), Some(7));
        assert_eq!(v["counts"]["duplicate_groups"].as_u64(), Some(1));
        let d = &v["duplicates"][0];
        assert_eq!(d["item"], "dup:12");
        assert_eq!(d["class"], "seconds");
        assert_eq!(d["receipt_ids"], serde_json::json!([12, 13]));
        assert_eq!(d["members"][1]["match"], "partial");
        assert_eq!(d["gaps_ms"], serde_json::json!([2300]));
        assert_eq!(d["status"], "resolved");
        assert_eq!(d["decision"], "duplicate");
        // The copy kept as the one to answer, beside the decision.
        assert_eq!(d["kept"].as_i64(), Some(13));
        let c = &v["conflicts"][0];
        assert_eq!(c["item"], "conflict:40");
        assert_eq!(c["request_key"], "k\u{202e}1");
        assert_eq!(c["attempts"][0]["source"], "key_conflicts");
        assert_eq!(c["attempts"][0]["id"].as_i64(), Some(3));
        assert_eq!(c["status"], "pending");
        assert!(c["decision"].is_null());
        assert_eq!(v["stuck"][0]["age_s"].as_i64(), Some(1234));
        assert_eq!(v["stuck"][0]["status"], "pending");
        assert_eq!(v["stuck"][0]["decision"], "still_pending");
        assert_eq!(v["suspected_bots"], serde_json::json!([91, 92]));
        assert_eq!(v["counts"]["bot_groups"].as_u64(), Some(1));
        let b = &v["bot_groups"][0];
        assert_eq!(b["item"], "bot:92");
        assert_eq!(b["evidence"], "campaign");
        assert_eq!(b["receipt_ids"], serde_json::json!([91, 92]));
        assert_eq!(b["senders"].as_u64(), Some(2));
        assert_eq!(b["scopes"], serde_json::json!(["a/contact", "b/contact"]));
        assert_eq!(b["status"], "pending");
        assert!(b["decision"].is_null());
        assert_eq!(v["damaged"][0]["reason"], "payload");
        // A database without an `absorbed` table: nothing said of it.
        assert_eq!(v["counts"].get("absorbed"), None);
        let with_table = Snapshot {
            absorbed_total: Some(4),
            ..input
        };
        let v: serde_json::Value = serde_json::from_str(&render(&with_table)).unwrap();
        assert_eq!(v["counts"]["absorbed"].as_u64(), Some(4));
        assert_eq!(v["counts"]["replays"].as_u64(), Some(7));
    }
}
