//! The config file's `[keys]`: the letters of an action, remapped.
//!
//! A remap names an action (`undo`, `duplicate`, `down`, …) and gives its
//! keys: a character, `Space`, or `Ctrl-` and a letter, or a list of them.
//! They replace the action's character keys on the main screen; its named
//! keys (arrows, Enter, Esc, Tab, F1, F10, Home, End, PgUp, PgDn) stay, so
//! the keyboard keeps every way the help documents, and the dialogs (help,
//! confirmations, export, copy menu, typing) keep theirs. A remap that
//! gives a key another action already has where it acts is refused, as is
//! one that leaves an action without any key.

use std::borrow::Cow;

use crossterm::event::KeyCode;

use super::{Binding, KEYMAP, Key, KeyCommand, Keymap, Mode, Scope, acts};
use crate::i18n::Lang;
use crate::i18n::key_labels::KeyLabels;
use crate::review::Decision;
use crate::sanitize::inline;
use crate::t;

/// The actions a config file may remap, by the name it uses for each.
pub const ACTIONS: &[(&str, KeyCommand)] = &[
    ("quit", KeyCommand::Quit),
    ("help", KeyCommand::Help),
    ("reload", KeyCommand::Reload),
    ("export", KeyCommand::Export),
    ("undo", KeyCommand::Undo),
    ("reopen", KeyCommand::ReopenChosen),
    ("note", KeyCommand::Note),
    ("copy_email", KeyCommand::CopyEmail),
    ("copy_menu", KeyCommand::CopyMenu),
    ("raw", KeyCommand::RawToggle),
    ("filter", KeyCommand::Filter),
    ("search", KeyCommand::FindQuery),
    ("go_to_item", KeyCommand::JumpToItem),
    ("erase", KeyCommand::EraseVisitor),
    ("utc", KeyCommand::ToggleUtc),
    ("order", KeyCommand::ToggleOrder),
    ("pending_only", KeyCommand::TogglePending),
    ("period", KeyCommand::CyclePeriod),
    ("duplicate", KeyCommand::Decide(Decision::Duplicate)),
    ("correction", KeyCommand::Decide(Decision::Correction)),
    ("distinct", KeyCommand::Decide(Decision::Distinct)),
    ("spam", KeyCommand::Decide(Decision::Spam)),
    ("not_spam", KeyCommand::Decide(Decision::NotSpam)),
    ("all_exact_duplicates", KeyCommand::BulkDuplicate),
    ("class", KeyCommand::CycleClass),
    ("keep_previous_copy", KeyCommand::PrevCopy),
    ("keep_next_copy", KeyCommand::NextCopy),
    (
        "original_stands",
        KeyCommand::Decide(Decision::OriginalStands),
    ),
    ("follow_up", KeyCommand::Decide(Decision::FollowUp)),
    ("completed", KeyCommand::Decide(Decision::Completed)),
    ("failed", KeyCommand::Decide(Decision::Failed)),
    ("still_pending", KeyCommand::Decide(Decision::StillPending)),
    ("down", KeyCommand::Down),
    ("up", KeyCommand::Up),
    ("top", KeyCommand::Top),
    ("bottom", KeyCommand::Bottom),
    ("detail", KeyCommand::EnterDetail),
    ("back", KeyCommand::Back),
];

/// Why the config file's `[keys]` cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemapError {
    /// No action has this name; `nearest` is the closest one, when close.
    UnknownAction {
        name: String,
        nearest: Option<&'static str>,
    },
    /// Not a key this file can name.
    BadKey { action: String, key: String },
    /// The remap leaves the action without any key.
    NoKeyLeft { action: String },
    /// `key` of `action` is what `other` already answers to on `tab`.
    Clash {
        key: String,
        action: String,
        other: String,
        tab: &'static str,
    },
}

impl RemapError {
    /// One line in `lang`, naming the file's own words.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            RemapError::UnknownAction {
                name,
                nearest: Some(near),
            } => t!(
                lang,
                "config.keys.unknown_action_near",
                name = inline(name, 40),
                near = near
            ),
            RemapError::UnknownAction {
                name,
                nearest: None,
            } => t!(lang, "config.keys.unknown_action", name = inline(name, 40)),
            RemapError::BadKey { action, key } => t!(
                lang,
                "config.keys.bad_key",
                action = action,
                key = inline(key, 20)
            ),
            RemapError::NoKeyLeft { action } => {
                t!(lang, "config.keys.no_key_left", action = action)
            }
            RemapError::Clash {
                key,
                action,
                other,
                tab,
            } => t!(
                lang,
                "config.keys.clash",
                key = key,
                action = action,
                other = other,
                tab = tab
            ),
        }
    }
}

