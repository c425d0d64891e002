//! Signatures of rows' texts: the bytes and pairs of bytes a text holds, so
//! that most rows that cannot match a query are passed over unread.

use super::fold::SEPARATOR;

/// The bytes a text holds (a 256-bit set) and the pairs of adjacent bytes
/// it holds, by class (a 32×32-bit set: each letter a class of its own,
/// other bytes sharing a few).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Signature {
    pub(super) bytes: [u64; 4],
    pub(super) pairs: [u64; 16],
}

impl Signature {
    pub(super) fn of(text: &[u8]) -> Self {
        let mut sig = Signature::default();
        for &b in text {
            sig.bytes[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        // Classes from a table: this runs over every byte of every row.
        let mut before = match text.first() {
            Some(&b) => usize::from(CLASSES[usize::from(b)]),
            None => return sig,
        };
        for &b in &text[1..] {
            let now = usize::from(CLASSES[usize::from(b)]);
            let pair = before * 32 + now;
            sig.pairs[pair / 64] |= 1 << (pair % 64);
            before = now;
        }
        sig
    }

    /// True when every byte and pair of `wanted` is here.
    #[cfg(test)]
    pub(super) fn covers(&self, wanted: &Signature) -> bool {
        let all = |have: &[u64], want: &[u64]| have.iter().zip(want).all(|(h, w)| h & w == *w);
        all(&self.bytes, &wanted.bytes) && all(&self.pairs, &wanted.pairs)
    }

    /// True when holding the query's signature means holding the query:
    /// one byte, or two letters (a pair of letters is its own class).
    pub(super) fn decides(query: &[u8]) -> bool {
        match query {
            [_] => true,
            [a, b] => a.is_ascii_lowercase() && b.is_ascii_lowercase(),
            _ => false,
        }
    }
}

/// [`class`] of every byte.
const CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = class(b as u8) as u8;
        b += 1;
    }
    table
};

/// A byte's class for [`Signature::pairs`].
const fn class(b: u8) -> usize {
    match b {
        b'a'..=b'z' => (b - b'a') as usize,
        b'0'..=b'9' => 26,
        b' ' => 27,
        b'.' | b'@' | b'-' | b'_' | b'/' | b':' => 28,
        0x80.. => 29,
        SEPARATOR => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_pass_over_rows_that_cannot_match() {
        let row = Signature::of("shop smith\nx@corp.example\n".as_bytes());
        let holds = |q: &str| row.covers(&Signature::of(q.as_bytes()));
        for q in ["s", "sh", "shop", "mi", "@c", "p.e", "smith"] {
            assert!(holds(q), "{q}");
        }
        // No "hs", "ps", "px" or "z" in it.
        for q in ["hs", "ps", "z", "hopx"] {
            assert!(!holds(q), "{q}");
        }
        assert!(Signature::decides(b"sh") && Signature::decides(b"x"));
        assert!(!Signature::decides(b"s.") && !Signature::decides(b"sho"));
    }
}
