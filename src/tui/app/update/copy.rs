//! `y`: the selected receipt's email to the clipboard. The runtime hands it to the terminal
//! (OSC 52), which works over SSH and inside tmux; nothing is written to the database, so it
//! works read-only too. On a group it is the first copy's, the one to answer.

use crate::t;
use crate::triage::visitor::{Identity, identity_of, normalize_key};

use super::super::find;
use super::super::msg::Effect;
use super::super::state::App;
use super::super::tab::Tab;
use super::status::{error, success};
use crate::sanitize::{inline, is_unsafe};

pub(super) fn copy_email(app: &mut App, effects: &mut Vec<Effect>) {
    let lang = app.lang;
    let Some(fields) = selected_fields(app) else {
        error(app, t!(lang, "status.nothing_to_copy").into());
        return;
    };
    let email = fields.iter().find(|(key, value)| {
        identity_of(&normalize_key(key)) == Some(Identity::Email) && !value.trim().is_empty()
    });
    let Some((_, email)) = email else {
        error(app, t!(lang, "status.no_email_to_copy").into());
        return;
    };
    let text = clipboard_text(email);
    success(
        app,
        t!(lang, "status.copied_email", text = inline(&text, 80)),
    );
    effects.push(Effect::Copy(text));
}

/// The visitor fields of the selected receipt: the Receipts tab's hit, or the first receipt
/// of the selected item.
fn selected_fields(app: &App) -> Option<Vec<(String, String)>> {
    if app.tab == Tab::Receipts {
        return find::update::selected_hit(app).map(|hit| hit.fields.clone());
    }
    let (_, ids) = app.selected_item()?;
    let view = app.snapshot.as_ref()?.receipt_view(*ids.first()?)?;
    Some(
        view.fields()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// Visitor text as typed, less the control and bidi characters that could act on a terminal
/// or a mail client where it is pasted.
pub fn clipboard_text(text: &str) -> String {
    text.chars().filter(|&c| !is_unsafe(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_not_copied() {
        assert_eq!(clipboard_text("ada@example.org"), "ada@example.org");
        assert_eq!(
            clipboard_text("ev\u{202e}il\u{1b}]52;c;x\u{7}@example.org"),
            "evil]52;c;x@example.org"
        );
        assert_eq!(clipboard_text("佐藤 花子"), "佐藤 花子");
    }
}
