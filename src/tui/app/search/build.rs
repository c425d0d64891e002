//! Making a reading's filter index: which texts each tab's rows are made of,
//! and which rows (and chunks) of the last reading's index can be kept.

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use rayon::prelude::*;

use super::fold::{SEPARATOR, normalize_query};
use super::signature::Signature;
use super::{CHUNK, Chunk, Owners, SearchIndex, TabIndex};
use crate::find::loose::joined;
use crate::model::ReceiptId;
use crate::reading::{Snapshot, View};
use crate::triage::model::MatchKind;
use crate::tui::app::tab::Tab;

impl SearchIndex {
    /// Indexes a reading; rows that `previous` indexed the same way are
    /// copied rather than folded again.
    pub fn build(snap: &Snapshot, previous: Option<&SearchIndex>) -> Self {
        let old = |tab: Tab| previous.map(|p| &p.tabs[tab.index()]);
        let t = &snap.triage;
        let receipt = |id| snap.receipt_view(id);
        let members = |ids: &mut Vec<ReceiptId>, g: usize| {
            ids.extend(t.duplicates[g].members.iter().map(|m| m.id));
        };
        // The two long tabs side by side.
        let (duplicates, conflicts) = rayon::join(
            || {
                Builder::run(
                    old(Tab::Duplicates),
                    snap,
                    t.duplicates.len(),
                    |g| Some(&t.duplicates[g]),
                    |g, ids| {
                        members(ids, g);
                        Some(t.duplicates[g].scope.as_str())
                    },
                    |g_index, b| {
                        let g = &t.duplicates[g_index];
                        b.fold_kept(&g.scope);
                        // An exact copy's values are the earliest copy's: of
                        // a copy a visitor sent many times, one set of texts.
                        let first = receipt(g.members[0].id);
                        let held = first.is_some();
                        b.receipt(first);
                        for m in &g.members[1..] {
                            if held && m.match_kind == MatchKind::Exact {
                                b.request_key(receipt(m.id));
                            } else {
                                b.receipt(receipt(m.id));
                            }
                        }
                    },
                )
            },
            || {
                Builder::run(
                    old(Tab::Conflicts),
                    snap,
                    t.conflicts.len(),
                    |i| Some(&t.conflicts[i]),
                    |i, ids| {
                        let c = &t.conflicts[i];
                        ids.push(c.receipt_id);
                        Some(c.request_key.as_str())
                    },
                    |i, b| {
                        let c = &t.conflicts[i];
                        b.fold_kept(&c.scope);
                        b.fold_kept(&c.request_key);
                        b.receipt(receipt(c.receipt_id));
                    },
                )
            },
        );
        // The other tabs are short: made again each time.
        let stuck = Builder::run(
            None,
            snap,
            t.stuck.len(),
            unshared,
            |i, ids| {
                ids.push(t.stuck[i].receipt_id);
                None
            },
            |i, b| {
                let s = &t.stuck[i];
                b.fold_kept(&s.scope);
                if let Some(k) = &s.request_key {
                    b.fold_kept(k);
                }
                b.receipt(receipt(s.receipt_id));
            },
        );
        // Bot groups: their scopes and receipts.
        let bots = Builder::run(
            None,
            snap,
            t.bot_groups.len(),
            unshared,
            |i, ids| {
                ids.extend(t.bot_groups[i].receipts.iter().map(|r| r.id));
                None
            },
            |i, b| {
                let g = &t.bot_groups[i];
                for s in &g.scopes {
                    b.fold_kept(s);
                }
                for r in &g.receipts {
                    b.receipt(receipt(r.id));
                }
            },
        );
        let damaged = Builder::run(
            None,
            snap,
            t.damaged.len(),
            unshared,
            |i, ids| {
                ids.push(t.damaged[i].receipt_id);
                None
            },
            |i, b| {
                let d = &t.damaged[i];
                b.fold(d.reason.as_str());
                b.fold(&d.detail);
            },
        );
        let log = Builder::run(
            None,
            snap,
            snap.log.len(),
            unshared,
            |i, ids| {
                ids.extend_from_slice(&snap.log[i].receipt_ids);
                None
            },
            |i, b| {
                let l = &snap.log[i];
                b.fold(&l.item);
                b.fold(&l.decision);
                b.fold(&l.operator);
                if let Some(n) = &l.note {
                    b.fold(n);
                }
            },
        );
        // Item names are matched apart from the texts (see `TabIndex::named`).
        SearchIndex {
            tabs: [
                duplicates.named("dup:"),
                conflicts.named("conflict:"),
                stuck.named("stuck:"),
                bots.named("bot:"),
                damaged.named("damaged:"),
                // The Receipts and Forms tabs search and filter by themselves.
                TabIndex::default(),
                TabIndex::default(),
                log,
            ],
        }
    }

