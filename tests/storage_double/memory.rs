//! A receipts database held in vectors: an engine of its own behind the
//! storage traits, written against their documentation only. If the reading
//! and review work on it unchanged, nothing outside storage depends on SQLite.

use std::collections::HashMap;
use std::ops::ControlFlow;

use receipt_review::model::{
    BatchRow, LogEntry, NewEntry, RawConflict, RawReceipt, ReceiptId, ReceiptStamp, ReceiptState,
    RowSink, RowSource, TimeValue,
};
use receipt_review::storage::{
    ChangeMark, Connections, CountedTable, Erasing, Failure, Location, LogError, ReadCursor,
    ReviewRead, Scrubbed, Session, Source, Storage, StorageError, Tallies, Tally, WriteTx,
};

/// The database: what the intake wrote, and the review log.
#[derive(Clone, Debug)]
pub struct Memory {
    pub location: Location,
    pub source: Source,
    /// Ascending by id.
    pub receipts: Vec<RawReceipt>,
    /// Ascending by id.
    pub conflicts: Vec<RawConflict>,
    /// Replays per receipt, and all replay rows.
    pub replays: HashMap<ReceiptId, u32>,
    pub replay_total: u64,
    /// Exact copies absorbed per receipt, and all absorbed rows.
    pub absorbed: HashMap<ReceiptId, u32>,
    pub absorbed_total: u64,
    /// `None` until the first decision makes the log.
    pub log: Option<Vec<LogEntry>>,
    pub read_only: bool,
    /// Commits so far: the change mark.
    pub commits: i64,
}

impl Memory {
    fn receipt(&self, id: ReceiptId) -> Option<&RawReceipt> {
        let i = self.receipts.binary_search_by_key(&id, |r| r.id).ok()?;
        Some(&self.receipts[i])
    }

    fn entries(&self) -> &[LogEntry] {
        self.log.as_deref().unwrap_or_default()
    }

    /// One table's rows per receipt, and all its rows.
    fn counted(&self, table: CountedTable) -> (&HashMap<ReceiptId, u32>, u64) {
        match table {
            CountedTable::Replays => (&self.replays, self.replay_total),
            CountedTable::Absorbed => (&self.absorbed, self.absorbed_total),
        }
    }
}

/// What a reading of every receipt sees of one: everything but
/// `updated_at`, which no rule reads (as `Session::receipts` says).
fn as_read(r: &RawReceipt) -> RawReceipt {
    RawReceipt {
        updated_at: TimeValue::Null,
        ..r.clone()
    }
}

fn text_of(value: &TimeValue) -> Option<String> {
    match value {
        TimeValue::Null => None,
        TimeValue::Integer(n) => Some(n.to_string()),
        TimeValue::Real(x) => Some(x.to_string()),
        TimeValue::Text(t) | TimeValue::Other(t) => Some(t.clone()),
    }
}

/// Rows held for a rule that looks at all of them at once.
struct Held(Vec<RawReceipt>);

impl RowSource for Held {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn row<'a>(&'a self, i: usize, _buf: &'a mut String) -> receipt_review::model::Row<'a> {
        self.0[i].row()
    }
}

/// A read of the database as it is: nothing can write while it is borrowed.
pub struct MemorySession<'a> {
    db: &'a Memory,
}

/// A write: a draft of the whole database, put in place by `commit`.
pub struct MemoryWrite<'a> {
    db: &'a mut Memory,
    draft: Memory,
}

/// The review log and the receipts' states, as a read or a write sees them.
struct Reads<'a>(&'a Memory);

