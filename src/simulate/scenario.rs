//! The simulator's side of the traffic model ([`crate::traffic`]): its mix of visits, and the
//! HTTP requests a visit's attempts become (a site's script posting JSON, a browser's plain
//! post of the form page, a second handler). Pure: the same generator state gives the same
//! steps.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use super::form::FormShape;
use super::payload::{self, Fields, Noise};
use crate::model::Millis;
use crate::traffic::inquiry::any_topic;
use crate::traffic::page::{PageView, new_key};
use crate::traffic::texts::TextLang;
use crate::traffic::{Attempt, Content, Inquiry, KeyUse, Profile, Visit, VisitKind};

/// The share of visitors who write in Japanese.
const JAPANESE: f64 = 0.6;

/// The share of site scripts that send idempotency keys (the rest are legacy scripts).
const KEYED: f64 = 0.9;

/// The share of visitors whose browser posts the form page itself (the rest post through
/// the site's script).
const PLAIN_POST: f64 = 0.3;

/// The kinds of visit a run sends, each with its weight per hundred visitors: every pathway a
/// server can see without an action of its own failing.
pub const KINDS: [(VisitKind, u32); 10] = [
    (VisitKind::Single, 44),
    (VisitKind::SecondClick, 10),
    (VisitKind::RetrySameKey, 7),
    (VisitKind::RetryNewKey, 7),
    (VisitKind::Reload, 6),
    (VisitKind::TwoHandlers, 6),
    (VisitKind::EditedResend, 6),
    (VisitKind::FollowUp, 6),
    (VisitKind::HoneypotBot, 5),
    (VisitKind::BotCampaign, 3),
];

/// A kind drawn by weight.
pub fn draw_kind(rng: &mut ChaCha8Rng) -> VisitKind {
    KINDS
        .choose_weighted(rng, |k| k.1)
        .map_or(VisitKind::Single, |k| k.0)
}

/// How a request reaches the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A site's own script: JSON, its key in the `Idempotency-Key` header
    /// (`None`: a legacy page that sends none).
    Script { key: Option<String>, noise: Noise },
    /// A second handler (or a bot) posting form-encoded fields itself.
    Handler { key: Option<String> },
    /// A browser's plain post of the form page served at `GET /f/{form}`:
    /// page view `view` of this visitor (the page and its `_key` are fetched
    /// the first time a view is used, and kept), `Accept: text/html`, the
    /// 303 followed to the thank-you page.
    Page { view: u8 },
}

/// One request of a visitor, due `at_ms` after the run's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub at_ms: Millis,
    /// The visitor's number in the run (from 0).
    pub visitor: u64,
    pub pathway: VisitKind,
    /// The visitor's first request (the one that counts the pathway).
    pub first: bool,
    pub channel: Channel,
    pub fields: Fields,
    /// Its answer never reaches the visitor (the network dropped it), who
    /// acts as if nothing came back; the summary still counts what it was.
    pub lost: bool,
}

/// What the timing of the slow pathways depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// A reload comes this long after the first post (and up to a quarter
    /// more): a minute or more is the `minutes` class.
    pub reload_after_ms: Millis,
    /// An edited resend or a second message comes this long after the
    /// first post (and up to half more).
    pub resend_after_ms: Millis,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            reload_after_ms: 90_000,
            resend_after_ms: 20_000,
        }
    }
}

impl Timing {
    pub fn profile(&self) -> Profile {
        Profile::simulate(self.reload_after_ms, self.resend_after_ms)
    }
}

/// The requests of visitor `visitor` of kind `kind`, arriving at `at`.
pub fn steps(
    rng: &mut ChaCha8Rng,
    visitor: u64,
    kind: VisitKind,
    at: Millis,
    shape: &FormShape,
    profile: &Profile,
) -> Vec<Step> {
    let lang = if rng.random_bool(JAPANESE) {
        TextLang::Ja
    } else {
        TextLang::En
    };
    let topic = any_topic(rng);
    let typed = Inquiry::new(rng, lang, topic);
    // A reload is the browser posting the page again; the others post either way. The
    // server's form page always carries a key.
    let plain_post = kind == VisitKind::Reload || rng.random_bool(PLAIN_POST);
    let keyed = plain_post || rng.random_bool(KEYED);
    let visit = Visit::draw(rng, kind, typed, topic, keyed, profile);
    let mut b = Builder {
        visitor,
        kind,
        plain_post,
        pages: Vec::new(),
        views: 0,
        steps: Vec::new(),
    };
    for a in &visit.attempts {
        b.attempt(rng, at + a.after, a, shape);
    }
    b.steps
}

