//! The screen's words for people: decisions, where an item stands, status
//! messages, confirmations and the help's explanations. Stored names
//! (`follow_up`, `in_flight`) never reach the screen; they are turned into
//! these words here, in one place, so that the screen says one thing one way.
//! Every text comes from the catalogues (`[words.*]`, `[status.*]`, and the
//! shared `[terms.*]`), in the language the caller passes: the screen's own,
//! never the command line's.

use std::sync::LazyLock;

use crate::i18n::{Lang, fill};
use crate::model::{Decision, Kind, ReceiptState};
use crate::sanitize::inline;
use crate::t;
use crate::triage::model::SentenceChange;

/// A decision as people say it: `follow-up`, `original stands`, `still pending`.
pub fn decision(decision: Decision, lang: Lang) -> &'static str {
    decision.label_in(lang)
}

/// [`decision`] of a stored name; a name this version does not know is
/// shown with spaces for its underscores.
pub fn decision_named(stored: &str, lang: Lang) -> String {
    match Decision::parse(stored) {
        Some(d) => decision(d, lang).to_string(),
        None => stored.replace('_', " "),
    }
}

/// What an item is, as a sentence starts: `Duplicate group`, `Stuck receipt`.
pub fn kind_named(stored: &str, lang: Lang) -> String {
    match Kind::parse(stored) {
        Some(Kind::Duplicate) => t!(lang, "words.kind.duplicate").into(),
        Some(Kind::Conflict) => t!(lang, "words.kind.conflict").into(),
        Some(Kind::Stuck) => t!(lang, "words.kind.stuck").into(),
        Some(Kind::Bot) => t!(lang, "words.kind.bot").into(),
        Some(Kind::Erasure) => t!(lang, "words.kind.erasure").into(),
        None => {
            let mut text = stored.replace('_', " ");
            if let Some(first) = text.get(..1) {
                let upper = first.to_uppercase();
                text.replace_range(..1, &upper);
            }
            text
        }
    }
}

/// A receipt state as people say it: `in flight`, `completed`, `failed`.
pub fn state_named(stored: &str, lang: Lang) -> String {
    match ReceiptState::parse(stored) {
        Some(state) => state.label_in(lang).to_string(),
        None => stored.replace('_', " "),
    }
}

/// `a`, `a and b`, `a, b and c` (`a、b、c`).
pub fn and_list(items: &[String], lang: Lang) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => t!(
            lang,
            "words.list.and",
            rest = rest.join(t!(lang, "words.list.comma")),
            last = last
        ),
    }
}

// --- Where an item stands (the list's status column, the detail) ----------

/// The list's word for an item whose decision is on its way.
pub fn sending(lang: Lang) -> &'static str {
    t!(lang, "words.standing.sending")
}

/// The list's mark of a group that gained copies in the last readings: `+2`.
pub fn gained(copies: u32) -> String {
    format!("+{copies}")
}

/// The list's mark of a group that appeared in the last readings.
pub fn fresh_group(lang: Lang) -> &'static str {
    t!(lang, "words.fresh.group")
}

// --- Progress -------------------------------------------------------------------

/// Where a reading is, for the header and the first screen.
pub fn stage(stage: crate::reading::ReadingStage, lang: Lang) -> &'static str {
    use crate::reading::ReadingStage;
    use crate::triage::engine::AnalysisStage;
    match stage {
        ReadingStage::Receipts => t!(lang, "worker.stage.receipts"),
        ReadingStage::Replays => t!(lang, "worker.stage.replays"),
        ReadingStage::Texts => t!(lang, "worker.stage.texts"),
        ReadingStage::Analysis(AnalysisStage::GroupingCopies) => {
            t!(lang, "worker.stage.grouping_copies")
        }
        ReadingStage::Analysis(AnalysisStage::LookingForCampaigns) => {
            t!(lang, "worker.stage.campaigns")
        }
        ReadingStage::Analysis(AnalysisStage::ConflictsAndStuck) => {
            t!(lang, "worker.stage.conflicts_and_stuck")
        }
        ReadingStage::ReviewLog => t!(lang, "worker.stage.review_log"),
        ReadingStage::ItemsReceipts => t!(lang, "worker.stage.items_receipts"),
    }
}

/// The screen's own work after a reading: indexing it for the filter.
pub fn indexing(lang: Lang) -> &'static str {
    t!(lang, "worker.stage.indexing")
}

