//! Duplicate groups: exact and near copies, gap classes, and what must not group.

use receipt_review::model::{Millis, RawReceipt, ReceiptId, Settings};
use receipt_review::triage::model::{DuplicateGroup, GapClass, MatchKind};
use serde_json::{Value, json};

use crate::support::{H, MIN, S, T0, groups_with, receipt};

fn raw(id: ReceiptId, at: Millis, payload: Value) -> RawReceipt {
    receipt("site-a", id, at, payload)
}

fn groups(raws: &[RawReceipt]) -> Vec<DuplicateGroup> {
    groups_with(raws, &Settings::new(T0 + 24 * H))
}

fn ids(g: &DuplicateGroup) -> Vec<ReceiptId> {
    g.receipt_ids()
}

fn kinds(g: &DuplicateGroup) -> Vec<MatchKind> {
    g.members.iter().map(|m| m.match_kind).collect()
}

const MSG: &str = "Hello, could you send me the price list for the blue model please?";
const MSG_JA: &str = "来月の展示会について、出展料金と申込締切を教えていただけますか。";

fn form(message: &str) -> Value {
    json!({"name": "Ada Lovelace", "email": "ada@example.org", "message": message})
}

fn pair_at(gap: Millis) -> Vec<DuplicateGroup> {
    groups(&[raw(1, 0, form(MSG)), raw(2, gap, form(MSG))])
}

#[test]
fn gap_classes_at_their_boundaries() {
    let cases = [
        (0, GapClass::Simultaneous),
        (999, GapClass::Simultaneous),
        (1_000, GapClass::Seconds),
        (59_999, GapClass::Seconds),
        (60_000, GapClass::Minutes),
        (10 * MIN, GapClass::Minutes),
    ];
    for (gap, class) in cases {
        let found = pair_at(gap);
        assert_eq!(found.len(), 1, "gap {gap}");
        assert_eq!(found[0].class, class, "gap {gap}");
        assert_eq!(found[0].gaps_ms, vec![gap]);
        assert_eq!(ids(&found[0]), vec![1, 2]);
        assert_eq!(found[0].item(), "dup:1");
        assert!(found[0].is_exact());
    }
}

#[test]
fn the_window_is_inclusive() {
    assert_eq!(pair_at(10 * MIN).len(), 1);
    assert!(pair_at(10 * MIN + 1).is_empty());
    let mut settings = Settings::new(T0);
    settings.window_ms = 30 * S;
    let twice = |gap| groups_with(&[raw(1, 0, form(MSG)), raw(2, gap, form(MSG))], &settings);
    assert_eq!(twice(30 * S).len(), 1);
    assert!(twice(30 * S + 1).is_empty());
}

#[test]
fn class_is_the_largest_gap() {
    let found = groups(&[
        raw(1, 0, form(MSG)),
        raw(2, 300, form(MSG)),
        raw(3, 300 + 4 * S, form(MSG)),
    ]);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].gaps_ms, vec![300, 4 * S]);
    assert_eq!(found[0].class, GapClass::Seconds);
}

#[test]
fn copies_chain_while_each_gap_is_within_the_window() {
    let found = groups(&[
        raw(1, 0, form(MSG)),
        raw(2, 9 * MIN, form(MSG)),
        raw(3, 18 * MIN, form(MSG)),
        raw(4, 18 * MIN + 10 * MIN + 1, form(MSG)),
    ]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![1, 2, 3]);
}

#[test]
fn copies_hours_apart_never_group() {
    let found = groups(&[
        raw(1, 0, form(MSG)),
        raw(2, 3 * H, form(MSG)),
        raw(3, 3 * H + 2 * S, form(MSG)),
        raw(4, 9 * H, form(MSG)),
    ]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![2, 3]);
}

#[test]
fn noise_fields_do_not_tell_copies_apart() {
    let copy = |n: u32| {
        json!({"name": "Ada Lovelace", "email": "ada@example.org", "message": MSG,
               "event_id": format!("evt-{n}"), "utm_source": format!("src{n}"),
               "_csrf": format!("c{n}"), "timestamp": 1_000 + n, "session_id": format!("s{n}"),
               "g-recaptcha-response": format!("r{n}"), "request_key": format!("k{n}")})
    };
    let found = groups(&[
        raw(1, 0, copy(1)),
        raw(2, 700, copy(2)),
        raw(3, 2 * S, copy(3)),
    ]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![1, 2, 3]);
    assert!(found[0].is_exact());
}

