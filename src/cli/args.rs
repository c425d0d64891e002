//! The command line, as clap sees it.
//!
//! The texts `--help` shows (abouts, argument help) are the catalogue's
//! (`[cli.about]`, `[cli.help]` in `assets/i18n/`), set at run time in the
//! user's language by [`super::localize`]; the doc comments here document
//! the fields. Values are checked by parsers that speak that language too.

use std::path::PathBuf;

use crate::storage::Location;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::forms::Period;
use crate::i18n;
use crate::model::{Millis, Settings};
use crate::review::ExportFormat;
use crate::t;

#[derive(Parser, Debug)]
#[command(
    name = "receipt-review",
    version,
    about = "Triage a web-form intake's receipts: near-duplicates, key conflicts, stuck receipts",
    long_about = "Triage a web-form intake's receipts database.\n\n\
        Without a command, opens the review screen on DB (or, with --demo, on a fresh demo database).",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub tui: TuiArgs,
    /// The language of messages and help: en or ja (default: from LC_ALL,
    /// LC_MESSAGES or LANG). Read before the rest of the command line (see
    /// `super::lang`), so clap itself never sees it; declared here for `--help`.
    #[arg(long, global = true, value_name = "LANG", value_parser = ["en", "ja"], hide_possible_values = true)]
    pub lang: Option<String>,
    /// The config file to read instead of the default one. Read early, like
    /// `--lang` (see `super::early`); declared here for `--help`.
    #[arg(long, global = true, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct TuiArgs {
    /// The receipts database to review.
    pub db: Option<Location>,
    /// Write a fresh demo database to a temporary folder and open it.
    #[arg(long, conflicts_with = "db")]
    pub demo: bool,
    /// Name recorded with each decision (default: the login name).
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// Open without the right to write: decisions are off.
    #[arg(long)]
    pub read_only: bool,
    /// Show and read times in this IANA zone (default: TZ, else the system's).
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// The options of the commands that analyse the receipts (the screen,
/// `report`, `find`, `resolve`); `check` and `export` analyse nothing.
#[derive(Args, Debug, Clone, Default)]
pub struct AnalysisArgs {
    /// Copies further apart than this are not duplicates (e.g. 600, 90s, 10m, 1h).
    /// Hyphen values reach the parser, which says why `-5m` cannot be one.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms, allow_hyphen_values = true)]
    pub window: Option<Millis>,
    /// An in_flight receipt older than this is stuck (e.g. 300, 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms, allow_hyphen_values = true)]
    pub stuck_after: Option<Millis>,
    /// A payload field to leave out of the visitor fingerprint (repeatable).
    #[arg(long = "ignore-field", value_name = "FIELD")]
    pub ignore_fields: Vec<String>,
    /// Analyse as of this time (RFC 3339, `YYYY-MM-DD HH:MM:SS` UTC, or unix s/ms).
    #[arg(long, value_name = "TIME", value_parser = parse_time_arg)]
    pub now: Option<Millis>,
}

impl AnalysisArgs {
    pub fn settings(&self) -> Settings {
        let mut s = Settings::new(self.now.unwrap_or_else(crate::model::time::now_ms));
        if let Some(w) = self.window {
            s.window_ms = w;
        }
        if let Some(w) = self.stuck_after {
            s.stuck_after_ms = w;
        }
        s.ignore_fields = self.ignore_fields.clone();
        s
    }
}

