//! Scenarios: what happened around one inquiry, as timed intake events (the pathways that make copies).

use std::rc::Rc;

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use super::texts::{self, TextLang, Topic, Visitor};
use crate::model::Millis;
use crate::model::time::format_rfc3339;
use crate::triage::model::DamageReason;

/// A form the intake serves.
pub struct ScopeSpec {
    pub name: &'static str,
    pub weight: u32,
    pub japanese: f64,
    /// Share of submissions that carry an idempotency key (the rest are keyless, legacy pages).
    pub keyed: f64,
    pub topic: Topic,
    /// The form's hidden honeypot field, sent empty by people.
    pub honeypot: Option<&'static str>,
    /// The page sends its session id along.
    pub session: bool,
}

pub const SCOPES: &[ScopeSpec] = &[
    ScopeSpec {
        name: "corp.example/contact",
        weight: 40,
        japanese: 0.7,
        keyed: 0.85,
        topic: Topic::Corporate,
        honeypot: Some("_gotcha"),
        session: true,
    },
    ScopeSpec {
        name: "lp/ai-web",
        weight: 25,
        japanese: 0.95,
        keyed: 0.9,
        topic: Topic::AiWeb,
        honeypot: Some("bot-field"),
        session: false,
    },
    ScopeSpec {
        name: "lp/recovery",
        weight: 15,
        japanese: 0.95,
        // A legacy page: most of its posts carry no key.
        keyed: 0.4,
        topic: Topic::Recovery,
        honeypot: Some("hp"),
        session: false,
    },
    ScopeSpec {
        name: "shop.example/support",
        weight: 20,
        japanese: 0.5,
        keyed: 0.8,
        topic: Topic::Shop,
        honeypot: Some("honeypot"),
        session: true,
    },
];

/// The pathways that make a planted duplicate group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlantedPathway {
    /// An exact copy 1-5 s later with a new key (the page makes a key per click).
    SecondClick,
    /// The page retried with a regenerated key: same visitor fields, new event id, seconds later.
    RetryNewKey,
    /// Reload or back button: a copy minutes later.
    Reload,
    /// Two handlers post the same form under 1 s apart; one copy has about half the fields.
    TwoHandlers,
    /// The visitor corrected a few words and sent again within the window.
    EditedResend,
}

impl PlantedPathway {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SecondClick => "second_click",
            Self::RetryNewKey => "retry_new_key",
            Self::Reload => "reload",
            Self::TwoHandlers => "two_handlers",
            Self::EditedResend => "edited_resend",
        }
    }
}

/// How a copy's visitor fields relate to the scenario's original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    Original,
    /// About half the visitor fields empty or missing.
    Half,
    /// One free-text field edited.
    Edited,
}

/// Why an event is there: used to fill the summary.
#[derive(Clone, Debug)]
pub enum Tag {
    Single,
    Group { group: usize, content: Content },
    FollowUp { pair: usize },
    Replayed { scenario: usize },
    Conflict { conflict: usize },
    ConflictAttempt { conflict: usize },
    Stuck,
    Fresh,
    Bot { campaign: usize, honeypot: bool },
    FailedFirst { retry: usize },
    Reclaim { retry: usize },
    Damaged(DamageReason),
}

/// What the intake does with the event.
#[derive(Clone, Debug)]
pub enum Action {
    /// Submit; the action succeeds `latency` ms later.
    Complete { latency: Millis },
    /// Claim only: the handler died or is still running.
    LeaveInFlight,
    /// Submit; the action fails `latency` ms later (the receipt becomes `failed`).
    Fail { latency: Millis },
    /// Same key and body as an earlier event: must be a replay.
    ExpectReplay,
    /// Same key, another body: must be a conflict.
    ExpectConflict,
    /// Same key and body as a failed receipt: must re-claim it, then succeed.
    ExpectReclaim { latency: Millis },
}

#[derive(Clone, Debug)]
pub enum Body {
    Json(Rc<Map<String, Value>>),
    /// A row written around the protocol (damaged): payload, digest and created_at as given.
    Raw {
        payload: String,
        digest: String,
        created_at: String,
    },
}

#[derive(Clone, Debug)]
pub struct Event {
    pub at: Millis,
    pub scope: &'static str,
    pub key: Option<String>,
    pub body: Body,
    pub action: Action,
    pub tag: Tag,
}

/// The browser-side context of one page view: what stays the same across clicks.
pub struct PageView {
    pub csrf: String,
    pub session: String,
    pub utm: Option<&'static str>,
}

