//! The facts the triage engine works on, and what it finds.
//!
//! These types are the contract between storage (which reads rows), the engine
//! (pure functions, no I/O) and everything that shows a result (report, TUI).
//! Times are unix milliseconds, UTC, everywhere inside the program.

use serde::Serialize;
use std::sync::Arc;

use crate::i18n::Lang;
use crate::intake::canonical::{CanonicalError, json_kind_in};
use crate::model::time::TimeError;
use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::{sanitize, t};

/// The visitor-typed fields of a payload after normalisation: sorted by key,
/// noise fields removed, values NFKC + trimmed + white space folded + case
/// folded, empty values and nulls absent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VisitorFields(pub Vec<(String, String)>);

/// A receipt that passed inspection: the compact facts the engine needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Receipt {
    pub id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    /// SHA-256 hex of the canonical payload (stored, and verified).
    pub digest: String,
    pub state: ReceiptState,
    pub created_ms: Millis,
    pub updated_ms: Option<Millis>,
    pub visitor: VisitorFields,
    /// A honeypot field (`_gotcha`, `bot-field`, `honeypot`, `hp`) was filled in.
    pub honeypot_filled: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DamageReason {
    Payload,
    Time,
    Digest,
    State,
}

impl DamageReason {
    /// What people call it, in `lang` (`payload`, `本文`).
    pub fn label_in(self, lang: Lang) -> &'static str {
        match self {
            Self::Payload => t!(lang, "terms.damage.payload"),
            Self::Time => t!(lang, "terms.damage.time"),
            Self::Digest => t!(lang, "terms.damage.digest"),
            Self::State => t!(lang, "terms.damage.state"),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Payload => "payload",
            Self::Time => "time",
            Self::Digest => "digest",
            Self::State => "state",
        }
    }
}

/// A row that could not be analysed. It is listed, never silently skipped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Damaged {
    pub receipt_id: ReceiptId,
    pub reason: DamageReason,
    pub detail: DamageDetail,
}

/// The longest detail sentence, in characters.
pub const DETAIL_MAX: usize = 160;

/// What exactly is wrong with a damaged row, kept typed so that each language
/// can say it. It reads (derefs, serialises) as its English sentence, one
/// terminal-safe line: `report --json`'s `detail` does not depend on the
/// language; [`DamageDetail::message`] says it in any.
#[derive(Clone, Debug, PartialEq)]
pub struct DamageDetail {
    english: String,
    cause: DamageCause,
}

/// The causes a detail tells apart.
#[derive(Clone, Debug, PartialEq)]
pub enum DamageCause {
    /// The payload holds no text; what it holds, in the storage's words.
    PayloadNotText(String),
    /// The payload is JSON but not an object.
    NotAnObject(CanonicalError),
    /// The payload is not JSON.
    NotJson(CanonicalError),
    NoCanonicalForm(CanonicalError),
    /// `created_at` cannot be read.
    CreatedAt(TimeError),
    /// The stored digest (its first characters, or empty) is not the payload's.
    DigestMismatch {
        stored: String,
        computed: String,
    },
    UnknownState(String),
    /// Any other text, said as it is in every language.
    Text(String),
}

impl DamageCause {
    fn say(&self, lang: Lang) -> String {
        let digest = |d: &str| {
            if d.is_empty() {
                t!(lang, "report.damaged.empty_digest").to_string()
            } else {
                d.to_string()
            }
        };
        match self {
            Self::PayloadNotText(what) => t!(lang, "report.damaged.payload_not_text", what = what),
            Self::NotAnObject(CanonicalError::NotAnObject { found }) => t!(
                lang,
                "report.damaged.not_an_object",
                found = json_kind_in(lang, found)
            ),
            Self::NotAnObject(e) | Self::NotJson(e) => {
                t!(lang, "report.damaged.not_json", error = e.message(lang))
            }
            Self::NoCanonicalForm(e) => {
                t!(
                    lang,
                    "report.damaged.no_canonical_form",
                    error = e.message(lang)
                )
            }
            Self::CreatedAt(e) => t!(lang, "report.damaged.created_at", error = e.message(lang)),
            Self::DigestMismatch { stored, computed } => t!(
                lang,
                "report.damaged.digest_mismatch",
                stored = digest(stored),
                computed = digest(computed)
            ),
            Self::UnknownState(state) => t!(
                lang,
                "report.damaged.unknown_state",
                state = format!("{:?}", sanitize::inline(state, 40))
            ),
            Self::Text(text) => text.clone(),
        }
    }
}

impl DamageDetail {
    pub fn new(cause: DamageCause) -> Self {
        Self {
            english: sanitize::inline(&cause.say(Lang::En), DETAIL_MAX),
            cause,
        }
    }

    pub fn cause(&self) -> &DamageCause {
        &self.cause
    }

    /// The detail in `lang`: one terminal-safe line.
    pub fn message(&self, lang: Lang) -> String {
        match lang {
            Lang::En => self.english.clone(),
            _ => sanitize::inline(&self.cause.say(lang), DETAIL_MAX),
        }
    }
}

