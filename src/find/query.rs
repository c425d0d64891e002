//! What an operator types to find a receipt, read into what to look for.
//!
//! The words of a query are of three kinds:
//!
//! - a receipt number: `#1907` (only that receipt), or a bare number `1907`,
//!   which finds receipt 1907 *and* any receipt whose text holds 1907 (a
//!   phone number, an order number);
//! - a time: the words that read as one (`10:00`, `yesterday 10:00`,
//!   `11-29 10:00`, `10:00..11:00`, `2026-11-29 09:00 to 12:00`; see
//!   [`crate::model::zone::typed`]), or written the Japanese way (`昨日 10時`,
//!   `12月3日`, `10時～11時`; see [`super::japanese_time`]) in any language
//!   of the messages, full-width digits too, read in the operator's zone;
//!   `@` or `at:` before the first of them says so outright (`@10:00`);
//! - text: every other word, together one phrase, found in any field's
//!   value, the request key or the scope, folded as the fingerprint folds
//!   (NFKC, case, width, runs of white space); a name or a phone number is
//!   found whatever spaces or dashes part it ([`super::loose`]).
//!
//! Everything given must hold: `john@example.com yesterday 10:00` finds the
//! receipts holding that address that arrived within half an hour of 10:00
//! yesterday.

use unicode_normalization::UnicodeNormalization;

use super::japanese_time::{self, Piece};
use super::loose::Loose;
use crate::i18n::Lang;
use crate::model::zone::typed::{self, Span, SpanError};
use crate::model::{Millis, ReceiptId, Zone};
use crate::t;
use crate::triage::text::normalize_text;

/// A query, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// As typed.
    pub raw: String,
    /// The text to find, folded; `None` when the query has none.
    pub needle: Option<String>,
    /// The text compared without what parts a name or a phone number, when
    /// it is one run of letters and digits ([`Loose::of`]).
    pub loose: Option<Loose>,
    /// A receipt number to find.
    pub id: Option<ReceiptId>,
    /// True when the number was typed bare (`1907`): it is text as well.
    pub id_is_text: bool,
    /// When the receipt arrived.
    pub span: Option<Span>,
}

/// Why a query cannot be searched: one line to show.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QueryError(pub String);

fn bad(message: impl Into<String>) -> QueryError {
    QueryError(message.into())
}

/// Reads `raw` in `zone` as of `now_ms`; a refusal is said in the language
/// of the messages ([`crate::i18n::current`]).
pub fn parse(raw: &str, zone: Zone, now_ms: Millis) -> Result<Query, QueryError> {
    parse_in(raw, zone, now_ms, crate::i18n::current())
}

