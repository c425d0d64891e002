use super::*;

fn lookup(mode: Mode, event: &KeyEvent) -> Option<KeyCommand> {
    Keymap::default().lookup(mode, event)
}

fn hints(mode: Mode, lang: Lang) -> Vec<(String, &'static str)> {
    Keymap::default().hints(mode, lang)
}

fn help_sections(lang: Lang) -> Vec<(&'static str, Vec<(String, &'static str)>)> {
    Keymap::default().help_sections(lang)
}

fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

#[test]
fn a_movement_lands_inside_the_list() {
    use KeyCommand::*;
    assert_eq!(Down.moved(3, 5, 10), 4);
    assert_eq!(Down.moved(4, 5, 10), 4);
    assert_eq!(Up.moved(0, 5, 10), 0);
    assert_eq!(PageDown.moved(1, 5, 10), 4);
    assert_eq!(PageUp.moved(4, 50, 3), 1);
    assert_eq!((Top.moved(4, 5, 3), Bottom.moved(0, 5, 3)), (0, 4));
    assert_eq!(Help.moved(2, 5, 3), 2);
}

#[test]
fn no_key_is_bound_twice_in_one_mode() {
    // Every mode: the list the remap check walks too.
    let modes = super::remap::all_modes();
    for mode in modes {
        // A tab may give a global key its own meaning: its binding comes
        // first and wins; nothing else is bound twice. Any character is
        // bound last, where it is bound at all.
        let mut seen: Vec<(Key, Scope)> = Vec::new();
        for binding in KEYMAP {
            for key in binding.keys.iter().filter(|k| acts(mode, binding, k)) {
                assert!(
                    !seen.iter().any(|(k, _)| *k == Key::Text),
                    "{key:?} after any character in {mode:?}"
                );
                let before = seen.iter().find(|(k, _)| k == key);
                let tab_over_global = matches!(
                    before,
                    Some((_, Scope::Tabs(_) | Scope::TabsDetail(_) | Scope::Typing))
                ) && binding.scope == Scope::Global;
                assert!(
                    before.is_none() || tab_over_global,
                    "{key:?} bound twice in {mode:?}"
                );
                seen.push((*key, binding.scope));
            }
        }
    }
}

