//! Counting the forms over a period.

use std::collections::HashMap;

use super::{
    Finding, FormRow, Forms, KEYLESS_MIN, KEYLESS_SHARE, MINUTE_MS, Pathway, Period, SECOND_MS,
};
use crate::i18n::Lang;
use crate::model::{Millis, ReceiptId};
use crate::reading::Snapshot;
use crate::triage::activity::{Activity, Copy, HOUR_MS};
use crate::triage::model::{DuplicateGroup, GapClass, MatchKind};

/// What is seen of one pathway in one form while counting.
#[derive(Clone, Debug, Default)]
struct PathwayCount {
    count: u64,
    /// The latest example: its time, item and first receipt.
    example: Option<(Millis, Option<String>, ReceiptId)>,
}

impl PathwayCount {
    fn add(&mut self, n: u64, at: Millis, item: Option<&dyn Fn() -> String>, receipt: ReceiptId) {
        self.count += n;
        if self.example.as_ref().is_none_or(|(t, ..)| at >= *t) {
            self.example = Some((at, item.map(|f| f()), receipt));
        }
    }
}

struct Building {
    row: FormRow,
    seen: [PathwayCount; Pathway::ALL.len()],
    /// Keyless copies seconds apart (the other half of no_key's evidence).
    keyless_copies: u64,
}

/// The forms being counted, by scope.
struct Table {
    forms: HashMap<String, Building>,
    buckets: usize,
}

impl Table {
    fn form(&mut self, scope: &str) -> &mut Building {
        if !self.forms.contains_key(scope) {
            let row = FormRow {
                scope: scope.to_string(),
                series: vec![(0, 0); self.buckets],
                ..FormRow::default()
            };
            self.forms.insert(
                scope.to_string(),
                Building {
                    row,
                    seen: Default::default(),
                    keyless_copies: 0,
                },
            );
        }
        self.forms.get_mut(scope).expect("just added")
    }
}

/// Where the chart puts an instant, if it shows it.
struct Chart {
    start: Millis,
    bucket: Millis,
    n: usize,
}

impl Chart {
    fn slot(&self, at: Millis) -> Option<usize> {
        (at >= self.start).then(|| (((at - self.start) / self.bucket) as usize).min(self.n - 1))
    }
}