impl std::ops::Deref for DamageDetail {
    type Target = str;

    fn deref(&self) -> &str {
        &self.english
    }
}

impl std::fmt::Display for DamageDetail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english)
    }
}

impl From<String> for DamageDetail {
    fn from(text: String) -> Self {
        Self::new(DamageCause::Text(text))
    }
}

impl From<&str> for DamageDetail {
    fn from(text: &str) -> Self {
        Self::from(text.to_string())
    }
}

impl Serialize for DamageDetail {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.english)
    }
}

/// The time gap class of a duplicate group (the class of its largest gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapClass {
    /// Under 1 s: two handlers, or a bot.
    Simultaneous,
    /// 1 s to under 60 s: a second click or a retry.
    Seconds,
    /// 60 s up to the window: a reload or the back button.
    Minutes,
}

impl GapClass {
    /// What people call it, in `lang` (`simultaneous`, `同時`).
    pub fn label_in(self, lang: Lang) -> &'static str {
        match self {
            Self::Simultaneous => t!(lang, "terms.class.simultaneous"),
            Self::Seconds => t!(lang, "terms.class.seconds"),
            Self::Minutes => t!(lang, "terms.class.minutes"),
        }
    }

    pub fn of_gap(gap_ms: Millis) -> Self {
        if gap_ms < 1_000 {
            Self::Simultaneous
        } else if gap_ms < 60_000 {
            Self::Seconds
        } else {
            Self::Minutes
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Simultaneous => "simultaneous",
            Self::Seconds => "seconds",
            Self::Minutes => "minutes",
        }
    }

    pub const ALL: [GapClass; 3] = [Self::Simultaneous, Self::Seconds, Self::Minutes];
}

/// Why a copy belongs to its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// Same visitor fingerprint as the group's earliest copy (the earliest copy itself too).
    Exact,
    /// Its non-empty visitor fields are a strict subset of the earliest copy's, or
    /// the other way round, with equal values.
    Partial,
    /// Same fields, all equal but one free-text field that differs by a few words.
    Edited,
    /// Its visitor data was erased: in the group it was in when erased
    /// (see `triage::erased`), no longer compared.
    Erased,
}

impl MatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Partial => "partial",
            Self::Edited => "edited",
            Self::Erased => "erased",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Member {
    pub id: ReceiptId,
    #[serde(rename = "match")]
    pub match_kind: MatchKind,
    /// For a near member: which fields made it near (the missing fields of a
    /// partial copy, the edited field of an edited copy).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    /// For a copy edited by sentence: how its free text rewrites the earlier copy's, in the
    /// earlier copy's order (empty for an edit of a few words).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sentence_changes: Vec<SentenceChange>,
}

/// One place where an edited copy's text differs from the earlier copy's, by sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SentenceChange {
    /// The earlier copy's sentences it touches, numbered from 1 (none when text was only
    /// added).
    pub sentences: Vec<u32>,
    /// How many of the earlier copy's sentences come before it.
    pub after: u32,
    /// The earlier copy's text that is gone (normalised; empty when text was only added).
    pub removed: String,
    /// The later copy's text in its place (normalised; empty when text was only removed).
    pub added: String,
    /// `removed` is whole sentences (else a part of one or two).
    pub whole_sentences: bool,
}

/// Copies of one submission, earliest first.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicateGroup {
    pub scope: String,
    pub class: GapClass,
    /// Earliest first; `members[0]` is the copy to answer.
    pub members: Vec<Member>,
    /// `gaps_ms[i]` is the gap between `members[i]` and `members[i + 1]`.
    pub gaps_ms: Vec<Millis>,
}

impl DuplicateGroup {
    /// A group of exact copies one second apart, for tests.
    #[cfg(test)]
    pub(crate) fn exact_for_tests(ids: &[ReceiptId]) -> std::sync::Arc<DuplicateGroup> {
        std::sync::Arc::new(DuplicateGroup {
            scope: "s".into(),
            class: GapClass::Seconds,
            members: ids
                .iter()
                .map(|&id| Member {
                    id,
                    match_kind: MatchKind::Exact,
                    fields: Vec::new(),
                    sentence_changes: Vec::new(),
                })
                .collect(),
            gaps_ms: vec![1_000; ids.len() - 1],
        })
    }

    /// The stable item id: `dup:<earliest receipt id>`.
    pub fn item(&self) -> String {
        format!("dup:{}", self.members[0].id)
    }

    pub fn receipt_ids(&self) -> Vec<ReceiptId> {
        self.members.iter().map(|m| m.id).collect()
    }

    /// True when every member is an exact copy.
    pub fn is_exact(&self) -> bool {
        self.members
            .iter()
            .all(|m| m.match_kind == MatchKind::Exact)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptSource {
    KeyConflicts,
    Receipts,
}

/// One refused (or legacy, duplicated) attempt at a key that already had a receipt.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub source: AttemptSource,
    /// `key_conflicts.id` or `receipts.id`, depending on `source`.
    pub id: i64,
    #[serde(skip)]
    pub at_ms: Option<Millis>,
    #[serde(skip)]
    pub digest: String,
}

/// The same scope and key arrived with a different body; the original is kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub request_key: String,
    /// In arrival order.
    pub attempts: Vec<Attempt>,
}

