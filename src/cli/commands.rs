//! The subcommands. Each opens what it needs, does one thing, and returns its exit code.

use std::io::{IsTerminal, Read};
use std::path::Path;

use anyhow::Context;

use super::args::{AnalysisArgs, ExportLimits, TuiArgs};
use super::error::{Finding, unusable, usage};
use super::{operator, output};
use crate::forms::Period;
use crate::i18n;
use crate::intake::canonical;
use crate::model::{Millis, Zone};
use crate::reading;
use crate::report;
use crate::review::{self, ExportFile, ExportFormat};
use crate::sanitize::inline;
use crate::storage::Location;
use crate::storage::error::show_path;
use crate::storage::{self, Access, Connections, Storage};
use crate::t;
use crate::tui::{self, Open, ScreenConfig};

/// `receipt-review [DB]` and `receipt-review --demo`: the review screen.
pub fn screen(args: &TuiArgs, desk: &super::config::DeskConfig) -> anyhow::Result<i32> {
    let operator = operator::resolve(args.operator.clone())?;
    let open = match (&args.db, args.demo) {
        (Some(db), _) => Open::Database(db.clone()),
        (None, true) => Open::Demo,
        (None, false) => {
            return Err(unusable(t!(i18n::current(), "commands.no_database")));
        }
    };
    let zone = zone(args.tz.as_deref())?;
    tui::run(ScreenConfig {
        zone,
        open,
        operator,
        read_only: args.read_only,
        settings: args.analysis.settings(),
        fixed_now: args.analysis.now,
        lang: i18n::current(),
        palette: desk.palette(),
        keymap: desk.keymap().clone(),
    })
}

/// The operator's zone (`--tz`, else `TZ`, else the system's); an unknown
/// one is bad usage.
fn zone(tz: Option<&str>) -> anyhow::Result<Zone> {
    Zone::operator(tz).map_err(unusable)
}

pub fn report(
    db: &Location,
    json: bool,
    tz: Option<&str>,
    period: Period,
    analysis: &AnalysisArgs,
) -> anyhow::Result<i32> {
    let zone = zone(tz)?;
    let database = storage::open_database(db, Access::ReadOnly)?;
    let snap = reading::read(&*database, analysis.settings(), &mut |_| {})?;
    if json {
        output::print_with(|out| report::json::write_for(&snap, period, out))?;
    } else {
        output::print(&report::text::render_in(
            &snap,
            zone,
            period,
            i18n::current(),
        ))?;
    }
    // The process ends now, and the system takes its memory back at once:
    // freeing a million receipts' analysis piece by piece took 20-30 ms.
    // (It holds no file or connection: the database is closed as usual.)
    std::mem::forget(snap);
    Ok(0)
}

/// `find DB QUERY`: every receipt searched; the analysis is read only when
/// something was found, around the hits, for the items they belong to.
pub fn find(
    db: &Location,
    query: &str,
    json: bool,
    tz: Option<&str>,
    analysis: &AnalysisArgs,
) -> anyhow::Result<i32> {
    let zone = zone(tz)?;
    let settings = analysis.settings();
    let query = crate::find::parse(query, zone, settings.now_ms).map_err(|e| unusable(e.0))?;
    let database = storage::open_database(db, Access::ReadOnly)?;
    let (scan, timeline) = crate::find::search_with_timeline(&*database, &query, settings.now_ms)?;
    let outcome = if scan.matches.is_empty() {
        crate::find::miss(&query, scan, &settings)
    } else {
        let snap = crate::find::around::read_around(&*database, &scan, &timeline, &settings)?;
        let outcome = crate::find::assemble(&query, scan, &snap);
        // As for the report: the process ends now (see there).
        std::mem::forget(snap);
        outcome
    };
    if json {
        output::print(&crate::find::json::render(&outcome))?;
    } else {
        output::print(&crate::find::text::render(&outcome, zone, i18n::current()))?;
    }
    Ok(0)
}

/// Damage is a property of each row alone: no analysis option changes it.
pub fn check(db: &Location) -> anyhow::Result<i32> {
    let lang = i18n::current();
    let database = storage::open_database(db, Access::ReadOnly)?;
    let problems = database.schema_problems();
    let settings = crate::model::Settings::new(crate::model::time::now_ms());
    let snap = reading::read(&*database, settings, &mut |_| {})?;
    let mut text = String::new();
    for p in &problems {
        text.push_str(&t!(lang, "check.schema", problem = inline(p, 200)));
        text.push('\n');
    }
    for d in &snap.triage.damaged {
        text.push_str(&t!(
            lang,
            "check.damaged",
            id = d.receipt_id,
            reason = d.reason.label_in(lang),
            detail = inline(&d.detail.message(lang), 200)
        ));
        text.push('\n');
    }
    let total = report::receipt_count(&snap);
    let damaged = snap.triage.damaged.len();
    text.push_str(&t!(
        lang,
        "check.summary",
        total = total,
        damaged = damaged,
        problems = problems.len()
    ));
    text.push('\n');
    output::print(&text)?;
    Ok(if damaged > 0 || !problems.is_empty() {
        1
    } else {
        0
    })
}