/// A key as the config file writes it: one character, `Space`, or `Ctrl-`
/// and a letter (`Ctrl-z`).
pub fn parse_key(text: &str) -> Option<Key> {
    if text.eq_ignore_ascii_case("space") {
        return Some(Key::Press {
            code: KeyCode::Char(' '),
            ctrl: false,
        });
    }
    let lower = text.to_ascii_lowercase();
    if let Some(letter) = lower.strip_prefix("ctrl-").or(lower.strip_prefix("c-")) {
        let mut chars = letter.chars();
        return match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_lowercase() => Some(Key::Press {
                code: KeyCode::Char(c),
                ctrl: true,
            }),
            _ => None,
        };
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() && !c.is_whitespace() => Some(Key::Press {
            code: KeyCode::Char(c),
            ctrl: false,
        }),
        _ => None,
    }
}

/// The scopes of the main screen, where remaps apply.
fn on_screen(scope: Scope) -> bool {
    matches!(
        scope,
        Scope::Main
            | Scope::Global
            | Scope::Tabs(_)
            | Scope::TabsDetail(_)
            | Scope::Typing
            | Scope::List
            | Scope::Detail
    )
}

/// A key a remap replaces: a character, with or without Ctrl.
fn is_letter(key: &Key) -> bool {
    matches!(
        key,
        Key::Press {
            code: KeyCode::Char(_),
            ..
        }
    )
}

/// The name the config file gives `command`, if it may be remapped.
pub fn action_name(command: KeyCommand) -> Option<&'static str> {
    ACTIONS
        .iter()
        .find(|(_, c)| *c == command)
        .map(|(name, _)| *name)
}

/// The table's keymap with `remaps` — (action, keys as written) in the
/// file's order — applied and checked.
pub fn remapped(remaps: &[(String, Vec<String>)], lang: Lang) -> Result<Keymap, RemapError> {
    let mut bindings = KEYMAP.to_vec();
    for (name, keys) in remaps {
        let Some(&(action, command)) = ACTIONS.iter().find(|(n, _)| n == name) else {
            return Err(RemapError::UnknownAction {
                name: name.clone(),
                nearest: nearest(name),
            });
        };
        let mut given: Vec<Key> = Vec::new();
        for text in keys {
            let key = parse_key(text).ok_or_else(|| RemapError::BadKey {
                action: action.to_string(),
                key: text.clone(),
            })?;
            if !given.contains(&key) {
                given.push(key);
            }
        }
        for binding in bindings
            .iter_mut()
            .filter(|b| b.command == command && on_screen(b.scope))
        {
            // The file's keys first: the footer names the first that acts.
            let mut kept = given.clone();
            kept.extend(binding.keys.iter().copied().filter(|k| !is_letter(k)));
            if kept.is_empty() {
                return Err(RemapError::NoKeyLeft {
                    action: action.to_string(),
                });
            }
            binding.keys = Cow::Owned(kept);
        }
    }
    if let Some(clash) = clashes(&bindings)
        .into_iter()
        .find(|c| changed(&bindings, c.first) || changed(&bindings, c.second))
    {
        let name = |at: usize| {
            action_name(bindings[at].command)
                .map(str::to_string)
                .unwrap_or_else(|| bindings[at].help_in(lang).to_string())
        };
        // The remapped one is named as the file's action.
        let (action, other) = if changed(&bindings, clash.second) {
            (name(clash.second), name(clash.first))
        } else {
            (name(clash.first), name(clash.second))
        };
        let tab = match clash.mode {
            Mode::Main { tab, .. } => tab.title(lang),
            _ => "",
        };
        return Err(RemapError::Clash {
            key: clash.key.label(lang),
            action,
            other,
            tab,
        });
    }
    Ok(Keymap { bindings })
}

/// True when the binding at `at` no longer has the table's keys.
fn changed(bindings: &[Binding], at: usize) -> bool {
    bindings[at].keys != KEYMAP[at].keys
}

/// The action name closest to a misspelt one, when it is close.
fn nearest(name: &str) -> Option<&'static str> {
    ACTIONS
        .iter()
        .map(|(n, _)| (strsim::jaro_winkler(name, n), *n))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// A key that two bindings answer to in one mode: the earlier one wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clash {
    pub mode: Mode,
    pub key: Key,
    pub first: usize,
    pub second: usize,
}

/// Every mode the keyboard can be in.
pub fn all_modes() -> Vec<Mode> {
    use super::super::tab::Tab;
    let mut modes = vec![
        Mode::TooSmall,
        Mode::Input,
        Mode::Help,
        Mode::Confirm,
        Mode::Export,
        Mode::Copy,
    ];
    for tab in Tab::ALL {
        for detail in [false, true] {
            modes.push(Mode::Main { tab, detail });
        }
    }
    modes
}

