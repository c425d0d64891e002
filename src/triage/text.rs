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
/// alone (kana, CJK ideographs, lower-case accented letters, emoji and the like).
pub fn normalize_into(text: &str, out: &mut String) {
    normalize_measured(text, out);
}

/// [`normalize_into`], returning the [`measure`] of what it appended.
pub fn normalize_measured(text: &str, out: &mut String) -> (usize, usize) {
    if let Some(measured) = normal_ascii_measure(text) {
        out.push_str(text);
        return measured;
    }
    let start = out.len();
    match fold_simple(text, out) {
        Some(measured) => measured,
        None => {
            out.truncate(start);
            out.push_str(&normalize_owned(text));
            measure(&out[start..])
        }
    }
}

/// The number of spaces of a text that [`is_normal_ascii`], else `None`.
/// Eight bytes at a time: most values (emails, numbers, codes) are such text.
fn normal_ascii_spaces(text: &str) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let b = text.as_bytes();
    if b.first() == Some(&b' ') || b.last() == Some(&b' ') {
        return None;
    }
    // For ASCII bytes (below 0x80) adding to each never carries into the next:
    // the high bit of each byte then says whether it is at least `lo`.
    let at_least = |w: u64, lo: u8| w.wrapping_add(ONES * u64::from(0x80 - lo)) & HIGHS;
    let mut spaces = 0;
    let mut last_space = false;
    let mut word = |w: u64| -> bool {
        if w & HIGHS != 0 {
            return false; // not ASCII
        }
        let control = at_least(w, b'\t') & !at_least(w, b'\r' + 1);
        let upper = at_least(w, b'A') & !at_least(w, b'Z' + 1);
        let space = at_least(w, b' ') & !at_least(w, b' ' + 1);
        let first_space = space & 0x80 != 0;
        if control | upper != 0 || space & (space << 8) != 0 || (last_space && first_space) {
            return false;
        }
        spaces += space.count_ones() as usize;
        last_space = space >> 63 != 0;
        true
    };
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        if !word(u64::from_le_bytes(c.try_into().expect("8 bytes"))) {
            return None;
        }
    }
    // The rest, made up to eight bytes with a letter.
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [b'a'; 8];
        buf[..rest.len()].copy_from_slice(rest);
        if !word(u64::from_le_bytes(buf)) {
            return None;
        }
    }
    Some(spaces)
}

/// [`normal_ascii_spaces`] a byte at a time, to check the fast one against.
#[cfg(test)]
fn normal_ascii_spaces_plain(text: &str) -> Option<usize> {
    let mut previous_space = true; // a leading space is not normal
    let mut spaces = 0;
    for &b in text.as_bytes() {
        match b {
            b' ' if previous_space => return None,
            b' ' => {
                previous_space = true;
                spaces += 1;
            }
            b'\t'..=b'\r' | b'A'..=b'Z' | 0x80.. => return None,
            _ => previous_space = false,
        }
    }
    (!previous_space || text.is_empty()).then_some(spaces)
}

/// The [`measure`] of a text that [`is_normal_ascii`] (which is its own
/// normal form), else `None`.
fn normal_ascii_measure(text: &str) -> Option<(usize, usize)> {
    normal_ascii_spaces(text)
        .map(|spaces| (if text.is_empty() { 0 } else { spaces + 1 }, text.len()))
}