struct Builder {
    visitor: u64,
    kind: VisitKind,
    /// The browser posts the form page itself.
    plain_post: bool,
    /// The visit's page views (by the attempts' `page`): what the page adds, its key, and the
    /// view the browser fetched for it.
    pages: Vec<(PageView, String, u8)>,
    /// Page views fetched so far.
    views: u8,
    steps: Vec<Step>,
}

impl Builder {
    fn attempt(&mut self, rng: &mut ChaCha8Rng, at: Millis, a: &Attempt, shape: &FormShape) {
        if a.content == Content::Repeat {
            if let Some(last) = self.steps.last() {
                let again = Step {
                    at_ms: at,
                    first: false,
                    lost: a.lost,
                    ..last.clone()
                };
                self.steps.push(again);
            }
            return;
        }
        let page = usize::from(a.page);
        while self.pages.len() <= page {
            let view = PageView::new(rng);
            let key = new_key(rng);
            self.pages.push((view, key, self.views));
            self.views += 1;
        }
        let (channel, fields) = match &a.content {
            Content::Half(dropped) => {
                let key = (a.key != KeyUse::None).then(|| new_key(rng));
                let fields = payload::half_fields(shape, &a.typed, dropped);
                (Channel::Handler { key }, fields)
            }
            Content::Bot { honeypot } => {
                let fields = payload::bot_fields(shape, &a.typed, honeypot.as_deref());
                // A lone bot posts the page it found; a campaign's senders post alone.
                let channel = if self.kind == VisitKind::HoneypotBot && rng.random_bool(0.5) {
                    Channel::Page { view: 0 }
                } else {
                    Channel::Handler { key: None }
                };
                (channel, fields)
            }
            _ if self.plain_post && a.key != KeyUse::None => {
                let view = match a.key {
                    KeyUse::Click => {
                        // A page that makes a key per click: another view of the form.
                        self.views += 1;
                        self.views - 1
                    }
                    _ => self.pages[page].2,
                };
                (
                    Channel::Page { view },
                    payload::page_fields(shape, &a.typed),
                )
            }
            _ => {
                let key = match a.key {
                    KeyUse::Page => Some(self.pages[page].1.clone()),
                    KeyUse::Click => Some(new_key(rng)),
                    KeyUse::None => None,
                };
                let noise = Noise::new(rng, at, self.pages[page].0.utm);
                (
                    Channel::Script { key, noise },
                    payload::script_fields(shape, &a.typed),
                )
            }
        };
        let first = self.steps.is_empty();
        self.steps.push(Step {
            at_ms: at,
            visitor: self.visitor,
            pathway: self.kind,
            first,
            channel,
            fields,
            lost: a.lost,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn of(pathway: VisitKind, seed: u64) -> Vec<Step> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        steps(
            &mut rng,
            7,
            pathway,
            10_000,
            &FormShape::contact(),
            &Timing::default().profile(),
        )
    }

    fn key(step: &Step) -> Option<&str> {
        match &step.channel {
            Channel::Script { key, .. } | Channel::Handler { key } => key.as_deref(),
            Channel::Page { .. } => None,
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_steps() {
        for (p, _) in KINDS {
            assert_eq!(of(p, 3), of(p, 3));
        }
        assert_ne!(of(VisitKind::Single, 3), of(VisitKind::Single, 4));
    }

    #[test]
    fn a_second_click_sends_the_same_request_again_within_a_second() {
        for seed in 0..20 {
            let s = of(VisitKind::SecondClick, seed);
            assert_eq!(s.len(), 2);
            assert_eq!((&s[0].channel, &s[0].fields), (&s[1].channel, &s[1].fields));
            let gap = s[1].at_ms - s[0].at_ms;
            assert!((200..1_000).contains(&gap), "{gap}");
            assert!(s[0].first && !s[1].first);
        }
    }

    #[test]
    fn retries_follow_a_lost_answer_with_the_same_key_or_a_new_one() {
        for seed in 0..20 {
            let same = of(VisitKind::RetrySameKey, seed);
            assert!(same[0].lost && !same[1].lost);
            assert_eq!(same[0].channel, same[1].channel, "the same key and body");
            assert!((2_000..8_000).contains(&(same[1].at_ms - same[0].at_ms)));

            let new = of(VisitKind::RetryNewKey, seed);
            assert!(new[0].lost);
            if key(&new[0]).is_some() {
                assert_ne!(key(&new[0]), key(&new[1]));
            }
            assert_eq!(new[0].fields, new[1].fields, "the same visitor fields");
            assert_ne!(
                new[0].channel, new[1].channel,
                "another key or page view, event id and clock"
            );
        }
    }

    #[test]
    fn a_reload_posts_the_page_again_minutes_later() {
        let mut views = Vec::new();
        for seed in 0..20 {
            let s = of(VisitKind::Reload, seed);
            assert_eq!(s.len(), 2);
            assert_eq!(s[0].channel, Channel::Page { view: 0 });
            assert_eq!(s[0].fields, s[1].fields);
            let gap = s[1].at_ms - s[0].at_ms;
            assert!((90_000..=112_500).contains(&gap), "{gap}");
            views.push(s[1].channel.clone());
        }
        assert!(
            views.contains(&Channel::Page { view: 0 }),
            "the back button"
        );
        assert!(views.contains(&Channel::Page { view: 1 }), "a new page");
    }

    #[test]
    fn two_handlers_post_a_whole_and_a_half_copy_under_a_second_apart() {
        for seed in 0..20 {
            let s = of(VisitKind::TwoHandlers, seed);
            assert_eq!(s.len(), 2);
            assert!(s[0].at_ms <= s[1].at_ms && s[1].at_ms - s[0].at_ms < 1_000);
            let half = s
                .iter()
                .find(|x| matches!(x.channel, Channel::Handler { .. }))
                .unwrap();
            let whole = s
                .iter()
                .find(|x| !matches!(x.channel, Channel::Handler { .. }))
                .unwrap();
            let filled = |f: &Fields| f.iter().filter(|(_, v)| !v.is_empty()).count();
            assert!(filled(&half.fields) < filled(&whole.fields));
            if key(half).is_some() {
                assert_ne!(key(half), key(whole));
            }
        }
    }

    #[test]
    fn follow_ups_keep_the_visitor_and_change_the_message() {
        for seed in 0..20 {
            for p in [VisitKind::EditedResend, VisitKind::FollowUp] {
                let s = of(p, seed);
                assert_eq!(s.len(), 2);
                let field = |i: usize, n: &str| {
                    s[i].fields
                        .iter()
                        .find(|(k, _)| k == n)
                        .map(|(_, v)| v.clone())
                };
                assert_eq!(field(0, "email"), field(1, "email"));
                assert_ne!(field(0, "message"), field(1, "message"));
                assert!((20_000..=30_000).contains(&(s[1].at_ms - s[0].at_ms)));
            }
        }
    }

    #[test]
    fn bots_fill_the_honeypot_or_share_one_body() {
        for seed in 0..20 {
            let s = of(VisitKind::HoneypotBot, seed);
            assert!(
                s[0].fields
                    .iter()
                    .any(|(k, v)| k == "_gotcha" && !v.is_empty())
            );
            let c = of(VisitKind::BotCampaign, seed);
            assert!((3..=5).contains(&c.len()));
            let message = |s: &Step| s.fields.iter().find(|(k, _)| k == "message").cloned();
            let email = |s: &Step| s.fields.iter().find(|(k, _)| k == "email").cloned();
            assert!(c.iter().all(|x| message(x) == message(&c[0])));
            let senders: std::collections::HashSet<_> = c.iter().map(email).collect();
            assert_eq!(senders.len(), c.len());
        }
    }
}
