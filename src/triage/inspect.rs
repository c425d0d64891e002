//! Checking one stored row: either a good receipt (its compact facts, or the
//! whole [`Receipt`] for a detail view) or the first reason it is damaged
//! (payload, time, digest, state, in that order).
//!
//! Rows the intake wrote (a canonical JSON object, RFC 3339 times) take a
//! fast path: the digest is the SHA-256 of the stored bytes and the fields are
//! read in place (an array or object value parsed on its own); anything else goes through `serde_json` and
//! [`crate::intake::canonical`], with the same answers.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::RwLock;

use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use super::facts::{
    DamagedRow, FLAG_ERASED, FLAG_HONEYPOT, FLAG_KEY, FieldFact, NONE16, ReceiptFact, Table,
};
use super::hash;
use super::model::{DamageCause, DamageDetail, DamageReason, Damaged, Receipt, VisitorFields};
use super::scan;
use super::text;
use super::visitor::{self, IgnoreList};
use crate::intake::canonical::{self, CanonicalError};
use crate::model::erasure::Tombstone;
use crate::model::time::parse_time_ref;
use crate::model::{Millis, RawReceipt, ReceiptId, ReceiptState, Row, Settings};

/// Seed of the fixed hash of request keys.
pub(crate) const SEED_REQUEST_KEY: u64 = 0x4B45;

/// Checks one row against the database contract.
pub fn inspect(raw: &RawReceipt, settings: &Settings) -> Result<Receipt, Damaged> {
    Inspector::new(settings, hash::Keyed::new()).receipt(&raw.row(), &mut Scratch::default())
}

/// [`inspect`] with the ignore list already prepared (once per analysis).
pub fn inspect_with(raw: &RawReceipt, ignore: &IgnoreList) -> Result<Receipt, Damaged> {
    Inspector {
        ignore: ignore.clone(),
        random: hash::Keyed::new(),
    }
    .receipt(&raw.row(), &mut Scratch::default())
}

/// Checks rows: pure, one row at a time, any number of threads at once (each
/// with its own [`Scratch`]).
#[derive(Clone, Debug)]
pub struct Inspector {
    ignore: IgnoreList,
    random: hash::Keyed,
}

/// How a payload key is treated.
#[derive(Clone, Copy, Debug)]
enum KeyClass {
    Noise,
    Honeypot,
    /// A visitor field: its index in [`Scratch::local_keys`].
    Visitor(u32),
}

#[derive(Clone, Debug)]
struct LocalKey {
    name: Box<str>,
    hash: u64,
    check: u64,
    /// The interned id, when interning.
    id: u32,
    /// A field naming the sender is never the message body.
    names_sender: bool,
    /// The field names a person (not only an organisation).
    names_a_person: bool,
}

/// One visitor field of the row being checked.
#[derive(Clone, Debug)]
struct Field {
    key: u32,
    text: Range<usize>,
    value: u64,
    check: u64,
    tokens: usize,
    chars: usize,
}

/// A map of names seen in payloads (seeded per process: the names are
/// strangers' text).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Buffers reused from row to row, and caches of key and scope names.
pub struct Scratch {
    /// The raw keys seen last, by a cheap hash of their length and ends.
    recent: Vec<Option<(Box<str>, KeyClass)>>,
    scanned: scan::Scanned,
    text: String,
    unescaped: String,
    fields: Vec<Field>,
    raw_keys: FastMap<Box<str>, KeyClass>,
    key_index: FastMap<Box<str>, u32>,
    local_keys: Vec<LocalKey>,
    scopes: FastMap<Box<str>, u32>,
    /// The tombstone of the row checked last, when it was erased.
    pub tombstone: Option<Tombstone>,
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            recent: vec![None; 256],
            scanned: scan::Scanned::default(),
            text: String::new(),
            unescaped: String::new(),
            fields: Vec::new(),
            raw_keys: FastMap::default(),
            key_index: FastMap::default(),
            local_keys: Vec::new(),
            scopes: FastMap::default(),
            tombstone: None,
        }
    }
}

