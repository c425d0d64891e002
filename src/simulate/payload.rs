//! What visitors and bots type, and the bodies that carry it: JSON from a
//! site's own script (with the fields such a script adds: an event id, the
//! browser's clock, a campaign tag), or form-encoded from a browser's plain
//! post or a second handler. Pure: the texts come from the demo's generators
//! ([`crate::demo::texts`]), drawn from the caller's seeded generator.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use super::form::FormShape;
use crate::demo::scenario::uuid;
use crate::demo::texts::{self, TextLang, Topic};
use crate::model::Millis;
use crate::model::time::format_rfc3339;
use crate::triage::text::{differs_by_a_few_words, normalize_text};
use crate::triage::visitor::{Identity, identity_of};

/// The share of visitors who write in Japanese.
const JAPANESE: f64 = 0.6;

const TOPICS: [Topic; 4] = [Topic::Corporate, Topic::AiWeb, Topic::Recovery, Topic::Shop];

/// What one visitor typed into the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typed {
    pub lang: TextLang,
    pub name: String,
    pub email: String,
    pub company: String,
    pub phone: String,
    pub subject: String,
    pub message: String,
}

impl Typed {
    /// A new visitor and their inquiry.
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        let lang = if rng.random_bool(JAPANESE) {
            TextLang::Ja
        } else {
            TextLang::En
        };
        let visitor = texts::visitor(rng, lang);
        let topic = *TOPICS.choose(rng).unwrap_or(&Topic::Corporate);
        let subject = texts::subject(rng, lang, topic);
        let message = texts::message(rng, &visitor, topic);
        Self {
            lang,
            name: visitor.name,
            email: visitor.email,
            company: visitor.company,
            phone: visitor.phone,
            subject,
            message,
        }
    }

    /// The same visitor, the message corrected by a few words (or, in
    /// Japanese, a few characters): an edited copy.
    pub fn corrected(&self, rng: &mut ChaCha8Rng) -> Self {
        Self {
            message: texts::edit_text(rng, self.lang, &self.message),
            ..self.clone()
        }
    }

    /// The same visitor writing again about something else: a genuine
    /// second message, never a near copy of the first.
    pub fn writes_again(&self, rng: &mut ChaCha8Rng) -> Self {
        let visitor = texts::Visitor {
            lang: self.lang,
            name: self.name.clone(),
            email: self.email.clone(),
            phone: self.phone.clone(),
            company: self.company.clone(),
        };
        let mut message = String::new();
        for _ in 0..8 {
            let topic = *TOPICS.choose(rng).unwrap_or(&Topic::Corporate);
            message = texts::message(rng, &visitor, topic);
            if !near(&message, &self.message) {
                break;
            }
        }
        if near(&message, &self.message) {
            // Seldom: eight draws all alike. Another opening makes it a new text.
            message = match self.lang {
                TextLang::Ja => {
                    format!("先日とは別件でご相談です。\n{message}\n追加の資料もお送りできます。")
                }
                TextLang::En => {
                    format!("A different question this time.\n{message}\nI can send more details.")
                }
            };
        }
        let topic = *TOPICS.choose(rng).unwrap_or(&Topic::Shop);
        let subject = texts::subject(rng, self.lang, topic);
        Self {
            subject,
            message,
            ..self.clone()
        }
    }

    /// What the visitor typed into the field `name` (by its usual names).
    pub fn value(&self, name: &str) -> Option<&str> {
        let value = match role(name)? {
            Role::Name => &self.name,
            Role::Email => &self.email,
            Role::Company => &self.company,
            Role::Phone => &self.phone,
            Role::Subject => &self.subject,
            Role::Message => &self.message,
        };
        Some(value.as_str())
    }
}

/// What a field is for, by its usual names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Name,
    Email,
    Company,
    Phone,
    Subject,
    Message,
}

