//! The normal forms of short field values that repeat from receipt to receipt
//! (names, companies, subjects): a reading meets the same few thousand of them
//! again and again, and folding them (case, width, white space) and hashing
//! the result costs more than finding them here.
//!
//! Direct-mapped: each value has one slot, chosen by a hash of its raw text,
//! and a value that misses takes the slot over. No chains, so no payload can
//! make a lookup slow; the slots' buffers are reused, so nothing is allocated
//! once the slots are warm.

use super::hash;

/// Values longer than this (in bytes) are not kept: messages rarely repeat.
pub const MAX_LEN: usize = 64;

/// Slots; a power of two.
const SLOTS: usize = 4096;

const SEED: u64 = 0x6E6F_726D;

/// What the inspector makes of a value: its normal form and the measures and
/// hashes of that form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normal {
    pub value: u64,
    pub check: u64,
    pub tokens: usize,
    pub chars: usize,
}

#[derive(Default)]
struct Slot {
    /// The raw text followed by its normal form.
    both: String,
    raw_len: usize,
    normal: Option<Normal>,
}

/// The cache of one [`super::Scratch`] (one thread, one inspector: the checks
/// kept are those of that inspector's key).
pub struct Normals {
    slots: Vec<Slot>,
}

impl Default for Normals {
    fn default() -> Self {
        Self {
            slots: (0..SLOTS).map(|_| Slot::default()).collect(),
        }
    }
}

impl Normals {
    /// The slot of `raw`.
    pub fn slot(raw: &str) -> usize {
        hash::str(SEED, raw) as usize & (SLOTS - 1)
    }

    /// The normal form of `raw` and what goes with it, when slot `at` holds it.
    pub fn get(&self, at: usize, raw: &str) -> Option<(&str, Normal)> {
        let s = &self.slots[at];
        match s.normal {
            Some(n) if s.raw_len == raw.len() && &s.both[..s.raw_len] == raw => {
                Some((&s.both[s.raw_len..], n))
            }
            _ => None,
        }
    }

    /// Keeps `normal` (the normal form `text` of `raw`) in slot `at`.
    pub fn put(&mut self, at: usize, raw: &str, text: &str, normal: Normal) {
        let s = &mut self.slots[at];
        s.both.clear();
        s.both.push_str(raw);
        s.both.push_str(text);
        s.raw_len = raw.len();
        s.normal = Some(normal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_until_another_takes_its_slot() {
        let mut c = Normals::default();
        let n = Normal {
            value: 1,
            check: 2,
            tokens: 2,
            chars: 9,
        };
        let at = Normals::slot("Ada Lovelace");
        assert_eq!(c.get(at, "Ada Lovelace"), None);
        c.put(at, "Ada Lovelace", "ada lovelace", n);
        assert_eq!(c.get(at, "Ada Lovelace"), Some(("ada lovelace", n)));
        assert_eq!(c.get(at, "Ada Lovelac"), None);
        assert_eq!(c.get(at, "ada Lovelace"), None);
        c.put(at, "X", "x", n);
        assert_eq!(c.get(at, "Ada Lovelace"), None);
        assert_eq!(c.get(at, "X"), Some(("x", n)));
        // Raw text and normal form do not run into each other.
        c.put(at, "ab", "", n);
        assert_eq!(c.get(at, "a"), None);
        assert_eq!(c.get(at, "ab"), Some(("", n)));
    }
}
