//! The intake protocol (docs/intake-protocol.md), in memory: return values, errors, call counts and state.
//!
//! Eight plausible ways to get the protocol wrong, and the test(s) here that catch each one (each was
//! applied to the code temporarily and the suite run against it):
//!
//! 1. key length `{1,128}`            -> `key_longer_than_64_is_refused`
//! 2. `sort_keys=False`               -> `canonical_sorts_keys_and_keeps_array_order`,
//!    `fingerprint_is_sha256_of_canonical_text`, `replay_ignores_key_order_of_the_body`
//!    (and every case of tests/intake/canonical.rs). serde_json's `Map` is a `BTreeMap` unless
//!    its `preserve_order` feature is on, so the break shows once that feature is unified in:
//!    run `cargo test --features serde_json/preserve_order` to see it.
//! 3. `sha512`                        -> `fingerprint_is_sha256_of_canonical_text`
//! 4. `path.lower()`                  -> `scoped_key_is_a_compact_json_array`,
//!    `path_case_separates_operations`
//! 5. conflict classified as replay   -> `classify_tells_the_three_apart`,
//!    `changed_body_is_a_conflict_and_runs_nothing`
//! 6. remember stores without copying -> `remember_keeps_its_own_copy`. In Rust the store would
//!    have to keep a borrow of the caller's value (`Record<'a> { response: &'a Value }`); tried:
//!    the borrow checker rejects it (E0597/E0505 in `execute`, which returns the value it would
//!    lend), and this test, which changes the value after lending it, no longer compiles.
//! 7. replay returns without copying  -> `replay_hands_out_copies`,
//!    `execute_response_changes_do_not_reach_later_replays`. Tried as `fn replay(&Record) -> &Value`:
//!    these tests no longer compile (a shared borrow cannot be compared as or changed like a copy).
//! 8. action run for replays too      -> `same_key_same_body_replays_without_running`

use std::cell::Cell;

use receipt_review::intake::canonical::{canonical, fingerprint};
use receipt_review::intake::key::{KeyError, MAX_KEY_LEN, scoped_key, valid_key};
use receipt_review::intake::protocol::{
    Classification, ExecuteError, MemoryStore, ProtocolError, Record, classify, execute, replay,
};
use serde_json::{Map, Value, json};

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// `POST /orders` of tenant `t1` with key `k1`: the request most tests here make.
fn post_order<F, E>(
    store: &mut MemoryStore,
    body: &Map<String, Value>,
    action: F,
) -> Result<Value, ExecuteError<E>>
where
    F: FnOnce() -> Result<Value, E>,
{
    execute(store, "t1", "POST", "/orders", "k1", body, action)
}

// ---- 1. key grammar ----------------------------------------------------------------------

#[test]
fn valid_keys_are_returned_unchanged() {
    for key in [
        "a",
        "Z",
        "0",
        "_",
        "-",
        "order-2026_11-29",
        &"k".repeat(MAX_KEY_LEN),
    ] {
        let got = valid_key(key).unwrap();
        assert_eq!(got, key);
        assert!(std::ptr::eq(got, key), "the same slice comes back");
    }
    assert_eq!(MAX_KEY_LEN, 64);
}

#[test]
fn key_longer_than_64_is_refused() {
    assert_eq!(
        valid_key(&"k".repeat(65)),
        Err(KeyError::TooLong { len: 65 })
    );
    assert_eq!(
        valid_key(&"k".repeat(128)),
        Err(KeyError::TooLong { len: 128 })
    );
    assert!(valid_key(&"k".repeat(64)).is_ok());
}

#[test]
fn empty_and_foreign_characters_are_refused() {
    assert_eq!(valid_key(""), Err(KeyError::Empty));
    for (key, position, found) in [
        ("a b", 1, ' '),
        ("a/b", 1, '/'),
        ("a.b", 1, '.'),
        ("キー", 0, 'キ'),
        ("ab\n", 2, '\n'),
        ("é", 0, 'é'),
        ("a+", 1, '+'),
    ] {
        assert_eq!(
            valid_key(key),
            Err(KeyError::BadCharacter { position, found }),
            "{key:?}"
        );
    }
    let message = valid_key("a b").unwrap_err().to_string();
    assert!(message.contains("position 1"), "{message}");
}

