//! The sliding-window blocking index of one scope: which recent group anchors
//! could be near a new copy, looked up by shared hashes instead of comparing
//! every pair.
//!
//! Time is cut into epochs one window long and the index keeps two
//! generations: the current epoch's and the one before. Anything registered
//! earlier is older than the window at every time in the current epoch, so a
//! whole generation is dropped at once; a group that stays alive (a copy joined
//! it) has its anchor registered again in the current generation.

use super::hash::{self, HashMap64};

const NIL: u32 = u32::MAX;

/// Lists of items by 64-bit key, newest first, in one arena.
#[derive(Default)]
pub struct Postings {
    heads: HashMap64<u32>,
    arena: Vec<(u32, u32)>,
}

impl Postings {
    pub fn push(&mut self, key: u64, item: u32) {
        let at = self.arena.len() as u32;
        let head = self.heads.entry(key).or_insert(NIL);
        self.arena.push((item, *head));
        *head = at;
    }

    pub fn for_each(&self, key: u64, mut f: impl FnMut(u32)) {
        let mut at = self.heads.get(&key).copied().unwrap_or(NIL);
        while at != NIL {
            let (item, next) = self.arena[at as usize];
            f(item);
            at = next;
        }
    }

    fn clear(&mut self) {
        self.heads.clear();
        self.arena.clear();
    }
}

/// The index kinds of one generation.
#[derive(Default)]
pub struct Generation {
    /// Fingerprint hash to the newest copy with that fingerprint.
    pub fingerprint: HashMap64<u32>,
    /// Every (key, value) pair of an anchor: finds anchors a copy is a subset of.
    pub all_pairs: Postings,
    /// One chosen pair per anchor: finds anchors that are a subset of a copy.
    pub one_pair: Postings,
    /// All fields but one: finds anchors a copy differs from in one field.
    pub all_but_one: Postings,
    /// The time of the newest copy placed during this generation's epoch.
    pub last_ms: i64,
    used: bool,
}

impl Generation {
    fn clear(&mut self) {
        if self.used {
            self.fingerprint.clear();
            self.all_pairs.clear();
            self.one_pair.clear();
            self.all_but_one.clear();
            self.used = false;
        }
    }
}

pub struct Index {
    epoch_ms: i64,
    epoch: i64,
    pub current: Generation,
    pub previous: Generation,
}

impl Index {
    pub fn new(window_ms: i64) -> Self {
        Self {
            epoch_ms: window_ms.max(1),
            epoch: i64::MIN,
            current: Generation::default(),
            previous: Generation::default(),
        }
    }

    /// The epoch of a time.
    pub fn epoch_of(&self, ms: i64) -> i64 {
        ms.div_euclid(self.epoch_ms)
    }

    /// Moves to the epoch of `now_ms` (times never go backwards); returns it.
    /// Every copy placed must be announced here first.
    pub fn advance(&mut self, now_ms: i64) -> i64 {
        let epoch = now_ms.div_euclid(self.epoch_ms);
        if epoch != self.epoch {
            if self.epoch != i64::MIN && epoch == self.epoch + 1 {
                std::mem::swap(&mut self.current, &mut self.previous);
                self.current.clear();
            } else {
                self.current.clear();
                self.previous.clear();
            }
            self.epoch = epoch;
        }
        self.current.last_ms = now_ms;
        epoch
    }

    /// The generations that may still hold live groups as of `horizon_ms`
    /// (a group is live while its newest copy is at or after the horizon). A
    /// live group only in the previous generation had its newest copy placed
    /// during that epoch, so a previous generation whose newest placement is
    /// older than the horizon holds none.
    pub fn live(&self, horizon_ms: i64) -> impl Iterator<Item = &Generation> {
        let previous =
            (self.previous.used && self.previous.last_ms >= horizon_ms).then_some(&self.previous);
        std::iter::once(&self.current).chain(previous)
    }

    /// The newest copy seen with this fingerprint hash among live generations.
    pub fn newest_with(&self, fingerprint: u64, horizon_ms: i64) -> Option<u32> {
        self.live(horizon_ms)
            .find_map(|g| g.fingerprint.get(&fingerprint))
            .copied()
    }

    pub fn note_fingerprint(&mut self, fingerprint: u64, item: u32, overwrite: bool) {
        self.current.used = true;
        if overwrite {
            self.current.fingerprint.insert(fingerprint, item);
        } else {
            self.current.fingerprint.entry(fingerprint).or_insert(item);
        }
    }

    pub fn current_mut(&mut self) -> &mut Generation {
        self.current.used = true;
        &mut self.current
    }
}

/// The blocking key for "all fields but field `skip`" given the pair hashes
/// (commutative, so it is the same whatever the order of the other fields).
pub fn all_but_one_key(pair_sum: u64, skip_pair: u64, skip_key: u64) -> u64 {
    hash::mix(
        pair_sum
            .wrapping_sub(skip_pair)
            .wrapping_add(hash::combine(skip_key, 0xED17)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_are_newest_first() {
        let mut p = Postings::default();
        p.push(7, 1);
        p.push(7, 2);
        p.push(8, 3);
        let mut seen = Vec::new();
        p.for_each(7, |i| seen.push(i));
        assert_eq!(seen, vec![2, 1]);
        p.for_each(9, |_| panic!("no list"));
    }

    #[test]
    fn generations_expire_after_two_epochs() {
        let mut index = Index::new(10);
        index.advance(5);
        index.note_fingerprint(1, 100, true);
        index.advance(15);
        assert_eq!(index.newest_with(1, 5), Some(100));
        assert_eq!(index.newest_with(1, 6), None); // nothing live placed at 5
        index.advance(25);
        assert_eq!(index.newest_with(1, 0), None);
        index.note_fingerprint(2, 200, true);
        index.advance(55); // jumped two epochs
        assert_eq!(index.newest_with(2, 0), None);
    }
}
