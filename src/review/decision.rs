//! The rules of review's vocabulary: which decisions fit which kind, what
//! each means, and the stable item ids (`dup:12`, `conflict:40`, `stuck:77`).
//! The kinds and decisions themselves, as stored, are the model's
//! ([`crate::model::Kind`], [`crate::model::Decision`]).

use std::fmt;

use crate::i18n::{self, Lang};
use crate::model::{Decision, Kind, ReceiptId, ReceiptState};
use crate::{sanitize, t};

impl Kind {
    /// The prefix of its item ids: `dup`, `conflict`, `stuck`.
    pub fn item_prefix(self) -> &'static str {
        match self {
            Self::Duplicate => "dup",
            Self::Conflict => "conflict",
            Self::Stuck => "stuck",
            Self::Bot => "bot",
            Self::Erasure => "erase",
        }
    }

    /// What people call it: `duplicate group`, `conflict`, `stuck receipt`.
    pub fn describe(self) -> &'static str {
        self.describe_in(Lang::En)
    }

    /// [`Kind::describe`] in `lang`.
    pub fn describe_in(self, lang: Lang) -> &'static str {
        match self {
            Self::Duplicate => t!(lang, "terms.kind.duplicate"),
            Self::Conflict => t!(lang, "terms.kind.conflict"),
            Self::Stuck => t!(lang, "terms.kind.stuck"),
            Self::Bot => t!(lang, "terms.kind.bot"),
            Self::Erasure => t!(lang, "terms.kind.erasure"),
        }
    }

    /// The decisions an operator may take on an item of this kind (an undo,
    /// `reopened`, is not among them: it is appended by undo and reopen).
    pub fn decisions(self) -> &'static [Decision] {
        match self {
            Self::Duplicate => &[
                Decision::Duplicate,
                Decision::Correction,
                Decision::Distinct,
                Decision::Spam,
            ],
            Self::Conflict => &[Decision::OriginalStands, Decision::FollowUp],
            Self::Stuck => &[
                Decision::Completed,
                Decision::Failed,
                Decision::StillPending,
            ],
            Self::Bot => &[Decision::Spam, Decision::NotSpam],
            // Written by `erase` alone: nobody decides it, nobody undoes it.
            Self::Erasure => &[],
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

impl Decision {
    /// Parses what an operator typed for an item of `kind`: the stored name,
    /// case-insensitive, `-` accepted for `_`. `reopened` is refused (use undo
    /// or reopen), as is any decision of another kind.
    pub fn parse_for(kind: Kind, text: &str) -> Result<Self, DecisionError> {
        let normal = text.trim().to_ascii_lowercase().replace('-', "_");
        match Self::parse(&normal) {
            Some(decision) => decision.check_for(kind).map(|()| decision),
            None => Err(DecisionError::Unknown {
                text: text.to_string(),
                kind,
            }),
        }
    }

    /// The first kind of item this decision is for (`spam` is also a bot
    /// group's, see [`Kind::decisions`]); `None` for `reopened` (any kind).
    pub fn kind(self) -> Option<Kind> {
        match self {
            Self::Duplicate | Self::Correction | Self::Distinct | Self::Spam => {
                Some(Kind::Duplicate)
            }
            Self::OriginalStands | Self::FollowUp => Some(Kind::Conflict),
            Self::Completed | Self::Failed | Self::StillPending => Some(Kind::Stuck),
            Self::NotSpam => Some(Kind::Bot),
            Self::Erased => Some(Kind::Erasure),
            Self::Reopened => None,
        }
    }

    /// Ok when an operator may take this decision on an item of `kind`.
    pub fn check_for(self, kind: Kind) -> Result<(), DecisionError> {
        if kind.decisions().contains(&self) {
            Ok(())
        } else {
            Err(DecisionError::NotAllowed {
                kind,
                decision: self,
            })
        }
    }

    /// The `receipts.state` this decision writes (stuck `completed` / `failed`).
    pub fn target_state(self) -> Option<ReceiptState> {
        match self {
            Self::Completed => Some(ReceiptState::Completed),
            Self::Failed => Some(ReceiptState::Failed),
            _ => None,
        }
    }

    /// The decision in plain words (`follow-up`, `要返信`), where
    /// [`Decision::as_str`] is the name stored and typed (`follow_up`).
    pub fn label_in(self, lang: Lang) -> &'static str {
        match self {
            Self::Duplicate => t!(lang, "terms.decision.duplicate"),
            Self::Correction => t!(lang, "terms.decision.correction"),
            Self::Distinct => t!(lang, "terms.decision.distinct"),
            Self::Spam => t!(lang, "terms.decision.spam"),
            Self::NotSpam => t!(lang, "terms.decision.not_spam"),
            Self::OriginalStands => t!(lang, "terms.decision.original_stands"),
            Self::FollowUp => t!(lang, "terms.decision.follow_up"),
            Self::Completed => t!(lang, "terms.decision.completed"),
            Self::Failed => t!(lang, "terms.decision.failed"),
            Self::StillPending => t!(lang, "terms.decision.still_pending"),
            Self::Reopened => t!(lang, "terms.decision.reopened"),
            Self::Erased => t!(lang, "terms.decision.erased"),
        }
    }

    /// One line for people choosing a decision.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Duplicate => {
                "same submission: answer one copy only (the most complete, or the one chosen)"
            }
            Self::Correction => "a later copy corrects the earlier one and supersedes it",
            Self::Distinct => "different messages: answer each",
            Self::Spam => "junk: answer none",
            Self::NotSpam => "not a bot: people wrote these, answer them",
            Self::OriginalStands => "the original stands; the change needs nothing",
            Self::FollowUp => "the change needs a follow-up with the sender",
            Self::Completed => "checked: the work was done (state becomes completed)",
            Self::Failed => "checked: the work was not done (state becomes failed, key released)",
            Self::StillPending => "checked: still unknown; leave the receipt in flight",
            Self::Reopened => "undo: the earlier decision no longer stands",
            Self::Erased => "the receipts' visitor data was erased (never undone)",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The item id of a receipt-named item: `dup:12`, `conflict:40`, `stuck:77`.
