//! The fields an engine keeps between readings. A receipt appended later is
//! only ever compared with receipts of its scope at most two windows before
//! it (the epoch before its own, see `groups::span_start`), with the copies
//! of its body in any scope a campaign's window either side of it, and with
//! the anchors of their groups.
//! So once a reading is analysed, the fields of receipts further back than a
//! few windows before the newest of their scope are dropped: at a million
//! receipts they are most of the engine's memory. An appended receipt that
//! reaches back past what is kept asks for a full reading instead
//! ([`Ingesting::reaches_back`]).

use super::{Engine, Ingesting};
use crate::model::Millis;

/// How many windows before the newest receipt of a scope keep their fields
/// by default: a receipt appended up to four windows before the newest of
/// its scope (intake servers whose clocks disagree) still continues the
/// analysis.
pub const DEFAULT_WINDOWS: i64 = 6;

#[derive(Debug, Default)]
pub(super) struct Horizon {
    /// How many windows before the newest receipt of its scope a receipt
    /// keeps its fields (`None`: always).
    windows: Option<i64>,
    /// By scope id: receipts from this time on keep their fields.
    kept_from: Vec<Millis>,
    /// Receipts (indices, ascending) that kept their fields at the last
    /// analysis.
    holding: Vec<u32>,
}

impl Horizon {
    pub(super) fn new(windows: Option<i64>) -> Self {
        Self {
            windows,
            ..Self::default()
        }
    }
}

impl Engine {
    /// How many receipts hold their fields, and how many fields that is.
    pub fn fields_held(&self) -> (usize, usize) {
        let store = &self.facts.store;
        let receipts = store
            .receipts
            .iter()
            .filter(|r| r.holds_fields() && !r.is_empty())
            .count();
        (receipts, store.fields.len())
    }

    /// Lets go of the fields no appended receipt will be compared with (see
    /// the module's comment), those of receipts `added_from` on included.
    /// Called in every analysis once nothing more reads fields.
    pub(super) fn let_go_of_old_fields(&mut self, added_from: usize) {
        let Some(windows) = self.horizon.windows else {
            return;
        };
        let store = &self.facts.store;
        let window = self.facts.settings.window_ms.max(1);
        // A receipt dated ahead of the reading's time (a clock far off) is
        // not the newest: receipts appended now would all reach back.
        let now = self.facts.settings.now_ms;
        let created = |i: u32| store.receipts[i as usize].created_ms.min(now);
        let kept_from: Vec<Millis> = self
            .duplicates
            .runs
            .iter()
            .map(|run| {
                run.last().map_or(Millis::MIN, |&newest| {
                    created(newest)
                        .div_euclid(window)
                        .saturating_sub(windows)
                        .saturating_mul(window)
                })
            })
            .collect();
        // Only what held fields after the last analysis, and what it added,
        // may hold them now.
        let mut holding = std::mem::take(&mut self.horizon.holding);
        holding.extend(added_from as u32..store.receipts.len() as u32);
        let mut keep: Vec<u32> = holding
            .iter()
            .copied()
            .filter(|&i| {
                let r = &store.receipts[i as usize];
                !r.is_empty() && r.created_ms >= kept_from[r.scope as usize]
            })
            .collect();
        // The anchors of their groups, however old: a copy appended later
        // may join such a group, and is compared with its anchor.
        let placements = &self.duplicates.placements;
        let anchors: Vec<u32> = keep
            .iter()
            .filter_map(|&i| placements[i as usize].map(|p| p.anchor))
            .collect();
        keep.extend(anchors);
        keep.sort_unstable();
        keep.dedup();
        debug_assert!(keep.iter().all(|&i| holding.binary_search(&i).is_ok()));
        self.facts.store.keep_fields(&holding, &keep);
        self.facts
            .details
            .texts
            .retain(|&(i, _), _| keep.binary_search(&i).is_ok());
        self.horizon.kept_from = kept_from;
        self.horizon.holding = keep;
    }
}

