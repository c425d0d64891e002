//! Compact per-receipt facts for the grouping passes: hashes and sizes only,
//! so that candidates are compared as integers before any string is touched.

use super::hash;
use super::model::Receipt;
use super::text;

/// One visitor field as hashes and sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldFact {
    pub key: u64,
    pub value: u64,
    /// Index of the field in `Receipt::visitor`.
    pub slot: u16,
    /// Tokens of the value (saturating).
    pub tokens: u16,
    /// Characters of the value (saturating).
    pub chars: u32,
}

impl FieldFact {
    /// Hash of the (key, value) pair.
    #[inline]
    pub fn pair(&self) -> u64 {
        hash::combine(self.key, self.value)
    }

    #[inline]
    pub fn is_free_text(&self) -> bool {
        text::is_free_text_measure(self.tokens as usize, self.chars as usize)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    pub scope: u64,
    /// Hash of all visitor fields: equal fingerprints have equal hashes.
    pub fingerprint: u64,
    /// Sorted by (key, value) hash.
    pub fields: Box<[FieldFact]>,
}

impl Facts {
    pub fn of(receipt: &Receipt) -> Self {
        let mut fields: Vec<FieldFact> = receipt
            .visitor
            .0
            .iter()
            .enumerate()
            .take(u16::MAX as usize)
            .map(|(slot, (k, v))| {
                let (tokens, chars) = text::measure(v);
                FieldFact {
                    key: hash::str(hash::SEED_KEY, k),
                    value: hash::str(hash::SEED_VALUE, v),
                    slot: slot as u16,
                    tokens: tokens.min(u16::MAX as usize) as u16,
                    chars: chars.min(u32::MAX as usize) as u32,
                }
            })
            .collect();
        fields.sort_unstable_by_key(|f| (f.key, f.value));
        let fingerprint = fields
            .iter()
            .fold(0x5EED, |h, f| hash::combine(h, f.pair()));
        Self {
            scope: hash::str(hash::SEED_SCOPE, &receipt.scope),
            fingerprint,
            fields: fields.into_boxed_slice(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The field that carries the message: the longest free-text field by
    /// characters (ties: the first by key hash).
    pub fn body(&self) -> Option<&FieldFact> {
        self.fields
            .iter()
            .filter(|f| f.is_free_text())
            .fold(None, |best: Option<&FieldFact>, f| match best {
                Some(b) if b.chars >= f.chars => Some(b),
                _ => Some(f),
            })
    }
}
