//! The planner: draws inquiries and their pathways over the days before `now`, as timed
//! steps for the writer, in time order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;
use std::sync::mpsc::SyncSender;

use chrono::{Datelike, Timelike};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use super::scenario::{Action, Body, Event, KIND_WEIGHTS, PlantedCopy, SCOPES, ScopeSpec, Tag};
use crate::intake::canonical::{canonical, sha256_hex};
use crate::intake::store::Submission;
use crate::model::time::format_rfc3339;
use crate::model::{Millis, ReceiptId};
use crate::triage::model::DamageReason;

use super::scenario;
use super::summary::*;
use super::{DAY, END_MARGIN, HOUR, MAX_DAYS, MIN_DAYS, MINUTE, PER_DAY};
use crate::traffic::page::{PageView, new_key};
use crate::traffic::texts::TextLang;
use crate::traffic::{Content, Inquiry, KeyUse, Profile, Visit, VisitKind};

/// A request's key and body as sent.
type SentRequest = (Option<String>, Rc<Map<String, Value>>);

/// What the planner tells the writer, in order.
pub(super) enum PlanStep {
    /// A duplicate group is planted; its index is the count of earlier `NewGroup`s.
    NewGroup {
        scope: &'static str,
        pathway: VisitKind,
    },
    NewFollowUp,
    NewConflict(PlantedConflict),
    NewRetry,
    NewBotCampaign,
    /// An event, in time order.
    Event(Ready),
}

/// An event ready for the intake: the payload already checked and canonicalised.
pub(super) struct Ready {
    pub(super) at: Millis,
    pub(super) ja: bool,
    pub(super) scope: &'static str,
    pub(super) body: ReadyBody,
    pub(super) action: Action,
    pub(super) tag: Tag,
}

pub(super) enum ReadyBody {
    Submission(Result<Submission, String>),
    Raw {
        payload: String,
        digest: String,
        created_at: String,
    },
}

/// An event waiting for its time.
pub(super) struct Pending {
    pub(super) at: Millis,
    pub(super) seq: u64,
    pub(super) ja: bool,
    pub(super) event: Event,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

pub(super) struct GroupBuild {
    pub(super) scope: &'static str,
    pub(super) pathway: VisitKind,
    pub(super) members: Vec<(ReceiptId, Millis, PlantedCopy)>,
}

pub(super) struct Generator {
    pub(super) rng: ChaCha8Rng,
    pub(super) now: Millis,
    pub(super) start: Millis,
    pub(super) end: Millis,
    pub(super) target: usize,
    /// Cumulative activity weight at the end of each hour from `start`.
    pub(super) cumulative: Vec<f64>,
    pub(super) heap: BinaryHeap<Reverse<Pending>>,
    pub(super) seq: u64,
    pub(super) out: SyncSender<PlanStep>,
    /// The writer stopped listening (it failed): stop planning.
    pub(super) stopped: bool,
    pub(super) groups: usize,
    pub(super) follow_ups: usize,
    pub(super) conflicts: usize,
    pub(super) retries: usize,
    pub(super) bot_campaigns: usize,
    pub(super) profile: Profile,
}

impl Generator {
    pub(super) fn new(opts: &DemoOptions, out: SyncSender<PlanStep>) -> Self {
        let mix = opts.seed ^ (opts.now_ms as u64).rotate_left(29) ^ 0x5eed_7ec3_1e7a_1c0d;
        let end = opts.now_ms - END_MARGIN;
        let days = (opts.receipts.div_ceil(PER_DAY) as i64).clamp(MIN_DAYS, MAX_DAYS);
        let start = end - days * DAY;
        let hours = (days * 24) as usize;
        let mut cumulative = Vec::with_capacity(hours);
        let mut total = 0.0;
        for h in 0..hours {
            total += activity(start + h as Millis * HOUR);
            cumulative.push(total);
        }
        Self {
            rng: ChaCha8Rng::seed_from_u64(mix),
            now: opts.now_ms,
            start,
            end,
            target: opts.receipts,
            cumulative,
            heap: BinaryHeap::new(),
            seq: 0,
            out,
            stopped: false,
            groups: 0,
            follow_ups: 0,
            conflicts: 0,
            retries: 0,
            bot_campaigns: 0,
            profile: Profile::demo(),
        }
    }

    pub(super) fn send(&mut self, msg: PlanStep) {
        if !self.stopped && self.out.send(msg).is_err() {
            self.stopped = true;
        }
    }

