//! Who a log row is about, for the exports: the form's scope and the
//! visitor's name and email, read from the payload of the copy the row
//! covers, exactly as the visitor typed them (folding is for matching only).
//!
//! A field names the visitor the way the triage counts senders
//! ([`identity_of`]): by its normalised key, in English or Japanese
//! (`email`, `メールアドレス`, `name`, `お名前`, `氏名`, `姓`...).

use serde_json::{Map, Value};

use crate::triage::visitor::{Identity, identity_of, normalize_key};

/// What an export says of the receipt a row covers; every part is `None`
/// when the receipt is gone, and the name or email when no field holds one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visitor {
    pub scope: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
}

impl Visitor {
    /// The visitor of a receipt in `scope` whose stored payload is `payload`
    /// (a payload that is not a JSON object names no one).
    pub fn of(scope: &str, payload: Option<&str>) -> Visitor {
        let fields = payload
            .and_then(|p| serde_json::from_str::<Map<String, Value>>(p).ok())
            .unwrap_or_default();
        let typed: Vec<(String, &str)> = fields
            .iter()
            .filter_map(|(key, value)| match value {
                Value::String(text) if !text.trim().is_empty() => {
                    Some((normalize_key(key), text.trim()))
                }
                _ => None,
            })
            .collect();
        Visitor {
            scope: Some(scope.to_string()).filter(|s| !s.is_empty()),
            name: name_of(&typed),
            email: email_of(&typed),
        }
    }
}

/// How a name field names the visitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum NamePart {
    Whole,
    Family,
    Given,
    /// How the name is read (フリガナ): only when nothing else names them.
    Reading,
}

fn name_part(key: &str) -> Option<NamePart> {
    // `名` alone (beside `姓`) is a given name; `名前` and `氏名` are whole names.
    let given_alone = key == "名" || key.starts_with("名(") || key.starts_with("名（");
    let names = identity_of(key) == Some(Identity::Name) || key.contains("苗字") || given_alone;
    if !names {
        return None;
    }
    let has = |words: &[&str]| words.iter().any(|w| key.contains(w));
    Some(
        if has(&[
            "フリガナ",
            "ふりがな",
            "カナ",
            "かな",
            "kana",
            "furigana",
            "yomi",
            "reading",
        ]) {
            NamePart::Reading
        } else if has(&["姓", "苗字", "family", "last", "surname"]) {
            NamePart::Family
        } else if given_alone || has(&["first", "given", "forename"]) {
            NamePart::Given
        } else {
            NamePart::Whole
        },
    )
}

/// The whole name when a field holds it; else the family and given names
/// together (family first for a form that asks `姓`/`名`, given first for
/// `first`/`last`); else its reading.
fn name_of(fields: &[(String, &str)]) -> Option<String> {
    let first = |part: NamePart| {
        fields
            .iter()
            .find(|(key, _)| name_part(key) == Some(part))
            .map(|(key, value)| (key.as_str(), *value))
    };
    if let Some((_, whole)) = first(NamePart::Whole) {
        return Some(whole.to_string());
    }
    match (first(NamePart::Family), first(NamePart::Given)) {
        (Some((key, family)), Some((_, given))) if key.contains('姓') || key.contains("苗字") => {
            Some(format!("{family} {given}"))
        }
        (Some((_, family)), Some((_, given))) => Some(format!("{given} {family}")),
        (Some((_, one)), None) | (None, Some((_, one))) => Some(one.to_string()),
        (None, None) => first(NamePart::Reading).map(|(_, reading)| reading.to_string()),
    }
}

/// The first email field, a confirmation field (`email_confirm`,
/// `メールアドレス（確認）`) only when no other holds one.
fn email_of(fields: &[(String, &str)]) -> Option<String> {
    let emails = || {
        fields
            .iter()
            .filter(|(key, _)| identity_of(key) == Some(Identity::Email))
    };
    let confirming = |key: &str| {
        ["confirm", "確認", "again", "repeat"]
            .iter()
            .any(|w| key.contains(w))
    };
    emails()
        .find(|(key, _)| !confirming(key))
        .or_else(|| emails().next())
        .map(|(_, value)| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(payload: &str) -> (Option<String>, Option<String>) {
        let v = Visitor::of("corp/contact", Some(payload));
        (v.name, v.email)
    }

    fn some(a: &str, b: &str) -> (Option<String>, Option<String>) {
        (Some(a.to_string()), Some(b.to_string()))
    }

    #[test]
    fn names_and_emails_are_as_typed() {
        assert_eq!(
            of(r#"{"Name":"Sophie Clark","E-Mail":"Sophie.Clark@Example.com","message":"hi"}"#),
            some("Sophie Clark", "Sophie.Clark@Example.com")
        );
        assert_eq!(
            of(r#"{"お名前":"田中 愛子","メールアドレス":"aiko@example.jp"}"#),
            some("田中 愛子", "aiko@example.jp")
        );
        // Full-width letters stay full-width: nothing is folded.
        assert_eq!(of(r#"{"name":"ＡＩＫＯ"}"#).0.as_deref(), Some("ＡＩＫＯ"));
    }

    #[test]
    fn split_names_are_joined_in_the_forms_order() {
        assert_eq!(
            of(r#"{"姓":"田中","名":"愛子","セイ":"タナカ"}"#)
                .0
                .as_deref(),
            Some("田中 愛子")
        );
        assert_eq!(
            of(r#"{"first_name":"Sophie","last_name":"Clark"}"#)
                .0
                .as_deref(),
            Some("Sophie Clark")
        );
        assert_eq!(
            of(r#"{"フリガナ":"タナカ アイコ","company":"ACME"}"#)
                .0
                .as_deref(),
            Some("タナカ アイコ")
        );
        // A company names no one, nor does a field that is no name.
        assert_eq!(of(r#"{"company_name":"ACME","last_visit":"May"}"#).0, None);
    }

    #[test]
    fn a_confirmation_field_is_only_a_fallback() {
        assert_eq!(
            of(r#"{"email_confirm":"b@example.com","email":"a@example.com"}"#)
                .1
                .as_deref(),
            Some("a@example.com")
        );
        assert_eq!(
            of(r#"{"メールアドレス（確認）":"b@example.com"}"#)
                .1
                .as_deref(),
            Some("b@example.com")
        );
    }

    #[test]
    fn nothing_is_made_up() {
        assert_eq!(of(r#"{"name":"  ","email":42}"#), (None, None));
        assert_eq!(of("name=Bob&email=bob%40example.com"), (None, None));
        let gone = Visitor::default();
        assert_eq!(gone.scope, None);
        assert_eq!(Visitor::of("", None), Visitor::default());
    }
}