/// Where visitor keys and scopes get their ids (facts only).
pub struct Interners<'a> {
    pub keys: &'a RwLock<Table>,
    pub scopes: &'a RwLock<Table>,
}

fn intern(table: &RwLock<Table>, name: &str, seed: u64, random: &hash::Keyed) -> u32 {
    if let Some(id) = table.read().expect("names").get(name) {
        return id;
    }
    table.write().expect("names").intern(name, seed, random)
}

/// What a good row gives besides its fields.
struct Checked {
    digest: [u8; 32],
    created_ms: Millis,
    updated_at: Option<Millis>,
    state: ReceiptState,
    honeypot: bool,
}

/// A good receipt, borrowed from its row and the [`Scratch`] that checked it
/// (see [`Inspector::receipt_ref`]).
pub struct ReceiptRef<'a> {
    pub meta: RowMeta<'a>,
    pub honeypot_filled: bool,
    scratch: &'a Scratch,
}

/// A good row's facts besides its payload's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowMeta<'a> {
    pub id: ReceiptId,
    pub scope: &'a str,
    pub request_key: Option<&'a str>,
    /// SHA-256 of the canonical payload (a stored digest was checked against it).
    pub digest: [u8; 32],
    pub state: ReceiptState,
    pub created_ms: Millis,
    pub updated_ms: Option<Millis>,
}

impl<'a> ReceiptRef<'a> {
    /// The visitor fields, (key, value), in the order of [`VisitorFields`].
    pub fn fields(&self) -> impl ExactSizeIterator<Item = (&'a str, &'a str)> + 'a {
        let s = self.scratch;
        s.fields
            .iter()
            .map(move |f| (&*s.local_keys[f.key as usize].name, &s.text[f.text.clone()]))
    }

    pub fn to_receipt(&self) -> Receipt {
        let m = &self.meta;
        Receipt {
            id: m.id,
            scope: m.scope.to_string(),
            request_key: m.request_key.map(str::to_string),
            digest: hex::encode(m.digest),
            state: m.state,
            created_ms: m.created_ms,
            updated_ms: m.updated_ms,
            visitor: VisitorFields(
                self.fields()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            honeypot_filled: self.honeypot_filled,
        }
    }
}