/// Every key that two bindings answer to in one mode ("any character", the
/// fallback of typing, aside).
pub fn clashes(bindings: &[Binding]) -> Vec<Clash> {
    let mut found = Vec::new();
    for mode in all_modes() {
        for (second, later) in bindings.iter().enumerate() {
            for key in later
                .keys
                .iter()
                .filter(|k| **k != Key::Text && acts(mode, later, k))
            {
                if let Some(first) = bindings[..second]
                    .iter()
                    .position(|b| b.keys.contains(key) && acts(mode, b, key))
                {
                    found.push(Clash {
                        mode,
                        key: *key,
                        first,
                        second,
                    });
                }
            }
        }
    }
    found
}

impl Keymap {
    /// The label of each remappable action's key in effect, for the
    /// catalogue's sentences (see `i18n::key_labels`): its first character
    /// key on the main screen, else its first key.
    pub fn labels(&self) -> KeyLabels {
        ACTIONS
            .iter()
            .filter_map(|(name, command)| {
                let keys: Vec<Key> = self
                    .bindings
                    .iter()
                    .filter(|b| b.command == *command && on_screen(b.scope))
                    .flat_map(|b| b.keys.iter().copied())
                    .collect();
                let key = keys
                    .iter()
                    .find(|k| is_letter(k))
                    .or(keys.first())
                    .copied()?;
                Some((name.to_string(), key.label(Lang::En)))
            })
            .collect()
    }

