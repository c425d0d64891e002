//! The command line's texts in the user's language: clap's command, built
//! from the derive ([`Cli`]), with every about and argument help replaced
//! by the catalogue's, and the headings of `--help` too.
//!
//! Keys: `cli.about.<command>` (`main` for the program itself), and
//! `cli.help.<command>.<argument id>`, else `cli.help.any.<argument id>`
//! for an argument many commands share (`--window`, `--help`). An argument
//! without a text keeps clap's; a test walks the whole tree so that none is
//! left without one.

use std::ffi::OsString;

use clap::{Arg, Command, CommandFactory};

use super::args::Cli;
use crate::i18n::{self, Lang};
use crate::t;

/// The name of the program itself in the keys.
const MAIN: &str = "main";

/// The command line as clap parses it, speaking `lang`.
pub fn command(lang: Lang) -> Command {
    let mut cmd = Cli::command();
    // Adds `--help`, `--version` and `help` to every command, so that their
    // texts can be replaced too.
    cmd.build();
    localize(cmd, lang, MAIN)
}

fn lookup(lang: Lang, key: &str) -> Option<&'static str> {
    let text = i18n::text(lang, key);
    (text != key).then_some(text)
}

fn localize(cmd: Command, lang: Lang, name: &str) -> Command {
    let usage = cmd.get_styles().get_usage();
    let template = format!(
        "{{before-help}}{{about-with-newline}}\n{usage}{}{usage:#} {{usage}}\n\n{{all-args}}{{after-help}}",
        t!(lang, "cli.heading.usage")
    );
    let mut cmd = cmd
        .help_template(template)
        .subcommand_help_heading(t!(lang, "cli.heading.commands"))
        .mut_args(|arg| localize_arg(arg, lang, name));
    if let Some(about) = lookup(lang, &format!("cli.about.{name}")) {
        cmd = cmd.about(about);
    }
    if cmd.get_long_about().is_some() {
        cmd = cmd.long_about(lookup(lang, &format!("cli.about.{name}_long")));
    }
    cmd.mut_subcommands(|sub| {
        let name = sub.get_name().to_string();
        localize(sub, lang, &name)
    })
}

/// The help text of argument `id` of `command`.
fn arg_help(lang: Lang, command: &str, id: &str) -> Option<&'static str> {
    lookup(lang, &format!("cli.help.{command}.{id}"))
        .or_else(|| lookup(lang, &format!("cli.help.any.{id}")))
}

fn localize_arg(arg: Arg, lang: Lang, command: &str) -> Arg {
    let Some(help) = arg_help(lang, command, arg.get_id().as_str()) else {
        return arg;
    };
    let mut help = help.to_string();
    let heading = if arg.is_positional() {
        t!(lang, "cli.heading.arguments")
    } else {
        t!(lang, "cli.heading.options")
    };
    let mut arg = arg.help_heading(heading);
    if let Some(index) = arg.get_index() {
        // Under a heading of their own, arguments are listed by display
        // order, which clap gives options only: keep the typed order.
        arg = arg.display_order(index);
    }
    if lang != Lang::En {
        // clap writes `[default: …]` and `[possible values: …]` in English:
        // said here instead, in the user's language.
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        if !values.is_empty() && !arg.is_hide_possible_values_set() {
            help.push_str(&t!(
                lang,
                "cli.heading.possible",
                values = values.join(", ")
            ));
            arg = arg.hide_possible_values(true);
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if arg.get_action().takes_values()
            && !defaults.is_empty()
            && !arg.is_hide_default_value_set()
        {
            help.push_str(&t!(
                lang,
                "cli.heading.default",
                value = defaults.join(", ")
            ));
            arg = arg.hide_default_value(true);
        }
    }
    arg.help(help)
}

/// The command the arguments name (`report`), if any: the first word that
/// is not an option or an option's value, when it is a command's name.
pub fn subcommand_in(cmd: &Command, args: &[OsString]) -> Option<String> {
    let mut words = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        if let Some(long) = word.strip_prefix("--") {
            let takes_value = cmd
                .get_arguments()
                .any(|a| a.get_long() == Some(long) && a.get_action().takes_values());
            if takes_value {
                words.next();
            }
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        return cmd
            .get_subcommands()
            .find(|s| s.get_name() == word)
            .map(|s| s.get_name().to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every argument `--help` shows, with its help text.
    fn texts(cmd: &Command, path: &str, out: &mut Vec<(String, String)>) {
        out.push((
            format!("{path} (about)"),
            cmd.get_about().map(|a| a.to_string()).unwrap_or_default(),
        ));
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            out.push((
                format!("{path} {}", arg.get_id()),
                arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
            ));
        }
        for sub in cmd.get_subcommands() {
            texts(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_command_and_argument_has_a_text_in_every_language() {
        for lang in Lang::ALL {
            let mut all = Vec::new();
            texts(&command(lang), "receipt-review", &mut all);
            assert!(all.len() > 60, "{}", all.len());
            for (what, text) in &all {
                assert!(!text.trim().is_empty(), "{lang:?}: {what} has no help");
                if lang == Lang::Ja {
                    assert!(!text.is_ascii(), "{what} is not in Japanese: {text}");
                }
            }
        }
    }

    #[test]
    fn the_localized_command_line_is_consistent() {
        for lang in Lang::ALL {
            command(lang).debug_assert();
        }
    }

    #[test]
    fn the_command_is_found_past_options_and_their_values() {
        let cmd = command(Lang::En);
        let find = |words: &[&str]| {
            let args: Vec<OsString> = words.iter().map(OsString::from).collect();
            subcommand_in(&cmd, &args)
        };
        assert_eq!(find(&["rr", "report"]), Some("report".into()));
        assert_eq!(find(&["rr", "--operator", "report", "x.db"]), None);
        assert_eq!(
            find(&["rr", "--read-only", "export", "x.db"]),
            Some("export".into())
        );
        assert_eq!(find(&["rr", "x.db"]), None);
        assert_eq!(find(&["rr"]), None);
    }
}
