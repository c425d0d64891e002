//! Conflicts, stuck receipts, suspected bots and damaged rows, through `analyze`.

use receipt_review::model::{Millis, RawConflict, RawReceipt, ReceiptId, Settings, TimeValue};
use receipt_review::triage::model::{AttemptSource, DamageReason};
use receipt_review::triage::{Analysis, analyze};
use serde_json::{Value, json};

const T0: Millis = 1_795_947_330_000;
const S: Millis = 1_000;
const MIN: Millis = 60 * S;

fn raw(id: ReceiptId, at: Millis, payload: Value) -> RawReceipt {
    crate::support::receipt("site-a", id, at, payload)
}

fn keyed(mut r: RawReceipt, key: &str) -> RawReceipt {
    r.request_key = Some(key.into());
    r
}

fn conflict_row(id: i64, receipt_id: ReceiptId, at: Millis, body: Value) -> RawConflict {
    RawConflict {
        id,
        receipt_id,
        digest: format!("{:064x}", id),
        payload: body.to_string(),
        received_at: TimeValue::Text(receipt_review::model::time::format_rfc3339(T0 + at)),
    }
}

fn run(raws: &[RawReceipt], rows: &[RawConflict]) -> Analysis {
    analyze(raws, rows, &Settings::new(T0 + 10 * MIN))
}

fn body(n: u32) -> Value {
    json!({"name": format!("visitor {n}"), "amount": n})
}

#[test]
fn conflicts_from_key_conflicts_rows() {
    let mut damaged = raw(2, 0, body(2));
    damaged.created_at = TimeValue::Text("not a time".into());
    damaged.request_key = Some("k-two".into());
    let raws = [raw(1, 0, body(1)), damaged];
    let rows = [
        conflict_row(5, 1, 30 * S, body(10)),
        conflict_row(3, 1, 60 * S, body(11)),
        conflict_row(4, 2, 10 * S, body(12)),
        conflict_row(6, 99, 10 * S, body(13)),
    ];
    let a = run(&raws, &rows);
    let c = &a.triage.conflicts;
    assert_eq!(
        c.iter().map(|c| c.receipt_id).collect::<Vec<_>>(),
        vec![1, 2, 99]
    );
    assert_eq!(c[0].item(), "conflict:1");
    assert_eq!(c[0].request_key, "key-1");
    assert_eq!(c[0].scope, "site-a");
    assert_eq!(
        c[0].attempts.iter().map(|a| a.id).collect::<Vec<_>>(),
        vec![5, 3]
    );
    assert!(
        c[0].attempts
            .iter()
            .all(|a| a.source == AttemptSource::KeyConflicts)
    );
    assert_eq!(c[0].attempts[0].at_ms, Some(T0 + 30 * S));
    // the original is damaged: still listed, with what is known
    assert_eq!(
        (c[1].scope.as_str(), c[1].request_key.as_str()),
        ("site-a", "k-two")
    );
    assert_eq!(a.triage.damaged.len(), 1);
    // the original is missing
    assert_eq!((c[2].scope.as_str(), c[2].request_key.as_str()), ("", ""));
    assert_eq!(c[2].attempts.len(), 1);
}

#[test]
fn conflicts_from_a_legacy_table_without_the_unique_key() {
    let raws = [
        keyed(raw(10, 0, body(1)), "dup"),
        keyed(raw(11, S, body(1)), "dup"), // same body: a replay stored twice
        keyed(raw(12, 2 * S, body(2)), "dup"), // another body: a conflict
        keyed(raw(13, 0, body(3)), "same-key-other-scope"),
        {
            let mut r = keyed(raw(14, S, body(4)), "same-key-other-scope");
            r.scope = "site-b".into();
            r
        },
        keyed(raw(15, 0, body(5)), "only-replays"),
        keyed(raw(16, S, body(5)), "only-replays"),
    ];
    let a = run(&raws, &[]);
    let c = &a.triage.conflicts;
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].receipt_id, 10);
    assert_eq!(c[0].request_key, "dup");
    assert_eq!(c[0].attempts.len(), 1);
    assert_eq!(c[0].attempts[0].id, 12);
    assert_eq!(c[0].attempts[0].source, AttemptSource::Receipts);
    assert_eq!(c[0].attempts[0].digest.len(), 64);
}

#[test]
fn the_earliest_receipt_is_the_original_and_sources_mix_in_arrival_order() {
    let raws = [
        keyed(raw(31, 5 * S, body(2)), "k"),
        keyed(raw(30, 0, body(1)), "k"),
        keyed(raw(32, 9 * S, body(3)), "k"),
    ];
    let rows = [
        conflict_row(1, 30, 7 * S, body(9)),
        conflict_row(2, 30, 2 * S, body(8)),
    ];
    let a = run(&raws, &rows);
    let c = &a.triage.conflicts;
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].receipt_id, 30);
    let order: Vec<(AttemptSource, i64)> = c[0].attempts.iter().map(|a| (a.source, a.id)).collect();
    assert_eq!(
        order,
        vec![
            (AttemptSource::KeyConflicts, 2),
            (AttemptSource::Receipts, 31),
            (AttemptSource::KeyConflicts, 1),
            (AttemptSource::Receipts, 32),
        ]
    );
}

