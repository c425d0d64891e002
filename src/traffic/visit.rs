//! The pathways that make copies and the genuine second messages that must never be merged,
//! as one visit's timed attempts. A sink turns each attempt into a request: the demo into a
//! submission through the intake store, `simulate` into an HTTP request.

use std::collections::HashSet;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::inquiry::{FieldRole, Inquiry};
use super::page::honeypot_text;
use super::profile::Profile;
use super::texts::{self, Topic};
use crate::model::Millis;

/// What happened around one inquiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VisitKind {
    /// One submission, nothing else.
    Single,
    /// Clicked twice (or three times) seconds apart.
    SecondClick,
    /// The answer was lost; the script sends the very same request again.
    RetrySameKey,
    /// The answer was lost; the page makes a new key and sends the same fields again.
    RetryNewKey,
    /// The form posted again minutes later: reopened, or the back button.
    Reload,
    /// Two handlers post one form under a second apart, one copy about half empty.
    TwoHandlers,
    /// The visitor corrected a few words, or replaced a sentence or two, and sent it again.
    EditedResend,
    /// The same visitor writes again hours later: a genuine second message.
    FollowUp,
    /// The page kept its key while the visitor changed the message.
    KeyConflict,
    /// The action failed; the visitor sent the same request again later.
    FailedThenRetried,
    /// A bot that fills the honeypot.
    HoneypotBot,
    /// One body from several senders within a minute or so.
    BotCampaign,
}

impl VisitKind {
    pub const ALL: [VisitKind; 12] = [
        VisitKind::Single,
        VisitKind::SecondClick,
        VisitKind::RetrySameKey,
        VisitKind::RetryNewKey,
        VisitKind::Reload,
        VisitKind::TwoHandlers,
        VisitKind::EditedResend,
        VisitKind::FollowUp,
        VisitKind::KeyConflict,
        VisitKind::FailedThenRetried,
        VisitKind::HoneypotBot,
        VisitKind::BotCampaign,
    ];

    /// The stable id summaries print.
    pub fn id(self) -> &'static str {
        match self {
            VisitKind::Single => "single",
            VisitKind::SecondClick => "second_click",
            VisitKind::RetrySameKey => "retry_same_key",
            VisitKind::RetryNewKey => "retry_new_key",
            VisitKind::Reload => "reload",
            VisitKind::TwoHandlers => "two_handlers",
            VisitKind::EditedResend => "edited_resend",
            VisitKind::FollowUp => "follow_up",
            VisitKind::KeyConflict => "key_conflict",
            VisitKind::FailedThenRetried => "failed_then_retried",
            VisitKind::HoneypotBot => "honeypot_bot",
            VisitKind::BotCampaign => "bot_campaign",
        }
    }

    /// The pathway only works with an idempotency key.
    pub fn needs_key(self) -> bool {
        matches!(
            self,
            VisitKind::RetrySameKey | VisitKind::KeyConflict | VisitKind::FailedThenRetried
        )
    }
}

/// A visitor field a half copy leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub role: FieldRole,
    /// Sent as an empty value rather than left out of the body.
    pub sent_empty: bool,
}

/// What an attempt carries, against the visit's first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    Original,
    /// The previous attempt again, byte for byte (the same key and click).
    Repeat,
    /// Some fields missing or empty (never the email or the message).
    Half(Vec<Dropped>),
    /// The message corrected by a few words.
    Edited,
    /// Another message from the same visitor.
    SecondMessage,
    /// A bot's text; `honeypot`: what it put into the honeypot field, when it fell for it.
    Bot {
        honeypot: Option<String>,
    },
}

/// Whose key an attempt carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// The key the page view made when it was opened: every post from that view shares it.
    Page,
    /// A key made for this click alone.
    Click,
    /// None: a legacy page, or a bot.
    None,
}

/// One request of a visit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// After the visit's first request.
    pub after: Millis,
    pub content: Content,
    /// What is sent.
    pub typed: Inquiry,
    /// Which page view of the visit posts it: 0 the first, the next when the form is opened
    /// again.
    pub page: u8,
    pub key: KeyUse,
    /// The answer never reaches the visitor, who acts as if nothing came back.
    pub lost: bool,
    /// The intake's action fails (the receipt is `failed`).
    pub fails: bool,
}

/// One visit: its kind and its attempts in time order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visit {
    pub kind: VisitKind,
    pub attempts: Vec<Attempt>,
}

