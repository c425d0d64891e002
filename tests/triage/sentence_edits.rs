//! Copies a visitor rewrote by a sentence or two: grouped as edited, with the why, and never a
//! genuine second message (docs/analysis.md, "Edited by sentence").

use proptest::prelude::*;
use receipt_review::model::{Millis, RawReceipt, ReceiptId, Settings};
use receipt_review::triage::model::{DuplicateGroup, MatchKind, SentenceChange};
use serde_json::{Value, json};

use crate::support::{H, MIN, S, T0, groups_with, receipt};

fn raw(id: ReceiptId, scope: &str, at: Millis, payload: Value) -> RawReceipt {
    receipt(scope, id, at, payload)
}

fn groups(raws: &[RawReceipt]) -> Vec<DuplicateGroup> {
    groups_with(raws, &Settings::new(T0 + 48 * H))
}

/// The two receipts of one visitor, `gap` apart, with these messages.
fn pair(scope: &str, gap: Millis, first: &str, second: &str) -> Vec<DuplicateGroup> {
    let visitor = |message: &str| {
        json!({
            "name": "伊藤 優子",
            "email": "ito_yuko91@mail.example.ne.jp",
            "company": "青空デザイン株式会社",
            "message": message,
        })
    };
    groups(&[
        raw(1, scope, 0, visitor(first)),
        raw(2, scope, gap, visitor(second)),
    ])
}

/// The edited copy's sentence changes, when the pair is one group.
fn changes_of(groups: &[DuplicateGroup]) -> Option<Vec<SentenceChange>> {
    let [g] = groups else { return None };
    assert_eq!(g.receipt_ids(), [1, 2]);
    assert_eq!(g.members[1].match_kind, MatchKind::Edited);
    assert_eq!(g.members[1].fields, ["message"]);
    Some(g.members[1].sentence_changes.clone())
}

/// Eight sentences, separated by a space, as the shop's support form receives them.
const EIGHT: &str = "いつもお世話になっております。 青空デザイン株式会社の伊藤です。 \
    先月注文した名刺の件でご連絡いたしました。 届いた箱のうち一つに印刷のかすれがありました。 \
    写真を添付いたしますのでご確認ください。 交換のお手続きを進めていただけますでしょうか。 \
    は癌指名ニュース文言サンプル。 何卒よろしくお願いいたします。";

/// [`EIGHT`] with its 6th and 7th sentences replaced by "urgent".
fn urgent_eight() -> String {
    EIGHT.replace(
        "交換のお手続きを進めていただけますでしょうか。 は癌指名ニュース文言サンプル。",
        "urgent",
    )
}

#[test]
fn two_sentences_replaced_by_urgent_minutes_later_are_an_edited_copy_that_says_so() {
    let second = urgent_eight();
    let found = pair("shop.example/support", 6 * MIN + 45 * S, EIGHT, &second);
    let changes = changes_of(&found).expect("one edited group");
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].sentences, [6, 7]);
    assert_eq!(changes[0].added, "urgent");
    assert!(changes[0].whole_sentences);

    // The report says the same.
    let member = serde_json::to_value(&found[0].members[1]).unwrap();
    assert_eq!(member["sentence_changes"][0]["sentences"], json!([6, 7]));
    assert_eq!(member["sentence_changes"][0]["added"], "urgent");
}

#[test]
fn a_second_paragraph_replaced_by_urgent_is_an_edited_copy() {
    let first = "お世話になっております。 青空デザイン株式会社の伊藤です。 \
        先日お送りいただいた見積書を拝見しました。 内容に問題はございません。";
    let second = "つきましては発注書をお送りしますのでご確認ください。 \
        納品は来月の第二週を希望しております。 \
        ご不明な点があればお知らせください。";
    let a = format!("{first}\n{second}");
    let b = format!("{first}\nurgent");
    let changes = changes_of(&pair("corp.example/contact", 4 * MIN + 29 * S, &a, &b))
        .expect("one edited group");
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].sentences, [5, 6, 7]);
    assert_eq!(changes[0].added, "urgent");
}

#[test]
fn a_word_edit_says_no_sentences() {
    let second = EIGHT.replace("一つに", "二つに");
    let changes = changes_of(&pair("s", 2 * MIN, EIGHT, &second)).expect("one edited group");
    assert!(changes.is_empty(), "a few words: {changes:?}");
}

