//! `report --json`'s `forms`: one object per scope, in scope order.

use serde::Serialize;

use crate::forms::{FormRow, Forms};
use crate::model::ReceiptId;

#[derive(Serialize)]
pub struct FormOut<'a> {
    scope: &'a str,
    receipts: u64,
    duplicate_groups: usize,
    by_class: ByClass,
    exact: usize,
    near: usize,
    copies: usize,
    keyless: u64,
    replays: u64,
    /// Absent when the database does not count absorbed copies.
    #[serde(skip_serializing_if = "Option::is_none")]
    absorbed: Option<u64>,
    conflicts: usize,
    stuck: usize,
    bots: usize,
    pathways: Vec<PathwayOut<'a>>,
}

#[derive(Serialize)]
struct ByClass {
    simultaneous: usize,
    seconds: usize,
    minutes: usize,
}

#[derive(Serialize)]
struct PathwayOut<'a> {
    pathway: &'static str,
    count: u64,
    /// The item that shows it (`dup:12`), or null.
    example: Option<&'a str>,
    example_receipt: Option<ReceiptId>,
    evidence: &'a str,
    advice: &'static str,
}

pub fn forms_out(forms: &Forms) -> Vec<FormOut<'_>> {
    forms
        .rows
        .iter()
        .map(|r| form_out(r, forms.absorbed_counted))
        .collect()
}

fn form_out(r: &FormRow, absorbed_counted: bool) -> FormOut<'_> {
    let [simultaneous, seconds, minutes] = r.by_class;
    FormOut {
        scope: &r.scope,
        receipts: r.receipts,
        duplicate_groups: r.duplicate_groups,
        by_class: ByClass {
            simultaneous,
            seconds,
            minutes,
        },
        exact: r.exact,
        near: r.near,
        copies: r.copies,
        keyless: r.keyless,
        replays: r.replays,
        absorbed: absorbed_counted.then_some(r.absorbed),
        conflicts: r.conflicts,
        stuck: r.stuck,
        bots: r.bots,
        pathways: r
            .pathways
            .iter()
            .map(|f| PathwayOut {
                pathway: f.pathway.id(),
                count: f.count,
                example: f.example.as_deref(),
                example_receipt: f.example_receipt,
                evidence: &f.evidence,
                advice: f.advice_in(crate::i18n::Lang::En),
            })
            .collect(),
    }
}