// --- Status messages ----------------------------------------------------------

/// The answer to a decision recorded: `conflict:40: follow-up recorded`.
pub fn recorded(item: &str, d: Decision, lang: Lang) -> String {
    t!(
        lang,
        "status.recorded",
        item = item,
        decision = decision(d, lang)
    )
}

/// A duplicate or correction recorded, with the copy it keeps.
pub fn recorded_keeping(
    item: &str,
    d: Decision,
    kept: crate::model::ReceiptId,
    lang: Lang,
) -> String {
    t!(
        lang,
        "status.recorded_keeping",
        item = item,
        decision = decision(d, lang),
        kept = kept
    )
}

/// Decisions sent, on their way.
pub fn recording(item: &str, d: Decision, lang: Lang) -> String {
    t!(
        lang,
        "status.recording",
        item = item,
        decision = decision(d, lang)
    )
}

pub fn recording_many(n: usize, d: Decision, lang: Lang) -> String {
    let decision = decision(d, lang);
    if n == 1 {
        t!(lang, "status.recording_one", n = n, decision = decision)
    } else {
        t!(lang, "status.recording_many", n = n, decision = decision)
    }
}

/// An undo recorded: `dup:12: duplicate undone, pending again`.
pub fn undone(item: &str, d: Decision, lang: Lang) -> String {
    t!(
        lang,
        "status.undone",
        item = item,
        decision = decision(d, lang)
    )
}

/// After [`undone`]: the receipt the undone decision had completed or failed.
pub fn undone_state_back(receipt_id: i64, was: &str, lang: Lang) -> String {
    t!(
        lang,
        "status.undone_state_back",
        receipt = receipt_id,
        state = state_named(was, lang)
    )
}

/// After [`undone`]: the receipt changed since the decision, so its state stays.
pub fn undone_state_kept(receipt_id: i64, now: Option<&str>, lang: Lang) -> String {
    match now {
        Some(state) => t!(
            lang,
            "status.undone_state_kept",
            receipt = receipt_id,
            state = state_named(state, lang)
        ),
        None => t!(lang, "status.undone_receipt_gone", receipt = receipt_id),
    }
}

/// A decision on an item that is already resolved.
pub fn already_resolved(
    item: &str,
    stored: Option<&str>,
    by: Option<&str>,
    at: Option<&str>,
    lang: Lang,
) -> String {
    let decision = stored.map_or_else(|| "?".into(), |d| decision_named(d, lang));
    let by = by.map_or_else(String::new, |by| {
        t!(lang, "status.already_resolved_by", operator = by)
    });
    let at = at.map_or_else(String::new, |at| {
        t!(lang, "status.already_resolved_at", at = at)
    });
    t!(
        lang,
        "status.already_resolved",
        item = item,
        decision = decision,
        by = by,
        at = at
    )
}

/// The sort order, for the list's title and the status line.
pub fn order(newest_first: bool, lang: Lang) -> &'static str {
    if newest_first {
        t!(lang, "words.order.newest")
    } else {
        t!(lang, "words.order.oldest")
    }
}

/// The list's title when it shows the pending items only.
pub fn pending_only(lang: Lang) -> &'static str {
    t!(lang, "words.view.pending_only")
}

pub fn pending_only_status(on: bool, lang: Lang) -> &'static str {
    if on {
        t!(lang, "words.view.pending_only_on")
    } else {
        t!(lang, "words.view.pending_only_off")
    }
}

// --- Confirmations -------------------------------------------------------------

/// The title of the question before `completed` or `failed`.
pub fn confirm_state_title(item: &str, d: Decision, lang: Lang) -> String {
    t!(
        lang,
        "words.confirm.state_title",
        item = item,
        decision = decision(d, lang)
    )
}

pub fn confirm_state_yes(d: Decision, lang: Lang) -> String {
    t!(
        lang,
        "words.confirm.state_yes",
        decision = decision(d, lang)
    )
}

/// What `completed` or `failed` changes, and what to have checked first.
pub fn confirm_state_lines(receipt_id: i64, d: Decision, lang: Lang) -> Vec<String> {
    let mut lines = vec![t!(
        lang,
        "words.confirm.state_becomes",
        receipt = receipt_id,
        decision = decision(d, lang)
    )];
    if d == Decision::Failed {
        lines.push(t!(lang, "words.confirm.failed_frees_key").into());
        lines.push(t!(lang, "words.confirm.failed_check").into());
    } else {
        lines.push(t!(lang, "words.confirm.completed_check").into());
    }
    lines
}

