//! The Bots tab's own rules: who a bot receipt says it is, and the question
//! asked before a whole group is marked spam.

use crate::i18n::Lang;
use crate::reading::Snapshot;
use crate::sanitize::inline;
use crate::t;
use crate::triage::model::BotGroup;
use crate::triage::visitor::{Identity, identity_of};

use super::msg::ItemDecision;
use super::state::{Confirm, ConfirmAction};
use super::words;

/// The sender a receipt names (its email, else phone, else name), as the
/// campaign rule counts senders: from the receipts the items show, else
/// from its payload (a bot receipt's is read when its group is shown, so
/// the screen does not hold tens of thousands of them); `None` when neither
/// is here yet or it names no one. Not yet safe to show: pass it through
/// `sanitize`.
pub fn sender_of(snap: &Snapshot, payload: Option<&str>, id: i64) -> Option<String> {
    let named = |fields: &mut dyn Iterator<Item = (String, String)>| {
        fields
            .filter_map(|(k, v)| match identity_of(&k) {
                Some(Identity::Organisation) | None => None,
                Some(identity) if !v.trim().is_empty() => Some((identity, v)),
                Some(_) => None,
            })
            .min()
            .map(|(_, v)| v)
    };
    if let Some(r) = snap.receipt_view(id) {
        return named(&mut r.fields().map(|(k, v)| (k.to_string(), v.to_string())));
    }
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(payload?).ok()?;
    named(&mut object.into_iter().filter_map(|(k, v)| match v {
        serde_json::Value::String(s) => Some((k.to_lowercase(), s)),
        _ => None,
    }))
}

/// The question before `spam` on a whole group: it says how many receipts
/// it covers, and No has the focus.
pub fn confirm_spam(request: ItemDecision, g: &BotGroup, lang: Lang) -> Confirm {
    let n = request.receipt_ids.len();
    let evidence = g.evidence.describe_in(lang);
    let item = &request.item;
    let mut lines = vec![
        if n == 1 {
            t!(
                lang,
                "status.bots.records_one",
                n = n,
                item = item,
                evidence = evidence
            )
        } else {
            t!(
                lang,
                "status.bots.records_many",
                n = n,
                item = item,
                evidence = evidence
            )
        },
        t!(lang, "status.bots.nothing_deleted").into(),
    ];
    if let Some(note) = &request.note {
        lines.push(words::confirm_note(&inline(note, 200), lang));
    }
    Confirm {
        title: if n == 1 {
            t!(lang, "status.bots.title_one", n = n)
        } else {
            t!(lang, "status.bots.title_many", n = n)
        },
        lines,
        yes_label: t!(lang, "status.bots.yes", n = n),
        no_label: words::confirm_no(lang),
        yes_focused: false,
        action: ConfirmAction::Decide(request),
    }
}