/// Who the visitor is, read off a field's name by the rule the analysis
/// uses to tell senders apart ([`identity_of`]); what they ask, by its
/// usual names.
fn role(name: &str) -> Option<Role> {
    let key = name.to_lowercase();
    if let Some(identity) = identity_of(&key) {
        return Some(match identity {
            Identity::Email => Role::Email,
            Identity::Phone => Role::Phone,
            Identity::Name => Role::Name,
            Identity::Organisation => Role::Company,
        });
    }
    Some(match key.as_str() {
        "subject" | "title" | "topic" => Role::Subject,
        "message" | "body" | "inquiry" | "comment" | "comments" | "details" | "content"
        | "your-message" => Role::Message,
        _ => return None,
    })
}

fn near(a: &str, b: &str) -> bool {
    let (a, b) = (normalize_text(a), normalize_text(b));
    a == b || differs_by_a_few_words(&a, &b)
}

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
    pub fn new(rng: &mut ChaCha8Rng, clicked_ms: Millis) -> Self {
        // The browser's clock is a little off.
        let skew = rng.random_range(-3_000..1_500);
        Self {
            event_id: uuid(rng),
            clicked_ms: clicked_ms + skew,
            utm_source: [
                Some("google"),
                Some("newsletter"),
                Some("x"),
                None,
                None,
                None,
            ]
            .choose(rng)
            .copied()
            .flatten(),
        }
    }
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
pub fn page_fields(shape: &FormShape, typed: &Typed) -> Fields {
    let mut out: Fields = shape
        .fields
        .iter()
        .map(|(name, _)| {
            (
                name.clone(),
                fit(shape, name, typed.value(name).unwrap_or("")),
            )
        })
        .collect();
    if let Some(hp) = &shape.honeypot {
        out.push((hp.clone(), String::new()));
    }
    out
}

/// A script's fields: what the visitor typed into the fields the form takes.
pub fn script_fields(shape: &FormShape, typed: &Typed) -> Fields {
    shape
        .fields
        .iter()
        .filter_map(|(name, _)| {
            let value = typed.value(name).filter(|v| !v.is_empty())?;
            Some((name.clone(), fit(shape, name, value)))
        })
        .collect()
}

/// A second handler's copy: only some of the fields (email and message
/// always, as the form needs them; the others dropped or sent empty).
pub fn half_fields(rng: &mut ChaCha8Rng, shape: &FormShape, typed: &Typed) -> Fields {
    let full = script_fields(shape, typed);
    let kept = |name: &str| matches!(role(name), Some(Role::Email | Role::Message));
    let droppable: Vec<usize> = (0..full.len()).filter(|&i| !kept(&full[i].0)).collect();
    // At least one field goes, so that the copy is a strict part of the whole.
    let must = droppable.choose(rng).copied();
    let mut out = Fields::new();
    for (i, (name, value)) in full.into_iter().enumerate() {
        if kept(&name) {
            out.push((name, value));
        } else if Some(i) == must || rng.random_bool(0.6) {
            if rng.random_bool(0.5) {
                out.push((name, String::new()));
            }
        } else {
            out.push((name, value));
        }
    }
    out
}

/// A bot's fields: sender, a text, and the honeypot (filled when it fell
/// for it, else empty like a person's).
pub fn bot_fields(
    shape: &FormShape,
    sender: &(String, String),
    spam: &(String, String),
    honeypot: Option<&str>,
) -> Fields {
    let (name, email) = sender;
    let (subject, message) = spam;
    let mut out = Fields::new();
    for (field, _) in &shape.fields {
        let value = match role(field) {
            Some(Role::Name) => name.as_str(),
            Some(Role::Email) => email.as_str(),
            Some(Role::Subject) => subject.as_str(),
            Some(Role::Message) => message.as_str(),
            Some(Role::Company | Role::Phone) | None => "",
        };
        out.push((field.clone(), fit(shape, field, value)));
    }
    let field = shape.bot_field.as_ref().or(shape.honeypot.as_ref());
    if let (Some(hp), Some(filled)) = (field, honeypot) {
        out.push((hp.clone(), filled.to_string()));
    }
    out
}