/// The answer that leaves things as they are, in every confirmation.
pub fn confirm_no(lang: Lang) -> String {
    t!(lang, "words.confirm.no").into()
}

/// A note that goes with the decision asked about.
pub fn confirm_note(note: &str, lang: Lang) -> String {
    t!(lang, "words.confirm.note", note = note)
}

// --- The detail pane -----------------------------------------------------------

/// Why a partial copy is in its group: which fields only one of the two
/// copies has. `None` for a side not known (its receipt not read yet).
pub fn partial_copy(
    only_here: &[String],
    only_first: &[String],
    unknown: &[String],
    lang: Lang,
) -> String {
    let mut parts = Vec::new();
    if !only_here.is_empty() {
        let fields = and_list(only_here, lang);
        parts.push(if only_here.len() == 1 {
            t!(lang, "words.near.only_here_one", fields = fields)
        } else {
            t!(lang, "words.near.only_here_many", fields = fields)
        });
    }
    if !only_first.is_empty() {
        let fields = and_list(only_first, lang);
        parts.push(if only_first.len() == 1 {
            t!(lang, "words.near.only_first_one", fields = fields)
        } else {
            t!(lang, "words.near.only_first_many", fields = fields)
        });
    }
    if !unknown.is_empty() {
        let fields = and_list(unknown, lang);
        parts.push(if unknown.len() == 1 {
            t!(lang, "words.near.only_one_of_them_one", fields = fields)
        } else {
            t!(lang, "words.near.only_one_of_them_many", fields = fields)
        });
    }
    t!(
        lang,
        "words.near.partial",
        parts = parts.join(t!(lang, "words.near.separator"))
    )
}

/// Why an edited copy is in its group.
pub fn edited_copy(fields: &[String], lang: Lang) -> String {
    let list = and_list(fields, lang);
    if fields.len() == 1 {
        t!(lang, "words.near.edited_one", fields = list)
    } else {
        t!(lang, "words.near.edited_many", fields = list)
    }
}

/// Why a copy edited by sentence is in its group: each change to `fields`, in the first copy's
/// order ("sentences 7 and 8 were replaced by “urgent”").
pub fn edited_by_sentences(fields: &[String], changes: &[SentenceChange], lang: Lang) -> String {
    let parts: Vec<String> = changes.iter().map(|c| sentence_change(c, lang)).collect();
    t!(
        lang,
        "words.near.edited_sentences",
        fields = and_list(fields, lang),
        changes = parts.join(t!(lang, "words.near.separator"))
    )
}

/// The most characters of a visitor's text quoted in a change.
const QUOTED_CHARS: usize = 40;

fn sentence_change(c: &SentenceChange, lang: Lang) -> String {
    let text = inline(&c.added, QUOTED_CHARS);
    let was = inline(&c.removed, QUOTED_CHARS);
    let numbered = |one: &str, two: &str, range: &str| match c.sentences.as_slice() {
        [n] => fill(lang, one, &[("n", n), ("text", &text)]),
        [a, b] => fill(lang, two, &[("a", a), ("b", b), ("text", &text)]),
        [a, .., b] => fill(lang, range, &[("a", a), ("b", b), ("text", &text)]),
        [] => String::new(),
    };
    if c.sentences.is_empty() || c.removed.is_empty() {
        if c.after == 0 {
            t!(lang, "words.near.sentence.added_start", text = text)
        } else {
            t!(lang, "words.near.sentence.added", n = c.after, text = text)
        }
    } else if c.added.is_empty() {
        numbered(
            "words.near.sentence.removed_one",
            "words.near.sentence.removed_two",
            "words.near.sentence.removed_range",
        )
    } else if c.whole_sentences {
        numbered(
            "words.near.sentence.replaced_one",
            "words.near.sentence.replaced_two",
            "words.near.sentence.replaced_range",
        )
    } else {
        t!(
            lang,
            "words.near.sentence.changed",
            n = c.sentences[0],
            was = was,
            text = text
        )
    }
}