/// What limits an export, as typed: times are read in the operator's zone
/// once it is known (see `commands::export`).
#[derive(Args, Debug, Clone, Default)]
pub struct ExportLimits {
    /// Only rows decided at or after this time (a day such as 2026-11-29 is
    /// its start in the operator's zone).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only rows decided before this time (a day such as 2026-11-29 is
    /// included whole).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only rows recorded by this operator (repeatable).
    #[arg(long = "operator", value_name = "NAME")]
    pub operators: Vec<String>,
    /// Only rows about this item (dup:12), or every item of a kind (dup:,
    /// conflict:, stuck:, bot:); repeatable.
    #[arg(long = "item", value_name = "ITEM")]
    pub items: Vec<String>,
    /// Read --since and --until days in this IANA zone (default: TZ, else the system's).
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the triage summary (for people, or --json for scripts and CI).
    Report {
        /// The receipts database (default: the config file's).
        db: Option<Location>,
        /// The documented JSON format instead of the summary.
        #[arg(long)]
        json: bool,
        /// Show times in this IANA zone (default: TZ, else the system's); JSON stays UTC.
        #[arg(long, value_name = "ZONE")]
        tz: Option<String>,
        /// The period of the per-form table: 24h, 7d, 30d or all (every receipt).
        #[arg(long, default_value = "all", value_parser = parse_period)]
        period: Period,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Find any receipt: by field text, email, name, phone, key, scope, #number or time.
    Find {
        /// The receipts database.
        db: Location,
        /// What to find: words, #1907 or 1907, a time (10:00, yesterday 10:00, 10:00..11:00).
        #[arg(num_args = 1..)]
        query: Vec<String>,
        /// The documented JSON format (times RFC 3339 UTC).
        #[arg(long)]
        json: bool,
        /// Show and read times in this IANA zone (default: TZ, else the system's).
        #[arg(long, value_name = "ZONE")]
        tz: Option<String>,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Check schema and digest integrity; exit 1 when damaged rows are found.
    Check {
        /// The receipts database (default: the config file's).
        db: Option<Location>,
    },
    /// Record a decision on an item (dup:ID, conflict:ID, stuck:ID).
    Resolve {
        /// The receipts database.
        db: Location,
        /// The item to decide: dup:12, conflict:40, stuck:77 or bot:5 (see `report`).
        item: String,
        /// duplicate|correction|distinct|spam, original_stands|follow_up, completed|failed|still_pending
        decision: String,
        /// A note recorded with the decision.
        #[arg(long)]
        note: Option<String>,
        /// Name recorded with the decision (default: the login name).
        #[arg(long, value_name = "NAME")]
        operator: Option<String>,
        /// duplicate|correction: the receipt kept as the one to answer, a copy
        /// of the group (default: the most complete copy; for correction, the latest).
        #[arg(long, value_name = "ID")]
        keep: Option<i64>,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Reopen an item's decision: it is pending again (a reopening is appended to the log).
    Reopen {
        db: Location,
        /// The item whose decision to reopen (dup:ID, conflict:ID, stuck:ID, bot:ID).
        item: String,
        /// A note kept with the reopening.
        #[arg(long)]
        note: Option<String>,
        /// Name recorded with the reopening (default: the login name).
        #[arg(long)]
        operator: Option<String>,
    },
    /// Export the review log (CSV for spreadsheets, JSONL for scripts).
    Export {
        /// The receipts database whose review log to export (default: the config file's).
        db: Option<Location>,
        /// csv (safe to open in a spreadsheet) or jsonl (one JSON object a line).
        #[arg(long, value_enum, default_value_t = ExportFormat::Csv, hide_possible_values = true)]
        format: ExportFormat,
        /// Start the CSV with a UTF-8 BOM, so that Excel (on Japanese Windows too) reads it as UTF-8.
        #[arg(long)]
        bom: bool,
        /// Write here (via a temporary file and a rename) instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        limits: ExportLimits,
    },
    /// Read one JSON object on stdin and print its canonical text (or its digest).
    Canonical {
        /// Print the SHA-256 hex digest of the canonical text instead.
        #[arg(long)]
        digest: bool,
    },
    /// Create an empty receipts database (WAL mode).
    Init {
        /// The database file to create (its folder must exist).
        db: Location,
    },
    /// Run the intake server: the forms of a config take submissions over HTTP into DB.
    Serve {
        /// The receipts database to write (created when new; its folder must exist).
        db: Location,
        /// The forms and server settings (see assets/forms.toml).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// The log on stderr: text, or a JSON object a line (default: text on a terminal,
        /// JSON otherwise). RUST_LOG filters it (default: info).
        #[arg(long, value_enum, value_name = "FORMAT")]
        log_format: Option<crate::server::log::LogFormat>,
    },
    /// Send realistic traffic to a running `serve` over HTTP: second clicks, retries, reloads,
    /// two handlers, bots, follow-ups.
    Simulate(SimulateArgs),
    /// Print the config in effect: the config file read, and where each value comes from.
    Config(ConfigArgs),
    /// Erase a visitor's data on request, or receipts kept long enough: their
    /// fields become a tombstone, the log keeps who and why.
    Erase(EraseArgs),
    /// Write a realistic demo database.
    Demo {
        /// The database to write: a new or empty file (its folder must exist),
        /// or a PostgreSQL URL of a database with no receipts.
        #[arg(long, value_name = "DB", default_value = "receipt-review-demo.db")]
        out: Location,
        /// How many receipts to write.
        #[arg(long, value_name = "N", default_value_t = 2000)]
        receipts: usize,
        /// The seed of the random choices: the same seed writes the same database.
        #[arg(long, value_name = "N", default_value_t = 1)]
        seed: u64,
        /// The demo's "now": receipts are placed in the days before it.
        #[arg(long, value_name = "TIME", value_parser = parse_time_arg)]
        now: Option<Millis>,
    },
}

/// `config`'s options: those of the screen, to see how they combine with the file.
#[derive(Args, Debug, Clone)]
pub struct ConfigArgs {
    /// The receipts database.
    pub db: Option<Location>,
    /// Name recorded with each decision.
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// Show and read times in this IANA zone.
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `erase`'s options: whose receipts (exactly one way), and how.
#[derive(Args, Debug, Clone)]
#[command(group(
    clap::ArgGroup::new("who")
        .args(["email", "phone", "receipts", "older_than", "scrub"])
        .required(true)
        .multiple(false)
))]
pub struct EraseArgs {
    /// The receipts database (default: the config file's).
    pub db: Option<Location>,
    /// Every receipt whose email field holds this address (whole, any case).
    #[arg(long, value_name = "EMAIL")]
    pub email: Option<String>,
    /// Every receipt whose phone field holds this number (its digits).
    #[arg(long, value_name = "PHONE")]
    pub phone: Option<String>,
    /// These receipts (repeatable: --receipt 1907 --receipt 1908).
    #[arg(long = "receipt", value_name = "N")]
    pub receipts: Vec<crate::model::ReceiptId>,
    /// Every receipt older than this (e.g. 2y, 18mo, 90d, 12w).
    #[arg(long, value_name = "PERIOD", value_parser = parse_period_ms, allow_hyphen_values = true)]
    pub older_than: Option<Millis>,
    /// With --older-than: only this form's receipts (its scope).
    #[arg(long, value_name = "SCOPE", requires = "older_than")]
    pub scope: Option<String>,
    /// Only list what would be erased.
    #[arg(long)]
    pub dry_run: bool,
    /// Erase without asking first (for scripts).
    #[arg(long)]
    pub yes: bool,
    /// Name recorded with the erasure (default: the config file's operator, else the login name).
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// Why: the request's reference, kept in the review log (never the visitor's data).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Only make the bytes of earlier erasures leave the database's files.
    #[arg(long)]
    pub scrub: bool,
    /// Show times in this IANA zone.
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `simulate URL`'s options.
#[derive(Args, Debug, Clone)]
pub struct SimulateArgs {
    /// The server's address, e.g. http://127.0.0.1:8080 (or a form's, …/f/contact).
    pub url: String,
    /// The form to post to (default: the one the URL names, else contact).
    #[arg(long, value_name = "NAME", value_parser = parse_form_name)]
    pub form: Option<String>,
    /// Visitors a second (each sends one to five requests).
    #[arg(long, value_name = "N", default_value = "5", value_parser = parse_rate)]
    pub rate: f64,
    /// How long visitors keep arriving, in seconds (0: until Ctrl-C); their
    /// follow-ups are still sent afterwards.
    #[arg(long, value_name = "S", default_value_t = 60)]
    pub seconds: u64,
    /// The seed of the random choices (default: a new one, printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// The honeypot field bots fill (default: the form page's, else _gotcha).
    #[arg(long, value_name = "NAME", value_parser = parse_field_name)]
    pub honeypot: Option<String>,
    /// How long after the first post a reload posts again (and up to a quarter more).
    #[arg(long, value_name = "DURATION", default_value = "90s", value_parser = parse_duration_ms, allow_hyphen_values = true)]
    pub reload_after: Millis,
    /// How long after its first post a corrected resend or a second message comes (up to half more).
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_duration_ms, allow_hyphen_values = true)]
    pub resend_after: Millis,
    /// No progress line, only the summary.
    #[arg(long)]
    pub quiet: bool,
}

