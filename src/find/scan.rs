//! Looking through every receipt for a [`Query`]: one pass over the
//! database, on every connection a reading splits into, keeping only the
//! newest matches and a few counts (what a miss is explained with).
//!
//! Most receipts are turned down without parsing their payload: the payload's
//! whole text, folded as a value is (see [`crate::triage::text`]), must hold
//! the folded needle somewhere for any value to hold it. Folding a JSON text
//! keeps its punctuation, and each value's folded text is found inside it, so
//! the test can only let too many through, never too few; those it lets
//! through are parsed and looked at value by value. A payload with escapes
//! (`\u00e9`, `\n`) is always parsed. A name or a phone number
//! ([`super::loose`]) is looked for in compact forms: of the projection
//! (compacted as it is written), of the folded text, of each value.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use memchr::memmem::Finder;
use serde_json::{Map, Value};

use super::prefilter;
use super::query::Query;
use super::timeline::Timeline;
use crate::model::erasure::Tombstone;
use crate::model::time::parse_time_ref;
use crate::model::{Millis, ReceiptId, Row, RowSink};
use crate::storage::{Connections, Storage};
use crate::triage::text::{normalize_into, normalize_text};
use crate::triage::visitor::normalize_value;

/// The most matches kept (the newest); the rest are only counted.
pub const KEPT: usize = 200;

/// What arrived lately counts for a miss from this far back.
pub const RECENT_MS: Millis = 10 * 60 * 1000;

/// Where the query was found in a receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoundIn {
    /// Its number.
    Number,
    /// The value of this field.
    Field(String),
    RequestKey,
    Scope,
    /// Only the time was asked for.
    Time,
}

/// One receipt that matched, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    pub state: String,
    /// `None` when the stored time cannot be read.
    pub created_ms: Option<Millis>,
    /// The stored payload, or why it is not text.
    pub payload: Result<String, String>,
    pub found: FoundIn,
    /// Its tombstone, when its visitor data was erased.
    pub erased: Option<Tombstone>,
}

/// Counts for one scope (form), over every receipt read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormCounts {
    pub receipts: u64,
    pub in_flight: u64,
    /// Arrived within [`RECENT_MS`] before now.
    pub recent: u64,
    /// Arrived within the query's time, when it has one.
    pub in_span: u64,
    /// Erased: nothing of their fields is left to search.
    pub erased: u64,
}

/// What a search found.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// The newest matches, newest first (at most [`KEPT`]).
    pub matches: Vec<Match>,
    /// How many receipts matched in all.
    pub total: u64,
    /// Per scope, sorted by scope.
    pub tallies: Vec<(String, FormCounts)>,
    pub read: u64,
}

/// Searches every receipt of `db` for `query`, as of `now_ms`.
pub fn search(db: &dyn Storage, query: &Query, now_ms: Millis) -> anyhow::Result<Scan> {
    Ok(search_in(db, query, now_ms, false)?.0)
}

/// [`search`], with the [`Timeline`] of every receipt read.
pub fn search_with_timeline(
    db: &dyn Storage,
    query: &Query,
    now_ms: Millis,
) -> anyhow::Result<(Scan, Timeline)> {
    search_in(db, query, now_ms, true)
}

fn search_in(
    db: &dyn Storage,
    query: &Query,
    now_ms: Millis,
    timeline: bool,
) -> anyhow::Result<(Scan, Timeline)> {
    let mut session = db.begin_read(Connections::EveryCore)?;
    let mut sinks: Vec<Matcher> = (0..session.connections())
        .map(|_| Matcher::new(query, now_ms, timeline))
        .collect();
    let read = {
        let mut refs: Vec<&mut dyn RowSink> =
            sinks.iter_mut().map(|s| s as &mut dyn RowSink).collect();
        session.receipts(None, &mut refs, &mut |_| {})?
    };
    session.end()?;
    let timeline = Timeline::merge(sinks.iter_mut().filter_map(|s| s.timeline.take()));
    let mut scan = merge(sinks);
    scan.read = read.0;
    Ok((scan, timeline))
}

