//! The receipts a reading's items show, kept compact (their texts in one
//! buffer per part) and shared: a later reading keeps the parts of the one
//! before and adds a part with the receipts it read, so handing a reading to
//! the screen copies no receipt, and a receipt is a whole [`Receipt`] only
//! while something draws it. They keep what the screen shows and filters
//! on: not the stored digest, which no screen shows (32 bytes a receipt, as
//! much again as the 48 it keeps besides its texts), so a receipt comes back
//! with an empty `digest`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::{Millis, ReceiptId, ReceiptState};
use crate::triage::model::{Receipt, VisitorFields};
use crate::triage::{ReceiptRef, RowMeta};

/// At most this many parts (lookups try each): more are merged into one
/// after the first. Merging by size keeps them fewer (see `next_with`).
const MAX_PARTS: usize = 16;

/// The receipts a reading's items show, by id.
#[derive(Clone, Debug, Default)]
pub struct Receipts {
    /// The ids shown, ascending.
    shown: Arc<Vec<ReceiptId>>,
    /// Oldest first; a receipt in a later part replaces it in an earlier one.
    parts: Vec<Arc<Share>>,
}

impl Receipts {
    /// The receipt with this id, whole but for its digest (empty, see the
    /// module's comment), if the items show it.
    pub fn get(&self, id: ReceiptId) -> Option<Receipt> {
        self.shown.binary_search(&id).ok()?;
        self.find(id)
    }