// ---- 2 and 3. canonical body and fingerprint --------------------------------------------

#[test]
fn canonical_sorts_keys_and_keeps_array_order() {
    let body = obj(json!({"b": 1, "a": [3, 1, 2], "c": {"z": "日本", "y": 1.0}}));
    assert_eq!(
        canonical(&body).unwrap(),
        r#"{"a":[3,1,2],"b":1,"c":{"y":1.0,"z":"日本"}}"#
    );
}

#[test]
fn fingerprint_is_sha256_of_canonical_text() {
    let body = obj(json!({"b": 1, "a": [3, 1, 2], "c": {"z": "日本", "y": 1.0}}));
    let digest = fingerprint(&body).unwrap();
    // python3: hashlib.sha256(json.dumps(..., sort_keys=True, separators=(',',':'),
    //          ensure_ascii=False, allow_nan=False).encode()).hexdigest()
    assert_eq!(
        digest,
        "c4a98d3d0c4016e788a1b77d1e3a6e444fec4efe5533d41bb92d5440516626df"
    );
    assert_eq!(digest.len(), 64);
    let reordered = obj(json!({"c": {"y": 1.0, "z": "日本"}, "a": [3, 1, 2], "b": 1}));
    assert_eq!(fingerprint(&reordered).unwrap(), digest);
    let array_reordered = obj(json!({"b": 1, "a": [1, 2, 3], "c": {"z": "日本", "y": 1.0}}));
    assert_ne!(fingerprint(&array_reordered).unwrap(), digest);
}

// ---- 4. scoped key --------------------------------------------------------------------------

#[test]
fn scoped_key_is_a_compact_json_array() {
    assert_eq!(
        scoped_key("tenant-1", "post", "/Orders/7", "k-1").unwrap(),
        r#"["tenant-1","POST","/Orders/7","k-1"]"#
    );
    // Non-ASCII in a path is escaped as Python's default json.dumps does.
    assert_eq!(
        scoped_key("t1", "Post", "/Café/Ä", "k").unwrap(),
        r#"["t1","POST","/Caf\u00e9/\u00c4","k"]"#
    );
}

#[test]
fn path_case_separates_operations() {
    let upper = scoped_key("t", "POST", "/Contact", "k").unwrap();
    let lower = scoped_key("t", "POST", "/contact", "k").unwrap();
    assert_ne!(upper, lower);
    // the method is not case-sensitive
    assert_eq!(scoped_key("t", "post", "/contact", "k").unwrap(), lower);
}

#[test]
fn scoped_key_checks_every_part() {
    assert_eq!(
        scoped_key("t", "POST", "contact", "k"),
        Err(KeyError::PathNotAbsolute {
            path: "contact".into()
        })
    );
    assert_eq!(scoped_key("", "POST", "/c", "k"), Err(KeyError::Empty));
    assert!(matches!(
        scoped_key("bad tenant", "POST", "/c", "k"),
        Err(KeyError::BadCharacter { .. })
    ));
    assert!(matches!(
        scoped_key("t", "POST", "/c", &"k".repeat(65)),
        Err(KeyError::TooLong { .. })
    ));
    // a structured encoding: a ',' in the path cannot forge another tenant's scope
    assert_ne!(
        scoped_key("a", "POST", "/x\",\"b", "k").unwrap(),
        scoped_key("a", "POST", "/x", "k").unwrap()
    );
}

// ---- 5. classification ---------------------------------------------------------------------------

#[test]
fn classify_tells_the_three_apart() {
    let record = Record {
        fingerprint: "d1".into(),
        response: json!({"id": 1}),
    };
    assert_eq!(classify(None, "d1"), Classification::New);
    assert_eq!(classify(Some(&record), "d1"), Classification::Replay);
    assert_eq!(classify(Some(&record), "d2"), Classification::Conflict);
    assert_eq!(Classification::Conflict.as_str(), "conflict");
}

