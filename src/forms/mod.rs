//! The per-form view: one row per scope over a period (receipts, duplicate
//! groups by class, copies without a key, replays, absorbed copies,
//! conflicts, stuck, bots),
//! a series for a chart, and the likely pathways with their fix.
//!
//! Pure: computed from a [`Snapshot`] and its activity summary
//! ([`crate::triage::activity`]), never from the receipts themselves, so a
//! million receipts take milliseconds.
//!
//! What falls in a period: a receipt by its arrival; a duplicate group (and
//! every copy's pathway evidence) by its earliest copy; a conflict by its
//! latest attempt; a stuck receipt and a bot by their arrival. The chart's
//! duplicate copies are placed by each copy's own arrival.

mod compute;
pub mod pathway;
pub mod period;

pub use compute::compute;
pub use pathway::Pathway;
pub use period::Period;

use crate::i18n::Lang;
use crate::model::{Millis, ReceiptId};
use crate::t;

/// A keyless share at or above this (of at least [`KEYLESS_MIN`] receipts)
/// is evidence that the page sends no key, duplicates or not.
pub const KEYLESS_SHARE: f64 = 0.3;
pub const KEYLESS_MIN: u64 = 10;

/// Copies are these many milliseconds apart or more to be "seconds apart".
pub const SECOND_MS: Millis = 1_000;
/// ...and fewer than these ("minutes apart" from here on).
pub const MINUTE_MS: Millis = 60_000;

/// The per-form view of one reading.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Forms {
    pub period: Period,
    /// The period's first instant (`None`: every receipt).
    pub start_ms: Option<Millis>,
    /// The chart's buckets: the first one's start and each one's length.
    pub series_start_ms: Millis,
    pub bucket_ms: Millis,
    /// Ordered by scope.
    pub rows: Vec<FormRow>,
    /// Whether the database counts the exact copies the intake absorbed (it
    /// has a usable `absorbed` table): when not, nothing is said of them.
    pub absorbed_counted: bool,
}

/// One scope over the period.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FormRow {
    pub scope: String,
    pub receipts: u64,
    pub duplicate_groups: usize,
    /// Simultaneous, seconds, minutes.
    pub by_class: [usize; 3],
    pub exact: usize,
    pub near: usize,
    /// Copies beyond the first of each group.
    pub copies: usize,
    /// Receipts that came without a request key.
    pub keyless: u64,
    /// Retries answered by the keys of the period's receipts.
    pub replays: u64,
    /// Exact copies of the period's receipts that the intake answered with
    /// their response and never stored.
    pub absorbed: u64,
    pub conflicts: usize,
    pub stuck: usize,
    pub bots: usize,
    /// Receipts and duplicate copies per bucket (see [`Forms::bucket_ms`]).
    pub series: Vec<(u64, u64)>,
    /// The likely pathways: those that make copies, most copies first; then
    /// bots; retries absorbed (good news) last.
    pub pathways: Vec<Finding>,
}

impl FormRow {
    /// The share of receipts that came without a key (0 when none came).
    pub fn keyless_share(&self) -> f64 {
        if self.receipts == 0 {
            0.0
        } else {
            self.keyless as f64 / self.receipts as f64
        }
    }
}

/// One pathway seen in a form.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub pathway: Pathway,
    /// Copies (replays and absorbed copies for retries absorbed, receipts
    /// for bots) that show it.
    pub count: u64,
    /// Of `count`, the exact copies the intake absorbed (retries absorbed
    /// only; the rest are replays).
    pub absorbed: u64,
    /// The most recent item that shows it (`dup:12`), when one does.
    pub example: Option<String>,
    /// A receipt that shows it (the example item's first, or a bot's, or
    /// one whose response answered a retry or an absorbed copy).
    pub example_receipt: Option<ReceiptId>,
    /// What was seen, in plain English words (`report --json`'s `evidence`;
    /// [`Finding::evidence_in`] says it in any language).
    pub evidence: String,
    /// For a form where many receipts came without a key: how many did, of
    /// how many.
    pub keyless: Option<(u64, u64)>,
}

impl Finding {
    /// `e.g. dup:12`, or `e.g. receipt #91` where no item shows it.
    pub fn example_label(&self) -> String {
        self.example_label_in(Lang::En)
    }

    /// [`Finding::example_label`] in `lang`.
    pub fn example_label_in(&self, lang: Lang) -> String {
        match (&self.example, self.example_receipt) {
            (Some(item), _) => t!(lang, "forms.example_item", item = item),
            (None, Some(id)) => t!(lang, "forms.example_receipt", id = id),
            (None, None) => String::new(),
        }
    }

    /// What was seen, in plain words in `lang`.
    pub fn evidence_in(&self, lang: Lang) -> String {
        evidence_of(self.pathway, self.keyless, self.count, self.absorbed, lang)
    }

    /// What the count counts, in `lang`: the pathway's unit, except that
    /// retries some of which were absorbed copies are not all "replays".
    pub fn unit_in(&self, lang: Lang) -> &'static str {
        match (self.absorbed > 0, self.count == 1) {
            (true, true) => t!(lang, "forms.unit.retry"),
            (true, false) => t!(lang, "forms.unit.retries"),
            (false, _) => self.pathway.unit_in(self.count, lang),
        }
    }

    /// The fix, in plain words in `lang` (English: `report --json`'s
    /// `advice`): copies the intake absorbed came without the original's
    /// key, which the advice for retries the keys answered does not say.
    pub fn advice_in(&self, lang: Lang) -> &'static str {
        if self.absorbed > 0 {
            t!(lang, "forms.advice.copies_absorbed")
        } else {
            self.pathway.advice_in(lang)
        }
    }
}

/// A pathway's evidence, with the share of keyless receipts where that
/// share is itself evidence, and for retries absorbed how many were replays
/// and how many exact copies the intake absorbed (of `count`), when any were.
pub(crate) fn evidence_of(
    pathway: Pathway,
    keyless: Option<(u64, u64)>,
    count: u64,
    absorbed: u64,
    lang: Lang,
) -> String {
    if absorbed > 0 {
        let replays = count.saturating_sub(absorbed);
        return if replays > 0 {
            t!(
                lang,
                "forms.evidence.replays_and_copies_absorbed",
                replays = replays,
                absorbed = absorbed
            )
        } else {
            t!(lang, "forms.evidence.copies_absorbed").to_string()
        };
    }
    let seen = pathway.evidence_in(lang);
    match keyless {
        Some((keyless, receipts)) => t!(
            lang,
            "forms.keyless_evidence",
            seen = seen,
            keyless = keyless,
            receipts = receipts,
            share = format!("{:.0}", keyless as f64 / receipts as f64 * 100.0)
        ),
        None => seen.to_string(),
    }
}