/// The fast fold: ASCII lower-cased, stable characters kept, characters
/// with a simple mapping replaced, runs of white space folded to one space and
/// trimmed; returns the measure of what it wrote. `None` (with `out` partly
/// written) when the text holds a character that needs the general path.
fn fold_simple(text: &str, out: &mut String) -> Option<(usize, usize)> {
    let mut f = Folder {
        out,
        start: 0,
        pending_space: false,
        in_word: false,
        tokens: 0,
        chars: 0,
    };
    f.start = f.out.len();
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut block: Option<(u32, &'static Block)> = None;
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        if b < 0x80 {
            if b.is_ascii_whitespace() || b == 0x0b {
                f.space();
                i += 1;
                continue;
            }
            // ASCII words with single spaces between them (most of a
            // sentence), copied at once and lower-cased.
            let (j, spaces) = ascii_run(bytes, i);
            f.words_run(&text[i..j], spaces);
            i = j;
            continue;
        }
        let (u, len) = decode(bytes, i);
        if u >= PLANES_END {
            return None;
        }
        let table = match block {
            Some((high, t)) if high == u >> 8 => t,
            _ => {
                let t = block_of(u >> 8);
                block = Some((u >> 8, t));
                t
            }
        };
        match table.kinds[(u & 0xff) as usize] {
            WORD => f.piece(&text[i..i + len], false),
            UNSPACED => {
                // A run of Han and kana: each a token of its own, copied at once.
                let mut table;
                let mut j = i + len;
                let mut count = 1;
                let kana = block_of(0x30);
                while j < n && bytes[j] >= 0x80 {
                    if is_common_han(bytes, j) {
                        j += 3;
                        count += 1;
                        continue;
                    }
                    // Kana and CJK punctuation, U+3000..=U+30FF: the block's
                    // own table, without decoding.
                    if bytes[j] == 0xE3 && bytes[j + 1] < 0x84 {
                        let low = ((bytes[j + 1] & 3) << 6) | (bytes[j + 2] & 0x3F);
                        if kana.kinds[usize::from(low)] != UNSPACED {
                            break;
                        }
                        j += 3;
                        count += 1;
                        continue;
                    }
                    let (v, l) = decode(bytes, j);
                    if v >= PLANES_END {
                        break;
                    }
                    match block {
                        Some((high, t)) if high == v >> 8 => table = t,
                        _ => {
                            table = block_of(v >> 8);
                            block = Some((v >> 8, table));
                        }
                    }
                    if table.kinds[(v & 0xff) as usize] != UNSPACED {
                        break;
                    }
                    j += l;
                    count += 1;
                }
                f.unspaced_run(&text[i..j], count);
                i = j;
                continue;
            }
            SPACE => f.space(),
            MAPPED => {
                for m in table.mapped(u & 0xff).chars() {
                    let mut buf = [0u8; 4];
                    f.piece(m.encode_utf8(&mut buf), is_unspaced_script(m));
                }
            }
            _ => return None,
        }
        i += len;
    }
    Some((f.tokens, f.chars))
}

/// True for an ASCII byte that is part of a word: not white space.
#[inline(always)]
fn is_ascii_word_byte(b: u8) -> bool {
    b < 0x80 && !matches!(b, 0x09..=0x0D | b' ')
}

/// The end of the ASCII words from `i` (a word byte) on, joined by single
/// spaces, and the number of those spaces.
#[inline]
fn ascii_run(b: &[u8], mut i: usize) -> (usize, usize) {
    let mut spaces = 0;
    loop {
        i = word_end(b, i);
        if b.get(i) == Some(&b' ') && b.get(i + 1).is_some_and(|&c| is_ascii_word_byte(c)) {
            spaces += 1;
            i += 2;
        } else {
            return (i, spaces);
        }
    }
}

/// The first byte from `i` on that is not an ASCII word byte (or the end).
#[inline]
fn word_end(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    loop {
        // Eight bytes at a time to the first byte that is not ASCII or is at
        // most a space (exact for the lowest such byte).
        while let Some(c) = b.get(i..i + 8) {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            let stop = (w | (w.wrapping_sub(ONES * 0x21) & !w)) & HIGHS;
            if stop != 0 {
                i += (stop.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        // That byte, a control character that is part of a word, or one of
        // the last few.
        match b.get(i) {
            Some(&c) if is_ascii_word_byte(c) => i += 1,
            _ => return i,
        }
    }
}

/// True when the (valid) UTF-8 sequence at `i` is a CJK unified ideograph
/// (U+4E00..=U+9FFF, three bytes), all of them unspaced and stable: seen from
/// the bytes, without decoding or looking up a block (most of the text of
/// Chinese and Japanese forms).
#[inline(always)]
fn is_common_han(b: &[u8], i: usize) -> bool {
    matches!(b[i], 0xE5..=0xE9) || (b[i] == 0xE4 && b[i + 1] >= 0xB8)
}

/// The code point of the (valid) UTF-8 sequence at `i`, and its length.
#[inline(always)]
fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let b0 = u32::from(b[i]);
    if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | (u32::from(b[i + 1]) & 0x3F), 2)
    } else if b0 < 0xF0 {
        (
            ((b0 & 0x0F) << 12)
                | ((u32::from(b[i + 1]) & 0x3F) << 6)
                | (u32::from(b[i + 2]) & 0x3F),
            3,
        )
    } else {
        (
            ((b0 & 0x07) << 18)
                | ((u32::from(b[i + 1]) & 0x3F) << 12)
                | ((u32::from(b[i + 2]) & 0x3F) << 6)
                | (u32::from(b[i + 3]) & 0x3F),
            4,
        )
    }
}

