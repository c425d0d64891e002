//! Canonical JSON against Python's `json.dumps`, byte for byte.
//!
//! The fixtures are written by `scripts/gen_canonical_fixtures.py` (run it with python3 to
//! regenerate them); each case holds Python's canonical text and digest for one input.

use proptest::prelude::*;
use receipt_review::intake::canonical::{
    CanonicalError, canonical, canonical_text, digest_of_text, fingerprint, parse_object,
    python_float_repr, sha256_hex,
};
use serde_json::{Map, Value};

fn fixture(name: &str) -> Vec<Map<String, Value>> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str(l).expect("fixture line") {
            Value::Object(m) => m,
            _ => panic!("fixture line is not an object"),
        })
        .collect()
}

fn field<'a>(case: &'a Map<String, Value>, name: &str) -> &'a str {
    case[name].as_str().expect("string field")
}

#[test]
fn every_fixture_case_matches_python_byte_for_byte() {
    let cases = fixture("canonical_cases.jsonl");
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let input = field(case, "input");
        let want = field(case, "canonical");
        let want_digest = field(case, "digest");
        match canonical_text(input) {
            Ok(got) if got == want => {
                assert_eq!(sha256_hex(&got), want_digest, "digest of {input:?}");
                assert_eq!(digest_of_text(input).unwrap(), want_digest);
                let obj = parse_object(input).unwrap();
                assert_eq!(fingerprint(&obj).unwrap(), want_digest);
            }
            Ok(got) => failures.push(format!("{input:?}\n  want {want:?}\n  got  {got:?}")),
            Err(e) => failures.push(format!("{input:?}\n  want {want:?}\n  error {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_input_python_refuses_is_refused() {
    let cases = fixture("canonical_errors.jsonl");
    assert!(cases.len() >= 20);
    for case in &cases {
        let input = field(case, "input");
        let result = canonical_text(input);
        assert!(
            result.is_err(),
            "{input:?} accepted as {result:?}; Python: {}",
            field(case, "python_error")
        );
        let message = result.unwrap_err().to_string();
        assert!(!message.contains('\n'), "one-line message: {message:?}");
    }
}

#[test]
fn errors_name_the_problem() {
    match canonical_text(r#"{"a": NaN}"#) {
        Err(CanonicalError::NonFinite { text }) => assert_eq!(text, "NaN"),
        other => panic!("{other:?}"),
    }
    match canonical_text(r#"{"a": -Infinity}"#) {
        Err(CanonicalError::NonFinite { text }) => assert_eq!(text, "-Infinity"),
        other => panic!("{other:?}"),
    }
    match canonical_text(r#"{"a": [1e400]}"#) {
        Err(e @ CanonicalError::NonFinite { .. }) => {
            assert!(e.to_string().contains("400"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    // NaN inside a string is just text.
    assert_eq!(canonical_text(r#"{"a":"NaN"}"#).unwrap(), r#"{"a":"NaN"}"#);
    match canonical_text("[1, 2]") {
        Err(e @ CanonicalError::NotAnObject { .. }) => {
            assert_eq!(
                e.to_string(),
                "not a JSON object: the top-level value is an array"
            )
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        canonical_text(r#"{"a":"\udc00"}"#),
        Err(CanonicalError::LoneSurrogate { .. })
    ));
    match canonical_text("{\"a\":1,}") {
        Err(e @ CanonicalError::Syntax { .. }) => {
            let m = e.to_string();
            assert!(m.starts_with("invalid JSON at line 1, column"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
    assert_eq!(canonical_text(&deep), Err(CanonicalError::TooDeep));
}

#[test]
fn a_hand_built_object_is_canonical_too() {
    let obj = serde_json::json!({"b": [1.5, 1e16, -0.0], "a": "日本\n", "c": {"y": 1, "x": null}});
    let Value::Object(map) = obj else {
        unreachable!()
    };
    assert_eq!(
        canonical(&map).unwrap(),
        "{\"a\":\"日本\\n\",\"b\":[1.5,1e+16,-0.0],\"c\":{\"x\":null,\"y\":1}}"
    );
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
        "[\\x00-\\x7f]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("\\PC{0,6}", arb_json(), 0..6).prop_map(|m| m.into_iter().collect())
}

proptest! {
    #[test]
    fn canonical_is_stable_and_idempotent(obj in arb_object()) {
        let first = canonical(&obj).unwrap();
        // parse -> canonical of any serialisation gives the same text
        let pretty = serde_json::to_string_pretty(&Value::Object(obj.clone())).unwrap();
        prop_assert_eq!(&canonical_text(&pretty).unwrap(), &first);
        // canonical of canonical is itself
        prop_assert_eq!(&canonical_text(&first).unwrap(), &first);
        // and the parsed canonical text is the same value again
        let reparsed = parse_object(&first).unwrap();
        prop_assert_eq!(canonical(&reparsed).unwrap(), first.clone());
        prop_assert_eq!(fingerprint(&obj).unwrap(), sha256_hex(&first));
    }

    #[test]
    fn float_repr_round_trips(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let text = python_float_repr(x);
        let back: f64 = text.parse().unwrap();
        prop_assert_eq!(back.to_bits(), x.to_bits(), "{}", text);
        prop_assert!(text.contains('.') || text.contains('e'), "{}", text);
    }
}
