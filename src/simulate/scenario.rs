//! What happens around one visitor, as timed requests: every pathway of
//! the pathways that make copies (a second click, a retry after a lost answer with the same key
//! or a regenerated one, a reload, two handlers, bots) and the genuine
//! follow-ups that must never be merged (a corrected resend, a second
//! message). Pure: the same generator state gives the same steps.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use super::form::FormShape;
use super::payload::{self, Fields, Noise, Typed};
use crate::demo::scenario::new_key;
use crate::demo::texts;
use crate::model::Millis;

/// The kinds of visitor, by the pathways that make copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VisitorKind {
    /// One submission, nothing else.
    Single,
    /// Sent twice 0.2–1 s apart with the page's one key: replayed.
    SecondClick,
    /// The answer was lost; the script sends the same body with the same
    /// key seconds later: replayed.
    RetrySameKey,
    /// The answer was lost; the page makes a new key and sends the same
    /// fields seconds later: the server's window absorbs it.
    RetryNewKey,
    /// A plain form's post (303), then the same fields from the form opened
    /// again minutes later; or the back button re-posting the same page.
    Reload,
    /// Two handlers post one form under a second apart, one copy half empty.
    TwoHandlers,
    /// The visitor corrects a word and sends it again: an edited copy, or,
    /// from the same page (same key), a key conflict.
    CorrectedResend,
    /// The same visitor writes again about something else.
    FollowUp,
    /// A bot that fills the honeypot.
    HoneypotBot,
    /// One body from three to five senders within seconds.
    BotCampaign,
}

impl VisitorKind {
    pub const ALL: [VisitorKind; 10] = [
        VisitorKind::Single,
        VisitorKind::SecondClick,
        VisitorKind::RetrySameKey,
        VisitorKind::RetryNewKey,
        VisitorKind::Reload,
        VisitorKind::TwoHandlers,
        VisitorKind::CorrectedResend,
        VisitorKind::FollowUp,
        VisitorKind::HoneypotBot,
        VisitorKind::BotCampaign,
    ];

    /// The stable id the summary prints.
    pub fn id(self) -> &'static str {
        match self {
            VisitorKind::Single => "single",
            VisitorKind::SecondClick => "second_click",
            VisitorKind::RetrySameKey => "retry_same_key",
            VisitorKind::RetryNewKey => "retry_new_key",
            VisitorKind::Reload => "reload",
            VisitorKind::TwoHandlers => "two_handlers",
            VisitorKind::CorrectedResend => "corrected_resend",
            VisitorKind::FollowUp => "follow_up",
            VisitorKind::HoneypotBot => "honeypot_bot",
            VisitorKind::BotCampaign => "bot_campaign",
        }
    }

    /// Visitors of this kind per hundred.
    fn weight(self) -> u32 {
        match self {
            VisitorKind::Single => 44,
            VisitorKind::SecondClick => 10,
            VisitorKind::RetrySameKey => 7,
            VisitorKind::RetryNewKey => 7,
            VisitorKind::Reload => 6,
            VisitorKind::TwoHandlers => 6,
            VisitorKind::CorrectedResend => 6,
            VisitorKind::FollowUp => 6,
            VisitorKind::HoneypotBot => 5,
            VisitorKind::BotCampaign => 3,
        }
    }

    /// A kind drawn by weight.
    pub fn draw(rng: &mut ChaCha8Rng) -> VisitorKind {
        VisitorKind::ALL
            .choose_weighted(rng, |p| p.weight())
            .copied()
            .unwrap_or(VisitorKind::Single)
    }
}

/// How a request reaches the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A site's own script: JSON, its key in the `Idempotency-Key` header
    /// (`None`: a legacy page that sends none).
    Script { key: Option<String>, noise: Noise },
    /// A second handler posting form-encoded fields itself, with its own key.
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
    pub pathway: VisitorKind,
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
    /// A corrected resend or a second message comes this long after the
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
    fn reload(&self, rng: &mut ChaCha8Rng) -> Millis {
        self.reload_after_ms + rng.random_range(0..=self.reload_after_ms / 4)
    }

    fn resend(&self, rng: &mut ChaCha8Rng) -> Millis {
        self.resend_after_ms + rng.random_range(0..=self.resend_after_ms / 2)
    }
}

