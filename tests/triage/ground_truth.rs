//! Ground truth: a deterministic generator plants known duplicate groups among
//! unrelated receipts, and the analysis must find them (and little else).
//!
//! Planted: exact groups of every gap class (copies with fresh noise fields and
//! width/case/space variants), near groups (partial copies either way round,
//! edited copies in English and Japanese), genuine follow-ups hours later, a
//! different message from the same person within minutes, and noise.

use std::collections::{BTreeSet, HashMap, HashSet};

use receipt_review::model::{Millis, RawReceipt, ReceiptId, Settings, TimeValue};
use receipt_review::triage::analyze;
use receipt_review::triage::model::{GapClass, MatchKind};
use serde_json::{Map, Value, json};

const T0: Millis = 1_795_900_000_000;
const DAY: Millis = 24 * 60 * 60 * 1000;
const WINDOW: Millis = Settings::DEFAULT_WINDOW_MS;

/// SplitMix64: plain seeded arithmetic, the same numbers on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: i64, hi_inclusive: i64) -> i64 {
        lo + self.below((hi_inclusive - lo + 1) as u64) as i64
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const FIRST: &[&str] = &[
    "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Dennis", "Frances", "Ken",
    "Radia", "John", "Sophie", "Niklaus", "Hedy", "Tim", "Lynn", "Guido", "Anita", "Linus",
];
const LAST: &[&str] = &[
    "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Ritchie", "Allen",
    "Thompson", "Perlman", "Backus", "Wilson", "Wirth", "Lamarr", "Berners", "Conway", "Rossum",
    "Borg", "Torvalds",
];
const FAMILY_JA: &[&str] = &[
    "山田", "佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "中村", "小林", "加藤", "吉田", "山本",
];
const GIVEN_JA: &[&str] = &[
    "太郎",
    "花子",
    "一郎",
    "美咲",
    "健太",
    "陽菜",
    "大輔",
    "結衣",
    "翔太",
    "葵",
    "蓮",
    "さくら",
];
const WORDS: &[&str] = &[
    "order",
    "delivery",
    "invoice",
    "price",
    "list",
    "model",
    "blue",
    "red",
    "green",
    "size",
    "small",
    "large",
    "please",
    "could",
    "would",
    "you",
    "send",
    "me",
    "us",
    "the",
    "a",
    "for",
    "next",
    "week",
    "month",
    "tomorrow",
    "today",
    "about",
    "question",
    "refund",
    "return",
    "warranty",
    "repair",
    "appointment",
    "booking",
    "table",
    "room",
    "two",
    "three",
    "four",
    "people",
    "evening",
    "morning",
    "catalogue",
    "quote",
    "shipping",
    "abroad",
    "address",
    "change",
    "cancel",
    "subscription",
    "account",
    "password",
    "login",
    "problem",
    "error",
    "page",
    "payment",
    "card",
    "bank",
    "transfer",
    "receipt",
    "copy",
    "stock",
    "available",
    "when",
    "where",
    "how",
    "much",
    "many",
    "is",
    "are",
    "it",
    "my",
    "our",
    "with",
    "without",
    "thanks",
    "hello",
    "regards",
    "urgent",
    "soon",
    "possible",
    "still",
    "again",
    "already",
    "parcel",
    "arrived",
    "damaged",
    "missing",
    "item",
    "colour",
    "discount",
    "student",
    "group",
    "visit",
    "opening",
    "hours",
    "holiday",
    "closed",
    "open",
    "weekend",
];
const PHRASES_JA: &[&str] = &[
    "お世話になっております。",
    "先日注文した商品について",
    "配送予定日を教えてください。",
    "見積もりをお願いします。",
    "請求書の再発行は可能でしょうか。",
    "来週の予約を変更したいです。",
    "商品が破損して届きました。",
    "返品の手続きについて",
    "営業時間を確認したいです。",
    "駐車場はありますか。",
    "支払い方法を変更できますか。",
    "カタログを送っていただけますか。",
    "担当者から折り返しご連絡ください。",
    "よろしくお願いいたします。",
    "パスワードを忘れてしまいました。",
    "ログインできません。",
    "在庫はまだありますか。",
    "団体割引はありますか。",
    "領収書を発行してください。",
    "海外への発送は可能ですか。",
];
const KANA: &[char] = &[
    'あ', 'い', 'う', 'え', 'お', 'か', 'き', 'く', 'け', 'こ', 'さ', 'し', 'す', 'せ', 'そ', 'た',
    'ち', 'つ', 'て', 'と', 'な', 'に', 'ぬ', 'ね', 'の',
];
const TOPICS: &[&str] = &["sales", "support", "billing", "other"];
const SCOPES: &[&str] = &[
    "shop.example/contact",
    "clinic.example/form",
    "jp.example/toiawase",
];

