//! The ids of the receipts the items show, kept from one reading to the next.
//! Duplicate groups hold nearly all of them (conflicts too, on a legacy table
//! where receipts share keys), and few items change between readings: an item
//! the engine kept is the same shared one (same pointer), so only the receipts
//! of items gone or new are taken out or put in. The few stuck receipts are
//! listed again each time.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::model::ReceiptId;
use crate::triage::model::{AttemptSource, Conflict, DuplicateGroup, Triage};

/// The shown ids of the last reading, and the groups they came from.
#[derive(Default)]
pub struct ShownIds {
    /// The triage the ids were taken from (its groups are compared with the next).
    triage: Option<Arc<Triage>>,
    /// Members of every duplicate group, ascending (a receipt in two groups
    /// is there twice).
    members: Vec<ReceiptId>,
    /// The receipts every conflict shows, ascending (with repeats).
    in_conflicts: Vec<ReceiptId>,
}

impl ShownIds {
    /// The ids of the receipts `t`'s items show, ascending, without repeats;
    /// `t` is remembered for the next call.
    pub fn update(&mut self, t: &Arc<Triage>) -> Vec<ReceiptId> {
        match self.triage.take() {
            Some(before) => {
                let (gone, new) = changed(&before.duplicates, &t.duplicates);
                self.members = replace_sorted(&self.members, &gone, &new);
                let (gone, new) = changed(&before.conflicts, &t.conflicts);
                self.in_conflicts = replace_sorted(&self.in_conflicts, &gone, &new);
            }
            None => {
                self.members = receipts_of(t.duplicates.iter());
                self.in_conflicts = receipts_of(t.conflicts.iter());
            }
        }
        self.triage = Some(Arc::clone(t));
        let mut stuck: Vec<ReceiptId> = t.stuck.iter().map(|s| s.receipt_id).collect();
        stuck.sort_unstable();
        merge_unique(&self.members, &merge_unique(&self.in_conflicts, &stuck))
    }
}

/// An item that shows receipts.
trait Shows {
    fn receipts(&self, out: &mut Vec<ReceiptId>);
}

impl Shows for DuplicateGroup {
    fn receipts(&self, out: &mut Vec<ReceiptId>) {
        out.extend(self.members.iter().map(|m| m.id));
    }
}

/// The original, and the receipts holding an attempt.
impl Shows for Conflict {
    fn receipts(&self, out: &mut Vec<ReceiptId>) {
        out.push(self.receipt_id);
        out.extend(
            self.attempts
                .iter()
                .filter(|a| a.source == AttemptSource::Receipts)
                .map(|a| a.id),
        );
    }
}

/// The receipts the items show, ascending (with repeats).
fn receipts_of<'a, T: Shows + 'a>(items: impl Iterator<Item = &'a Arc<T>>) -> Vec<ReceiptId> {
    let mut ids = Vec::new();
    for item in items {
        item.receipts(&mut ids);
    }
    ids.sort_unstable();
    ids
}

/// The receipts of the items in `before` only, and of those in `after` only
/// (items compared by pointer), each ascending.
fn changed<T: Shows>(before: &[Arc<T>], after: &[Arc<T>]) -> (Vec<ReceiptId>, Vec<ReceiptId>) {
    let (before, after) = unshared_middles(before, after);
    let key = |g: &Arc<T>| Arc::as_ptr(g) as usize;
    let mut count: HashMap<usize, i32, BuildHasherDefault<PtrHash>> = HashMap::default();
    count.reserve(before.len());
    for g in before {
        *count.entry(key(g)).or_default() += 1;
    }
    let mut fresh = Vec::new();
    for g in after {
        match count.get_mut(&key(g)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => fresh.push(g),
        }
    }
    let gone = before.iter().filter(|g| {
        count.get_mut(&key(g)).is_some_and(|n| {
            let left = *n > 0;
            if left {
                *n -= 1;
            }
            left
        })
    });
    (receipts_of(gone), receipts_of(fresh.into_iter()))
}