fn merge(sinks: Vec<Matcher<'_>>) -> Scan {
    let mut total = 0;
    let mut kept: Vec<Match> = Vec::new();
    let mut tallies: HashMap<String, FormCounts> = HashMap::new();
    for sink in sinks {
        total += sink.total;
        kept.extend(sink.kept.into_iter().map(|k| k.0.1));
        for (scope, t) in sink.tallies {
            let into = tallies.entry(scope).or_default();
            into.receipts += t.receipts;
            into.in_flight += t.in_flight;
            into.recent += t.recent;
            into.in_span += t.in_span;
            into.erased += t.erased;
        }
    }
    kept.sort_by_key(|m| Reverse((m.created_ms, m.id)));
    kept.truncate(KEPT);
    let mut tallies: Vec<(String, FormCounts)> = tallies.into_iter().collect();
    tallies.sort_by(|a, b| a.0.cmp(&b.0));
    Scan {
        matches: kept,
        total,
        tallies,
        read: 0,
    }
}

/// A match in the heap of the newest, ordered by time then number.
struct Newest((Millis, ReceiptId), Match);

impl PartialEq for Newest {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for Newest {}
impl PartialOrd for Newest {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Newest {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

/// One connection's share of a search.
struct Matcher<'q> {
    query: &'q Query,
    finder: Option<Finder<'q>>,
    now_ms: Millis,
    /// The oldest kept on top, to be dropped for a newer one.
    kept: BinaryHeap<Reverse<Newest>>,
    total: u64,
    tallies: HashMap<String, FormCounts>,
    folded: String,
    projected: Vec<u8>,
    /// For a name or a phone number: its compact forms.
    loose_finders: Vec<Finder<'q>>,
    /// Whether each scope seen holds the needle.
    scopes: HashMap<String, bool>,
    /// Every receipt read, when asked for.
    timeline: Option<Timeline>,
}

impl<'q> Matcher<'q> {
    fn new(query: &'q Query, now_ms: Millis, timeline: bool) -> Self {
        Self {
            query,
            finder: query.needle.as_deref().map(|n| Finder::new(n.as_bytes())),
            now_ms,
            kept: BinaryHeap::new(),
            total: 0,
            tallies: HashMap::new(),
            folded: String::new(),
            projected: Vec::new(),
            loose_finders: query
                .loose
                .iter()
                .flat_map(|l| l.forms())
                .map(|f| Finder::new(f.as_bytes()))
                .collect(),
            scopes: HashMap::new(),
            timeline: timeline.then(Timeline::default),
        }
    }

    fn tally(&mut self, row: &Row<'_>, created: Option<Millis>) -> &mut FormCounts {
        if !self.tallies.contains_key(row.scope) {
            self.tallies
                .insert(row.scope.to_string(), FormCounts::default());
        }
        let t = self.tallies.get_mut(row.scope).expect("just inserted");
        t.receipts += 1;
        if row.state == "in_flight" {
            t.in_flight += 1;
        }
        if let Ok(text) = row.payload
            && Tombstone::of_row(text, row.digest).is_some()
        {
            t.erased += 1;
        }
        if let Some(at) = created
            && at <= self.now_ms
            && self.now_ms - at <= RECENT_MS
        {
            t.recent += 1;
        }
        t
    }