    /// The index of a reading whose items' receipts are still to come: each
    /// tab's rows, and no texts. Its filter finds nothing until the reading
    /// with the receipts (indexed in full) follows, which the list says; the
    /// analysis reaches the screen without waiting for an index of part of
    /// its texts (40-60 ms at a million receipts).
    pub fn unindexed(snap: &Snapshot) -> Self {
        let t = &snap.triage;
        let rows = |len: usize| TabIndex {
            len,
            ..TabIndex::default()
        };
        SearchIndex {
            tabs: [
                rows(t.duplicates.len()).named("dup:"),
                rows(t.conflicts.len()).named("conflict:"),
                rows(t.stuck.len()).named("stuck:"),
                rows(t.bot_groups.len()).named("bot:"),
                rows(t.damaged.len()).named("damaged:"),
                TabIndex::default(),
                TabIndex::default(),
                rows(snap.log.len()),
            ],
        }
    }
}

/// What a row's text is made of besides its receipts' ids (compared in
/// full): which of them the reading holds (the first reading of a database
/// comes before its receipts) and one text of its own. A receipt's texts
/// (scope, key, fields) are written once and never change in place.
/// Also tells whether the reading holds every one of `ids`.
fn fingerprint(snap: &Snapshot, ids: &[ReceiptId], own: &str) -> (u64, bool) {
    // FxHash's step: cheap, and a collision also needs equal ids.
    let step = |h: u64, x: u64| (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    let mut h = own.len() as u64;
    for chunk in own.as_bytes().chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = step(h, u64::from_le_bytes(word));
    }
    let mut all = true;
    for &id in ids {
        let held = snap.receipts.contains(id);
        all &= held;
        h = step(h, u64::from(held));
    }
    (h, all)
}

/// For tabs made again each time: no row is an item a later reading shares.
fn unshared<'s>(_: usize) -> Option<&'s Arc<()>> {
    None
}

/// Where the rows of an old index are, by their first receipt: (receipt
/// id, chunk, row in the chunk), sorted.
type RowPlaces = Vec<(ReceiptId, u32, u32)>;

/// What the rows of one chunk are made of: their fingerprints, and their
/// receipts (`row_ids`, each row's ending at `ends`).
#[derive(Default)]
struct MadeOf {
    prints: Vec<Option<u64>>,
    row_ids: Vec<ReceiptId>,
    ends: Vec<u32>,
    /// The reading holds every receipt of these rows.
    all_held: bool,
}

/// What becomes of one chunk of a tab.
enum ChunkPlan {
    /// Its rows are the items of the old chunk: kept with its owners.
    Keep(Arc<Chunk>, Arc<Owners>),
    /// Its rows are made of this: the old chunk is kept only if equal.
    Check(MadeOf),
}

/// Collects one tab's rows.
struct Builder;

/// The texts of one row being made, before de-duplication: borrowed from
/// the reading where they need no folding (a group's copies mostly repeat
/// them, so most are dropped again).
#[derive(Default)]
struct RowTexts<'s> {
    row: Vec<Cow<'s, str>>,
}

