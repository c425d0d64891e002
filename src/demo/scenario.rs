//! The demo's side of the traffic model ([`crate::traffic`]): its forms, its mix of visits,
//! and the intake events a visit's attempts become.

use std::rc::Rc;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use crate::model::Millis;
use crate::model::time::format_rfc3339;
use crate::traffic::page::{Click, PageView};
use crate::traffic::texts::{TextLang, Topic};
use crate::traffic::{Content, Dropped, FieldRole, Inquiry, VisitKind};
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

impl ScopeSpec {
    /// A new visitor of this form and what they typed.
    pub fn inquiry(&self, rng: &mut ChaCha8Rng) -> Inquiry {
        let lang = if rng.random_bool(self.japanese) {
            TextLang::Ja
        } else {
            TextLang::En
        };
        Inquiry::new(rng, lang, self.topic)
    }
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

/// How a planted copy's visitor fields relate to its group's first copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantedCopy {
    Whole,
    /// About half the visitor fields empty or missing.
    Half,
    /// The message edited.
    Edited,
}

impl PlantedCopy {
    pub fn of(content: &Content) -> Self {
        match content {
            Content::Half(_) => PlantedCopy::Half,
            Content::Edited | Content::SecondMessage => PlantedCopy::Edited,
            Content::Original | Content::Repeat | Content::Bot { .. } => PlantedCopy::Whole,
        }
    }
}

/// Why an event is there: used to fill the summary.
#[derive(Clone, Debug)]
pub enum Tag {
    Single,
    Group { group: usize, copy: PlantedCopy },
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

/// The JSON payload of one attempt: visitor fields plus the page's additions (a bot sends its
/// fields and the honeypot alone).
pub fn payload(
    rng: &mut ChaCha8Rng,
    scope: &ScopeSpec,
    typed: &Inquiry,
    content: &Content,
    page: &PageView,
    at: Millis,
) -> Map<String, Value> {
    let mut map = Map::new();
    if let Content::Bot { honeypot } = content {
        for role in [
            FieldRole::Name,
            FieldRole::Email,
            FieldRole::Subject,
            FieldRole::Message,
        ] {
            map.insert(role.field_name().into(), typed.value(role).into());
        }
        if let Some(hp) = scope.honeypot {
            map.insert(hp.into(), honeypot.clone().unwrap_or_default().into());
        }
        return map;
    }
    let dropped: &[Dropped] = match content {
        Content::Half(dropped) => dropped,
        _ => &[],
    };
    for role in FieldRole::CONTACT {
        match dropped.iter().find(|d| d.role == role) {
            Some(d) if d.sent_empty => {
                map.insert(role.field_name().into(), Value::String(String::new()));
            }
            Some(_) => {}
            None => {
                map.insert(role.field_name().into(), typed.value(role).into());
            }
        }
    }
    let click = Click::new(rng, at);
    map.insert("event_id".into(), Value::String(click.event_id));
    map.insert(
        "submitted_at".into(),
        Value::String(format_rfc3339(click.clicked_at)),
    );
    map.insert("_csrf".into(), Value::String(page.csrf.clone()));
    if scope.session {
        map.insert("session_id".into(), Value::String(page.session.clone()));
    }
    if let Some(utm) = page.utm {
        map.insert("utm_source".into(), Value::String(utm.into()));
    }
    // The second handler only picked up some inputs, the honeypot not among them.
    if dropped.is_empty()
        && let Some(hp) = scope.honeypot
    {
        map.insert(hp.into(), Value::String(String::new()));
    }
    map
}

/// The demo's mix of visits, each kind with its weight (per 10 000 visits).
pub const KIND_WEIGHTS: &[(VisitKind, u32)] = &[
    (VisitKind::Single, 7_850),
    (VisitKind::SecondClick, 450),
    (VisitKind::RetryNewKey, 200),
    (VisitKind::RetrySameKey, 300),
    (VisitKind::Reload, 250),
    (VisitKind::TwoHandlers, 200),
    (VisitKind::EditedResend, 150),
    (VisitKind::FollowUp, 200),
    (VisitKind::KeyConflict, 150),
    (VisitKind::BotCampaign, 100),
    (VisitKind::FailedThenRetried, 150),
];

/// The share of a kind's scenarios planted in its home form (the rest go
/// to any form by weight).
pub const HOME_SHARE: f64 = 0.85;

/// The form where most scenarios of a kind happen, so that the Forms view
/// names one pathway per form: two handlers post the corporate contact form
/// (and bots find it), the AI landing page mints a key per click, the
/// recovery page sends no key and is reloaded, the shop's support form is
/// corrected and resent, and its keys absorb the retries.
pub fn home_of(kind: VisitKind) -> Option<&'static str> {
    match kind {
        VisitKind::TwoHandlers | VisitKind::BotCampaign => Some("corp.example/contact"),
        VisitKind::SecondClick | VisitKind::RetryNewKey => Some("lp/ai-web"),
        VisitKind::Reload => Some("lp/recovery"),
        VisitKind::EditedResend | VisitKind::RetrySameKey => Some("shop.example/support"),
        _ => None,
    }
}

/// Receipt rows a scenario of this kind writes at most (bots: up to 6 senders).
pub fn max_rows(kind: VisitKind) -> usize {
    match kind {
        VisitKind::Single
        | VisitKind::RetrySameKey
        | VisitKind::KeyConflict
        | VisitKind::FailedThenRetried => 1,
        VisitKind::SecondClick => 3,
        VisitKind::BotCampaign => 6,
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