    /// The receipt in its compact form.
    pub fn view(&self, id: ReceiptId) -> Option<View<'_>> {
        self.shown.binary_search(&id).ok()?;
        self.find_view(id)
    }

    /// True when the items show this receipt and it is here (every receipt
    /// in `shown` is).
    pub fn contains(&self, id: ReceiptId) -> bool {
        self.shown.binary_search(&id).is_ok()
    }

    /// True when every one of `ids` (ascending) is [`Receipts::contains`]ed:
    /// one walk from the first, for ids that lie close together.
    pub fn holds_all(&self, ids: impl IntoIterator<Item = ReceiptId>) -> bool {
        let mut ids = ids.into_iter().peekable();
        let Some(&first) = ids.peek() else {
            return true;
        };
        let from = self.shown.partition_point(|&x| x < first);
        let mut held = super::shown::ascending_lookup(&self.shown[from..]);
        ids.all(&mut held)
    }

    pub fn len(&self) -> usize {
        self.shown.len()
    }

    /// The ids shown, ascending.
    pub fn ids(&self) -> &[ReceiptId] {
        &self.shown
    }

    pub fn is_empty(&self) -> bool {
        self.shown.is_empty()
    }

    /// Every receipt shown, in id order.
    pub fn to_vec(&self) -> Vec<Receipt> {
        self.shown.iter().filter_map(|&id| self.find(id)).collect()
    }

    fn find(&self, id: ReceiptId) -> Option<Receipt> {
        self.find_view(id).map(|v| v.to_receipt())
    }

    fn find_view(&self, id: ReceiptId) -> Option<View<'_>> {
        for part in self.parts.iter().rev() {
            match part.find(id) {
                InPart::Here(k) => return Some(View { part, k }),
                InPart::Gone => return None,
                InPart::Elsewhere => {}
            }
        }
        None
    }

    /// The receipts `shown` (ascending): those found in `self` are kept, the
    /// others come from `read` (ascending), which also replaces receipts
    /// that changed in place; a receipt in neither is left out. `asked`
    /// (ascending): the ids read for, those not in `read` gone since.
    pub fn next(&self, shown: &[ReceiptId], asked: &[ReceiptId], read: &[Receipt]) -> Receipts {
        let mut part = Share::default();
        for r in read {
            part.push(r);
        }
        self.next_with(shown, asked, part.sorted())
    }

    /// [`Receipts::next`], with the receipts read handed over one by one (by
    /// `read`, to the function it is given) and made compact as they come:
    /// a large reading is never held whole.
    pub fn next_reading<E>(
        &self,
        shown: &[ReceiptId],
        asked: &[ReceiptId],
        read: impl FnOnce(&mut (dyn FnMut(Receipt) + Send)) -> Result<(), E>,
    ) -> Result<Receipts, E> {
        let mut part = Share::default();
        read(&mut |r| part.push(&r))?;
        Ok(self.next_with(shown, asked, part.sorted()))
    }

    /// [`Receipts::next`], with the receipts read already made compact.
    pub fn next_compact(
        &self,
        shown: &[ReceiptId],
        asked: &[ReceiptId],
        read: CompactReceipts,
    ) -> Receipts {
        // Each share is a part of its own: joining them would copy every
        // receipt, and the copy's passing buffers would stay with the process.
        let shares: Vec<Share> = read.shares.into_iter().map(Share::sorted).collect();
        self.next_with_shares(shown, asked, shares)
    }

    fn next_with(&self, shown: &[ReceiptId], asked: &[ReceiptId], part: Share) -> Receipts {
        self.next_with_shares(shown, asked, vec![part])
    }

    /// [`Receipts::next`] with what was read in `shares`: parts whose ids
    /// (ascending in each) no two of them hold. `shown` and `asked` are
    /// ascending.
    fn next_with_shares(
        &self,
        shown: &[ReceiptId],
        asked: &[ReceiptId],
        mut shares: Vec<Share>,
    ) -> Receipts {
        debug_assert!(shown.is_sorted() && asked.is_sorted());
        shares.retain(|p| !p.ids.is_empty());
        // One walk through each share for ids asked in ascending order.
        let read_now = || {
            let mut each: Vec<_> = shares
                .iter()
                .map(|p| super::shown::ascending_lookup(&p.ids))
                .collect();
            move |id| each.iter_mut().any(|held| held(id))
        };
        // Asked for and not found: gone since (e.g. deleted).
        let gone: Vec<ReceiptId> = {
            let mut read = read_now();
            asked.iter().copied().filter(|&id| !read(id)).collect()
        };
        // Shown now: read now, or shown before and not gone (all ascending,
        // so one walk through each list).
        let kept: Vec<ReceiptId> = {
            let mut read = read_now();
            let mut shown_before = super::shown::ascending_lookup(&self.shown);
            let mut is_gone = super::shown::ascending_lookup(&gone);
            shown
                .iter()
                .copied()
                .filter(|&id| (shown_before(id) && !is_gone(id)) || read(id))
                .collect()
        };
        // The gone ones go with a share: a lookup meets this reading's
        // shares before the parts of the readings before.
        match shares.last_mut() {
            Some(last) => last.gone = gone,
            None if !gone.is_empty() => shares.push(Share {
                gone,
                ..Share::default()
            }),
            None => {}
        }
        let mut parts = self.parts.clone();
        // Nothing read and nothing gone: the parts as they were.
        parts.extend(shares.into_iter().map(Arc::new));
        let held: usize = parts.iter().map(|p| p.ids.len()).sum();
        let mut out = Receipts {
            shown: Arc::new(kept),
            parts,
        };
        // Mostly receipts no longer shown: one part with what is shown.
        if held > 2 * out.shown.len() + 1024 {
            return out.compacted();
        }
        // Otherwise the first part (the bulk, from the first reading; its
        // first share when it was read in shares) is left as it is, so that
        // a refresh never copies every receipt (the copy would outlive the
        // screen's reading as memory the allocator keeps). The parts after it hold fewer receipts the newer they
        // are: the newest is merged with the ones before it while it holds
        // as many as the one before (as a binary counter carries). A receipt
        // is then copied at most about log2(refreshes) times in all, and
        // most merges are small, not everything read since the first
        // reading every few refreshes.
        if out.parts.len() < 3 {
            return out;
        }
        let size = |p: &Share| p.ids.len() + p.gone.len();
        let last = out.parts.len() - 1;
        let (mut from, mut merged) = (last, size(&out.parts[last]));
        while from > 1 && merged >= size(&out.parts[from - 1]) {
            from -= 1;
            merged += size(&out.parts[from]);
        }
        if from < last {
            out = out.merged_from(from);
        } else if out.parts.len() > MAX_PARTS {
            out = out.merged_from(1);
        }
        out
    }

    /// The parts from `from` on merged into one: what they hold of the
    /// receipts shown, and which of those they say are gone.
    fn merged_from(&self, from: usize) -> Receipts {
        let (kept, later) = self.parts.split_at(from);
        let mut ids: Vec<ReceiptId> = later
            .iter()
            .flat_map(|p| p.ids.iter().chain(&p.gone))
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let mut shown = super::shown::ascending_lookup(&self.shown);
        let mut part = Share::default();
        for id in ids.into_iter().filter(|&id| shown(id)) {
            for p in later.iter().rev() {
                match p.find(id) {
                    InPart::Here(k) => part.push_view(&View { part: p, k }),
                    InPart::Gone => part.gone.push(id),
                    InPart::Elsewhere => continue,
                }
                break;
            }
        }
        part.shrink();
        let mut parts = kept.to_vec();
        parts.push(Arc::new(part));
        Receipts {
            shown: Arc::clone(&self.shown),
            parts,
        }
    }

    /// One part with what is shown.
    fn compacted(&self) -> Receipts {
        self.merged_from(0)
    }

    /// Bytes held (shared parts counted whole), for a look at memory.
    pub fn bytes(&self) -> usize {
        self.shown.capacity() * 8 + self.parts.iter().map(|p| p.bytes()).sum::<usize>()
    }
}

