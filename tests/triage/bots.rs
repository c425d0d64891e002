//! Suspected bots on data shaped by others: empty submissions, one body
//! posted to several forms, one visitor's own copies, a form whose question
//! was left empty; and the bot groups.

use receipt_review::model::{Millis, RawReceipt, ReceiptId, Settings, TimeValue};
use receipt_review::triage::analyze;
use receipt_review::triage::model::{BotEvidence, Triage};
use serde_json::{Value, json};

const T0: Millis = 1_795_947_330_000;
const S: Millis = 1_000;
const MIN: Millis = 60 * S;
/// A group as the tests compare it: item, evidence, receipts, senders, scopes.
type Shown = (String, BotEvidence, Vec<ReceiptId>, usize, Vec<String>);

const SPAM: &str = "Boost your search ranking today with our amazing SEO package";

fn raw(id: ReceiptId, scope: &str, at: Millis, payload: Value) -> RawReceipt {
    RawReceipt {
        id,
        scope: scope.into(),
        request_key: None,
        digest: None,
        payload: Ok(payload.to_string()),
        state: "completed".into(),
        created_at: TimeValue::Integer(T0 + at),
        updated_at: TimeValue::Null,
    }
}

fn sender(n: u32, message: &str) -> Value {
    json!({"name": format!("Person {n}"), "email": format!("p{n}@mail{n}.example"), "message": message})
}

fn run(raws: &[RawReceipt]) -> Triage {
    analyze(raws, &[], &Settings::new(T0 + 60 * MIN)).triage
}

