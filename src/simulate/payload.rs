//! The bodies that carry what a visitor typed into a form's fields: JSON from a site's own
//! script (with the fields such a script adds: an event id, the browser's clock, a campaign
//! tag), or form-encoded from a browser's plain post or a second handler. Pure.

use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use super::form::FormShape;
use crate::model::Millis;
use crate::model::time::format_rfc3339;
use crate::traffic::page::Click;
use crate::traffic::{Dropped, FieldRole, Inquiry};

/// A body's fields as the sender sends them, in order.
pub type Fields = Vec<(String, String)>;

/// What a site's own script adds to the typed fields: an event id made per
/// click, the browser's clock at the click (an offset from the run's start),
/// and a campaign tag. None of it is the visitor's: the server's window and
/// the analysis leave these out of the visitor's fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Noise {
    pub event_id: String,
    pub clicked_ms: Millis,
    pub utm_source: Option<&'static str>,
}

impl Noise {
    pub fn new(rng: &mut ChaCha8Rng, clicked_ms: Millis, utm_source: Option<&'static str>) -> Self {
        let click = Click::new(rng, clicked_ms);
        Self {
            event_id: click.event_id,
            clicked_ms: click.clicked_at,
            utm_source,
        }
    }
}

/// What the visitor typed into the field `name`, by its role.
fn value<'a>(typed: &'a Inquiry, name: &str) -> Option<&'a str> {
    FieldRole::of_field(name).map(|role| typed.value(role))
}

/// Cut to the form's longest value.
fn fit(shape: &FormShape, field: &str, value: &str) -> String {
    match shape.max_chars(field) {
        Some(max) if value.chars().count() > max => value.chars().take(max).collect(),
        _ => value.to_string(),
    }
}

/// A browser's plain post of the page: every field of the page (empty where
/// the visitor typed nothing), and the honeypot, empty.
pub fn page_fields(shape: &FormShape, typed: &Inquiry) -> Fields {
    let mut out: Fields = shape
        .fields
        .iter()
        .map(|(name, _)| {
            (
                name.clone(),
                fit(shape, name, value(typed, name).unwrap_or("")),
            )
        })
        .collect();
    if let Some(hp) = &shape.honeypot {
        out.push((hp.clone(), String::new()));
    }
    out
}

/// A script's fields: what the visitor typed into the fields the form takes.
pub fn script_fields(shape: &FormShape, typed: &Inquiry) -> Fields {
    shape
        .fields
        .iter()
        .filter_map(|(name, _)| {
            let value = value(typed, name).filter(|v| !v.is_empty())?;
            Some((name.clone(), fit(shape, name, value)))
        })
        .collect()
}

/// A second handler's copy: the script's fields less the dropped ones (left out or sent
/// empty). When the form has none of them, its first field that is neither the email nor the
/// message goes, so that the copy is a strict part of the whole.
pub fn half_fields(shape: &FormShape, typed: &Inquiry, dropped: &[Dropped]) -> Fields {
    let full = script_fields(shape, typed);
    let kept = |name: &str| {
        matches!(
            FieldRole::of_field(name),
            Some(FieldRole::Email | FieldRole::Message)
        )
    };
    let drop_of = |name: &str| {
        let role = FieldRole::of_field(name)?;
        dropped.iter().find(|d| d.role == role)
    };
    let fallback = if full.iter().any(|(n, _)| drop_of(n).is_some()) {
        None
    } else {
        full.iter().position(|(n, _)| !kept(n))
    };
    let mut out = Fields::new();
    for (i, (name, value)) in full.into_iter().enumerate() {
        match drop_of(&name) {
            Some(d) if d.sent_empty => out.push((name, String::new())),
            Some(_) => {}
            None if Some(i) == fallback => {}
            None => out.push((name, value)),
        }
    }
    out
}

