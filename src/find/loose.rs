//! Names and phone numbers as visitors type them: 渡辺 美咲 or 渡辺美咲,
//! 070-4350-0720 or 07043500720 or (070)4350-0720 or +81 70-4350-0720. The
//! operator types what they hear, so where the visitor put a space or a
//! dash must not decide whether a search finds them.
//!
//! A text's *compact* form leaves out what only parts a name or a number:
//! a run of spaces, dashes and brackets between two digits, and a run of
//! spaces between two Japanese characters (kanji, kana). Everything else
//! stays, spaces between Latin letters too: `misaki watanabe` is two words,
//! and an English sentence keeps its words apart. A query that, compacted,
//! is one run of letters and digits ([`Loose::of`]) is compared with the
//! compact form of each text; any other query as it is.
//!
//! Such a query found in a text is always found in its compact form (the
//! runs inside the query are bounded by the query's own characters, so they
//! are left out of both or of neither), which is why the compact form alone
//! answers it. Most texts have no run to leave out: their compact form is
//! the text itself, borrowed.

use std::borrow::Cow;

use super::prefilter::OTHER;

/// True for what may part the digits of a phone number (NFKC has made
/// full-width forms ASCII; the long vowel mark is how a Japanese keyboard
/// often types a dash).
fn parts_digits(c: char) -> bool {
    matches!(
        c,
        ' ' | '-' | '(' | ')' | '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{30FC}'
    )
}

/// Kanji and kana: a space between two of them only parts a family name
/// from a given name.
fn is_japanese(c: char) -> bool {
    matches!(c,
        '\u{3041}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{3005}'
        | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FFFF}')
}

/// Whether a run may be left out between `left` and `right`.
fn drops(left: Option<char>, right: Option<char>, only_spaces: bool) -> bool {
    match (left, right) {
        (Some(a), Some(b)) if a.is_ascii_digit() && b.is_ascii_digit() => true,
        (Some(a), Some(b)) => only_spaces && is_japanese(a) && is_japanese(b),
        _ => false,
    }
}

/// The compact form of a folded text (see the module's comment).
pub fn compact(text: &str) -> Cow<'_, str> {
    // Nothing is left out of a text without a space, dash or bracket (most
    // emails, keys and numbers): no allocation.
    let candidate = |b: u8| matches!(b, b' ' | b'-' | b'(' | b')' | 0xE2 | 0xE3);
    if !text.bytes().any(candidate) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if !parts_digits(chars[i]) {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let end = i + chars[i..].iter().take_while(|&&c| parts_digits(c)).count();
        let (left, right) = (out.chars().next_back(), chars.get(end).copied());
        if !drops(left, right, false) {
            // Within the run, spaces between two Japanese characters.
            let mut j = i;
            while j < end {
                let stop = j + chars[j..end].iter().take_while(|&&c| c == ' ').count();
                if stop == j {
                    out.push(chars[j]);
                    j += 1;
                    continue;
                }
                let before = if j == i { left } else { Some(chars[j - 1]) };
                let after = if stop == end {
                    right
                } else {
                    Some(chars[stop])
                };
                if !drops(before, after, true) {
                    out.extend(&chars[j..stop]);
                }
                j = stop;
            }
        }
        i = end;
    }
    if out.len() == text.len() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// [`compact`] of a payload's projection, as far as an ASCII query can
/// tell, into `out`: a run of spaces, dashes and brackets between two digits
/// is left out. A kana or kanji stands there as one byte, which may have
/// been a long vowel mark between digits: it is left out between digits
/// too. So this leaves out all that [`compact`] does around ASCII, and an
/// ASCII compact query found in a value is always found here.
pub fn compact_projected(projected: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.reserve(projected.len());
    let parts = |b: u8| matches!(b, b' ' | b'-' | b'(' | b')' | OTHER);
    let digit = |b: Option<&u8>| b.is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    while i < projected.len() {
        let b = projected[i];
        if !parts(b) {
            out.push(b);
            i += 1;
            continue;
        }
        let end = i + projected[i..].iter().take_while(|&&b| parts(b)).count();
        if !(digit(out.last()) && digit(projected.get(end))) {
            out.extend_from_slice(&projected[i..end]);
        }
        i = end;
    }
}