/// The bytes of text a chunk's rows hold on average from which they keep
/// their signatures (160 bytes a row): below it, reading a row's text costs
/// about as much as its signature would save. The rows of a reading whose
/// receipts are still being read hold little more than their scopes.
const SIGNED_FROM: usize = 64;

/// A row's text and joined runs (the old index's, or made anew) and its
/// signature when the old index kept it (worked out only for a chunk that
/// keeps signatures).
type RowText<'a> = (Cow<'a, [u8]>, Cow<'a, [u8]>, Option<Signature>);

impl Builder {
    /// Builds a tab of `rows` rows. `key` gives a row's receipt ids and, when
    /// its text may be copied from `old`, the one text of its own that the
    /// text depends on; `texts` gives the texts of a row not copied. A chunk
    /// whose rows are those of the same chunk of `old` is shared with it.
    fn run<'s, T: Send + Sync + 'static>(
        old: Option<&TabIndex>,
        snap: &'s Snapshot,
        rows: usize,
        owner: impl Fn(usize) -> Option<&'s Arc<T>> + Sync,
        key: impl Fn(usize, &mut Vec<ReceiptId>) -> Option<&'s str> + Sync,
        texts: impl Fn(usize, &mut RowTexts<'s>) + Sync,
    ) -> TabIndex {
        let range = |k: usize| k * CHUNK..rows.min((k + 1) * CHUNK);
        // What each chunk's rows are made of, worked out on both cores
        // unless they are the old chunk's items (most of the work when few
        // rows changed).
        let plans: Vec<ChunkPlan> = (0..rows.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let kept = old.and_then(|o| Some((o.chunks.get(k)?, o.owners.get(k)?)));
                let same_items = |c: &Chunk, o: &Owners| {
                    o.all_held
                        && o.are(range(k), &owner)
                        && snap.receipts.holds_all(c.ids.iter().map(|e| e.0))
                };
                if let Some((c, o)) = kept.filter(|(c, o)| same_items(c, o)) {
                    return ChunkPlan::Keep(Arc::clone(c), Arc::clone(o));
                }
                let mut m = MadeOf {
                    all_held: true,
                    ..MadeOf::default()
                };
                let mut ids = Vec::new();
                for i in range(k) {
                    ids.clear();
                    let print = key(i, &mut ids).map(|own| fingerprint(snap, &ids, own));
                    m.all_held &= print.is_none_or(|p| p.1);
                    m.prints.push(print.map(|p| p.0));
                    m.row_ids.extend_from_slice(&ids);
                    m.ends.push(m.row_ids.len() as u32);
                }
                ChunkPlan::Check(m)
            })
            .collect();
        // Which old chunks are kept whole: a row that moved comes from one
        // that is not (the rows of a kept chunk stay where they were).
        let mut owners = Vec::with_capacity(plans.len());
        let mut kept = vec![false; old.map_or(0, |o| o.chunks.len())];
        let plans: Vec<Result<Arc<Chunk>, MadeOf>> = plans
            .into_iter()
            .enumerate()
            .map(|(k, plan)| {
                let m = match plan {
                    ChunkPlan::Keep(c, o) => {
                        owners.push(o);
                        kept[k] = true;
                        return Ok(c);
                    }
                    ChunkPlan::Check(m) => m,
                };
                owners.push(Arc::new(Owners {
                    items: range(k)
                        .map_while(|i| {
                            owner(i).map(|a| Arc::clone(a) as Arc<dyn Any + Send + Sync>)
                        })
                        .collect(),
                    all_held: m.all_held,
                }));
                let same = old
                    .and_then(|o| o.chunks.get(k))
                    .filter(|c| c.same_rows(&m.prints, &m.row_ids, &m.ends));
                match same {
                    Some(c) => {
                        kept[k] = true;
                        Ok(Arc::clone(c))
                    }
                    None => Err(m),
                }
            })
            .collect();
        let lookup = match old {
            Some(o) if plans.iter().any(Result::is_err) => lookup(o, &kept),
            _ => RowPlaces::new(),
        };
        let mut chunks = Vec::with_capacity(plans.len());
        for (k, plan) in plans.into_iter().enumerate() {
            let m = match plan {
                Ok(c) => {
                    chunks.push(c);
                    continue;
                }
                Err(m) => m,
            };
            let from = k * CHUNK;
            let row_ids = |n: usize| {
                let start = if n == 0 { 0 } else { m.ends[n - 1] as usize };
                &m.row_ids[start..m.ends[n] as usize]
            };
            // Rows made on both cores: a refresh makes a few hundred anew,
            // each from its receipts' texts.
            let made: Vec<RowText<'_>> = range(k)
                .into_par_iter()
                .with_min_len(64)
                .map_init(RowTexts::default, |t, i| {
                    let n = i - from;
                    let copied = m.prints[n]
                        .and_then(|p| old.and_then(|o| copy(o, &lookup, i, p, row_ids(n))));
                    match copied {
                        Some((text, loose, sig)) => {
                            (Cow::Borrowed(text), Cow::Borrowed(loose), sig)
                        }
                        None => {
                            texts(i, t);
                            let (text, loose) = t.take();
                            (Cow::Owned(text), Cow::Owned(loose), None)
                        }
                    }
                })
                .collect();
            // Sized at once: grown by doubling, the per-row sets would take
            // up to twice their room for as long as the chunk lives.
            let n = made.len();
            let length: usize = made.iter().map(|r| r.0.len()).sum();
            let loose_length: usize = made.iter().map(|r| r.1.len()).sum();
            let signed = length >= n * SIGNED_FROM;
            let room = if signed { n } else { 0 };
            let signatures: Vec<Signature> = if signed {
                made.par_iter()
                    .with_min_len(64)
                    .map(|(text, _, sig)| sig.unwrap_or_else(|| Signature::of(text)))
                    .collect()
            } else {
                Vec::new()
            };
            let mut chunk = Chunk {
                text: Vec::with_capacity(length),
                ends: Vec::with_capacity(n),
                loose: Vec::with_capacity(loose_length),
                // None when no row has any (most rows of a reading whose
                // receipts are still to come).
                loose_ends: Vec::with_capacity(if loose_length > 0 { n } else { 0 }),
                bytes: Vec::with_capacity(room),
                pairs: Vec::with_capacity(room),
                prints: Vec::with_capacity(n),
                row_ids: Vec::with_capacity(m.row_ids.len()),
                row_ids_end: Vec::with_capacity(n),
                ids: Vec::new(),
            };
            for sig in signatures {
                chunk.bytes.push(sig.bytes);
                chunk.pairs.push(sig.pairs);
            }
            for (n, (text, loose, _)) in made.into_iter().enumerate() {
                chunk.text.extend_from_slice(&text);
                chunk.ends.push(chunk.text.len());
                if loose_length > 0 {
                    chunk.loose.extend_from_slice(&loose);
                    chunk.loose_ends.push(chunk.loose.len() as u32);
                }
                chunk.prints.push(m.prints[n]);
                chunk.row_ids.extend_from_slice(row_ids(n));
                chunk.row_ids_end.push(chunk.row_ids.len() as u32);
            }
            let mut ids = Vec::with_capacity(chunk.row_ids.len());
            let mut start = 0;
            for (row, &end) in chunk.row_ids_end.iter().enumerate() {
                let named = &chunk.row_ids[start as usize..end as usize];
                ids.extend(named.iter().map(|&id| (id, row as u32)));
                start = end;
            }
            chunk.ids = ids;
            chunk.ids.sort_unstable();
            chunks.push(Arc::new(chunk));
        }
        TabIndex {
            chunks,
            owners,
            len: rows,
            name: None,
        }
    }
}