#[test]
fn hours_apart_or_without_a_sender_it_is_not_grouped() {
    let second = urgent_eight();
    assert!(
        pair("s", 3 * H, EIGHT, &second).is_empty(),
        "past the window"
    );

    // Nothing names the sender: the same template sent by two people is not one inquiry.
    let anonymous =
        |id, at, message: &str| raw(id, "s", at, json!({"message": message, "topic": "名刺"}));
    let found = groups(&[anonymous(1, 0, EIGHT), anonymous(2, 2 * MIN, &second)]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn another_question_between_the_same_greeting_and_closing_is_not_an_edit() {
    // A fifth of the characters differ, which "a few words" alone would allow: but the third
    // sentence is another question, not a corrected one.
    let a = "いつもお世話になっております。 青空デザイン株式会社の伊藤です。 \
        新しい料金プランの資料を送っていただけますか。 何卒よろしくお願いいたします。";
    let b = "いつもお世話になっております。 青空デザイン株式会社の伊藤です。 \
        担当者様の直通の連絡先を教えていただけますか。 何卒よろしくお願いいたします。";
    let found = pair("s", 60 * S, a, b);
    assert!(found.is_empty(), "{found:?}");
}

/// Questions a visitor of a business form asks, each its own inquiry, of similar length and
/// vocabulary.
const QUESTIONS_JA: &[&str] = &[
    "来月分の請求書の送付先を本社に変更したいです。",
    "先週注文した商品がまだ届いておりません。",
    "新しい料金プランの資料を送っていただけますか。",
    "導入前にオンラインでの打ち合わせは可能でしょうか。",
    "保守契約の更新手続きについて教えてください。",
    "担当者様の直通の連絡先を教えていただけますか。",
    "見積書の有効期限を延長していただけますか。",
    "サンプル品を二つ送っていただくことは可能ですか。",
    "昨日からログインできない不具合が続いています。",
    "領収書の宛名を会社名に変更してください。",
];
const QUESTIONS_EN: &[&str] = &[
    "Could you send the invoice for next month to our head office instead?",
    "The order we placed last week has still not arrived at our office.",
    "Could you send us the brochure for your new pricing plan, please?",
    "Is it possible to have an online meeting before we sign the contract?",
    "Please tell us how to renew the maintenance contract for next year.",
    "Could you give us the direct phone number of the person in charge?",
    "Could you extend the validity of the quotation until the end of May?",
    "Would it be possible to send us two samples of the product first?",
    "Since yesterday we cannot log in to the dashboard at all, please help.",
    "Please change the name on the receipt to our company name instead.",
];

fn message(ja: bool, greeting: usize, questions: &[usize]) -> String {
    let (greetings, closing, pool): (&[&str], &str, &[&str]) = if ja {
        (
            &[
                "いつもお世話になっております。 青空デザイン株式会社の伊藤です。",
                "お世話になります。 伊藤と申します。",
            ],
            "何卒よろしくお願いいたします。",
            QUESTIONS_JA,
        )
    } else {
        (
            &[
                "Hello. This is Yuko from Aozora Design.",
                "Good morning. My name is Yuko Ito.",
            ],
            "Best regards.",
            QUESTIONS_EN,
        )
    };
    let body: Vec<&str> = questions.iter().map(|&q| pool[q]).collect();
    format!("{} {} {closing}", greetings[greeting], body.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The same visitor, two different inquiries of similar length and vocabulary, minutes
    /// apart: never one group, whatever greeting and closing they share.
    #[test]
    fn two_different_inquiries_of_one_visitor_are_never_grouped(
        ja in any::<bool>(),
        greetings in (0..2usize, 0..2usize),
        picks in proptest::sample::subsequence((0..10usize).collect::<Vec<_>>(), 2..=4),
        split in 1..3usize,
        gap_s in 1..600i64,
    ) {
        // Two inquiries with no question in common.
        let split = split.min(picks.len() - 1);
        let (mine, theirs) = picks.split_at(split);
        let a = message(ja, greetings.0, mine);
        let b = message(ja, greetings.1, theirs);
        let found = pair("s", gap_s * S, &a, &b);
        prop_assert!(found.is_empty(), "{a:?} / {b:?} grouped: {found:?}");
    }

    /// The same inquiry with one of its questions replaced by a word is one edited group.
    #[test]
    fn an_inquiry_with_a_question_replaced_by_a_word_is_grouped(
        ja in any::<bool>(),
        greeting in 0..2usize,
        picks in proptest::sample::subsequence((0..10usize).collect::<Vec<_>>(), 3..=4),
        replaced in 0..3usize,
        word in proptest::sample::select(vec!["urgent", "至急", "please reply"]),
        gap_s in 1..600i64,
    ) {
        let a = message(ja, greeting, &picks);
        let pool = if ja { QUESTIONS_JA } else { QUESTIONS_EN };
        let b = a.replacen(pool[picks[replaced]], word, 1);
        let changes = changes_of(&pair("s", gap_s * S, &a, &b));
        prop_assert!(changes.is_some(), "{a:?} / {b:?} not grouped");
    }
}