/// The two lists without the items (pointers) they share at the start and
/// at the end: items kept between readings stay in order, and most changes
/// are late ones, so what is left is short and the rest is not looked into.
pub fn unshared_middles<'a, T>(
    before: &'a [Arc<T>],
    after: &'a [Arc<T>],
) -> (&'a [Arc<T>], &'a [Arc<T>]) {
    let same = |(a, b): (&Arc<T>, &Arc<T>)| Arc::ptr_eq(a, b);
    let head = before.iter().zip(after).take_while(|&p| same(p)).count();
    let (before, after) = (&before[head..], &after[head..]);
    let tail = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take_while(|&p| same(p))
        .count();
    (&before[..before.len() - tail], &after[..after.len() - tail])
}

/// Hashes a pointer by one multiplication (pointers are already spread out).
#[derive(Default)]
struct PtrHash(u64);

impl Hasher for PtrHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Whether an id is in `sorted` (ascending), for ids asked in ascending
/// order (some may be skipped): one walk through `sorted`, not a search per id.
pub fn ascending_lookup<T: Ord + Copy>(sorted: &[T]) -> impl FnMut(T) -> bool + '_ {
    let mut at = 0;
    move |id| {
        while sorted.get(at).is_some_and(|&x| x < id) {
            at += 1;
        }
        sorted.get(at) == Some(&id)
    }
}

/// `all` without one occurrence of each of `gone` and with `new` merged in
/// (all ascending, repeats kept), in one pass: at a million receipts `all`
/// holds about 230,000 ids, and a refresh changes a few thousand.
fn replace_sorted(all: &[ReceiptId], gone: &[ReceiptId], new: &[ReceiptId]) -> Vec<ReceiptId> {
    let mut out = Vec::with_capacity(all.len() + new.len());
    let (mut g, mut n) = (gone.iter().peekable(), new.iter().peekable());
    for &id in all {
        while g.next_if(|&&x| x < id).is_some() {}
        while let Some(&x) = n.next_if(|&&x| x <= id) {
            out.push(x);
        }
        if g.next_if(|&&x| x == id).is_none() {
            out.push(id);
        }
    }
    out.extend(n);
    out
}