#[test]
fn stuck_only_after_stuck_after() {
    let now = T0 + 10 * MIN;
    let in_flight = |id, at| {
        let mut r = raw(id, at, body(id as u32));
        r.state = "in_flight".into();
        r
    };
    let raws = [
        in_flight(4, 5 * MIN - 1), // 300 001 ms old
        in_flight(2, 5 * MIN),     // exactly 5 min: not yet
        in_flight(3, 0),
        raw(1, 0, body(1)), // completed, however old
        {
            let mut r = raw(5, 0, body(5));
            r.state = "failed".into();
            r
        },
    ];
    let a = analyze(&raws, &[], &Settings::new(now));
    let stuck: Vec<(ReceiptId, Millis)> = a
        .triage
        .stuck
        .iter()
        .map(|s| (s.receipt_id, s.age_ms))
        .collect();
    assert_eq!(stuck, vec![(3, 10 * MIN), (4, 5 * MIN + 1)]);
    assert_eq!(a.triage.stuck[0].item(), "stuck:3");
    assert_eq!(a.triage.stuck[0].request_key.as_deref(), Some("key-3"));
    // Receipt 2, exactly 5 min in flight, is stuck a millisecond later: the
    // screen's clock reads again then.
    assert_eq!(a.triage.next_stuck_ms, Some(T0 + 10 * MIN + 1));
}

const SPAM: &str = "Boost your search ranking today with our amazing SEO package";

fn sender(n: u32, message: &str) -> Value {
    json!({"name": format!("Person {n}"), "email": format!("p{n}@mail{n}.example"), "message": message})
}

#[test]
fn bots_by_honeypot() {
    let mut trap = sender(1, "Hello there, I have a question about delivery times");
    trap["bot-field"] = json!("http://spam.example");
    let mut quiet = sender(2, "Hello there, I have a question about delivery times");
    quiet["bot-field"] = json!("");
    let a = run(&[raw(7, 0, trap), raw(8, S, quiet)], &[]);
    assert_eq!(a.triage.suspected_bots, vec![7]);
    assert!(a.receipts[0].honeypot_filled);
}

#[test]
fn bots_by_one_body_from_three_senders() {
    let a = run(
        &[
            raw(3, 0, sender(1, SPAM)),
            raw(1, 40 * S, sender(2, &SPAM.to_uppercase())),
            raw(2, 9 * MIN, sender(3, SPAM)),
            raw(
                9,
                30 * S,
                sender(4, "A genuine question about opening hours please"),
            ),
        ],
        &[],
    );
    assert_eq!(a.triage.suspected_bots, vec![1, 2, 3]);
}

#[test]
fn two_senders_or_one_sender_many_times_is_not_a_campaign() {
    let a = run(
        &[raw(1, 0, sender(1, SPAM)), raw(2, S, sender(2, SPAM))],
        &[],
    );
    assert!(a.triage.suspected_bots.is_empty());
    let a = run(
        &[
            raw(1, 0, sender(1, SPAM)),
            raw(2, S, sender(1, SPAM)),
            raw(3, 2 * S, sender(1, SPAM)),
        ],
        &[],
    );
    assert!(a.triage.suspected_bots.is_empty());
    // three senders, but never three within one window
    let a = run(
        &[
            raw(1, 0, sender(1, SPAM)),
            raw(2, 6 * MIN, sender(2, SPAM)),
            raw(3, 12 * MIN, sender(3, SPAM)),
        ],
        &[],
    );
    assert!(a.triage.suspected_bots.is_empty());
    // a short body is not a message
    let a = run(
        &[
            raw(1, 0, sender(1, "hi")),
            raw(2, S, sender(2, "hi")),
            raw(3, 2 * S, sender(3, "hi")),
        ],
        &[],
    );
    assert!(a.triage.suspected_bots.is_empty());
}

#[test]
fn every_damage_reason_is_listed_by_id() {
    let mut not_text = raw(6, 0, json!({}));
    not_text.payload = Err("BLOB of 3 bytes".into());
    let mut not_json = raw(2, 0, json!({}));
    not_json.payload = Ok("{\"a\": ".into());
    let mut not_object = raw(3, 0, json!({}));
    not_object.payload = Ok("[1, 2, 3]".into());
    let mut bad_time = raw(4, 0, json!({"a": 1}));
    bad_time.created_at = TimeValue::Text("2026-02-30 10:00:00".into());
    let mut bad_digest = raw(5, 0, json!({"a": 1}));
    bad_digest.digest = Some("f".repeat(64));
    let mut bad_state = raw(1, 0, json!({"a": 1}));
    bad_state.state = "pending".into();
    let good = raw(7, 0, json!({"a": 1}));
    let a = run(
        &[
            not_text, not_json, not_object, bad_time, bad_digest, bad_state, good,
        ],
        &[],
    );
    let found: Vec<(ReceiptId, DamageReason)> = a
        .triage
        .damaged
        .iter()
        .map(|d| (d.receipt_id, d.reason))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, DamageReason::State),
            (2, DamageReason::Payload),
            (3, DamageReason::Payload),
            (4, DamageReason::Time),
            (5, DamageReason::Digest),
            (6, DamageReason::Payload),
        ]
    );
    assert!(a.triage.damaged.iter().all(|d| !d.detail.is_empty()));
    assert_eq!(a.receipts.iter().map(|r| r.id).collect::<Vec<_>>(), vec![7]);
}

#[test]
fn receipts_come_back_by_id_with_verified_digests() {
    let mut first = raw(1, 0, json!({"a": 1}));
    let computed = run(&[first.clone()], &[]).receipts[0].digest.clone();
    first.digest = Some(computed.clone());
    let a = run(
        &[
            raw(3, 0, json!({"b": 2})),
            first,
            raw(2, 0, json!({"c": 3})),
        ],
        &[],
    );
    assert_eq!(
        a.receipts.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(a.receipts[0].digest, computed);
    assert!(a.triage.damaged.is_empty());
}