/// What a bot puts into a honeypot.
pub fn honeypot_text(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..3) {
        0 => format!("https://seo-boost{}.example/", rng.random_range(1..1000)),
        1 => "1".to_string(),
        _ => format!("{:x}", rng.random::<u32>()),
    }
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
    use rand::SeedableRng;

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(11)
    }

    #[test]
    fn visitors_come_in_japanese_and_english_and_fill_the_contact_form() {
        let mut r = rng();
        let shape = FormShape::contact();
        let people: Vec<Typed> = (0..40).map(|_| Typed::new(&mut r)).collect();
        assert!(people.iter().any(|t| t.lang == TextLang::Ja));
        assert!(people.iter().any(|t| t.lang == TextLang::En));
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
        let t = Typed::new(&mut rng());
        let mut shape = FormShape::contact();
        shape.fields.push(("fax".into(), None));
        let fields = page_fields(&shape, &t);
        assert_eq!(fields.len(), 7);
        assert_eq!(fields[5], ("fax".to_string(), String::new()));
        assert_eq!(fields[6], ("_gotcha".to_string(), String::new()));
    }

    #[test]
    fn values_are_cut_to_the_pages_maxlength() {
        let t = Typed::new(&mut rng());
        let shape = FormShape {
            fields: vec![("email".into(), Some(254)), ("message".into(), Some(10))],
            honeypot: None,
            bot_field: None,
        };
        let fields = script_fields(&shape, &t);
        assert_eq!(fields[1].1.chars().count(), 10);
        assert_eq!(fields[0].1, t.email);
    }

    #[test]
    fn a_half_copy_is_a_strict_part_of_the_whole() {
        let mut r = rng();
        let shape = FormShape::contact();
        for _ in 0..50 {
            let t = Typed::new(&mut r);
            let full = script_fields(&shape, &t);
            let half = half_fields(&mut r, &shape, &t);
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

    #[test]
    fn a_correction_is_near_and_a_second_message_is_not() {
        let mut r = rng();
        for _ in 0..60 {
            let t = Typed::new(&mut r);
            let fixed = t.corrected(&mut r);
            assert_ne!(fixed.message, t.message);
            assert!(
                near(&fixed.message, &t.message),
                "{:?} / {:?}",
                t.message,
                fixed.message
            );
            let again = t.writes_again(&mut r);
            assert!(
                !near(&again.message, &t.message),
                "{:?} / {:?}",
                t.message,
                again.message
            );
            assert_eq!((&again.email, &again.name), (&t.email, &t.name));
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
        let t = Typed::new(&mut rng());
        assert!(page_fields(&shape, &t).iter().all(|(n, _)| n != "_gotcha"));
        let sender = ("Mike".to_string(), "mike1@spam.example".to_string());
        let spam = ("Boost".to_string(), "Visit https://x.example".to_string());
        let fell = bot_fields(&shape, &sender, &spam, Some("1"));
        assert_eq!(fell.last(), Some(&("_gotcha".to_string(), "1".to_string())));
    }

    #[test]
    fn a_bot_fills_the_honeypot_when_it_falls_for_it() {
        let shape = FormShape::contact();
        let sender = ("Mike".to_string(), "mike1@spam.example".to_string());
        let spam = ("Boost".to_string(), "Visit https://x.example".to_string());
        let fell = bot_fields(&shape, &sender, &spam, Some("1"));
        assert_eq!(fell.last(), Some(&("_gotcha".to_string(), "1".to_string())));
        let careful = bot_fields(&shape, &sender, &spam, None);
        assert!(careful.iter().all(|(n, _)| n != "_gotcha"));
        assert!(careful.contains(&("message".to_string(), spam.1.clone())));
    }
}
