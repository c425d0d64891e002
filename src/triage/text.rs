//! Text rules shared by the fingerprint and the likeness tests: value
//! normalisation, tokens, what counts as free text, and "a few words" apart.

use std::borrow::Cow;

use caseless::Caseless;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// A value is free text (a message, not a name or a choice) when it has at
/// least this many tokens...
pub const FREE_TEXT_MIN_TOKENS: usize = 4;
/// ...and at least this many characters (so that a four-character Japanese
/// name, four tokens, is not free text).
pub const FREE_TEXT_MIN_CHARS: usize = 8;
/// "A few" edits is at most this many tokens...
pub const FEW_EDITS_MIN: usize = 2;
/// ...or this share of the longer text's tokens (in percent), whichever is larger.
pub const FEW_EDITS_PERCENT: usize = 20;

/// NFKC, full case folding, trimmed, runs of white space folded to one space.
pub fn normalize_text(text: &str) -> String {
    normalize_text_cow(text).into_owned()
}

/// [`normalize_text`], borrowing when the text is already normal (the common
/// case for keys and for plain ASCII values).
pub fn normalize_text_cow(text: &str) -> Cow<'_, str> {
    if is_normal_ascii(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    normalize_into(text, &mut out);
    Cow::Owned(out)
}

/// Appends [`normalize_text`] of `text` to `out`, without allocating for text
/// made of ASCII, white space and characters that NFKC and case folding leave
/// alone (kana, CJK ideographs, lower-case accented letters and the like).
pub fn normalize_into(text: &str, out: &mut String) {
    if is_normal_ascii(text) {
        out.push_str(text);
        return;
    }
    let start = out.len();
    if !fold_simple(text, out) {
        out.truncate(start);
        out.push_str(&normalize_owned(text));
    }
}

/// The fast fold: ASCII lower-cased, stable characters kept, runs of white
/// space folded to one space and trimmed. False (with `out` partly written)
/// when the text holds a character that needs the general path.
fn fold_simple(text: &str, out: &mut String) -> bool {
    let start = out.len();
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_ascii() {
            if (c as u8).is_ascii_whitespace() || c == '\u{b}' {
                pending_space = out.len() > start;
                continue;
            }
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_whitespace() {
            pending_space = out.len() > start;
        } else if is_stable(c) {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        } else {
            return false;
        }
    }
    true
}

/// True for a character that NFKC and full case folding leave as it is in any
/// context: NFKC quick check Yes (so it neither decomposes nor composes with
/// what precedes it), combining class 0, its own case fold, and not white space.
/// A text made only of such characters, ASCII and white space normalises by
/// lower-casing ASCII and folding white space (see the tests).
fn is_stable(c: char) -> bool {
    let u = c as u32;
    if u >= 0x1_0000 {
        return false;
    }
    let table = STABLE.get_or_init(stable_table);
    table[(u >> 6) as usize] & (1u64 << (u & 63)) != 0
}

static STABLE: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();

fn stable_table() -> Vec<u64> {
    let mut table = vec![0u64; 0x1_0000 / 64];
    let mut folded = String::new();
    for u in 0x80u32..0x1_0000 {
        let Some(c) = char::from_u32(u) else {
            continue;
        };
        if c.is_whitespace()
            || unicode_normalization::char::canonical_combining_class(c) != 0
            || is_nfkc_quick(std::iter::once(c)) != IsNormalized::Yes
        {
            continue;
        }
        folded.clear();
        folded.extend(std::iter::once(c).default_case_fold());
        if folded.chars().eq(std::iter::once(c)) {
            table[(u >> 6) as usize] |= 1u64 << (u & 63);
        }
    }
    table
}

/// ASCII without upper case, without white space other than single inner spaces.
fn is_normal_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut previous_space = true; // a leading space is not normal
    for &b in bytes {
        match b {
            b' ' if previous_space => return false,
            b' ' => previous_space = true,
            b'\t'..=b'\r' | b'A'..=b'Z' | 0x80.. => return false,
            _ => previous_space = false,
        }
    }
    !previous_space || bytes.is_empty()
}

