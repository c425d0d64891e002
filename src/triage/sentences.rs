//! Edited copies by sentence: a visitor who resends an inquiry within the window may rewrite it
//! by whole sentences (two sentences replaced by "urgent", a second paragraph cut, a sentence
//! added) rather than by a few words. Such a copy is edited when most of it is the earlier
//! copy's sentences, and what it brings of its own is a few words: a genuine second message
//! brings a question of its own, even when it opens and closes with the same greeting.
//!
//! The texts are compared as sequences of sentences (ended by `。`, `!`, `?`, `.` and their
//! closing quotes): sentences equal in both are kept; in each run of changed sentences, what
//! the two share at either end is kept, and what lies between is new on its side. Counts are
//! in tokens (a word, or a Japanese character): see [`super::text::tokens`]. The thresholds and why are in
//! `docs/analysis.md`.

use std::ops::Range;

use similar::{Algorithm, DiffTag, capture_diff_slices};

use super::model::SentenceChange;
use super::text;

/// Texts of more sentences are left to the word rule.
pub const MAX_SENTENCES: usize = 200;
/// What the copy with less of its own brings: at most this many tokens...
pub const NEW_TOKENS_MIN: usize = 1;
/// ...or this share of its tokens, in percent, whichever is larger.
pub const NEW_TOKENS_PERCENT: usize = 10;
/// A short note in place of what was cut ("urgent", "please reply", "大至急"): at most this
/// many tokens, asking nothing...
pub const NOTE_MAX_TOKENS: usize = 4;
/// ...in place of at least this many times as many tokens.
pub const NOTE_CUT_RATIO: usize = 2;
/// What both keep: at least this share of the longer copy's tokens, in percent.
pub const KEPT_OF_LONGER_PERCENT: usize = 25;

/// Whether texts of these token counts could be sentence edits of each other: the shorter
/// must hold what both keep.
pub fn sizes_allow(tokens_a: usize, tokens_b: usize) -> bool {
    let (shorter, longer) = (tokens_a.min(tokens_b), tokens_a.max(tokens_b));
    shorter * 100 >= longer * KEPT_OF_LONGER_PERCENT
}

/// The sentences of a normalised text, trimmed, none empty.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if !is_terminator(c) {
            continue;
        }
        let mut end = i + c.len_utf8();
        let mut ascii_only = c.is_ascii();
        while let Some(&(j, d)) = iter.peek() {
            if is_terminator(d) || is_closing(d) {
                ascii_only &= d.is_ascii();
                end = j + d.len_utf8();
                iter.next();
            } else {
                break;
            }
        }
        // `3.5`, `example.com`, `?q=1`: a point between letters or digits ends nothing.
        if ascii_only && iter.peek().is_some_and(|&(_, d)| d.is_ascii_alphanumeric()) {
            continue;
        }
        push_trimmed(&mut out, &text[start..end]);
        start = end;
    }
    push_trimmed(&mut out, &text[start..]);
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, sentence: &'a str) {
    let s = sentence.trim();
    if !s.is_empty() {
        out.push(s);
    }
}

fn is_terminator(c: char) -> bool {
    matches!(c, '。' | '.' | '!' | '?' | '！' | '？' | '｡')
}

fn is_closing(c: char) -> bool {
    matches!(c, '」' | '』' | ')' | '）' | '"' | '\'' | '】' | '”' | '’')
}

/// What the comparison counts, in tokens.
#[derive(Default)]
struct Counts {
    /// In both texts.
    kept: usize,
    /// Only in the earlier text.
    only_a: usize,
    /// Only in the later text.
    only_b: usize,
    /// What the earlier text brings of its own asks a question.
    asks_a: bool,
    /// What the later text brings of its own asks a question.
    asks_b: bool,
    /// Sentences equal in both.
    equal_sentences: usize,
    /// A run of changed sentences replaced a sentence by a different one: its token edit
    /// distance is at least [`SWAP_MIN_TOKENS`] and half of either side's run.
    swapped: bool,
}

/// A changed sentence is a different one when the two differ by at least this many tokens
/// (and half of either side's run), token by token.
pub const SWAP_MIN_TOKENS: usize = 5;