impl PageView {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        Self {
            csrf: hex_token(rng, 24),
            session: hex_token(rng, 16),
            utm: [
                Some("google"),
                Some("yahoo"),
                Some("newsletter"),
                Some("x"),
                Some("facebook"),
                None,
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

pub fn hex_token(rng: &mut ChaCha8Rng, len: usize) -> String {
    const HEX: &[u8] = b"0123456789abcdef";
    (0..len)
        .map(|_| HEX[rng.random_range(0..16)] as char)
        .collect()
}

/// A fresh UUID-v4-shaped id.
pub fn uuid(rng: &mut ChaCha8Rng) -> String {
    let v: u128 = rng.random();
    let v = (v & !(0xf << 76) | (0x4 << 76)) & !(0x3 << 62) | (0x2 << 62);
    let h = format!("{v:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// A new idempotency key as a page would make one.
pub fn new_key(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..3) {
        0 => uuid(rng),
        1 => format!("sub_{}", hex_token(rng, 20)),
        _ => format!("{}-{}", hex_token(rng, 12), rng.random_range(0..1_000_000)),
    }
}

/// The visitor-typed fields of one inquiry.
#[derive(Clone, Debug)]
pub struct Inquiry {
    pub visitor: Visitor,
    pub subject: String,
    pub message: String,
}

impl Inquiry {
    pub fn new(rng: &mut ChaCha8Rng, scope: &ScopeSpec) -> Self {
        let lang = if rng.random_bool(scope.japanese) {
            TextLang::Ja
        } else {
            TextLang::En
        };
        let visitor = texts::visitor(rng, lang);
        let subject = texts::subject(rng, lang, scope.topic);
        let message = texts::message(rng, &visitor, scope.topic);
        Self {
            visitor,
            subject,
            message,
        }
    }
}

/// The JSON payload of one click: visitor fields plus the page's noise fields.
pub fn payload(
    rng: &mut ChaCha8Rng,
    scope: &ScopeSpec,
    inquiry: &Inquiry,
    page: &PageView,
    at: Millis,
    content: Content,
) -> Map<String, Value> {
    let v = &inquiry.visitor;
    let mut fields: Vec<(&str, String)> = vec![
        ("name", v.name.clone()),
        ("email", v.email.clone()),
        ("phone", v.phone.clone()),
        ("company", v.company.clone()),
        ("subject", inquiry.subject.clone()),
        ("message", inquiry.message.clone()),
    ];
    if content == Content::Half {
        // The second handler only picked up some inputs: blank or drop three of
        // name/phone/company/subject, keeping email and message.
        let mut droppable = vec![0usize, 2, 3, 4];
        let mut removed = Vec::new();
        for _ in 0..3 {
            let i = rng.random_range(0..droppable.len());
            removed.push(droppable.swap_remove(i));
        }
        for i in removed {
            if rng.random_bool(0.5) {
                fields[i].1.clear();
            } else {
                fields[i].0 = "";
            }
        }
    }
    let mut map = Map::new();
    for (k, val) in fields {
        if !k.is_empty() {
            map.insert(k.to_string(), Value::String(val));
        }
    }
    map.insert("event_id".into(), Value::String(uuid(rng)));
    // The browser's clock is a little off, and it stamps before sending.
    let skew = rng.random_range(-4_000..1_500);
    map.insert(
        "submitted_at".into(),
        Value::String(format_rfc3339(at + skew)),
    );
    map.insert("_csrf".into(), Value::String(page.csrf.clone()));
    if scope.session {
        map.insert("session_id".into(), Value::String(page.session.clone()));
    }
    if let Some(utm) = page.utm {
        map.insert("utm_source".into(), Value::String(utm.into()));
    }
    if content != Content::Half
        && let Some(hp) = scope.honeypot
    {
        map.insert(hp.into(), Value::String(String::new()));
    }
    map
}

/// The kinds of scenario, each with its weight (per 10 000 scenarios).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScenarioKind {
    Single,
    SecondClick,
    RetryNewKey,
    RetrySameKey,
    Reload,
    TwoHandlers,
    EditedResend,
    FollowUp,
    Conflict,
    Bots,
    FailedThenRetried,
}

pub const KIND_WEIGHTS: &[(ScenarioKind, u32)] = &[
    (ScenarioKind::Single, 7_850),
    (ScenarioKind::SecondClick, 450),
    (ScenarioKind::RetryNewKey, 200),
    (ScenarioKind::RetrySameKey, 300),
    (ScenarioKind::Reload, 250),
    (ScenarioKind::TwoHandlers, 200),
    (ScenarioKind::EditedResend, 150),
    (ScenarioKind::FollowUp, 200),
    (ScenarioKind::Conflict, 150),
    (ScenarioKind::Bots, 100),
    (ScenarioKind::FailedThenRetried, 150),
];

/// The share of a kind's scenarios planted in its home form (the rest go
/// to any form by weight).
pub const HOME_SHARE: f64 = 0.85;

/// The form where most scenarios of a kind happen, so that the Forms view
/// names one pathway per form: two handlers post the corporate contact form
/// (and bots find it), the AI landing page mints a key per click, the
/// recovery page sends no key and is reloaded, the shop's support form is
/// corrected and resent, and its keys absorb the retries.
pub fn home_of(kind: ScenarioKind) -> Option<&'static str> {
    match kind {
        ScenarioKind::TwoHandlers | ScenarioKind::Bots => Some("corp.example/contact"),
        ScenarioKind::SecondClick | ScenarioKind::RetryNewKey => Some("lp/ai-web"),
        ScenarioKind::Reload => Some("lp/recovery"),
        ScenarioKind::EditedResend | ScenarioKind::RetrySameKey => Some("shop.example/support"),
        _ => None,
    }
}

/// Receipt rows a scenario of this kind writes at most (bots: up to 6 senders).
pub fn max_rows(kind: ScenarioKind) -> usize {
    match kind {
        ScenarioKind::Single
        | ScenarioKind::RetrySameKey
        | ScenarioKind::Conflict
        | ScenarioKind::FailedThenRetried => 1,
        ScenarioKind::SecondClick => 3,
        ScenarioKind::Bots => 6,
        _ => 2,
    }
}

pub fn latency(rng: &mut ChaCha8Rng) -> Millis {
    if rng.random_bool(0.95) {
        rng.random_range(80..1_200)
    } else {
        rng.random_range(1_200..9_000)
    }
}