/// A bot's fields: its name, address and text, and the honeypot (filled when it fell for it,
/// else empty like a person's).
pub fn bot_fields(shape: &FormShape, typed: &Inquiry, honeypot: Option<&str>) -> Fields {
    let mut out = Fields::new();
    for (field, _) in &shape.fields {
        let value = match FieldRole::of_field(field) {
            Some(
                role @ (FieldRole::Name
                | FieldRole::Email
                | FieldRole::Subject
                | FieldRole::Message),
            ) => typed.value(role),
            Some(FieldRole::Company | FieldRole::Phone) | None => "",
        };
        out.push((field.clone(), fit(shape, field, value)));
    }
    let field = shape.bot_field.as_ref().or(shape.honeypot.as_ref());
    if let (Some(hp), Some(filled)) = (field, honeypot) {
        out.push((hp.clone(), filled.to_string()));
    }
    out
}

/// A JSON body: the fields, then what the script adds, stamped by the
/// browser's clock (`start_ms` is the wall time of the run's start).
pub fn json(fields: &Fields, noise: Option<&Noise>, start_ms: Millis) -> String {
    let mut map = Map::new();
    for (k, v) in fields {
        map.insert(k.clone(), Value::String(v.clone()));
    }
    if let Some(n) = noise {
        map.insert("event_id".into(), Value::String(n.event_id.clone()));
        map.insert(
            "submitted_at".into(),
            Value::String(format_rfc3339(start_ms + n.clicked_ms)),
        );
        if let Some(utm) = n.utm_source {
            map.insert("utm_source".into(), Value::String(utm.into()));
        }
    }
    Value::Object(map).to_string()
}

/// A form-encoded body (`application/x-www-form-urlencoded`), with the
/// page's key in its hidden field when there is one.
pub fn urlencoded(fields: &Fields, key: Option<&str>) -> String {
    let mut out = String::new();
    let key_pair = key.map(|k| (super::form::KEY_FIELD, k));
    for (name, value) in key_pair
        .into_iter()
        .chain(fields.iter().map(|(n, v)| (n.as_str(), v.as_str())))
    {
        if !out.is_empty() {
            out.push('&');
        }
        encode_into(&mut out, name);
        out.push('=');
        encode_into(&mut out, value);
    }
    out
}

