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
    // What is kept is copied a stretch at a time, and nothing is allocated
    // for a text with nothing left out (most texts): this runs over every
    // text the screen's filter holds, and over whole payloads when a name or
    // a number is searched for.
    let mut out: Option<String> = None;
    let mut from = 0;
    left_out(text, |gone| {
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[from..gone.start]);
        from = gone.end;
    });
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[from..]);
            Cow::Owned(out)
        }
    }
}

/// Calls `each` with the runs of letters and digits (and `+`) of the
/// compact form of `text` that hold a place where something was left out
/// (`渡辺美咲` of `お名前: 渡辺 美咲`, `07043500720` of `tel 070-4350-0720`), in
/// order. A loose query ([`Loose`]) is such a run or part of one, so it is
/// found in the compact form exactly when it is found in the text itself
/// or in one of these: the screen's filter keeps only these beside a text.
pub fn joined(text: &str, mut each: impl FnMut(&str)) {
    let mut gone = Vec::new();
    left_out(text, |r| gone.push(r));
    if gone.is_empty() {
        return;
    }
    // The compact form, and where in it something was left out.
    let mut compact = String::with_capacity(text.len());
    let mut seams = Vec::with_capacity(gone.len());
    let mut from = 0;
    for r in gone {
        compact.push_str(&text[from..r.start]);
        seams.push(compact.len());
        from = r.end;
    }
    compact.push_str(&text[from..]);
    let in_run = |c: char| c.is_alphanumeric() || c == '+';
    let mut done = 0;
    for seam in seams {
        if seam < done {
            continue;
        }
        let start = compact[..seam]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| in_run(c))
            .last()
            .map_or(seam, |(i, _)| i);
        let end = seam
            + compact[seam..]
                .chars()
                .take_while(|&c| in_run(c))
                .map(char::len_utf8)
                .sum::<usize>();
        if start < seam && seam < end {
            each(&compact[start..end]);
        }
        done = end.max(seam + 1);
    }
}

/// The length of the character at `at` when it may part digits
/// ([`parts_digits`]), else 0: read from the bytes, as most bytes of a text
/// are none.
#[inline]
fn parting(bytes: &[u8], at: usize) -> usize {
    let Some(&b) = bytes.get(at) else {
        return 0;
    };
    match b {
        b' ' | b'-' | b'(' | b')' => 1,
        0xE2 | 0xE3 => match bytes.get(at + 1..at + 3) {
            // U+2010–U+2015, U+2212, U+30FC.
            Some([0x80, 0x90..=0x95] | [0x88, 0x92]) if b == 0xE2 => 3,
            Some([0x83, 0xBC]) if b == 0xE3 => 3,
            _ => 0,
        },
        _ => 0,
    }
}