impl Ingesting {
    /// True when a receipt added in this reading must be compared with
    /// receipts whose fields were dropped: only a full reading can analyse
    /// it then.
    pub fn reaches_back(&self) -> bool {
        let (facts, kept_from) = (&self.engine.facts, &self.engine.horizon.kept_from);
        let reach = facts.settings.window_ms.max(1).saturating_mul(2);
        // A body is compared with its copies in every scope (campaigns).
        let kept_everywhere = kept_from.iter().copied().max();
        let store = &facts.store;
        store.receipts[self.added.receipts..].iter().any(|r| {
            let back = r.created_ms.saturating_sub(reach);
            let own = !r.is_empty()
                && kept_from
                    .get(r.scope as usize)
                    .is_some_and(|&from| back < from);
            let any = r.body != crate::triage::facts::NONE16
                && kept_everywhere.is_some_and(|from| back < from);
            own || any
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::time::format_rfc3339;
    use crate::model::{RawReceipt, Row, Settings, TimeValue};
    use crate::triage::model::{MatchKind, Triage};
    use crate::triage::{analyze, inspect};

    const MINUTE: Millis = 60_000;
    /// The start of a window's epoch (a multiple of ten minutes).
    const T0: Millis = 1_795_947_000_000;

    /// Receipts read so far, in id order.
    struct Rows(Vec<RawReceipt>);

    impl Rows {
        fn add(&mut self, at_ms: Millis, fields: serde_json::Value) -> &RawReceipt {
            self.0.push(RawReceipt {
                id: self.0.len() as i64 + 1,
                scope: "contact".into(),
                request_key: None,
                digest: None,
                payload: Ok(fields.to_string()),
                state: "completed".into(),
                created_at: TimeValue::Text(format_rfc3339(at_ms)),
                updated_at: TimeValue::Null,
            });
            self.0.last().expect("added")
        }

        /// A first reading of every row, not analysed yet.
        fn first(&self, windows: Option<i64>) -> Ingesting {
            let mut reading = Engine::begin(&Self::settings(), windows, Vec::new());
            reading.ingest(&self.rows(0)[..]);
            reading
        }

        /// A refresh of `engine` with the rows from `from` on, not analysed yet.
        fn adding(&self, engine: Engine, from: usize) -> Ingesting {
            let mut reading = engine.begin_adding(Self::settings().now_ms, Vec::new());
            reading.ingest(&self.rows(from)[..]);
            reading
        }

        fn rows(&self, from: usize) -> Vec<Row<'_>> {
            self.0[from..].iter().map(RawReceipt::row).collect()
        }

        /// What the reading wants read again, read, and its analysis.
        fn analyse(&self, reading: Ingesting) -> (Triage, Engine) {
            let mut reading = reading.wanted();
            for i in reading.wanted().to_vec() {
                let id = reading.store().receipts[i as usize].id;
                let raw = &self.0[id as usize - 1];
                reading.supply(&inspect(raw, &Self::settings()).expect("a good row"));
            }
            let engine = reading.analyze(&mut |_| {});
            ((**engine.triage()).clone(), engine)
        }

        fn full(&self) -> Triage {
            analyze(&self.0, &[], &Self::settings()).triage
        }

        fn settings() -> Settings {
            Settings::new(T0 + 600 * MINUTE)
        }
    }

    fn message(who: usize, text: &str) -> serde_json::Value {
        serde_json::json!({
            "email": format!("visitor{who}@example.org"),
            "message": text,
        })
    }

    /// Eleven visitors' questions, ten minutes apart from `T0` on.
    fn every_ten_minutes() -> Rows {
        let mut rows = Rows(Vec::new());
        for k in 0..=10 {
            rows.add(
                T0 + k * 10 * MINUTE,
                message(k as usize, "a question of mine"),
            );
        }
        rows
    }

    #[test]
    fn receipts_more_than_the_horizon_back_let_go_of_their_fields() {
        let mut rows = every_ten_minutes();
        let (triage, engine) = rows.analyse(rows.first(Some(3)));
        assert_eq!(triage, rows.full());
        // Newest at 100 minutes: from 70 minutes on, four receipts of two
        // fields each.
        assert_eq!(engine.fields_held(), (4, 8));

        // Two windows after what is kept: compared with kept receipts only.
        rows.add(T0 + 90 * MINUTE, message(20, "another question"));
        let reading = rows.adding(engine, 11);
        assert!(!reading.reaches_back());
        let (triage, engine) = rows.analyse(reading);
        assert_eq!(triage, rows.full());
        assert_eq!(engine.fields_held(), (5, 10));

        // A millisecond earlier: its sweep would begin before them.
        rows.add(T0 + 90 * MINUTE - 1, message(21, "a third question"));
        assert!(rows.adding(engine, 12).reaches_back());

        // Kept whole, nothing reaches back.
        let (triage, keep_all) = rows.analyse(rows.first(None));
        assert_eq!(triage, rows.full());
        assert_eq!(keep_all.fields_held(), (13, 26));
        rows.add(T0, message(22, "the oldest question"));
        assert!(!rows.adding(keep_all, 13).reaches_back());
    }

    #[test]
    fn a_receipt_dated_ahead_of_the_reading_does_not_push_the_horizon() {
        let mut rows = every_ten_minutes();
        // Years ahead of the reading's time (ten hours after T0).
        rows.add(
            T0 + 3 * 365 * 24 * 60 * MINUTE,
            message(30, "from a clock far off"),
        );
        let (triage, engine) = rows.analyse(rows.first(Some(3)));
        assert_eq!(triage, rows.full());
        // Receipts appended at the reading's time continue the analysis.
        rows.add(T0 + 600 * MINUTE, message(31, "a question sent now"));
        let reading = rows.adding(engine, 12);
        assert!(!reading.reaches_back());
        let (triage, engine) = rows.analyse(reading);
        assert_eq!(triage, rows.full());
        assert_eq!(
            engine.fields_held().0,
            2,
            "the receipt ahead and the one now"
        );
    }

    #[test]
    fn a_live_group_keeps_its_anchors_fields_however_old() {
        let text = "please call me back about the order I placed on monday morning";
        let mut rows = Rows(Vec::new());
        // One visitor sends again every eight minutes for eighty minutes:
        // one group, alive all along, whose anchor is long past the horizon.
        for k in 0..=10 {
            rows.add(T0 + k * 8 * MINUTE, message(1, text));
        }
        let (triage, engine) = rows.analyse(rows.first(Some(3)));
        assert_eq!(triage, rows.full());
        assert_eq!(
            engine.fields_held().0,
            5,
            "50 to 80 minutes, and the anchor"
        );

        // An edited copy is compared with the anchor.
        let edited = text.replace("monday", "tuesday");
        rows.add(T0 + 85 * MINUTE, message(1, &edited));
        let reading = rows.adding(engine, 11);
        assert!(!reading.reaches_back());
        let (triage, _) = rows.analyse(reading);
        assert_eq!(triage, rows.full());
        let group = &triage.duplicates[0];
        assert_eq!(group.members.len(), 12);
        assert_eq!(group.members[11].match_kind, MatchKind::Edited);
    }

    #[test]
    fn a_campaign_appended_to_is_decided_by_the_copies_a_window_either_side() {
        let spam = "cheap watches and bags at our shop follow the link today";
        let offer = "we buy used cars for cash call us at any hour of the day";
        let mut rows = Rows(Vec::new());
        // Three senders of one text within five minutes: a campaign; two
        // of another: not yet.
        for (who, minute, text) in [(1, 0, spam), (2, 2, spam), (3, 5, spam)] {
            rows.add(T0 + minute * MINUTE, message(who, text));
        }
        for (who, minute) in [(5, 1), (6, 3)] {
            rows.add(T0 + minute * MINUTE, message(who, offer));
        }
        let (triage, engine) = rows.analyse(rows.first(Some(3)));
        assert_eq!(triage.suspected_bots, vec![1, 2, 3]);
        // A fourth sender of the first, nine minutes after the third: with
        // it, the third's copy lies in a window of two senders only, and
        // still in the first. A third sender of the other makes it one.
        rows.add(T0 + 14 * MINUTE, message(4, spam));
        rows.add(T0 + 8 * MINUTE, message(7, offer));
        let (triage, _) = rows.analyse(rows.adding(engine, 5));
        assert_eq!(triage, rows.full());
        assert_eq!(triage.suspected_bots, vec![1, 2, 3, 4, 5, 7]);
    }
}