pub fn resolve(
    db: &Location,
    item: &str,
    decision: &str,
    note: Option<String>,
    operator: Option<String>,
    keep: Option<crate::model::ReceiptId>,
    analysis: &AnalysisArgs,
) -> anyhow::Result<i32> {
    let operator = operator::resolve(operator)?;
    let mut database = storage::open_database(db, Access::PreferWrite)?;
    if let Some(reason) = database.read_only_reason() {
        return Err(unusable(t!(
            i18n::current(),
            "commands.cannot_record",
            reason = reason
        )));
    }
    let settings = analysis.settings();
    // A group's copies are read too: the copy kept by default is the most complete.
    let snap = if matches!(review::parse_item(item), Ok((review::Kind::Duplicate, _))) {
        reading::read_with_receipts(&*database, settings.clone(), &mut |_| {})?
    } else {
        reading::read(&*database, settings.clone(), &mut |_| {})?
    };
    let target = reading::find_item(&snap, item).ok_or_else(|| missing_item(&*database, item))?;
    let decision =
        review::Decision::parse_for(target.kind, decision).map_err(|e| unusable(e.to_string()))?;
    let kept = super::decisions::kept_copy(&snap, item, &target, decision, keep)?;
    let request = review::DecisionRequest {
        item: item.to_string(),
        kind: target.kind,
        decision,
        operator,
        note,
        receipt_ids: target.receipt_ids,
        now_ms: crate::model::time::now_ms(),
        expected_last: snap.review(item).last_log_id,
        kept,
    };
    let current = snap.review(item);
    if current.resolved {
        return Err(already_decided(
            item,
            current.operator.as_deref().unwrap_or("?"),
            &current
                .decided_at_ms
                .map(crate::model::time::format_rfc3339)
                .unwrap_or_default(),
            current.decision.as_deref().unwrap_or("?"),
        ));
    }
    let recorded = review::decide(&mut *database, &request)?;
    let lang = i18n::current();
    let line = match recorded.entry.kept {
        Some(kept) => super::decisions::recorded_keeping(
            item,
            request.decision,
            &request.operator,
            kept,
            recorded.entry.id,
        ),
        None => t!(
            lang,
            "commands.recorded",
            item = inline(item, 40),
            decision = request.decision.label_in(lang),
            operator = inline(&request.operator, 40),
            entry = recorded.entry.id
        ),
    };
    output::print(&format!("{line}\n"))?;
    Ok(0)
}

/// Somebody decided first: nothing was recorded (exit 1).
fn already_decided(item: &str, operator: &str, at: &str, decision: &str) -> anyhow::Error {
    let lang = i18n::current();
    // The stored name, in plain words where it is one of ours.
    let decision = match review::Decision::parse(decision) {
        Some(d) => d.label_in(lang).to_string(),
        None => inline(decision, 40),
    };
    anyhow::Error::new(Finding(t!(
        lang,
        "commands.already_decided",
        item = inline(item, 40),
        operator = inline(operator, 40),
        at = inline(at, 40),
        decision = decision,
    )))
}

/// Why `item` is not among the items of the analysis. A stuck receipt leaves
/// the list as soon as a colleague marks it completed or failed, so the log is
/// asked first: the operator is told who decided (exit 1), as for any other
/// item decided first. Only an item that never was one is bad usage (exit 2).
fn missing_item(database: &dyn Storage, item: &str) -> anyhow::Error {
    if let Ok(Some(latest)) = review::latest_entry(database, item)
        && !latest.is_reopening()
    {
        return already_decided(
            item,
            &latest.operator,
            &latest.decided_at,
            latest.decision.as_str(),
        );
    }
    if let Ok((review::Kind::Stuck, id)) = review::parse_item(item)
        && let Some(state) = receipt_state(database, id)
        && state != "in_flight"
    {
        let lang = i18n::current();
        return anyhow::Error::new(Finding(t!(
            lang,
            "error.decide.not_in_flight",
            receipt_id = id,
            state = crate::model::ReceiptState::say_in(&inline(&state, 40), lang)
        )));
    }
    unusable(t!(
        i18n::current(),
        "commands.no_item",
        item = inline(item, 40)
    ))
}

/// The receipt's state, when the database has one to read.
fn receipt_state(database: &dyn Storage, id: i64) -> Option<String> {
    let mut session = database.begin_read(Connections::One).ok()?;
    let found = session.receipt_state(id);
    // Only read: how the read ends changes nothing.
    let _ = session.end();
    found.ok().flatten().and_then(|stamp| stamp.state)
}