impl Visit {
    /// Draws a visit of `kind` by a visitor who typed `typed` into a form about `topic`;
    /// `keyed`: the page sends idempotency keys (forced for the kinds that need one).
    pub fn draw(
        rng: &mut ChaCha8Rng,
        kind: VisitKind,
        typed: Inquiry,
        topic: Topic,
        keyed: bool,
        profile: &Profile,
    ) -> Visit {
        let keyed = keyed || kind.needs_key();
        let mut b = Builder {
            attempts: Vec::new(),
            typed,
            keyed,
        };
        let p = profile;
        match kind {
            VisitKind::Single => b.post(0, Content::Original, 0, KeyUse::Page),
            VisitKind::SecondClick => {
                let copies = if rng.random_bool(p.third_click) { 3 } else { 2 };
                let mut at = 0;
                b.post(0, Content::Original, 0, b.click_key(p));
                for _ in 1..copies {
                    at += rng.random_range(p.second_click.clone());
                    if p.second_click_repeats {
                        b.repeat(at);
                    } else {
                        b.post(at, Content::Original, 0, KeyUse::Click);
                    }
                }
            }
            VisitKind::RetrySameKey => {
                b.post(0, Content::Original, 0, KeyUse::Page);
                let mut at = 0;
                for _ in 0..rng.random_range(p.same_key_retries.clone()) {
                    b.lose();
                    at += rng.random_range(p.retry.clone());
                    b.repeat(at);
                }
            }
            VisitKind::RetryNewKey => {
                b.post(0, Content::Original, 0, KeyUse::Click);
                b.lose();
                let at = rng.random_range(p.retry.clone());
                b.post(at, Content::Original, 0, KeyUse::Click);
            }
            VisitKind::Reload => {
                b.post(0, Content::Original, 0, KeyUse::Page);
                let at = rng.random_range(p.reload.clone());
                if rng.random_bool(p.back_button) {
                    b.repeat(at);
                } else {
                    b.post(at, Content::Original, 1, KeyUse::Page);
                }
            }
            VisitKind::TwoHandlers => {
                let gap = rng.random_range(p.two_handlers.clone());
                let half = Content::Half(half_of(rng, &b.typed));
                if rng.random_bool(p.half_first) {
                    b.post(0, half, 0, KeyUse::Click);
                    b.post(gap, Content::Original, 0, KeyUse::Page);
                } else {
                    b.post(0, Content::Original, 0, KeyUse::Page);
                    b.post(gap, half, 0, KeyUse::Click);
                }
            }
            VisitKind::EditedResend => {
                b.post(0, Content::Original, 0, KeyUse::Page);
                let at = rng.random_range(p.edited_resend.clone());
                let page = if rng.random_bool(p.resend_same_page) {
                    0
                } else {
                    1
                };
                b.typed = if rng.random_bool(p.rewritten_by_sentence) {
                    b.typed.rewritten(rng)
                } else {
                    b.typed.corrected(rng)
                };
                b.post(at, Content::Edited, page, KeyUse::Page);
            }
            VisitKind::FollowUp => {
                b.post(0, Content::Original, 0, KeyUse::Page);
                let at = rng.random_range(p.follow_up.clone());
                if rng.random_bool(p.follow_up_same_text) {
                    b.post(at, Content::Original, 1, KeyUse::Page);
                } else {
                    b.typed = b.typed.writes_again(rng, topic);
                    b.post(at, Content::SecondMessage, 1, KeyUse::Page);
                }
            }
            VisitKind::KeyConflict => {
                b.post(0, Content::Original, 0, KeyUse::Page);
                let changes = if rng.random_bool(p.second_conflict) {
                    2
                } else {
                    1
                };
                let mut at = 0;
                for _ in 0..changes {
                    at += rng.random_range(p.key_conflict.clone());
                    b.typed = b.typed.corrected(rng);
                    b.post(at, Content::Edited, 0, KeyUse::Page);
                }
            }
            VisitKind::FailedThenRetried => {
                b.post(0, Content::Original, 0, KeyUse::Page);
                if let Some(first) = b.attempts.last_mut() {
                    first.fails = true;
                }
                b.repeat(rng.random_range(p.failed_retry.clone()));
            }
            VisitKind::HoneypotBot => {
                let spam = texts::spam(rng);
                b.typed = Inquiry::spam(texts::spam_sender(rng), &spam);
                let honeypot = Some(honeypot_text(rng));
                b.bot(0, honeypot);
            }
            VisitKind::BotCampaign => {
                let spam = texts::spam(rng);
                let senders = rng.random_range(p.campaign_senders.clone());
                let mut seen = HashSet::new();
                let mut at = 0;
                for i in 0..senders {
                    if i > 0 {
                        at += rng.random_range(p.campaign_gap.clone());
                    }
                    let sender = loop {
                        let sender = texts::spam_sender(rng);
                        if seen.insert(sender.1.clone()) {
                            break sender;
                        }
                    };
                    b.typed = Inquiry::spam(sender, &spam);
                    let honeypot = rng
                        .random_bool(p.campaign_honeypot)
                        .then(|| honeypot_text(rng));
                    b.bot(at, honeypot);
                }
            }
        }
        Visit {
            kind,
            attempts: b.attempts,
        }
    }

