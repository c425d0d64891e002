//! The writer's side: runs the planner's steps through the intake protocol and records what
//! they planted.

use anyhow::bail;

use super::scenario::{Action, PlantedCopy, Tag};
use crate::intake::store::{BulkWrite, Claim, StoreError, SubmitError};
use crate::model::time::format_rfc3339;
use crate::model::{Millis, ReceiptId};
use crate::triage::model::{GapClass, MatchKind};

use super::plan::*;
use super::summary::*;

/// The writer's side: runs events through the intake and records what they planted.
#[derive(Default)]
pub(super) struct Recorder {
    pub(super) groups: Vec<GroupBuild>,
    pub(super) follow_ups: Vec<[Option<ReceiptId>; 2]>,
    pub(super) conflicts: Vec<PlantedConflict>,
    pub(super) bots: Vec<(ReceiptId, bool)>,
    pub(super) bot_campaigns: usize,
    pub(super) retries: Vec<Option<ReceiptId>>,
    pub(super) summary: DemoSummary,
}

impl Recorder {
    pub(super) fn take(&mut self, batch: &mut BulkWrite<'_>, msg: PlanStep) -> anyhow::Result<()> {
        match msg {
            PlanStep::NewGroup { scope, pathway } => self.groups.push(GroupBuild {
                scope,
                pathway,
                members: Vec::new(),
            }),
            PlanStep::NewFollowUp => self.follow_ups.push([None, None]),
            PlanStep::NewConflict(c) => self.conflicts.push(c),
            PlanStep::NewRetry => self.retries.push(None),
            PlanStep::NewBotCampaign => self.bot_campaigns += 1,
            PlanStep::Event(ready) => self.apply(batch, ready)?,
        }
        Ok(())
    }

    /// Runs one event through the intake and records what it planted.
    pub(super) fn apply(&mut self, batch: &mut BulkWrite<'_>, ev: Ready) -> anyhow::Result<()> {
        let submission = match ev.body {
            ReadyBody::Raw {
                payload,
                digest,
                created_at,
            } => {
                // An engine that cannot hold the row (a damaged time where
                // the column takes only times) plants nothing.
                let Some(id) = batch
                    .tx()
                    .insert_raw(ev.scope, &digest, &payload, &created_at)?
                else {
                    return Ok(());
                };
                self.count_row(ev.ja);
                if let Tag::Damaged(reason) = ev.tag {
                    self.summary.damaged.push(PlantedDamage {
                        receipt_id: id,
                        reason,
                    });
                }
                return Ok(());
            }
            ReadyBody::Submission(Ok(submission)) => submission,
            ReadyBody::Submission(Err(e)) => bail!("demo generator: an invalid submission: {e}"),
        };
        let unexpected = |what: &str, got: &dyn std::fmt::Debug| {
            anyhow::anyhow!(
                "demo generator: expected {what} at {}, got {got:?}",
                format_rfc3339(ev.at)
            )
        };
        let respond = |id: ReceiptId| -> Result<String, ()> {
            Ok(format!(
                "{{\"receipt_no\":\"R{id:07}\",\"status\":\"received\"}}"
            ))
        };
        let id = match ev.action {
            Action::Complete { latency } => {
                let s = batch
                    .submit_prepared(&submission, ev.at, ev.at + latency, respond)
                    .map_err(|e| unexpected("a new receipt", &e))?;
                if !matches!(s.claim, Claim::New { .. }) {
                    return Err(unexpected("a new receipt", &s.claim));
                }
                s.id
            }
            Action::LeaveInFlight => match batch.claim_prepared(&submission, ev.at)? {
                Claim::New { id } => id,
                other => return Err(unexpected("a new receipt", &other)),
            },
            Action::Fail { latency } => {
                match batch.submit_prepared(&submission, ev.at, ev.at + latency, |_| {
                    Err::<String, _>("mail relay timed out")
                }) {
                    Err(SubmitError::Action { id, .. }) => id,
                    other => return Err(unexpected("a failed action", &other)),
                }
            }
            Action::ExpectReplay => {
                match batch.claim_prepared(&submission, ev.at)? {
                    Claim::Replay { .. } => self.summary.replays += 1,
                    other => return Err(unexpected("a replay", &other)),
                }
                return Ok(());
            }
            Action::ExpectConflict => {
                match batch.claim_prepared(&submission, ev.at) {
                    Err(StoreError::Conflict { receipt_id, .. }) => {
                        if let Tag::ConflictAttempt { conflict } = ev.tag {
                            let c = &mut self.conflicts[conflict];
                            if c.receipt_id != receipt_id {
                                return Err(unexpected("the planted original", &receipt_id));
                            }
                            c.attempts += 1;
                        }
                    }
                    other => return Err(unexpected("a conflict", &other)),
                }
                return Ok(());
            }
            Action::ExpectReclaim { latency } => {
                let s = batch
                    .submit_prepared(&submission, ev.at, ev.at + latency, respond)
                    .map_err(|e| unexpected("a reclaim", &e))?;
                if !matches!(s.claim, Claim::Reclaimed { .. }) {
                    return Err(unexpected("a reclaim", &s.claim));
                }
                if let Tag::Reclaim { retry } = ev.tag
                    && self.retries[retry] == Some(s.id)
                {
                    self.summary.reclaimed.push(s.id);
                }
                return Ok(());
            }
        };
        self.count_row(ev.ja);
        match ev.tag {
            Tag::Group { group, copy } => self.groups[group].members.push((id, ev.at, copy)),
            Tag::FollowUp { pair } => {
                let slot = &mut self.follow_ups[pair];
                if slot[0].is_none() {
                    slot[0] = Some(id);
                } else {
                    slot[1] = Some(id);
                }
            }
            Tag::Conflict { conflict } => self.conflicts[conflict].receipt_id = id,
            Tag::Stuck => self.summary.stuck.push(id),
            Tag::Fresh => self.summary.fresh_in_flight.push(id),
            Tag::Bot { honeypot, .. } => self.bots.push((id, honeypot)),
            Tag::FailedFirst { retry } => self.retries[retry] = Some(id),
            Tag::Single
            | Tag::Replayed { .. }
            | Tag::ConflictAttempt { .. }
            | Tag::Reclaim { .. }
            | Tag::Damaged(_) => {}
        }
        Ok(())
    }