pub fn export(
    db: &Location,
    format: ExportFormat,
    bom: bool,
    out: Option<&Path>,
    limits: &ExportLimits,
) -> anyhow::Result<i32> {
    if bom && format != ExportFormat::Csv {
        return Err(usage(
            "export",
            t!(crate::i18n::current(), "cli.export.bom_needs_csv"),
        ));
    }
    let filter = super::export_limits::filter(limits, crate::model::time::now_ms())?;
    let file = ExportFile { format, bom };
    let database = storage::open_database(db, Access::ReadOnly)?;
    match out {
        Some(path) => {
            let rows = review::export_to_file_with(&*database, file, &filter, path).with_context(
                || {
                    t!(
                        i18n::current(),
                        "commands.cannot_export",
                        path = path.display()
                    )
                },
            )?;
            eprintln!(
                "{}",
                t!(
                    i18n::current(),
                    "commands.exported",
                    rows = rows,
                    path = show_path(path)
                )
            );
        }
        None => {
            let mut buffer = Vec::new();
            let terminal = std::io::stdout().is_terminal();
            // A BOM is for a file Excel opens, never for a person's screen.
            let file = ExportFile {
                bom: bom && !terminal,
                ..file
            };
            review::export_with(&*database, file, &filter, &mut buffer)?;
            let text = String::from_utf8_lossy(&buffer);
            if terminal {
                // A person reads it: a cell's control, escape or bidi
                // characters are shown as visible escapes, never acted on.
                // A pipe or a file gets the faithful bytes.
                output::print(&crate::sanitize::clean_lines(&text).join("\n"))?;
            } else {
                output::print(&text)?;
            }
        }
    }
    Ok(0)
}

/// Input larger than this is refused rather than read into memory.
const CANONICAL_INPUT_LIMIT: u64 = 64 * 1024 * 1024;

pub fn canonical(digest: bool) -> anyhow::Result<i32> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(CANONICAL_INPUT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| t!(i18n::current(), "commands.stdin_unreadable"))?;
    if bytes.len() as u64 > CANONICAL_INPUT_LIMIT {
        return Err(unusable(t!(i18n::current(), "commands.input_too_large")));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| unusable(t!(i18n::current(), "commands.input_not_utf8")))?;
    let canon = canonical::canonical_text(&text)?;
    if digest {
        output::print(&format!("{}\n", canonical::sha256_hex(&canon)))?;
    } else {
        output::print(&format!("{canon}\n"))?;
    }
    Ok(0)
}

pub fn init(db: &Location) -> anyhow::Result<i32> {
    // A folder that is not there is the caller's mistake (exit 2), said
    // before anything is tried.
    if let Some(path) = db.file() {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(usage(
                "init",
                t!(
                    crate::i18n::current(),
                    "cli.init.no_folder",
                    path = db.shown(),
                    folder = show_path(folder)
                ),
            ));
        }
    }
    storage::init(db)?;
    let said = if db.is_postgres() {
        t!(
            i18n::current(),
            "commands.created_shared",
            path = db.shown()
        )
    } else {
        t!(i18n::current(), "commands.created", path = db.shown())
    };
    eprintln!("{said}");
    Ok(0)
}

/// The demo writes only a new (or empty) file, into a folder that exists:
/// anything else is the caller's mistake, not a failure (exit 2).
fn refuse_unusable_demo_path(out: &Location) -> anyhow::Result<()> {
    let Some(out) = out.file() else {
        return Ok(());
    };
    if let Ok(meta) = std::fs::metadata(out)
        && (meta.is_dir() || meta.len() > 0)
    {
        return Err(unusable(t!(
            i18n::current(),
            "commands.demo_exists",
            path = show_path(out)
        )));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(unusable(t!(
            i18n::current(),
            "commands.demo_no_folder",
            path = show_path(out),
            folder = show_path(parent)
        )));
    }
    Ok(())
}

pub fn demo(
    out: &Location,
    receipts: usize,
    seed: u64,
    now: Option<Millis>,
) -> anyhow::Result<i32> {
    let options = crate::demo::DemoOptions {
        receipts,
        seed,
        now_ms: now.unwrap_or_else(crate::model::time::now_ms),
    };
    refuse_unusable_demo_path(out)?;
    let summary = crate::demo::generate(out, &options)?;
    let lang = i18n::current();
    eprintln!(
        "{}",
        t!(
            lang,
            "commands.demo_planted",
            groups = summary.groups.len(),
            follow_ups = summary.follow_ups.len(),
            conflicts = summary.conflicts.len(),
            stuck = summary.stuck.len(),
            bots = summary.bots.len(),
            damaged = summary.damaged.len(),
            receipts = summary.receipts
        )
    );
    eprintln!("{}", t!(lang, "commands.demo_wrote", path = out.shown()));
    Ok(0)
}