/// [`parse`], a refusal said in `lang`.
pub fn parse_in(raw: &str, zone: Zone, now_ms: Millis, lang: Lang) -> Result<Query, QueryError> {
    let words: Vec<&str> = raw.split_whitespace().collect();
    if words.is_empty() {
        return Err(bad(t!(lang, "error.find.empty")));
    }
    let today = zone.local(now_ms).map(|t| t.date());
    // Times are told apart in full-width forms too (`１０：００`).
    let folded: Vec<String> = words.iter().map(|w| w.nfkc().collect()).collect();
    let typed_words: Vec<&str> = words.iter().map(|w| strip_marker(w).unwrap_or(w)).collect();
    // Which words belong to the time: `@`/`at:` marks one, others look like one.
    let mut marked = vec![false; words.len()];
    let mut bare: Vec<&str> = Vec::with_capacity(words.len());
    let mut pieces: Vec<Option<Vec<Piece>>> = Vec::with_capacity(words.len());
    for (i, w) in folded.iter().enumerate() {
        let stripped = strip_marker(w);
        marked[i] = stripped.is_some();
        let w = stripped.unwrap_or(w);
        bare.push(w);
        let as_typed = |read: &str| {
            vec![Piece {
                read: read.to_string(),
                typed: typed_words[i].to_string(),
            }]
        };
        pieces.push(if japanese_time::is_joiner(w) {
            Some(as_typed(".."))
        } else if typed::is_time_word(w) {
            Some(as_typed(w))
        } else if let Some(p) = today.and_then(|today| japanese_time::read(w, today)) {
            Some(p)
        } else {
            // A marked word that reads as no time is refused as one.
            marked[i].then(|| as_typed(w))
        });
    }
    let timeish: Vec<bool> = pieces.iter().map(Option::is_some).collect();
    let runs = runs(&bare, &timeish);
    if runs.len() > 1 {
        return Err(bad(t!(lang, "error.find.two_times")));
    }
    let span = match runs.first() {
        Some(&(from, to)) => {
            let run: Vec<&Piece> = pieces[from..to].iter().flatten().flatten().collect();
            let read = run.iter().map(|p| p.read.as_str()).collect::<Vec<_>>();
            let span = typed::parse_span(&read.join(" "), zone, now_ms)
                .map_err(|e| as_typed(e, &typed_words[from..to], &run))
                .map_err(|e| bad(e.message(lang)))?;
            Some(span)
        }
        None => None,
    };
    let in_run = |i: usize| runs.first().is_some_and(|&(a, b)| (a..b).contains(&i));
    let mut id = None;
    let mut id_is_text = false;
    let mut text = Vec::new();
    for (i, &w) in words.iter().enumerate() {
        if in_run(i) {
            continue;
        }
        if let Some(n) = w.strip_prefix('#').and_then(number) {
            if id.is_some() {
                return Err(bad(t!(lang, "error.find.two_numbers")));
            }
            id = Some(n);
        } else {
            text.push(w);
        }
    }
    if id.is_none()
        && let [only] = text.as_slice()
        && let Some(n) = number(only)
    {
        id = Some(n);
        id_is_text = true;
    }
    let needle = Some(normalize_text(&text.join(" "))).filter(|t| !t.is_empty());
    if needle.is_none() && id.is_none() && span.is_none() {
        return Err(bad(t!(lang, "error.find.empty_folded")));
    }
    Ok(Query {
        raw: raw.trim().to_string(),
        loose: needle.as_deref().and_then(Loose::of),
        needle,
        id,
        id_is_text,
        span,
    })
}

/// A refusal of the time as it was read, said of what was typed: the words
/// of the run, or the piece a wrong date or time of day came from.
fn as_typed(e: SpanError, words: &[&str], run: &[&Piece]) -> SpanError {
    let typed = || crate::sanitize::inline(&words.join(" "), 40);
    let piece = |read: String| {
        run.iter()
            .find(|p| p.read == read)
            .map_or(read, |p| crate::sanitize::inline(&p.typed, 40))
    };
    match e {
        SpanError::Unreadable(_) => SpanError::Unreadable(typed()),
        SpanError::Backwards(_) => SpanError::Backwards(typed()),
        SpanError::NoSuchClock(read) => SpanError::NoSuchClock(piece(read)),
        SpanError::NoSuchDate(read) => SpanError::NoSuchDate(piece(read)),
    }
}

fn strip_marker(word: &str) -> Option<&str> {
    if let Some(rest) = word.strip_prefix('@')
        && !rest.is_empty()
    {
        return Some(rest);
    }
    let lower = word.get(..3)?;
    lower
        .eq_ignore_ascii_case("at:")
        .then(|| &word[3..])
        .filter(|r| !r.is_empty())
}