fn normalize_owned(text: &str) -> String {
    if text.is_ascii() {
        // NFKC is the identity on ASCII and case folding is ASCII lower-casing.
        let mut out = fold_space(text);
        out.make_ascii_lowercase();
        return out;
    }
    // NFKC before folding (compatibility forms fold like their targets) and after
    // (folding can leave text that is not NFKC again).
    let folded: String = text.nfkc().default_case_fold().collect();
    let folded = match is_nfkc_quick(folded.chars()) {
        IsNormalized::Yes => folded,
        _ => folded.nfkc().collect(),
    };
    fold_space(&folded)
}

fn is_space(c: char) -> bool {
    c.is_whitespace()
}

fn fold_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(is_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// True for characters of scripts written without spaces between words
/// (Han, kana, CJK punctuation): each such character is a token of its own.
pub fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF     // CJK radicals, Kangxi radicals
        | 0x3000..=0x303F   // CJK symbols and punctuation
        | 0x3040..=0x30FF   // hiragana, katakana
        | 0x31F0..=0x31FF   // katakana phonetic extensions
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0xFF61..=0xFF9F   // half-width kana and punctuation
        | 0x20000..=0x3FFFF // CJK extensions B and later
    )
}

/// The tokens of a (normalised) text: words split on white space, and within a
/// word every character of an unspaced script (Japanese, Chinese) on its own.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for word in text.split(is_space).filter(|w| !w.is_empty()) {
        let mut start: Option<usize> = None;
        for (i, c) in word.char_indices() {
            if is_unspaced_script(c) {
                if let Some(s) = start.take() {
                    out.push(&word[s..i]);
                }
                out.push(&word[i..i + c.len_utf8()]);
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            out.push(&word[s..]);
        }
    }
    out
}

/// `tokens(text).len()` and the number of characters, without allocating.
pub fn measure(text: &str) -> (usize, usize) {
    if text.is_ascii() {
        let mut count = 0;
        let mut in_word = false;
        for &b in text.as_bytes() {
            let space = b == b' ' || (b'\t'..=b'\r').contains(&b);
            count += usize::from(!space && !in_word);
            in_word = !space;
        }
        return (count, text.len());
    }
    let mut count = 0;
    let mut chars = 0;
    let mut in_word = false;
    for c in text.chars() {
        chars += 1;
        if is_space(c) {
            in_word = false;
        } else if is_unspaced_script(c) {
            count += 1;
            in_word = false;
        } else if !in_word {
            count += 1;
            in_word = true;
        }
    }
    (count, chars)
}

/// Free text by its measure (see [`FREE_TEXT_MIN_TOKENS`], [`FREE_TEXT_MIN_CHARS`]).
pub fn is_free_text_measure(tokens: usize, chars: usize) -> bool {
    tokens >= FREE_TEXT_MIN_TOKENS && chars >= FREE_TEXT_MIN_CHARS
}

pub fn is_free_text(text: &str) -> bool {
    let (t, c) = measure(text);
    is_free_text_measure(t, c)
}

/// The most token edits that still count as "a few" for texts of these lengths.
pub fn few_edits(tokens_a: usize, tokens_b: usize) -> usize {
    let longer = tokens_a.max(tokens_b);
    FEW_EDITS_MIN.max(longer * FEW_EDITS_PERCENT / 100)
}

/// True when two normalised texts differ by a few tokens: the longer is free
/// text, and the token edit distance is at least 1 and at most [`few_edits`].
pub fn differs_by_a_few_words(a: &str, b: &str) -> bool {
    if a == b {
        return false;
    }
    if !is_free_text(a) && !is_free_text(b) {
        return false;
    }
    let ta = tokens(a);
    let tb = tokens(b);
    let limit = few_edits(ta.len(), tb.len());
    match token_distance_at_most(&ta, &tb, limit) {
        Some(d) => d >= 1,
        None => false,
    }
}