/// A review log entry in one sentence: `Duplicate group dup:73 — marked
/// spam by aiko at 2026-11-29T10:15:30Z.`
pub fn log_sentence(
    kind: &str,
    item: &str,
    stored: &str,
    operator: &str,
    at: &str,
    lang: Lang,
) -> String {
    // The item's own prefix names its kind; the stored kind says it again.
    let kind = match crate::review::parse_item(item) {
        Ok((k, _)) => kind_named(k.as_str(), lang),
        Err(_) => kind_named(kind, lang),
    };
    match Decision::parse(stored) {
        Some(Decision::Reopened) => t!(
            lang,
            "words.log.reopened",
            kind = kind,
            item = item,
            operator = operator,
            at = at
        ),
        // Nobody decides an erasure: its row says what was done.
        Some(Decision::Erased) => t!(
            lang,
            "words.log.erased",
            kind = kind,
            item = item,
            operator = operator,
            at = at
        ),
        _ => t!(
            lang,
            "words.log.marked",
            kind = kind,
            item = item,
            decision = decision_named(stored, lang),
            operator = operator,
            at = at
        ),
    }
}

/// What the review log says of an item, for its detail.
pub fn resolved_as(who: &str, lang: Lang) -> String {
    t!(lang, "words.review.resolved_as", who = who)
}

pub fn looked_at(who: &str, lang: Lang) -> String {
    t!(lang, "words.review.looked_at", who = who)
}

pub fn new_copy_since(who: &str, lang: Lang) -> String {
    t!(lang, "words.review.new_copy_since", who = who)
}

pub fn reopened_after(who: &str, lang: Lang) -> String {
    t!(lang, "words.review.reopened_after", who = who)
}

// --- Empty lists ---------------------------------------------------------------

/// The text filter searches what items say, not where they stand: typed
/// "pending" or "resolved" (in either language), it is told where the key
/// that does that is.
pub fn standing_typed(filter: &str) -> bool {
    let typed = filter.trim().to_lowercase();
    [
        "pending",
        "unresolved",
        "resolved",
        "open",
        "未対応",
        "未解決",
        "対応済み",
        "対応済",
    ]
    .contains(&typed.as_str())
}

pub fn standing_not_text(lang: Lang) -> &'static str {
    t!(lang, "words.empty.standing_not_text")
}

/// Why a list shows nothing although it has items: what hides them, and
/// the key that shows them again (only keys that work on this tab).
pub fn nothing_shown(
    text_filter: bool,
    class_filter: bool,
    pending_only: bool,
    lang: Lang,
) -> String {
    let mut ways = Vec::new();
    if text_filter {
        ways.push(t!(lang, "words.empty.esc_clears_filter"));
    }
    if class_filter {
        ways.push(t!(lang, "words.empty.t_shows_every_class"));
    }
    if pending_only {
        ways.push(t!(lang, "words.empty.p_shows_resolved"));
    }
    if ways.is_empty() {
        return t!(lang, "words.empty.nothing").into();
    }
    if pending_only && !text_filter && !class_filter {
        return t!(lang, "words.empty.nothing_pending").into();
    }
    t!(
        lang,
        "words.empty.nothing_matches",
        ways = ways.join(t!(lang, "words.empty.separator"))
    )
}

// --- Help ----------------------------------------------------------------------

/// Rows of two texts, made once per language.
type Pairs = [Vec<(&'static str, &'static str)>; 2];

/// The help's explanations of the words the screen uses: (term, meaning).
pub fn glossary(lang: Lang) -> &'static [(&'static str, &'static str)] {
    static TABLES: LazyLock<Pairs> = LazyLock::new(|| {
        Lang::ALL.map(|lang| {
            vec![
                (
                    t!(lang, "terms.class.simultaneous"),
                    t!(lang, "words.glossary.simultaneous"),
                ),
                (
                    t!(lang, "terms.class.seconds"),
                    t!(lang, "words.glossary.seconds"),
                ),
                (
                    t!(lang, "terms.class.minutes"),
                    t!(lang, "words.glossary.minutes"),
                ),
                (
                    t!(lang, "words.term.exact"),
                    t!(lang, "words.glossary.exact"),
                ),
                (
                    t!(lang, "words.term.partial"),
                    t!(lang, "words.glossary.partial"),
                ),
                (
                    t!(lang, "words.term.edited"),
                    t!(lang, "words.glossary.edited"),
                ),
                (
                    t!(lang, "words.term.not_compared"),
                    t!(lang, "words.glossary.not_compared"),
                ),
                (
                    t!(lang, "words.standing.pending"),
                    t!(lang, "words.glossary.pending"),
                ),
                (
                    t!(lang, "words.standing.looked_at"),
                    t!(lang, "words.glossary.looked_at"),
                ),
                (
                    t!(lang, "words.standing.resolved"),
                    t!(lang, "words.glossary.resolved"),
                ),
                (
                    t!(lang, "words.term.fresh"),
                    t!(lang, "words.glossary.fresh"),
                ),
            ]
        })
    });
    &TABLES[lang as usize]
}

