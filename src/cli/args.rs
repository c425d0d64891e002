//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::forms::Period;
use crate::model::{Millis, Settings};
use crate::review::ExportFormat;

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
}

#[derive(Args, Debug)]
pub struct TuiArgs {
    /// The receipts database to review.
    pub db: Option<PathBuf>,
    /// Write a fresh demo database to a temporary folder and open it.
    #[arg(long, conflicts_with = "db")]
    pub demo: bool,
    /// Name recorded with each decision (default: the login name).
    #[arg(long)]
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

/// The options every analysing command shares.
#[derive(Args, Debug, Clone, Default)]
pub struct AnalysisArgs {
    /// Copies further apart than this are not duplicates (e.g. 600, 90s, 10m, 1h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms)]
    pub window: Option<Millis>,
    /// An in_flight receipt older than this is stuck (e.g. 300, 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms)]
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

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the triage summary (for people, or --json for scripts and CI).
    Report {
        db: PathBuf,
        /// The documented JSON format instead of the summary.
        #[arg(long)]
        json: bool,
        /// Show times in this IANA zone (default: TZ, else the system's); JSON stays UTC.
        #[arg(long, value_name = "ZONE")]
        tz: Option<String>,
        /// The period of the per-form table: 24h, 7d, 30d or all (every receipt).
        #[arg(long, default_value = "all", value_parser = Period::parse)]
        period: Period,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Find any receipt: by field text, email, name, phone, key, scope, #number or time.
    Find {
        db: PathBuf,
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
        db: PathBuf,
        #[command(flatten)]
        analysis: AnalysisArgs,
    },
    /// Record a decision on an item (dup:ID, conflict:ID, stuck:ID).
    Resolve {
        db: PathBuf,
        item: String,
        /// duplicate|correction|distinct|spam, original_stands|follow_up, completed|failed|still_pending
        decision: String,
        #[arg(long)]
        note: Option<String>,
        #[arg(long)]
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
        db: PathBuf,
        /// The item whose decision to reopen (dup:ID, conflict:ID, stuck:ID, bot:ID).
        item: String,
        /// A note kept with the reopening.
        #[arg(long)]
        note: Option<String>,
        /// Name recorded with the reopening (default: the login name).
        #[arg(long)]
        operator: Option<String>,
    },
    /// Export the review log.
    Export {
        db: PathBuf,
        #[arg(long, value_enum, default_value_t = ExportFormat::Csv)]
        format: ExportFormat,
        /// Write here (via a temporary file and a rename) instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Read one JSON object on stdin and print its canonical text (or its digest).
    Canonical {
        /// Print the SHA-256 hex digest of the canonical text instead.
        #[arg(long)]
        digest: bool,
    },
    /// Create an empty receipts database (WAL mode).
    Init { db: PathBuf },
    /// Write a realistic demo database.
    Demo {
        #[arg(long, default_value = "receipt-review-demo.db")]
        out: PathBuf,
        #[arg(long, default_value_t = 2000)]
        receipts: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The demo's "now": receipts are placed in the days before it.
        #[arg(long, value_name = "TIME", value_parser = parse_time_arg)]
        now: Option<Millis>,
    },
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

/// `600`, `600s`, `90s`, `10m`, `1h`, `1500ms` → milliseconds. A bare number is seconds.
pub fn parse_duration_ms(text: &str) -> Result<Millis, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("not a duration: {text:?} (try 600, 90s, 10m or 1h)"))?;
    let scale = match unit.trim() {
        "" | "s" => 1000.0,
        "ms" => 1.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        _ => {
            return Err(format!(
                "unknown duration unit in {text:?} (use ms, s, m or h)"
            ));
        }
    };
    let ms = value * scale;
    if !ms.is_finite() || !(0.0..=366.0 * 86_400_000.0).contains(&ms) {
        return Err(format!("duration out of range: {text:?}"));
    }
    Ok(ms.round() as Millis)
}

fn parse_time_arg(text: &str) -> Result<Millis, String> {
    crate::model::time::parse_text(text)
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
    }

    #[test]
    fn tui_is_the_default_and_commands_parse() {
        let cli = Cli::try_parse_from(["rr", "x.db", "--operator", "aiko"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.tui.db.as_deref(), Some(std::path::Path::new("x.db")));
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