/// Two texts of several sentences compared sentence by sentence.
pub struct SentenceComparison {
    counts: Counts,
    /// Where `b` differs from `a`, in `a`'s order.
    pub changes: Vec<SentenceChange>,
}

impl SentenceComparison {
    /// The tokens the copy with the fewer tokens brings of its own, its token count, the
    /// tokens the other copy brings of its own, and whether what it brings asks a question.
    fn own_of_shorter(&self) -> (usize, usize, usize, bool) {
        let c = &self.counts;
        let (total_a, total_b) = (c.kept + c.only_a, c.kept + c.only_b);
        if total_a <= total_b {
            (c.only_a, total_a, c.only_b, c.asks_a)
        } else {
            (c.only_b, total_b, c.only_a, c.asks_b)
        }
    }

    /// What the copy with the fewer tokens brings is a few tokens at most: max(1, 10 %) of
    /// its tokens, or a short note that asks nothing in place of at least twice as much that
    /// it cut ("大至急" for an 18-character question, but not "Open on Sunday?" for "Any
    /// parking?").
    fn brings_a_few_tokens(&self) -> bool {
        let (own, shorter, other, asks) = self.own_of_shorter();
        own <= NEW_TOKENS_MIN.max(shorter * NEW_TOKENS_PERCENT / 100)
            || (own <= NOTE_MAX_TOKENS && !asks && own * NOTE_CUT_RATIO <= other)
    }

    /// `b` is `a` rewritten by a sentence or two: at least one sentence kept whole, a few
    /// tokens of its own at most, and a quarter of the longer text kept.
    pub fn is_sentence_edit(&self) -> bool {
        let c = &self.counts;
        let longer = (c.kept + c.only_a).max(c.kept + c.only_b);
        !self.changes.is_empty()
            && c.equal_sentences >= 1
            && self.brings_a_few_tokens()
            && c.kept * 100 >= longer * KEPT_OF_LONGER_PERCENT
    }

    /// A sentence of `a` was replaced by a different one, more than a few tokens: another
    /// question between the same greeting and closing, however few words apart the whole
    /// texts are.
    pub fn swaps_a_sentence(&self) -> bool {
        self.counts.swapped && !self.brings_a_few_tokens()
    }
}

/// `a` and `b` compared sentence by sentence; `None` when both are single sentences (or
/// either has more than [`MAX_SENTENCES`]).
pub fn compare(a: &str, b: &str) -> Option<SentenceComparison> {
    let (sa, sb) = (sentences(a), sentences(b));
    if (sa.len() < 2 && sb.len() < 2) || sa.len() > MAX_SENTENCES || sb.len() > MAX_SENTENCES {
        return None;
    }
    let mut counts = Counts::default();
    let mut changes = Vec::new();
    let mut run: Option<(Range<usize>, Range<usize>)> = None;
    for op in capture_diff_slices(Algorithm::Myers, &sa, &sb) {
        let (tag, ra, rb) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            if let Some((ra, rb)) = run.take() {
                changes.push(compare_run(&sa, &sb, ra, rb, &mut counts));
            }
            counts.equal_sentences += ra.len();
            counts.kept += sa[ra].iter().map(|s| text::measure(s).0).sum::<usize>();
        } else {
            run = Some(match run {
                Some((pa, pb)) => (pa.start..ra.end, pb.start..rb.end),
                None => (ra, rb),
            });
        }
    }
    if let Some((ra, rb)) = run {
        changes.push(compare_run(&sa, &sb, ra, rb, &mut counts));
    }
    Some(SentenceComparison { counts, changes })
}

/// How `b` rewrites `a` by sentence, when it is a sentence edit of it
/// ([`SentenceComparison::is_sentence_edit`]); the changes in `a`'s order.
pub fn sentence_edit(a: &str, b: &str) -> Option<Vec<SentenceChange>> {
    compare(a, b)
        .filter(SentenceComparison::is_sentence_edit)
        .map(|c| c.changes)
}