/// What [`fold_simple`] has written so far, and how it measures.
struct Folder<'o> {
    out: &'o mut String,
    start: usize,
    pending_space: bool,
    in_word: bool,
    tokens: usize,
    chars: usize,
}

impl Folder<'_> {
    #[inline]
    fn space(&mut self) {
        self.pending_space = self.out.len() > self.start;
        self.in_word = false;
    }

    #[inline]
    fn before(&mut self) {
        if self.pending_space {
            self.out.push(' ');
            self.chars += 1;
            self.pending_space = false;
        }
    }

    /// ASCII words joined by `spaces` single spaces.
    #[inline]
    fn words_run(&mut self, run: &str, spaces: usize) {
        self.before();
        let at = self.out.len();
        self.out.push_str(run);
        self.out[at..].make_ascii_lowercase();
        self.chars += run.len();
        self.tokens += spaces + usize::from(!self.in_word);
        self.in_word = true;
    }

    /// Characters that are each a token of their own.
    #[inline]
    fn unspaced_run(&mut self, run: &str, count: usize) {
        self.before();
        self.out.push_str(run);
        self.chars += count;
        self.tokens += count;
        self.in_word = false;
    }

    /// One character, given as its UTF-8 text.
    #[inline]
    fn piece(&mut self, c: &str, unspaced: bool) {
        self.before();
        self.out.push_str(c);
        self.chars += 1;
        if unspaced {
            self.tokens += 1;
            self.in_word = false;
        } else {
            self.tokens += usize::from(!self.in_word);
            self.in_word = true;
        }
    }
}

const OTHER: u8 = 0;
/// NFKC- and case-fold-stable, part of a word.
const WORD: u8 = 1;
/// Stable, and a token of its own (Han, kana).
const UNSPACED: u8 = 2;
const SPACE: u8 = 3;
/// Replaced, in any context, by a fixed text of stable characters.
const MAPPED: u8 = 4;

/// What the fast fold knows of 256 code points.
struct Block {
    kinds: [u8; 256],
    mapped: Vec<(u8, Box<str>)>,
}

impl Block {
    fn mapped(&self, low: u32) -> &str {
        let at = self
            .mapped
            .binary_search_by_key(&(low as u8), |m| m.0)
            .expect("a mapped code point");
        &self.mapped[at].1
    }
}

/// The fast fold knows the first four planes: the multilingual, the
/// supplementary (emoji, which forms hold often) and the two ideographic ones
/// (the rarer CJK ideographs). The others hold no assigned characters but
/// tags and private use, left to the general path.
const PLANES_END: u32 = 0x4_0000;

/// The blocks of 256 code points below [`PLANES_END`], each built when first met.
static BLOCKS: [std::sync::OnceLock<Box<Block>>; (PLANES_END >> 8) as usize] =
    [const { std::sync::OnceLock::new() }; (PLANES_END >> 8) as usize];

fn block_of(high: u32) -> &'static Block {
    BLOCKS[high as usize].get_or_init(|| Box::new(build_block(high)))
}

/// True for a character that NFKC and full case folding leave as it is in any
/// context: NFKC quick check Yes (so it neither decomposes nor composes with
/// what precedes it), combining class 0, its own case fold, and not white space.
/// A text made only of such characters, ASCII and white space normalises by
/// lower-casing ASCII and folding white space (see the tests).
fn is_stable_char(c: char) -> bool {
    if c.is_whitespace()
        || unicode_normalization::char::canonical_combining_class(c) != 0
        || is_nfkc_quick(std::iter::once(c)) != IsNormalized::Yes
    {
        return false;
    }
    std::iter::once(c)
        .default_case_fold()
        .eq(std::iter::once(c))
}

