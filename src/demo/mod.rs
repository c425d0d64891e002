//! The demo database: a realistic receipts database written through the intake protocol.
//!
//! Japanese and English contact-form inquiries over several scopes, spread over the days before
//! `now`, with every pathway of seed 004 planted in realistic proportions (second clicks,
//! retries with a new or the same key, reloads, two handlers, bots, genuine follow-ups, edited
//! resends), key conflicts, stuck and fresh in-flight receipts and a few damaged rows. Two weeks
//! of intake, or more days for a big demo (about 2 500 receipts a day).
//! [`generate`] returns a [`DemoSummary`] of what it planted, so the analysis can be checked
//! against it. Same `(seed, now_ms)`, same rows.

pub mod scenario;
pub mod texts;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::path::Path;
use std::rc::Rc;
use std::sync::mpsc::{self, SyncSender};

use anyhow::{Context, bail};
use chrono::{Datelike, Timelike};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, params};
use serde_json::{Map, Value};

use crate::intake::canonical::{canonical, sha256_hex};
use crate::intake::store::{BulkWrite, Claim, IntakeStore, StoreError, Submission, SubmitError};
use crate::model::time::format_rfc3339;
use crate::model::{Millis, ReceiptId};
use crate::triage::model::{DamageReason, GapClass, MatchKind};
use scenario::{
    Action, Body, Content, Event, Inquiry, KIND_WEIGHTS, PageView, Pathway, SCOPES, ScenarioKind,
    ScopeSpec, Tag,
};

const MINUTE: Millis = 60_000;
const HOUR: Millis = 60 * MINUTE;
const DAY: Millis = 24 * HOUR;
/// The main stream covers at least two weeks, ending `END_MARGIN` before `now`; larger demos
/// cover more days (about `PER_DAY` receipts a day, like a busy shared intake), so that copies
/// by chance stay as rare as they are in life.
const MIN_DAYS: i64 = 14;
const MAX_DAYS: i64 = 730;
const PER_DAY: usize = 2_500;
const END_MARGIN: Millis = 30 * MINUTE;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoOptions {
    /// Rows in `receipts` (exactly).
    pub receipts: usize,
    pub seed: u64,
    /// The simulated "now": every row is older than this.
    pub now_ms: Millis,
}

/// A planted duplicate group's member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedMember {
    pub id: ReceiptId,
    pub at_ms: Millis,
    /// As the analysis should mark it: the earliest copy is `Exact`.
    pub match_kind: MatchKind,
}

/// Copies of one inquiry that the analysis should group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedGroup {
    pub scope: String,
    pub pathway: Pathway,
    /// The class of the largest gap.
    pub class: GapClass,
    /// Earliest first.
    pub members: Vec<PlantedMember>,
    pub gaps_ms: Vec<Millis>,
}

impl PlantedGroup {
    /// `Exact` when every member is exact, else the kind of its near member(s).
    pub fn match_kind(&self) -> MatchKind {
        self.members
            .iter()
            .map(|m| m.match_kind)
            .find(|k| *k != MatchKind::Exact)
            .unwrap_or(MatchKind::Exact)
    }

    pub fn receipt_ids(&self) -> Vec<ReceiptId> {
        self.members.iter().map(|m| m.id).collect()
    }
}

/// A receipt whose key came back with another body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedConflict {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub request_key: String,
    /// Rows in `key_conflicts` for it.
    pub attempts: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedDamage {
    pub receipt_id: ReceiptId,
    pub reason: DamageReason,
}

/// What [`generate`] planted. Every list is in ascending receipt id order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DemoSummary {
    /// Rows in `receipts`.
    pub receipts: usize,
    /// Receipts of Japanese inquiries.
    pub japanese_receipts: usize,
    /// Rows in `replays` (retries with the same key, absorbed).
    pub replays: usize,
    /// Duplicate groups the analysis should find (ordered by earliest member id).
    pub groups: Vec<PlantedGroup>,
    /// The same visitor writing again hours later: must NOT be grouped.
    pub follow_ups: Vec<(ReceiptId, ReceiptId)>,
    pub conflicts: Vec<PlantedConflict>,
    /// `in_flight`, older than 5 minutes at `now`.
    pub stuck: Vec<ReceiptId>,
    /// `in_flight`, younger than 5 minutes at `now`: not stuck yet.
    pub fresh_in_flight: Vec<ReceiptId>,
    /// Every receipt of a bot campaign (one body, three or more senders, within minutes).
    pub bots: Vec<ReceiptId>,
    /// The bot receipts whose honeypot field is filled.
    pub honeypot_filled: Vec<ReceiptId>,
    pub bot_campaigns: usize,
    /// Receipts that failed once and were re-claimed by a retry with the same key and body.
    pub reclaimed: Vec<ReceiptId>,
    pub damaged: Vec<PlantedDamage>,
}