/// A value of the payload, wherever it was read from.
enum Val<'a> {
    Str(&'a str),
    True,
    False,
    Null,
    /// A number as written, which for a canonical one is also its text as
    /// a parsed value.
    Number(&'a str),
    Json(&'a Json),
}

impl Inspector {
    /// `random` keys the checks; facts compare only with facts of the same key.
    pub fn new(settings: &Settings, random: hash::Keyed) -> Self {
        Self {
            ignore: IgnoreList::new(&settings.ignore_fields),
            random,
        }
    }

    /// The whole receipt (for detail views and the compatibility API).
    pub fn receipt(&self, row: &Row<'_>, s: &mut Scratch) -> Result<Receipt, Damaged> {
        self.receipt_ref(row, s).map(|r| r.to_receipt())
    }

    /// The receipt as [`Inspector::receipt`] gives it, borrowed from the row
    /// and the scratch: what a compact copy is made from without a whole
    /// [`Receipt`] made and dropped on the way.
    pub fn receipt_ref<'a>(
        &self,
        row: &Row<'a>,
        s: &'a mut Scratch,
    ) -> Result<ReceiptRef<'a>, Damaged> {
        let c = self.check(row, s, None)?;
        // The order of `VisitorFields`: by name, then value.
        let (keys, text) = (&s.local_keys, &s.text);
        let pair = |f: &Field| (&*keys[f.key as usize].name, &text[f.text.clone()]);
        // (`check` left each pair once.)
        s.fields.sort_unstable_by(|a, b| pair(a).cmp(&pair(b)));
        Ok(ReceiptRef {
            meta: RowMeta {
                id: row.id,
                scope: row.scope,
                request_key: row.request_key,
                digest: c.digest,
                state: c.state,
                created_ms: c.created_ms,
                updated_ms: c.updated_at,
            },
            honeypot_filled: c.honeypot,
            scratch: s,
        })
    }

    /// What [`Inspector::receipt_ref`] gives of a row besides its visitor
    /// fields, without reading its payload: for a row checked whole earlier
    /// in the same read transaction, whose stored digest was then found to
    /// be its payload's. `None` when the row does not say it plainly (no
    /// stored digest, or not 64 hex digits; a time or state that does not
    /// parse): such a row is checked whole.
    pub fn row_meta<'a>(row: &Row<'a>) -> Option<RowMeta<'a>> {
        let mut digest = [0u8; 32];
        hex::decode_to_slice(row.digest?.trim(), &mut digest).ok()?;
        Some(RowMeta {
            id: row.id,
            scope: row.scope,
            request_key: row.request_key,
            digest,
            state: ReceiptState::parse(row.state)?,
            created_ms: parse_time_ref(row.created_at).ok()?,
            updated_ms: parse_time_ref(row.updated_at).ok(),
        })
    }

    /// The compact facts of a good row, appending its fields to `fields`
    /// (`ReceiptFact::fields` is then the offset in `fields` where they start).
    pub fn facts(
        &self,
        row: &Row<'_>,
        s: &mut Scratch,
        names: &Interners<'_>,
        fields: &mut Vec<FieldFact>,
    ) -> Result<ReceiptFact, Damaged> {
        let c = self.check(row, s, Some(names.keys))?;
        let mut fingerprint: u64 = 0x5EED;
        let mut checks: [u64; 64] = [0; 64];
        let mut spilled: Vec<u64> = Vec::new();
        let mut body: Option<(usize, usize)> = None;
        let start = fields.len();
        for (i, f) in s.fields.iter().enumerate() {
            let k = &s.local_keys[f.key as usize];
            fingerprint = hash::combine(fingerprint, hash::combine(k.hash, f.value));
            if s.fields.len() * 2 <= checks.len() {
                checks[2 * i] = k.check;
                checks[2 * i + 1] = f.check;
            } else {
                spilled.extend([k.check, f.check]);
            }
            if !k.names_sender
                && text::is_free_text_measure(f.tokens, f.chars)
                && body.is_none_or(|(_, c)| f.chars > c)
            {
                body = Some((i, f.chars));
            }
            fields.push(
                FieldFact::new(k.id, f.value, f.check, f.tokens, f.chars)
                    .naming_a_person(k.names_a_person),
            );
        }
        let scope = match s.scopes.get(row.scope) {
            Some(&id) => id,
            None => {
                let id = intern(names.scopes, row.scope, hash::SEED_SCOPE, &self.random);
                s.scopes.insert(row.scope.into(), id);
                id
            }
        };
        let (key_hash, key_check) = match row.request_key {
            Some(k) => (hash::str(SEED_REQUEST_KEY, k), self.random.str(k) as u32),
            None => (0, 0),
        };
        let mut flags = 0;
        if c.honeypot {
            flags |= FLAG_HONEYPOT;
        }
        if s.tombstone.is_some() {
            flags |= FLAG_ERASED;
        }
        if row.request_key.is_some() {
            flags |= FLAG_KEY;
        }
        Ok(ReceiptFact {
            id: row.id,
            created_ms: c.created_ms,
            fingerprint,
            fp_check: if spilled.is_empty() {
                self.random
                    .words(checks[..2 * s.fields.len()].iter().copied())
            } else {
                self.random.words(spilled)
            } as u32,
            key_hash,
            fields: start as u32,
            scope,
            key_check,
            nfields: s.fields.len().min(NONE16 as usize - 1) as u16,
            body: body.map_or(NONE16, |(i, _)| i as u16),
            state: c.state,
            flags,
        })
    }

    /// What is kept of a damaged row.
    pub fn damaged_row(row: &Row<'_>) -> DamagedRow {
        DamagedRow {
            id: row.id,
            scope: row.scope.to_string(),
            request_key: row.request_key.map(str::to_string),
        }
    }

    /// Checks a row and leaves its visitor fields in `s.fields`, sorted by
    /// (key hash, value hash) and without repeated pairs.
    fn check(
        &self,
        row: &Row<'_>,
        s: &mut Scratch,
        keys: Option<&RwLock<Table>>,
    ) -> Result<Checked, Damaged> {
        let damaged = |reason, cause| Damaged {
            receipt_id: row.id,
            reason,
            detail: DamageDetail::new(cause),
        };

        let text = row.payload.map_err(|what| {
            damaged(
                DamageReason::Payload,
                DamageCause::PayloadNotText(what.to_string()),
            )
        })?;
        s.text.clear();
        s.fields.clear();
        s.tombstone = None;
        if let Some(tombstone) = Tombstone::of_row(text, row.digest) {
            return self.check_erased(row, text, tombstone, s);
        }
        let mut honeypot = false;
        let digest: [u8; 32];
        let mut scanned = std::mem::take(&mut s.scanned);
        if scanned.scan(text) {
            digest = Sha256::digest(text.as_bytes()).into();
            for e in &scanned.entries {
                let key = &text[e.key.clone()];
                let val = match &e.value {
                    scan::Value::Str {
                        raw,
                        escaped: false,
                    } => Val::Str(&text[raw.clone()]),
                    scan::Value::Str { raw, escaped: true } => {
                        let mut u = std::mem::take(&mut s.unescaped);
                        u.clear();
                        scan::unescape(&text[raw.clone()], &mut u);
                        self.take(key, Val::Str(&u), s, keys, &mut honeypot);
                        s.unescaped = u;
                        continue;
                    }
                    scan::Value::True => Val::True,
                    scan::Value::False => Val::False,
                    scan::Value::Null => Val::Null,
                    scan::Value::Number(r) => Val::Number(&text[r.clone()]),
                    scan::Value::Nested { parsed, .. } => Val::Json(&scanned.nested[*parsed]),
                };
                self.take(key, val, s, keys, &mut honeypot);
            }
            s.scanned = scanned;
        } else {
            s.scanned = scanned;
            let payload = canonical::parse_object(text)
                .map_err(|e| damaged(DamageReason::Payload, unparsed(e)))?;
            let canonical_text = canonical::canonical(&payload)
                .map_err(|e| damaged(DamageReason::Payload, DamageCause::NoCanonicalForm(e)))?;
            digest = Sha256::digest(canonical_text.as_bytes()).into();
            for (key, value) in &payload {
                self.take(key, Val::Json(value), s, keys, &mut honeypot);
            }
        }

        let created_ms = parse_time_ref(row.created_at)
            .map_err(|e| damaged(DamageReason::Time, DamageCause::CreatedAt(e)))?;

        if let Some(stored) = row.digest
            && !digest_matches(stored, &digest)
        {
            let computed = hex::encode(digest);
            return Err(damaged(
                DamageReason::Digest,
                digest_mismatch(stored, &computed),
            ));
        }

        let state = ReceiptState::parse(row.state)
            .ok_or_else(|| damaged(DamageReason::State, unknown_state(row.state)))?;

        let keys_of = &s.local_keys;
        let text_of = &s.text;
        s.fields.sort_unstable_by(|a, b| {
            let (ka, kb) = (&keys_of[a.key as usize], &keys_of[b.key as usize]);
            (ka.hash, a.value, a.check)
                .cmp(&(kb.hash, b.value, b.check))
                .then_with(|| ka.name.cmp(&kb.name))
                .then_with(|| text_of[a.text.clone()].cmp(&text_of[b.text.clone()]))
        });
        s.fields.dedup_by(|b, a| {
            a.key == b.key
                && a.value == b.value
                && text_of[a.text.clone()] == text_of[b.text.clone()]
        });

        Ok(Checked {
            digest,
            created_ms,
            updated_at: parse_time_ref(row.updated_at).ok(),
            state,
            honeypot,
        })
    }

    /// An erased row: no fields, and its digest is the original's (the
    /// tombstone's own would not match it; that is what marks it). Its time
    /// and state are checked as any row's.
    fn check_erased(
        &self,
        row: &Row<'_>,
        text: &str,
        tombstone: Tombstone,
        s: &mut Scratch,
    ) -> Result<Checked, Damaged> {
        let damaged = |reason, cause| Damaged {
            receipt_id: row.id,
            reason,
            detail: DamageDetail::new(cause),
        };
        let created_ms = parse_time_ref(row.created_at)
            .map_err(|e| damaged(DamageReason::Time, DamageCause::CreatedAt(e)))?;
        let state = ReceiptState::parse(row.state)
            .ok_or_else(|| damaged(DamageReason::State, unknown_state(row.state)))?;
        let mut digest = [0u8; 32];
        if row
            .digest
            .and_then(|d| hex::decode_to_slice(d.trim(), &mut digest).ok())
            .is_none()
        {
            digest = Sha256::digest(text.as_bytes()).into();
        }
        s.tombstone = Some(tombstone);
        Ok(Checked {
            digest,
            created_ms,
            updated_at: parse_time_ref(row.updated_at).ok(),
            state,
            honeypot: false,
        })
    }

    /// One payload entry: a honeypot, noise, or a visitor field.
    fn take(
        &self,
        raw_key: &str,
        value: Val<'_>,
        s: &mut Scratch,
        keys: Option<&RwLock<Table>>,
        honeypot: &mut bool,
    ) {
        let b = raw_key.as_bytes();
        let slot = match (b.first(), b.last()) {
            (Some(&f), Some(&l)) => (b.len() * 31 + usize::from(f) * 7 + usize::from(l)) & 255,
            _ => 0,
        };
        let class = match &s.recent[slot] {
            Some((k, c)) if **k == *raw_key => *c,
            _ => {
                let c = match s.raw_keys.get(raw_key) {
                    Some(c) => *c,
                    None => {
                        let c = self.classify(raw_key, s, keys);
                        s.raw_keys.insert(raw_key.into(), c);
                        c
                    }
                };
                s.recent[slot] = Some((raw_key.into(), c));
                c
            }
        };
        let key = match class {
            KeyClass::Noise => return,
            KeyClass::Honeypot => {
                *honeypot |= match value {
                    Val::Str(t) => !text::normalize_text_cow(t).is_empty(),
                    Val::True | Val::Number(_) => true,
                    Val::False | Val::Null => false,
                    Val::Json(v) => visitor::honeypot_is_filled(v),
                };
                return;
            }
            KeyClass::Visitor(k) => k,
        };
        let start = s.text.len();
        let measured = match value {
            Val::Str(t) => Some(text::normalize_measured(t, &mut s.text)),
            Val::True => {
                s.text.push_str("true");
                None
            }
            Val::False => {
                s.text.push_str("false");
                None
            }
            Val::Null => None,
            Val::Number(t) => {
                s.text.push_str(t);
                None
            }
            Val::Json(v) => {
                if let Some(t) = visitor::normalize_value(v) {
                    s.text.push_str(&t);
                }
                None
            }
        };
        if s.text.len() == start {
            return; // empty values and nulls count as absent
        }
        let value = &s.text[start..];
        let (tokens, chars) = measured.unwrap_or_else(|| text::measure(value));
        s.fields.push(Field {
            key,
            text: start..s.text.len(),
            value: hash::str(hash::SEED_VALUE, value),
            check: self.random.str(value),
            tokens,
            chars,
        });
    }

    fn classify(&self, raw_key: &str, s: &mut Scratch, keys: Option<&RwLock<Table>>) -> KeyClass {
        let key = visitor::normalize_key(raw_key);
        if visitor::is_honeypot_key(&key) {
            return KeyClass::Honeypot;
        }
        if visitor::is_noise_key(&key) || self.ignore.ignores(&key) {
            return KeyClass::Noise;
        }
        if let Some(&local) = s.key_index.get(key.as_str()) {
            return KeyClass::Visitor(local);
        }
        let id = keys.map_or(u32::MAX, |t| intern(t, &key, hash::SEED_KEY, &self.random));
        let local = s.local_keys.len() as u32;
        s.local_keys.push(LocalKey {
            hash: hash::str(hash::SEED_KEY, &key),
            check: self.random.str(&key),
            name: key.as_str().into(),
            id,
            names_sender: visitor::identity_of(&key).is_some(),
            names_a_person: matches!(
                visitor::identity_of(&key),
                Some(visitor::Identity::Email | visitor::Identity::Phone | visitor::Identity::Name)
            ),
        });
        s.key_index.insert(key.into(), local);
        KeyClass::Visitor(local)
    }
}