/// Compares one run of changed sentences (`ra` of `a` against `rb` of `b`): the tokens the
/// two share at either end of the run are kept, what lies between is new on its side. So a
/// sentence whose end survives after a word put before it ("urgent 交換希望です。" against
/// "…でした。交換希望です。") keeps that end, and two different questions keep nothing but a
/// shared `。`.
fn compare_run(
    sa: &[&str],
    sb: &[&str],
    ra: Range<usize>,
    rb: Range<usize>,
    counts: &mut Counts,
) -> SentenceChange {
    let (ta, tb) = (tokens_of(&sa[ra.clone()]), tokens_of(&sb[rb.clone()]));
    let head = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
    let room = ta.len().min(tb.len()) - head;
    let tail = ta
        .iter()
        .rev()
        .zip(tb.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let (mid_a, mid_b) = (&ta[head..ta.len() - tail], &tb[head..tb.len() - tail]);
    counts.kept += head + tail;
    counts.only_a += mid_a.len();
    counts.only_b += mid_b.len();
    counts.asks_a |= asks(mid_a);
    counts.asks_b |= asks(mid_b);
    // A sentence replaced by a different one, not corrected here and there: aligned token by
    // token, most of each side still differs.
    if mid_a.len().min(mid_b.len()) >= SWAP_MIN_TOKENS {
        let d = strsim::generic_levenshtein(&mid_a.to_vec(), &mid_b.to_vec());
        counts.swapped |= d >= SWAP_MIN_TOKENS && d * 2 >= ta.len() && d * 2 >= tb.len();
    }
    describe(&sa[ra.clone()], &sb[rb], ra.start)
}

/// The tokens end a question: `?`, or Japanese `か` before the sentence's end.
fn asks(tokens: &[&str]) -> bool {
    tokens.iter().any(|t| t.contains(['?', '？']))
        || tokens
            .windows(2)
            .any(|w| w[0] == "か" && matches!(w[1], "。" | "!"))
        || tokens.last() == Some(&"か")
}

fn tokens_of<'a>(run: &[&'a str]) -> Vec<&'a str> {
    run.iter().flat_map(|s| text::tokens(s)).collect()
}

