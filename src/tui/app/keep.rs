//! The copy of a duplicate group the operator keeps as the one to answer:
//! the one chosen with `[` and `]` in the group's detail, else what the
//! decision keeps by itself (the most complete copy for `d`, the latest for
//! `c`; see [`crate::review::keep`]). The detail marks it before anyone
//! decides, so what is recorded is what was shown.

use crate::model::ReceiptId;
use crate::reading::Snapshot;
use crate::review::keep;
use crate::triage::model::DuplicateGroup;

use super::decision::Decision;
use super::state::App;

/// What the detail of a pending group says it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keeping {
    /// The copy `d` keeps (`None` while the copies are not read yet and
    /// none was chosen).
    pub kept: Option<ReceiptId>,
    /// The operator chose it (then `c` keeps it too).
    pub chosen: bool,
    /// The copy `c` keeps when none was chosen: the latest.
    pub latest: ReceiptId,
}

/// The operator's choice for this group, when it is still one of its copies.
fn chosen(app: &App, g: &DuplicateGroup) -> Option<ReceiptId> {
    app.keep
        .get(&g.item())
        .copied()
        .filter(|id| g.members.iter().any(|m| m.id == *id))
}

/// What `d` on this group keeps, and whether it was chosen.
pub fn keeping(app: &App, snap: &Snapshot, g: &DuplicateGroup) -> Keeping {
    let latest = g.members[g.members.len() - 1].id;
    match chosen(app, g) {
        Some(id) => Keeping {
            kept: Some(id),
            chosen: true,
            latest,
        },
        None => Keeping {
            kept: snap
                .keep_candidates(g)
                .and_then(|c| keep::most_complete(&c)),
            chosen: false,
            latest,
        },
    }
}

/// What `decision` on this group records as kept (`None` for a decision
/// that keeps none, or while the copies are not read yet and none was
/// chosen: the runtime then keeps the default, read by then).
pub fn kept_for(
    app: &App,
    snap: &Snapshot,
    g: &DuplicateGroup,
    decision: Decision,
) -> Option<ReceiptId> {
    if !keep::keeps(decision) {
        return None;
    }
    let chosen = chosen(app, g);
    match snap.keep_candidates(g) {
        Some(candidates) => keep::kept(decision, &candidates, chosen),
        None if decision == Decision::Correction => {
            chosen.or(Some(g.members[g.members.len() - 1].id))
        }
        None => chosen,
    }
}

/// The copy `by` copies on from the one kept now (clamped to the group).
pub fn step(app: &App, snap: &Snapshot, g: &DuplicateGroup, by: isize) -> ReceiptId {
    let now = keeping(app, snap, g).kept.unwrap_or(g.members[0].id);
    let at = g.members.iter().position(|m| m.id == now).unwrap_or(0);
    let next = at
        .saturating_add_signed(by)
        .min(g.members.len().saturating_sub(1));
    g.members[next].id
}