    /// From the first request to the last.
    pub fn span(&self) -> Millis {
        self.attempts.last().map_or(0, |a| a.after)
    }
}

/// A half copy: one to three of name, phone, company and subject that the visitor filled in,
/// left out or sent empty.
fn half_of(rng: &mut ChaCha8Rng, typed: &Inquiry) -> Vec<Dropped> {
    let mut droppable: Vec<FieldRole> = [
        FieldRole::Name,
        FieldRole::Phone,
        FieldRole::Company,
        FieldRole::Subject,
    ]
    .into_iter()
    .filter(|&role| !typed.value(role).is_empty())
    .collect();
    if droppable.is_empty() {
        return Vec::new();
    }
    let count = rng.random_range(1..=droppable.len().min(3));
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let role = droppable.swap_remove(rng.random_range(0..droppable.len()));
        out.push(Dropped {
            role,
            sent_empty: rng.random_bool(0.5),
        });
    }
    out
}

struct Builder {
    attempts: Vec<Attempt>,
    /// What the visitor has typed by now.
    typed: Inquiry,
    keyed: bool,
}

impl Builder {
    fn post(&mut self, after: Millis, content: Content, page: u8, key: KeyUse) {
        let key = if self.keyed { key } else { KeyUse::None };
        self.attempts.push(Attempt {
            after,
            content,
            typed: self.typed.clone(),
            page,
            key,
            lost: false,
            fails: false,
        });
    }

    fn bot(&mut self, after: Millis, honeypot: Option<String>) {
        self.attempts.push(Attempt {
            after,
            content: Content::Bot { honeypot },
            typed: self.typed.clone(),
            page: 0,
            key: KeyUse::None,
            lost: false,
            fails: false,
        });
    }

    /// A second click's key: the page's own when the click is sent again as it was, else one
    /// per click.
    fn click_key(&self, p: &Profile) -> KeyUse {
        if p.second_click_repeats {
            KeyUse::Page
        } else {
            KeyUse::Click
        }
    }

    /// The previous attempt again, byte for byte.
    fn repeat(&mut self, after: Millis) {
        if let Some(last) = self.attempts.last() {
            let again = Attempt {
                after,
                content: Content::Repeat,
                lost: false,
                fails: false,
                ..last.clone()
            };
            self.attempts.push(again);
        }
    }

