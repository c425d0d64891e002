//! `report` without `--json`: a summary a person reads in a terminal.

use std::fmt::Write as _;

use crate::forms::Period;
use crate::i18n::width::width;
use crate::i18n::{Lang, pad_left, pad_right};
use crate::model::Zone;
use crate::model::time::human_duration_in;
use crate::reading::Snapshot;
use crate::sanitize::inline;
use crate::t;
use crate::triage::model::{GapClass, MatchKind};

/// How many of the largest groups (and of each other list) are shown.
const SHOWN: usize = 10;

/// The summary in English, with the per-form table over every receipt.
pub fn render(input: &Snapshot) -> String {
    render_in(input, Zone::UTC, Period::All, Lang::En)
}

/// [`render`] with times in `zone`, which it names, the per-form table over
/// `period`, and our words in `lang` (visitor data is shown as it is).
pub fn render_in(input: &Snapshot, zone: Zone, period: Period, lang: Lang) -> String {
    let t = &input.triage;
    let duration = |ms| human_duration_in(ms, lang);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        t!(
            lang,
            "report.heading",
            database = inline(&input.database.shown(), 80),
            receipts = super::receipt_count(input),
            now = zone.format_named(input.settings.now_ms),
            zone = zone.name(),
            window = duration(input.settings.window_ms),
            stuck_after = duration(input.settings.stuck_after_ms),
        )
    );
    if input.erased_receipts > 0 {
        let _ = writeln!(
            out,
            "{}",
            t!(lang, "report.erased", n = input.erased_receipts)
        );
    }
    out.push('\n');

    let pending = |items: &mut dyn Iterator<Item = String>| {
        items
            .filter(|item| !input.review(item).is_settled())
            .count()
    };
    // A row of the summary: its label in a column of 16, its count in 6.
    let mut row = |label: &str, text: String| {
        let _ = writeln!(out, "{}{}", pad_right(label, 16), text);
    };
    fn count(n: impl ToString) -> String {
        pad_left(&n.to_string(), 6)
    }
    let dup_pending = pending(&mut t.duplicates.iter().map(|g| g.item()));
    let by_class = |class: GapClass| t.duplicates.iter().filter(|g| g.class == class).count();
    let exact = t.duplicates.iter().filter(|g| g.is_exact()).count();
    let (n, near) = (count(t.duplicates.len()), t.duplicates.len() - exact);
    let [sim, sec, min] =
        [GapClass::Simultaneous, GapClass::Seconds, GapClass::Minutes].map(by_class);
    // One group is a group, not "1 groups".
    let summary = if t.duplicates.len() == 1 {
        t!(
            lang,
            "report.summary.duplicates_one",
            count = n,
            pending = dup_pending,
            simultaneous = sim,
            seconds = sec,
            minutes = min,
            exact = exact,
            near = near,
        )
    } else {
        t!(
            lang,
            "report.summary.duplicates",
            count = n,
            pending = dup_pending,
            simultaneous = sim,
            seconds = sec,
            minutes = min,
            exact = exact,
            near = near,
        )
    };
    row(t!(lang, "report.label.duplicates"), summary);
    row(
        t!(lang, "report.label.conflicts"),
        t!(
            lang,
            "report.summary.items",
            count = count(t.conflicts.len()),
            pending = pending(&mut t.conflicts.iter().map(|c| c.item())),
        ),
    );
    row(
        t!(lang, "report.label.stuck"),
        t!(
            lang,
            "report.summary.items",
            count = count(t.stuck.len()),
            pending = pending(&mut t.stuck.iter().map(|s| s.item())),
        ),
    );
    row(
        t!(lang, "report.label.bots"),
        t!(
            lang,
            "report.summary.bots",
            count = count(t.suspected_bots.len()),
            groups = t.bot_groups.len(),
            pending = pending(&mut t.bot_groups.iter().map(|g| g.item())),
        ),
    );
    row(
        t!(lang, "report.label.damaged"),
        t!(
            lang,
            "report.summary.damaged",
            count = count(t.damaged.len())
        ),
    );
    row(
        t!(lang, "report.label.replays"),
        t!(
            lang,
            "report.summary.replays",
            count = count(input.replay_total)
        ),
    );
    // Copies the intake dropped are counted, so that a deduplicating intake
    // is told apart from a delivery path that lost them; a database without
    // the table says nothing of them.
    if let Some(absorbed) = input.absorbed_total {
        row(
            t!(lang, "report.label.absorbed"),
            t!(lang, "report.summary.absorbed", count = count(absorbed)),
        );
    }

    if !t.duplicates.is_empty() {
        let _ = writeln!(out, "\n{}", t!(lang, "report.section.duplicates"));
        let mut largest: Vec<_> = t.duplicates.iter().collect();
        // Stable: most copies first, then the documented order.
        largest.sort_by_key(|g| std::cmp::Reverse(g.members.len()));
        for g in largest.into_iter().take(SHOWN) {
            let near = g
                .members
                .iter()
                .filter(|m| m.match_kind != MatchKind::Exact)
                .count();
            let gaps: Vec<String> = g.gaps_ms.iter().map(|&ms| duration(ms)).collect();
            let _ = writeln!(
                out,
                "  {} {} {}",
                pad_right(&g.item(), 14),
                pad_right(&inline(&g.scope, 28), 28),
                t!(
                    lang,
                    "report.duplicate_row",
                    copies = pad_left(&g.members.len().to_string(), 3),
                    class = pad_right(g.class.label_in(lang), 12),
                    near = if near > 0 {
                        t!(lang, "report.duplicate_near", near = near)
                    } else {
                        String::new()
                    },
                    gaps = inline(&gaps.join(t!(lang, "words.list.comma")), 60),
                ),
            );
        }
    }
    if !t.conflicts.is_empty() {
        let _ = writeln!(out, "\n{}", t!(lang, "report.section.conflicts"));
        for c in t.conflicts.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  {} {} {}",
                pad_right(&c.item(), 18),
                pad_right(&inline(&c.scope, 28), 28),
                {
                    let (key, attempts) = (inline(&c.request_key, 40), c.attempts.len());
                    if attempts == 1 {
                        t!(
                            lang,
                            "report.conflict_row_one",
                            key = key,
                            attempts = attempts
                        )
                    } else {
                        t!(lang, "report.conflict_row", key = key, attempts = attempts)
                    }
                },
            );
        }
        more(&mut out, t.conflicts.len(), lang);
    }
    if !t.stuck.is_empty() {
        let _ = writeln!(out, "\n{}", t!(lang, "report.section.stuck"));
        for s in t.stuck.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  {} {} {}",
                pad_right(&s.item(), 14),
                pad_right(&inline(&s.scope, 28), 28),
                t!(lang, "report.stuck_row", age = duration(s.age_ms)),
            );
        }
        more(&mut out, t.stuck.len(), lang);
    }
    if !t.bot_groups.is_empty() {
        let _ = writeln!(out, "\n{}", t!(lang, "report.section.bots"));
        let mut largest: Vec<_> = t.bot_groups.iter().collect();
        largest.sort_by_key(|g| std::cmp::Reverse(g.receipts.len()));
        for g in largest.into_iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  {} {} {}",
                pad_right(&g.item(), 14),
                pad_right(g.evidence.describe_in(lang), 31),
                t!(
                    lang,
                    "report.bot_row",
                    receipts = pad_left(&g.receipts.len().to_string(), 4),
                    senders = pad_left(&g.senders.to_string(), 3),
                    scopes = inline(&g.scopes_label_in(lang), 40),
                ),
            );
        }
        more(&mut out, t.bot_groups.len(), lang);
    }
    if !t.damaged.is_empty() {
        let _ = writeln!(out, "\n{}", t!(lang, "report.section.damaged"));
        let shown = &t.damaged[..t.damaged.len().min(SHOWN)];
        let reason_width = shown
            .iter()
            .map(|d| width(d.reason.label_in(lang)))
            .fold(8, usize::max);
        for d in shown {
            let _ = writeln!(
                out,
                "  {}",
                t!(
                    lang,
                    "report.damaged_row",
                    id = pad_right(&d.receipt_id.to_string(), 8),
                    reason = pad_right(d.reason.label_in(lang), reason_width),
                    detail = inline(&d.detail.message(lang), 80),
                ),
            );
        }
        more(&mut out, t.damaged.len(), lang);
    }
    out.push_str(&super::forms_text::render(
        &crate::forms::compute(input, period),
        lang,
    ));
    out
}