/// A query compared with the compact forms of texts: its compact form, and
/// a phone number's other way of being written (`070…` and `+81 70…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loose {
    forms: Vec<String>,
}

impl Loose {
    /// The loose reading of a folded query, when it has one: once compacted
    /// and without separators at its ends, one run of letters and digits
    /// (or `+` and digits) in which a left-out run could have stood (two
    /// digits, or two Japanese characters, side by side). Any other query
    /// finds what it finds as it is.
    pub fn of(query: &str) -> Option<Loose> {
        let trimmed = query.trim_matches(|c: char| parts_digits(c) && c != '\u{30FC}');
        let form = compact(trimmed).into_owned();
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let phone = form.strip_prefix('+').is_some_and(digits);
        if !(phone || (!form.is_empty() && form.chars().all(char::is_alphanumeric))) {
            return None;
        }
        let chars: Vec<char> = form.chars().collect();
        let could = chars
            .windows(2)
            .any(|w| drops(Some(w[0]), Some(w[1]), true));
        if !could {
            return None;
        }
        let mut forms = vec![form.clone()];
        // A Japanese number with its country code, and back.
        if let Some(rest) = form.strip_prefix("+81").filter(|r| digits(r)) {
            forms.push(format!("0{rest}"));
        } else if let Some(rest) = form.strip_prefix('0').filter(|r| digits(r) && r.len() >= 9) {
            forms.push(format!("+81{rest}"));
        }
        Some(Loose { forms })
    }

    /// What is looked for in the compact forms, the first the query's own.
    pub fn forms(&self) -> &[String] {
        &self.forms
    }

    /// True when the compact form of a folded `text` holds the query.
    pub fn found_in(&self, text: &str) -> bool {
        let compact = compact(text);
        self.forms.iter().any(|f| compact.contains(f.as_str()))
    }