/// The token edit distance when it is at most `limit`, else `None`.
pub fn token_distance_at_most(a: &[&str], b: &[&str], limit: usize) -> Option<usize> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let (a, b) = (a.to_vec(), b.to_vec());
    let d = strsim::generic_levenshtein(&a, &b);
    (d <= limit).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_text_is_borrowed() {
        assert!(matches!(
            normalize_text_cow("hello world"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(normalize_text_cow(""), Cow::Borrowed(_)));
        for s in [" a", "a ", "a  b", "A", "a\tb", "a\x0bb", "é"] {
            assert!(matches!(normalize_text_cow(s), Cow::Owned(_)), "{s:?}");
        }
    }

    #[test]
    fn the_fast_fold_agrees_with_the_general_path() {
        // Every stable character, alone and between others.
        for u in 0x80u32..0x1_0000 {
            let Some(c) = char::from_u32(u) else { continue };
            if is_stable(c) {
                let t = format!("A{c} x{c}{c}\u{3000}Q");
                let mut fast = String::new();
                assert!(fold_simple(&t, &mut fast), "{u:x}");
                assert_eq!(fast, normalize_owned(&t), "{u:x}");
            }
        }
        // Every white space character folds to a separator in NFKC too.
        for u in 0u32..0x11_0000 {
            let Some(c) = char::from_u32(u) else { continue };
            if c.is_whitespace() {
                let t = format!("a{c}b");
                let mut fast = String::new();
                assert!(fold_simple(&t, &mut fast), "{u:x}");
                assert_eq!(fast, normalize_owned(&t), "{u:x}");
                assert!(c.to_string().nfkc().all(char::is_whitespace), "{u:x}");
            }
        }
        for t in [
            "ＡＢＣ",
            "Straße",
            "ﾃｽﾄ",
            "É",
            "ｶﾞ",
            "が",
            "か\u{3099}",
            "😀 X",
        ] {
            let mut out = String::new();
            normalize_into(t, &mut out);
            assert_eq!(out, normalize_owned(t), "{t}");
        }
    }

    proptest::proptest! {
        #[test]
        fn normalize_into_agrees_with_the_general_path(
            text in "[a-zA-Z0-9 \t\n\u{b}\u{a0}\u{3000}àÀéÉßΣσ日本語あアｱﾞ゛\u{3099}ＡＺ①😀]{0,24}",
        ) {
            let mut out = String::from("prefix");
            normalize_into(&text, &mut out);
            proptest::prop_assert_eq!(&out[6..], normalize_owned(&text));
        }
    }

    #[test]
    fn normalises_width_case_and_space() {
        assert_eq!(normalize_text("  Hello\t\n  WORLD  "), "hello world");
        assert_eq!(normalize_text("ＡＢＣ　ｄｅｆ"), "abc def");
        assert_eq!(normalize_text("Straße"), "strasse");
        assert_eq!(normalize_text("ﾃｽﾄ"), "テスト");
        assert_eq!(normalize_text("Ｃａｆé\u{3000}ÉTÉ"), "café été");
        assert_eq!(normalize_text(" \u{a0} "), "");
    }

    #[test]
    fn japanese_is_tokenised_by_character() {
        assert_eq!(
            tokens("見積もり 3件 please"),
            vec!["見", "積", "も", "り", "3", "件", "please"]
        );
        assert_eq!(measure("見積もり 3件 please"), (7, 14));
        assert_eq!(tokens("hello,  world"), vec!["hello,", "world"]);
    }

    #[test]
    fn free_text_needs_tokens_and_characters() {
        assert!(is_free_text("please call me back"));
        assert!(!is_free_text("a b c d"));
        assert!(!is_free_text("山田太郎"));
        assert!(is_free_text("お見積もりをお願いします"));
        assert!(!is_free_text("john smith"));
    }

    proptest::proptest! {
        #[test]
        fn measure_agrees_with_tokens(text in "[a-zA-Z \t\n\x0b日本語あ、é]{0,30}") {
            proptest::prop_assert_eq!(measure(&text), (tokens(&text).len(), text.chars().count()));
        }
    }

    #[test]
    fn a_few_words() {
        let a = "please send me the price list for the blue model";
        assert!(differs_by_a_few_words(
            a,
            "please send me the price list for the red model"
        ));
        assert!(differs_by_a_few_words(
            a,
            "please send us the price list for the red model"
        ));
        assert!(!differs_by_a_few_words(a, a));
        assert!(!differs_by_a_few_words(
            a,
            "when does the shop open on sunday morning"
        ));
        // 20% of 10 tokens is 2; three edits are too many
        assert!(!differs_by_a_few_words(
            a,
            "please mail us the price list for the red model"
        ));
        let j = "新しい製品の価格表を送ってください";
        assert!(differs_by_a_few_words(
            j,
            "新しい商品の価格表を送ってください"
        ));
        assert!(!differs_by_a_few_words(j, "営業時間を教えていただけますか"));
        assert!(!differs_by_a_few_words("山田太郎", "山田花子"));
    }
}