impl ReviewRead for Reads<'_> {
    fn log_exists(&mut self) -> Result<bool, LogError> {
        Ok(self.0.log.is_some())
    }

    fn each_entry(
        &mut self,
        each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
    ) -> Result<usize, LogError> {
        let mut n = 0;
        for entry in self.0.entries() {
            n += 1;
            if each(entry.clone()).is_break() {
                break;
            }
        }
        Ok(n)
    }

    fn history(&mut self, item: &str) -> Result<Vec<LogEntry>, LogError> {
        Ok(self
            .0
            .entries()
            .iter()
            .filter(|e| e.item == item)
            .cloned()
            .collect())
    }

    fn latest_entry(&mut self, item: &str) -> Result<Option<LogEntry>, LogError> {
        Ok(self
            .0
            .entries()
            .iter()
            .rev()
            .find(|e| e.item == item)
            .cloned())
    }

    fn entry(&mut self, id: i64) -> Result<Option<LogEntry>, LogError> {
        Ok(self.0.entries().iter().find(|e| e.id == id).cloned())
    }

    fn latest_log_id(&mut self) -> Result<Option<i64>, LogError> {
        Ok(self.0.entries().last().map(|e| e.id))
    }

    fn latest_standing_decision_by(
        &mut self,
        operator: &str,
    ) -> Result<Option<LogEntry>, LogError> {
        let log = self.0.entries();
        let standing =
            |e: &&LogEntry| log.iter().rev().find(|x| x.item == e.item).map(|x| x.id) == Some(e.id);
        Ok(log
            .iter()
            .rev()
            .filter(|e| e.operator == operator && !e.is_reopening())
            .find(standing)
            .cloned())
    }

    fn latest_unreopened_decision_by(
        &mut self,
        operator: &str,
        after: Option<i64>,
    ) -> Result<Option<LogEntry>, LogError> {
        let log = self.0.entries();
        let reopened = |e: &&LogEntry| log.iter().any(|r| r.reopens == Some(e.id));
        Ok(log
            .iter()
            .rev()
            .filter(|e| e.operator == operator && !e.is_reopening())
            .filter(|e| after.is_none_or(|after| e.id > after))
            .find(|e| !reopened(e))
            .cloned())
    }

    fn receipt_state(&mut self, receipt_id: ReceiptId) -> Result<Option<ReceiptStamp>, LogError> {
        if !self.0.source.columns.state {
            return Ok(None);
        }
        Ok(self.0.receipt(receipt_id).map(|r| ReceiptStamp {
            state: Some(r.state.clone()),
            updated_at: text_of(&r.updated_at),
        }))
    }
}

/// A session reads the database, a write its draft.
macro_rules! review_read_through {
    ($type:ty, $field:ident) => {
        impl ReviewRead for $type {
            fn log_exists(&mut self) -> Result<bool, LogError> {
                Reads(&self.$field).log_exists()
            }

            fn each_entry(
                &mut self,
                each: &mut dyn FnMut(LogEntry) -> ControlFlow<()>,
            ) -> Result<usize, LogError> {
                Reads(&self.$field).each_entry(each)
            }

            fn history(&mut self, item: &str) -> Result<Vec<LogEntry>, LogError> {
                Reads(&self.$field).history(item)
            }

            fn latest_entry(&mut self, item: &str) -> Result<Option<LogEntry>, LogError> {
                Reads(&self.$field).latest_entry(item)
            }

            fn entry(&mut self, id: i64) -> Result<Option<LogEntry>, LogError> {
                Reads(&self.$field).entry(id)
            }

            fn latest_log_id(&mut self) -> Result<Option<i64>, LogError> {
                Reads(&self.$field).latest_log_id()
            }

            fn latest_standing_decision_by(
                &mut self,
                operator: &str,
            ) -> Result<Option<LogEntry>, LogError> {
                Reads(&self.$field).latest_standing_decision_by(operator)
            }

            fn latest_unreopened_decision_by(
                &mut self,
                operator: &str,
                after: Option<i64>,
            ) -> Result<Option<LogEntry>, LogError> {
                Reads(&self.$field).latest_unreopened_decision_by(operator, after)
            }

            fn receipt_state(
                &mut self,
                receipt_id: ReceiptId,
            ) -> Result<Option<ReceiptStamp>, LogError> {
                Reads(&self.$field).receipt_state(receipt_id)
            }
        }
    };
}