// ---- 6 and 7. copies -------------------------------------------------------------------------------

#[test]
fn remember_keeps_its_own_copy() {
    let mut store = MemoryStore::new();
    let mut response = json!({"id": 7, "items": ["a", "b"]});
    store.remember("k", "d1", &response).unwrap();
    // The caller goes on changing its value, nested list included.
    response["items"].as_array_mut().unwrap().push(json!("c"));
    response["id"] = json!(8);
    assert_eq!(
        store.replay("k").unwrap(),
        json!({"id": 7, "items": ["a", "b"]})
    );
}

#[test]
fn remember_refuses_an_existing_key_and_keeps_the_record() {
    let mut store = MemoryStore::new();
    store.remember("k", "d1", &json!({"id": 1})).unwrap();
    assert_eq!(
        store.remember("k", "d2", &json!({"id": 2})),
        Err(ProtocolError::AlreadyRecorded {
            scoped_key: "k".into()
        })
    );
    let record = store.get("k").unwrap();
    assert_eq!(record.fingerprint, "d1");
    assert_eq!(record.response, json!({"id": 1}));
    assert_eq!(store.len(), 1);
}

#[test]
fn replay_hands_out_copies() {
    let record = Record {
        fingerprint: "d".into(),
        response: json!({"id": 1, "items": [1, 2]}),
    };
    let mut first = replay(&record);
    first["items"].as_array_mut().unwrap().push(json!(3));
    first["id"] = json!(99);
    assert_eq!(replay(&record), json!({"id": 1, "items": [1, 2]}));

    let mut store = MemoryStore::new();
    store.remember("k", "d", &record.response).unwrap();
    let mut copy = store.replay("k").unwrap();
    copy["items"].as_array_mut().unwrap().clear();
    assert_eq!(
        store.replay("k").unwrap(),
        json!({"id": 1, "items": [1, 2]})
    );
    assert_eq!(store.replay("missing"), None);
}

// ---- 8. execute ------------------------------------------------------------------------------------

struct Counted {
    calls: Cell<u32>,
}

impl Counted {
    fn new() -> Self {
        Self {
            calls: Cell::new(0),
        }
    }

    fn ok(&self, response: Value) -> impl FnOnce() -> Result<Value, String> + '_ {
        move || {
            self.calls.set(self.calls.get() + 1);
            Ok(response)
        }
    }

    fn failing(&self) -> impl FnOnce() -> Result<Value, String> + '_ {
        move || {
            self.calls.set(self.calls.get() + 1);
            Err("mail server down".to_string())
        }
    }
}

#[test]
fn new_key_runs_the_action_once_and_records_it() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"name": "山田", "amount": 100}));
    let got = post_order(&mut store, &body, action.ok(json!({"id": 1}))).unwrap();
    assert_eq!(got, json!({"id": 1}));
    assert_eq!(action.calls.get(), 1);
    let scope = scoped_key("t1", "POST", "/orders", "k1").unwrap();
    let record = store.get(&scope).unwrap();
    assert_eq!(record.fingerprint, fingerprint(&body).unwrap());
    assert_eq!(record.response, json!({"id": 1}));
}

#[test]
fn same_key_same_body_replays_without_running() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"name": "山田", "amount": 100}));
    let first = post_order(&mut store, &body, action.ok(json!({"id": 1, "items": [1]}))).unwrap();
    let second = execute(
        &mut store,
        "t1",
        "post",
        "/orders",
        "k1",
        &body,
        action.ok(json!({"id": 2})),
    )
    .unwrap();
    assert_eq!(second, first);
    assert_eq!(action.calls.get(), 1, "the action ran for a replay");
    assert_eq!(store.len(), 1);
}

