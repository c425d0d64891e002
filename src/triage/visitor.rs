//! The visitor fingerprint: only the fields a visitor typed, normalised so that
//! key order, white space, width and case never tell two copies apart.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::model::VisitorFields;
use super::text::{normalize_text, normalize_text_cow};
use crate::intake::canonical;

/// Keys dropped by exact name (after key normalisation).
const NOISE_KEYS: &[&str] = &[
    "event_id",
    "request_key",
    "idempotency_key",
    "timestamp",
    "ts",
    "submitted_at",
    "sent_at",
    "client_time",
    "nonce",
    "gclid",
    "fbclid",
    "msclkid",
    "g-recaptcha-response",
    "h-captcha-response",
    "cf-turnstile-response",
];

/// Honeypot fields: never typed by a person, so a filled one means a bot.
const HONEYPOT_KEYS: &[&str] = &["_gotcha", "bot-field", "honeypot", "hp"];

/// The visitor fields of a payload, and whether a honeypot field was filled in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprint {
    pub fields: VisitorFields,
    pub honeypot_filled: bool,
}

/// A key as it is compared: NFKC, case folded, trimmed.
pub fn normalize_key(key: &str) -> String {
    normalize_text(key)
}

/// True for a (normalised) key that is bookkeeping, tracking or anti-bot
/// machinery rather than something the visitor typed.
pub fn is_noise_key(key: &str) -> bool {
    key.starts_with('_')
        || NOISE_KEYS.contains(&key)
        || HONEYPOT_KEYS.contains(&key)
        || key.starts_with("session")
        || key.contains("token")
        || key.starts_with("csrf")
        || key.starts_with("utm_")
}

pub fn is_honeypot_key(key: &str) -> bool {
    HONEYPOT_KEYS.contains(&key)
}

/// What a field says of who sent a message, by its (normalised) key. A
/// message body is never one of these: a form whose question was left
/// empty must not make a company name or an address "the message".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Identity {
    Email,
    Phone,
    Name,
    /// A company or organisation: names no one person.
    Organisation,
}

/// The [`Identity`] a key names, if any (English and Japanese form names).
pub fn identity_of(key: &str) -> Option<Identity> {
    let has = |words: &[&str]| words.iter().any(|w| key.contains(w));
    if has(&["mail", "メール"]) {
        Some(Identity::Email)
    } else if has(&["phone", "mobile", "電話", "携帯"])
        || key == "tel"
        || key.starts_with("tel_")
        || key.starts_with("tel-")
        || key.ends_with("_tel")
    {
        Some(Identity::Phone)
    } else if has(&[
        "company", "organi", "business", "firm", "会社", "法人", "団体", "組織",
    ]) {
        Some(Identity::Organisation)
    } else if has(&["name", "名前", "氏名", "姓", "フリガナ", "ふりがな"]) {
        Some(Identity::Name)
    } else {
        None
    }
}