/// The text, joined runs and signature of the row of `old` with these
/// receipts and fingerprint, looked for at the same place first, then by
/// its first receipt in `lookup`.
fn copy<'o>(
    old: &'o TabIndex,
    lookup: &RowPlaces,
    at: usize,
    print: u64,
    ids: &[ReceiptId],
) -> Option<(&'o [u8], &'o [u8], Option<Signature>)> {
    let first = *ids.first()?;
    let matches = |c: &Chunk, r: usize| c.prints[r] == Some(print) && c.row_ids(r) == ids;
    let here = old
        .chunks
        .get(at / CHUNK)
        .filter(|c| at % CHUNK < c.len() && matches(c, at % CHUNK))
        .map(|c| (&**c, at % CHUNK));
    let (c, r) = here.or_else(|| {
        let from = lookup.partition_point(|e| e.0 < first);
        lookup[from..]
            .iter()
            .take_while(|e| e.0 == first)
            .map(|e| (&*old.chunks[e.1 as usize], e.2 as usize))
            .find(|&(c, r)| matches(c, r))
    })?;
    let sig = c.signed().then(|| Signature {
        bytes: c.bytes[r],
        pairs: c.pairs[r],
    });
    Some((&c.text[c.start(r)..c.ends[r]], c.loose_row(r), sig))
}