    /// The last attempt's answer is lost on its way back.
    fn lose(&mut self) {
        if let Some(last) = self.attempts.last_mut() {
            last.lost = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::inquiry::{any_topic, near};
    use crate::traffic::texts::TextLang;
    use rand::SeedableRng;

    fn of(kind: VisitKind, seed: u64, profile: &Profile) -> Visit {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let lang = if seed.is_multiple_of(2) {
            TextLang::Ja
        } else {
            TextLang::En
        };
        let topic = any_topic(&mut rng);
        let typed = Inquiry::new(&mut rng, lang, topic);
        Visit::draw(&mut rng, kind, typed, topic, true, profile)
    }

    fn profiles() -> [Profile; 2] {
        [Profile::demo(), Profile::simulate(90_000, 20_000)]
    }

    #[test]
    fn the_same_seed_gives_the_same_visit_and_attempts_come_in_time_order() {
        for p in profiles() {
            for kind in VisitKind::ALL {
                for seed in 0..10 {
                    let v = of(kind, seed, &p);
                    assert_eq!(v, of(kind, seed, &p));
                    assert!(v.attempts.windows(2).all(|w| w[0].after <= w[1].after));
                    assert_eq!(v.attempts[0].after, 0);
                }
            }
        }
    }

    #[test]
    fn a_retry_with_the_same_key_repeats_a_lost_request() {
        for p in profiles() {
            for seed in 0..20 {
                let v = of(VisitKind::RetrySameKey, seed, &p);
                let (first, last) = (&v.attempts[0], v.attempts.last().unwrap());
                assert!(first.lost && !last.lost);
                assert_eq!(last.content, Content::Repeat);
                assert_eq!((first.key, first.page), (last.key, last.page));
                assert_eq!(first.key, KeyUse::Page);
            }
        }
    }

    #[test]
    fn a_retry_with_a_new_key_sends_the_same_fields_with_a_key_of_its_own() {
        for p in profiles() {
            let v = of(VisitKind::RetryNewKey, 3, &p);
            assert!(v.attempts[0].lost);
            assert_eq!(v.attempts[1].key, KeyUse::Click);
            assert_eq!(v.attempts[0].typed, v.attempts[1].typed);
        }
    }

    #[test]
    fn a_half_copy_keeps_the_email_and_the_message() {
        for seed in 0..50 {
            let v = of(VisitKind::TwoHandlers, seed, &Profile::demo());
            let half = v
                .attempts
                .iter()
                .find_map(|a| match &a.content {
                    Content::Half(d) => Some(d.clone()),
                    _ => None,
                })
                .unwrap();
            assert!((1..=3).contains(&half.len()));
            assert!(
                half.iter()
                    .all(|d| !matches!(d.role, FieldRole::Email | FieldRole::Message))
            );
            assert!(v.span() <= 900);
        }
    }

    #[test]
    fn an_edited_resend_is_near_and_a_follow_up_is_another_message_hours_later() {
        for seed in 0..30 {
            let p = Profile::demo();
            let e = of(VisitKind::EditedResend, seed, &p);
            let (a, b) = (&e.attempts[0].typed, &e.attempts[1].typed);
            assert_ne!(a.message, b.message);
            assert!(near(&a.message, &b.message), "{a:?}\n{b:?}");
            assert_eq!(e.attempts[1].page, 1, "a new page: a new key");

            let f = of(VisitKind::FollowUp, seed, &p);
            assert!(f.span() >= 2 * 3_600_000);
            assert_eq!(f.attempts[0].typed.visitor, f.attempts[1].typed.visitor);
            if f.attempts[1].content == Content::SecondMessage {
                assert!(!near(
                    &f.attempts[0].typed.message,
                    &f.attempts[1].typed.message
                ));
            }
        }
    }

    #[test]
    fn a_key_conflict_changes_the_body_under_the_pages_key() {
        for seed in 0..20 {
            let v = of(VisitKind::KeyConflict, seed, &Profile::demo());
            assert!(v.attempts.len() >= 2);
            assert!(
                v.attempts
                    .iter()
                    .all(|a| a.key == KeyUse::Page && a.page == 0)
            );
            assert_ne!(v.attempts[0].typed, v.attempts[1].typed);
        }
    }

    #[test]
    fn a_campaign_shares_one_text_among_different_senders() {
        for p in profiles() {
            for seed in 0..20 {
                let v = of(VisitKind::BotCampaign, seed, &p);
                assert!(p.campaign_senders.contains(&v.attempts.len()));
                let emails: HashSet<_> = v
                    .attempts
                    .iter()
                    .map(|a| a.typed.visitor.email.clone())
                    .collect();
                assert_eq!(emails.len(), v.attempts.len());
                assert!(v.attempts.iter().all(
                    |a| a.typed.message == v.attempts[0].typed.message && a.key == KeyUse::None
                ));
            }
            let bot = of(VisitKind::HoneypotBot, 1, &p);
            assert!(matches!(
                &bot.attempts[0].content,
                Content::Bot { honeypot: Some(h) } if !h.is_empty()
            ));
        }
    }

    #[test]
    fn an_unkeyed_page_sends_no_key_unless_the_pathway_needs_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let typed = Inquiry::new(&mut rng, TextLang::En, Topic::Shop);
        let p = Profile::demo();
        let v = Visit::draw(
            &mut rng,
            VisitKind::Reload,
            typed.clone(),
            Topic::Shop,
            false,
            &p,
        );
        assert!(v.attempts.iter().all(|a| a.key == KeyUse::None));
        let v = Visit::draw(
            &mut rng,
            VisitKind::RetrySameKey,
            typed,
            Topic::Shop,
            false,
            &p,
        );
        assert!(v.attempts.iter().all(|a| a.key == KeyUse::Page));
    }
}