pub fn item_id(kind: Kind, receipt_id: ReceiptId) -> String {
    format!("{}:{receipt_id}", kind.item_prefix())
}

/// Splits an item id into its kind and the receipt id it names.
pub fn parse_item(item: &str) -> Result<(Kind, ReceiptId), DecisionError> {
    let bad = || DecisionError::BadItem {
        item: item.to_string(),
    };
    let (prefix, id) = item.split_once(':').ok_or_else(bad)?;
    let kind = Kind::ALL
        .into_iter()
        .find(|k| k.item_prefix() == prefix)
        .ok_or_else(bad)?;
    let digits = id.strip_prefix('-').unwrap_or(id);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let id = id.parse::<ReceiptId>().map_err(|_| bad())?;
    Ok((kind, id))
}

fn allowed(kind: &Kind) -> String {
    kind.decisions()
        .iter()
        .map(|d| d.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn shown(text: &str) -> String {
    sanitize::inline(text, 60)
}

/// A request that does not make sense, whatever the database holds.
/// `Display` is in the language of the messages ([`i18n::current`]);
/// [`DecisionError::message`] in any. The decisions it names are the ones
/// to type, as stored (`still_pending`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    Unknown {
        text: String,
        kind: Kind,
    },
    NotAllowed {
        kind: Kind,
        decision: Decision,
    },
    BadItem {
        item: String,
    },
    KindMismatch {
        item: String,
        kind: Kind,
    },
    ItemNotCovered {
        item: String,
        receipt_id: ReceiptId,
    },
    NoOperator,
    KeepsNone {
        decision: Decision,
    },
    NotACopy {
        item: String,
        kept: ReceiptId,
        copies: Vec<ReceiptId>,
    },
}

fn ids(ids: &[ReceiptId]) -> String {
    ids.iter()
        .map(|id| id.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl DecisionError {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::Unknown { text, kind } => t!(
                lang,
                "error.review.unknown_decision",
                text = shown(text),
                kind = kind.describe_in(lang),
                allowed = allowed(kind)
            ),
            Self::NotAllowed { kind, decision } => t!(
                lang,
                "error.review.not_allowed",
                decision = decision,
                kind = kind.describe_in(lang),
                allowed = allowed(kind)
            ),
            Self::BadItem { item } => t!(lang, "error.review.bad_item", item = shown(item)),
            Self::KindMismatch { item, kind } => t!(
                lang,
                "error.review.kind_mismatch",
                item = shown(item),
                kind = kind.describe_in(lang)
            ),
            Self::ItemNotCovered { item, receipt_id } => t!(
                lang,
                "error.review.item_not_covered",
                item = shown(item),
                receipt_id = receipt_id
            ),
            Self::NoOperator => t!(lang, "error.review.no_operator").to_string(),
            Self::KeepsNone { decision } => t!(
                lang,
                "error.review.keeps_none",
                decision = decision.label_in(lang)
            ),
            Self::NotACopy { item, kept, copies } => t!(
                lang,
                "error.review.not_a_copy",
                kept = kept,
                item = shown(item),
                copies = ids(copies)
            ),
        }
    }
}

