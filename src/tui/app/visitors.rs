//! Who sent a receipt, as they typed it: the name and email the lists show.
//! The reading keeps visitor fields folded (case, width, spacing) because
//! that is how copies are matched; a person reads names as typed, so they
//! are taken from the payloads, as those arrive, and the folded text stands
//! in until then.

use serde_json::Value;

use crate::triage::visitor::{Identity, identity_of, normalize_key};

/// A receipt's sender, as shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visitor {
    pub name: Option<String>,
    pub email: Option<String>,
    /// The subject, else the start of the message: what the copies say.
    pub about: Option<String>,
    /// Taken from the folded fields (the payload has not arrived yet).
    pub folded: bool,
}

/// The most characters kept of each text (a list cell shows far fewer).
const KEPT_CHARS: usize = 120;

/// Name keys read before any other name field (the full name, not a part
/// of it or its reading).
fn name_rank(key: &str) -> u8 {
    match key {
        "name" | "お名前" | "氏名" | "名前" | "full_name" | "fullname" | "your-name" => 0,
        _ if ["kana", "フリガナ", "ふりがな", "カナ", "かな"]
            .iter()
            .any(|w| key.contains(w)) =>
        {
            3
        }
        _ if key.contains("first") || key.contains("last") || key == "姓" || key == "名" => 2,
        _ => 1,
    }
}

fn about_rank(key: &str) -> Option<u8> {
    match key {
        "subject" | "件名" | "title" | "用件" => Some(0),
        "message" | "body" | "comment" | "inquiry" | "お問い合わせ内容" | "内容" => {
            Some(1)
        }
        _ => None,
    }
}

fn kept(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut out: String = text.chars().take(KEPT_CHARS).collect();
    // A message's line breaks are spaces in a one-line cell.
    if out.contains(['\n', '\r', '\t']) {
        out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    Some(out)
}

impl Visitor {
    /// From (key, value) pairs, keys as sent; `folded` when the values are
    /// the fingerprint's.
    fn from_pairs<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>, folded: bool) -> Visitor {
        let mut name: Option<(u8, String)> = None;
        let mut about: Option<(u8, String)> = None;
        let mut email = None;
        for (key, value) in pairs {
            let key = normalize_key(key);
            match identity_of(&key) {
                Some(Identity::Name) => {
                    let rank = name_rank(&key);
                    if name.as_ref().is_none_or(|(r, _)| rank < *r)
                        && let Some(v) = kept(value)
                    {
                        name = Some((rank, v));
                    }
                }
                Some(Identity::Email) => {
                    if email.is_none() {
                        email = kept(value);
                    }
                }
                _ => {
                    if let Some(rank) = about_rank(&key)
                        && about.as_ref().is_none_or(|(r, _)| rank < *r)
                        && let Some(v) = kept(value)
                    {
                        about = Some((rank, v));
                    }
                }
            }
        }
        Visitor {
            name: name.map(|(_, n)| n),
            email,
            about: about.map(|(_, a)| a),
            folded,
        }
    }

    /// From a payload's text; `None` when it is not a JSON object.
    pub fn from_payload(body: &str) -> Option<Visitor> {
        let Ok(Value::Object(map)) = serde_json::from_str::<Value>(body) else {
            return None;
        };
        let pairs = map.iter().filter_map(|(k, v)| match v {
            Value::String(s) => Some((k.as_str(), s.as_str())),
            _ => None,
        });
        Some(Visitor::from_pairs(pairs, false))
    }

    /// From the folded visitor fields the reading keeps.
    pub fn from_folded<'a>(fields: impl Iterator<Item = (&'a str, &'a str)>) -> Visitor {
        Visitor::from_pairs(fields, true)
    }

    /// The name, else the email (what the list's visitor column shows).
    pub fn who(&self) -> Option<&str> {
        self.name.as_deref().or(self.email.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_taken_as_typed() {
        let v = Visitor::from_payload(
            r#"{"Name":"  Sophie Clark ","email":"Sophie.Clark@Example.com","subject":"Quote","name_kana":"ソフィー"}"#,
        )
        .unwrap();
        assert_eq!(v.name.as_deref(), Some("Sophie Clark"));
        assert_eq!(v.email.as_deref(), Some("Sophie.Clark@Example.com"));
        assert_eq!(v.about.as_deref(), Some("Quote"));
        assert!(!v.folded);
        let jp = Visitor::from_payload(
            r#"{"お名前（フリガナ）":"ヤマダ タロウ","お名前":"山田 太郎","message":"a\nb"}"#,
        )
        .unwrap();
        assert_eq!(jp.who(), Some("山田 太郎"));
        assert_eq!(jp.about.as_deref(), Some("a b"));
        let only_mail = Visitor::from_payload(r#"{"email":"x@y.jp","company_name":"Acme"}"#);
        assert_eq!(only_mail.unwrap().who(), Some("x@y.jp"));
        assert_eq!(Visitor::from_payload("[1]"), None);
    }
}