/// The requests of visitor `visitor` of kind `pathway`, arriving at `at`.
pub fn steps(
    rng: &mut ChaCha8Rng,
    visitor: u64,
    pathway: VisitorKind,
    at: Millis,
    shape: &FormShape,
    timing: Timing,
) -> Vec<Step> {
    let mut b = Builder {
        visitor,
        pathway,
        steps: Vec::new(),
    };
    let typed = Typed::new(rng);
    match pathway {
        VisitorKind::Single => match rng.random_range(0..20) {
            0..13 => b.script(rng, at, shape, &typed, true),
            13..18 => b.page(at, 0, payload::page_fields(shape, &typed)),
            _ => b.script(rng, at, shape, &typed, false),
        },
        VisitorKind::SecondClick => {
            let again = at + rng.random_range(200..1_000);
            if rng.random_bool(0.6) {
                b.script(rng, at, shape, &typed, true);
                b.repeat(again);
            } else {
                b.page(at, 0, payload::page_fields(shape, &typed));
                b.page(again, 0, payload::page_fields(shape, &typed));
            }
        }
        VisitorKind::RetrySameKey => {
            b.script(rng, at, shape, &typed, true);
            b.lose();
            b.repeat(at + rng.random_range(2_000..8_000));
        }
        VisitorKind::RetryNewKey => {
            b.script(rng, at, shape, &typed, true);
            b.lose();
            let again = at + rng.random_range(2_000..8_000);
            b.script(rng, again, shape, &typed, true);
        }
        VisitorKind::Reload => {
            let fields = payload::page_fields(shape, &typed);
            b.page(at, 0, fields.clone());
            let later = at + timing.reload(rng);
            // The back button re-posts the same page (its key); reopening
            // the form makes a new page and a new key, the browser filling
            // in the same values.
            let view = if rng.random_bool(0.3) { 0 } else { 1 };
            b.page(later, view, fields);
        }
        VisitorKind::TwoHandlers => {
            let gap = rng.random_range(20..600);
            let (full_at, half_at) = if rng.random_bool(0.7) {
                (at, at + gap)
            } else {
                (at + gap, at)
            };
            let half = payload::half_fields(rng, shape, &typed);
            if half_at < full_at {
                let key = new_key(rng);
                b.handler(half_at, half, Some(key));
                b.script(rng, full_at, shape, &typed, true);
            } else {
                b.script(rng, full_at, shape, &typed, true);
                let key = new_key(rng);
                b.handler(half_at, half, Some(key));
            }
        }
        VisitorKind::CorrectedResend => {
            let later = at + timing.resend(rng);
            let fixed = typed.corrected(rng);
            if rng.random_bool(0.7) {
                b.script(rng, at, shape, &typed, true);
                b.script(rng, later, shape, &fixed, true);
            } else {
                // Back to the same page, one word changed, sent again: the
                // page's key with another body.
                b.page(at, 0, payload::page_fields(shape, &typed));
                b.page(later, 0, payload::page_fields(shape, &fixed));
            }
        }
        VisitorKind::FollowUp => {
            b.script(rng, at, shape, &typed, true);
            let again = typed.writes_again(rng);
            let later = at + timing.resend(rng);
            b.script(rng, later, shape, &again, true);
        }
        VisitorKind::HoneypotBot => {
            let sender = texts::spam_sender(rng);
            let spam = texts::spam(rng);
            let filled = payload::honeypot_text(rng);
            let fields = payload::bot_fields(shape, &sender, &spam, Some(&filled));
            if rng.random_bool(0.5) {
                b.handler(at, fields, None);
            } else {
                b.page(at, 0, fields);
            }
        }
        VisitorKind::BotCampaign => {
            let spam = texts::spam(rng);
            let senders = rng.random_range(3..=5);
            let mut t = at;
            for _ in 0..senders {
                let sender = texts::spam_sender(rng);
                let filled = rng.random_bool(0.3).then(|| payload::honeypot_text(rng));
                b.handler(
                    t,
                    payload::bot_fields(shape, &sender, &spam, filled.as_deref()),
                    None,
                );
                t += rng.random_range(100..4_000);
            }
        }
    }
    b.steps
}

struct Builder {
    visitor: u64,
    pathway: VisitorKind,
    steps: Vec<Step>,
}

impl Builder {
    fn push(&mut self, at_ms: Millis, channel: Channel, fields: Fields) {
        let first = self.steps.is_empty();
        self.steps.push(Step {
            at_ms,
            visitor: self.visitor,
            pathway: self.pathway,
            first,
            channel,
            fields,
            lost: false,
        });
    }