/// The per-form view of `snap` over `period`.
pub fn compute(snap: &Snapshot, period: Period) -> Forms {
    let now = snap.settings.now_ms;
    let start = period.start(now);
    let a: &Activity = &snap.activity;
    let t = &snap.triage;
    let first = a
        .scopes
        .iter()
        .filter_map(|s| s.hours.first().map(|&(h, _)| h * HOUR_MS))
        .min();
    let (series_start, bucket, n) = period.buckets(now, first);
    let chart = Chart {
        start: series_start,
        bucket,
        n,
    };
    // An unknown time (a hand-made reading) is in every period.
    let within = |at: Option<Millis>| match (start, at) {
        (Some(s), Some(at)) => at >= s,
        _ => true,
    };
    let mut table = Table {
        forms: HashMap::new(),
        buckets: n,
    };

    for s in &a.scopes {
        let mut hours = s.hours.iter().filter(|&&(h, _)| within(Some(h * HOUR_MS)));
        let Some(&(h, hour)) = hours.next() else {
            continue;
        };
        let b = table.form(&s.scope);
        for (h, hour) in std::iter::once((h, hour)).chain(hours.copied()) {
            b.row.receipts += u64::from(hour.receipts);
            b.row.keyless += u64::from(hour.keyless);
            if let Some(i) = chart.slot(h * HOUR_MS) {
                b.row.series[i].0 += u64::from(hour.receipts);
            }
        }
    }

    for (i, g) in t.duplicates.iter().enumerate() {
        let copies = a.copies_of(i);
        let copies = (copies.len() == g.members.len()).then_some(copies);
        let first_ms = copies.map(|c| c[0].created_ms);
        if !within(first_ms) {
            continue;
        }
        let b = table.form(&g.scope);
        b.row.duplicate_groups += 1;
        b.row.by_class[class_index(g.class)] += 1;
        if g.is_exact() {
            b.row.exact += 1;
        } else {
            b.row.near += 1;
        }
        b.row.copies += g.members.len() - 1;
        if let Some(copies) = copies {
            for c in &copies[1..] {
                if let Some(slot) = chart.slot(c.created_ms) {
                    b.row.series[slot].1 += 1;
                }
            }
        }
        pathways_of_group(b, g, copies, first_ms.unwrap_or(now));
    }

    for (i, c) in t.conflicts.iter().enumerate() {
        if within(a.conflicts_ms.get(i).copied().flatten()) {
            table.form(&c.scope).row.conflicts += 1;
        }
    }
    for s in &t.stuck {
        if within(Some(now - s.age_ms)) {
            table.form(&s.scope).row.stuck += 1;
        }
    }
    // A bot receipt's example is its bot group, to jump to.
    let bot_group: HashMap<ReceiptId, usize> = t
        .bot_groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.receipts.iter().map(move |r| (r.id, i)))
        .collect();
    for p in &a.bots {
        let Some(scope) = a.scopes.get(p.scope as usize) else {
            continue;
        };
        if within(Some(p.created_ms)) {
            let b = table.form(&scope.scope);
            b.row.bots += 1;
            let item = bot_group
                .get(&p.id)
                .map(|&i| move || t.bot_groups[i].item());
            let item = item.as_ref().map(|f| f as &dyn Fn() -> String);
            b.seen[Pathway::Bots as usize].add(1, p.created_ms, item, p.id);
        }
    }
    // Retries the keys answered and exact copies the intake absorbed: one
    // pathway (neither became a duplicate), counted apart in the row.
    for p in &a.answered {
        let Some(scope) = a.scopes.get(p.scope as usize) else {
            continue;
        };
        if within(Some(p.created_ms)) {
            let b = table.form(&scope.scope);
            let (replays, absorbed) = (u64::from(p.replays), u64::from(p.absorbed));
            b.row.replays += replays;
            b.row.absorbed += absorbed;
            b.seen[Pathway::RetriesAbsorbed as usize].add(
                replays + absorbed,
                p.created_ms,
                None,
                p.id,
            );
        }
    }

    let mut rows: Vec<FormRow> = table.forms.into_values().map(finish).collect();
    rows.sort_by(|x, y| x.scope.cmp(&y.scope));
    Forms {
        period,
        start_ms: start,
        series_start_ms: series_start,
        bucket_ms: bucket,
        rows,
        absorbed_counted: snap.absorbed_total.is_some(),
    }
}

fn class_index(class: GapClass) -> usize {
    match class {
        GapClass::Simultaneous => 0,
        GapClass::Seconds => 1,
        GapClass::Minutes => 2,
    }
}

/// The evidence of one group, copy by copy: each later copy is judged by
/// its gap to the copy before it (and an edited one by being edited).
fn pathways_of_group(b: &mut Building, g: &DuplicateGroup, copies: Option<&[Copy]>, at: Millis) {
    let item = || g.item();
    let first = g.members[0].id;
    let mut hits = [0u64; Pathway::ALL.len()];
    let mut keyless = 0u64;
    for (i, m) in g.members.iter().enumerate().skip(1) {
        let Some(&gap) = g.gaps_ms.get(i - 1) else {
            break;
        };
        let pathway = if gap < SECOND_MS {
            Some(Pathway::TwoHandlers)
        } else if m.match_kind == MatchKind::Edited {
            Some(Pathway::EditedResend)
        } else if gap < MINUTE_MS {
            // Seconds apart: the keys tell a key per click from no key.
            copies.and_then(|c| match (c[i - 1].key, c[i].key) {
                (Some(x), Some(y)) if x != y => Some(Pathway::NewKeyPerClick),
                (Some(_), Some(_)) => None,
                _ => {
                    keyless += 1;
                    Some(Pathway::NoKey)
                }
            })
        } else if m.match_kind == MatchKind::Exact {
            Some(Pathway::Reload)
        } else {
            None
        };
        if let Some(p) = pathway {
            hits[p as usize] += 1;
        }
    }
    for (p, n) in hits.into_iter().enumerate() {
        if n > 0 {
            b.seen[p].add(n, at, Some(&item), first);
        }
    }
    b.keyless_copies += keyless;
}