/// Why a payload is not a JSON object, as a damaged row says it.
fn unparsed(e: CanonicalError) -> DamageCause {
    match e {
        e @ CanonicalError::NotAnObject { .. } => DamageCause::NotAnObject(e),
        other => DamageCause::NotJson(other),
    }
}

fn digest_mismatch(stored: &str, computed: &str) -> DamageCause {
    DamageCause::DigestMismatch {
        stored: short(stored),
        computed: short(computed),
    }
}

fn unknown_state(state: &str) -> DamageCause {
    DamageCause::UnknownState(state.to_string())
}

/// `stored.trim().eq_ignore_ascii_case(hex(computed))`, without allocating.
fn digest_matches(stored: &str, computed: &[u8; 32]) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let t = stored.trim().as_bytes();
    if t.len() != 64 {
        return false;
    }
    let mut hex = [0u8; 64];
    for (i, b) in computed.iter().enumerate() {
        hex[2 * i] = HEX[usize::from(b >> 4)];
        hex[2 * i + 1] = HEX[usize::from(b & 15)];
    }
    t.eq_ignore_ascii_case(&hex)
}

/// The first characters of a digest, enough to tell two apart.
fn short(digest: &str) -> String {
    let d = digest.trim();
    if d.chars().count() > 16 {
        format!("{}…", d.chars().take(12).collect::<String>())
    } else {
        d.to_string()
    }
}