impl From<Vec<Receipt>> for Receipts {
    fn from(mut receipts: Vec<Receipt>) -> Self {
        receipts.sort_by_key(|r| r.id);
        receipts.dedup_by_key(|r| r.id);
        let mut part = Share::default();
        for r in &receipts {
            part.push(r);
        }
        Receipts {
            shown: Arc::new(receipts.iter().map(|r| r.id).collect()),
            parts: vec![Arc::new(part)],
        }
    }
}

impl PartialEq for Receipts {
    fn eq(&self, other: &Self) -> bool {
        self.to_vec() == other.to_vec()
    }
}

/// Receipts made compact as they are read, for [`Receipts::next_compact`]:
/// one part a share, each share's ids above the share's before.
#[derive(Debug, Default)]
pub struct CompactReceipts {
    shares: Vec<Share>,
    /// Receipts added by [`CompactReceipts::push_copy`].
    copies: usize,
}

/// Receipts read before the texts' room is set from their sizes.
const SAMPLE: usize = 1024;

impl CompactReceipts {
    /// Room for `n` receipts: a share grown by doubling leaves the blocks
    /// it outgrew with the allocator, about as much again as it holds.
    pub fn for_receipts(n: usize) -> CompactReceipts {
        let mut part = Share::default();
        part.ids.reserve_exact(n);
        part.kept.reserve_exact(n);
        part.expected = n;
        CompactReceipts {
            shares: vec![part],
            copies: 0,
        }
    }

    pub fn push(&mut self, r: &ReceiptRef<'_>) {
        let fields = self.last().add_fields(r.fields());
        self.push_meta(&r.meta, r.honeypot_filled, fields);
    }

    /// Adds a receipt whose visitor fields are those of `of`, pushed before
    /// into the same share: an exact copy (same fingerprint), whose fields
    /// are then the same texts, kept once. False (nothing added) when `of`
    /// is not in this share.
    pub fn push_copy(&mut self, r: &RowMeta<'_>, honeypot_filled: bool, of: ReceiptId) -> bool {
        let part = self.last();
        let Ok(k) = part.ids.binary_search(&of) else {
            return false;
        };
        let source = &part.kept[k];
        let fields = [source.start, source.first, source.count];
        self.push_meta(r, honeypot_filled, fields);
        self.copies += 1;
        true
    }

    /// Adds a receipt whose fields are in the last share already.
    fn push_meta(&mut self, r: &RowMeta<'_>, honeypot_filled: bool, fields: [u32; 3]) {
        let meta = Meta {
            created_ms: r.created_ms,
            updated_ms: r.updated_ms,
            state: r.state,
            honeypot_filled,
        };
        self.last()
            .push_kept(r.id, r.scope, r.request_key, fields, meta);
    }

    /// Receipts pushed by [`CompactReceipts::push_copy`], whose texts are another's.
    pub fn copies(&self) -> usize {
        self.copies
    }

    pub fn push_receipt(&mut self, r: &Receipt) {
        self.last().push(r);
    }

    fn last(&mut self) -> &mut Share {
        if self.shares.is_empty() {
            self.shares.push(Share::default());
        }
        let last = self.shares.len() - 1;
        &mut self.shares[last]
    }

    /// Adds the receipts of `later` (ids above these) as shares of their
    /// own: moved, not copied.
    pub fn append(&mut self, later: CompactReceipts) {
        self.shares.extend(later.shares);
        self.copies += later.copies;
    }

