//! The likely pathways that make copies of one submission (seed 004's list,
//! in SPEC's terms), each with its plain-words advice (seeds 003 and 004).

use serde::Serialize;

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

    /// A short name for the screen.
    pub fn title(self) -> &'static str {
        match self {
            Pathway::TwoHandlers => "two handlers",
            Pathway::NewKeyPerClick => "new key per click",
            Pathway::NoKey => "no key",
            Pathway::Reload => "reload",
            Pathway::EditedResend => "edited and resent",
            Pathway::RetriesAbsorbed => "retries absorbed",
            Pathway::Bots => "bots",
        }
    }

    /// What the count counts.
    pub fn unit(self, n: u64) -> &'static str {
        match (self, n == 1) {
            (Pathway::RetriesAbsorbed, true) => "replay",
            (Pathway::RetriesAbsorbed, false) => "replays",
            (Pathway::Bots, true) => "receipt",
            (Pathway::Bots, false) => "receipts",
            (_, true) => "copy",
            (_, false) => "copies",
        }
    }

    /// What the evidence is, in a few words.
    pub fn evidence(self) -> &'static str {
        match self {
            Pathway::TwoHandlers => "copies under 1 s apart, often one half empty",
            Pathway::NewKeyPerClick => "copies 1–60 s apart under different request keys",
            Pathway::NoKey => "copies 1–60 s apart without a request key",
            Pathway::Reload => "exact copies a minute or more apart",
            Pathway::EditedResend => "a copy with a few words changed, sent again",
            Pathway::RetriesAbsorbed => "retries the key answered with the stored response",
            Pathway::Bots => "a hidden honeypot field filled in, or one text from many senders",
        }
    }

    /// The fix, in plain words.
    pub fn advice(self) -> &'static str {
        match self {
            Pathway::TwoHandlers => {
                "Two things post this form (the host's handler and an added script): keep one handler."
            }
            Pathway::NewKeyPerClick => {
                "The page mints a new key on every click: mint it once per input and keep it until a confirmed success."
            }
            Pathway::NoKey => {
                "The page sends no idempotency key: add one, minted once per input and kept until a confirmed success."
            }
            Pathway::Reload => {
                "Reloads or the back button post the form again: answer with a redirect to a thank-you page."
            }
            Pathway::EditedResend => {
                "The visitor corrected the message and sent it again: decide correction (the later copy supersedes)."
            }
            Pathway::RetriesAbsorbed => {
                "The keys work: these retries were answered with the stored response and never became duplicates."
            }
            Pathway::Bots => {
                "Bots fill in this form: keep a hidden honeypot field and a rate limit; decide spam."
            }
        }
    }
}
