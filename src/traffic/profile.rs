//! The timings and habits a sink draws its visits with. The pathways are the same for both
//! sinks; the demo spreads them the way weeks of real intake do, `simulate` compresses them so
//! that a short run against a server shows every pathway, and a browser's plain post can only
//! be replayed by the page's own key.

use std::ops::RangeInclusive;

use crate::model::Millis;

const MINUTE: Millis = 60_000;
const HOUR: Millis = 60 * MINUTE;

#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// The gap between clicks of a second (or third) click.
    pub second_click: RangeInclusive<Millis>,
    /// The share of second clicks that click a third time.
    pub third_click: f64,
    /// A second click sends the very same request again (the page's one key and the same
    /// click); otherwise the page makes a key per click.
    pub second_click_repeats: bool,
    /// The gap before a retry after a lost answer.
    pub retry: RangeInclusive<Millis>,
    /// How many times a script retries with the same key.
    pub same_key_retries: RangeInclusive<u32>,
    /// The gap before a reload posts the form again.
    pub reload: RangeInclusive<Millis>,
    /// The share of reloads that are the back button re-posting the same page.
    pub back_button: f64,
    /// The gap between two handlers' posts of one form.
    pub two_handlers: RangeInclusive<Millis>,
    /// The share of two-handler posts where the half copy arrives first.
    pub half_first: f64,
    /// The gap before an edited resend.
    pub edited_resend: RangeInclusive<Millis>,
    /// The share of edited resends sent from the same page, with its key: a key conflict.
    pub resend_same_page: f64,
    /// The share of edited resends rewritten by a sentence or two rather than a few words.
    pub rewritten_by_sentence: f64,
    /// The gap before a visitor writes again.
    pub follow_up: RangeInclusive<Millis>,
    /// The share of follow-ups that send the very same text again (no answer came).
    pub follow_up_same_text: f64,
    /// The gap before each changed body sent with a used key.
    pub key_conflict: RangeInclusive<Millis>,
    /// The share of key conflicts with a second changed body.
    pub second_conflict: f64,
    /// The gap between a failed action and the visitor's retry.
    pub failed_retry: RangeInclusive<Millis>,
    /// Senders of one bot campaign.
    pub campaign_senders: RangeInclusive<usize>,
    /// The gap between a campaign's senders.
    pub campaign_gap: RangeInclusive<Millis>,
    /// The share of a campaign's senders that fill the honeypot.
    pub campaign_honeypot: f64,
}

impl Profile {
    /// Weeks of intake as a busy shared form sees it.
    pub fn demo() -> Self {
        Self {
            second_click: 1_200..=5_000,
            third_click: 0.2,
            second_click_repeats: false,
            retry: 2_000..=30_000,
            same_key_retries: 1..=2,
            reload: 75_000..=9 * MINUTE,
            back_button: 0.0,
            two_handlers: 0..=900,
            half_first: 0.4,
            edited_resend: 20_000..=8 * MINUTE,
            resend_same_page: 0.0,
            rewritten_by_sentence: 0.3,
            follow_up: 2 * HOUR..=30 * HOUR,
            follow_up_same_text: 0.4,
            key_conflict: 5_000..=5 * MINUTE,
            second_conflict: 0.15,
            failed_retry: 30_000..=20 * MINUTE,
            campaign_senders: 3..=6,
            campaign_gap: 2_000..=60_000,
            campaign_honeypot: 0.8,
        }
    }

    /// A run against a server: reloads come `reload_after` (and up to a quarter more) after
    /// the first post, edited resends and second messages `resend_after` (and up to half more).
    pub fn simulate(reload_after: Millis, resend_after: Millis) -> Self {
        Self {
            second_click: 200..=1_000,
            third_click: 0.0,
            second_click_repeats: true,
            retry: 2_000..=8_000,
            same_key_retries: 1..=1,
            reload: reload_after..=reload_after + reload_after / 4,
            back_button: 0.3,
            two_handlers: 20..=600,
            half_first: 0.3,
            edited_resend: resend_after..=resend_after + resend_after / 2,
            resend_same_page: 0.3,
            rewritten_by_sentence: 0.3,
            follow_up: resend_after..=resend_after + resend_after / 2,
            follow_up_same_text: 0.0,
            key_conflict: 5_000..=MINUTE,
            second_conflict: 0.0,
            failed_retry: 30_000..=5 * MINUTE,
            campaign_senders: 3..=5,
            campaign_gap: 100..=4_000,
            campaign_honeypot: 0.3,
        }
    }
}