    pub fn len(&self) -> usize {
        self.shares.iter().map(|p| p.ids.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A receipt in a part, not yet made whole.
#[derive(Clone, Copy)]
pub struct View<'a> {
    part: &'a Share,
    k: usize,
}

impl<'a> View<'a> {
    fn kept(&self) -> &'a Kept {
        &self.part.kept[self.k]
    }

    pub fn id(&self) -> ReceiptId {
        self.part.ids[self.k]
    }

    pub fn request_key(&self) -> Option<&'a str> {
        self.kept().request_key().map(|t| self.part.text(t))
    }

    pub fn created_ms(&self) -> Millis {
        self.kept().created_ms
    }

    /// The visitor fields, (key, value), as [`VisitorFields`] holds them.
    pub fn fields(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let part = self.part;
        let kept = self.kept();
        // Values lie one after another from `start`; each pair keeps its end.
        let mut at = kept.start;
        part.pairs[kept.first as usize..(kept.first + kept.count) as usize]
            .iter()
            .map(move |&(name, end)| {
                let value = part.text(Text(at, end));
                at = end;
                (part.names.name(name), value)
            })
    }

    pub fn to_receipt(&self) -> Receipt {
        let kept = self.kept();
        let meta = kept.meta();
        Receipt {
            id: self.id(),
            scope: self.part.names.name(kept.scope).to_string(),
            request_key: self.request_key().map(str::to_string),
            digest: String::new(),
            state: meta.state,
            created_ms: meta.created_ms,
            updated_ms: meta.updated_ms,
            visitor: VisitorFields(
                self.fields()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            honeypot_filled: meta.honeypot_filled,
        }
    }
}

enum InPart {
    Here(usize),
    Gone,
    Elsewhere,
}

/// Receipts pushed in id order: their values in one buffer, field names and
/// scopes once each (they repeat on nearly every receipt).
#[derive(Debug, Default)]
struct Share {
    ids: Vec<ReceiptId>,
    kept: Vec<Kept>,
    /// (name, end of value in `text`) of every receipt's visitor fields, in order.
    pairs: Vec<(u32, u32)>,
    text: String,
    names: Names,
    /// Receipts read again and not found, ascending.
    gone: Vec<ReceiptId>,
    /// How many receipts the part is to hold, when known as it is filled.
    expected: usize,
}

/// Field names and scopes, each kept once.
#[derive(Debug, Default)]
struct Names {
    list: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

impl Names {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(name.into());
        self.index.insert(name.into(), id);
        id
    }

    fn name(&self, id: u32) -> &str {
        &self.list[id as usize]
    }

    fn bytes(&self) -> usize {
        self.list.iter().map(|n| 2 * (n.len() + 16) + 8).sum()
    }
}

/// A piece of [`Share::text`].
#[derive(Clone, Copy, Debug)]
struct Text(u32, u32);

/// What a part keeps of a receipt besides its id: 48 bytes (a quarter of a
/// million are kept at a million receipts).
#[derive(Debug)]
struct Kept {
    created_ms: Millis,
    /// Meant only when `flags` has [`UPDATED`].
    updated_ms: Millis,
    /// Meant only when `flags` has [`KEYED`].
    request_key: Text,
    /// In [`Share::names`].
    scope: u32,
    /// Where its values start in [`Share::text`].
    start: u32,
    /// Its pairs: `pairs[first..first + count]`.
    first: u32,
    count: u32,
    state: ReceiptState,
    flags: u8,
}

const UPDATED: u8 = 1;
const KEYED: u8 = 2;
const HONEYPOT: u8 = 4;

impl Kept {
    fn meta(&self) -> Meta {
        Meta {
            created_ms: self.created_ms,
            updated_ms: (self.flags & UPDATED != 0).then_some(self.updated_ms),
            state: self.state,
            honeypot_filled: self.flags & HONEYPOT != 0,
        }
    }

    fn request_key(&self) -> Option<Text> {
        (self.flags & KEYED != 0).then_some(self.request_key)
    }
}

/// What a receipt keeps besides its texts.
#[derive(Clone, Copy, Debug)]
struct Meta {
    created_ms: Millis,
    updated_ms: Option<Millis>,
    state: ReceiptState,
    honeypot_filled: bool,
}

impl Share {
    /// The part with its receipts in id order (they mostly come so), the
    /// last of two with one id kept.
    fn sorted(self) -> Share {
        if self.ids.is_sorted_by(|a, b| a < b) {
            let mut part = self;
            part.shrink();
            return part;
        }
        let mut order: Vec<usize> = (0..self.ids.len()).collect();
        order.sort_by_key(|&k| self.ids[k]);
        order.dedup_by(|later, earlier| {
            let same = self.ids[*later] == self.ids[*earlier];
            if same {
                *earlier = *later;
            }
            same
        });
        let mut out = Share::default();
        for k in order {
            out.push_view(&View { part: &self, k });
        }
        out.shrink();
        out
    }