fn typed(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

#[test]
fn on_the_receipts_list_a_character_is_a_search_unless_it_switches_tabs() {
    let list = Mode::Main {
        tab: Tab::Receipts,
        detail: false,
    };
    assert!(list.types());
    for c in "suzkiea@.jptro?qunvrzJjgGlhdcxs#-".chars() {
        assert_eq!(lookup(list, &typed(c)), Some(KeyCommand::FindTyped), "{c}");
    }
    assert_eq!(lookup(list, &typed('/')), Some(KeyCommand::FindQuery));
    assert_eq!(lookup(list, &typed('9')), Some(KeyCommand::FindTyped));
    assert_eq!(
        lookup(list, &typed('1')),
        Some(KeyCommand::GoTab(Tab::Duplicates))
    );
    for (code, command) in [
        (KeyCode::Down, KeyCommand::Down),
        (KeyCode::PageUp, KeyCommand::PageUp),
        (KeyCode::End, KeyCommand::Bottom),
        (KeyCode::Enter, KeyCommand::EnterDetail),
        (KeyCode::Esc, KeyCommand::Back),
        (KeyCode::Tab, KeyCommand::NextTab),
        (KeyCode::F(1), KeyCommand::Help),
        (KeyCode::F(10), KeyCommand::Quit),
    ] {
        assert_eq!(
            lookup(list, &press(code, KeyModifiers::NONE)),
            Some(command)
        );
    }
    // The receipt's detail pane, and every other tab, keep their keys.
    let detail = Mode::Main {
        tab: Tab::Receipts,
        detail: true,
    };
    assert!(!detail.types());
    assert_eq!(lookup(detail, &typed('J')), Some(KeyCommand::JumpToItem));
    assert_eq!(lookup(detail, &typed('/')), Some(KeyCommand::FindQuery));
    assert_eq!(lookup(detail, &typed('q')), Some(KeyCommand::Quit));
    let log = Mode::Main {
        tab: Tab::Log,
        detail: false,
    };
    assert_eq!(lookup(log, &typed('u')), Some(KeyCommand::Undo));
    assert_eq!(lookup(log, &typed('a')), None);
    // A line being typed takes every character.
    assert_eq!(lookup(Mode::Input, &typed('q')), Some(KeyCommand::Type));
    assert_eq!(lookup(Mode::Input, &typed('1')), Some(KeyCommand::Type));
    assert_eq!(
        lookup(Mode::Input, &press(KeyCode::Up, KeyModifiers::NONE)),
        Some(KeyCommand::InputOlder)
    );
}

#[test]
fn the_receipts_list_footer_names_f1_and_f10() {
    let list = Mode::Main {
        tab: Tab::Receipts,
        detail: false,
    };
    let hinted = hints(list, Lang::En);
    assert!(hinted.contains(&("F1".to_string(), "help")), "{hinted:?}");
    assert!(hinted.contains(&("F10".to_string(), "quit")), "{hinted:?}");
    assert!(hinted.contains(&("/".to_string(), "search")), "{hinted:?}");
    for gone in ["undo", "export", "raw", "filter", "go to item"] {
        assert!(hinted.iter().all(|(_, h)| *h != gone), "{gone}: {hinted:?}");
    }
    let stuck = hints(
        Mode::Main {
            tab: Tab::Stuck,
            detail: false,
        },
        Lang::En,
    );
    assert!(stuck.contains(&("q".to_string(), "quit")), "{stuck:?}");
    assert!(stuck.contains(&("U".to_string(), "reopen")), "{stuck:?}");
}

#[test]
fn shift_letters_and_backtab() {
    let main = Mode::Main {
        tab: Tab::Stuck,
        detail: false,
    };
    assert_eq!(
        lookup(main, &press(KeyCode::Char('C'), KeyModifiers::SHIFT)),
        Some(KeyCommand::Decide(Decision::Completed))
    );
    assert_eq!(
        lookup(main, &press(KeyCode::BackTab, KeyModifiers::SHIFT)),
        Some(KeyCommand::PrevTab)
    );
    assert_eq!(
        lookup(main, &press(KeyCode::Tab, KeyModifiers::SHIFT)),
        Some(KeyCommand::PrevTab)
    );
    assert_eq!(
        lookup(main, &press(KeyCode::Char('d'), KeyModifiers::ALT)),
        None
    );
    assert_eq!(
        lookup(main, &press(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Some(KeyCommand::ForceQuit)
    );
}

#[test]
fn every_binding_is_in_the_help() {
    for lang in Lang::ALL {
        let listed: usize = help_sections(lang).iter().map(|(_, rows)| rows.len()).sum();
        assert_eq!(listed, KEYMAP.len());
    }
}

#[test]
fn every_hint_and_help_line_is_in_both_catalogues() {
    for lang in Lang::ALL {
        let keys = crate::i18n::keys(lang).unwrap();
        for b in KEYMAP {
            for key in [b.hint, b.help].into_iter().filter(|k| !k.is_empty()) {
                assert!(
                    keys.binary_search(&key.to_string()).is_ok(),
                    "{key} is missing from {}.toml",
                    lang.code()
                );
            }
        }
    }
    assert!(KEYMAP.iter().all(|b| !b.help.is_empty()));
}

/// Japanese text is written in kana or kanji: a line without any is
/// English left behind (a hint that is a format's name aside).
fn japanese(text: &str) -> bool {
    text.chars().any(|c| ('\u{3040}'..='\u{9fff}').contains(&c))
}

#[test]
fn the_footer_and_the_help_speak_japanese() {
    let modes = [
        Mode::TooSmall,
        Mode::Input,
        Mode::Help,
        Mode::Confirm,
        Mode::Export,
        Mode::Copy,
    ]
    .into_iter()
    .chain(
        Tab::ALL
            .into_iter()
            .flat_map(|tab| [false, true].map(|detail| Mode::Main { tab, detail })),
    );
    let mut hinted = 0;
    for mode in modes {
        for (keys, hint) in hints(mode, Lang::Ja) {
            hinted += 1;
            let name_of_a_format = ["CSV", "JSONL"].contains(&hint);
            assert!(
                japanese(hint) || name_of_a_format,
                "{keys} {hint} in {mode:?}"
            );
            // The footer is one line at 80 columns: a hint is a word or two.
            assert!(crate::i18n::width::width(hint) <= 12, "{keys} {hint}");
        }
    }
    assert!(hinted > 40, "{hinted}");
    let english = hints(
        Mode::Main {
            tab: Tab::Duplicates,
            detail: false,
        },
        Lang::En,
    );
    assert!(english.contains(&("d".to_string(), "duplicate")));
    let japanese_d = hints(
        Mode::Main {
            tab: Tab::Duplicates,
            detail: false,
        },
        Lang::Ja,
    );
    assert!(japanese_d.contains(&("d".to_string(), "重複")));
    for (title, rows) in help_sections(Lang::Ja) {
        assert!(japanese(title), "{title}");
        for (keys, help) in rows {
            assert!(japanese(help), "{keys} {help}");
        }
    }
}