    /// The actions whose keys differ from the table's: (action, keys), for
    /// `receipt-review config`.
    pub fn remapped_actions(&self, lang: Lang) -> Vec<(&'static str, String)> {
        ACTIONS
            .iter()
            .filter(|(_, command)| {
                self.bindings
                    .iter()
                    .zip(KEYMAP)
                    .any(|(now, was)| now.command == *command && now.keys != was.keys)
            })
            .map(|(name, command)| {
                let keys = self
                    .bindings
                    .iter()
                    .find(|b| b.command == *command && on_screen(b.scope))
                    .map(|b| super::keys_label(&b.keys, lang))
                    .unwrap_or_default();
                (*name, keys)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tab::Tab;
    use super::*;
    use crossterm::event::{KeyEvent, KeyModifiers};

    fn remap(pairs: &[(&str, &[&str])]) -> Result<Keymap, RemapError> {
        let remaps: Vec<(String, Vec<String>)> = pairs
            .iter()
            .map(|(n, keys)| (n.to_string(), keys.iter().map(|k| k.to_string()).collect()))
            .collect();
        remapped(&remaps, Lang::En)
    }

    fn typed(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    fn main(tab: Tab) -> Mode {
        Mode::Main { tab, detail: false }
    }

    #[test]
    fn every_action_is_bound_on_the_screen() {
        for (name, command) in ACTIONS {
            assert!(
                KEYMAP
                    .iter()
                    .any(|b| b.command == *command && on_screen(b.scope)),
                "{name}"
            );
        }
    }

    #[test]
    fn the_tables_own_clashes_are_a_tabs_key_over_a_global_one() {
        for clash in clashes(KEYMAP) {
            assert!(
                matches!(
                    KEYMAP[clash.first].scope,
                    Scope::Tabs(_) | Scope::TabsDetail(_) | Scope::Typing
                ) && KEYMAP[clash.second].scope == Scope::Global,
                "{clash:?}"
            );
        }
    }

    #[test]
    fn a_remap_replaces_the_letters_and_keeps_the_named_keys() {
        let keymap = remap(&[("undo", &["Ctrl-z"]), ("down", &["w"])]).unwrap();
        let log = main(Tab::Log);
        assert_eq!(keymap.lookup(log, &typed('u')), None);
        let ctrl_z = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL);
        assert_eq!(keymap.lookup(log, &ctrl_z), Some(KeyCommand::Undo));
        assert_eq!(keymap.lookup(log, &typed('w')), Some(KeyCommand::Down));
        assert_eq!(keymap.lookup(log, &typed('j')), None);
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(keymap.lookup(log, &down), Some(KeyCommand::Down));
        // The help keeps its own j.
        assert_eq!(
            keymap.lookup(Mode::Help, &typed('j')),
            Some(KeyCommand::Down)
        );
        let labels = keymap.labels();
        assert_eq!(labels["undo"], "Ctrl-z");
        assert_eq!(labels["down"], "w");
        assert_eq!(labels["quit"], "q");
        assert_eq!(
            keymap.remapped_actions(Lang::En),
            vec![("undo", "Ctrl-z".to_string()), ("down", "w/↓".to_string())]
        );
    }

    #[test]
    fn a_key_another_action_has_is_refused_naming_both() {
        // `n` is the note's key everywhere a list is.
        assert_eq!(
            remap(&[("down", &["n", "j"])]).unwrap_err(),
            RemapError::Clash {
                key: "n".into(),
                action: "down".into(),
                other: "note".into(),
                tab: "Duplicates",
            }
        );
        // A tab's decision over a global key the file moved there.
        let err = remap(&[("undo", &["d"])]).unwrap_err();
        assert!(
            matches!(&err, RemapError::Clash { action, other, .. } if action == "undo" && other == "duplicate"),
            "{err:?}"
        );
        assert!(
            err.message(Lang::En).contains("Duplicates"),
            "{}",
            err.message(Lang::En)
        );
        // A tab switch, which is not remappable, is named by its help line.
        let err = remap(&[("quit", &["1"])]).unwrap_err();
        assert!(matches!(&err, RemapError::Clash { action, .. } if action == "quit"));
        // Ctrl-C quits at once everywhere.
        assert!(matches!(
            remap(&[("note", &["Ctrl-c"])]),
            Err(RemapError::Clash { .. })
        ));
    }

    #[test]
    fn swapping_two_keys_is_no_clash() {
        let keymap = remap(&[("duplicate", &["x"]), ("distinct", &["d"])]).unwrap();
        let dup = main(Tab::Duplicates);
        assert_eq!(
            keymap.lookup(dup, &typed('x')),
            Some(KeyCommand::Decide(Decision::Duplicate))
        );
        assert_eq!(
            keymap.lookup(dup, &typed('d')),
            Some(KeyCommand::Decide(Decision::Distinct))
        );
    }

    #[test]
    fn names_and_keys_the_file_cannot_use() {
        assert_eq!(
            remap(&[("dupliate", &["d"])]).unwrap_err(),
            RemapError::UnknownAction {
                name: "dupliate".into(),
                nearest: Some("duplicate"),
            }
        );
        assert_eq!(
            remap(&[("launch_rockets", &["d"])]).unwrap_err(),
            RemapError::UnknownAction {
                name: "launch_rockets".into(),
                nearest: None,
            }
        );
        for bad in ["", "dd", "Enter", "Ctrl-", "Ctrl-ab", "\u{7}", " "] {
            assert!(
                matches!(remap(&[("undo", &[bad])]), Err(RemapError::BadKey { .. })),
                "{bad:?}"
            );
        }
        // The note has no named key: without its letter it could not be reached.
        assert_eq!(
            remap(&[("note", &[])]).unwrap_err(),
            RemapError::NoKeyLeft {
                action: "note".into()
            }
        );
        // Quit keeps F10.
        let keymap = remap(&[("quit", &[])]).unwrap();
        assert_eq!(keymap.lookup(main(Tab::Stuck), &typed('q')), None);
        assert_eq!(keymap.labels()["quit"], "F10");
    }

    /// A sentence that names a key says which action's key it is, and
    /// its default label is that action's key as shipped: else a remap
    /// would leave the sentence naming a key that does something else.
    #[test]
    fn the_catalogues_name_each_key_by_its_action() {
        let shipped = Keymap::default().labels();
        let mut marked = 0;
        for key in crate::i18n::keys(Lang::En).unwrap() {
            let en = crate::i18n::template(Lang::En, &key).unwrap();
            let ja = crate::i18n::template(Lang::Ja, &key).unwrap();
            let mut en_marks = crate::i18n::key_labels::marks(en);
            let mut ja_marks = crate::i18n::key_labels::marks(ja);
            for (action, label) in &en_marks {
                assert_eq!(
                    shipped.get(*action).map(String::as_str),
                    Some(*label),
                    "{key}: {action}"
                );
                marked += 1;
            }
            en_marks.sort();
            ja_marks.sort();
            assert_eq!(en_marks, ja_marks, "{key}");
        }
        assert!(marked > 30, "{marked}");
    }

    #[test]
    fn keys_as_the_file_writes_them() {
        let press = |c, ctrl| Key::Press {
            code: KeyCode::Char(c),
            ctrl,
        };
        assert_eq!(parse_key("d"), Some(press('d', false)));
        assert_eq!(parse_key("D"), Some(press('D', false)));
        assert_eq!(parse_key("?"), Some(press('?', false)));
        assert_eq!(parse_key("Ctrl-Z"), Some(press('z', true)));
        assert_eq!(parse_key("space"), Some(press(' ', false)));
        assert_eq!(parse_key("ü"), Some(press('ü', false)));
    }
}