impl<'s> RowTexts<'s> {
    /// The row's texts, de-duplicated, each ended by the separator, and
    /// the runs their compact forms joined (likewise, see
    /// [`crate::find::loose::joined`]); the row is left empty for the next.
    fn take(&mut self) -> (Vec<u8>, Vec<u8>) {
        self.row.sort_unstable();
        self.row.dedup();
        let mut text = Vec::with_capacity(self.row.iter().map(|t| t.len() + 1).sum());
        let mut loose = Vec::new();
        for t in self.row.drain(..) {
            text.extend_from_slice(t.as_bytes());
            text.push(SEPARATOR);
            joined(&t, |run| {
                loose.extend_from_slice(run.as_bytes());
                loose.push(SEPARATOR);
            });
        }
        (text, loose)
    }

    /// A text compared as the filter compares it: folded like a query,
    /// except that an ASCII text is only lower-cased.
    fn fold(&mut self, text: &str) {
        let folded = if text.is_ascii() {
            text.to_ascii_lowercase()
        } else {
            normalize_query(text)
        };
        self.row.push(Cow::Owned(folded));
    }

    /// [`RowTexts::fold`] of a text of the reading: borrowed when folding
    /// leaves it as it is (an ASCII text without capitals).
    fn fold_kept(&mut self, text: &'s str) {
        if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_uppercase()) {
            self.row.push(Cow::Borrowed(text));
        } else {
            self.fold(text);
        }
    }

    /// A receipt's request key (folded).
    fn request_key(&mut self, r: Option<View<'s>>) {
        if let Some(k) = r.and_then(|r| r.request_key()) {
            self.fold_kept(k);
        }
    }

    /// A receipt's request key (folded) and visitor values (already folded).
    fn receipt(&mut self, r: Option<View<'s>>) {
        let Some(r) = r else { return };
        self.request_key(Some(r));
        self.row
            .extend(r.fields().map(|(_, value)| Cow::Borrowed(value)));
    }
}

/// The rows of `old` by their first receipt (rows copied are found so),
/// but for those of chunks `kept` whole.
fn lookup(old: &TabIndex, kept: &[bool]) -> RowPlaces {
    let mut out: RowPlaces = old
        .chunks
        .iter()
        .enumerate()
        .filter(|&(k, _)| !kept.get(k).copied().unwrap_or(false))
        .flat_map(|(k, c)| {
            (0..c.len())
                .filter_map(move |r| c.row_ids(r).first().map(|&id| (id, k as u32, r as u32)))
        })
        .collect();
    out.sort_unstable();
    out
}