/// A receipt number: digits only, that fit.
fn number(word: &str) -> Option<ReceiptId> {
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// The runs of time words, as `[from, to)`; a `to` at either end of a run
/// is a word of the text (`send to`), and a run of nothing but `to` and `..`
/// is none.
fn runs(words: &[&str], timeish: &[bool]) -> Vec<(usize, usize)> {
    let joiner = |w: &str| w.eq_ignore_ascii_case("to") || japanese_time::is_joiner(w);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if !timeish[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < words.len() && timeish[i] {
            i += 1;
        }
        let (mut a, mut b) = (start, i);
        while a < b && joiner(words[a]) {
            a += 1;
        }
        while b > a && joiner(words[b - 1]) {
            b -= 1;
        }
        if words[a..b].iter().any(|w| !joiner(w) && *w != "..") {
            out.push((a, b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30T12:00:00Z.
    const NOW: Millis = 1_796_040_000_000;

    fn q(text: &str) -> Query {
        parse(text, Zone::UTC, NOW).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn text_is_folded_as_the_fingerprint_folds() {
        let query = q("  ＪＯＨＮ.Johnson33@Example.com ");
        assert_eq!(query.needle.as_deref(), Some("john.johnson33@example.com"));
        assert_eq!(query.id, None);
        assert_eq!(query.span, None);
        assert_eq!(q("John   Smith").needle.as_deref(), Some("john smith"));
    }

    #[test]
    fn receipt_numbers() {
        let hash = q("#1907");
        assert_eq!(
            (hash.id, hash.id_is_text, hash.needle),
            (Some(1907), false, None)
        );
        let bare = q("1907");
        assert_eq!(bare.id, Some(1907));
        assert!(bare.id_is_text);
        assert_eq!(bare.needle.as_deref(), Some("1907"));
        // A number among other words is text.
        assert_eq!(q("order 1907").id, None);
        assert!(parse("#1 #2", Zone::UTC, NOW).is_err());
    }

    #[test]
    fn times_with_text() {
        let query = q("john@example.com yesterday 10:00");
        assert_eq!(query.needle.as_deref(), Some("john@example.com"));
        let span = query.span.unwrap();
        assert_eq!(Zone::UTC.format_minutes(span.from_ms), "2026-11-29 09:30");
        assert_eq!(q("@10:00").span, q("10:00").span);
        assert_eq!(q("at:10:00 john").span, q("10:00").span);
        assert_eq!(q("10:00 to 11:00").span, q("10:00..11:00").span);
        assert_eq!(q("send to bob").needle.as_deref(), Some("send to bob"));
        assert_eq!(q("send to 10:00").needle.as_deref(), Some("send to"));
        let tokyo = Zone::parse("Asia/Tokyo").unwrap();
        let local = parse("10:00", tokyo, NOW).unwrap().span.unwrap();
        assert_eq!(Zone::UTC.format_minutes(local.from_ms), "2026-11-30 00:30");
    }

    fn tokyo() -> Zone {
        Zone::parse("Asia/Tokyo").unwrap()
    }

    /// The span `text` means in Tokyo, read with messages in `lang`.
    fn span_in(text: &str, lang: Lang) -> Span {
        let query = parse_in(text, tokyo(), NOW, lang).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(query.needle, None, "{text}");
        query.span.unwrap_or_else(|| panic!("{text}: no time"))
    }

    /// Each Japanese way of writing a time means what its English form
    /// means, whatever the language of the messages.
    #[test]
    fn japanese_times_read_as_their_english_forms() {
        // NOW is 2026-11-30 21:00 in Tokyo.
        let day_before = "2026-11-28";
        for (japanese, english) in [
            ("昨日 10:00", "yesterday 10:00"),
            ("きのう 10:00", "yesterday 10:00"),
            ("今日", "today"),
            ("きょう 9:30", "today 09:30"),
            ("昨日", "yesterday"),
            ("一昨日", day_before),
            ("おととい", day_before),
            ("12/3", "12-3"),
            ("2026/11/29", "2026-11-29"),
            ("12月3日", "12-3"),
            ("2026年11月29日", "2026-11-29"),
            ("10時", "10:00"),
            ("10時30分", "10:30"),
            ("10時30分15秒", "10:30:15"),
            ("10:30", "10:30"),
            ("10時半", "10:30"),
            ("10時ごろ", "10:00"),
            ("午後3時", "15:00"),
            ("午前9時", "09:00"),
            ("12月3日 10時", "12-3 10:00"),
            ("昨日 10時30分", "yesterday 10:30"),
            ("昨日10時", "yesterday 10:00"),
            ("昨日の10時", "yesterday 10:00"),
            ("一昨日 10時", "2026-11-28 10:00"),
            ("１０：００", "10:00"),
            ("昨日　１０時", "yesterday 10:00"),
            ("１２月３日", "12-3"),
            ("10時～11時", "10:00..11:00"),
            ("10時〜11時", "10:00..11:00"),
            ("10時~11時", "10:00..11:00"),
            ("10:00..11:00", "10:00..11:00"),
            ("10時から11時", "10:00..11:00"),
            ("10時から11時まで", "10:00..11:00"),
            ("10時 から 11時", "10:00..11:00"),
            ("10時 〜 11時", "10:00..11:00"),
            ("１０：００～１１：００", "10:00..11:00"),
            ("昨日 10時～11時", "yesterday 10:00..11:00"),
            ("12/3 10:00 to 12/3 11:00", "12-3 10:00..12-3 11:00"),
            ("昨日～今日", "yesterday..today"),
            ("@10時", "10:00"),
        ] {
            for lang in [Lang::En, Lang::Ja] {
                let english = parse_in(english, tokyo(), NOW, Lang::En).unwrap().span;
                assert_eq!(
                    Some(span_in(japanese, lang)),
                    english,
                    "{japanese} in {lang:?}"
                );
            }
        }
        let day = span_in("一昨日", Lang::Ja);
        assert_eq!(tokyo().format_minutes(day.from_ms), "2026-11-28 00:00");
    }

    #[test]
    fn japanese_times_with_text() {
        let query = parse_in("渡辺 昨日 10時", tokyo(), NOW, Lang::Ja).unwrap();
        assert_eq!(query.needle.as_deref(), Some("渡辺"));
        assert_eq!(query.span, Some(span_in("昨日 10:00", Lang::En)));
        // A joining word at either end of the time is text, as `to` is.
        let from = parse_in("田中 から", tokyo(), NOW, Lang::Ja).unwrap();
        assert_eq!(
            (from.needle.as_deref(), from.span),
            (Some("田中 から"), None)
        );
        let query = parse_in("田中 から 10時", tokyo(), NOW, Lang::Ja).unwrap();
        assert_eq!(query.needle.as_deref(), Some("田中 から"));
        assert!(query.span.is_some());
        // Words that only look a little like times are text.
        for text in ["3日", "12月", "10時間", "昨日の件", "時"] {
            let query = parse_in(text, tokyo(), NOW, Lang::Ja).unwrap();
            assert_eq!(query.span, None, "{text}");
            assert!(query.needle.is_some(), "{text}");
        }
    }

    #[test]
    fn bad_japanese_times_are_refused_as_typed() {
        let ja = |raw| parse_in(raw, tokyo(), NOW, Lang::Ja).unwrap_err().0;
        assert_eq!(
            ja("25時"),
            "25時 という時刻はありません（時は 0〜23、分と秒は 0〜59）"
        );
        assert!(ja("12月32日").contains("12月32日"), "{}", ja("12月32日"));
        assert!(
            ja("11時～10時").contains("11時～10時"),
            "{}",
            ja("11時～10時")
        );
        assert!(ja("10時から").contains("10時から"), "{}", ja("10時から"));
        let en = parse_in("昨日 25時", tokyo(), NOW, Lang::En).unwrap_err().0;
        assert!(en.starts_with("no such time of day: 25時"), "{en}");
    }

    #[test]
    fn bad_queries_say_why() {
        assert!(
            parse("", Zone::UTC, NOW)
                .unwrap_err()
                .0
                .starts_with("nothing to search for")
        );
        assert!(parse("   ", Zone::UTC, NOW).is_err());
        let e = parse("john 25:61", Zone::UTC, NOW).unwrap_err().0;
        assert!(e.starts_with("no such time of day: 25:61"), "{e}");
        assert!(parse("10:00 john 11:00", Zone::UTC, NOW).is_err());
    }

    #[test]
    fn refusals_in_japanese() {
        let ja = |raw| parse_in(raw, Zone::UTC, NOW, Lang::Ja).unwrap_err().0;
        assert!(ja("").starts_with("検索する内容がありません"), "{}", ja(""));
        assert_eq!(
            ja("john 25:61"),
            "25:61 という時刻はありません（時は 0〜23、分と秒は 0〜59）"
        );
        assert_eq!(ja("#1 #2"), "受付番号は1回の検索に1つまでです");
        assert!(
            ja("10:00 john 11:00").contains(".."),
            "{}",
            ja("10:00 john 11:00")
        );
    }
}
