//! The subcommands. Each opens what it needs, does one thing, and returns its exit code.

use std::io::Read;
use std::path::Path;

use anyhow::Context;

use super::args::{AnalysisArgs, ExportFormat};
use super::error::{Found, unusable};
use super::{operator, output};
use crate::intake::canonical;
use crate::report;
use crate::review;
use crate::sanitize::inline;
use crate::snapshot;
use crate::storage::{self, Access, Database};
use crate::triage::model::Millis;

pub fn report(db: &Path, json: bool, analysis: &AnalysisArgs) -> anyhow::Result<i32> {
    let database = Database::open(db, Access::ReadOnly)?;
    let snap = snapshot::read(&database, analysis.settings(), &mut |_| {})?;
    if json {
        output::print_with(|out| report::json::write(&snap, out))?;
    } else {
        output::print(&report::text::render(&snap))?;
    }
    Ok(0)
}

pub fn check(db: &Path, analysis: &AnalysisArgs) -> anyhow::Result<i32> {
    let database = Database::open(db, Access::ReadOnly)?;
    let problems = storage::schema_problems(&database);
    let snap = snapshot::read(&database, analysis.settings(), &mut |_| {})?;
    let mut text = String::new();
    for p in &problems {
        text.push_str(&format!("schema: {}\n", inline(p, 200)));
    }
    for d in &snap.triage.damaged {
        text.push_str(&format!(
            "damaged receipt {}: {}: {}\n",
            d.receipt_id,
            d.reason.as_str(),
            inline(&d.detail, 200)
        ));
    }
    let total = report::receipt_count(&snap);
    let damaged = snap.triage.damaged.len();
    text.push_str(&format!(
        "{} receipts checked: {} damaged, {} schema problem(s)\n",
        total,
        damaged,
        problems.len()
    ));
    output::print(&text)?;
    Ok(if damaged > 0 || !problems.is_empty() {
        1
    } else {
        0
    })
}

pub fn resolve(
    db: &Path,
    item: &str,
    decision: &str,
    note: Option<String>,
    operator: Option<String>,
    analysis: &AnalysisArgs,
) -> anyhow::Result<i32> {
    let operator = operator::resolve(operator)?;
    let mut database = Database::open(db, Access::PreferWrite)?;
    if let Some(reason) = database.read_only_reason() {
        return Err(unusable(format!("cannot record a decision: {reason}")));
    }
    let settings = analysis.settings();
    let snap = snapshot::read(&database, settings.clone(), &mut |_| {})?;
    let target = snapshot::find_item(&snap, item).ok_or_else(|| {
        unusable(format!(
            "no item {} in this database (items look like dup:12, conflict:40, stuck:77; see `report`)",
            inline(item, 40)
        ))
    })?;
    let request = review::DecisionRequest {
        item: item.to_string(),
        kind: target.kind,
        decision: review::Decision::parse_for(target.kind, decision)
            .map_err(|e| unusable(e.to_string()))?,
        operator,
        note,
        receipt_ids: target.receipt_ids,
        now_ms: crate::time::now_ms(),
        expected_last: snap.review(item).last_log_id,
    };
    let current = snap.review(item);
    if current.resolved {
        return Err(anyhow::Error::new(Found(format!(
            "{} already decided by {} at {} ({})",
            inline(item, 40),
            inline(current.operator.as_deref().unwrap_or("?"), 40),
            current
                .decided_at_ms
                .map(crate::time::format_rfc3339)
                .unwrap_or_default(),
            current.decision.as_deref().unwrap_or("?"),
        ))));
    }
    let recorded = review::decide(database.conn_mut(), &request)?;
    output::print(&format!(
        "{}: {} recorded by {} (log entry {})\n",
        inline(item, 40),
        request.decision.as_str(),
        inline(&request.operator, 40),
        recorded.entry.id
    ))?;
    Ok(0)
}

pub fn export(db: &Path, format: ExportFormat, out: Option<&Path>) -> anyhow::Result<i32> {
    let database = Database::open(db, Access::ReadOnly)?;
    let format = match format {
        ExportFormat::Csv => review::ExportFormat::Csv,
        ExportFormat::Jsonl => review::ExportFormat::Jsonl,
    };
    match out {
        Some(path) => {
            let rows = review::export_to_file(database.conn(), format, path)
                .with_context(|| format!("cannot export to {}", path.display()))?;
            eprintln!("wrote {rows} log entries to {}", path.display());
        }
        None => {
            let mut buffer = Vec::new();
            review::export(database.conn(), format, &mut buffer)?;
            output::print(&String::from_utf8_lossy(&buffer))?;
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
        .context("cannot read standard input")?;
    if bytes.len() as u64 > CANONICAL_INPUT_LIMIT {
        return Err(unusable("input is larger than 64 MiB"));
    }
    let text = String::from_utf8(bytes).map_err(|_| unusable("input is not UTF-8"))?;
    let canon = canonical::canonical_text(&text)?;
    if digest {
        output::print(&format!("{}\n", canonical::sha256_hex(&canon)))?;
    } else {
        output::print(&format!("{canon}\n"))?;
    }
    Ok(0)
}

pub fn init(db: &Path) -> anyhow::Result<i32> {
    storage::init(db)?;
    eprintln!("created {} (WAL mode)", db.display());
    Ok(0)
}

pub fn demo(out: &Path, receipts: usize, seed: u64, now: Option<Millis>) -> anyhow::Result<i32> {
    let options = crate::demo::DemoOptions {
        receipts,
        seed,
        now_ms: now.unwrap_or_else(crate::time::now_ms),
    };
    let summary = crate::demo::generate(out, &options)?;
    eprintln!(
        "planted {} duplicate groups, {} follow-ups hours later, {} conflicts, {} stuck, {} bot receipts, {} damaged rows among {} receipts",
        summary.groups.len(),
        summary.follow_ups.len(),
        summary.conflicts.len(),
        summary.stuck.len(),
        summary.bots.len(),
        summary.damaged.len(),
        summary.receipts
    );
    eprintln!(
        "wrote {}; try: receipt-review report {}",
        out.display(),
        out.display()
    );
    Ok(0)
}
