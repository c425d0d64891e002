//! Which duplicate groups a reading brought news of: groups that appeared,
//! and groups that gained copies, since the reading before. The list marks
//! them until the operator has moved past them.

use std::collections::{HashMap, HashSet};

use crate::model::ReceiptId;
use crate::reading::Snapshot;
use crate::reading::shown::unshared_middles;

/// What a reading brought to one group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupChange {
    /// The group was not there before (its copies are new, or an earlier
    /// copy was not yet in a group).
    Group,
    /// The group gained this many copies.
    Gained(u32),
}

impl GroupChange {
    /// Two readings' news of one group, the later second.
    pub fn then(self, later: GroupChange) -> GroupChange {
        match (self, later) {
            (GroupChange::Gained(a), GroupChange::Gained(b)) => GroupChange::Gained(a + b),
            (GroupChange::Group, _) => GroupChange::Group,
            (_, GroupChange::Group) => later,
        }
    }
}

/// The groups of `after` that are new or larger than in `before`, by their
/// first receipt id (the list's row key). Groups the two readings share
/// (the same pointer) are not looked into: a refresh changes few.
pub fn between(before: &Snapshot, after: &Snapshot) -> Vec<(ReceiptId, GroupChange)> {
    let (gone, new) = unshared_middles(&before.triage.duplicates, &after.triage.duplicates);
    if new.is_empty() {
        return Vec::new();
    }
    // The copies each receipt's group had before.
    let mut had: HashMap<ReceiptId, usize> = HashMap::new();
    for g in gone {
        for m in &g.members {
            had.insert(m.id, g.members.len());
        }
    }
    let mut out = Vec::new();
    for g in new {
        let before = g.members.iter().filter_map(|m| had.get(&m.id)).max();
        let fresh = match before {
            None => Some(GroupChange::Group),
            Some(&n) if g.members.len() > n => {
                Some(GroupChange::Gained((g.members.len() - n) as u32))
            }
            Some(_) => None,
        };
        if let Some(fresh) = fresh {
            out.push((g.members[0].id, fresh));
        }
    }
    out
}

/// The groups of `before` that `after` no longer has, by their first
/// receipt id: renamed by an earlier copy, or no longer a group. As for
/// [`between`], only the groups the readings do not share are looked into.
pub fn gone(before: &Snapshot, after: &Snapshot) -> Vec<ReceiptId> {
    let (gone, new) = unshared_middles(&before.triage.duplicates, &after.triage.duplicates);
    let named: HashSet<ReceiptId> = new.iter().map(|g| g.members[0].id).collect();
    gone.iter()
        .map(|g| g.members[0].id)
        .filter(|id| !named.contains(id))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::triage::model::DuplicateGroup;

    fn group(ids: &[ReceiptId]) -> Arc<DuplicateGroup> {
        DuplicateGroup::exact_for_tests(ids)
    }

    #[test]
    fn a_group_that_gained_a_copy_and_a_new_group_are_news() {
        let kept = group(&[1, 2]);
        let mut before = Snapshot::default();
        Arc::make_mut(&mut before.triage).duplicates =
            vec![kept.clone(), group(&[5, 6]), group(&[9, 10])];
        let mut after = Snapshot::default();
        Arc::make_mut(&mut after.triage).duplicates = vec![
            kept,
            // An earlier copy arrived: the group is named by it now.
            group(&[4, 5, 6]),
            group(&[9, 10]),
            group(&[20, 21]),
        ];
        assert_eq!(
            between(&before, &after),
            vec![(4, GroupChange::Gained(1)), (20, GroupChange::Group)]
        );
        assert!(between(&after, &after).is_empty());
        assert_eq!(
            GroupChange::Gained(1).then(GroupChange::Gained(2)),
            GroupChange::Gained(3)
        );
        assert_eq!(
            GroupChange::Group.then(GroupChange::Gained(2)),
            GroupChange::Group
        );
    }

    #[test]
    fn a_group_renamed_or_broken_up_is_gone_and_one_that_grew_is_not() {
        let kept = group(&[1, 2]);
        let mut before = Snapshot::default();
        Arc::make_mut(&mut before.triage).duplicates = vec![
            kept.clone(),
            group(&[5, 6]),
            group(&[9, 10]),
            group(&[12, 13]),
        ];
        let mut after = Snapshot::default();
        Arc::make_mut(&mut after.triage).duplicates = vec![
            kept,
            // Renamed by an earlier copy; grown under the same name; 12 gone.
            group(&[4, 5, 6]),
            group(&[9, 10, 11]),
        ];
        assert_eq!(gone(&before, &after), vec![5, 12]);
        assert!(gone(&after, &after).is_empty());
    }
}