/// The kinds of the code points `high << 8 .. (high + 1) << 8`. A character
/// is MAPPED when its compatibility decomposition is made of characters that
/// cannot reorder or compose with anything (combining class 0, NFKC quick
/// check Yes), so that NFKC maps it alone whatever surrounds it, and the case
/// fold of that is non-empty and made of lower-case ASCII and stable characters.
fn build_block(high: u32) -> Block {
    let mut kinds = [OTHER; 256];
    let mut mapped = Vec::new();
    for low in 0..256u32 {
        let u = (high << 8) | low;
        let Some(c) = char::from_u32(u) else {
            continue;
        };
        if u < 0x80 {
            continue; // ASCII is handled before the table
        }
        if c.is_whitespace() {
            kinds[low as usize] = SPACE;
        } else if is_stable_char(c) {
            kinds[low as usize] = if is_unspaced_script(c) {
                UNSPACED
            } else {
                WORD
            };
        } else {
            let decomposed: Vec<char> = std::iter::once(c).nfkd().collect();
            let inert = decomposed.iter().all(|&d| {
                unicode_normalization::char::canonical_combining_class(d) == 0
                    && is_nfkc_quick(std::iter::once(d)) == IsNormalized::Yes
            });
            if !inert || std::iter::once(c).nfkc().ne(decomposed.iter().copied()) {
                continue;
            }
            let folded: String = decomposed.iter().copied().default_case_fold().collect();
            let simple = !folded.is_empty()
                && folded.chars().all(|f| {
                    if f.is_ascii() {
                        f.is_ascii_graphic() && !f.is_ascii_uppercase()
                    } else {
                        is_stable_char(f)
                    }
                });
            if simple {
                kinds[low as usize] = MAPPED;
                mapped.push((low as u8, folded.into_boxed_str()));
            }
        }
    }
    Block { kinds, mapped }
}

#[cfg(test)]
fn is_stable(c: char) -> bool {
    let u = c as u32;
    u < PLANES_END && matches!(block_of(u >> 8).kinds[(u & 0xff) as usize], WORD | UNSPACED)
}

#[cfg(test)]
fn is_mapped(c: char) -> bool {
    let u = c as u32;
    u < PLANES_END && block_of(u >> 8).kinds[(u & 0xff) as usize] == MAPPED
}

/// ASCII without upper case, without white space other than single inner spaces.
fn is_normal_ascii(text: &str) -> bool {
    normal_ascii_spaces(text).is_some()
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
    few_words_apart(a, b).is_some()
}

/// The token edit distance of two normalised texts when they differ by a few
/// tokens ([`differs_by_a_few_words`]), else `None`.
pub fn few_words_apart(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let ((ta, ca), (tb, cb)) = (measure(a), measure(b));
    if !is_free_text_measure(ta, ca) && !is_free_text_measure(tb, cb) {
        return None;
    }
    let limit = few_edits(ta, tb);
    if ta.abs_diff(tb) > limit {
        return None;
    }
    // Tokens the texts share at either end are no edits: near copies differ
    // in a few words of long texts, so only those between are split up.
    let (head, tail) = shared_ends(a, b);
    let ta = tokens(&a[head..a.len() - tail]);
    let tb = tokens(&b[head..b.len() - tail]);
    token_distance_at_most(&ta, &tb, limit).filter(|&d| d >= 1)
}

/// True for a character after which (and before which) tokens always break.
fn breaks_tokens(c: char) -> bool {
    is_space(c) || is_unspaced_script(c)
}