/// Calls `each` with the byte ranges of `text` its compact form leaves
/// out, in order.
fn left_out(text: &str, mut each: impl FnMut(std::ops::Range<usize>)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Only a run after a digit or one with a space can lose anything: any
    // other is kept, and bounds what is around it as it would if it were
    // text. So only spaces and digits are looked for (a continuation byte
    // is never one of them).
    while i < bytes.len() {
        let b = bytes[i];
        let n = if b == b' ' {
            1
        } else if b.is_ascii_digit() {
            i += 1;
            parting(bytes, i)
        } else {
            0
        };
        if n == 0 {
            if b != b' ' && !b.is_ascii_digit() {
                i += 1;
            }
            continue;
        }
        // The whole run, and what bounds it.
        let start = i;
        let mut end = i + n;
        let mut spaces = bytes[i] == b' ';
        while let n @ 1.. = parting(bytes, end) {
            spaces |= bytes[end] == b' ';
            end += n;
        }
        i = end;
        let left = text[..start].chars().next_back();
        let right = text[end..].chars().next();
        if drops(left, right, false) {
            each(start..end);
            continue;
        }
        if !spaces {
            continue;
        }
        // Within it, runs of spaces between two Japanese characters.
        let run = &text[start..end];
        let (mut near, mut spaced) = (left, None);
        for (k, d) in run.char_indices() {
            if d == ' ' {
                spaced.get_or_insert(k);
                continue;
            }
            if let Some(s) = spaced.take()
                && drops(near, Some(d), true)
            {
                each(start + s..start + k);
            }
            near = Some(d);
        }
        if let Some(s) = spaced
            && drops(near, right, true)
        {
            each(start + s..end);
        }
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
        // Characters are never split: a text without the query's first and
        // last is not compacted (most texts, for a name).
        let ends = |f: &String| {
            let mut chars = f.chars();
            chars.next().is_some_and(|c| text.contains(c))
                && chars.next_back().is_none_or(|c| text.contains(c))
        };
        if !self.forms.iter().any(ends) {
            return false;
        }
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
    use super::super::prefilter::{LONG_MARK, project, project_compact};
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
    fn the_runs_a_left_out_run_joined() {
        let runs = |text: &str| {
            let mut out = Vec::new();
            joined(text, |r| out.push(r.to_string()));
            out
        };
        assert_eq!(runs("お名前: 渡辺 美咲 様"), ["渡辺美咲様"]);
        assert_eq!(
            runs("tel 070-4350-0720, or +81 70 4350 0720."),
            ["07043500720", "+817043500720"]
        );
        assert_eq!(runs("渡辺 美咲 070-1"), ["渡辺美咲", "0701"]);
        assert!(runs("misaki watanabe, call 0701").is_empty());
        assert!(runs("").is_empty());
    }

    proptest::proptest! {
        /// A loose query is in the compact form exactly when it is in the
        /// text or in one of the runs a left-out run joined.
        #[test]
        fn the_joined_runs_answer_for_the_compact_form(
            text in pieces(&["0", "1", " ", "-", "(", "ー", "漢", "字", "a", "+", "."]),
            query in pieces(&["0", "1", "漢", "字", "a", "+"]),
        ) {
            let text = crate::triage::text::normalize_text(&text);
            if let Some(loose) = Loose::of(&query) {
                let mut runs = Vec::new();
                joined(&text, |r| runs.push(r.to_string()));
                let split = loose.forms().iter().any(|f| {
                    text.contains(f.as_str()) || runs.iter().any(|r| r.contains(f.as_str()))
                });
                proptest::prop_assert_eq!(split, loose.found_in(&text));
            }
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
            assert!(project(text, &mut projected), "{text}");
            let mut buffer = Vec::new();
            let out = compact_projected(&projected, &mut buffer);
            let compacted = compact(&value);
            // What an ASCII compact query can be: letters, digits, `+`.
            let query_char = |c: char| c.is_ascii_alphanumeric() || c == '+';
            for piece in compacted
                .split(|c| !query_char(c))
                .filter(|p| !p.is_empty())
            {
                assert!(
                    memchr::memmem::find(out, piece.as_bytes()).is_some(),
                    "{piece:?} of {text:?}"
                );
            }
        }
    }

    fn pieces(parts: &'static [&'static str]) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        proptest::collection::vec(prop::sample::select(parts), 0..12).prop_map(|p| p.concat())
    }

    /// What [`super::super::prefilter::project_compact`] writes, by
    /// definition: the projection, then a run of spaces, dashes, brackets and
    /// long vowel marks between two digits left out.
    fn compact_projected<'a>(projected: &'a [u8], out: &'a mut Vec<u8>) -> &'a [u8] {
        let parts = |b: u8| matches!(b, b' ' | b'-' | b'(' | b')' | LONG_MARK);
        out.clear();
        let (mut from, mut i, n) = (0, 0, projected.len());
        let mut dropped = false;
        while i + 1 < n {
            if !(projected[i].is_ascii_digit() && parts(projected[i + 1])) {
                i += 1;
                continue;
            }
            let end = i + 1 + projected[i + 1..].iter().take_while(|&&b| parts(b)).count();
            if projected.get(end).is_some_and(u8::is_ascii_digit) {
                out.extend_from_slice(&projected[from..=i]);
                from = end;
                dropped = true;
            }
            i = end;
        }
        if !dropped {
            return projected;
        }
        out.extend_from_slice(&projected[from..]);
        out
    }

    /// The compact form by definition, a character at a time.
    fn by_definition(text: &str) -> String {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            if !parts_digits(chars[i]) {
                out.push(chars[i]);
                i += 1;
                continue;
            }
            let end = i + chars[i..].iter().take_while(|&&c| parts_digits(c)).count();
            let (left, right) = (chars[..i].last().copied(), chars.get(end).copied());
            if !drops(left, right, false) {
                for j in i..end {
                    let is_space = |k: usize| chars.get(k) == Some(&' ');
                    // The space run this space is in, and what bounds it.
                    let (mut a, mut b) = (j, j + 1);
                    while a > i && is_space(a - 1) {
                        a -= 1;
                    }
                    while b < end && is_space(b) {
                        b += 1;
                    }
                    let near = |k: Option<usize>| k.and_then(|k| chars.get(k).copied());
                    let before = if a == 0 { None } else { near(Some(a - 1)) };
                    let gone = chars[j] == ' ' && drops(before, near(Some(b)), true);
                    if !gone {
                        out.push(chars[j]);
                    }
                }
            }
            i = end;
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn compact_is_its_definition(
            text in pieces(&["0", "1", " ", "  ", "-", "(", ")", "ー", "漢", "字", "あ", "a", "+", "\u{2212}", "x"]),
        ) {
            proptest::prop_assert_eq!(compact(&text), by_definition(&text));
        }

        /// Whatever the text, an ASCII compact query its compact form
        /// holds is held by the compact form of its projection.
        #[test]
        fn the_compact_projection_never_misses(
            text in pieces(&["0", "1", "7", " ", "  ", "-", "(", ")", "ー", "漢", "あ", "a", "+", "８", "　", "－", ":"]),
            query in pieces(&["0", "1", "7", "a", "+"]),
        ) {
            let mut projected = Vec::new();
            proptest::prop_assert!(project(&text, &mut projected));
            let mut buffer = Vec::new();
            let out = compact_projected(&projected, &mut buffer);
            // Written in one pass, it is what it is by definition.
            let mut at_once = Vec::new();
            proptest::prop_assert!(project_compact(&text, &mut at_once));
            proptest::prop_assert_eq!(&at_once[..], out);
            let value = crate::triage::text::normalize_text(&text);
            if !query.is_empty() && compact(&value).contains(query.as_str()) {
                proptest::prop_assert!(memchr::memmem::find(out, query.as_bytes()).is_some());
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