/// The form encoding of HTML: unreserved bytes as they are, space as `+`,
/// the rest `%XX` of their UTF-8 bytes.
fn encode_into(out: &mut String, text: &str) {
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                out.push(b as char);
            }
            b' ' => out.push('+'),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::inquiry::any_topic;
    use crate::traffic::texts::TextLang;
    use rand::{RngExt, SeedableRng};

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(11)
    }

    fn visitor(r: &mut ChaCha8Rng) -> Inquiry {
        let lang = if r.random_bool(0.5) {
            TextLang::Ja
        } else {
            TextLang::En
        };
        let topic = any_topic(r);
        Inquiry::new(r, lang, topic)
    }

    fn bot() -> Inquiry {
        Inquiry::spam(
            ("Mike".to_string(), "mike1@spam.example".to_string()),
            &("Boost".to_string(), "Visit https://x.example".to_string()),
        )
    }

    #[test]
    fn visitors_come_in_japanese_and_english_and_fill_the_contact_form() {
        let mut r = rng();
        let shape = FormShape::contact();
        let people: Vec<Inquiry> = (0..40).map(|_| visitor(&mut r)).collect();
        assert!(people.iter().any(|t| t.lang() == TextLang::Ja));
        assert!(people.iter().any(|t| t.lang() == TextLang::En));
        for t in &people {
            let fields = script_fields(&shape, t);
            let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            assert!(
                names.contains(&"email") && names.contains(&"message"),
                "{names:?}"
            );
            assert!(fields.iter().all(|(_, v)| !v.is_empty()));
        }
    }

    #[test]
    fn a_page_post_sends_every_field_and_an_empty_honeypot() {
        let t = visitor(&mut rng());
        let mut shape = FormShape::contact();
        shape.fields.push(("fax".into(), None));
        let fields = page_fields(&shape, &t);
        assert_eq!(fields.len(), 7);
        assert_eq!(fields[5], ("fax".to_string(), String::new()));
        assert_eq!(fields[6], ("_gotcha".to_string(), String::new()));
    }

    #[test]
    fn values_are_cut_to_the_pages_maxlength() {
        let t = visitor(&mut rng());
        let shape = FormShape {
            fields: vec![("email".into(), Some(254)), ("message".into(), Some(10))],
            honeypot: None,
            bot_field: None,
        };
        let fields = script_fields(&shape, &t);
        assert_eq!(fields[1].1.chars().count(), 10);
        assert_eq!(fields[0].1, t.visitor.email);
    }

    #[test]
    fn a_half_copy_is_a_strict_part_of_the_whole() {
        let mut r = rng();
        let contact = FormShape::contact();
        let short = FormShape {
            fields: vec![
                ("email".into(), None),
                ("your-name".into(), None),
                ("message".into(), None),
            ],
            honeypot: None,
            bot_field: None,
        };
        for shape in [contact, short] {
            for i in 0..50u32 {
                let t = visitor(&mut r);
                let dropped = [Dropped {
                    role: FieldRole::Phone,
                    sent_empty: i.is_multiple_of(2),
                }];
                let full = script_fields(&shape, &t);
                let half = half_fields(&shape, &t, &dropped);
                let filled = |f: &Fields| -> Vec<(String, String)> {
                    f.iter().filter(|(_, v)| !v.is_empty()).cloned().collect()
                };
                let (full, half) = (filled(&full), filled(&half));
                assert!(half.len() < full.len(), "{half:?} of {full:?}");
                assert!(half.iter().all(|p| full.contains(p)));
                assert!(half.iter().any(|(n, _)| n == "email"));
                assert!(half.iter().any(|(n, _)| n == "message"));
            }
        }
    }

    #[test]
    fn json_carries_the_scripts_additions_and_urlencoding_escapes_everything_else() {
        let fields: Fields = vec![
            ("name".into(), "佐藤 花子".into()),
            ("message".into(), "a&b=c+d".into()),
        ];
        let noise = Noise {
            event_id: "e1".into(),
            clicked_ms: 1_500,
            utm_source: Some("x"),
        };
        let body: Value =
            serde_json::from_str(&json(&fields, Some(&noise), 1_764_000_000_000)).unwrap();
        assert_eq!(body["name"], "佐藤 花子");
        assert_eq!(body["event_id"], "e1");
        assert_eq!(body["submitted_at"], "2025-11-24T16:00:01.500Z");
        assert_eq!(body["utm_source"], "x");
        assert_eq!(
            urlencoded(&fields, Some("k-1")),
            "_key=k-1&name=%E4%BD%90%E8%97%A4+%E8%8A%B1%E5%AD%90&message=a%26b%3Dc%2Bd"
        );
    }

    #[test]
    fn people_never_send_the_bots_field_a_page_does_not_show() {
        let mut shape = FormShape::contact();
        shape.honeypot = None;
        shape.bot_field = Some("_gotcha".into());
        let t = visitor(&mut rng());
        assert!(page_fields(&shape, &t).iter().all(|(n, _)| n != "_gotcha"));
        let fell = bot_fields(&shape, &bot(), Some("1"));
        assert_eq!(fell.last(), Some(&("_gotcha".to_string(), "1".to_string())));
    }

    #[test]
    fn a_bot_fills_the_honeypot_when_it_falls_for_it() {
        let shape = FormShape::contact();
        let fell = bot_fields(&shape, &bot(), Some("1"));
        assert_eq!(fell.last(), Some(&("_gotcha".to_string(), "1".to_string())));
        let careful = bot_fields(&shape, &bot(), None);
        assert!(careful.iter().all(|(n, _)| n != "_gotcha"));
        let text = "Visit https://x.example".to_string();
        assert!(careful.contains(&("message".to_string(), text)));
    }
}