/// The first version of this module, kept to check the fast one against.
#[cfg(test)]
pub(crate) mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TimeValue;
    use crate::triage::model::VisitorFields;

    const T: &str = "2026-11-29T10:15:30.123Z";
    const T_MS: i64 = 1_795_947_330_123;

    fn raw(payload: &str) -> RawReceipt {
        RawReceipt {
            id: 7,
            scope: "site".into(),
            request_key: Some("k1".into()),
            digest: None,
            payload: Ok(payload.into()),
            state: "completed".into(),
            created_at: TimeValue::Text(T.into()),
            updated_at: TimeValue::Null,
        }
    }

    fn reason(r: &RawReceipt) -> DamageReason {
        inspect(r, &Settings::new(0)).unwrap_err().reason
    }

    #[test]
    fn a_good_row() {
        let r = inspect(
            &raw(r#"{"Name":" Ada ","_csrf":"x","hp":""}"#),
            &Settings::new(0),
        )
        .unwrap();
        assert_eq!(r.id, 7);
        assert_eq!(r.created_ms, T_MS);
        assert_eq!(r.state, ReceiptState::Completed);
        assert_eq!(
            r.visitor,
            VisitorFields(vec![("name".into(), "ada".into())])
        );
        assert_eq!(r.digest.len(), 64);
        assert!(!r.honeypot_filled);
        assert_eq!(r.updated_ms, None);
    }

    #[test]
    fn a_rows_meta_is_what_checking_it_whole_gives() {
        let mut r = raw(r#"{"name":"Ada"}"#);
        r.updated_at = TimeValue::Text(T.into());
        let whole = inspect(&r, &Settings::new(0)).unwrap();
        // As the intake stores a digest, and as a person might type one.
        for stored in [
            whole.digest.clone(),
            format!(" {} ", whole.digest.to_uppercase()),
        ] {
            r.digest = Some(stored);
            let row = r.row();
            let meta = Inspector::row_meta(&row).unwrap();
            assert_eq!(hex::encode(meta.digest), whole.digest);
            assert_eq!(
                (meta.id, meta.scope, meta.request_key, meta.state),
                (7, "site", Some("k1"), ReceiptState::Completed)
            );
            assert_eq!((meta.created_ms, meta.updated_ms), (T_MS, Some(T_MS)));
        }
        // Nothing to take the payload's digest from, or a row that does not
        // parse: the row is checked whole instead.
        for digest in [None, Some("abc".to_string()), Some("g".repeat(64))] {
            r.digest = digest;
            assert_eq!(Inspector::row_meta(&r.row()), None);
        }
        r.digest = Some(whole.digest.clone());
        r.state = "done".into();
        assert_eq!(Inspector::row_meta(&r.row()), None);
        r.state = "completed".into();
        r.created_at = TimeValue::Text("yesterday".into());
        assert_eq!(Inspector::row_meta(&r.row()), None);
    }

    #[test]
    fn stored_digest_is_verified() {
        let mut r = raw(r#"{"a":1}"#);
        let good = inspect(&r, &Settings::new(0)).unwrap().digest;
        r.digest = Some(good.to_uppercase());
        assert_eq!(inspect(&r, &Settings::new(0)).unwrap().digest, good);
        r.digest = Some("0".repeat(64));
        let d = inspect(&r, &Settings::new(0)).unwrap_err();
        assert_eq!(d.reason, DamageReason::Digest);
        assert!(d.detail.contains("000000000000…"), "{}", d.detail);
    }

    #[test]
    fn digest_is_of_the_canonical_text() {
        let r = raw(r#"{ "b" : 1.50, "a" : "é\u00e9", "n": 1E2 }"#);
        let expected = canonical::sha256_hex(r#"{"a":"éé","b":1.5,"n":100.0}"#);
        assert_eq!(inspect(&r, &Settings::new(0)).unwrap().digest, expected);
        let mut stored = r.clone();
        stored.digest = Some(expected.clone());
        assert!(inspect(&stored, &Settings::new(0)).is_ok());
        let d = inspect(&raw(r#"{"x": 1e400}"#), &Settings::new(0)).unwrap_err();
        assert_eq!(d.reason, DamageReason::Payload);
        assert!(d.detail.contains("not finite"), "{}", d.detail);
    }

    #[test]
    fn each_damage_reason() {
        let mut r = raw("{}");
        r.payload = Err("BLOB of 12 bytes".into());
        assert_eq!(reason(&r), DamageReason::Payload);
        assert_eq!(reason(&raw("{not json")), DamageReason::Payload);
        assert_eq!(reason(&raw("[1,2]")), DamageReason::Payload);
        assert_eq!(reason(&raw("\"text\"")), DamageReason::Payload);
        let mut r = raw("{}");
        r.created_at = TimeValue::Text("yesterday".into());
        assert_eq!(reason(&r), DamageReason::Time);
        r.created_at = TimeValue::Null;
        assert_eq!(reason(&r), DamageReason::Time);
        let mut r = raw("{}");
        r.digest = Some("abc".into());
        assert_eq!(reason(&r), DamageReason::Digest);
        let mut r = raw("{}");
        r.state = "done".into();
        assert_eq!(reason(&r), DamageReason::State);
    }

    #[test]
    fn reasons_come_in_order() {
        let mut r = raw("[]");
        r.created_at = TimeValue::Null;
        r.digest = Some("x".into());
        r.state = "?".into();
        assert_eq!(reason(&r), DamageReason::Payload);
        r.payload = Ok("{}".into());
        assert_eq!(reason(&r), DamageReason::Time);
        r.created_at = TimeValue::Integer(1_795_947_330);
        assert_eq!(reason(&r), DamageReason::Digest);
        r.digest = None;
        assert_eq!(reason(&r), DamageReason::State);
    }

    #[test]
    fn details_are_inert() {
        let mut r = raw("{}");
        r.state = "\u{1b}[31mevil\u{202e}".into();
        let d = inspect(&r, &Settings::new(0)).unwrap_err();
        assert!(
            !d.detail.chars().any(crate::sanitize::is_unsafe),
            "{}",
            d.detail
        );
        let d = inspect(&raw("{\"a\":\u{1b}}"), &Settings::new(0)).unwrap_err();
        assert!(
            !d.detail.chars().any(crate::sanitize::is_unsafe),
            "{}",
            d.detail
        );
        let mut r = raw("{}");
        r.created_at = TimeValue::Other("BLOB \u{7}".into());
        let d = inspect(&r, &Settings::new(0)).unwrap_err();
        assert_eq!(d.reason, DamageReason::Time);
        assert!(
            !d.detail.chars().any(crate::sanitize::is_unsafe),
            "{}",
            d.detail
        );
    }

    use proptest::strategy::Strategy;

    fn reference(r: &RawReceipt) -> Result<Receipt, Damaged> {
        reference::inspect_with(r, &IgnoreList::new(&["ref*".to_string()]))
    }

    fn fast(r: &RawReceipt) -> Result<Receipt, Damaged> {
        inspect_with(r, &IgnoreList::new(&["ref*".to_string()]))
    }

    #[test]
    fn agrees_with_the_reference_on_odd_payloads() {
        for p in [
            r#"{"a":"x","b":true,"c":false,"d":null,"e":-12,"f":"q\"\\\n\u001f","g":0}"#,
            r#"{"A":"X","a":"x","hp":1,"n":123456789012345678901234567890}"#,
            r#"{"b":"2","a":"1"}"#,
            r#"{"a" : "spaced"}"#,
            r#"{"a":1.50,"b":[" X ",null],"c":{"Z":" y "}}"#,
            r#"{"a":"\u00e9t\u00c9","_gotcha":"","bot-field":false,"referrer":"r"}"#,
            r#"{"a":"Ｙａｍａｄａ　Ｔａｒｏ","b":"ﾃｽﾄ","c":"山田 太郎","d":"  x  "}"#,
            r#"{"a":1e400}"#,
            r#"{"a":"\ud800"}"#,
            r#"[1]"#,
            r#"{"msg":"Hello\tWorld","MSG":"hello world"}"#,
            r#"{"a":[],"b":[{"qty":2,"sku":"S-1"}],"c":53.44,"d":1e+16,"e":-1.5e-07,"hp":0.5}"#,
            r#"{"a":{"City":" TOKYO ","zip":""},"b":["ＡＢ",null],"c":[[]],"d":{}}"#,
            r#"{"_gotcha":[],"bot-field":{"x":null},"hp":[" "],"x":1}"#,
            r#"{"honeypot":[0],"x":1}"#,
            "{}",
        ] {
            let r = raw(p);
            assert_eq!(fast(&r), reference(&r), "{p}");
        }
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_reference(
            entries in proptest::collection::vec((
                proptest::sample::select(vec!["name", "Name", "email", "message", "_csrf", "hp",
                    "utm_source", "ref", "note", "ÉCOLE", "msg"]),
                proptest::prop_oneof![
                    "[a-zA-Z \t\n\u{3000}\u{a0}é日本ｶﾞ\\\"\u{1}]{0,16}".prop_map(|s| serde_json::Value::String(s).to_string()),
                    proptest::sample::select(vec!["true", "false", "null", "0", "-7", "12.5", "[1,\"A\"]", "{\"k\":\" V \"}", "\"\\u00e9\""]).prop_map(str::to_string),
                ],
            ), 0..6),
            sorted in proptest::bool::ANY,
            time in proptest::sample::select(vec!["2026-11-29T10:15:30.123Z", "2026-11-29 10:15:30", "x", "1795947330"]),
        ) {
            let mut entries = entries;
            if sorted {
                entries.sort();
                entries.dedup_by(|a, b| a.0 == b.0);
            }
            let body: Vec<String> = entries.iter().map(|(k, v)| format!("{:?}:{v}", k)).collect();
            let mut r = raw(&format!("{{{}}}", body.join(",")));
            r.created_at = TimeValue::Text(time.to_string());
            proptest::prop_assert_eq!(fast(&r), reference(&r));
            if let Ok(good) = reference(&r) {
                r.digest = Some(good.digest.to_uppercase());
                proptest::prop_assert_eq!(fast(&r), reference(&r));
                r.digest = Some(format!(" {}x", &good.digest[1..]));
                proptest::prop_assert_eq!(fast(&r), reference(&r));
            }
        }
    }
}