fn more(out: &mut String, total: usize, lang: Lang) {
    if total > SHOWN {
        let _ = writeln!(out, "  {}", t!(lang, "report.more", n = total - SHOWN));
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
                        sentence_changes: Vec::new(),
                    },
                    Member {
                        id: 2,
                        match_kind: MatchKind::Exact,
                        fields: vec![],
                        sentence_changes: Vec::new(),
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
        let snap = Snapshot {
            database: "db\u{1b}[2J".into(),
            triage: triage.into(),
            reviews: HashMap::new(),
            ..Snapshot::default()
        };
        let text = render(&snap);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
        assert!(text.contains("evil\\x1b]0;owned\\x07"));
        assert!(text.contains("Duplicates           1 group, 1 pending"));
        assert!(text.contains("minutes 1"));
        assert!(text.contains("2 min"));
        assert!(text.contains("receipt 9"));

        let ja = render_in(&snap, Zone::UTC, Period::All, Lang::Ja);
        assert!(!ja.contains('\u{1b}') && !ja.contains('\u{202e}'), "{ja}");
        assert!(ja.contains("evil\\x1b]0;owned\\x07"), "{ja}");
        assert!(ja.contains("重複          "), "{ja}");
        assert!(ja.contains("     1 グループ、未対応 1"), "{ja}");
        assert!(ja.contains("数分差 1"), "{ja}");
        assert!(ja.contains("間隔 2分"), "{ja}");
        assert!(ja.contains("受付 9        時刻     bad"), "{ja}");
        assert!(ja.contains("フォーム別（すべての受付。"), "{ja}");
    }

    #[test]
    fn one_attempt_and_one_group_are_said_in_plain_words() {
        let conflict = |id: i64, attempts: usize| {
            Arc::new(Conflict {
                receipt_id: id,
                scope: "corp/contact".into(),
                request_key: format!("k-{id}"),
                attempts: (0..attempts)
                    .map(|i| Attempt {
                        source: AttemptSource::KeyConflicts,
                        id: i as i64,
                        at_ms: None,
                        digest: String::new(),
                    })
                    .collect(),
            })
        };
        let group = Arc::new(DuplicateGroup {
            scope: "corp/contact".into(),
            class: GapClass::Seconds,
            members: vec![
                Member {
                    id: 1,
                    match_kind: MatchKind::Exact,
                    fields: vec![],
                    sentence_changes: Vec::new(),
                },
                Member {
                    id: 2,
                    match_kind: MatchKind::Exact,
                    fields: vec![],
                    sentence_changes: Vec::new(),
                },
            ],
            gaps_ms: vec![2_000],
        });
        let snap = Snapshot {
            triage: Triage {
                duplicates: vec![group],
                conflicts: vec![conflict(40, 1), conflict(41, 2)],
                ..Triage::default()
            }
            .into(),
            ..Snapshot::default()
        };
        let text = render(&snap);
        assert!(!text.contains("(s)"), "{text}");
        assert!(text.contains("key k-40  1 attempt\n"), "{text}");
        assert!(text.contains("key k-41  2 attempts\n"), "{text}");
        assert!(text.contains("     1 group, 1 pending"), "{text}");
        let ja = render_in(&snap, Zone::UTC, Period::All, Lang::Ja);
        assert!(ja.contains("キー k-40  送信 1 回"), "{ja}");
    }

    #[test]
    fn absorbed_copies_are_counted_only_where_the_database_counts_them() {
        let without = Snapshot {
            replay_total: 3,
            ..Snapshot::default()
        };
        let text = render(&without);
        assert!(text.contains("Replays              3 retries absorbed by their key"));
        assert!(!text.contains("Absorbed"), "{text}");
        assert!(!render_in(&without, Zone::UTC, Period::All, Lang::Ja).contains("吸収した重複"));

        let with = Snapshot {
            absorbed_total: Some(12),
            ..without
        };
        let text = render(&with);
        assert!(
            text.contains(
                "Absorbed            12 exact copies absorbed by the intake \
                 (answered with the original's receipt, not stored)"
            ),
            "{text}"
        );
        // Beside the replays, in the summary.
        let replays = text.find("Replays").unwrap();
        assert_eq!(
            text[replays..].lines().nth(1).map(|l| &l[..8]),
            Some("Absorbed")
        );
        let ja = render_in(&with, Zone::UTC, Period::All, Lang::Ja);
        assert!(
            ja.contains("    12 件の同一の重複を受付サーバーが吸収（元の受付の応答を返し、保存はしていません）"),
            "{ja}"
        );
        // A table that is there but empty says 0: the intake absorbed none.
        let none = Snapshot {
            absorbed_total: Some(0),
            ..with
        };
        assert!(render(&none).contains("Absorbed             0 exact copies"));
    }
}