/// The row with its pathways in order: those that make copies, most copies
/// first (ties in the table's order), except that a form where many
/// receipts come without a key is told so first (a key is the fix for most
/// of the rest); then bots (counted in receipts, not copies); retries
/// absorbed (good news) last.
fn finish(mut b: Building) -> FormRow {
    let row = &mut b.row;
    let share = row.keyless_share();
    let many_keyless = row.receipts >= KEYLESS_MIN && share >= KEYLESS_SHARE;
    let mut found = Vec::new();
    for p in Pathway::ALL {
        let seen = &b.seen[p as usize];
        let shown = seen.count > 0 || (p == Pathway::NoKey && many_keyless);
        if !shown {
            continue;
        }
        let keyless = (p == Pathway::NoKey && many_keyless).then_some((row.keyless, row.receipts));
        let absorbed = if p == Pathway::RetriesAbsorbed {
            row.absorbed
        } else {
            0
        };
        let (example, example_receipt) = match &seen.example {
            Some((_, item, receipt)) => (item.clone(), Some(*receipt)),
            None => (None, None),
        };
        found.push(Finding {
            pathway: p,
            count: seen.count,
            absorbed,
            example,
            example_receipt,
            evidence: super::evidence_of(p, keyless, seen.count, absorbed, Lang::En),
            keyless,
        });
    }
    found.sort_by_key(|f| {
        let kind = match f.pathway {
            Pathway::NoKey if many_keyless => 0,
            Pathway::Bots => 2,
            Pathway::RetriesAbsorbed => 3,
            _ => 1,
        };
        (kind, std::cmp::Reverse(f.count), f.pathway)
    });
    row.pathways = found;
    b.row
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::Settings;
    use crate::triage::activity::{Hour, Placed, ScopeHours};
    use crate::triage::model::{Member, Stuck, Triage};

    const NOW: Millis = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

    fn member(id: i64, match_kind: MatchKind) -> Member {
        Member {
            id,
            match_kind,
            fields: vec![],
            sentence_changes: Vec::new(),
        }
    }

    fn group(scope: &str, members: Vec<Member>, gaps_ms: Vec<Millis>) -> Arc<DuplicateGroup> {
        let class = GapClass::of_gap(gaps_ms.iter().copied().max().unwrap_or(0));
        Arc::new(DuplicateGroup {
            scope: scope.into(),
            class,
            members,
            gaps_ms,
        })
    }

    /// A reading of one group per pathway, each in its own scope, with the
    /// copies' times and keys.
    fn planted() -> Snapshot {
        let at = NOW - 2 * HOUR_MS;
        let k = |n: u64| Some(n);
        let groups: Vec<(Arc<DuplicateGroup>, Vec<Copy>)> = vec![
            (
                group(
                    "a/handlers",
                    vec![member(1, MatchKind::Exact), member(2, MatchKind::Partial)],
                    vec![300],
                ),
                vec![
                    Copy {
                        created_ms: at,
                        key: k(1),
                    },
                    Copy {
                        created_ms: at + 300,
                        key: k(2),
                    },
                ],
            ),
            (
                group(
                    "b/click",
                    vec![member(3, MatchKind::Exact), member(4, MatchKind::Exact)],
                    vec![3_000],
                ),
                vec![
                    Copy {
                        created_ms: at,
                        key: k(3),
                    },
                    Copy {
                        created_ms: at + 3_000,
                        key: k(4),
                    },
                ],
            ),
            (
                group(
                    "c/nokey",
                    vec![member(5, MatchKind::Exact), member(6, MatchKind::Exact)],
                    vec![4_000],
                ),
                vec![
                    Copy {
                        created_ms: at,
                        key: None,
                    },
                    Copy {
                        created_ms: at + 4_000,
                        key: None,
                    },
                ],
            ),
            (
                group(
                    "d/reload",
                    vec![member(7, MatchKind::Exact), member(8, MatchKind::Exact)],
                    vec![180_000],
                ),
                vec![
                    Copy {
                        created_ms: at,
                        key: k(7),
                    },
                    Copy {
                        created_ms: at + 180_000,
                        key: k(8),
                    },
                ],
            ),
            (
                group(
                    "e/edited",
                    vec![member(9, MatchKind::Exact), member(10, MatchKind::Edited)],
                    vec![240_000],
                ),
                vec![
                    Copy {
                        created_ms: at,
                        key: k(9),
                    },
                    Copy {
                        created_ms: at + 240_000,
                        key: k(10),
                    },
                ],
            ),
        ];
        let mut activity = Activity::default();
        let mut triage = Triage::default();
        let (mut flat, mut starts) = (Vec::new(), Vec::new());
        for (g, copies) in groups {
            starts.push(flat.len() as u32);
            flat.extend(copies);
            triage.duplicates.push(g);
        }
        starts.push(flat.len() as u32);
        activity.copies = Arc::new(flat);
        activity.starts = Arc::new(starts);
        activity.scopes = vec![ScopeHours {
            scope: "f/bots".into(),
            hours: vec![(
                at / HOUR_MS,
                Hour {
                    receipts: 4,
                    keyless: 0,
                },
            )],
        }];
        activity.bots = vec![Placed {
            id: 20,
            scope: 0,
            created_ms: at,
            replays: 0,
            absorbed: 0,
        }];
        activity.answered = vec![Placed {
            id: 21,
            scope: 0,
            created_ms: at,
            replays: 3,
            absorbed: 0,
        }];
        triage.stuck = vec![Stuck {
            receipt_id: 22,
            scope: "f/bots".into(),
            request_key: None,
            age_ms: 40 * 24 * HOUR_MS,
        }];
        Snapshot {
            settings: Settings::new(NOW),
            triage: Arc::new(triage),
            activity: Arc::new(activity),
            ..Snapshot::default()
        }
    }

    fn top(forms: &Forms, scope: &str) -> Vec<&'static str> {
        forms
            .rows
            .iter()
            .find(|r| r.scope == scope)
            .unwrap_or_else(|| panic!("no row for {scope}"))
            .pathways
            .iter()
            .map(|f| f.pathway.id())
            .collect()
    }

    #[test]
    fn each_planted_pathway_is_named_for_its_form() {
        let forms = compute(&planted(), Period::Week);
        assert_eq!(top(&forms, "a/handlers"), ["two_handlers"]);
        assert_eq!(top(&forms, "b/click"), ["new_key_per_click"]);
        assert_eq!(top(&forms, "c/nokey"), ["no_key"]);
        assert_eq!(top(&forms, "d/reload"), ["reload"]);
        assert_eq!(top(&forms, "e/edited"), ["edited_resend"]);
        assert_eq!(top(&forms, "f/bots"), ["bots", "retries_absorbed"]);
        let reload = &forms
            .rows
            .iter()
            .find(|r| r.scope == "d/reload")
            .unwrap()
            .pathways[0];
        assert_eq!(reload.example.as_deref(), Some("dup:7"));
        assert_eq!(reload.count, 1);
        let bots = forms.rows.iter().find(|r| r.scope == "f/bots").unwrap();
        assert_eq!((bots.receipts, bots.bots, bots.replays), (4, 1, 3));
        assert_eq!(bots.pathways[0].example_receipt, Some(20));
        // No bot group holds receipt 20 in this triage: nothing to jump to.
        assert_eq!(bots.pathways[0].example, None);
    }

    #[test]
    fn copies_the_intake_absorbed_join_the_retries_absorbed() {
        let mut snap = planted();
        let forms = compute(&snap, Period::Week);
        assert!(!forms.absorbed_counted);
        let retries = |forms: &Forms| {
            let row = forms.rows.iter().find(|r| r.scope == "f/bots").unwrap();
            (row.clone(), row.pathways.last().unwrap().clone())
        };
        let (row, f) = retries(&forms);
        assert_eq!((row.replays, row.absorbed), (3, 0));
        assert_eq!(
            (f.count, f.absorbed, f.unit_in(Lang::En)),
            (3, 0, "replays")
        );
        assert_eq!(f.advice_in(Lang::En), Pathway::RetriesAbsorbed.advice());

        // Two exact copies of receipt 21 absorbed, and one copy of a receipt
        // that had no replay (23), an hour later.
        snap.absorbed_total = Some(3);
        let at = NOW - HOUR_MS;
        let activity = Arc::make_mut(&mut snap.activity);
        activity.answered[0].absorbed = 2;
        activity.answered.push(Placed {
            id: 23,
            scope: 0,
            created_ms: at,
            replays: 0,
            absorbed: 1,
        });
        let forms = compute(&snap, Period::Week);
        assert!(forms.absorbed_counted);
        let (row, f) = retries(&forms);
        assert_eq!((row.replays, row.absorbed), (3, 3));
        assert_eq!(f.pathway, Pathway::RetriesAbsorbed);
        assert_eq!((f.count, f.absorbed), (6, 3));
        assert_eq!(f.example_receipt, Some(23), "the latest");
        assert_eq!(f.unit_in(Lang::En), "retries");
        assert_eq!(
            f.evidence,
            "retries the key answered with the stored response (3), and exact copies \
             the intake answered with the original's response, never stored (3)"
        );
        assert_eq!(f.evidence_in(Lang::En), f.evidence);
        assert!(f.evidence_in(Lang::Ja).contains("同一の重複（3 回、"));
        assert!(
            f.advice_in(Lang::En)
                .contains("came with another key or none")
        );

        // Absorbed copies alone: no replay is claimed.
        Arc::make_mut(&mut snap.activity).answered[0].replays = 0;
        let (_, f) = retries(&compute(&snap, Period::Week));
        assert_eq!((f.count, f.absorbed), (3, 3));
        assert!(
            f.evidence
                .starts_with("exact copies of one visitor's fields"),
            "{}",
            f.evidence
        );
        // Outside the period, by the receipt's arrival, as replays are.
        Arc::make_mut(&mut snap.activity).answered[1].created_ms = NOW - 40 * 24 * HOUR_MS;
        let (row, f) = retries(&compute(&snap, Period::Week));
        assert_eq!((row.absorbed, f.count), (2, 2));
    }

    #[test]
    fn a_bot_receipts_example_is_its_bot_group() {
        use crate::triage::model::{BotEvidence, BotGroup, BotReceipt};
        let mut snap = planted();
        Arc::make_mut(&mut snap.triage).bot_groups = vec![Arc::new(BotGroup {
            evidence: BotEvidence::Honeypot,
            receipts: vec![BotReceipt {
                id: 20,
                created_ms: NOW - HOUR_MS,
                scope: 0,
            }],
            senders: 1,
            scopes: vec!["f/bots".into()],
        })];
        let forms = compute(&snap, Period::Week);
        let bots = forms.rows.iter().find(|r| r.scope == "f/bots").unwrap();
        assert_eq!(bots.pathways[0].example.as_deref(), Some("bot:20"));
    }

    #[test]
    fn counts_and_series_follow_the_period() {
        let snap = planted();
        let week = compute(&snap, Period::Week);
        let reload = week.rows.iter().find(|r| r.scope == "d/reload").unwrap();
        assert_eq!(
            (reload.duplicate_groups, reload.by_class, reload.exact),
            (1, [0, 0, 1], 1)
        );
        assert_eq!(reload.series.len(), 7);
        assert_eq!(reload.series[6], (0, 1), "the copy in the last day");
        let bots = week.rows.iter().find(|r| r.scope == "f/bots").unwrap();
        assert_eq!(bots.stuck, 0, "stuck since 40 days: outside the week");
        let all = compute(&snap, Period::All);
        let bots = all.rows.iter().find(|r| r.scope == "f/bots").unwrap();
        assert_eq!(bots.stuck, 1);
        let day = compute(&snap, Period::Day);
        assert_eq!(
            day.rows
                .iter()
                .find(|r| r.scope == "f/bots")
                .unwrap()
                .series
                .len(),
            24
        );
    }

    #[test]
    fn many_keyless_receipts_name_no_key_without_copies() {
        let activity = Activity {
            scopes: vec![ScopeHours {
                scope: "lp/x".into(),
                hours: vec![(
                    (NOW - HOUR_MS) / HOUR_MS,
                    Hour {
                        receipts: 20,
                        keyless: 8,
                    },
                )],
            }],
            ..Activity::default()
        };
        let snap = Snapshot {
            settings: Settings::new(NOW),
            activity: Arc::new(activity),
            ..Snapshot::default()
        };
        let forms = compute(&snap, Period::Day);
        let f = &forms.rows[0].pathways[0];
        assert_eq!((f.pathway, f.count), (Pathway::NoKey, 0));
        assert!(
            f.evidence.contains("8 of 20 receipts (40%)"),
            "{}",
            f.evidence
        );
        assert_eq!(f.evidence_in(Lang::En), f.evidence);
        assert!(
            f.evidence_in(Lang::Ja).contains("20 件中 8 件（40%）"),
            "{}",
            f.evidence_in(Lang::Ja)
        );
    }
}
