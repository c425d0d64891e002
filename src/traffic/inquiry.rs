//! What one visitor typed into a form, and what a form's fields are for.

use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use super::texts::{self, TextLang, Topic, Visitor};
use crate::triage::sentences::sentence_edit;
use crate::triage::text::{differs_by_a_few_words, normalize_text};
use crate::triage::visitor::{Identity, identity_of};

/// The visitor-typed fields of one inquiry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inquiry {
    pub visitor: Visitor,
    pub subject: String,
    pub message: String,
}

impl Inquiry {
    /// A new visitor writing in `lang` about `topic`.
    pub fn new(rng: &mut ChaCha8Rng, lang: TextLang, topic: Topic) -> Self {
        let visitor = texts::visitor(rng, lang);
        let subject = texts::subject(rng, lang, topic);
        let message = texts::message(rng, &visitor, topic);
        Self {
            visitor,
            subject,
            message,
        }
    }

    /// A bot's inquiry: a sender's name and address and a spam text, nothing else.
    pub fn spam(sender: (String, String), spam: &(String, String)) -> Self {
        let (name, email) = sender;
        Self {
            visitor: Visitor {
                lang: TextLang::En,
                name,
                email,
                phone: String::new(),
                company: String::new(),
            },
            subject: spam.0.clone(),
            message: spam.1.clone(),
        }
    }

    pub fn lang(&self) -> TextLang {
        self.visitor.lang
    }

    /// The same visitor, the message corrected by a few words (or, in Japanese, a few
    /// characters): an edited copy.
    pub fn corrected(&self, rng: &mut ChaCha8Rng) -> Self {
        Self {
            message: texts::edit_text(rng, self.lang(), &self.message),
            ..self.clone()
        }
    }

    /// The same visitor, one or two sentences of the message replaced by a word ("urgent"): an
    /// edited copy by sentence; a few words corrected when the message is too short for it.
    pub fn rewritten(&self, rng: &mut ChaCha8Rng) -> Self {
        match texts::rewrite_sentences(rng, self.lang(), &self.message) {
            Some(message) => Self {
                message,
                ..self.clone()
            },
            None => self.corrected(rng),
        }
    }

    /// The same visitor writing again about something else: a genuine second message, never a
    /// near copy of the first.
    pub fn writes_again(&self, rng: &mut ChaCha8Rng, topic: Topic) -> Self {
        let mut message = String::new();
        for _ in 0..8 {
            message = texts::message(rng, &self.visitor, topic);
            if !near(&message, &self.message) {
                break;
            }
        }
        if near(&message, &self.message) {
            // Seldom: eight draws all alike. Another opening makes it a new text.
            message = match self.lang() {
                TextLang::Ja => {
                    format!("先日とは別件でご相談です。\n{message}\n追加の資料もお送りできます。")
                }
                TextLang::En => {
                    format!("A different question this time.\n{message}\nI can send more details.")
                }
            };
        }
        let subject = texts::subject(rng, self.lang(), topic);
        Self {
            subject,
            message,
            ..self.clone()
        }
    }

    /// What the visitor typed into a field of this role.
    pub fn value(&self, role: FieldRole) -> &str {
        match role {
            FieldRole::Name => &self.visitor.name,
            FieldRole::Email => &self.visitor.email,
            FieldRole::Company => &self.visitor.company,
            FieldRole::Phone => &self.visitor.phone,
            FieldRole::Subject => &self.subject,
            FieldRole::Message => &self.message,
        }
    }
}

/// A topic drawn at random, for a visitor whose form has none of its own.
pub fn any_topic(rng: &mut ChaCha8Rng) -> Topic {
    const TOPICS: [Topic; 4] = [Topic::Corporate, Topic::AiWeb, Topic::Recovery, Topic::Shop];
    *TOPICS.choose(rng).unwrap_or(&Topic::Corporate)
}

/// What a form field is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRole {
    Name,
    Email,
    Company,
    Phone,
    Subject,
    Message,
}

impl FieldRole {
    /// The contact form's fields, in the order a page shows them.
    pub const CONTACT: [FieldRole; 6] = [
        FieldRole::Name,
        FieldRole::Email,
        FieldRole::Phone,
        FieldRole::Company,
        FieldRole::Subject,
        FieldRole::Message,
    ];

    /// The field's usual name.
    pub fn field_name(self) -> &'static str {
        match self {
            FieldRole::Name => "name",
            FieldRole::Email => "email",
            FieldRole::Company => "company",
            FieldRole::Phone => "phone",
            FieldRole::Subject => "subject",
            FieldRole::Message => "message",
        }
    }

    /// The role of a field by its name: who the visitor is, by the rule the analysis uses to
    /// tell senders apart ([`identity_of`]); what they ask, by its usual names.
    pub fn of_field(name: &str) -> Option<FieldRole> {
        let key = name.to_lowercase();
        if let Some(identity) = identity_of(&key) {
            return Some(match identity {
                Identity::Email => FieldRole::Email,
                Identity::Phone => FieldRole::Phone,
                Identity::Name => FieldRole::Name,
                Identity::Organisation => FieldRole::Company,
            });
        }
        Some(match key.as_str() {
            "subject" | "title" | "topic" => FieldRole::Subject,
            "message" | "body" | "inquiry" | "comment" | "comments" | "details" | "content"
            | "your-message" => FieldRole::Message,
            _ => return None,
        })
    }
}

/// The analysis would call these two messages of one visitor the same or an edit of each
/// other (by a few words, or by a sentence or two).
pub(crate) fn near(a: &str, b: &str) -> bool {
    let (a, b) = (normalize_text(a), normalize_text(b));
    a == b || differs_by_a_few_words(&a, &b) || sentence_edit(&a, &b).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_correction_is_near_and_a_second_message_is_not() {
        let mut r = ChaCha8Rng::seed_from_u64(11);
        for i in 0..60 {
            let lang = if i % 2 == 0 {
                TextLang::Ja
            } else {
                TextLang::En
            };
            let topic = any_topic(&mut r);
            let t = Inquiry::new(&mut r, lang, topic);
            let fixed = t.corrected(&mut r);
            assert_ne!(fixed.message, t.message);
            assert!(near(&fixed.message, &t.message), "{t:?} / {fixed:?}");
            let topic = any_topic(&mut r);
            let again = t.writes_again(&mut r, topic);
            assert!(!near(&again.message, &t.message), "{t:?} / {again:?}");
            assert_eq!(again.visitor, t.visitor);
        }
    }

    #[test]
    fn fields_are_known_by_their_usual_names_in_both_languages() {
        assert_eq!(FieldRole::of_field("your-email"), Some(FieldRole::Email));
        assert_eq!(FieldRole::of_field("電話番号"), Some(FieldRole::Phone));
        assert_eq!(FieldRole::of_field("会社名"), Some(FieldRole::Company));
        assert_eq!(FieldRole::of_field("お名前"), Some(FieldRole::Name));
        assert_eq!(FieldRole::of_field("Inquiry"), Some(FieldRole::Message));
        assert_eq!(FieldRole::of_field("fax"), None);
        for role in FieldRole::CONTACT {
            assert_eq!(FieldRole::of_field(role.field_name()), Some(role));
        }
    }
}
