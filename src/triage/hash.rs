//! Deterministic 64-bit hashes for blocking, and a keyed hash to confirm that
//! equal ones are equal texts. The fixed hashes are foldhash's with fixed
//! seeds, so a text hashes the same in every run and the answers never depend
//! on the process. Equal hashes are always confirmed on the strings before
//! anything is reported, so a collision costs time only.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use foldhash::fast::FixedState;

/// Mixes a 64-bit value (a sum of hashes, say) into a hash.
#[inline]
pub fn mix(x: u64) -> u64 {
    FixedState::default().hash_one(x)
}

/// Hash of a byte string, seeded so that different uses do not share values.
#[inline]
pub fn bytes(seed: u64, data: &[u8]) -> u64 {
    let mut h = FixedState::with_seed(seed).build_hasher();
    h.write(data);
    h.finish()
}

pub fn str(seed: u64, text: &str) -> u64 {
    bytes(seed, text.as_bytes())
}

/// Combines a running hash with one more value (order matters).
#[inline]
pub fn combine(h: u64, x: u64) -> u64 {
    let mut s = FixedState::default().build_hasher();
    s.write_u64(h);
    s.write_u64(x);
    s.finish()
}

pub const SEED_KEY: u64 = 0x6B65_7973;
pub const SEED_VALUE: u64 = 0x7661_6C75;
pub const SEED_SCOPE: u64 = 0x7363_6F70;

const MERSENNE: u64 = (1 << 61) - 1;

/// `a * b` modulo the prime, for `a, b` at most the prime; the result is at
/// most the prime (the prime itself standing for zero).
#[inline]
fn mul_mod(a: u64, b: u64) -> u64 {
    let x = u128::from(a) * u128::from(b);
    let v = ((x as u64) & MERSENNE) + ((x >> 61) as u64);
    if v >= MERSENNE { v - MERSENNE } else { v }
}

/// A keyed hash for checking that texts with equal fixed hashes are equal:
/// the text, cut into 7-byte chunks and followed by its length, is read as a
/// polynomial evaluated at a point drawn at random per process, modulo the
/// prime 2^61 - 1. Two different texts of at most `n` chunks have the same
/// value with probability at most (n + 1) / 2^61 whatever they are, so texts
/// cannot be chosen to collide without knowing the point.
///
/// Written here rather than taken from a crate because that bound is the
/// point: no general-purpose hasher gives one for texts chosen by strangers,
/// and it is what lets equal fixed hashes be confirmed without the texts.
#[derive(Clone, Copy, Debug)]
pub struct Keyed {
    point: u64,
    /// `point` squared, for two chunks a step (see [`Keyed::bytes`]).
    square: u64,
}

impl Default for Keyed {
    fn default() -> Self {
        Self::new()
    }
}

impl Keyed {
    /// A fresh random point.
    pub fn new() -> Self {
        let bits = std::hash::RandomState::new().hash_one(0x006b_6579_6564_u64);
        Self::at(bits % (MERSENNE - 1) + 1)
    }

    /// The hash at `point` (below the prime, not zero).
    fn at(point: u64) -> Self {
        Self {
            point,
            square: mul_mod(point, point),
        }
    }

    #[inline]
    fn step(&self, h: u64, m: u64) -> u64 {
        let x = u128::from(h) * u128::from(self.point);
        let mut v = ((x as u64) & MERSENNE) + ((x >> 61) as u64);
        if v >= MERSENNE {
            v -= MERSENNE;
        }
        v += m; // m < 2^61: v < 2 * MERSENNE
        if v >= MERSENNE { v - MERSENNE } else { v }
    }

    /// `h * point^2 + a * point + b`: two steps of Horner's rule, where the
    /// product of `a` does not wait for `h` (the steps one at a time make a
    /// chain of dependent multiplications). `b < 2^56`.
    #[inline]
    fn two_steps(&self, h: u64, a: u64, b: u64) -> u64 {
        // Each product is at most the prime: the sum stays below 2^63.
        let v = mul_mod(h, self.square) + mul_mod(a, self.point) + b;
        let v = (v & MERSENNE) + (v >> 61);
        if v >= MERSENNE { v - MERSENNE } else { v }
    }

    /// The keyed hash of some bytes (61 bits).
    pub fn bytes(&self, data: &[u8]) -> u64 {
        const LOW56: u64 = (1 << 56) - 1;
        let word =
            |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes")) & LOW56;
        let mut h = 0u64;
        let mut i = 0;
        // The chunks two at a time while both can be read as words, then as
        // one chunk a step does.
        while i + 15 <= data.len() {
            h = self.two_steps(h, word(i), word(i + 7));
            i += 14;
        }
        while i + 8 <= data.len() {
            let w = u64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes"));
            h = self.step(h, w & LOW56);
            i += 7;
        }
        if i < data.len() {
            let mut buf = [0u8; 8];
            buf[..data.len() - i].copy_from_slice(&data[i..]);
            h = self.step(h, u64::from_le_bytes(buf) & LOW56);
        }
        self.step(h, data.len() as u64 & LOW56)
    }