review_read_through!(MemorySession<'_>, db);
review_read_through!(MemoryWrite<'_>, draft);

impl Session for MemorySession<'_> {
    fn connections(&self) -> usize {
        1
    }

    fn rows_each(&self) -> Option<u64> {
        None
    }

    fn end(self: Box<Self>) -> Result<(), StorageError> {
        Ok(())
    }

    fn receipts(
        &mut self,
        after: Option<&ReadCursor>,
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<(u64, ReadCursor), StorageError> {
        let after = after.and_then(ReadCursor::last);
        let (mut n, mut last) = (0, after);
        for r in &self.db.receipts {
            if after.is_none_or(|after| r.id > after) {
                sinks[0].row(&as_read(r).row());
                n += 1;
                progress(n);
                last = last.max(Some(r.id));
            }
        }
        Ok((n, ReadCursor::up_to(last)))
    }

    fn committed_below(&mut self, _cursor: &ReadCursor) -> Result<bool, StorageError> {
        // Receipts are appended one at a time, in the order of their ids.
        Ok(false)
    }

    fn receipts_by_id(
        &mut self,
        ids: &[ReceiptId],
        sinks: &mut [&mut dyn RowSink],
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, StorageError> {
        let mut n = 0;
        for r in ids.iter().filter_map(|&id| self.db.receipt(id)) {
            sinks[0].row(&r.row());
            n += 1;
            progress(n);
        }
        Ok(n)
    }

    fn receipts_held(&mut self, ids: &[ReceiptId]) -> Result<Box<dyn RowSource>, StorageError> {
        let held = ids.iter().filter_map(|&id| self.db.receipt(id)).cloned();
        Ok(Box::new(Held(held.collect())))
    }

    fn conflict_rows(&mut self, after: Option<i64>) -> Result<Vec<RawConflict>, StorageError> {
        Ok(self
            .db
            .conflicts
            .iter()
            .filter(|c| after.is_none_or(|after| c.id > after))
            .map(|c| RawConflict {
                payload: String::new(),
                ..c.clone()
            })
            .collect())
    }

    fn tally(&mut self, tally: &mut Tally) -> Result<(), StorageError> {
        let table = tally.table();
        *tally = Tally::new(table);
        if table.related(&self.db.source).is_usable() {
            let (per_receipt, total) = self.db.counted(table);
            tally.per_receipt = per_receipt.clone();
            tally.total = total;
        }
        Ok(())
    }

    fn holds(
        &mut self,
        max: ReceiptId,
        count: usize,
        sum: i128,
        conflicts: &[RawConflict],
        tallies: &Tallies,
    ) -> Result<bool, StorageError> {
        let below: Vec<ReceiptId> = self
            .db
            .receipts
            .iter()
            .map(|r| r.id)
            .filter(|&id| id <= max)
            .collect();
        let ids_of = |c: &[RawConflict]| c.iter().map(|c| c.id).collect::<Vec<_>>();
        let last = conflicts.last().map_or(i64::MIN, |c| c.id);
        let conflicts_now: Vec<RawConflict> = self
            .db
            .conflicts
            .iter()
            .filter(|c| c.id <= last)
            .cloned()
            .collect();
        Ok(below.len() == count
            && below.iter().map(|&id| i128::from(id)).sum::<i128>() == sum
            && ids_of(&conflicts_now) == ids_of(conflicts)
            && [&tallies.replays, &tallies.absorbed].iter().all(|t| {
                let (per_receipt, total) = self.db.counted(t.table());
                t.per_receipt == *per_receipt && t.total == total
            }))
    }
}

impl WriteTx for MemoryWrite<'_> {
    fn ensure_log(&mut self) -> Result<(), LogError> {
        self.draft.log.get_or_insert_with(Vec::new);
        Ok(())
    }

    fn append(&mut self, entry: &NewEntry<'_>) -> Result<LogEntry, LogError> {
        let log = self.draft.log.as_mut().expect("ensure_log comes first");
        let state = entry.state;
        let id = log.last().map_or(1, |e| e.id + 1);
        let stored = LogEntry {
            id,
            item: entry.item.to_string(),
            kind: entry.kind,
            decision: entry.decision,
            operator: entry.operator.to_string(),
            decided_at: entry.decided_at.to_string(),
            receipt_ids: entry.receipt_ids.to_vec(),
            note: entry.note.map(str::to_string),
            reopens: entry.reopens,
            state_before: state.map(|s| s.before.clone()),
            state_after: state.map(|s| s.after.clone()),
            updated_at_before: state.and_then(|s| s.updated_before.clone()),
            updated_at_after: state.and_then(|s| s.updated_after.clone()),
            kept: entry.kept,
            batch: entry.batch.map(|b| match b {
                BatchRow::First => id,
                BatchRow::Of(first) => first,
            }),
        };
        log.push(stored.clone());
        Ok(stored)
    }

    fn set_state_if_in_flight(
        &mut self,
        receipt_id: ReceiptId,
        to: ReceiptState,
        now: &str,
    ) -> Result<bool, LogError> {
        let has_updated = self.draft.source.columns.updated_at;
        let Ok(i) = self
            .draft
            .receipts
            .binary_search_by_key(&receipt_id, |r| r.id)
        else {
            return Ok(false);
        };
        let r = &mut self.draft.receipts[i];
        if r.state != ReceiptState::InFlight.as_str() {
            return Ok(false);
        }
        r.state = to.as_str().to_string();
        if has_updated {
            r.updated_at = TimeValue::Text(now.to_string());
        }
        Ok(true)
    }

    fn revert_state_if(
        &mut self,
        receipt_id: ReceiptId,
        state: &str,
        updated_at: Option<&str>,
        now: &str,
    ) -> Result<bool, LogError> {
        let has_updated = self.draft.source.columns.updated_at;
        let Ok(i) = self
            .draft
            .receipts
            .binary_search_by_key(&receipt_id, |r| r.id)
        else {
            return Ok(false);
        };
        let r = &mut self.draft.receipts[i];
        if r.state != state || (has_updated && text_of(&r.updated_at).as_deref() != updated_at) {
            return Ok(false);
        }
        r.state = ReceiptState::InFlight.as_str().to_string();
        if has_updated {
            r.updated_at = TimeValue::Text(now.to_string());
        }
        Ok(true)
    }

    fn erase_receipt(
        &mut self,
        receipt_id: ReceiptId,
        tombstone: &str,
    ) -> Result<Erasing, LogError> {
        let Ok(i) = self
            .draft
            .receipts
            .binary_search_by_key(&receipt_id, |r| r.id)
        else {
            return Ok(Erasing::NoSuchReceipt);
        };
        let receipt = &mut self.draft.receipts[i];
        if receipt
            .payload
            .as_deref()
            .is_ok_and(|p| p.starts_with("{\"_erased\":{"))
        {
            return Ok(Erasing::AlreadyErased);
        }
        receipt.payload = Ok(tombstone.to_string());
        for c in self
            .draft
            .conflicts
            .iter_mut()
            .filter(|c| c.receipt_id == receipt_id)
        {
            c.payload = tombstone.to_string();
        }
        Ok(Erasing::Erased)
    }

    fn commit(self: Box<Self>) -> Result<(), LogError> {
        let MemoryWrite { db, mut draft } = *self;
        draft.commits += 1;
        *db = draft;
        Ok(())
    }
}

impl Storage for Memory {
    fn begin_read(&self, _: Connections) -> Result<Box<dyn Session + '_>, StorageError> {
        Ok(Box::new(MemorySession { db: self }))
    }

    fn begin_write(&mut self) -> Result<Box<dyn WriteTx + '_>, LogError> {
        if self.read_only {
            return Err(LogError::Engine {
                failure: Failure::ReadOnly,
                detail: "held read-only".into(),
            });
        }
        let draft = self.clone();
        Ok(Box::new(MemoryWrite { db: self, draft }))
    }

    fn source(&self) -> &Source {
        &self.source
    }

    fn location(&self) -> &Location {
        &self.location
    }

    fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn read_only_reason(&self) -> Option<&str> {
        None
    }

    fn change_mark(&self) -> Result<ChangeMark, StorageError> {
        Ok(ChangeMark::new(self.commits))
    }

    fn receipt_payload(&self, id: ReceiptId) -> Result<Option<String>, StorageError> {
        Ok(self
            .receipt(id)
            .map(|r| r.payload.clone().unwrap_or_default()))
    }

    fn scrub(&mut self) -> Result<Scrubbed, StorageError> {
        // Nothing outlives a value replaced in memory.
        Ok(Scrubbed::Done)
    }

    fn conflict_payload(&self, id: i64) -> Result<Option<String>, StorageError> {
        Ok(self
            .conflicts
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.payload.clone()))
    }

    fn schema_problems(&self) -> Vec<String> {
        Vec::new()
    }
}