#[test]
fn ignored_fields_by_option() {
    let a = json!({"name": "Ada", "email": "ada@example.org", "page": "/contact?a=1"});
    let b = json!({"name": "Ada", "email": "ada@example.org", "page": "/contact?a=2"});
    let raws = [raw(1, 0, a), raw(2, S, b)];
    // without the option the page differs: a partial? no, an unrelated pair
    assert!(groups(&raws).is_empty());
    let mut settings = Settings::new(T0);
    settings.ignore_fields = vec!["Page".into()];
    assert_eq!(groups_with(&raws, &settings).len(), 1);
}

#[test]
fn width_case_and_space_variants_group_exactly() {
    let a = json!({"name": "Ada Lovelace", "email": "ada@example.org", "message": MSG});
    let b = json!({"Name": "  ＡＤＡ   lovelace", "EMAIL": "ADA@EXAMPLE.ORG ",
                   "message": MSG.to_uppercase().replace(' ', "\u{3000} ")});
    let c = json!({"message": MSG, "email": "Ada@Example.org", "name": "ada\tlovelace"});
    let found = groups(&[raw(1, 0, a), raw(2, 5 * S, b), raw(3, 6 * S, c)]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![1, 2, 3]);
    assert!(found[0].is_exact());
}

#[test]
fn partial_copy_either_order() {
    let full = json!({"name": "Ada Lovelace", "email": "ada@example.org", "phone": "0123",
                      "message": MSG});
    let half = json!({"name": "Ada Lovelace", "message": MSG});
    for (first, second, missing_first) in [(full.clone(), half.clone(), false), (half, full, true)]
    {
        let found = groups(&[raw(1, 0, first), raw(2, 150, second)]);
        assert_eq!(found.len(), 1, "partial first: {missing_first}");
        let g = &found[0];
        assert_eq!(ids(g), vec![1, 2]);
        assert_eq!(kinds(g), vec![MatchKind::Exact, MatchKind::Partial]);
        assert_eq!(g.members[1].fields, vec!["email", "phone"]);
        assert_eq!(g.class, GapClass::Simultaneous);
    }
}

#[test]
fn partial_copy_needs_enough_in_common() {
    let full = json!({"name": "Ada Lovelace", "email": "ada@example.org", "topic": "sales",
                      "message": MSG});
    let only_topic = json!({"topic": "sales"});
    assert!(groups(&[raw(1, 0, full.clone()), raw(2, 100, only_topic)]).is_empty());
    let only_message = json!({"message": MSG});
    assert_eq!(
        groups(&[raw(1, 0, full), raw(2, 100, only_message)]).len(),
        1
    );
}

#[test]
fn exact_copies_of_a_near_copy_carry_its_kind() {
    let full = json!({"name": "Ada Lovelace", "email": "ada@example.org", "message": MSG});
    let half = json!({"name": "Ada Lovelace", "message": MSG});
    let found = groups(&[
        raw(1, 0, full.clone()),
        raw(2, 100, half.clone()),
        raw(3, 3 * S, full),
        raw(4, 3 * S + 120, half),
    ]);
    assert_eq!(found.len(), 1);
    let g = &found[0];
    assert_eq!(ids(g), vec![1, 2, 3, 4]);
    assert_eq!(
        kinds(g),
        vec![
            MatchKind::Exact,
            MatchKind::Partial,
            MatchKind::Exact,
            MatchKind::Partial
        ]
    );
    assert_eq!(g.members[3].fields, vec!["email"]);
    assert!(g.members[2].fields.is_empty());
    assert_eq!(g.gaps_ms, vec![100, 2_900, 120]);
}

#[test]
fn edited_copy_in_english() {
    let edited = MSG.replace("blue", "red");
    let found = groups(&[raw(1, 0, form(MSG)), raw(2, 2 * MIN, form(&edited))]);
    assert_eq!(found.len(), 1);
    assert_eq!(kinds(&found[0]), vec![MatchKind::Exact, MatchKind::Edited]);
    assert_eq!(found[0].members[1].fields, vec!["message"]);
    assert_eq!(found[0].class, GapClass::Minutes);
}

