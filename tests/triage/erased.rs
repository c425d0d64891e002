//! Erased receipts in the analysis: never damaged, never bots, never compared
//! by fields, and kept in the duplicate group they were in when erased.

use receipt_review::intake::canonical::{canonical_text, sha256_hex};
use receipt_review::model::erasure::Tombstone;
use receipt_review::model::{RawReceipt, ReceiptId, Settings};
use receipt_review::triage::analyze;
use receipt_review::triage::model::MatchKind;
use serde_json::json;

use crate::support::{S, T0, groups_with, receipt};

fn settings() -> Settings {
    Settings::new(T0 + 3_600 * S)
}

/// A receipt as the intake stores it: canonical payload, its digest.
fn stored(id: ReceiptId, at: i64, payload: serde_json::Value) -> RawReceipt {
    let mut raw = receipt("corp/contact", id, at, payload);
    let canon = canonical_text(raw.payload.as_ref().unwrap()).unwrap();
    raw.digest = Some(sha256_hex(&canon));
    raw.payload = Ok(canon);
    raw
}

/// `raw` erased: its payload the tombstone, its digest left as it was.
fn erase(raw: &mut RawReceipt, with: &[ReceiptId]) {
    raw.payload = Ok(Tombstone {
        at: "2026-12-07T10:00:00.000Z".into(),
        by: "aiko".into(),
        with: with.to_vec(),
    }
    .payload());
}

fn aiko() -> serde_json::Value {
    json!({"name": "Aiko Tanaka", "email": "aiko@example.jp", "message": "お見積りをお願いします。"})
}

fn three_copies_and_another_visitor() -> Vec<RawReceipt> {
    vec![
        stored(1, 0, aiko()),
        stored(2, 2 * S, aiko()),
        stored(3, 5 * S, aiko()),
        stored(
            4,
            60 * S,
            json!({"name": "Bob", "email": "bob@example.org", "message": "call me"}),
        ),
    ]
}

fn members(raws: &[RawReceipt]) -> Vec<Vec<(ReceiptId, MatchKind)>> {
    groups_with(raws, &settings())
        .iter()
        .map(|g| g.members.iter().map(|m| (m.id, m.match_kind)).collect())
        .collect()
}

#[test]
fn a_group_whose_copies_are_all_erased_keeps_its_id_and_size() {
    let mut raws = three_copies_and_another_visitor();
    let before = groups_with(&raws, &settings());
    assert_eq!(before.len(), 1);
    assert_eq!(before[0].item(), "dup:1");
    for raw in raws.iter_mut().take(3) {
        erase(raw, &[1, 2, 3]);
    }
    let after = groups_with(&raws, &settings());
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].item(), "dup:1");
    assert_eq!(after[0].class, before[0].class);
    assert_eq!(after[0].gaps_ms, before[0].gaps_ms);
    assert_eq!(
        members(&raws),
        vec![vec![
            (1, MatchKind::Erased),
            (2, MatchKind::Erased),
            (3, MatchKind::Erased)
        ]]
    );
    let analysis = analyze(&raws, &[], &settings());
    assert!(
        analysis.triage.suspected_bots.is_empty(),
        "erased receipts look empty, yet are no bots"
    );
    assert!(analysis.triage.damaged.is_empty());
    let erased = analysis.receipts.iter().find(|r| r.id == 1).unwrap();
    assert!(erased.visitor.0.is_empty(), "{:?}", erased.visitor);
}

#[test]
fn an_erased_copy_rejoins_the_copies_that_kept_their_fields() {
    let mut raws = three_copies_and_another_visitor();
    erase(&mut raws[0], &[1, 2, 3]);
    assert_eq!(
        members(&raws),
        vec![vec![
            (1, MatchKind::Erased),
            (2, MatchKind::Exact),
            (3, MatchKind::Exact)
        ]]
    );
    // The last copy erased, the group of the first two stays as it was.
    let mut raws = three_copies_and_another_visitor();
    erase(&mut raws[2], &[1, 2, 3]);
    assert_eq!(
        members(&raws),
        vec![vec![
            (1, MatchKind::Exact),
            (2, MatchKind::Exact),
            (3, MatchKind::Erased)
        ]]
    );
}

#[test]
fn a_copy_left_alone_by_the_erasure_stays_in_its_group() {
    let mut raws = three_copies_and_another_visitor();
    erase(&mut raws[0], &[1, 2, 3]);
    erase(&mut raws[1], &[1, 2, 3]);
    assert_eq!(
        members(&raws),
        vec![vec![
            (1, MatchKind::Erased),
            (2, MatchKind::Erased),
            (3, MatchKind::Exact)
        ]]
    );
}

#[test]
fn a_visitor_who_sent_a_field_named_erased_is_an_ordinary_receipt() {
    // The intake stored it with its own digest: no tombstone. Its one key
    // is bookkeeping (a leading underscore), so it is an empty submission,
    // which is a bot's mark; an erased receipt never is.
    let payload = json!({"_erased": {"at": "x", "by": "y", "with": [1, 2]}});
    let raws = vec![stored(1, 0, payload.clone()), stored(2, S, payload)];
    let analysis = analyze(&raws, &[], &settings());
    assert_eq!(analysis.triage.suspected_bots, vec![1, 2]);
    let mut erased = raws.clone();
    erase(&mut erased[0], &[]);
    erase(&mut erased[1], &[]);
    assert!(
        analyze(&erased, &[], &settings())
            .triage
            .suspected_bots
            .is_empty()
    );
}

#[test]
fn an_erased_receipt_alone_is_in_no_group() {
    let mut raws = three_copies_and_another_visitor();
    erase(&mut raws[3], &[]);
    let groups = members(&raws);
    assert_eq!(groups.len(), 1);
    assert!(groups[0].iter().all(|(id, _)| *id != 4));
}