    /// True when every text this finds, `before` finds too: the rows found
    /// for `before` may be narrowed to these.
    pub fn narrows(&self, before: &Loose) -> bool {
        self.forms
            .iter()
            .all(|f| before.forms.iter().any(|b| f.contains(b.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_parts_a_name_or_a_number_is_left_out() {
        for (text, compacted) in [
            ("渡辺 美咲", "渡辺美咲"),
            ("わたなべ みさき", "わたなべみさき"),
            ("ワタナベ ミサキ", "ワタナベミサキ"),
            ("サトー ハナコ", "サトーハナコ"),
            ("070-4350-0720", "07043500720"),
            ("070 4350 0720", "07043500720"),
            ("(070)4350-0720", "(07043500720"),
            ("tel: 070 - 4350 - 0720.", "tel: 07043500720."),
            ("070ー4350ー0720", "07043500720"),
            ("070\u{2212}4350\u{2010}0720", "07043500720"),
            ("+81 70-4350-0720", "+817043500720"),
            ("電話 070-4350-0720 まで", "電話 07043500720 まで"),
            ("渡辺 美咲 070-1", "渡辺美咲 0701"),
        ] {
            assert_eq!(compact(text), compacted, "{text}");
        }
        // What parts words stays.
        for text in [
            "misaki watanabe",
            "call me at 5 pm",
            "渡辺 misaki",
            "ラーメン",
            "a-1",
            "10 月",
            "-12",
            "渡辺 ",
            "",
        ] {
            assert!(matches!(compact(text), Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn a_query_of_one_run_is_compared_loosely() {
        let forms = |q: &str| Loose::of(q).map(|l| l.forms);
        assert_eq!(forms("渡辺 美咲").unwrap(), ["渡辺美咲"]);
        assert_eq!(forms("渡辺美咲").unwrap(), ["渡辺美咲"]);
        assert_eq!(
            forms("(070)4350-0720").unwrap(),
            ["07043500720", "+817043500720"]
        );
        assert_eq!(
            forms("+81 70-4350-0720").unwrap(),
            ["+817043500720", "07043500720"]
        );
        assert_eq!(forms("4350-0720").unwrap(), ["43500720"]);
        assert_eq!(forms("1907").unwrap(), ["1907"]);
        // Nothing a left-out run could have stood in: compared as typed.
        for q in [
            "smith",
            "john smith",
            "a1",
            "-4",
            "john@example.com",
            "渡",
            "ー",
            "",
            "k-1907",
        ] {
            assert_eq!(forms(q), None, "{q}");
        }
    }

    #[test]
    fn found_in_the_compact_form_of_any_way_of_writing_it() {
        let misaki = Loose::of("渡辺美咲").unwrap();
        let phone = Loose::of("07043500720").unwrap();
        for text in ["渡辺 美咲", "渡辺美咲", "お名前: 渡辺 美咲 様"] {
            assert!(misaki.found_in(text), "{text}");
        }
        assert!(!misaki.found_in("渡辺 美穂"));
        for text in [
            "070-4350-0720",
            "070 4350 0720",
            "(070)4350-0720",
            "+81 70-4350-0720",
            "07043500720",
        ] {
            assert!(phone.found_in(text), "{text}");
        }
        assert!(!phone.found_in("070-4350-0721"));
        assert!(!phone.found_in("070/4350/0720"));
    }

    /// The projection's compact form holds every ASCII compact form of a
    /// value: the search lets too many payloads through, never too few.
    #[test]
    fn the_compact_projection_holds_what_the_compact_values_hold() {
        for text in [
            "070-4350-0720",
            "渡辺 美咲 070 4350 0720",
            "070ー4350ー0720",
            "+81 70-4350-0720",
            "1 漢 2",
            "(03)1234-5678 まで",
            "12 - 34",
        ] {
            let value = crate::triage::text::normalize_text(text);
            let mut projected = Vec::new();
            assert!(
                super::super::prefilter::project(text, &mut projected),
                "{text}"
            );
            let mut out = Vec::new();
            compact_projected(&projected, &mut out);
            let compacted = compact(&value);
            // What an ASCII compact query can be: letters, digits, `+`.
            let query_char = |c: char| c.is_ascii_alphanumeric() || c == '+';
            for piece in compacted
                .split(|c| !query_char(c))
                .filter(|p| !p.is_empty())
            {
                assert!(
                    memchr::memmem::find(&out, piece.as_bytes()).is_some(),
                    "{piece:?} of {text:?}"
                );
            }
        }
    }

    fn pieces(parts: &'static [&'static str]) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        proptest::collection::vec(prop::sample::select(parts), 0..12).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        /// Whatever the text, an ASCII compact query its compact form
        /// holds is held by the compact form of its projection.
        #[test]
        fn the_compact_projection_never_misses(
            text in pieces(&["0", "1", "7", " ", "  ", "-", "(", ")", "ー", "漢", "あ", "a", "+", "８", "　", "－", ":"]),
            query in pieces(&["0", "1", "7", "a", "+"]),
        ) {
            let mut projected = Vec::new();
            proptest::prop_assert!(super::super::prefilter::project(&text, &mut projected));
            let mut out = Vec::new();
            compact_projected(&projected, &mut out);
            let value = crate::triage::text::normalize_text(&text);
            if !query.is_empty() && compact(&value).contains(query.as_str()) {
                proptest::prop_assert!(memchr::memmem::find(&out, query.as_bytes()).is_some());
            }
        }

        /// A query found in a text as typed is found in its compact form.
        #[test]
        fn a_query_found_as_typed_is_found_loosely(
            text in pieces(&["0", "1", " ", "-", "(", ")", "ー", "漢", "字", "a", "+"]),
            query in pieces(&["0", "1", " ", "-", "(", "ー", "漢", "字", "a", "+"]),
        ) {
            let (text, query) = (crate::triage::text::normalize_text(&text), crate::triage::text::normalize_text(&query));
            if let Some(loose) = Loose::of(&query)
                && text.contains(query.as_str())
            {
                proptest::prop_assert!(loose.found_in(&text), "{query:?} in {text:?}");
            }
        }
    }

    #[test]
    fn a_longer_query_narrows_a_shorter_one() {
        let l = |q| Loose::of(q).unwrap();
        assert!(l("0704").narrows(&l("070")));
        assert!(l("渡辺美咲").narrows(&l("渡辺 美")));
        assert!(!l("070").narrows(&l("0704")));
        // A whole number is also found written with its country code, where
        // its first digits are not.
        assert!(!l("07043500720").narrows(&l("0704350")));
        assert!(l("07043500720").narrows(&l("7043")));
    }
}
