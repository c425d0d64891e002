//! `erase DB (--email X | --phone X | --receipt N… | --older-than P | --scrub)`:
//! lists the receipts it takes, asks (or takes `--yes`), erases them in one
//! transaction with one review-log row, and says whether the old bytes left
//! the database's files. Exit 0 when erased (or listed, `--dry-run`); 1 when
//! nothing matched, the operator said no, or the bytes could not be scrubbed
//! yet; 2 for unusable input (nothing erased).

use std::io::{BufRead, IsTerminal, Write};

use super::args::EraseArgs;
use super::error::{Finding, unusable};
use super::{operator, output};
use crate::erase::{Chosen, Plan, Who};
use crate::i18n::{self, Lang};
use crate::model::{Zone, time};
use crate::sanitize::inline;
use crate::storage::{self, Access, Location, Scrubbed};
use crate::t;

pub fn run(db: &Location, args: &EraseArgs) -> anyhow::Result<i32> {
    let lang = i18n::current();
    let zone = Zone::operator(args.tz.as_deref()).map_err(unusable)?;
    let access = if args.dry_run {
        Access::ReadOnly
    } else {
        Access::PreferWrite
    };
    let mut database = storage::open_database(db, access)?;
    if !args.dry_run
        && let Some(reason) = database.read_only_reason()
    {
        return Err(unusable(t!(
            lang,
            "erase.read_only",
            reason = inline(reason, 200)
        )));
    }
    if database.source().is_view() {
        return Err(unusable(t!(lang, "erase.view")));
    }
    if args.scrub {
        return scrub_only(&mut *database, lang);
    }
    let operator = operator::resolve(args.operator.clone())?;
    let now_ms = args.analysis.now.unwrap_or_else(time::now_ms);
    let who = who(args, now_ms);
    let plan = Plan::of(&*database, &who, &args.analysis.settings())?;
    let mut text = listing(&plan, &who, zone, lang);
    let selection = &plan.selection;
    if !selection.missing.is_empty() {
        output::print(&text)?;
        let numbers = numbers(&selection.missing);
        return Err(unusable(t!(
            lang,
            "erase.no_such_receipt",
            numbers = numbers
        )));
    }
    if plan.is_empty() {
        output::print(&text)?;
        return Err(anyhow::Error::new(Finding(
            t!(lang, "erase.nothing").into(),
        )));
    }
    if args.dry_run {
        text.push_str(t!(lang, "erase.dry_run"));
        text.push('\n');
        output::print(&text)?;
        return Ok(0);
    }
    let note = args
        .note
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let Some(note) = note else {
        output::print(&text)?;
        return Err(unusable(t!(lang, "erase.note_needed")));
    };
    if let Some(value) = crate::erase::note_names(note, &plan.erased_values()) {
        output::print(&text)?;
        return Err(unusable(t!(
            lang,
            "erase.note_names_visitor",
            value = inline(value, 60)
        )));
    }
    output::print(&text)?;
    if !args.yes && !confirmed(selection.chosen.len(), lang)? {
        return Err(anyhow::Error::new(Finding(
            t!(lang, "erase.not_confirmed").into(),
        )));
    }
    let erased = plan.erase(&mut *database, &operator, Some(note.to_string()), now_ms)?;
    let mut said = t!(
        lang,
        "erase.done",
        n = erased.entry.receipt_ids.len(),
        item = inline(&erased.entry.item, 40),
        entry = erased.entry.id,
        operator = inline(&operator, 40)
    );
    said.push('\n');
    match erased.scrubbed {
        Scrubbed::Done => {
            said.push_str(&t!(lang, "erase.scrubbed", path = db.shown()));
            said.push('\n');
            output::print(&said)?;
            Ok(0)
        }
        Scrubbed::NotNow(why) => {
            output::print(&said)?;
            Err(anyhow::Error::new(Finding(t!(
                lang,
                "erase.not_scrubbed",
                why = inline(&why, 300)
            ))))
        }
    }
}

fn who(args: &EraseArgs, now_ms: i64) -> Who {
    if let Some(email) = &args.email {
        Who::Email(email.clone())
    } else if let Some(phone) = &args.phone {
        Who::Phone(phone.clone())
    } else if let Some(period) = args.older_than {
        Who::OlderThan {
            before_ms: now_ms - period,
            scope: args.scope.clone(),
        }
    } else {
        Who::Receipts(args.receipts.clone())
    }
}

/// `erase --scrub`: the bytes of earlier erasures, out of the files.
fn scrub_only(database: &mut dyn storage::Storage, lang: Lang) -> anyhow::Result<i32> {
    match database.scrub()? {
        Scrubbed::Done => {
            output::print(&format!(
                "{}\n",
                t!(lang, "erase.scrubbed", path = database.location().shown())
            ))?;
            Ok(0)
        }
        Scrubbed::NotNow(why) => Err(anyhow::Error::new(Finding(t!(
            lang,
            "erase.not_scrubbed",
            why = inline(&why, 300)
        )))),
    }
}

/// What the erasure takes, one receipt a line, before anything is done.
fn listing(plan: &Plan, who: &Who, zone: Zone, lang: Lang) -> String {
    let selection = &plan.selection;
    let n = selection.chosen.len();
    let mut text = match who {
        Who::Email(email) => t!(
            lang,
            "erase.heading_email",
            n = n,
            email = inline(email, 80)
        ),
        Who::Phone(phone) => t!(
            lang,
            "erase.heading_phone",
            n = n,
            phone = inline(phone, 40)
        ),
        Who::Receipts(_) => t!(lang, "erase.heading_numbers", n = n),
        Who::OlderThan { before_ms, scope } => match scope {
            Some(scope) => t!(
                lang,
                "erase.heading_older_in",
                n = n,
                before = zone.format_named(*before_ms),
                scope = inline(scope, 60)
            ),
            None => t!(
                lang,
                "erase.heading_older",
                n = n,
                before = zone.format_named(*before_ms)
            ),
        },
    };
    text.push('\n');
    for (chosen, with) in selection.chosen.iter().zip(&plan.with) {
        text.push_str(&line(chosen, with, zone, lang));
        text.push('\n');
    }
    if !selection.already_erased.is_empty() {
        text.push_str(&t!(
            lang,
            "erase.already_erased",
            numbers = numbers(&selection.already_erased)
        ));
        text.push('\n');
    }
    text
}

fn line(c: &Chosen, with: &[i64], zone: Zone, lang: Lang) -> String {
    let when = c
        .created_ms
        .map(|t| zone.format_named(t))
        .unwrap_or_else(|| t!(lang, "find.time_unreadable").into());
    let sender: Vec<String> = [&c.name, &c.email, &c.phone]
        .into_iter()
        .flatten()
        .map(|v| inline(v, 60))
        .collect();
    let mut line = format!(
        "  #{}  {}  {}  {}  {}",
        c.id,
        when,
        inline(&c.scope, 48),
        crate::model::ReceiptState::say_in(&c.state, lang).replace('_', " "),
        sender.join("  ")
    );
    if with.len() >= 2 {
        line.push_str("  ");
        line.push_str(&t!(
            lang,
            "erase.in_group",
            item = format!("dup:{}", with[0])
        ));
    }
    line
}

fn numbers(ids: &[i64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Asks on the terminal (No unless `y` or `yes`); without one, `--yes` is needed.
fn confirmed(n: usize, lang: Lang) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Err(unusable(t!(lang, "erase.needs_yes")));
    }
    let mut err = std::io::stderr().lock();
    write!(err, "{} ", t!(lang, "erase.ask", n = n))?;
    err.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
