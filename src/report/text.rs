//! `report` without `--json`: a summary a person reads in a terminal.

use std::fmt::Write as _;

use crate::forms::Period;
use crate::model::Zone;
use crate::model::time::human_duration;
use crate::reading::Snapshot;
use crate::sanitize::inline;
use crate::triage::model::{GapClass, MatchKind};

/// How many of the largest groups (and of each other list) are shown.
const SHOWN: usize = 10;

/// The summary, with the per-form table over every receipt.
pub fn render(input: &Snapshot) -> String {
    render_in(input, Zone::UTC, Period::All)
}

/// [`render`] with times in `zone`, which it names, and the per-form table
/// over `period`.
pub fn render_in(input: &Snapshot, zone: Zone, period: Period) -> String {
    let t = &input.triage;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} — {} receipts, as of {} (times in {}; window {}, stuck after {})",
        inline(&input.database.display().to_string(), 80),
        super::receipt_count(input),
        zone.format_named(input.settings.now_ms),
        zone.name(),
        human_duration(input.settings.window_ms),
        human_duration(input.settings.stuck_after_ms),
    );
    out.push('\n');

    let pending = |items: &mut dyn Iterator<Item = String>| {
        items.filter(|item| !input.review(item).resolved).count()
    };
    let dup_pending = pending(&mut t.duplicates.iter().map(|g| g.item()));
    let by_class = |class: GapClass| t.duplicates.iter().filter(|g| g.class == class).count();
    let exact = t.duplicates.iter().filter(|g| g.is_exact()).count();
    let _ = writeln!(
        out,
        "Duplicates      {:>6} groups, {} pending   simultaneous {} · seconds {} · minutes {}   exact {} · near {}",
        t.duplicates.len(),
        dup_pending,
        by_class(GapClass::Simultaneous),
        by_class(GapClass::Seconds),
        by_class(GapClass::Minutes),
        exact,
        t.duplicates.len() - exact,
    );
    let conflicts_pending = pending(&mut t.conflicts.iter().map(|c| c.item()));
    let _ = writeln!(
        out,
        "Conflicts       {:>6}, {} pending",
        t.conflicts.len(),
        conflicts_pending
    );
    let stuck_pending = pending(&mut t.stuck.iter().map(|s| s.item()));
    let _ = writeln!(
        out,
        "Stuck           {:>6}, {} pending",
        t.stuck.len(),
        stuck_pending
    );
    let bots_pending = pending(&mut t.bot_groups.iter().map(|g| g.item()));
    let _ = writeln!(
        out,
        "Suspected bots  {:>6} receipts in {} groups, {} pending",
        t.suspected_bots.len(),
        t.bot_groups.len(),
        bots_pending
    );
    let _ = writeln!(out, "Damaged         {:>6} rows", t.damaged.len());
    let _ = writeln!(
        out,
        "Replays         {:>6} retries absorbed by their key",
        input.replay_total
    );

    if !t.duplicates.is_empty() {
        let _ = writeln!(out, "\nLargest duplicate groups");
        let mut largest: Vec<_> = t.duplicates.iter().collect();
        // Stable: most copies first, then the documented order.
        largest.sort_by_key(|g| std::cmp::Reverse(g.members.len()));
        for g in largest.into_iter().take(SHOWN) {
            let near = g
                .members
                .iter()
                .filter(|m| m.match_kind != MatchKind::Exact)
                .count();
            let gaps: Vec<String> = g.gaps_ms.iter().map(|&ms| human_duration(ms)).collect();
            let _ = writeln!(
                out,
                "  {:<14} {:<28} {:>3} copies  {:<12} {}gaps {}",
                g.item(),
                inline(&g.scope, 28),
                g.members.len(),
                g.class.as_str(),
                if near > 0 {
                    format!("{near} near  ")
                } else {
                    String::new()
                },
                inline(&gaps.join(", "), 60),
            );
        }
    }
    if !t.conflicts.is_empty() {
        let _ = writeln!(out, "\nConflicts (same key, different body)");
        for c in t.conflicts.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  {:<18} {:<28} key {}  {} attempt(s)",
                c.item(),
                inline(&c.scope, 28),
                inline(&c.request_key, 40),
                c.attempts.len()
            );
        }
        more(&mut out, t.conflicts.len());
    }
    if !t.stuck.is_empty() {
        let _ = writeln!(out, "\nStuck in flight");
        for s in t.stuck.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  {:<14} {:<28} age {}",
                s.item(),
                inline(&s.scope, 28),
                human_duration(s.age_ms)
            );
        }
        more(&mut out, t.stuck.len());
    }
    if !t.bot_groups.is_empty() {
        let _ = writeln!(out, "\nSuspected bots");
        let mut largest: Vec<_> = t.bot_groups.iter().collect();
        largest.sort_by_key(|g| std::cmp::Reverse(g.receipts.len()));
        for g in largest.into_iter().take(SHOWN) {
            let scopes = g.scopes_label();
            let _ = writeln!(
                out,
                "  {:<14} {:<31} {:>4} receipts  {:>3} senders  {}",
                g.item(),
                g.evidence.describe(),
                g.receipts.len(),
                g.senders,
                inline(&scopes, 40),
            );
        }
        more(&mut out, t.bot_groups.len());
    }
    if !t.damaged.is_empty() {
        let _ = writeln!(out, "\nDamaged rows (not analysed)");
        for d in t.damaged.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  receipt {:<8} {:<8} {}",
                d.receipt_id,
                d.reason.as_str(),
                inline(&d.detail, 80)
            );
        }
        more(&mut out, t.damaged.len());
    }
    out.push_str(&super::forms_text::render(&crate::forms::compute(
        input, period,
    )));
    out
}

fn more(out: &mut String, total: usize) {
    if total > SHOWN {
        let _ = writeln!(out, "  … and {} more (see --json)", total - SHOWN);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use std::sync::Arc;

    use super::*;
    use crate::reading::Snapshot;
    use crate::triage::model::*;

    #[test]
    fn hostile_text_is_inert_and_counts_are_shown() {
        let triage = Triage {
            duplicates: vec![Arc::new(DuplicateGroup {
                scope: "evil\u{1b}]0;owned\u{7}".into(),
                class: GapClass::Minutes,
                members: vec![
                    Member {
                        id: 1,
                        match_kind: MatchKind::Exact,
                        fields: vec![],
                    },
                    Member {
                        id: 2,
                        match_kind: MatchKind::Exact,
                        fields: vec![],
                    },
                ],
                gaps_ms: vec![120_000],
            })],
            damaged: vec![Damaged {
                receipt_id: 9,
                reason: DamageReason::Time,
                detail: "bad \u{202e}time".into(),
            }],
            ..Triage::default()
        };
        let text = render(&Snapshot {
            database: "db\u{1b}[2J".into(),
            triage: triage.into(),
            reviews: HashMap::new(),
            ..Snapshot::default()
        });
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
        assert!(text.contains("evil\\x1b]0;owned\\x07"));
        assert!(text.contains("Duplicates           1 groups, 1 pending"));
        assert!(text.contains("minutes 1"));
        assert!(text.contains("2 min"));
        assert!(text.contains("receipt 9"));
    }
}