    /// The time at `progress` (0..1) of the main stream, following the daily rhythm.
    pub(super) fn time_at(&self, progress: f64) -> Millis {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let goal = progress.clamp(0.0, 1.0) * total;
        let i = self.cumulative.partition_point(|c| *c < goal);
        let i = i.min(self.cumulative.len() - 1);
        let before = if i == 0 { 0.0 } else { self.cumulative[i - 1] };
        let width = self.cumulative[i] - before;
        let frac = if width > 0.0 {
            (goal - before) / width
        } else {
            0.0
        };
        self.start + i as Millis * HOUR + (frac * HOUR as f64) as Millis
    }

    pub(super) fn push(&mut self, ja: bool, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse(Pending {
            at: event.at,
            seq: self.seq,
            ja,
            event,
        }));
    }

    pub(super) fn run(mut self) {
        let n = self.target;
        let (damaged_each, stuck, fresh) = if n >= 40 {
            (
                (n / 250_000).max(1),
                (n / 5_000).max(3),
                (n / 50_000).max(2),
            )
        } else {
            (0, 0, 0)
        };
        let main = n - 3 * damaged_each - stuck - fresh;
        self.plant_specials(damaged_each, stuck, fresh);

        let kinds: Vec<(VisitKind, u32)> = KIND_WEIGHTS.to_vec();
        let mut planned = 0usize;
        let mut last_t = self.start;
        while planned < main && !self.stopped {
            let mut kind = kinds.choose_weighted(&mut self.rng, |k| k.1).unwrap().0;
            if scenario::max_rows(kind) > main - planned {
                kind = VisitKind::Single;
            }
            let t = (self.time_at(planned as f64 / main as f64) + self.rng.random_range(0..20_000))
                .max(last_t)
                .min(self.end);
            last_t = t;
            self.flush_until(t);
            planned += self.plant(kind, t);
        }
        self.flush_until(Millis::MAX);
    }