    /// Gives back what growing by doubling left unused.
    fn shrink(&mut self) {
        self.ids.shrink_to_fit();
        self.kept.shrink_to_fit();
        self.pairs.shrink_to_fit();
        self.text.shrink_to_fit();
    }

    fn find(&self, id: ReceiptId) -> InPart {
        if let Ok(k) = self.ids.binary_search(&id) {
            InPart::Here(k)
        } else if self.gone.binary_search(&id).is_ok() {
            InPart::Gone
        } else {
            InPart::Elsewhere
        }
    }

    fn text(&self, t: Text) -> &str {
        &self.text[t.0 as usize..t.1 as usize]
    }

    fn add(&mut self, t: &str) -> Text {
        let at = self.text.len() as u32;
        self.text.push_str(t);
        Text(at, self.text.len() as u32)
    }

    /// Adds the visitor fields of a receipt; returns (start, first, count).
    fn add_fields<'f>(&mut self, fields: impl Iterator<Item = (&'f str, &'f str)>) -> [u32; 3] {
        let (start, first) = (self.text.len() as u32, self.pairs.len() as u32);
        for (k, v) in fields {
            let name = self.names.intern(k);
            let end = self.add(v).1;
            self.pairs.push((name, end));
        }
        [start, first, self.pairs.len() as u32 - first]
    }

    /// Adds a receipt (ids ascending).
    fn push(&mut self, r: &Receipt) {
        let fields = r.visitor.0.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let meta = Meta {
            created_ms: r.created_ms,
            updated_ms: r.updated_ms,
            state: r.state,
            honeypot_filled: r.honeypot_filled,
        };
        self.push_with(r.id, &r.scope, r.request_key.as_deref(), fields, meta);
    }

    /// Adds a receipt from another part (ids ascending).
    fn push_view(&mut self, v: &View<'_>) {
        let from = v.kept();
        let scope = v.part.names.name(from.scope);
        self.push_with(v.id(), scope, v.request_key(), v.fields(), from.meta());
    }

