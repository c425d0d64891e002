//! The screen's keys inside the catalogues' sentences.
//!
//! A text that names a key the operator may remap writes it as
//! `{key:ACTION=LABEL}`: the action's name in the config file's `[keys]`
//! table and the label of its default key ("u undoes" is
//! `{key:undo=u} undoes`). Without remaps the label is the text; once the
//! config file's keymap is known, [`set`] gives the labels in effect, so a
//! sentence never names a key that no longer does what it says. The labels
//! are set once, before the screen starts, like the language.

use std::collections::HashMap;

/// `{key:` opens a key's mark; `}` ends it; `=` parts action and label.
const OPEN: &str = "{key:";

/// The labels in effect, by action name (only the remapped ones need be given).
pub type KeyLabels = HashMap<String, String>;

/// `template` with every key mark replaced: by `labels`' label for its
/// action, else by the default label it carries.
pub fn resolve(template: &str, labels: Option<&KeyLabels>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let Some((action, default, tail)) = mark(after) else {
            out.push_str(OPEN);
            rest = after;
            continue;
        };
        let label = labels
            .and_then(|l| l.get(action))
            .map(String::as_str)
            .unwrap_or(default);
        out.push_str(label);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// The (action, default label) of every key mark in `template`.
pub fn marks(template: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        match mark(after) {
            Some((action, default, tail)) => {
                found.push((action, default));
                rest = tail;
            }
            None => rest = after,
        }
    }
    found
}

/// `ACTION=LABEL}…` → (action, label, what follows the mark). A label may
/// be `}` or `=` itself: the mark ends at the first `}` after its `=`'s
/// first character.
fn mark(after: &str) -> Option<(&str, &str, &str)> {
    let eq = after.find('=')?;
    let action = &after[..eq];
    if action.is_empty() || !action.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
        return None;
    }
    let label_start = eq + 1;
    let first = after[label_start..].chars().next()?;
    let search_from = label_start + first.len_utf8();
    let end = search_from + after[search_from..].find('}')?;
    Some((action, &after[label_start..end], &after[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_read_as_their_default_without_labels() {
        assert_eq!(resolve("{key:undo=u} undoes", None), "u undoes");
        assert_eq!(
            resolve("{key:down=j}/{key:up=k} scroll, Esc back", None),
            "j/k scroll, Esc back"
        );
        assert_eq!(resolve("no keys {n} here", None), "no keys {n} here");
        assert_eq!(
            resolve("odd {key: and {key:x", None),
            "odd {key: and {key:x"
        );
    }

    #[test]
    fn labels_replace_the_remapped_keys_only() {
        let labels: KeyLabels = [("undo".to_string(), "Ctrl-z".to_string())].into();
        assert_eq!(
            resolve("{key:undo=u} undoes, {key:note=n} notes", Some(&labels)),
            "Ctrl-z undoes, n notes"
        );
    }

    #[test]
    fn a_label_may_be_a_brace_or_a_bracket() {
        assert_eq!(resolve("{key:keep_next_copy=]} next", None), "] next");
        assert_eq!(resolve("[{key:x=}}]", None), "[}]");
        assert_eq!(
            marks("{key:undo=u} and {key:help=?}"),
            vec![("undo", "u"), ("help", "?")]
        );
    }
}