impl Conflict {
    pub fn item(&self) -> String {
        format!("conflict:{}", self.receipt_id)
    }
}

/// An `in_flight` receipt older than `stuck_after` as of `now`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    pub receipt_id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    pub age_ms: Millis,
}

impl Stuck {
    pub fn item(&self) -> String {
        format!("stuck:{}", self.receipt_id)
    }
}

/// Why a group of receipts is suspected to come from a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BotEvidence {
    /// One message body from three or more senders within the window, in
    /// any scope (a bot posts every form it finds).
    Campaign,
    /// A honeypot field (never shown to people) was filled in.
    Honeypot,
    /// Every visitor field empty or absent: a scanner trying the form.
    Empty,
}

impl BotEvidence {
    /// The name in `report --json`: `campaign`, `honeypot`, `empty`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Campaign => "campaign",
            Self::Honeypot => "honeypot",
            Self::Empty => "empty",
        }
    }

    /// What support staff read on the screen and in the text report.
    pub fn describe(self) -> &'static str {
        self.describe_in(Lang::En)
    }

    /// [`BotEvidence::describe`] in `lang`.
    pub fn describe_in(self, lang: Lang) -> &'static str {
        match self {
            Self::Campaign => t!(lang, "terms.bot.campaign"),
            Self::Honeypot => t!(lang, "terms.bot.honeypot"),
            Self::Empty => t!(lang, "terms.bot.empty"),
        }
    }
}

/// One receipt of a bot group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotReceipt {
    pub id: ReceiptId,
    pub created_ms: Millis,
    /// Its scope: an index into [`BotGroup::scopes`].
    pub scope: u32,
}

/// Suspected bot receipts grouped by their evidence: a campaign's copies of
/// one body, or one scope's honeypot or empty receipts, chained while each
/// gap is at most the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotGroup {
    pub evidence: BotEvidence,
    /// Earliest first (then by id).
    pub receipts: Vec<BotReceipt>,
    /// How many different senders the receipts name (0: none names one).
    pub senders: usize,
    /// The scopes of its receipts, sorted.
    pub scopes: Vec<String>,
}

impl BotGroup {
    /// The stable item id: `bot:<earliest receipt id>`.
    pub fn item(&self) -> String {
        format!("bot:{}", self.receipts[0].id)
    }

    /// The receipt ids, ascending.
    pub fn receipt_ids(&self) -> Vec<ReceiptId> {
        let mut ids: Vec<ReceiptId> = self.receipts.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids
    }

    pub fn first_ms(&self) -> Millis {
        self.receipts[0].created_ms
    }

    pub fn last_ms(&self) -> Millis {
        self.receipts
            .iter()
            .map(|r| r.created_ms)
            .max()
            .unwrap_or(0)
    }

    /// Its scopes in a few words: the one scope, or the first and how many
    /// more. Untrusted text: sanitise before showing.
    pub fn scopes_label(&self) -> String {
        self.scopes_label_in(Lang::En)
    }

    /// [`BotGroup::scopes_label`] in `lang`.
    pub fn scopes_label_in(&self, lang: Lang) -> String {
        match self.scopes.first() {
            None => String::new(),
            Some(first) => scopes_label(first, self.scopes.len(), lang),
        }
    }

    pub fn scope_of(&self, r: &BotReceipt) -> &str {
        &self.scopes[r.scope as usize]
    }
}

/// A bot group's scopes in a few words, from the first and how many there
/// are (at least one): [`BotGroup::scopes_label_in`].
pub fn scopes_label(first: &str, count: usize, lang: Lang) -> String {
    match count {
        0 | 1 => first.to_string(),
        n => t!(lang, "terms.scopes_and_more", first = first, more = n - 1),
    }
}

/// Everything the engine found, each list in a stable order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Triage {
    /// Ordered by earliest copy time, then id. Each group is shared, so that
    /// a reading made while the screen holds the last one copies only the
    /// pointers and the groups that changed.
    pub duplicates: Vec<Arc<DuplicateGroup>>,
    /// Ordered by original receipt id; shared one by one as the groups.
    pub conflicts: Vec<Arc<Conflict>>,
    /// Ordered by receipt id.
    pub stuck: Vec<Stuck>,
    /// When the next `in_flight` receipt becomes stuck, if one is younger
    /// than `stuck_after` now: the screen's moving clock reads again then.
    pub next_stuck_ms: Option<Millis>,
    /// Receipt ids, ascending.
    pub suspected_bots: Vec<ReceiptId>,
    /// The suspected bots by evidence, each receipt in one group; ordered
    /// by earliest receipt time, then id.
    pub bot_groups: Vec<Arc<BotGroup>>,
    /// Ordered by receipt id.
    pub damaged: Vec<Damaged>,
}