/// What each decision changes, and what it does not: (decisions, effect).
pub fn decision_effects(lang: Lang) -> &'static [(&'static str, &'static str)] {
    static TABLES: LazyLock<Pairs> = LazyLock::new(|| {
        Lang::ALL.map(|lang| {
            vec![
                (
                    t!(lang, "words.effect.duplicates_what"),
                    t!(lang, "words.effect.duplicates"),
                ),
                (
                    t!(lang, "words.effect.conflicts_what"),
                    t!(lang, "words.effect.conflicts"),
                ),
                (
                    t!(lang, "words.effect.state_what"),
                    t!(lang, "words.effect.state"),
                ),
                (
                    t!(lang, "words.effect.still_pending_what"),
                    t!(lang, "words.effect.still_pending"),
                ),
                (
                    t!(lang, "words.effect.bots_what"),
                    t!(lang, "words.effect.bots"),
                ),
                (
                    t!(lang, "words.effect.undo_what"),
                    t!(lang, "words.effect.undo"),
                ),
            ]
        })
    });
    &TABLES[lang as usize]
}

/// The heading of [`glossary`].
pub fn help_terms(lang: Lang) -> &'static str {
    t!(lang, "words.help.terms")
}

/// The heading of [`decision_effects`].
pub fn help_decisions(lang: Lang) -> &'static str {
    t!(lang, "words.help.decisions")
}