    /// Adds a receipt (ids ascending) from what every way of reading one
    /// gives: its texts are added here.
    fn push_with<'f>(
        &mut self,
        id: ReceiptId,
        scope: &str,
        request_key: Option<&str>,
        fields: impl Iterator<Item = (&'f str, &'f str)>,
        meta: Meta,
    ) {
        let fields = self.add_fields(fields);
        self.push_kept(id, scope, request_key, fields, meta);
    }

    /// [`Share::push_with`] with the fields already here: `[start, first,
    /// count]` as [`Share::add_fields`] gives them.
    fn push_kept(
        &mut self,
        id: ReceiptId,
        scope: &str,
        request_key: Option<&str>,
        [start, first, count]: [u32; 3],
        meta: Meta,
    ) {
        let flag = |on: bool, flag: u8| if on { flag } else { 0 };
        let kept = Kept {
            created_ms: meta.created_ms,
            updated_ms: meta.updated_ms.unwrap_or_default(),
            request_key: request_key.map_or(Text(0, 0), |k| self.add(k)),
            scope: self.names.intern(scope),
            start,
            first,
            count,
            state: meta.state,
            flags: flag(meta.updated_ms.is_some(), UPDATED)
                | flag(request_key.is_some(), KEYED)
                | flag(meta.honeypot_filled, HONEYPOT),
        };
        self.ids.push(id);
        self.kept.push(kept);
        if self.ids.len() == SAMPLE && self.expected > SAMPLE {
            // The texts of the rest, as large as the first ones' and a tenth.
            let room = |held: usize| held / SAMPLE * (self.expected - SAMPLE) * 11 / 10;
            self.pairs.reserve_exact(room(self.pairs.len()));
            self.text.reserve_exact(room(self.text.len()));
        }
    }

    fn bytes(&self) -> usize {
        self.ids.capacity() * 8
            + self.kept.capacity() * std::mem::size_of::<Kept>()
            + self.pairs.capacity() * 8
            + self.text.capacity()
            + self.names.bytes()
            + self.gone.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt(id: ReceiptId, state: ReceiptState, message: &str) -> Receipt {
        Receipt {
            id,
            scope: "site/form".into(),
            request_key: (id % 2 == 0).then(|| format!("k-{id}")),
            digest: String::new(),
            state,
            created_ms: -5 + id,
            updated_ms: (id % 3 == 0).then_some(1_795_947_330_123),
            visitor: VisitorFields(vec![
                ("message".into(), message.into()),
                ("name".into(), String::new()),
            ]),
            honeypot_filled: id == 7,
        }
    }

    #[test]
    fn kept_receipts_come_back_whole() {
        let a = receipt(3, ReceiptState::InFlight, "見積もり please");
        let b = receipt(7, ReceiptState::Failed, "");
        let all = Receipts::from(vec![b.clone(), a.clone()]);
        assert_eq!(all.get(3), Some(a.clone()));
        assert_eq!(all.get(7), Some(b.clone()));
        assert_eq!(all.get(5), None);
        assert_eq!(all.to_vec(), vec![a.clone(), b]);
        assert_eq!(all.view(3).unwrap().request_key(), None);
        assert_eq!(all.compacted().to_vec(), all.to_vec());
    }

    #[test]
    fn a_share_of_known_size_sets_its_room_once() {
        let n = 5000;
        let mut share = CompactReceipts::for_receipts(n);
        let mut room_set = None;
        for id in 0..n as ReceiptId {
            share.push_receipt(&receipt(
                id,
                ReceiptState::Completed,
                "a message of some length",
            ));
            let part = &share.shares[0];
            if part.ids.len() == SAMPLE {
                room_set = Some((part.text.capacity(), part.pairs.capacity()));
            }
        }
        let part = &share.shares[0];
        assert_eq!((part.ids.capacity(), part.kept.capacity()), (n, n));
        // Never grown after the first receipts set it, and not far above.
        assert_eq!(
            room_set,
            Some((part.text.capacity(), part.pairs.capacity()))
        );
        assert!(
            part.text.capacity() <= part.text.len() * 23 / 20,
            "{}",
            part.text.len()
        );
    }

    #[test]
    fn holding_all_of_a_list_is_holding_each() {
        let all = Receipts::from(
            [2, 3, 5, 8, 13]
                .map(|id| receipt(id, ReceiptState::Completed, "m"))
                .to_vec(),
        );
        for ids in [
            &[][..],
            &[2],
            &[3, 5, 5, 13],
            &[2, 3, 5, 8, 13],
            &[1],
            &[2, 4],
            &[13, 14],
            &[8, 9, 13],
        ] {
            let each = ids.iter().all(|&id| all.contains(id));
            assert_eq!(all.holds_all(ids.iter().copied()), each, "{ids:?}");
        }
    }

    #[test]
    fn a_reading_handed_over_one_by_one_is_kept_as_a_whole_one() {
        let first = Receipts::from(vec![receipt(1, ReceiptState::InFlight, "a")]);
        let read = vec![
            receipt(9, ReceiptState::Completed, "n"),
            receipt(1, ReceiptState::Completed, "a"),
            receipt(4, ReceiptState::Failed, "old"),
            receipt(4, ReceiptState::Failed, "d"),
        ];
        let (shown, asked) = ([1, 4, 9], [1, 4, 5, 9]);
        let one_by_one = first
            .next_reading(&shown, &asked, |each| {
                read.iter().cloned().for_each(each);
                Ok::<(), ()>(())
            })
            .unwrap();
        let mut whole = read.clone();
        whole.remove(2);
        whole.sort_by_key(|r| r.id);
        assert_eq!(
            one_by_one.to_vec(),
            first.next(&shown, &asked, &whole).to_vec()
        );
        assert_eq!(one_by_one.get(4).unwrap().visitor.0[0].1, "d");
    }

    #[test]
    fn a_later_reading_adds_replaces_and_drops() {
        let first = Receipts::from(vec![
            receipt(1, ReceiptState::InFlight, "a"),
            receipt(2, ReceiptState::Completed, "b"),
            receipt(4, ReceiptState::Completed, "d"),
        ]);
        // 1 settled (read again), 4 is no longer shown, 9 is new, 5 was
        // asked for and is gone.
        let settled = receipt(1, ReceiptState::Completed, "a");
        let new = receipt(9, ReceiptState::Completed, "n");
        let next = first.next(&[1, 2, 5, 9], &[1, 5, 9], &[settled.clone(), new.clone()]);
        assert_eq!(
            next.to_vec(),
            vec![settled, receipt(2, ReceiptState::Completed, "b"), new]
        );
        assert!(!next.contains(4) && !next.contains(5));
        // The reading before is untouched.
        assert_eq!(first.get(1).unwrap().state, ReceiptState::InFlight);
        let mut r = next;
        for round in 0..20 {
            let id = 100 + round;
            let mut shown: Vec<ReceiptId> = r.shown.to_vec();
            shown.push(id);
            r = r.next(&shown, &[id], &[receipt(id, ReceiptState::Completed, "x")]);
            assert!(r.parts.len() <= MAX_PARTS);
            assert!(r.get(id).is_some() && r.get(2).is_some());
        }
    }

    #[test]
    fn a_reading_with_nothing_read_or_gone_adds_no_part() {
        let first = Receipts::from(vec![
            receipt(1, ReceiptState::Completed, "a"),
            receipt(2, ReceiptState::Completed, "b"),
        ]);
        let same = first.next(&[2], &[], &[]);
        assert_eq!(same.parts.len(), 1);
        assert!(Arc::ptr_eq(&same.parts[0], &first.parts[0]));
        assert_eq!(
            same.to_vec(),
            vec![receipt(2, ReceiptState::Completed, "b")]
        );
        // Asked for and not found: kept as gone.
        let gone = first.next(&[1, 2], &[1], &[]);
        assert_eq!(gone.parts.len(), 2);
        assert_eq!(gone.ids(), [2]);
    }

    #[test]
    fn a_receipt_keeps_48_bytes_besides_its_id_and_texts() {
        assert_eq!(std::mem::size_of::<Kept>(), 48);
        // What the flags stand for comes back as it went in.
        for (updated_ms, request_key, honeypot_filled) in [
            (None, None, false),
            (Some(0), Some("k"), true),
            (Some(-1), Some(""), false),
        ] {
            let mut r = receipt(4, ReceiptState::Failed, "m");
            (r.updated_ms, r.honeypot_filled) = (updated_ms, honeypot_filled);
            r.request_key = request_key.map(str::to_string);
            assert_eq!(Receipts::from(vec![r.clone()]).get(4), Some(r));
        }
    }

    #[test]
    fn later_readings_merge_without_copying_the_first() {
        let all: Vec<Receipt> = (1..=50)
            .map(|id| receipt(id, ReceiptState::Completed, "x"))
            .collect();
        let mut r = Receipts::from(all.clone());
        let first = Arc::clone(&r.parts[0]);
        let mut expected = all;
        for round in 0..30 {
            // One new receipt, and one of the first read again, changed.
            let new = receipt(100 + round, ReceiptState::Failed, "new");
            let changed = receipt(1 + round, ReceiptState::InFlight, "changed");
            expected[round as usize] = changed.clone();
            expected.push(new.clone());
            let mut shown: Vec<ReceiptId> = r.ids().to_vec();
            shown.push(new.id);
            r = r.next(&shown, &[changed.id, new.id], &[changed, new]);
            assert!(r.parts.len() <= MAX_PARTS);
            assert!(Arc::ptr_eq(&r.parts[0], &first));
            assert_eq!(r.to_vec(), expected);
        }
    }

    #[test]
    fn a_refresh_copies_the_recent_receipts_not_all_read_since_the_first() {
        let mut r = Receipts::from(vec![receipt(1, ReceiptState::Completed, "first")]);
        let mut expected = r.to_vec();
        let size = |p: &Share| p.ids.len() + p.gone.len();
        let rounds = 1000;
        // Receipts put in parts made anew (read, or copied by a merge).
        let mut made = 0;
        for round in 0..rounds {
            let new = receipt(10 + round, ReceiptState::Completed, "new");
            expected.push(new.clone());
            let mut shown: Vec<ReceiptId> = r.ids().to_vec();
            shown.push(new.id);
            let before = r.parts.clone();
            r = r.next(&shown, &[new.id], &[new]);
            made += r.parts[1..]
                .iter()
                .filter(|p| !before.iter().any(|b| Arc::ptr_eq(p, b)))
                .map(|p| size(p))
                .sum::<usize>();
            // Each part after the first holds more than the next.
            for pair in r.parts[1..].windows(2) {
                assert!(size(&pair[1]) < size(&pair[0]), "round {round}");
            }
            assert!(r.parts.len() <= 2 + 10, "round {round}: {}", r.parts.len());
            if round % 97 == 0 {
                assert_eq!(r.to_vec(), expected, "round {round}");
            }
        }
        assert_eq!(r.to_vec(), expected);
        // About log2(rounds) copies of each: merging everything since the
        // first reading every few refreshes would copy rounds²/(2 × few).
        let bound =
            2 * rounds as usize * (usize::BITS - (rounds as usize).leading_zeros()) as usize;
        assert!(made <= bound, "{made} receipts made for {rounds} read");
    }

    fn any_receipt() -> impl proptest::strategy::Strategy<Value = Receipt> {
        use proptest::prelude::*;
        (
            (0i64..40, ".{0,6}", proptest::option::of(".{0,4}")),
            (
                any::<i64>(),
                proptest::option::of(any::<i64>()),
                any::<bool>(),
            ),
            proptest::collection::vec(("[a-c]{0,2}", ".{0,5}"), 0..5),
        )
            .prop_map(
                |((id, scope, request_key), (created_ms, updated_ms, honeypot_filled), fields)| {
                    Receipt {
                        id,
                        scope,
                        request_key,
                        digest: String::new(),
                        state: ReceiptState::Completed,
                        created_ms,
                        updated_ms,
                        visitor: VisitorFields(fields),
                        honeypot_filled,
                    }
                },
            )
    }

    proptest::proptest! {
        #[test]
        fn compact_receipts_give_back_what_was_put_in(
            put in proptest::collection::vec(any_receipt(), 0..20),
            later in proptest::collection::vec(any_receipt(), 0..20),
        ) {
            let mut expected = put.clone();
            expected.sort_by_key(|r| r.id);
            expected.dedup_by_key(|r| r.id);
            // Read in two shares, each made compact on its own, then joined;
            // asked for too: ids read by neither (gone since).
            let ids: Vec<ReceiptId> = expected.iter().map(|r| r.id).collect();
            let mut shares = [CompactReceipts::for_receipts(expected.len() / 2), CompactReceipts::default()];
            for (k, r) in expected.iter().enumerate() {
                shares[usize::from(2 * k >= expected.len())].push_receipt(r);
            }
            let non_empty = shares.iter().filter(|s| !s.is_empty()).count();
            let [mut joined, later_share] = shares;
            joined.append(later_share);
            proptest::prop_assert_eq!(joined.len(), expected.len());
            let gone: Vec<ReceiptId> = ids.iter().map(|id| id + 1).filter(|id| !ids.contains(id)).collect();
            let mut asked: Vec<ReceiptId> = ids.iter().chain(&gone).copied().collect();
            asked.sort_unstable();
            let from_shares = Receipts::default().next_compact(&asked, &asked, joined);
            proptest::prop_assert_eq!(from_shares.to_vec(), expected.clone());
            proptest::prop_assert_eq!(from_shares.ids(), &ids[..]);
            for &id in &gone {
                proptest::prop_assert!(from_shares.get(id).is_none() && !from_shares.contains(id));
            }
            // Each share is a part of its own, not copied into one.
            proptest::prop_assert_eq!(from_shares.parts.len(), non_empty.max(usize::from(!gone.is_empty())));
            let r = Receipts::from(put);
            proptest::prop_assert_eq!(r.to_vec(), expected.clone());
            proptest::prop_assert_eq!(r.compacted().to_vec(), expected.clone());
            // A later reading handed over out of order: the last of an id wins.
            let mut read = later.clone();
            read.reverse();
            read.sort_by_key(|r| r.id);
            read.dedup_by_key(|r| r.id);
            let asked: Vec<ReceiptId> = read.iter().map(|r| r.id).collect();
            let mut shown: Vec<ReceiptId> = r.ids().iter().copied().chain(asked.iter().copied()).collect();
            shown.sort_unstable();
            shown.dedup();
            let next = r.next_reading(&shown, &asked, |each| {
                later.iter().cloned().for_each(each);
                Ok::<(), ()>(())
            }).unwrap();
            let mut both: Vec<Receipt> = read.clone();
            both.extend(expected.into_iter().filter(|e| asked.binary_search(&e.id).is_err()));
            both.sort_by_key(|r| r.id);
            proptest::prop_assert_eq!(next.to_vec(), both);
        }
    }
}
