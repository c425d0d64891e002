//! The totals the header and the tab bar show, and the largest item number
//! of each tab (the list's item column is as wide as it): aggregates over
//! every item, worked out once per reading rather than per frame.

use std::collections::HashMap;

use crate::model::Decision;
use crate::reading::Snapshot;
use crate::reading::shown::unshared_middles;
use crate::triage::model::GapClass;

use super::standing::ScreenStatus;
use super::tab::Tab;

/// Totals for the header and the tab bar, over the whole reading (filters aside).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub receipts: usize,
    pub groups: usize,
    pub groups_pending: usize,
    pub groups_new_copy: usize,
    /// Per class: simultaneous, seconds, minutes.
    pub by_class: [usize; 3],
    pub exact: usize,
    pub conflicts: usize,
    pub conflicts_pending: usize,
    pub stuck: usize,
    pub stuck_pending: usize,
    /// Stuck receipts marked still pending (counted as pending too).
    pub looked_at: usize,
    /// Stuck receipts marked completed or failed: no longer in flight, so
    /// gone from the Stuck tab, and resolved.
    pub stuck_done: usize,
    pub damaged: usize,
    pub log: usize,
    pub bots: usize,
    pub bot_groups: usize,
    pub bot_groups_pending: usize,
    /// Per tab: the largest item number (a group's first receipt, a
    /// receipt, a log entry), 0 when the tab has none.
    pub largest_key: [i64; Tab::COUNT],
    /// The bot groups' first scopes and scope counts, each once: their
    /// labels set the width of the Bots tab's scopes column.
    pub bot_scopes: Vec<(String, usize)>,
}

impl Counts {
    pub fn of(snap: &Snapshot) -> Self {
        Self::after(snap, None)
    }

    /// [`Counts::of`], given the counts of an earlier reading: only the
    /// groups that are not the earlier reading's are looked into.
    pub fn after(snap: &Snapshot, previous: Option<(&Snapshot, &Counts)>) -> Self {
        let t = &snap.triage;
        let class_index = |c: GapClass| GapClass::ALL.iter().position(|x| *x == c).unwrap_or(0);
        let mut counts = Counts {
            receipts: snap.receipt_count + t.damaged.len(),
            groups: t.duplicates.len(),
            conflicts: t.conflicts.len(),
            stuck: t.stuck.len(),
            damaged: t.damaged.len(),
            log: snap.log.len(),
            bots: t.suspected_bots.len(),
            bot_groups: t.bot_groups.len(),
            ..Counts::default()
        };
        // Totals are sums over groups: those gone are taken off the earlier
        // totals and those new added (a reading has many groups, few new).
        let (gone, new) = match previous {
            Some((before, c)) => {
                (counts.by_class, counts.exact) = (c.by_class, c.exact);
                unshared_middles(&before.triage.duplicates, &t.duplicates)
            }
            None => (&[][..], &t.duplicates[..]),
        };
        for g in gone {
            counts.by_class[class_index(g.class)] -= 1;
            counts.exact -= usize::from(g.is_exact());
        }
        for g in new {
            counts.by_class[class_index(g.class)] += 1;
            counts.exact += usize::from(g.is_exact());
        }
        // A reading has many items and few reviews: the reviews are counted.
        // `reviews` holds only items of this reading, and no two groups share
        // an anchor (nor two conflicts or stuck receipts a receipt), so each
        // names one item.
        counts.groups_pending = t.duplicates.len();
        counts.conflicts_pending = t.conflicts.len();
        counts.stuck_pending = t.stuck.len();
        counts.bot_groups_pending = t.bot_groups.len();
        for (name, r) in &snap.reviews {
            let standing = ScreenStatus::of(r);
            let resolved = usize::from(standing.is_resolved());
            if name.starts_with("dup:") {
                counts.groups_new_copy += usize::from(r.new_copy_since_decision);
                counts.groups_pending -= resolved;
            } else if name.starts_with("conflict:") {
                counts.conflicts_pending -= resolved;
            } else if name.starts_with("stuck:") {
                counts.stuck_pending -= resolved;
                counts.looked_at += usize::from(standing == ScreenStatus::LookedAt);
            } else if name.starts_with("bot:") {
                counts.bot_groups_pending -= resolved;
            }
        }
        counts.stuck_done = stuck_done(snap);
        counts.largest_key = largest_keys(snap);
        counts.bot_scopes = bot_scopes(snap);
        counts
    }

    /// Items no decision resolves, over every tab with decisions (the sum
    /// of the tab bar's pending counts).
    pub fn pending(&self) -> usize {
        self.groups_pending + self.conflicts_pending + self.stuck_pending + self.bot_groups_pending
    }

    /// Items whose decision stands, those gone from the Stuck tab included.
    pub fn resolved(&self) -> usize {
        self.items() - self.pending() + self.stuck_done
    }

    pub fn items(&self) -> usize {
        self.groups + self.conflicts + self.stuck + self.bot_groups
    }
}

fn largest_keys(snap: &Snapshot) -> [i64; Tab::COUNT] {
    let t = &snap.triage;
    let mut largest = [0; Tab::COUNT];
    let mut put = |tab: Tab, keys: &mut dyn Iterator<Item = i64>| {
        largest[tab.index()] = keys.max().unwrap_or(0);
    };
    put(
        Tab::Duplicates,
        &mut t.duplicates.iter().map(|g| g.members[0].id),
    );
    put(
        Tab::Conflicts,
        &mut t.conflicts.iter().map(|c| c.receipt_id),
    );
    put(Tab::Stuck, &mut t.stuck.iter().map(|s| s.receipt_id));
    put(
        Tab::Bots,
        &mut t.bot_groups.iter().map(|g| g.receipts[0].id),
    );
    put(Tab::Damaged, &mut t.damaged.iter().map(|d| d.receipt_id));
    put(Tab::Log, &mut snap.log.iter().map(|l| l.id));
    largest
}

fn bot_scopes(snap: &Snapshot) -> Vec<(String, usize)> {
    let mut seen: Vec<(&str, usize)> = snap
        .triage
        .bot_groups
        .iter()
        .filter_map(|g| Some((g.scopes.first()?.as_str(), g.scopes.len())))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.into_iter().map(|(s, n)| (s.to_string(), n)).collect()
}

/// Stuck receipts whose latest log entry marks them completed or failed and
/// that are no longer stuck (the decision took them out of flight).
fn stuck_done(snap: &Snapshot) -> usize {
    let mut latest: HashMap<&str, &str> = HashMap::new();
    for line in snap.log.iter().filter(|l| l.item.starts_with("stuck:")) {
        latest.insert(&line.item, &line.decision);
    }
    if latest.is_empty() {
        return 0;
    }
    let done = [Decision::Completed.as_str(), Decision::Failed.as_str()];
    let still: std::collections::HashSet<String> =
        snap.triage.stuck.iter().map(|s| s.item()).collect();
    latest
        .into_iter()
        .filter(|(item, decision)| done.contains(decision) && !still.contains(*item))
        .count()
}