    pub(super) fn count_row(&mut self, ja: bool) {
        self.summary.receipts += 1;
        if ja {
            self.summary.japanese_receipts += 1;
        }
    }

    pub(super) fn finish(mut self) -> DemoSummary {
        let mut groups: Vec<PlantedGroup> = self
            .groups
            .into_iter()
            .filter(|g| g.members.len() >= 2)
            .map(|mut g| {
                g.members.sort_by_key(|m| (m.1, m.0));
                let first = g.members[0].2;
                let members: Vec<PlantedMember> = g
                    .members
                    .iter()
                    .map(|&(id, at_ms, content)| PlantedMember {
                        id,
                        at_ms,
                        match_kind: if content == first {
                            MatchKind::Exact
                        } else if content == PlantedCopy::Half || first == PlantedCopy::Half {
                            MatchKind::Partial
                        } else {
                            MatchKind::Edited
                        },
                    })
                    .collect();
                let gaps_ms: Vec<Millis> = members
                    .windows(2)
                    .map(|w| w[1].at_ms - w[0].at_ms)
                    .collect();
                let class = GapClass::of_gap(gaps_ms.iter().copied().max().unwrap_or(0));
                PlantedGroup {
                    scope: g.scope.to_string(),
                    pathway: g.pathway,
                    class,
                    members,
                    gaps_ms,
                }
            })
            .collect();
        groups.sort_by_key(|g| g.members[0].id);
        let s = &mut self.summary;
        s.groups = groups;
        s.follow_ups = self
            .follow_ups
            .iter()
            .filter_map(|p| Some((p[0]?, p[1]?)))
            .collect();
        s.follow_ups.sort();
        s.conflicts = self.conflicts;
        s.conflicts.sort_by_key(|c| c.receipt_id);
        self.bots.sort();
        s.bots = self.bots.iter().map(|b| b.0).collect();
        s.honeypot_filled = self.bots.iter().filter(|b| b.1).map(|b| b.0).collect();
        s.bot_campaigns = self.bot_campaigns;
        s.stuck.sort();
        s.fresh_in_flight.sort();
        s.reclaimed.sort();
        s.damaged.sort_by_key(|d| d.receipt_id);
        self.summary
    }
}