    pub fn str(&self, text: &str) -> u64 {
        self.bytes(text.as_bytes())
    }

    /// The keyed hash of a sequence of values (each cut in two 32-bit halves).
    pub fn words(&self, words: impl IntoIterator<Item = u64>) -> u64 {
        let mut h = 0u64;
        let mut n = 0u64;
        for w in words {
            // Both halves in one go: the same as a step for each.
            h = self.two_steps(h, w & 0xffff_ffff, w >> 32);
            n += 1;
        }
        self.step(h, n)
    }
}

/// A map keyed by 64-bit hashes of the analysis (deterministic: a run's order
/// of iteration is the same every time).
pub type HashMap64<V> = HashMap<u64, V, FixedState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_and_seeded() {
        assert_eq!(str(1, "hello"), str(1, "hello"));
        assert_ne!(str(1, "hello"), str(2, "hello"));
        assert_ne!(str(1, "hello"), str(1, "hellp"));
        assert_ne!(str(1, "a\0"), str(1, "a"));
        assert_ne!(combine(1, 2), combine(2, 1));
    }

    /// [`Keyed::bytes`] one chunk a step, to check the fast one against.
    fn keyed_plain(k: &Keyed, data: &[u8]) -> u64 {
        const LOW56: u64 = (1 << 56) - 1;
        let mut h = 0u64;
        let mut i = 0;
        while i + 8 <= data.len() {
            let w = u64::from_le_bytes(data[i..i + 8].try_into().unwrap());
            h = k.step(h, w & LOW56);
            i += 7;
        }
        if i < data.len() {
            let mut buf = [0u8; 8];
            buf[..data.len() - i].copy_from_slice(&data[i..]);
            h = k.step(h, u64::from_le_bytes(buf) & LOW56);
        }
        k.step(h, data.len() as u64 & LOW56)
    }

    #[test]
    fn two_chunks_a_step_give_the_plain_hash() {
        let data: Vec<u8> = (0..200u32).map(|i| (i * 37 + 255) as u8).collect();
        let ones = [0xffu8; 64];
        for point in [
            1,
            2,
            MERSENNE - 1,
            MERSENNE - 2,
            1 << 60,
            Keyed::new().point,
        ] {
            let k = Keyed::at(point);
            for n in 0..data.len() {
                assert_eq!(
                    k.bytes(&data[..n]),
                    keyed_plain(&k, &data[..n]),
                    "{point} {n}"
                );
            }
            for n in 0..ones.len() {
                assert_eq!(
                    k.bytes(&ones[..n]),
                    keyed_plain(&k, &ones[..n]),
                    "{point} {n}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn words_two_halves_a_step_give_the_plain_hash(
            words in proptest::collection::vec(proptest::num::u64::ANY, 0..20),
            point in 1..MERSENNE,
        ) {
            let k = Keyed::at(point);
            let mut h = 0u64;
            for &w in &words {
                h = k.step(k.step(h, w & 0xffff_ffff), w >> 32);
            }
            h = k.step(h, words.len() as u64);
            proptest::prop_assert_eq!(k.words(words.iter().copied()), h);
        }

        #[test]
        fn two_chunks_a_step_agree_on_any_bytes(
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..80),
            point in 1..MERSENNE,
        ) {
            let k = Keyed::at(point);
            proptest::prop_assert_eq!(k.bytes(&data), keyed_plain(&k, &data));
        }
    }

    #[test]
    fn keyed_checks_tell_texts_apart() {
        let k = Keyed::new();
        let texts = [
            "",
            "a",
            "a\0",
            "\0",
            "abcdefg",
            "abcdefg\0",
            "abcdefgh",
            "abcdefghijklmno",
        ];
        for (i, a) in texts.iter().enumerate() {
            assert_eq!(k.str(a), k.str(a));
            assert!(k.str(a) < MERSENNE);
            for b in &texts[i + 1..] {
                assert_ne!(k.str(a), k.str(b), "{a:?} {b:?}");
            }
        }
        assert_ne!(k.words([1, 2]), k.words([2, 1]));
        assert_ne!(k.words([1]), k.words([1, 0]));
        // Another point, other values.
        assert_ne!(Keyed::new().str("abc"), k.str("abc"));
    }
}