/// A visitor: the fields they would type.
#[derive(Clone)]
struct Person {
    japanese: bool,
    fields: Vec<(String, String)>,
}

fn person(rng: &mut Rng, n: u64, japanese: bool) -> Person {
    let (name, email) = if japanese {
        let name = format!("{} {}", rng.pick(FAMILY_JA), rng.pick(GIVEN_JA));
        (name, format!("user{n}@example.jp"))
    } else {
        let (f, l) = (rng.pick(FIRST), rng.pick(LAST));
        (
            format!("{f} {l}"),
            format!("{}.{}{n}@example.org", f.to_lowercase(), l.to_lowercase()),
        )
    };
    let mut fields = vec![("name".to_string(), name), ("email".to_string(), email)];
    if rng.chance(60) {
        fields.push((
            "phone".into(),
            format!("0{}", rng.range(10_000_000, 99_999_999)),
        ));
    }
    if rng.chance(50) {
        fields.push(("topic".into(), rng.pick(TOPICS).to_string()));
    }
    fields.push(("message".into(), message(rng, japanese)));
    Person { japanese, fields }
}

fn message(rng: &mut Rng, japanese: bool) -> String {
    if japanese {
        let n = rng.range(3, 5);
        (0..n).map(|_| *rng.pick(PHRASES_JA)).collect()
    } else {
        let n = rng.range(10, 24);
        let words: Vec<&str> = (0..n).map(|_| *rng.pick(WORDS)).collect();
        let mut text = words.join(" ");
        text.push('.');
        text[..1].to_uppercase() + &text[1..]
    }
}

/// The same message with a few words (or, in Japanese, characters) changed.
fn edit(rng: &mut Rng, text: &str, japanese: bool) -> String {
    let edits = rng.range(1, 2) as usize;
    if japanese {
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..edits + 1 {
            let at = rng.below(chars.len() as u64) as usize;
            let mut c = *rng.pick(KANA);
            while c == chars[at] {
                c = *rng.pick(KANA);
            }
            chars[at] = c;
        }
        chars.into_iter().collect()
    } else {
        let mut words: Vec<String> = text.split(' ').map(str::to_string).collect();
        for _ in 0..edits {
            let at = rng.below(words.len() as u64) as usize;
            let mut w = rng.pick(WORDS).to_string();
            while w.eq_ignore_ascii_case(words[at].trim_end_matches('.')) {
                w = rng.pick(WORDS).to_string();
            }
            words[at] = w;
        }
        words.join(" ")
    }
}