/// Matches a normalised key against an `--ignore-field` pattern, itself
/// normalised; `*` stands for any run of characters (`utm_*`, `*_id`).
pub fn matches_pattern(key: &str, pattern: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return key == pattern;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if key.len() < first.len() + last.len() || !key.starts_with(first) || !key.ends_with(last) {
        return false;
    }
    let mut rest = &key[first.len()..key.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Extra keys to ignore, normalised once.
#[derive(Clone, Debug, Default)]
pub struct IgnoreList(Vec<String>);

impl IgnoreList {
    pub fn new(fields: &[String]) -> Self {
        Self(
            fields
                .iter()
                .map(|f| normalize_key(f))
                .filter(|f| !f.is_empty())
                .collect(),
        )
    }

    pub fn ignores(&self, key: &str) -> bool {
        self.0.iter().any(|p| matches_pattern(key, p))
    }
}

/// The visitor fields of a payload object (see the module docs).
pub fn fingerprint(payload: &Map<String, Value>, ignore: &IgnoreList) -> Fingerprint {
    fingerprint_owned(payload.clone(), ignore)
}

/// [`fingerprint`] of a payload that is no longer needed: keys and values that
/// are already normal are moved, not copied.
pub fn fingerprint_owned(payload: Map<String, Value>, ignore: &IgnoreList) -> Fingerprint {
    let mut fields = Vec::with_capacity(payload.len());
    let mut honeypot_filled = false;
    for (raw_key, value) in payload {
        let key = match normalize_text_cow(&raw_key) {
            Cow::Borrowed(_) => raw_key,
            Cow::Owned(k) => k,
        };
        if is_honeypot_key(&key) {
            honeypot_filled |= honeypot_is_filled(&value);
            continue;
        }
        if is_noise_key(&key) || ignore.ignores(&key) {
            continue;
        }
        let text = match value {
            Value::String(s) => match normalize_text_cow(&s) {
                Cow::Borrowed("") => None,
                Cow::Borrowed(_) => Some(s),
                Cow::Owned(t) => Some(t).filter(|t| !t.is_empty()),
            },
            other => normalize_value(&other),
        };
        if let Some(text) = text {
            fields.push((key, text));
        }
    }
    fields.sort_unstable();
    fields.dedup();
    Fingerprint {
        fields: VisitorFields(fields),
        honeypot_filled,
    }
}

/// A honeypot counts as filled when it holds anything but null, `false` (an
/// unticked box) or blank text.
pub(crate) fn honeypot_is_filled(value: &Value) -> bool {
    !matches!(value, Value::Bool(false)) && normalize_value(value).is_some()
}

/// The normalised text of a value, or `None` when it counts as absent (null,
/// blank text, an empty list or object). Values that are not strings use their
/// canonical JSON text (keys sorted, numbers as the digest spells them: `1.00`
/// and `1.0` are `1.0`, `1e2` is `100.0`), with nested strings and keys
/// normalised too: two payloads with one digest have one fingerprint.
pub fn normalize_value(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(normalize_text(s)).filter(|t| !t.is_empty()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(_) | Value::Array(_) | Value::Object(_) => {
            normalize_nested(value).map(|v| canonical_text_of(&v))
        }
    }
}

/// The canonical text of a parsed value. A parsed number always has one; a
/// hand-built value that has none keeps its compact text.
fn canonical_text_of(value: &Value) -> String {
    let mut out = String::new();
    match canonical::write_canonical(&mut out, value) {
        Ok(()) => out,
        Err(_) => serde_json::to_string(value).expect("JSON value"),
    }
}

fn normalize_nested(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(normalize_text(s))
            .filter(|t| !t.is_empty())
            .map(Value::String),
        Value::Array(items) => {
            let items: Vec<Value> = items.iter().filter_map(normalize_nested).collect();
            (!items.is_empty()).then_some(Value::Array(items))
        }
        Value::Object(map) => {
            let map: Map<String, Value> = map
                .iter()
                .filter_map(|(k, v)| Some((normalize_key(k), normalize_nested(v)?)))
                .collect();
            (!map.is_empty()).then_some(Value::Object(map))
        }
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn fp(v: Value) -> Fingerprint {
        fingerprint(v.as_object().expect("object"), &IgnoreList::default())
    }

    fn pairs(list: &[(&str, &str)]) -> VisitorFields {
        VisitorFields(
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn keeps_only_typed_fields() {
        let f = fp(json!({
            "Name": "  Ada  LOVELACE ", "email": "ADA@example.org", "message": "Hi",
            "_csrf": "x", "event_id": "e1", "request_key": "k", "Idempotency_Key": "k",
            "timestamp": 1, "ts": 2, "submitted_at": "t", "sent_at": "t", "client_time": "t",
            "sessionId": "s", "session": "s", "auth_token": "t", "TOKEN": "t", "csrfmiddlewaretoken": "c",
            "csrf": "c", "nonce": "n", "utm_source": "x", "UTM_Campaign": "y", "gclid": "g",
            "fbclid": "f", "msclkid": "m", "g-recaptcha-response": "r", "h-captcha-response": "r",
            "cf-turnstile-response": "r", "bot-field": "", "hp": null, "honeypot": " ",
            "phone": "", "fax": null, "tags": [], "extra": {}
        }));
        assert_eq!(
            f.fields,
            pairs(&[
                ("email", "ada@example.org"),
                ("message", "hi"),
                ("name", "ada lovelace")
            ])
        );
        assert!(!f.honeypot_filled);
    }

    #[test]
    fn filled_honeypots() {
        for key in ["_gotcha", "bot-field", "honeypot", "hp", "HP", "Bot-Field"] {
            let f = fp(json!({ "name": "x", key: "http://spam" }));
            assert!(f.honeypot_filled, "{key}");
            assert_eq!(f.fields, pairs(&[("name", "x")]));
        }
        assert!(!fp(json!({"hp": false})).honeypot_filled);
        assert!(fp(json!({"hp": 1})).honeypot_filled);
    }

    #[test]
    fn ignore_list_with_wildcards() {
        let ignore = IgnoreList::new(&["Page_URL".into(), "ref*".into(), "*_id".into()]);
        let v = json!({"page_url": "u", "referrer": "r", "form_id": "7", "name": "n"});
        let f = fingerprint(v.as_object().unwrap(), &ignore);
        assert_eq!(f.fields, pairs(&[("name", "n")]));
        assert!(matches_pattern("abc", "a*c"));
        assert!(matches_pattern("ac", "a*c"));
        assert!(!matches_pattern("abd", "a*c"));
        assert!(matches_pattern("x_y_z", "*_y_*"));
        assert!(!matches_pattern("a", "a*a"));
    }

    #[test]
    fn non_strings_use_compact_json() {
        let f = fp(json!({"age": 30, "ok": true, "choice": [" A ", null, "B"],
                          "addr": {"City": " TOKYO ", "zip": ""}}));
        assert_eq!(
            f.fields,
            pairs(&[
                ("addr", r#"{"city":"tokyo"}"#),
                ("age", "30"),
                ("choice", r#"["a","b"]"#),
                ("ok", "true"),
            ])
        );
        // a number and the same digits typed as text are the same answer
        assert_eq!(fp(json!({"age": 30})), fp(json!({"age": " 30 "})));
    }

    #[test]
    fn numbers_are_spelled_as_the_digest_spells_them_at_any_depth() {
        let spelled = |n: &str| {
            format!(r#"{{"n":{n},"list":[{n},{{"x":{n}}}],"o":{{"deep":[[{{"y":{n}}}]]}}}}"#)
        };
        for (a, b) in [
            ("1.00", "1.0"),
            ("1e2", "100.0"),
            ("2E+3", "2000.0"),
            ("1E-7", "1e-07"),
            ("-0", "0"),
            ("-0.0", "-0.0"),
            ("12345678901234567890", "12345678901234567890"),
        ] {
            let (ta, tb) = (spelled(a), spelled(b));
            assert_eq!(
                canonical::canonical_text(&ta),
                canonical::canonical_text(&tb),
                "{a} {b}"
            );
            assert_eq!(fp_text(&ta), fp_text(&tb), "{a} / {b}");
            let f = fp_text(&ta);
            let n = f.fields.0.iter().find(|(k, _)| k == "n").unwrap();
            assert_eq!(n.1, b);
        }
        assert_ne!(fp_text(&spelled("1.0")), fp_text(&spelled("1")));
    }

    #[test]
    fn keys_that_name_the_sender() {
        assert_eq!(identity_of("email"), Some(Identity::Email));
        assert_eq!(identity_of("e-mail"), Some(Identity::Email));
        assert_eq!(identity_of("メールアドレス"), Some(Identity::Email));
        assert_eq!(identity_of("tel"), Some(Identity::Phone));
        assert_eq!(identity_of("phone_number"), Some(Identity::Phone));
        assert_eq!(identity_of("company_name"), Some(Identity::Organisation));
        assert_eq!(identity_of("会社名"), Some(Identity::Organisation));
        assert_eq!(identity_of("full_name"), Some(Identity::Name));
        assert_eq!(identity_of("お名前"), Some(Identity::Name));
        for key in ["message", "inquiry", "hotel", "subject", "お問い合わせ内容"] {
            assert_eq!(identity_of(key), None, "{key}");
        }
    }

    #[test]
    fn width_case_and_space_variants_are_equal() {
        let a = fp(json!({"name": "Ｙａｍａｄａ　Ｔａｒｏ", "msg": "ＨＥＬＬＯ\n\nthere"}));
        let b = fp(json!({"NAME": "yamada taro", "Msg": "hello there"}));
        assert_eq!(a, b);
    }

    fn word() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a-zA-Z0-9àéÉüÜßΣσ日本語あア]{1,8}").unwrap()
    }

    fn form() -> impl Strategy<Value = Vec<(String, Vec<String>)>> {
        proptest::collection::btree_map("[a-z]{1,6}", proptest::collection::vec(word(), 1..5), 1..6)
            .prop_map(|m| m.into_iter().collect())
    }

    fn to_json_text(fields: &[(String, String)]) -> String {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), Value::from(v.as_str())))
            .collect();
        format!("{{{}}}", body.join(","))
    }

    fn fp_text(text: &str) -> Fingerprint {
        let v: Value = serde_json::from_str(text).unwrap();
        fp(v)
    }

    proptest! {
        #[test]
        fn key_order_never_matters(fields in form(), seed in any::<u64>()) {
            let plain: Vec<(String, String)> =
                fields.iter().map(|(k, w)| (k.clone(), w.join(" "))).collect();
            let mut shuffled = plain.clone();
            let n = shuffled.len();
            for i in (1..n).rev() {
                shuffled.swap(i, (seed.wrapping_mul(i as u64 + 7) % (i as u64 + 1)) as usize);
            }
            shuffled.reverse();
            prop_assert_eq!(fp_text(&to_json_text(&plain)), fp_text(&to_json_text(&shuffled)));
        }

        #[test]
        fn white_space_never_matters(fields in form(), pad in proptest::collection::vec(
            proptest::sample::select(vec![" ", "  ", "\t", "\n", "\u{3000}", "\u{a0}", " \r\n "]), 8)) {
            let plain: Vec<(String, String)> =
                fields.iter().map(|(k, w)| (k.clone(), w.join(" "))).collect();
            let spaced: Vec<(String, String)> = fields
                .iter()
                .enumerate()
                .map(|(i, (k, w))| {
                    let sep = pad[i % pad.len()];
                    (format!("{sep}{k}"), format!("{}{}{}", pad[(i + 1) % pad.len()], w.join(sep), sep))
                })
                .collect();
            prop_assert_eq!(fp_text(&to_json_text(&plain)), fp_text(&to_json_text(&spaced)));
        }

        #[test]
        fn case_never_matters(fields in form()) {
            let plain: Vec<(String, String)> =
                fields.iter().map(|(k, w)| (k.clone(), w.join(" "))).collect();
            let upper: Vec<(String, String)> =
                plain.iter().map(|(k, v)| (k.to_uppercase(), v.to_uppercase())).collect();
            let lower: Vec<(String, String)> =
                plain.iter().map(|(k, v)| (k.to_lowercase(), v.to_lowercase())).collect();
            prop_assert_eq!(fp_text(&to_json_text(&plain)), fp_text(&to_json_text(&upper)));
            prop_assert_eq!(fp_text(&to_json_text(&plain)), fp_text(&to_json_text(&lower)));
        }

        #[test]
        fn noise_never_matters(fields in form(), noise in "[a-z0-9]{1,12}") {
            let plain: Vec<(String, String)> =
                fields.iter().map(|(k, w)| (format!("f{k}"), w.join(" "))).collect();
            let mut noisy = plain.clone();
            for key in ["event_id", "_csrf", "utm_source", "session_id", "x_token", "ts"] {
                noisy.push((key.to_string(), noise.clone()));
            }
            prop_assert_eq!(fp_text(&to_json_text(&plain)), fp_text(&to_json_text(&noisy)));
        }
    }
}