#[test]
fn replay_ignores_key_order_of_the_body() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let a: Map<String, Value> =
        serde_json::from_str(r#"{"name":"A","amount":1,"x":{"q":1,"p":2}}"#).unwrap();
    let b: Map<String, Value> =
        serde_json::from_str(r#"{"x":{"p":2,"q":1},"amount":1,"name":"A"}"#).unwrap();
    execute(&mut store, "t", "POST", "/o", "k", &a, action.ok(json!(1))).unwrap();
    let got = execute(&mut store, "t", "POST", "/o", "k", &b, action.ok(json!(2))).unwrap();
    assert_eq!(got, json!(1));
    assert_eq!(action.calls.get(), 1);
}

#[test]
fn changed_body_is_a_conflict_and_runs_nothing() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"amount": 100}));
    post_order(&mut store, &body, action.ok(json!({"id": 1}))).unwrap();
    let changed = obj(json!({"amount": 999}));
    let err = post_order(&mut store, &changed, action.ok(json!({"id": 2}))).unwrap_err();
    let scope = scoped_key("t1", "POST", "/orders", "k1").unwrap();
    match &err {
        ExecuteError::Conflict { scoped_key } => assert_eq!(scoped_key, &scope),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("different request body"));
    assert_eq!(action.calls.get(), 1);
    let record = store.get(&scope).unwrap();
    assert_eq!(record.fingerprint, fingerprint(&body).unwrap());
    assert_eq!(record.response, json!({"id": 1}));
}

#[test]
fn a_failing_action_leaves_no_record_and_can_be_retried() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"amount": 100}));
    let err = post_order(&mut store, &body, action.failing()).unwrap_err();
    assert!(matches!(&err, ExecuteError::Action(m) if m == "mail server down"));
    assert!(store.is_empty());
    let got = post_order(&mut store, &body, action.ok(json!({"id": 3}))).unwrap();
    assert_eq!(got, json!({"id": 3}));
    assert_eq!(action.calls.get(), 2);
    assert_eq!(store.len(), 1);
}

#[test]
fn tenant_and_path_are_part_of_the_key() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"amount": 100}));
    for (tenant, path, id) in [
        ("t1", "/orders", 1),
        ("t2", "/orders", 2),
        ("t1", "/Orders", 3),
    ] {
        let got = execute(
            &mut store,
            tenant,
            "POST",
            path,
            "k1",
            &body,
            action.ok(json!({ "id": id })),
        )
        .unwrap();
        assert_eq!(got, json!({ "id": id }), "{tenant} {path}");
    }
    assert_eq!(action.calls.get(), 3);
    assert_eq!(store.len(), 3);
}

#[test]
fn execute_response_changes_do_not_reach_later_replays() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"amount": 100}));
    let mut first = execute(
        &mut store,
        "t",
        "POST",
        "/o",
        "k",
        &body,
        action.ok(json!({"id": 1, "lines": [{"n": 1}]})),
    )
    .unwrap();
    first["lines"][0]["n"] = json!(2);
    let mut second = execute(
        &mut store,
        "t",
        "POST",
        "/o",
        "k",
        &body,
        action.ok(json!(0)),
    )
    .unwrap();
    assert_eq!(second, json!({"id": 1, "lines": [{"n": 1}]}));
    second["id"] = json!(5);
    let third = execute(
        &mut store,
        "t",
        "POST",
        "/o",
        "k",
        &body,
        action.ok(json!(0)),
    )
    .unwrap();
    assert_eq!(third, json!({"id": 1, "lines": [{"n": 1}]}));
    assert_eq!(action.calls.get(), 1);
}

#[test]
fn bad_keys_and_bodies_run_nothing() {
    let mut store = MemoryStore::new();
    let action = Counted::new();
    let body = obj(json!({"amount": 100}));
    let err = execute(
        &mut store,
        "t",
        "POST",
        "/o",
        "bad key",
        &body,
        action.ok(json!(1)),
    )
    .unwrap_err();
    assert!(matches!(
        err,
        ExecuteError::Key(KeyError::BadCharacter { .. })
    ));
    let err = execute(
        &mut store,
        "t",
        "POST",
        "o",
        "k",
        &body,
        action.ok(json!(1)),
    )
    .unwrap_err();
    assert!(matches!(
        err,
        ExecuteError::Key(KeyError::PathNotAbsolute { .. })
    ));
    assert_eq!(action.calls.get(), 0);
    assert!(store.is_empty());
}