    /// Where the text is found in the row, if anywhere.
    fn text_in(&mut self, row: &Row<'_>, finder: &Finder<'_>, needle: &str) -> Option<FoundIn> {
        let loose = self.query.loose.as_ref();
        // A name or phone number is looked for in each text's compact form
        // alone: the needle as typed is found in no text whose compact form
        // misses it (see `super::loose`).
        let holds = |text: &str| match loose {
            Some(l) => l.found_in(text),
            None => finder.find(text.as_bytes()).is_some(),
        };
        // A scope is folded once (a database has few).
        let scope_holds = match self.scopes.get(row.scope) {
            Some(&h) => h,
            None => {
                let h = holds(&normalize_text(row.scope));
                self.scopes.insert(row.scope.to_string(), h);
                h
            }
        };
        if scope_holds {
            return Some(FoundIn::Scope);
        }
        if let Some(k) = row.request_key {
            let found = if k.is_ascii() && !k.bytes().any(|b| b.is_ascii_whitespace()) {
                prefilter::lower_ascii(k, loose.is_some(), &mut self.projected);
                let hay = &self.projected;
                match loose {
                    Some(_) => self.loose_finders.iter().any(|f| f.find(hay).is_some()),
                    None => finder.find(hay).is_some(),
                }
            } else {
                holds(&normalize_text(k))
            };
            if found {
                return Some(FoundIn::RequestKey);
            }
        }
        let payload = row.payload.ok()?;
        // Kana and ideographs stand as one byte there: only an ASCII needle
        // is looked for in it (a name or a number in its compact form).
        let projected = needle.is_ascii()
            && match loose {
                Some(_) => prefilter::project_compact(payload, &mut self.projected),
                None => prefilter::project(payload, &mut self.projected),
            };
        if projected {
            // Not in the projection: in no value.
            match loose {
                Some(_) => {
                    let hay = &self.projected;
                    self.loose_finders.iter().find_map(|f| f.find(hay))?;
                }
                None => {
                    finder.find(&self.projected)?;
                }
            }
        } else if !payload.contains('\\') {
            self.folded.clear();
            normalize_into(payload, &mut self.folded);
            if !holds(&self.folded) {
                return None;
            }
        }
        match serde_json::from_str::<Map<String, Value>>(payload) {
            Ok(map) => map.iter().find_map(|(k, v)| {
                normalize_value(v)
                    .filter(|t| holds(t))
                    .map(|_| FoundIn::Field(k.clone()))
            }),
            // Not an object (a damaged row): its text as stored.
            Err(_) => holds(&normalize_text(payload)).then(|| FoundIn::Field(String::new())),
        }
    }

    fn keep(&mut self, row: &Row<'_>, created: Option<Millis>, found: FoundIn) {
        self.total += 1;
        let order = (created.unwrap_or(Millis::MIN), row.id);
        if self.kept.len() >= KEPT && self.kept.peek().is_some_and(|Reverse(o)| o.0 >= order) {
            return;
        }
        let m = Match {
            id: row.id,
            scope: row.scope.to_string(),
            request_key: row.request_key.map(str::to_string),
            state: row.state.to_string(),
            created_ms: created,
            payload: row.payload.map(str::to_string).map_err(str::to_string),
            found,
            erased: row
                .payload
                .ok()
                .and_then(|text| Tombstone::of_row(text, row.digest)),
        };
        self.kept.push(Reverse(Newest(order, m)));
        if self.kept.len() > KEPT {
            self.kept.pop();
        }
    }
}

impl RowSink for Matcher<'_> {
    fn row(&mut self, row: &Row<'_>) {
        let created = parse_time_ref(row.created_at).ok();
        if let Some(timeline) = &mut self.timeline {
            timeline.push(row.id, created, row.scope, row.request_key);
        }
        let query = self.query;
        let in_span = match (query.span, created) {
            (Some(span), Some(at)) => span.contains(at),
            (Some(_), None) => false,
            (None, _) => true,
        };
        let tally = self.tally(row, created);
        if query.span.is_some() && in_span {
            tally.in_span += 1;
        }
        if !in_span {
            return;
        }
        let by_number = query.id == Some(row.id);
        if query.id.is_some() && !query.id_is_text && !by_number {
            return;
        }
        let found = if by_number {
            Some(FoundIn::Number)
        } else {
            match (&query.needle, self.finder.take()) {
                (Some(needle), Some(finder)) => {
                    let found = self.text_in(row, &finder, needle);
                    self.finder = Some(finder);
                    found
                }
                _ => Some(FoundIn::Time),
            }
        };
        if let Some(found) = found {
            self.keep(row, created, found);
        }
    }
}
