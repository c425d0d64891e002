//! What the server absorbs is what the review tool counts: the copies it
//! answered without storing them reach `report` and the screen's reader,
//! beside the retries its keys answered.

use receipt_review::model::Settings;
use receipt_review::reading::{self, Extent, Reader};
use receipt_review::storage::{Access, open_database};

use crate::support::TestServer;

const ADA: &str =
    r#"{"name": "Ada Lovelace", "email": "ada@example.org", "message": "Please call me back."}"#;

#[test]
fn the_copies_the_server_absorbed_are_counted_by_report_and_the_screen() {
    let s = TestServer::start();
    assert_eq!(s.post_json("copies", Some("click-1"), ADA).status, 201);
    // A retry with the key: a replay. A second click with a new key, and a
    // keyless resend: absorbed.
    s.post_json("copies", Some("click-1"), ADA);
    s.post_json("copies", Some("click-2"), ADA);
    s.post_json("copies", None, ADA);
    assert_eq!(s.counts(), [1, 0, 1, 2]);

    let now = receipt_review::model::time::now_ms();
    let db = open_database(s.path(), Access::ReadOnly).unwrap();
    let snap = reading::read(&*db, Settings::new(now), &mut |_| {}).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&receipt_review::report::json::render(&snap)).unwrap();
    assert_eq!(
        (
            v["counts"]["replays"].as_u64(),
            v["counts"]["absorbed"].as_u64()
        ),
        (Some(1), Some(2))
    );
    let form = &v["forms"][0];
    assert_eq!(form["scope"], "acme.example/copies");
    assert_eq!(
        (form["replays"].as_u64(), form["absorbed"].as_u64()),
        (Some(1), Some(2))
    );
    let pathways = form["pathways"].as_array().unwrap();
    assert_eq!(pathways.len(), 1, "{form}");
    assert_eq!(pathways[0]["pathway"], "retries_absorbed");
    assert_eq!(pathways[0]["count"], 3);
    assert_eq!(pathways[0]["example_receipt"], 1);
    assert_eq!(
        v["counts"]["duplicate_groups"], 0,
        "nothing became a duplicate"
    );

    // The screen's reader, open while the server takes more: it reads the
    // new rows alone and counts them.
    let mut reader = Reader::new(Settings::new(now));
    let (first, pending) = reader.read(&*db, now, &mut |_| {}).unwrap();
    pending.end().unwrap();
    assert_eq!(first.absorbed_of(1), Some(2));
    s.post_json("copies", Some("click-3"), ADA);
    let (next, pending) = reader.read(&*db, now, &mut |_| {}).unwrap();
    pending.end().unwrap();
    assert_eq!(reader.last_extent(), Extent::Appended);
    assert_eq!(
        (next.absorbed_of(1), next.absorbed_total),
        (Some(3), Some(3))
    );
    assert_eq!(next.replays_of(1), 1);
}