    fn script(
        &mut self,
        rng: &mut ChaCha8Rng,
        at: Millis,
        shape: &FormShape,
        typed: &Typed,
        keyed: bool,
    ) {
        // A new key for this click, or none (a legacy page).
        let key = keyed.then(|| new_key(rng));
        let noise = Noise::new(rng, at);
        self.push(
            at,
            Channel::Script { key, noise },
            payload::script_fields(shape, typed),
        );
    }

    fn handler(&mut self, at: Millis, fields: Fields, key: Option<String>) {
        self.push(at, Channel::Handler { key }, fields);
    }

    fn page(&mut self, at: Millis, view: u8, fields: Fields) {
        self.push(at, Channel::Page { view }, fields);
    }

    /// The last request again, byte for byte, at `at`.
    fn repeat(&mut self, at: Millis) {
        if let Some(last) = self.steps.last() {
            let again = Step {
                at_ms: at,
                first: false,
                lost: false,
                ..last.clone()
            };
            self.steps.push(again);
        }
    }

    /// The last request's answer is lost on its way back.
    fn lose(&mut self) {
        if let Some(last) = self.steps.last_mut() {
            last.lost = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn of(pathway: VisitorKind, seed: u64) -> Vec<Step> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        steps(
            &mut rng,
            7,
            pathway,
            10_000,
            &FormShape::contact(),
            Timing::default(),
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
        for p in VisitorKind::ALL {
            assert_eq!(of(p, 3), of(p, 3));
        }
        assert_ne!(of(VisitorKind::Single, 3), of(VisitorKind::Single, 4));
    }

    #[test]
    fn a_second_click_sends_the_same_request_again_within_a_second() {
        for seed in 0..20 {
            let s = of(VisitorKind::SecondClick, seed);
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
            let same = of(VisitorKind::RetrySameKey, seed);
            assert!(same[0].lost && !same[1].lost);
            assert_eq!(same[0].channel, same[1].channel, "the same key and body");
            assert!((2_000..8_000).contains(&(same[1].at_ms - same[0].at_ms)));

            let new = of(VisitorKind::RetryNewKey, seed);
            assert!(new[0].lost);
            assert_ne!(key(&new[0]), key(&new[1]));
            assert!(key(&new[1]).is_some());
            assert_eq!(new[0].fields, new[1].fields, "the same visitor fields");
            assert_ne!(new[0].channel, new[1].channel, "another event id and clock");
        }
    }

    #[test]
    fn a_reload_posts_the_page_again_minutes_later() {
        let mut views = Vec::new();
        for seed in 0..20 {
            let s = of(VisitorKind::Reload, seed);
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
            let s = of(VisitorKind::TwoHandlers, seed);
            assert_eq!(s.len(), 2);
            assert!(s[0].at_ms <= s[1].at_ms && s[1].at_ms - s[0].at_ms < 1_000);
            let half = s
                .iter()
                .find(|x| matches!(x.channel, Channel::Handler { .. }))
                .unwrap();
            let whole = s
                .iter()
                .find(|x| matches!(x.channel, Channel::Script { .. }))
                .unwrap();
            let filled = |f: &Fields| f.iter().filter(|(_, v)| !v.is_empty()).count();
            assert!(filled(&half.fields) < filled(&whole.fields));
            assert_ne!(key(half), key(whole));
        }
    }

    #[test]
    fn follow_ups_keep_the_visitor_and_change_the_message() {
        for seed in 0..20 {
            for p in [VisitorKind::CorrectedResend, VisitorKind::FollowUp] {
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
            let s = of(VisitorKind::HoneypotBot, seed);
            assert!(
                s[0].fields
                    .iter()
                    .any(|(k, v)| k == "_gotcha" && !v.is_empty())
            );
            let c = of(VisitorKind::BotCampaign, seed);
            assert!((3..=5).contains(&c.len()));
            let message = |s: &Step| s.fields.iter().find(|(k, _)| k == "message").cloned();
            let email = |s: &Step| s.fields.iter().find(|(k, _)| k == "email").cloned();
            assert!(c.iter().all(|x| message(x) == message(&c[0])));
            let senders: std::collections::HashSet<_> = c.iter().map(email).collect();
            assert_eq!(senders.len(), c.len());
        }
    }
}