impl DemoSummary {
    /// Planted groups of a class and/or match kind (`None`: any).
    pub fn group_count(&self, class: Option<GapClass>, kind: Option<MatchKind>) -> usize {
        self.groups
            .iter()
            .filter(|g| class.is_none_or(|c| g.class == c))
            .filter(|g| kind.is_none_or(|k| g.match_kind() == k))
            .count()
    }

    /// Planted groups that came from one pathway.
    pub fn pathway_count(&self, pathway: Pathway) -> usize {
        self.groups.iter().filter(|g| g.pathway == pathway).count()
    }

    /// Rows in `key_conflicts`.
    pub fn key_conflict_rows(&self) -> usize {
        self.conflicts.iter().map(|c| c.attempts).sum()
    }

    pub fn damaged_count(&self, reason: DamageReason) -> usize {
        self.damaged.iter().filter(|d| d.reason == reason).count()
    }
}

/// Writes a demo database to `path`, which must not exist or be empty.
pub fn generate(path: &Path, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    if let Ok(meta) = std::fs::metadata(path)
        && meta.len() > 0
    {
        bail!(
            "{} already exists and is not empty; the demo writes only to a new file",
            path.display()
        );
    }
    let result = write(path, opts);
    if result.is_err() {
        // The file was new (or empty): leave nothing half-written behind.
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
    result
}

fn write(path: &Path, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let conn =
        Connection::open(path).with_context(|| format!("cannot create {}", path.display()))?;
    // Loading: a memory journal and no syncs; the file switches to WAL when done.
    conn.execute_batch(
        "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; \
         PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;",
    )?;
    let mut store = IntakeStore::new(conn)?;
    store.create_schema()?;
    let summary = store.bulk(|batch| load(batch, opts))?;
    let conn = store.into_connection();
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        bail!("could not switch {} to WAL mode ({mode})", path.display());
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA optimize;")?;
    conn.close().map_err(|(_, e)| e)?;
    Ok(summary)
}

/// Plans on a second thread (texts, payloads, canonical form, digests) while this one writes:
/// the planner owns the random generator, so the rows do not depend on thread timing.
fn load(batch: &BulkWrite<'_>, opts: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let (tx, rx) = mpsc::sync_channel::<PlanStep>(4_096);
    let mut recorder = Recorder::default();
    std::thread::scope(|scope| {
        let planner = scope.spawn(move || Generator::new(opts, tx).run());
        let mut outcome = Ok(());
        for msg in rx.iter() {
            if let Err(e) = recorder.take(batch, msg) {
                outcome = Err(e);
                break;
            }
        }
        // Dropping the receiver stops a planner that is still sending.
        drop(rx);
        planner
            .join()
            .map_err(|_| anyhow::anyhow!("the demo planner panicked"))?;
        outcome
    })?;
    Ok(recorder.finish())
}

/// What the planner tells the writer, in order.
enum PlanStep {
    /// A duplicate group is planted; its index is the count of earlier `NewGroup`s.
    NewGroup {
        scope: &'static str,
        pathway: Pathway,
    },
    NewFollowUp,
    NewConflict(PlantedConflict),
    NewRetry,
    NewBotCampaign,
    /// An event, in time order.
    Event(Ready),
}

/// An event ready for the intake: the payload already checked and canonicalised.
struct Ready {
    at: Millis,
    ja: bool,
    scope: &'static str,
    body: ReadyBody,
    action: Action,
    tag: Tag,
}

enum ReadyBody {
    Submission(Result<Submission, String>),
    Raw {
        payload: String,
        digest: String,
        created_at: String,
    },
}

/// An event waiting for its time.
struct Pending {
    at: Millis,
    seq: u64,
    ja: bool,
    event: Event,
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

struct GroupBuild {
    scope: &'static str,
    pathway: Pathway,
    members: Vec<(ReceiptId, Millis, Content)>,
}

struct Generator {
    rng: ChaCha8Rng,
    now: Millis,
    start: Millis,
    end: Millis,
    target: usize,
    /// Cumulative activity weight at the end of each hour from `start`.
    cumulative: Vec<f64>,
    heap: BinaryHeap<Reverse<Pending>>,
    seq: u64,
    out: SyncSender<PlanStep>,
    /// The writer stopped listening (it failed): stop planning.
    stopped: bool,
    groups: usize,
    follow_ups: usize,
    conflicts: usize,
    retries: usize,
    bot_campaigns: usize,
}

impl Generator {
    fn new(opts: &DemoOptions, out: SyncSender<PlanStep>) -> Self {
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
        }
    }

    fn send(&mut self, msg: PlanStep) {
        if !self.stopped && self.out.send(msg).is_err() {
            self.stopped = true;
        }
    }

    /// The time at `progress` (0..1) of the main stream, following the daily rhythm.
    fn time_at(&self, progress: f64) -> Millis {
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

    fn push(&mut self, ja: bool, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse(Pending {
            at: event.at,
            seq: self.seq,
            ja,
            event,
        }));
    }

    fn run(mut self) {
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

        let kinds: Vec<(ScenarioKind, u32)> = KIND_WEIGHTS.to_vec();
        let mut planned = 0usize;
        let mut last_t = self.start;
        while planned < main && !self.stopped {
            let mut kind = kinds.choose_weighted(&mut self.rng, |k| k.1).unwrap().0;
            if scenario::max_rows(kind) > main - planned {
                kind = ScenarioKind::Single;
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

    fn scope(&mut self) -> &'static ScopeSpec {
        SCOPES.choose_weighted(&mut self.rng, |s| s.weight).unwrap()
    }

    /// Mostly the kind's home form (see [`scenario::home_of`]).
    fn scope_for(&mut self, kind: ScenarioKind) -> &'static ScopeSpec {
        let home = scenario::home_of(kind)
            .filter(|_| self.rng.random_bool(scenario::HOME_SHARE))
            .and_then(|name| SCOPES.iter().find(|s| s.name == name));
        home.unwrap_or_else(|| self.scope())
    }

    fn key_for(&mut self, scope: &ScopeSpec) -> Option<String> {
        self.rng
            .random_bool(scope.keyed)
            .then(|| scenario::new_key(&mut self.rng))
    }

    fn json(
        &mut self,
        scope: &'static ScopeSpec,
        inquiry: &Inquiry,
        page: &PageView,
        at: Millis,
        content: Content,
    ) -> Rc<Map<String, Value>> {
        Rc::new(scenario::payload(
            &mut self.rng,
            scope,
            inquiry,
            page,
            at,
            content,
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn submit(
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

    fn complete(&mut self) -> Action {
        Action::Complete {
            latency: scenario::latency(&mut self.rng),
        }
    }

    /// Plants one scenario starting at `t`; returns the receipt rows it will write.
    fn plant(&mut self, kind: ScenarioKind, t: Millis) -> usize {
        let scope = self.scope_for(kind);
        let inquiry = Inquiry::new(&mut self.rng, scope);
        let ja = inquiry.visitor.lang == texts::Lang::Ja;
        let page = PageView::new(&mut self.rng);
        match kind {
            ScenarioKind::Single => {
                let body = self.json(scope, &inquiry, &page, t, Content::Original);
                let key = self.key_for(scope);
                let action = self.complete();
                self.submit(ja, scope, key, body, t, action, Tag::Single);
                1
            }
            ScenarioKind::SecondClick | ScenarioKind::RetryNewKey | ScenarioKind::Reload => {
                let (pathway, copies) = match kind {
                    ScenarioKind::SecondClick => {
                        let copies = if self.rng.random_bool(0.2) { 3 } else { 2 };
                        (Pathway::SecondClick, copies)
                    }
                    ScenarioKind::RetryNewKey => (Pathway::RetryNewKey, 2),
                    _ => (Pathway::Reload, 2),
                };
                let group = self.new_group(scope, pathway);
                let keyed = self.rng.random_bool(scope.keyed);
                let mut at = t;
                for i in 0..copies {
                    if i > 0 {
                        at += match pathway {
                            Pathway::SecondClick => self.rng.random_range(1_200..5_000),
                            Pathway::RetryNewKey => self.rng.random_range(2_000..40_000),
                            _ => self.rng.random_range(75_000..9 * MINUTE),
                        };
                    }
                    let body = self.json(scope, &inquiry, &page, at, Content::Original);
                    let key = keyed.then(|| scenario::new_key(&mut self.rng));
                    let action = self.complete();
                    let tag = Tag::Group {
                        group,
                        content: Content::Original,
                    };
                    self.submit(ja, scope, key, body, at, action, tag);
                }
                copies
            }
            ScenarioKind::TwoHandlers => {
                let group = self.new_group(scope, Pathway::TwoHandlers);
                let gap = self.rng.random_range(0..900);
                let half_first = self.rng.random_bool(0.4);
                for (i, content) in [Content::Original, Content::Half].into_iter().enumerate() {
                    let first = (i == 0) != half_first;
                    let at = if first { t } else { t + gap };
                    let body = self.json(scope, &inquiry, &page, at, content);
                    let key = self.key_for(scope);
                    let action = self.complete();
                    self.submit(
                        ja,
                        scope,
                        key,
                        body,
                        at,
                        action,
                        Tag::Group { group, content },
                    );
                }
                2
            }
            ScenarioKind::EditedResend => {
                let group = self.new_group(scope, Pathway::EditedResend);
                let keyed = self.rng.random_bool(scope.keyed);
                let body = self.json(scope, &inquiry, &page, t, Content::Original);
                let key = keyed.then(|| scenario::new_key(&mut self.rng));
                let action = self.complete();
                let tag = Tag::Group {
                    group,
                    content: Content::Original,
                };
                self.submit(ja, scope, key, body, t, action, tag);
                let mut edited = inquiry.clone();
                let lang = inquiry.visitor.lang;
                // The message is the free-text field; a subject line is too short for
                // "a few words" to be a small change.
                edited.message = texts::edit_text(&mut self.rng, lang, &inquiry.message);
                let at = t + self.rng.random_range(20_000..8 * MINUTE);
                let body = self.json(scope, &edited, &page, at, Content::Edited);
                let key = keyed.then(|| scenario::new_key(&mut self.rng));
                let action = self.complete();
                let tag = Tag::Group {
                    group,
                    content: Content::Edited,
                };
                self.submit(ja, scope, key, body, at, action, tag);
                2
            }
            ScenarioKind::RetrySameKey => {
                let body = self.json(scope, &inquiry, &page, t, Content::Original);
                let key = scenario::new_key(&mut self.rng);
                let action = self.complete();
                let scenario_id = self.seq as usize;
                self.submit(
                    ja,
                    scope,
                    Some(key.clone()),
                    body.clone(),
                    t,
                    action,
                    Tag::Single,
                );
                let mut at = t;
                for _ in 0..self.rng.random_range(1..3) {
                    // The response was lost: the page posts the very same request again.
                    at += self.rng.random_range(2_000..30_000);
                    self.submit(
                        ja,
                        scope,
                        Some(key.clone()),
                        body.clone(),
                        at,
                        Action::ExpectReplay,
                        Tag::Replayed {
                            scenario: scenario_id,
                        },
                    );
                }
                1
            }
            ScenarioKind::FollowUp => {
                let delay = self.rng.random_range(2 * HOUR..30 * HOUR);
                if t + delay > self.end {
                    return self.plant(ScenarioKind::Single, t);
                }
                let pair = self.follow_ups;
                self.follow_ups += 1;
                self.send(PlanStep::NewFollowUp);
                let body = self.json(scope, &inquiry, &page, t, Content::Original);
                let key = self.key_for(scope);
                let action = self.complete();
                self.submit(ja, scope, key, body, t, action, Tag::FollowUp { pair });
                let mut again = inquiry.clone();
                if self.rng.random_bool(0.6) {
                    // No answer yet: a new message; otherwise the very same text again.
                    again.message = texts::message(&mut self.rng, &inquiry.visitor, scope.topic);
                }
                let page = PageView::new(&mut self.rng);
                let at = t + delay;
                let body = self.json(scope, &again, &page, at, Content::Original);
                let key = self.key_for(scope);
                let action = self.complete();
                self.submit(ja, scope, key, body, at, action, Tag::FollowUp { pair });
                2
            }
            ScenarioKind::Conflict => {
                let conflict = self.conflicts;
                self.conflicts += 1;
                let key = scenario::new_key(&mut self.rng);
                self.send(PlanStep::NewConflict(PlantedConflict {
                    receipt_id: 0,
                    scope: scope.name.to_string(),
                    request_key: key.clone(),
                    attempts: 0,
                }));
                let body = self.json(scope, &inquiry, &page, t, Content::Original);
                let action = self.complete();
                self.submit(
                    ja,
                    scope,
                    Some(key.clone()),
                    body,
                    t,
                    action,
                    Tag::Conflict { conflict },
                );
                let mut at = t;
                let attempts = if self.rng.random_bool(0.85) { 1 } else { 2 };
                let mut changed = inquiry.clone();
                for _ in 0..attempts {
                    // The page kept its key while the visitor changed the message.
                    at += self.rng.random_range(5_000..5 * MINUTE);
                    changed.message =
                        texts::edit_text(&mut self.rng, inquiry.visitor.lang, &changed.message);
                    let body = self.json(scope, &changed, &page, at, Content::Edited);
                    self.submit(
                        ja,
                        scope,
                        Some(key.clone()),
                        body,
                        at,
                        Action::ExpectConflict,
                        Tag::ConflictAttempt { conflict },
                    );
                }
                1
            }
            ScenarioKind::FailedThenRetried => {
                let retry = self.retries;
                self.retries += 1;
                self.send(PlanStep::NewRetry);
                let key = scenario::new_key(&mut self.rng);
                let body = self.json(scope, &inquiry, &page, t, Content::Original);
                let latency = scenario::latency(&mut self.rng);
                self.submit(
                    ja,
                    scope,
                    Some(key.clone()),
                    body.clone(),
                    t,
                    Action::Fail { latency },
                    Tag::FailedFirst { retry },
                );
                let at = t + latency + self.rng.random_range(30_000..20 * MINUTE);
                let latency = scenario::latency(&mut self.rng);
                self.submit(
                    ja,
                    scope,
                    Some(key),
                    body,
                    at,
                    Action::ExpectReclaim { latency },
                    Tag::Reclaim { retry },
                );
                1
            }
            ScenarioKind::Bots => self.plant_bots(scope, t),
        }
    }

    fn plant_bots(&mut self, scope: &'static ScopeSpec, t: Millis) -> usize {
        let campaign = self.bot_campaigns;
        self.bot_campaigns += 1;
        self.send(PlanStep::NewBotCampaign);
        let (subject, message) = texts::spam(&mut self.rng);
        let senders = self.rng.random_range(3..=6);
        let mut seen = HashSet::new();
        let mut at = t;
        for i in 0..senders {
            if i > 0 {
                at += self.rng.random_range(2_000..60_000);
            }
            let (name, email) = loop {
                let (name, email) = texts::spam_sender(&mut self.rng);
                if seen.insert(email.clone()) {
                    break (name, email);
                }
            };
            let honeypot = self.rng.random_bool(0.8);
            let mut map = Map::new();
            map.insert("name".into(), Value::String(name));
            map.insert("email".into(), Value::String(email));
            map.insert("subject".into(), Value::String(subject.clone()));
            map.insert("message".into(), Value::String(message.clone()));
            if let Some(hp) = scope.honeypot {
                let filled = if honeypot {
                    ["1", "http://spam.example/", "on", "yes"]
                        .choose(&mut self.rng)
                        .unwrap()
                        .to_string()
                } else {
                    String::new()
                };
                map.insert(hp.into(), Value::String(filled));
            }
            self.submit(
                false,
                scope,
                None,
                Rc::new(map),
                at,
                Action::Complete { latency: 40 },
                Tag::Bot { campaign, honeypot },
            );
        }
        senders
    }

    /// Stuck and fresh in-flight receipts and damaged rows, at their own times.
    fn plant_specials(&mut self, damaged_each: usize, stuck: usize, fresh: usize) {
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

    fn in_flight(&mut self, at: Millis, tag: Tag) {
        let scope = self.scope();
        let inquiry = Inquiry::new(&mut self.rng, scope);
        let ja = inquiry.visitor.lang == texts::Lang::Ja;
        let page = PageView::new(&mut self.rng);
        let body = self.json(scope, &inquiry, &page, at, Content::Original);
        let key = if self.rng.random_bool(0.8) {
            Some(scenario::new_key(&mut self.rng))
        } else {
            None
        };
        self.submit(ja, scope, key, body, at, Action::LeaveInFlight, tag);
    }

    fn damaged(&mut self, reason: DamageReason, at: Millis) {
        let scope = self.scope();
        let inquiry = Inquiry::new(&mut self.rng, scope);
        let ja = inquiry.visitor.lang == texts::Lang::Ja;
        let page = PageView::new(&mut self.rng);
        let map = scenario::payload(&mut self.rng, scope, &inquiry, &page, at, Content::Original);
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

    fn new_group(&mut self, scope: &'static ScopeSpec, pathway: Pathway) -> usize {
        self.send(PlanStep::NewGroup {
            scope: scope.name,
            pathway,
        });
        self.groups += 1;
        self.groups - 1
    }

    /// Sends every event due by `t`, in time order, canonicalised.
    fn flush_until(&mut self, t: Millis) {
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

/// The writer's side: runs events through the intake and records what they planted.
#[derive(Default)]
struct Recorder {
    groups: Vec<GroupBuild>,
    follow_ups: Vec<[Option<ReceiptId>; 2]>,
    conflicts: Vec<PlantedConflict>,
    bots: Vec<(ReceiptId, bool)>,
    bot_campaigns: usize,
    retries: Vec<Option<ReceiptId>>,
    summary: DemoSummary,
}

impl Recorder {
    fn take(&mut self, batch: &BulkWrite<'_>, msg: PlanStep) -> anyhow::Result<()> {
        match msg {
            PlanStep::NewGroup { scope, pathway } => self.groups.push(GroupBuild {
                scope,
                pathway,
                members: Vec::new(),
            }),
            PlanStep::NewFollowUp => self.follow_ups.push([None, None]),
            PlanStep::NewConflict(c) => self.conflicts.push(c),
            PlanStep::NewRetry => self.retries.push(None),
            PlanStep::NewBotCampaign => self.bot_campaigns += 1,
            PlanStep::Event(ready) => self.apply(batch, ready)?,
        }
        Ok(())
    }

    /// Runs one event through the intake and records what it planted.
    fn apply(&mut self, batch: &BulkWrite<'_>, ev: Ready) -> anyhow::Result<()> {
        let submission = match ev.body {
            ReadyBody::Raw {
                payload,
                digest,
                created_at,
            } => {
                batch.connection().execute(
                    "INSERT INTO receipts (scope, request_key, digest, payload, state, response, created_at, updated_at) \
                     VALUES (?1, NULL, ?2, ?3, 'completed', NULL, ?4, ?4)",
                    params![ev.scope, digest, payload, created_at],
                )?;
                let id = batch.connection().last_insert_rowid();
                self.count_row(ev.ja);
                if let Tag::Damaged(reason) = ev.tag {
                    self.summary.damaged.push(PlantedDamage {
                        receipt_id: id,
                        reason,
                    });
                }
                return Ok(());
            }
            ReadyBody::Submission(Ok(submission)) => submission,
            ReadyBody::Submission(Err(e)) => bail!("demo generator: an invalid submission: {e}"),
        };
        let unexpected = |what: &str, got: &dyn std::fmt::Debug| {
            anyhow::anyhow!(
                "demo generator: expected {what} at {}, got {got:?}",
                format_rfc3339(ev.at)
            )
        };
        let respond = |id: ReceiptId| -> Result<String, ()> {
            Ok(format!(
                "{{\"receipt_no\":\"R{id:07}\",\"status\":\"received\"}}"
            ))
        };
        let id = match ev.action {
            Action::Complete { latency } => {
                let s = batch
                    .submit_prepared(&submission, ev.at, ev.at + latency, respond)
                    .map_err(|e| unexpected("a new receipt", &e))?;
                if !matches!(s.claim, Claim::New { .. }) {
                    return Err(unexpected("a new receipt", &s.claim));
                }
                s.id
            }
            Action::LeaveInFlight => match batch.claim_prepared(&submission, ev.at)? {
                Claim::New { id } => id,
                other => return Err(unexpected("a new receipt", &other)),
            },
            Action::Fail { latency } => {
                match batch.submit_prepared(&submission, ev.at, ev.at + latency, |_| {
                    Err::<String, _>("mail relay timed out")
                }) {
                    Err(SubmitError::Action { id, .. }) => id,
                    other => return Err(unexpected("a failed action", &other)),
                }
            }
            Action::ExpectReplay => {
                match batch.claim_prepared(&submission, ev.at)? {
                    Claim::Replay { .. } => self.summary.replays += 1,
                    other => return Err(unexpected("a replay", &other)),
                }
                return Ok(());
            }
            Action::ExpectConflict => {
                match batch.claim_prepared(&submission, ev.at) {
                    Err(StoreError::Conflict { receipt_id, .. }) => {
                        if let Tag::ConflictAttempt { conflict } = ev.tag {
                            let c = &mut self.conflicts[conflict];
                            if c.receipt_id != receipt_id {
                                return Err(unexpected("the planted original", &receipt_id));
                            }
                            c.attempts += 1;
                        }
                    }
                    other => return Err(unexpected("a conflict", &other)),
                }
                return Ok(());
            }
            Action::ExpectReclaim { latency } => {
                let s = batch
                    .submit_prepared(&submission, ev.at, ev.at + latency, respond)
                    .map_err(|e| unexpected("a reclaim", &e))?;
                if !matches!(s.claim, Claim::Reclaimed { .. }) {
                    return Err(unexpected("a reclaim", &s.claim));
                }
                if let Tag::Reclaim { retry } = ev.tag
                    && self.retries[retry] == Some(s.id)
                {
                    self.summary.reclaimed.push(s.id);
                }
                return Ok(());
            }
        };
        self.count_row(ev.ja);
        match ev.tag {
            Tag::Group { group, content } => self.groups[group].members.push((id, ev.at, content)),
            Tag::FollowUp { pair } => {
                let slot = &mut self.follow_ups[pair];
                if slot[0].is_none() {
                    slot[0] = Some(id);
                } else {
                    slot[1] = Some(id);
                }
            }
            Tag::Conflict { conflict } => self.conflicts[conflict].receipt_id = id,
            Tag::Stuck => self.summary.stuck.push(id),
            Tag::Fresh => self.summary.fresh_in_flight.push(id),
            Tag::Bot { honeypot, .. } => self.bots.push((id, honeypot)),
            Tag::FailedFirst { retry } => self.retries[retry] = Some(id),
            Tag::Single
            | Tag::Replayed { .. }
            | Tag::ConflictAttempt { .. }
            | Tag::Reclaim { .. }
            | Tag::Damaged(_) => {}
        }
        Ok(())
    }

    fn count_row(&mut self, ja: bool) {
        self.summary.receipts += 1;
        if ja {
            self.summary.japanese_receipts += 1;
        }
    }

    fn finish(mut self) -> DemoSummary {
        let mut groups: Vec<PlantedGroup> = self
            .groups
            .into_iter()
            .filter(|g| g.members.len() >= 2)
            .map(|mut g| {
                g.members.sort_by_key(|m| (m.1, m.0));
                let first = g.members[0].2;
                let members: Vec<PlantedMember> = g
                    .members
                    .iter()
                    .map(|&(id, at_ms, content)| PlantedMember {
                        id,
                        at_ms,
                        match_kind: if content == first {
                            MatchKind::Exact
                        } else if content == Content::Half || first == Content::Half {
                            MatchKind::Partial
                        } else {
                            MatchKind::Edited
                        },
                    })
                    .collect();
                let gaps_ms: Vec<Millis> = members
                    .windows(2)
                    .map(|w| w[1].at_ms - w[0].at_ms)
                    .collect();
                let class = GapClass::of_gap(gaps_ms.iter().copied().max().unwrap_or(0));
                PlantedGroup {
                    scope: g.scope.to_string(),
                    pathway: g.pathway,
                    class,
                    members,
                    gaps_ms,
                }
            })
            .collect();
        groups.sort_by_key(|g| g.members[0].id);
        let s = &mut self.summary;
        s.groups = groups;
        s.follow_ups = self
            .follow_ups
            .iter()
            .filter_map(|p| Some((p[0]?, p[1]?)))
            .collect();
        s.follow_ups.sort();
        s.conflicts = self.conflicts;
        s.conflicts.sort_by_key(|c| c.receipt_id);
        self.bots.sort();
        s.bots = self.bots.iter().map(|b| b.0).collect();
        s.honeypot_filled = self.bots.iter().filter(|b| b.1).map(|b| b.0).collect();
        s.bot_campaigns = self.bot_campaigns;
        s.stuck.sort();
        s.fresh_in_flight.sort();
        s.reclaimed.sort();
        s.damaged.sort_by_key(|d| d.receipt_id);
        self.summary
    }
}

/// Relative submission activity in the hour starting at `at` (Japan time: quiet nights, busy
/// office hours, quieter weekends).
fn activity(at: Millis) -> f64 {
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
