//! The desk's config file: what an operator would otherwise type each time
//! (`operator`, `tz`, `lang`, the analysis options, the database), the
//! screen's colours and its key remaps. It sits in the config folder
//! ([`place`]) or where `--config-file` says; every value is checked when it
//! is read ([`file`]). The command line wins over the file, and the file
//! over the environment (`TZ`, `LANG`, `USER`): the file holds the
//! operator's own choices, the environment the machine's. [`show`] prints
//! what is in effect and where each value came from.

mod file;
pub mod place;
pub mod show;

use std::path::Path;

pub use file::{ConfigFileError, FileValues};
pub use place::Found;

use super::args::{AnalysisArgs, Cli, Command, TuiArgs};
use crate::i18n::Lang;
use crate::storage::Location;
use crate::tui::app::keymap::Keymap;
use crate::tui::app::palette::Palette;

/// The config file in effect: which one, and what it sets.
#[derive(Clone, Debug)]
pub struct DeskConfig {
    pub found: Found,
    pub values: FileValues,
}

impl DeskConfig {
    /// The file `--config-file` names (which must be there), else the one
    /// at the default place if there is one.
    pub fn load(named: Option<&Path>) -> Result<DeskConfig, ConfigFileError> {
        let found = place::find(named);
        let values = match found.path() {
            Some(path) => file::read(path)?,
            None => FileValues::default(),
        };
        Ok(DeskConfig { found, values })
    }

    /// The language the file asks for, when the command line does not.
    pub fn lang(&self) -> Option<Lang> {
        self.values.lang
    }

    /// The screen's colours: the file's theme, unless `NO_COLOR` is set.
    pub fn palette(&self) -> Palette {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Palette::chosen(self.values.theme.unwrap_or_default(), no_color)
    }

    pub fn keymap(&self) -> &Keymap {
        &self.values.keymap
    }

    /// Fills what the command line left out with the file's values: the
    /// command line wins wherever it says something.
    pub fn fill(&self, cli: &mut Cli) {
        let v = &self.values;
        match &mut cli.command {
            None => self.fill_screen(&mut cli.tui),
            Some(Command::Report {
                db, tz, analysis, ..
            }) => {
                fill_option(db, &v.database);
                fill_option(tz, &v.tz);
                self.fill_analysis(analysis);
            }
            Some(Command::Find { tz, analysis, .. }) => {
                fill_option(tz, &v.tz);
                self.fill_analysis(analysis);
            }
            Some(Command::Check { db }) => fill_option(db, &v.database),
            Some(Command::Resolve {
                operator, analysis, ..
            }) => {
                fill_option(operator, &v.operator);
                self.fill_analysis(analysis);
            }
            Some(Command::Reopen { operator, .. }) => fill_option(operator, &v.operator),
            Some(Command::Erase(args)) => {
                fill_option(&mut args.db, &v.database);
                fill_option(&mut args.operator, &v.operator);
                fill_option(&mut args.tz, &v.tz);
                self.fill_analysis(&mut args.analysis);
            }
            // `--operator` of an export picks rows: it is no "who I am".
            Some(Command::Export { db, limits, .. }) => {
                fill_option(db, &v.database);
                fill_option(&mut limits.tz, &v.tz);
            }
            // `config` shows where each value comes from: it fills its own.
            Some(
                Command::Config(_)
                | Command::Canonical { .. }
                | Command::Init { .. }
                | Command::Serve { .. }
                | Command::Simulate(_)
                | Command::Demo { .. },
            ) => {}
        }
    }

    fn fill_screen(&self, args: &mut TuiArgs) {
        let v = &self.values;
        // `--demo` opens a fresh database: the file's is not meant.
        if !args.demo {
            fill_option(&mut args.db, &v.database);
        }
        fill_option(&mut args.operator, &v.operator);
        fill_option(&mut args.tz, &v.tz);
        self.fill_analysis(&mut args.analysis);
    }

    fn fill_analysis(&self, args: &mut AnalysisArgs) {
        let v = &self.values;
        fill_option(&mut args.window, &v.window);
        fill_option(&mut args.stuck_after, &v.stuck_after);
        if args.ignore_fields.is_empty()
            && let Some(fields) = &v.ignore_fields
        {
            args.ignore_fields = fields.clone();
        }
    }
}

fn fill_option<T: Clone>(slot: &mut Option<T>, from_file: &Option<T>) {
    if slot.is_none() {
        *slot = from_file.clone();
    }
}

/// The database `command` works on: the one named, else the config
/// file's (already filled in); neither is bad usage, said as clap says a
/// missing argument.
pub fn database<'a>(given: &'a Option<Location>, command: &str) -> anyhow::Result<&'a Location> {
    given.as_ref().ok_or_else(|| {
        let lang = crate::i18n::current();
        let problem = crate::t!(
            lang,
            "cli.error.missing",
            command = command,
            what = crate::t!(lang, "cli.arg.db_or_config")
        );
        super::error::usage(command, problem)
    })
}