    pub(super) fn scope(&mut self) -> &'static ScopeSpec {
        SCOPES.choose_weighted(&mut self.rng, |s| s.weight).unwrap()
    }

    /// Mostly the kind's home form (see [`scenario::home_of`]).
    pub(super) fn scope_for(&mut self, kind: VisitKind) -> &'static ScopeSpec {
        let home = scenario::home_of(kind)
            .filter(|_| self.rng.random_bool(scenario::HOME_SHARE))
            .and_then(|name| SCOPES.iter().find(|s| s.name == name));
        home.unwrap_or_else(|| self.scope())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn submit(
        &mut self,
        ja: bool,
        scope: &'static ScopeSpec,
        key: Option<String>,
        body: Rc<Map<String, Value>>,
        at: Millis,
        action: Action,
        tag: Tag,
    ) {
        self.push(
            ja,
            Event {
                at,
                scope: scope.name,
                key,
                body: Body::Json(body),
                action,
                tag,
            },
        );
    }

    pub(super) fn complete(&mut self) -> Action {
        Action::Complete {
            latency: scenario::latency(&mut self.rng),
        }
    }

    /// Plants one visit starting at `t`; returns the receipt rows it will write.
    pub(super) fn plant(&mut self, kind: VisitKind, t: Millis) -> usize {
        let scope = self.scope_for(kind);
        let typed = scope.inquiry(&mut self.rng);
        let keyed = self.rng.random_bool(scope.keyed);
        let mut visit = Visit::draw(
            &mut self.rng,
            kind,
            typed,
            scope.topic,
            keyed,
            &self.profile,
        );
        if t + visit.span() > self.end {
            // The visit would end after `now`: only its first request happened.
            visit.kind = VisitKind::Single;
            visit.attempts.truncate(1);
        }
        self.plant_visit(scope, &visit, t)
    }

    /// The visit's attempts as intake events, tagged with what they plant.
    fn plant_visit(&mut self, scope: &'static ScopeSpec, visit: &Visit, t: Millis) -> usize {
        let kind = visit.kind;
        let id = match kind {
            VisitKind::SecondClick
            | VisitKind::RetryNewKey
            | VisitKind::Reload
            | VisitKind::TwoHandlers
            | VisitKind::EditedResend => self.new_group(scope, kind),
            VisitKind::FollowUp => {
                self.send(PlanStep::NewFollowUp);
                self.follow_ups += 1;
                self.follow_ups - 1
            }
            VisitKind::FailedThenRetried => {
                self.send(PlanStep::NewRetry);
                self.retries += 1;
                self.retries - 1
            }
            VisitKind::BotCampaign | VisitKind::HoneypotBot => {
                self.send(PlanStep::NewBotCampaign);
                self.bot_campaigns += 1;
                self.bot_campaigns - 1
            }
            VisitKind::KeyConflict => self.conflicts,
            VisitKind::Single | VisitKind::RetrySameKey => self.seq as usize,
        };
        let mut pages: Vec<(PageView, Option<String>)> = Vec::new();
        // Each attempt's key and body, for a repeat of it.
        let mut sent: Vec<SentRequest> = Vec::new();
        let mut rows = 0;
        for (i, a) in visit.attempts.iter().enumerate() {
            let at = t + a.after;
            let page = usize::from(a.page);
            while pages.len() <= page {
                let view = PageView::new(&mut self.rng);
                let key = new_key(&mut self.rng);
                pages.push((view, Some(key)));
            }
            let (key, body) = if a.content == Content::Repeat {
                sent.last().cloned().expect("a repeat follows a request")
            } else {
                let key = match a.key {
                    KeyUse::Page => pages[page].1.clone(),
                    KeyUse::Click => Some(new_key(&mut self.rng)),
                    KeyUse::None => None,
                };
                let map = scenario::payload(
                    &mut self.rng,
                    scope,
                    &a.typed,
                    &a.content,
                    &pages[page].0,
                    at,
                );
                (key, Rc::new(map))
            };
            if kind == VisitKind::KeyConflict && i == 0 {
                self.conflicts += 1;
                self.send(PlanStep::NewConflict(PlantedConflict {
                    receipt_id: 0,
                    scope: scope.name.to_string(),
                    request_key: key.clone().unwrap_or_default(),
                    attempts: 0,
                }));
            }
            // The same page's key sent again with another body.
            let conflicting = a.key == KeyUse::Page
                && a.content != Content::Repeat
                && visit.attempts[..i]
                    .iter()
                    .any(|b| b.page == a.page && b.key == KeyUse::Page);
            let failed_before = i > 0 && visit.attempts[i - 1].fails;
            let action = if a.fails {
                Action::Fail {
                    latency: scenario::latency(&mut self.rng),
                }
            } else if a.content == Content::Repeat && failed_before {
                Action::ExpectReclaim {
                    latency: scenario::latency(&mut self.rng),
                }
            } else if a.content == Content::Repeat {
                Action::ExpectReplay
            } else if conflicting {
                Action::ExpectConflict
            } else if let Content::Bot { .. } = a.content {
                Action::Complete { latency: 40 }
            } else {
                self.complete()
            };
            let tag = match (kind, &a.content) {
                (_, Content::Repeat) if failed_before => Tag::Reclaim { retry: id },
                (_, Content::Repeat) => Tag::Replayed { scenario: id },
                (VisitKind::KeyConflict, _) if i == 0 => Tag::Conflict { conflict: id },
                (VisitKind::KeyConflict, _) => Tag::ConflictAttempt { conflict: id },
                (VisitKind::FailedThenRetried, _) => Tag::FailedFirst { retry: id },
                (VisitKind::FollowUp, _) => Tag::FollowUp { pair: id },
                (_, Content::Bot { honeypot }) => Tag::Bot {
                    campaign: id,
                    honeypot: honeypot.is_some() && scope.honeypot.is_some(),
                },
                (
                    VisitKind::SecondClick
                    | VisitKind::RetryNewKey
                    | VisitKind::Reload
                    | VisitKind::TwoHandlers
                    | VisitKind::EditedResend,
                    content,
                ) => Tag::Group {
                    group: id,
                    copy: PlantedCopy::of(content),
                },
                _ => Tag::Single,
            };
            if matches!(
                action,
                Action::Complete { .. } | Action::Fail { .. } | Action::LeaveInFlight
            ) {
                rows += 1;
            }
            let ja = a.typed.lang() == TextLang::Ja && !matches!(a.content, Content::Bot { .. });
            sent.push((key.clone(), body.clone()));
            self.submit(ja, scope, key, body, at, action, tag);
        }
        rows
    }

    /// Stuck and fresh in-flight receipts and damaged rows, at their own times.
    pub(super) fn plant_specials(&mut self, damaged_each: usize, stuck: usize, fresh: usize) {
        for i in 0..stuck {
            let age = if i % 3 == 0 {
                self.rng.random_range(6 * MINUTE..2 * HOUR)
            } else {
                self.rng.random_range(2 * HOUR..3 * DAY)
            };
            self.in_flight(self.now - age, Tag::Stuck);
        }
        for _ in 0..fresh {
            let age = self.rng.random_range(10_000..4 * MINUTE);
            self.in_flight(self.now - age, Tag::Fresh);
        }
        for reason in [
            DamageReason::Payload,
            DamageReason::Time,
            DamageReason::Digest,
        ] {
            for _ in 0..damaged_each {
                let progress = self.rng.random_range(0.05..0.95);
                let at = self.time_at(progress) + self.rng.random_range(0..MINUTE);
                self.damaged(reason, at);
            }
        }
    }

    /// A new visitor of any form and the payload of their one submission at `at`.
    fn lone_submission(&mut self, at: Millis) -> (&'static ScopeSpec, Inquiry, Map<String, Value>) {
        let scope = self.scope();
        let inquiry = scope.inquiry(&mut self.rng);
        let page = PageView::new(&mut self.rng);
        let map = scenario::payload(
            &mut self.rng,
            scope,
            &inquiry,
            &Content::Original,
            &page,
            at,
        );
        (scope, inquiry, map)
    }

    pub(super) fn in_flight(&mut self, at: Millis, tag: Tag) {
        let (scope, inquiry, map) = self.lone_submission(at);
        let ja = inquiry.lang() == TextLang::Ja;
        let body = Rc::new(map);
        let key = if self.rng.random_bool(0.8) {
            Some(new_key(&mut self.rng))
        } else {
            None
        };
        self.submit(ja, scope, key, body, at, Action::LeaveInFlight, tag);
    }

    pub(super) fn damaged(&mut self, reason: DamageReason, at: Millis) {
        let (scope, inquiry, map) = self.lone_submission(at);
        let ja = inquiry.lang() == TextLang::Ja;
        let text = canonical(&map).expect("generated payloads are canonical");
        let (payload, digest, created_at) = match reason {
            DamageReason::Payload => {
                // A legacy handler stored the form-encoded body instead of JSON.
                let body = format!(
                    "name={}&email={}&message={}",
                    inquiry.visitor.name.replace(' ', "+"),
                    inquiry.visitor.email.replace('@', "%40"),
                    inquiry.message.chars().take(40).collect::<String>()
                );
                let digest = sha256_hex(&body);
                (body, digest, format_rfc3339(at))
            }
            DamageReason::Time => {
                let created = [
                    "Sun, 29 Nov 2026 10:15:30 GMT".to_string(),
                    "29/11/2026 10:15".to_string(),
                    "yesterday".to_string(),
                    String::new(),
                ]
                .choose(&mut self.rng)
                .unwrap()
                .clone();
                let digest = sha256_hex(&text);
                (text, digest, created)
            }
            _ => {
                // Someone fixed a typo in the payload by hand and left the digest.
                let digest = sha256_hex(&text);
                let edited = text.replacen("\"name\":\"", "\"name\":\" ", 1);
                (edited, digest, format_rfc3339(at))
            }
        };
        self.push(
            ja,
            Event {
                at,
                scope: scope.name,
                key: None,
                body: Body::Raw {
                    payload,
                    digest,
                    created_at,
                },
                action: Action::Complete { latency: 0 },
                tag: Tag::Damaged(reason),
            },
        );
    }

    pub(super) fn new_group(&mut self, scope: &'static ScopeSpec, pathway: VisitKind) -> usize {
        self.send(PlanStep::NewGroup {
            scope: scope.name,
            pathway,
        });
        self.groups += 1;
        self.groups - 1
    }

    /// Sends every event due by `t`, in time order, canonicalised.
    pub(super) fn flush_until(&mut self, t: Millis) {
        while let Some(Reverse(top)) = self.heap.peek() {
            if top.at > t || self.stopped {
                break;
            }
            let Reverse(p) = self.heap.pop().expect("peeked");
            let ev = p.event;
            let body = match ev.body {
                Body::Json(map) => ReadyBody::Submission(
                    Submission::new(ev.scope, ev.key.as_deref(), &map).map_err(|e| e.to_string()),
                ),
                Body::Raw {
                    payload,
                    digest,
                    created_at,
                } => ReadyBody::Raw {
                    payload,
                    digest,
                    created_at,
                },
            };
            self.send(PlanStep::Event(Ready {
                at: ev.at,
                ja: p.ja,
                scope: ev.scope,
                body,
                action: ev.action,
                tag: ev.tag,
            }));
        }
    }
}

/// Relative submission activity in the hour starting at `at` (Japan time: quiet nights, busy
/// office hours, quieter weekends).
pub(super) fn activity(at: Millis) -> f64 {
    let Some(utc) = chrono::DateTime::from_timestamp_millis(at) else {
        return 1.0;
    };
    let jst = utc + chrono::Duration::hours(9);
    let hour = match jst.hour() {
        0..=6 => 0.15,
        7..=8 => 0.6,
        9..=11 => 1.5,
        12 => 1.0,
        13..=17 => 1.5,
        18..=21 => 0.9,
        _ => 0.4,
    };
    let weekend = matches!(jst.weekday(), chrono::Weekday::Sat | chrono::Weekday::Sun);
    if weekend { hour * 0.6 } else { hour }
}