/// Visitors a second: more than 0, at most 1000.
fn parse_rate(text: &str) -> Result<f64, String> {
    let lang = i18n::current();
    match text.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 && r <= 1000.0 => Ok(r),
        _ => Err(t!(
            lang,
            "simulate.value.rate",
            text = crate::sanitize::inline(text, 40)
        )),
    }
}

/// A form's name as the server's routes take it: 1-64 of A-Z, a-z, 0-9, _ and -.
fn parse_form_name(text: &str) -> Result<String, String> {
    if crate::intake::key::valid_key(text).is_ok() {
        Ok(text.to_string())
    } else {
        Err(t!(
            i18n::current(),
            "simulate.value.form",
            text = crate::sanitize::inline(text, 40)
        ))
    }
}

/// A field's name: not empty, printable, at most 64 characters.
fn parse_field_name(text: &str) -> Result<String, String> {
    let ok = !text.trim().is_empty()
        && text.chars().count() <= 64
        && !text
            .chars()
            .any(|c| c.is_control() || crate::sanitize::is_unsafe(c));
    if ok {
        Ok(text.to_string())
    } else {
        Err(t!(
            i18n::current(),
            "simulate.value.field",
            text = crate::sanitize::inline(text, 40)
        ))
    }
}

/// `--format csv|jsonl`: the review log's own formats, by their own names.
impl ValueEnum for ExportFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &[ExportFormat::Csv, ExportFormat::Jsonl]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