/// The lengths of the longest start and end that `a` and `b` share and that
/// tokenise alike in both (a start ending after a token break, an end
/// starting at one), not overlapping: the tokens of each text are those of
/// the start, of what lies between, and of the end.
pub(crate) fn shared_ends(a: &str, b: &str) -> (usize, usize) {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let mut same = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    while !a.is_char_boundary(same) {
        same -= 1;
    }
    let head = a[..same]
        .char_indices()
        .rev()
        .find(|&(_, c)| breaks_tokens(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let room = x.len().min(y.len()) - head;
    let mut same = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take(room)
        .take_while(|(p, q)| p == q)
        .count();
    while !a.is_char_boundary(a.len() - same) {
        same -= 1;
    }
    let start = a.len() - same;
    let tail = a[start..]
        .char_indices()
        .find(|&(_, c)| breaks_tokens(c))
        .map_or(0, |(i, _)| same - i);
    (head, tail)
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
    fn common_han_seen_from_bytes_is_what_the_blocks_say() {
        for u in 0x3000..=0xFFFF_u32 {
            let Some(c) = char::from_u32(u) else { continue };
            let mut buf = [0u8; 4];
            let text = c.encode_utf8(&mut buf);
            if is_common_han(text.as_bytes(), 0) {
                assert!((0x4E00..=0x9FFF).contains(&u), "{u:x}");
                assert_eq!(
                    block_of(u >> 8).kinds[(u & 0xff) as usize],
                    UNSPACED,
                    "{u:x}"
                );
            } else {
                assert!(!(0x4E00..=0x9FFF).contains(&u), "{u:x}");
            }
        }
        // A run of them folds as the general path does.
        let text = "東都企画株式会社の加藤です。一丁目乙丙龥鿿";
        let mut fast = String::new();
        let measured = normalize_measured(text, &mut fast);
        assert_eq!(fast, normalize_owned(text));
        assert_eq!(measured, measure(&fast));
    }

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
        // Every stable or mapped character, alone and between others: a
        // block's at once, then one by one when the block disagrees.
        let mut mapped = 0;
        let check = |t: &str| {
            let mut fast = String::new();
            let m = fold_simple(t, &mut fast);
            (fast == normalize_owned(t) && m == Some(measure(&fast))).then_some(())
        };
        for high in 0..PLANES_END >> 8 {
            let chars: Vec<char> = (high << 8..(high + 1) << 8)
                .filter_map(char::from_u32)
                .filter(|&c| c >= '\u{80}' && (is_stable(c) || is_mapped(c)))
                .collect();
            mapped += chars.iter().filter(|&&c| is_mapped(c)).count();
            let one = |c: char| format!("A{c} x{c}{c}\u{3000}Q");
            if check(&chars.iter().map(|&c| one(c)).collect::<String>()).is_none() {
                for &c in &chars {
                    assert_eq!(check(&one(c)), Some(()), "{:x}", c as u32);
                }
            }
        }
        // Every white space character folds to a separator in NFKC too.
        for u in 0u32..0x11_0000 {
            let Some(c) = char::from_u32(u) else { continue };
            if c.is_whitespace() {
                let t = format!("a{c}b");
                let mut fast = String::new();
                let m = fold_simple(&t, &mut fast);
                assert_eq!(fast, normalize_owned(&t), "{u:x}");
                assert_eq!(m, Some(measure(&fast)), "{u:x}");
                assert!(c.to_string().nfkc().all(char::is_whitespace), "{u:x}");
            }
        }
        assert!(mapped > 1000, "{mapped}");
        // Half-width kana map alone; their voicing marks compose, so they
        // (and the text around them) take the general path.
        assert!(is_mapped('（') && is_mapped('Ａ') && is_mapped('①') && is_mapped('ｶ'));
        assert!(!is_mapped('ﾞ') && !is_mapped('É') && !is_stable('ﾞ'));
        for t in [
            "ＡＢＣ",
            "Straße",
            "ﾃｽﾄ",
            "É",
            "ｶﾞ",
            "ｶﾞｷﾞ ｶ",
            "が",
            "か\u{3099}",
            "😀 X",
            "Kind regards 😊🙏\u{fe0f}",
            "𠮷野家の𠮷田です",
            "𝐀𝐁 ｘ",
            "\u{e0041}\u{f0000} x",
            "Hi, this is Chris from Tailspin Toys.\nAfter the LAST update, 日本 OK ",
            " a\u{1}b c  d\u{b}e\u{1f}f ghijklmnopq rstuvwx yz\u{7f}. ",
            "お問い合わせ・ヿゟ「テスト」ー、。\u{3097}ｶ",
            "（株）３件",
            "あ日\u{3000}",
            "日あ\u{3000}x本\u{3000}語",
        ] {
            let mut out = String::new();
            normalize_into(t, &mut out);
            assert_eq!(out, normalize_owned(t), "{t}");
        }
    }

    #[test]
    fn normal_ascii_by_words_agrees_with_byte_by_byte() {
        for t in [
            "",
            " ",
            "a",
            "a ",
            " a",
            "a b",
            "a  b",
            "abcdefg h",
            "abcdefgh ijklmnop",
            "abcdefg  hijklmno",
            "abcdefgh",
            "abcdefg\x7f",
            "x@example.com",
            "+1 555 0100",
            "abcdefgA",
            "abcdefg\t",
            "abcdefgh\rx",
            "é",
            "abcdefghé",
        ] {
            assert_eq!(
                normal_ascii_spaces(t),
                normal_ascii_spaces_plain(t),
                "{t:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn normal_ascii_by_words_agrees_on_any_text(
            text in "[a-c @.AZ\t\n\r\x0b\x0c\x1f\x7f{}é]{0,40}",
        ) {
            proptest::prop_assert_eq!(normal_ascii_spaces(&text), normal_ascii_spaces_plain(&text));
        }

        #[test]
        fn normalize_into_agrees_with_the_general_path(
            text in "[a-zA-Z0-9 .,\t\n\u{1}\u{b}\u{a0}\u{3000}、。「」ー・ヿゟ\u{3097}àÀéÉßΣσ日本語あアｱﾞ゛\u{3099}ＡＺ①😀]{0,40}",
        ) {
            let mut out = String::from("prefix");
            let m = normalize_measured(&text, &mut out);
            proptest::prop_assert_eq!(&out[6..], normalize_owned(&text));
            proptest::prop_assert_eq!(m, measure(&out[6..]));
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

    /// [`differs_by_a_few_words`] over the whole texts' tokens, to check the
    /// one that splits up only what lies between their shared ends.
    fn differs_by_a_few_words_whole(a: &str, b: &str) -> bool {
        if a == b || (!is_free_text(a) && !is_free_text(b)) {
            return false;
        }
        let (ta, tb) = (tokens(a), tokens(b));
        let limit = few_edits(ta.len(), tb.len());
        token_distance_at_most(&ta, &tb, limit).is_some_and(|d| d >= 1)
    }

    fn edited(base: &str, edits: &[(usize, usize, String)]) -> String {
        let mut chars: Vec<char> = base.chars().collect();
        for (at, cut, with) in edits {
            let at = (*at).min(chars.len());
            let cut = (*cut).min(chars.len() - at);
            chars.splice(at..at + cut, with.chars());
        }
        chars.into_iter().collect()
    }

    proptest::proptest! {
        #[test]
        fn a_few_words_of_the_shared_ends_agree_with_the_whole_texts(
            base in "[ab あ日 x\u{3000}é]{0,40}",
            edits in proptest::collection::vec((0usize..40, 0usize..4, "[ab あ日 xé]{0,3}"), 0..4),
        ) {
            let (a, b) = (normalize_text(&base), normalize_text(&edited(&base, &edits)));
            proptest::prop_assert_eq!(
                differs_by_a_few_words(&a, &b),
                differs_by_a_few_words_whole(&a, &b),
                "{:?} {:?}", a, b
            );
            let (head, tail) = shared_ends(&a, &b);
            fn whole(t: &str, head: usize, tail: usize) -> Vec<&str> {
                let mut all = tokens(&t[..head]);
                all.extend(tokens(&t[head..t.len() - tail]));
                all.extend(tokens(&t[t.len() - tail..]));
                all
            }
            proptest::prop_assert_eq!(whole(&a, head, tail), tokens(&a));
            proptest::prop_assert_eq!(whole(&b, head, tail), tokens(&b));
            proptest::prop_assert_eq!(tokens(&a[..head]), tokens(&b[..head]));
            proptest::prop_assert_eq!(tokens(&a[a.len() - tail..]), tokens(&b[b.len() - tail..]));
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