/// The two ascending lists merged, each id once.
fn merge_unique(a: &[ReceiptId], b: &[ReceiptId]) -> Vec<ReceiptId> {
    let mut out: Vec<ReceiptId> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if out.last() != Some(&next) {
            out.push(next);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triage::model::Stuck;

    fn group(ids: &[ReceiptId]) -> Arc<DuplicateGroup> {
        DuplicateGroup::exact_for_tests(ids)
    }

    fn stuck(id: ReceiptId) -> Stuck {
        Stuck {
            receipt_id: id,
            scope: "s".into(),
            request_key: None,
            age_ms: 1,
        }
    }

    /// A conflict of receipts that share a key (and one attempt refused).
    fn conflict(original: ReceiptId, others: &[ReceiptId]) -> Arc<Conflict> {
        let attempt = |id, source| crate::triage::model::Attempt {
            source,
            id,
            at_ms: Some(1),
            digest: String::new(),
        };
        let mut attempts: Vec<_> = others
            .iter()
            .map(|&id| attempt(id, AttemptSource::Receipts))
            .collect();
        attempts.push(attempt(900 + original, AttemptSource::KeyConflicts));
        Arc::new(Conflict {
            receipt_id: original,
            scope: "s".into(),
            request_key: "k".into(),
            attempts,
        })
    }

    #[test]
    fn kept_up_to_date_as_a_full_listing() {
        let (a, b, c) = (group(&[5, 9]), group(&[2, 7]), group(&[11, 12]));
        let (x, y) = (conflict(30, &[31]), conflict(40, &[41]));
        let mut first = Triage {
            duplicates: vec![a.clone(), b.clone(), c.clone()],
            conflicts: vec![x.clone(), y],
            ..Triage::default()
        };
        first.stuck = vec![stuck(9), stuck(1)];
        let mut shown = ShownIds::default();
        let first = Arc::new(first);
        assert_eq!(shown.update(&first), crate::reading::shown_ids(&first));
        // `b` grows (a new group in its place), `c` goes, `d` comes; the
        // stuck receipt 9 is no longer stuck but still in `a`. Conflict `x`
        // stays, `y` gets another attempt, one about 5 comes.
        let second = Arc::new(Triage {
            duplicates: vec![a, group(&[2, 7, 13]), group(&[12, 14])],
            conflicts: vec![conflict(5, &[6]), x, conflict(40, &[42])],
            stuck: vec![stuck(1), stuck(20)],
            ..Triage::default()
        });
        let ids = shown.update(&second);
        assert_eq!(ids, crate::reading::shown_ids(&second));
        assert_eq!(ids, vec![1, 2, 5, 6, 7, 9, 12, 13, 14, 20, 30, 31, 40, 42]);
        // The same reading again changes nothing.
        assert_eq!(shown.update(&second), ids);
    }

    proptest::proptest! {
        /// Groups compared by pointer, as many times as each is listed,
        /// wherever they are: the same lists as counting every pointer.
        #[test]
        fn changed_groups_are_the_difference_of_the_two_lists(
            before in proptest::collection::vec(0usize..6, 0..12),
            after in proptest::collection::vec(0usize..6, 0..12),
        ) {
            let pool: Vec<Arc<DuplicateGroup>> =
                (0..6).map(|k| group(&[10 * k as i64, 10 * k as i64 + 1])).collect();
            let list = |at: &[usize]| at.iter().map(|&k| Arc::clone(&pool[k])).collect::<Vec<_>>();
            let (b, a) = (list(&before), list(&after));
            let minus = |x: &[usize], y: &[usize]| {
                let mut left = y.to_vec();
                let out: Vec<&Arc<DuplicateGroup>> = x
                    .iter()
                    .filter(|k| match left.iter().position(|l| l == *k) {
                        Some(at) => {
                            left.remove(at);
                            false
                        }
                        None => true,
                    })
                    .map(|&k| &pool[k])
                    .collect();
                receipts_of(out.into_iter())
            };
            proptest::prop_assert_eq!(
                changed(&b, &a),
                (minus(&before, &after), minus(&after, &before))
            );
        }
    }

    proptest::proptest! {
        /// One pass gives what taking out, putting in and sorting give.
        #[test]
        fn lists_changed_in_one_pass_are_those_sorted_anew(
            mut all in proptest::collection::vec(0i64..30, 0..40),
            mut gone in proptest::collection::vec(0i64..30, 0..10),
            mut new in proptest::collection::vec(0i64..30, 0..10),
        ) {
            all.sort_unstable();
            gone.sort_unstable();
            new.sort_unstable();
            let mut expected = all.clone();
            for g in &gone {
                if let Some(at) = expected.iter().position(|x| x == g) {
                    expected.remove(at);
                }
            }
            expected.extend(&new);
            expected.sort_unstable();
            proptest::prop_assert_eq!(replace_sorted(&all, &gone, &new), expected);
            let mut unique: Vec<i64> = all.iter().chain(&new).copied().collect();
            unique.sort_unstable();
            unique.dedup();
            proptest::prop_assert_eq!(merge_unique(&all, &new), unique);
        }
    }

    #[test]
    fn ascending_lookup_answers_as_a_search_even_when_ids_are_skipped() {
        let sorted = [2, 3, 3, 7, 10];
        let mut lookup = ascending_lookup(&sorted);
        let asked = [1, 2, 3, 4, 8, 10, 11];
        let answers: Vec<bool> = asked.iter().map(|&id| lookup(id)).collect();
        assert_eq!(answers, [false, true, true, false, false, true, false]);
        // Skipping 7 and asking 10 straight after 3 still finds 10.
        let mut lookup = ascending_lookup(&sorted);
        assert!(lookup(3) && lookup(10) && !lookup(12));
    }
}