/// `600`, `600s`, `90s`, `10m`, `1h`, `1500ms` → milliseconds, more than
/// zero. A bare number is seconds. The message is in the language of the
/// command line.
pub fn parse_duration_ms(text: &str) -> Result<Millis, String> {
    let lang = i18n::current();
    let shown = crate::sanitize::inline(text, 40);
    let t = text.trim();
    if t.starts_with('-') {
        return Err(t!(lang, "cli.value.duration_not_positive", text = shown));
    }
    let (value, unit) = crate::model::time::number_and_unit(t)
        .ok_or_else(|| t!(lang, "cli.value.not_a_duration", text = shown))?;
    let scale = crate::model::time::clock_unit_ms(unit)
        .ok_or_else(|| t!(lang, "cli.value.duration_unit", text = shown))?;
    let ms = value * scale;
    if !ms.is_finite() || ms > 366.0 * 86_400_000.0 {
        return Err(t!(lang, "cli.value.duration_range", text = shown));
    }
    if ms.round() < 1.0 {
        return Err(t!(lang, "cli.value.duration_not_positive", text = shown));
    }
    Ok(ms.round() as Millis)
}

/// A period to keep receipts: `2y`, `18mo`, `90d`, `12w` (a year is 365
/// days, a month 30), or any duration `--window` takes. Read as a form's
/// `retention` is (see `crate::erase::period`).
pub fn parse_period_ms(text: &str) -> Result<Millis, String> {
    crate::erase::period_ms(text).ok_or_else(|| {
        t!(
            i18n::current(),
            "cli.value.period_to_keep",
            text = crate::sanitize::inline(text, 40)
        )
    })
}

fn parse_time_arg(text: &str) -> Result<Millis, String> {
    crate::model::time::parse_text(text).map_err(|_| {
        t!(
            i18n::current(),
            "cli.value.time",
            text = crate::sanitize::inline(text, 40)
        )
    })
}

fn parse_period(text: &str) -> Result<Period, String> {
    Period::parse(text).map_err(|_| {
        t!(
            i18n::current(),
            "cli.value.period",
            text = crate::sanitize::inline(text, 40)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("600"), Ok(600_000));
        assert_eq!(parse_duration_ms("90s"), Ok(90_000));
        assert_eq!(parse_duration_ms("10m"), Ok(600_000));
        assert_eq!(parse_duration_ms("1h"), Ok(3_600_000));
        assert_eq!(parse_duration_ms("1500ms"), Ok(1_500));
        assert!(parse_duration_ms("ten").is_err());
        assert!(parse_duration_ms("5 weeks").is_err());
        assert!(parse_duration_ms("-5").is_err());
        assert!(parse_duration_ms("-5m").is_err());
        assert!(parse_duration_ms("0").is_err());
        assert!(parse_duration_ms("0.0001s").is_err());
        assert_eq!(parse_duration_ms("1ms"), Ok(1));
    }

    #[test]
    fn periods_to_keep() {
        const DAY: Millis = 86_400_000;
        assert_eq!(parse_period_ms("2y"), Ok(730 * DAY));
        assert_eq!(parse_period_ms("18mo"), Ok(540 * DAY));
        assert_eq!(parse_period_ms("90d"), Ok(90 * DAY));
        assert_eq!(parse_period_ms("12w"), Ok(84 * DAY));
        assert_eq!(parse_period_ms("36h"), Ok(36 * 3_600_000));
        for bad in ["0d", "-2y", "y", "2 years", "500y"] {
            assert!(parse_period_ms(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tui_is_the_default_and_commands_parse() {
        let cli = Cli::try_parse_from(["rr", "x.db", "--operator", "aiko"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.tui.db, Some(Location::from("x.db")));
        let cli =
            Cli::try_parse_from(["rr", "report", "x.db", "--json", "--window", "5m"]).unwrap();
        match cli.command {
            Some(Command::Report { json, analysis, .. }) => {
                assert!(json);
                assert_eq!(analysis.settings().window_ms, 300_000);
            }
            other => panic!("{other:?}"),
        }
    }
}
