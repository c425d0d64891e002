//! The likely pathways that make copies of one submission (in the
//! analysis's terms), each with its plain-words advice.

use serde::Serialize;

use crate::i18n::Lang;
use crate::t;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pathway {
    /// Copies under 1 s apart (often one half empty).
    TwoHandlers,
    /// Copies 1–60 s apart under different request keys.
    NewKeyPerClick,
    /// Copies 1–60 s apart without a key, or many receipts without one.
    NoKey,
    /// Exact copies a minute or more apart.
    Reload,
    /// An edited copy: the visitor corrected the text and sent it again.
    EditedResend,
    /// Retries that the key answered with the stored response.
    RetriesAbsorbed,
    /// A honeypot filled in, or one body from three or more senders.
    Bots,
}

impl Pathway {
    pub const ALL: [Pathway; 7] = [
        Pathway::TwoHandlers,
        Pathway::NewKeyPerClick,
        Pathway::NoKey,
        Pathway::Reload,
        Pathway::EditedResend,
        Pathway::RetriesAbsorbed,
        Pathway::Bots,
    ];

    /// The stable id (`report --json`'s `forms[].pathways[].pathway`).
    pub fn id(self) -> &'static str {
        match self {
            Pathway::TwoHandlers => "two_handlers",
            Pathway::NewKeyPerClick => "new_key_per_click",
            Pathway::NoKey => "no_key",
            Pathway::Reload => "reload",
            Pathway::EditedResend => "edited_resend",
            Pathway::RetriesAbsorbed => "retries_absorbed",
            Pathway::Bots => "bots",
        }
    }

    /// A short name for the screen and the report.
    pub fn title(self) -> &'static str {
        self.title_in(Lang::En)
    }

    /// [`Pathway::title`] in `lang`.
    pub fn title_in(self, lang: Lang) -> &'static str {
        match self {
            Pathway::TwoHandlers => t!(lang, "forms.title.two_handlers"),
            Pathway::NewKeyPerClick => t!(lang, "forms.title.new_key_per_click"),
            Pathway::NoKey => t!(lang, "forms.title.no_key"),
            Pathway::Reload => t!(lang, "forms.title.reload"),
            Pathway::EditedResend => t!(lang, "forms.title.edited_resend"),
            Pathway::RetriesAbsorbed => t!(lang, "forms.title.retries_absorbed"),
            Pathway::Bots => t!(lang, "forms.title.bots"),
        }
    }

    /// What the count counts.
    pub fn unit(self, n: u64) -> &'static str {
        self.unit_in(n, Lang::En)
    }

    /// [`Pathway::unit`] in `lang`.
    pub fn unit_in(self, n: u64, lang: Lang) -> &'static str {
        match (self, n == 1) {
            (Pathway::RetriesAbsorbed, true) => t!(lang, "forms.unit.replay"),
            (Pathway::RetriesAbsorbed, false) => t!(lang, "forms.unit.replays"),
            (Pathway::Bots, true) => t!(lang, "forms.unit.receipt"),
            (Pathway::Bots, false) => t!(lang, "forms.unit.receipts"),
            (_, true) => t!(lang, "forms.unit.copy"),
            (_, false) => t!(lang, "forms.unit.copies"),
        }
    }

    /// What the evidence is, in a few words.
    pub fn evidence(self) -> &'static str {
        self.evidence_in(Lang::En)
    }

    /// [`Pathway::evidence`] in `lang`.
    pub fn evidence_in(self, lang: Lang) -> &'static str {
        match self {
            Pathway::TwoHandlers => t!(lang, "forms.evidence.two_handlers"),
            Pathway::NewKeyPerClick => t!(lang, "forms.evidence.new_key_per_click"),
            Pathway::NoKey => t!(lang, "forms.evidence.no_key"),
            Pathway::Reload => t!(lang, "forms.evidence.reload"),
            Pathway::EditedResend => t!(lang, "forms.evidence.edited_resend"),
            Pathway::RetriesAbsorbed => t!(lang, "forms.evidence.retries_absorbed"),
            Pathway::Bots => t!(lang, "forms.evidence.bots"),
        }
    }

    /// The fix, in plain words (English: `report --json`'s `advice`).
    pub fn advice(self) -> &'static str {
        self.advice_in(Lang::En)
    }

    /// [`Pathway::advice`] in `lang`.
    pub fn advice_in(self, lang: Lang) -> &'static str {
        match self {
            Pathway::TwoHandlers => t!(lang, "forms.advice.two_handlers"),
            Pathway::NewKeyPerClick => t!(lang, "forms.advice.new_key_per_click"),
            Pathway::NoKey => t!(lang, "forms.advice.no_key"),
            Pathway::Reload => t!(lang, "forms.advice.reload"),
            Pathway::EditedResend => t!(lang, "forms.advice.edited_resend"),
            Pathway::RetriesAbsorbed => t!(lang, "forms.advice.retries_absorbed"),
            Pathway::Bots => t!(lang, "forms.advice.bots"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pathway_is_said_in_every_language() {
        for p in Pathway::ALL {
            for lang in Lang::ALL {
                for text in [p.title_in(lang), p.evidence_in(lang), p.advice_in(lang)] {
                    assert!(!text.is_empty() && !text.contains("forms."), "{p:?} {text}");
                }
            }
            assert_ne!(p.advice_in(Lang::Ja), p.advice());
        }
        assert_eq!(Pathway::Reload.title_in(Lang::Ja), "再読み込み");
        assert_eq!(Pathway::RetriesAbsorbed.unit_in(2, Lang::En), "replays");
    }
}