#[test]
fn edited_copy_in_japanese() {
    let edited = MSG_JA.replace("申込締切", "申込期限");
    let a = json!({"お名前": "山田 太郎", "メール": "taro@example.jp", "お問い合わせ内容": MSG_JA});
    let b = json!({"お名前": "山田 太郎", "メール": "taro@example.jp", "お問い合わせ内容": edited});
    let found = groups(&[raw(1, 0, a), raw(2, 40 * S, b)]);
    assert_eq!(found.len(), 1);
    assert_eq!(kinds(&found[0]), vec![MatchKind::Exact, MatchKind::Edited]);
    assert_eq!(found[0].members[1].fields, vec!["お問い合わせ内容"]);
    assert_eq!(found[0].class, GapClass::Seconds);
}

#[test]
fn a_different_message_from_the_same_person_is_not_a_copy() {
    let other = "Also, what are your opening hours on Saturday?";
    assert!(groups(&[raw(1, 0, form(MSG)), raw(2, 30 * S, form(other))]).is_empty());
    let other_ja = "駐車場はありますか。何台まで停められますか。";
    let a = json!({"name": "山田", "message": MSG_JA});
    let b = json!({"name": "山田", "message": other_ja});
    assert!(groups(&[raw(1, 0, a), raw(2, 30 * S, b)]).is_empty());
}

#[test]
fn likeness_is_judged_against_the_earliest_copy() {
    // B is two words from A, C two more words from B: C is near B but not near A.
    let a = "please send me the price list for the blue model today";
    let b = "please send me the price list for the red model tomorrow";
    let c = "please mail us the price list for the red model tomorrow";
    let found = groups(&[
        raw(1, 0, form(a)),
        raw(2, 10 * S, form(b)),
        raw(3, 20 * S, form(c)),
    ]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![1, 2]);

    // The same with subsets: B is a part of A, C holds B plus a field A lacks.
    let a = json!({"name": "Ada", "email": "ada@example.org", "message": MSG});
    let b = json!({"name": "Ada", "message": MSG});
    let c = json!({"name": "Ada", "phone": "0123", "message": MSG});
    let found = groups(&[raw(1, 0, a), raw(2, 100, b), raw(3, 200, c)]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![1, 2]);
}

#[test]
fn a_copy_that_fits_several_groups_joins_the_most_recent() {
    let x = json!({"name": "Ada", "email": "ada@example.org", "message": MSG});
    let y = json!({"name": "Ada", "phone": "0123", "message": MSG});
    let z = json!({"name": "Ada", "message": MSG});
    let found = groups(&[raw(1, 0, x), raw(2, MIN, y), raw(3, 2 * MIN, z)]);
    assert_eq!(found.len(), 1);
    assert_eq!(ids(&found[0]), vec![2, 3]);
    assert_eq!(found[0].members[1].fields, vec!["phone"]);
}

#[test]
fn scopes_are_kept_apart_and_blank_forms_never_group() {
    let mut b = raw(2, S, form(MSG));
    b.scope = "site-b".into();
    assert!(groups(&[raw(1, 0, form(MSG)), b]).is_empty());
    let blank = json!({"name": "", "event_id": "e", "_csrf": "x"});
    assert!(groups(&[raw(1, 0, blank.clone()), raw(2, 10, blank)]).is_empty());
}

#[test]
fn groups_are_ordered_by_their_earliest_copy() {
    let other = json!({"name": "Bob", "email": "bob@example.org", "message": "Do you ship to Canada at all?"});
    let found = groups(&[
        raw(10, 5 * S, form(MSG)),
        raw(11, 6 * S, form(MSG)),
        raw(20, 0, other.clone()),
        raw(21, 7 * S, other),
    ]);
    assert_eq!(
        found.iter().map(|g| g.item()).collect::<Vec<_>>(),
        vec!["dup:20", "dup:10"]
    );
    assert_eq!(found[0].scope, "site-a");
}

#[test]
fn same_time_copies_are_ordered_by_id() {
    let found = groups(&[raw(9, 0, form(MSG)), raw(3, 0, form(MSG))]);
    assert_eq!(ids(&found[0]), vec![3, 9]);
    assert_eq!(found[0].gaps_ms, vec![0]);
}
