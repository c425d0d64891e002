//! Readings of some receipts alone, each analysed as if they were the whole
//! database: what `find` reads around its hits (see
//! [`crate::find::around`]), widening until its answers settle.

use std::sync::Arc;

use anyhow::Context;

use super::snapshot::{Snapshot, assemble_with_log};
use crate::model::{LogEntry, RawConflict, RawReceipt, ReceiptId, Settings};
use crate::storage::{Connections, CountedTable, Session, Storage, Tally};

/// One state of the database, and what every subset of it is read with:
/// the key conflict rows, the replays and the review log, read once.
pub struct Subsets<'db> {
    db: &'db dyn Storage,
    session: Box<dyn Session + 'db>,
    settings: Settings,
    conflict_rows: Vec<RawConflict>,
    replays: Tally,
    log: Vec<LogEntry>,
}

impl<'db> Subsets<'db> {
    pub fn begin(db: &'db dyn Storage, settings: Settings) -> anyhow::Result<Self> {
        let mut session = db.begin_read(Connections::One)?;
        let conflict_rows = session.conflict_rows(None)?;
        let mut replays = Tally::new(CountedTable::Replays);
        session.tally(&mut replays)?;
        let log = session
            .read_log()
            .context(crate::t!(crate::i18n::current(), "error.log.reading"))?;
        Ok(Self {
            db,
            session,
            settings,
            conflict_rows,
            replays,
            log,
        })
    }

    /// Reads the receipts with these ids (ascending) and analyses them
    /// alone, with the key conflict rows refused against them.
    pub fn read(&mut self, ids: &[ReceiptId]) -> anyhow::Result<Snapshot> {
        let mut raws: Vec<RawReceipt> = Vec::with_capacity(ids.len());
        self.session
            .receipts_by_id(ids, &mut [&mut raws], &mut |_| {})?;
        let conflict_rows: Vec<RawConflict> = self
            .conflict_rows
            .iter()
            .filter(|c| ids.binary_search(&c.receipt_id).is_ok())
            .cloned()
            .collect();
        let analysis = crate::triage::analyze(&raws, &conflict_rows, &self.settings);
        let count = analysis.receipts.len();
        let triage = Arc::new(analysis.triage);
        let mut snap = assemble_with_log(self.db, &self.log, self.settings.clone(), count, triage);
        snap.replays = self.replays.per_receipt.clone();
        snap.replay_total = self.replays.total;
        Ok(snap)
    }

    /// Ends the reading.
    pub fn end(self) -> anyhow::Result<()> {
        Ok(self.session.end()?)
    }
}