#[test]
fn empty_submissions_are_suspected_bots_grouped_per_scope() {
    let t = run(&[
        raw(1, "a", 0, json!({})),
        raw(
            2,
            "a",
            2 * MIN,
            json!({"_csrf": "x", "name": "", "email": null, "utm_source": "g"}),
        ),
        raw(3, "b", 3 * MIN, json!({"message": "  "})),
        raw(4, "a", 30 * MIN, json!({})),
        raw(5, "a", 31 * MIN, sender(1, "A real question about prices")),
    ]);
    assert_eq!(t.suspected_bots, vec![1, 2, 3, 4]);
    assert!(t.duplicates.is_empty());
    let groups: Vec<Shown> = t
        .bot_groups
        .iter()
        .map(|g| {
            (
                g.item(),
                g.evidence,
                g.receipt_ids(),
                g.senders,
                g.scopes.clone(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        vec![
            (
                "bot:1".into(),
                BotEvidence::Empty,
                vec![1, 2, 4],
                0,
                vec!["a".into()]
            ),
            (
                "bot:3".into(),
                BotEvidence::Empty,
                vec![3],
                0,
                vec!["b".into()]
            ),
        ]
    );
}

#[test]
fn one_body_from_three_senders_is_a_campaign_across_forms() {
    let t = run(&[
        raw(1, "site-a/contact", 0, sender(1, SPAM)),
        raw(2, "site-b/quote", S, sender(2, SPAM)),
        raw(3, "site-c/careers", 2 * S, sender(3, &SPAM.to_uppercase())),
        raw(4, "site-a/contact", 40 * MIN, sender(4, SPAM)),
    ]);
    assert_eq!(t.suspected_bots, vec![1, 2, 3]);
    assert_eq!(t.bot_groups.len(), 1);
    let g = &t.bot_groups[0];
    assert_eq!(g.item(), "bot:1");
    assert_eq!(g.evidence, BotEvidence::Campaign);
    assert_eq!(g.receipt_ids(), vec![1, 2, 3]);
    assert_eq!(g.senders, 3);
    assert_eq!(
        g.scopes,
        vec!["site-a/contact", "site-b/quote", "site-c/careers"]
    );
}

#[test]
fn one_visitors_own_copies_are_one_sender() {
    // A full copy, a partial one from a second handler (fewer fields), and a
    // resend with the name corrected: one visitor, never a campaign.
    let full = json!({"name": "Ann Lee", "email": "ann@example.org", "phone": "0312345678",
                      "message": SPAM});
    let partial = json!({"email": "ann@example.org", "message": SPAM});
    let corrected = json!({"name": "Anne Lee", "email": "ann@example.org", "phone": "0312345678",
                           "message": SPAM});
    let phone_only = json!({"phone": "0312345678", "name": "Ann Lee", "message": SPAM});
    let t = run(&[
        raw(1, "a", 0, full),
        raw(2, "a", 300, partial),
        raw(3, "a", 2 * MIN, corrected),
        raw(4, "b", 3 * MIN, phone_only),
    ]);
    assert!(t.suspected_bots.is_empty(), "{:?}", t.suspected_bots);
}

#[test]
fn a_company_name_is_never_the_message() {
    // The form's question was left empty: the company name is the longest
    // text, but three people of one company are not a campaign.
    let person = |n: u32| {
        json!({"name": format!("Person {n}"), "email": format!("p{n}@acme.example"),
               "company": "Acme Trading Company Limited of Osaka", "message": ""})
    };
    let t = run(&[
        raw(1, "a", 0, person(1)),
        raw(2, "a", MIN, person(2)),
        raw(3, "a", 2 * MIN, person(3)),
    ]);
    assert!(t.suspected_bots.is_empty(), "{:?}", t.suspected_bots);
}

#[test]
fn a_campaign_copy_with_a_honeypot_is_in_the_campaign_group_only() {
    let mut trapped = sender(2, SPAM);
    trapped["bot-field"] = json!("http://spam.example");
    let mut lone_trap = sender(9, "Hello there, I have a question about delivery");
    lone_trap["hp"] = json!("x");
    let mut later_trap = lone_trap.clone();
    later_trap["email"] = json!("other@example.org");
    let t = run(&[
        raw(1, "a", 0, sender(1, SPAM)),
        raw(2, "a", S, trapped),
        raw(3, "b", 2 * S, sender(3, SPAM)),
        raw(4, "a", 5 * MIN, lone_trap),
        raw(5, "a", 14 * MIN, later_trap),
    ]);
    assert_eq!(t.suspected_bots, vec![1, 2, 3, 4, 5]);
    let groups: Vec<(String, BotEvidence, Vec<ReceiptId>, usize)> = t
        .bot_groups
        .iter()
        .map(|g| (g.item(), g.evidence, g.receipt_ids(), g.senders))
        .collect();
    assert_eq!(
        groups,
        vec![
            ("bot:1".into(), BotEvidence::Campaign, vec![1, 2, 3], 3),
            ("bot:4".into(), BotEvidence::Honeypot, vec![4, 5], 2),
        ]
    );
    // Every suspected bot is in exactly one group.
    let mut grouped: Vec<ReceiptId> = t.bot_groups.iter().flat_map(|g| g.receipt_ids()).collect();
    grouped.sort_unstable();
    assert_eq!(grouped, t.suspected_bots);
}

#[test]
fn a_scopes_honeypot_receipts_are_one_group_a_day() {
    let trap = |n: u32| {
        let mut v = sender(n, "Hello there, I have a question about delivery");
        v["_gotcha"] = json!("http://spam.example");
        v
    };
    let hour = 60 * MIN;
    // From the start of T0's UTC day: three visits hours apart that day, one
    // the next day, one the same day on another form.
    let day = T0.div_euclid(24 * hour) * 24 * hour - T0;
    let t = run(&[
        raw(1, "a", day + hour, trap(1)),
        raw(2, "a", day + 7 * hour, trap(2)),
        raw(3, "a", day + 20 * hour, trap(3)),
        raw(4, "a", day + 26 * hour, trap(4)),
        raw(5, "b", day + 2 * hour, trap(5)),
    ]);
    let groups: Vec<(String, Vec<ReceiptId>)> = t
        .bot_groups
        .iter()
        .map(|g| (g.item(), g.receipt_ids()))
        .collect();
    assert_eq!(
        groups,
        vec![
            ("bot:1".into(), vec![1, 2, 3]),
            ("bot:5".into(), vec![5]),
            ("bot:4".into(), vec![4]),
        ]
    );
}