impl fmt::Display for DecisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(i18n::current()))
    }
}

impl DecisionError {
    /// The decisions allowed where this error names a kind.
    pub fn allowed(&self) -> &'static [Decision] {
        match self {
            Self::Unknown { kind, .. }
            | Self::NotAllowed { kind, .. }
            | Self::KindMismatch { kind, .. } => kind.decisions(),
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Decision::ALL {
            assert_eq!(Decision::parse(d.as_str()), Some(d));
        }
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Decision::parse("Duplicate"), None);
    }

    #[test]
    fn every_operator_decision_has_one_kind() {
        for k in Kind::ALL {
            for d in k.decisions() {
                assert!(d.check_for(k).is_ok());
                assert!(d.kind().is_some());
            }
        }
        // Every decision but the undo and the erasure (which no operator
        // takes on an item) belongs to some kind; only `spam` to two.
        let all: usize = Kind::ALL.iter().map(|k| k.decisions().len()).sum();
        assert_eq!(all, Decision::ALL.len() - 2 + 1);
        assert!(Kind::Erasure.decisions().is_empty());
        assert_eq!(Decision::Erased.kind(), Some(Kind::Erasure));
        assert!(Decision::parse_for(Kind::Erasure, "erased").is_err());
        for k in Kind::STORED {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert!(Decision::Spam.check_for(Kind::Bot).is_ok());
        assert!(Decision::NotSpam.check_for(Kind::Duplicate).is_err());
        assert_eq!(
            Decision::parse_for(Kind::Bot, "Not-Spam"),
            Ok(Decision::NotSpam)
        );
    }

    #[test]
    fn wrong_kind_names_the_allowed_ones() {
        let err = Decision::parse_for(Kind::Duplicate, "completed").unwrap_err();
        assert_eq!(
            err,
            DecisionError::NotAllowed {
                kind: Kind::Duplicate,
                decision: Decision::Completed
            }
        );
        assert_eq!(
            err.to_string(),
            "\"completed\" is not a decision for a duplicate group; \
             choose one of: duplicate, correction, distinct, spam"
        );
        assert_eq!(err.allowed(), Kind::Duplicate.decisions());
        let err = Decision::parse_for(Kind::Stuck, "maybe\x1b[2J").unwrap_err();
        assert!(err.to_string().contains("completed, failed, still_pending"));
        assert!(!err.to_string().contains('\x1b'));
        assert!(Decision::parse_for(Kind::Stuck, "reopened").is_err());
    }

    #[test]
    fn errors_in_japanese_name_the_kind_and_the_decisions_to_type() {
        let err = Decision::parse_for(Kind::Conflict, "later").unwrap_err();
        assert_eq!(
            err.message(Lang::Ja),
            "競合の判断に「later」はありません。次のいずれかを指定してください: original_stands, follow_up"
        );
        assert_eq!(
            parse_item("dupe:1").unwrap_err().message(Lang::Ja),
            "「dupe:1」は案件 ID ではありません。dup:<id>、conflict:<id>、stuck:<id>、bot:<id> の形で指定してください"
        );
        assert_eq!(Decision::FollowUp.label_in(Lang::En), "follow-up");
        assert_eq!(Decision::StillPending.label_in(Lang::Ja), "保留");
        assert_eq!(Kind::Stuck.describe(), "stuck receipt");
        assert_eq!(Kind::Stuck.describe_in(Lang::Ja), "滞留している受付");
    }

    #[test]
    fn operators_may_type_loosely() {
        assert_eq!(
            Decision::parse_for(Kind::Conflict, " Follow-Up "),
            Ok(Decision::FollowUp)
        );
        assert_eq!(
            Decision::parse_for(Kind::Stuck, "still-pending"),
            Ok(Decision::StillPending)
        );
    }

    #[test]
    fn item_ids() {
        assert_eq!(parse_item("dup:12"), Ok((Kind::Duplicate, 12)));
        assert_eq!(parse_item("conflict:40"), Ok((Kind::Conflict, 40)));
        assert_eq!(parse_item("stuck:77"), Ok((Kind::Stuck, 77)));
        assert_eq!(parse_item("bot:12"), Ok((Kind::Bot, 12)));
        assert_eq!(item_id(Kind::Stuck, 77), "stuck:77");
        for bad in [
            "",
            "dup",
            "dup:",
            "dup:x",
            "dup:+1",
            "stuck: 7",
            "dupe:1",
            "duplicate:1",
        ] {
            assert!(parse_item(bad).is_err(), "{bad}");
        }
    }
}