/// Whose data an erasure takes, as the line and the question name it.
pub fn erase_who(who: &crate::erase::Who, lang: Lang) -> String {
    use crate::erase::Who;
    match who {
        Who::Email(email) => inline(email, 60),
        Who::Phone(phone) => inline(phone, 30),
        Who::Receipts(ids) => ids
            .iter()
            .map(|id| format!("#{id}"))
            .collect::<Vec<_>>()
            .join(", "),
        Who::OlderThan { .. } => t!(lang, "status.erase.old_receipts").into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    const EN: Lang = Lang::En;
    const JA: Lang = Lang::Ja;

    #[test]
    fn stored_names_become_words() {
        assert_eq!(decision(Decision::FollowUp, EN), "follow-up");
        assert_eq!(decision_named("original_stands", EN), "original stands");
        assert_eq!(decision_named("still_pending", EN), "still pending");
        assert_eq!(decision_named("some_new_one", EN), "some new one");
        assert_eq!(state_named("in_flight", EN), "in flight");
        assert_eq!(decision_named("follow_up", JA), "要返信");
        assert_eq!(state_named("in_flight", JA), "処理中");
        assert_eq!(kind_named("duplicate", JA), "重複グループ");
    }

    #[test]
    fn why_a_near_copy_is_in_its_group_reads_as_a_sentence() {
        assert_eq!(
            partial_copy(&[], &list(&["company", "phone", "subject"]), &[], EN),
            "partial copy: company, phone and subject are filled in only in the first copy"
        );
        assert_eq!(
            partial_copy(&list(&["phone"]), &list(&["company"]), &[], EN),
            "partial copy: phone is filled in only in this copy; company is filled in only in the first copy"
        );
        assert_eq!(
            edited_copy(&list(&["message"]), EN),
            "edited copy: message differs from the first copy by a few words"
        );
        assert_eq!(
            partial_copy(&[], &list(&["company", "phone"]), &[], JA),
            "一部のみの受付: company、phone は最初の受付にだけ入力があります"
        );
    }

    #[test]
    fn a_copy_edited_by_sentence_says_which_sentences_in_both_languages() {
        let change = |sentences: &[u32], after, removed: &str, added: &str, whole| SentenceChange {
            sentences: sentences.to_vec(),
            after,
            removed: removed.into(),
            added: added.into(),
            whole_sentences: whole,
        };
        let urgent = [change(&[6, 7], 5, "交換を… 文言サンプル。", "urgent", true)];
        assert_eq!(
            edited_by_sentences(&list(&["message"]), &urgent, EN),
            "edited copy: in message, sentences 6 and 7 were replaced by “urgent”"
        );
        assert_eq!(
            edited_by_sentences(&list(&["message"]), &urgent, JA),
            "修正ありの受付: message で6文目と7文目が「urgent」に置き換えられています"
        );
        let several = [
            change(&[5], 4, "12", "1", false),
            change(&[2, 3, 4], 1, "a b c", "", true),
            change(&[], 7, "", "please reply\u{1b}[2J", false),
            change(&[], 0, "", "Hi.", false),
        ];
        assert_eq!(
            edited_by_sentences(&list(&["message"]), &several, EN),
            "edited copy: in message, in sentence 5, “12” became “1”; sentences 2 to 4 were \
             removed; “please reply\\x1b[2J” was added after sentence 7; “Hi.” was added at the start"
        );
        let long = "x".repeat(100);
        let cut = [change(&[1], 0, "a", &long, true)];
        let said = edited_by_sentences(&list(&["message"]), &cut, EN);
        assert!(said.ends_with("x…”"), "{said}");
    }

    #[test]
    fn a_log_entry_is_one_sentence() {
        assert_eq!(
            log_sentence(
                "duplicate",
                "dup:73",
                "spam",
                "aiko",
                "2026-11-29T10:15:30Z",
                EN
            ),
            "Duplicate group dup:73 — marked spam by aiko at 2026-11-29T10:15:30Z."
        );
        assert_eq!(
            log_sentence("stuck", "stuck:9", "reopened", "ken", "t", EN),
            "Stuck receipt stuck:9 — reopened by ken at t."
        );
        assert_eq!(
            log_sentence("conflict", "conflict:4", "follow_up", "ken", "t", EN),
            "Conflict conflict:4 — marked follow-up by ken at t."
        );
        assert_eq!(
            log_sentence("duplicate", "dup:73", "spam", "aiko", "t", JA),
            "重複グループ dup:73 — aiko さんが t に「スパム」と判断しました。"
        );
        // An erasure's item is no item of the analysis: its stored kind names it.
        assert_eq!(
            log_sentence("erasure", "erase:2237", "erased", "aiko", "t", EN),
            "Erasure erase:2237 — visitor data erased by aiko at t."
        );
        assert_eq!(
            log_sentence("erasure", "erase:2237", "erased", "aiko", "t", JA),
            "消去 erase:2237 — aiko さんが t に訪問者のデータを消去しました。"
        );
    }

    #[test]
    fn an_empty_list_names_only_what_hides_its_items() {
        assert_eq!(
            nothing_shown(true, false, false, EN),
            "Nothing matches (Esc clears the text filter)."
        );
        assert_eq!(
            nothing_shown(true, true, true, EN),
            "Nothing matches (Esc clears the text filter; t shows every class; P shows resolved items too)."
        );
        assert_eq!(
            nothing_shown(false, false, true, EN),
            "Nothing pending here (P shows resolved items too)."
        );
        assert!(nothing_shown(true, false, false, JA).contains("Esc"));
        assert!(standing_typed("未対応") && standing_typed(" Pending "));
    }

    #[test]
    fn every_stage_is_said_as_the_reading_says_it_in_english() {
        use crate::reading::ReadingStage;
        use crate::triage::engine::AnalysisStage;
        let stages = [
            ReadingStage::Receipts,
            ReadingStage::Replays,
            ReadingStage::Texts,
            ReadingStage::ReviewLog,
        ]
        .into_iter()
        .chain(AnalysisStage::ALL.map(ReadingStage::Analysis))
        .chain([ReadingStage::ItemsReceipts]);
        for s in stages {
            assert_eq!(stage(s, EN), s.label());
            assert_ne!(stage(s, JA), s.label());
        }
    }

    #[test]
    fn the_help_explains_its_words_in_either_language() {
        for lang in Lang::ALL {
            assert_eq!(glossary(lang).len(), 11);
            assert_eq!(decision_effects(lang).len(), 6);
        }
        assert_eq!(glossary(EN)[0].0, "simultaneous");
        assert_eq!(glossary(JA)[0].0, "同時");
        assert_eq!(glossary(JA)[7].0, "未対応");
    }
}