/// A submitted copy: the visitor's fields (maybe restyled) plus fresh noise.
fn payload(rng: &mut Rng, fields: &[(String, String)], restyle: bool) -> String {
    let mut map = Map::new();
    for (k, v) in fields {
        let (k, v) = if restyle {
            match rng.below(4) {
                0 => (k.to_uppercase(), v.to_uppercase()),
                1 => (k.clone(), format!("  {}  ", v.replace(' ', "  "))),
                2 => (k.clone(), v.replace(' ', "\u{3000}")),
                _ => (format!(" {k}"), v.clone()),
            }
        } else {
            (k.clone(), v.clone())
        };
        map.insert(k, Value::String(v));
    }
    map.insert("event_id".into(), json!(format!("evt-{:016x}", rng.next())));
    map.insert("_csrf".into(), json!(format!("{:x}", rng.next())));
    map.insert(
        "utm_source".into(),
        json!(rng.pick(&["google", "newsletter", "x", ""])),
    );
    map.insert("timestamp".into(), json!(rng.next() % 1_000_000));
    if rng.chance(30) {
        map.insert("bot-field".into(), json!(""));
    }
    Value::Object(map).to_string()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Planted {
    Exact(GapClass),
    Partial,
    Edited { japanese: bool },
}

struct Plan {
    rng: Rng,
    /// (time, scope, payload, label)
    copies: Vec<(Millis, &'static str, String, Option<usize>)>,
    groups: Vec<Planted>,
    follow_ups: Vec<usize>,
    people: u64,
}

impl Plan {
    fn new(seed: u64) -> Self {
        Self {
            rng: Rng(seed),
            copies: Vec::new(),
            groups: Vec::new(),
            follow_ups: Vec::new(),
            people: 0,
        }
    }

    fn someone(&mut self, scope: &str) -> Person {
        self.people += 1;
        let japanese = scope.starts_with("jp.") || self.rng.chance(10);
        person(&mut self.rng, self.people, japanese)
    }

    fn start(&mut self) -> (Millis, &'static str) {
        (T0 + self.rng.range(0, DAY - WINDOW), *self.rng.pick(SCOPES))
    }

    fn copy(
        &mut self,
        at: Millis,
        scope: &'static str,
        fields: &[(String, String)],
        restyle: bool,
        label: Option<usize>,
    ) -> usize {
        let text = payload(&mut self.rng, fields, restyle);
        self.copies.push((at, scope, text, label));
        self.copies.len() - 1
    }

    /// Gaps of an exact group of `class`, with a total span within the window.
    fn gaps(&mut self, class: GapClass, n: usize) -> Vec<Millis> {
        let r = &mut self.rng;
        let mut gaps: Vec<Millis> = match class {
            GapClass::Simultaneous => (1..n).map(|_| r.range(0, 999)).collect(),
            GapClass::Seconds => (1..n).map(|_| r.range(0, 59_999)).collect(),
            GapClass::Minutes => (1..n)
                .map(|_| r.range(0, WINDOW / (n as i64 - 1)))
                .collect(),
        };
        let at = r.below(gaps.len() as u64) as usize;
        gaps[at] = match class {
            GapClass::Simultaneous => gaps[at],
            GapClass::Seconds => r.range(1_000, 59_999),
            GapClass::Minutes => r.range(60_000, WINDOW / (n as i64 - 1)),
        };
        gaps
    }

    fn exact_group(&mut self, class: GapClass) {
        let (mut at, scope) = self.start();
        let who = self.someone(scope);
        let n = self.rng.range(2, 4) as usize;
        let label = Some(self.groups.len());
        self.groups.push(Planted::Exact(class));
        let gaps = self.gaps(class, n);
        self.copy(at, scope, &who.fields, false, label);
        for gap in gaps {
            at += gap;
            self.copy(at, scope, &who.fields, true, label);
        }
        if self.rng.chance(30) {
            self.follow_up(at, scope, &who);
        }
    }

    fn partial_group(&mut self) {
        let (at, scope) = self.start();
        let who = self.someone(scope);
        let label = Some(self.groups.len());
        self.groups.push(Planted::Partial);
        let half: Vec<(String, String)> = who
            .fields
            .iter()
            .filter(|(k, _)| k == "name" || k == "message")
            .cloned()
            .collect();
        let gap = self.rng.range(0, 1_500);
        let (first, second) = if self.rng.chance(50) {
            (who.fields.clone(), half)
        } else {
            (half, who.fields.clone())
        };
        self.copy(at, scope, &first, false, label);
        self.copy(at + gap, scope, &second, false, label);
        if self.rng.chance(40) {
            let retry = self.rng.range(2_000, 30_000);
            self.copy(at + retry, scope, &first, true, label);
        }
        if self.rng.chance(30) {
            self.follow_up(at + gap, scope, &who);
        }
    }

    fn edited_group(&mut self, japanese: bool) {
        let (at, _) = self.start();
        let scope = if japanese {
            SCOPES[2]
        } else {
            *self.rng.pick(&SCOPES[..2])
        };
        self.people += 1;
        let who = person(&mut self.rng, self.people, japanese);
        let label = Some(self.groups.len());
        self.groups.push(Planted::Edited { japanese });
        self.copy(at, scope, &who.fields, false, label);
        let mut edited = who.fields.clone();
        let msg = edited
            .iter_mut()
            .find(|(k, _)| k == "message")
            .expect("message");
        msg.1 = edit(&mut self.rng, &msg.1, japanese);
        let gap = self.rng.range(5_000, WINDOW);
        self.copy(at + gap, scope, &edited, false, label);
    }

    /// The same person writes again hours later: a genuine second message.
    fn follow_up(&mut self, after: Millis, scope: &'static str, who: &Person) {
        let later = after + self.rng.range(2 * 3_600_000, 8 * 3_600_000);
        let mut fields = who.fields.clone();
        if self.rng.chance(50) {
            let japanese = who.japanese;
            let msg = fields
                .iter_mut()
                .find(|(k, _)| k == "message")
                .expect("message");
            msg.1 = message(&mut self.rng, japanese);
        }
        let i = self.copy(later, scope, &fields, false, None);
        self.follow_ups.push(i);
    }

    /// The same person, a different message, minutes later: not a copy.
    fn second_message(&mut self) {
        let (at, scope) = self.start();
        let who = self.someone(scope);
        self.copy(at, scope, &who.fields, false, None);
        let mut fields = who.fields.clone();
        let msg = fields
            .iter_mut()
            .find(|(k, _)| k == "message")
            .expect("message");
        msg.1 = message(&mut self.rng, who.japanese);
        let gap = self.rng.range(10_000, WINDOW);
        self.copy(at + gap, scope, &fields, false, None);
    }

    fn noise(&mut self) {
        let (at, scope) = self.start();
        let who = self.someone(scope);
        self.copy(at, scope, &who.fields, false, None);
    }
}

struct World {
    raws: Vec<RawReceipt>,
    label: HashMap<ReceiptId, usize>,
    groups: Vec<(Planted, BTreeSet<ReceiptId>)>,
    follow_ups: Vec<ReceiptId>,
}

fn plant(seed: u64) -> World {
    let mut plan = Plan::new(seed);
    for i in 0..360 {
        plan.exact_group(GapClass::ALL[i % 3]);
    }
    for _ in 0..120 {
        plan.partial_group();
    }
    for i in 0..160 {
        plan.edited_group(i % 2 == 1);
    }
    for _ in 0..80 {
        plan.second_message();
    }
    for _ in 0..2_500 {
        plan.noise();
    }
    // Ids in arrival order, as an autoincrement would give them.
    let mut order: Vec<usize> = (0..plan.copies.len()).collect();
    order.sort_by_key(|&i| (plan.copies[i].0, i));
    let mut id_of = vec![0; plan.copies.len()];
    for (n, &i) in order.iter().enumerate() {
        id_of[i] = n as ReceiptId + 1;
    }
    let mut groups: Vec<(Planted, BTreeSet<ReceiptId>)> =
        plan.groups.iter().map(|&p| (p, BTreeSet::new())).collect();
    let mut label = HashMap::new();
    let mut raws = Vec::new();
    for &i in &order {
        let (at, scope, text, l) = &plan.copies[i];
        let id = id_of[i];
        if let Some(l) = l {
            label.insert(id, *l);
            groups[*l].1.insert(id);
        }
        raws.push(RawReceipt {
            id,
            scope: scope.to_string(),
            request_key: Some(format!("k{id}")),
            digest: None,
            payload: Ok(text.clone()),
            state: "completed".into(),
            created_at: TimeValue::Integer(*at),
            updated_at: TimeValue::Null,
        });
    }
    World {
        raws,
        label,
        groups,
        follow_ups: plan.follow_ups.iter().map(|&i| id_of[i]).collect(),
    }
}

#[test]
fn planted_groups_are_found() {
    let world = plant(0x5EED_2026);
    let analysis = analyze(&world.raws, &[], &Settings::new(T0 + 2 * DAY));
    assert!(analysis.triage.damaged.is_empty());
    let reported = &analysis.triage.duplicates;
    let found: HashMap<BTreeSet<ReceiptId>, GapClass> = reported
        .iter()
        .map(|g| (g.receipt_ids().into_iter().collect(), g.class))
        .collect();
    let kinds_of: HashMap<BTreeSet<ReceiptId>, HashSet<MatchKind>> = reported
        .iter()
        .map(|g| {
            let ids = g.receipt_ids().into_iter().collect();
            (ids, g.members.iter().map(|m| m.match_kind).collect())
        })
        .collect();

    // Every exact group, with its class.
    let mut exact = 0;
    for (planted, ids) in &world.groups {
        if let Planted::Exact(class) = planted {
            exact += 1;
            assert_eq!(found.get(ids), Some(class), "exact group {ids:?}");
        }
    }

    // Near groups: recall by kind.
    let mut near = HashMap::<&str, (usize, usize)>::new();
    for (planted, ids) in &world.groups {
        let kind = match planted {
            Planted::Exact(_) => continue,
            Planted::Partial => "partial",
            Planted::Edited { japanese: false } => "edited (English)",
            Planted::Edited { japanese: true } => "edited (Japanese)",
        };
        let e = near.entry(kind).or_default();
        e.1 += 1;
        if let Some(kinds) = kinds_of.get(ids) {
            e.0 += 1;
            // marked as what it is (an edit may, rarely, undo itself: then it is exact)
            let expected = match planted {
                Planted::Partial => MatchKind::Partial,
                _ => MatchKind::Edited,
            };
            assert!(
                kinds.contains(&expected) || kinds.len() == 1,
                "{ids:?} planted {planted:?}, marked {kinds:?}"
            );
        }
    }
    let (near_found, near_total) = near.values().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let recall = near_found as f64 / near_total as f64;

    // Precision: a reported group is true when all its copies come from one planted group.
    let true_groups = reported
        .iter()
        .filter(|g| {
            let labels: BTreeSet<Option<&usize>> = g
                .receipt_ids()
                .iter()
                .map(|id| world.label.get(id))
                .collect();
            labels.len() == 1 && !labels.contains(&None)
        })
        .count();
    let precision = true_groups as f64 / reported.len() as f64;

    // Never across more than the window; follow-ups hours later never merged.
    let times: HashMap<ReceiptId, Millis> = analysis
        .receipts
        .iter()
        .map(|r| (r.id, r.created_ms))
        .collect();
    let widest = reported
        .iter()
        .map(|g| times[&g.members[g.members.len() - 1].id] - times[&g.members[0].id])
        .max()
        .unwrap_or(0);
    let merged_follow_ups = world
        .follow_ups
        .iter()
        .filter(|id| reported.iter().any(|g| g.receipt_ids().contains(id)))
        .count();

    println!(
        "ground truth: {} receipts, {} planted groups ({} exact, {} near), {} reported",
        world.raws.len(),
        world.groups.len(),
        exact,
        near_total,
        reported.len()
    );
    println!("exact groups found with their class: {exact}/{exact}");
    let mut kinds: Vec<_> = near.iter().collect();
    kinds.sort();
    for (kind, (f, t)) in kinds {
        println!("near {kind}: {f}/{t}");
    }
    println!(
        "near recall {:.1}% ({near_found}/{near_total}), precision {:.1}% ({true_groups}/{}), \
         widest group {} ms, follow-ups merged {merged_follow_ups}/{}",
        recall * 100.0,
        precision * 100.0,
        reported.len(),
        widest,
        world.follow_ups.len()
    );

    assert!(recall >= 0.90, "near recall {recall}");
    assert!(precision >= 0.95, "precision {precision}");
    assert!(widest <= WINDOW, "a group spans {widest} ms");
    assert!(
        reported
            .iter()
            .all(|g| g.gaps_ms.iter().all(|&gap| gap <= WINDOW))
    );
    assert_eq!(merged_follow_ups, 0);
    // No bots were planted: partial copies and retries are not "other senders".
    assert_eq!(analysis.triage.suspected_bots, Vec::<ReceiptId>::new());
    assert!(world.follow_ups.len() >= 50);
}