/// What changed in a run of sentences of `a` (the first numbered `first + 1`) against `b`'s:
/// the part between what the two share at either end, and the sentences of `a` it touches.
fn describe(run_a: &[&str], run_b: &[&str], first: usize) -> SentenceChange {
    let (a, b) = (run_a.join(" "), run_b.join(" "));
    let (head, tail) = text::shared_ends(&a, &b);
    let (removed, added) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let (removed_at, removed_end) = (head, a.len() - tail);
    // Each sentence's byte range in `a`.
    let mut spans = Vec::with_capacity(run_a.len());
    let mut at = 0;
    for s in run_a {
        spans.push(at..at + s.len());
        at += s.len() + 1;
    }
    let touched: Vec<usize> = spans
        .iter()
        .enumerate()
        .filter(|(_, span)| span.start < removed_end && removed_at < span.end)
        .map(|(i, _)| i)
        .collect();
    let before = spans.iter().filter(|span| span.end <= removed_at).count();
    let whole_sentences = !removed.trim().is_empty()
        && touched
            .iter()
            .all(|&i| removed_at <= spans[i].start && spans[i].end <= removed_end);
    SentenceChange {
        sentences: touched.iter().map(|&i| (first + i + 1) as u32).collect(),
        after: (first + before) as u32,
        removed: removed.trim().to_string(),
        added: added.trim().to_string(),
        whole_sentences,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::text::normalize_text;

    fn edit(a: &str, b: &str) -> Option<Vec<SentenceChange>> {
        sentence_edit(&normalize_text(a), &normalize_text(b))
    }

    #[test]
    fn sentences_end_at_japanese_and_english_stops_but_not_inside_numbers_or_addresses() {
        assert_eq!(
            sentences("お世話になっております。 見積もりをお願いします!至急です"),
            [
                "お世話になっております。",
                "見積もりをお願いします!",
                "至急です"
            ]
        );
        assert_eq!(
            sentences("see example.com. it costs 3.5 yen? yes「はい。」 ok"),
            [
                "see example.com.",
                "it costs 3.5 yen?",
                "yes「はい。」",
                "ok"
            ]
        );
        assert!(sentences("   ").is_empty());
    }

    const JA: &str = "いつもお世話になっております。株式会社東都企画の加藤です。\
        先日はお打ち合わせのお時間をいただきありがとうございました。\
        ご提案いただいたプランについて社内で検討いたしました。\
        その結果、12月から導入を進めたいと考えております。\
        つきましては正式なお見積もりをお送りいただけますでしょうか。\
        は癌指名ニュース文言サンプル。\
        何卒よろしくお願いいたします。";

    #[test]
    fn two_sentences_replaced_by_a_word_are_an_edit_and_say_which() {
        let b = JA.replace(
            "つきましては正式なお見積もりをお送りいただけますでしょうか。は癌指名ニュース文言サンプル。",
            "urgent ",
        );
        let changes = edit(JA, &b).expect("an edited copy");
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].sentences, [6, 7]);
        assert_eq!(changes[0].added, "urgent");
        assert!(changes[0].whole_sentences);
        assert!(changes[0].removed.ends_with("文言サンプル。"));
    }

    #[test]
    fn a_second_paragraph_replaced_by_a_word_is_an_edit() {
        let first = "Thank you for the quick reply. I checked the invoice for November. \
            The amount matches our order.";
        let second = "However the delivery address is still the old one. \
            Could you change it to our Osaka office? The new address is in the attached file.";
        let a = format!("{first}\n{second}");
        let b = format!("{first}\nurgent");
        let changes = edit(&a, &b).expect("an edited copy");
        assert_eq!(changes[0].sentences, [4, 5, 6]);
        assert_eq!(changes[0].added, "urgent");
        assert!(changes[0].whole_sentences);
    }

    #[test]
    fn an_added_sentence_and_a_corrected_one_are_an_edit() {
        let b = JA
            .replace("12月から", "1月から")
            .replace("何卒よろしく", "お急ぎでお願いします。何卒よろしく");
        let changes = edit(JA, &b).expect("an edited copy");
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].sentences, [5]);
        assert_eq!(
            (changes[0].removed.as_str(), changes[0].added.as_str()),
            ("12", "1")
        );
        assert!(!changes[0].whole_sentences);
        assert_eq!(changes[1].sentences, Vec::<u32>::new());
        assert_eq!(changes[1].after, 7);
        assert_eq!(changes[1].added, "お急ぎでお願いします。");
        assert_eq!(changes[1].removed, "");
    }

    #[test]
    fn another_question_between_the_same_greetings_is_not_an_edit() {
        let a =
            "お世話になっております。山田です。見積もりをお願いします。よろしくお願いいたします。";
        let b =
            "お世話になっております。山田です。納期を教えてください。よろしくお願いいたします。";
        assert_eq!(edit(a, b), None);
        let a = "Hello. This is Ada from Acme. Could you send the price list for 2027? Thanks.";
        let b = "Hello. This is Ada from Acme. Is your office open on Saturday mornings? Thanks.";
        assert_eq!(edit(a, b), None);
    }

    #[test]
    fn a_short_note_in_place_of_a_cut_question_is_an_edit_but_a_short_other_question_is_not() {
        let a = "高橋と申します。\n1月分の領収書を8枚発行してください。\nご検討ください。";
        let b = "高橋と申します。\n大至急 \nご検討ください。";
        let changes = edit(a, b).expect("a note for a cut question");
        assert_eq!(changes[0].sentences, [2]);
        assert_eq!(changes[0].added, "大至急");
        let a = "Hello. This is Ada. Any parking? Thanks.";
        let b = "Hello. This is Ada. Open on Sunday? Thanks.";
        assert_eq!(edit(a, b), None);
        let a = "Hello. This is Ada. What does the annual plan cost? Thanks.";
        let b = "Hello. This is Ada. Open Sunday? Thanks.";
        assert_eq!(edit(a, b), None, "a short question is no note");
        let a = "Hello. The item I got is damaged. We need an answer by August 26.\nThanks.";
        let b = "Hello. The item I got is damaged. please reply\nThanks.";
        assert!(edit(a, b).is_some(), "a note for a cut sentence");
    }

    #[test]
    fn a_copy_that_keeps_too_little_is_not_an_edit() {
        let a = "Hi. A long question about the contract terms and the renewal date. \
            Another about the invoice. A third about the delivery. A fourth about support. \
            A fifth about training. Thanks.";
        let b = "Hi. urgent";
        assert_eq!(edit(a, b), None);
        assert_eq!(edit(a, a), None, "equal texts are no edit");
        assert_eq!(edit("one sentence", "another one"), None);
    }
}
