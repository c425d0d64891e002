//! Deterministic 64-bit hashes for blocking, and a pass-through hasher for
//! maps whose keys already are such hashes. Equal hashes are always confirmed
//! on the strings before anything is reported, so a collision costs time only.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// The MurmurHash3 finaliser: every input bit affects every output bit.
#[inline]
pub fn fmix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// Hash of a byte string, seeded so that different uses do not share values.
pub fn bytes(seed: u64, data: &[u8]) -> u64 {
    let mut h = seed ^ (data.len() as u64).wrapping_mul(K);
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        h = (h.rotate_left(23) ^ word).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(buf)).wrapping_mul(K);
    }
    fmix(h)
}

pub fn str(seed: u64, text: &str) -> u64 {
    bytes(seed, text.as_bytes())
}

/// Combines a running hash with one more value (order matters).
#[inline]
pub fn combine(h: u64, x: u64) -> u64 {
    fmix(h.rotate_left(29).wrapping_mul(K) ^ x)
}

pub const SEED_KEY: u64 = 0x6B65_7973;
pub const SEED_VALUE: u64 = 0x7661_6C75;
pub const SEED_SCOPE: u64 = 0x7363_6F70;

/// A hasher for keys that are already well-mixed 64-bit hashes.
#[derive(Default, Clone, Copy)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, data: &[u8]) {
        self.0 = bytes(self.0, data);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub type HashMap64<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

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
}
