//! The per-form table of `report` (text): one row per scope, then each
//! form's likely pathways with their count, an example item and the fix.

use std::fmt::Write as _;

use crate::forms::{FormRow, Forms};

/// How many forms' pathways the text shows.
const PATHWAYS_SHOWN: usize = 10;
use crate::sanitize::inline;

/// The section, starting with a blank line.
pub fn render(forms: &Forms) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nForms ({}; --period 24h|7d|30d|all)",
        forms.period.label()
    );
    if forms.rows.is_empty() {
        let _ = writeln!(out, "  no receipts in this period");
        return out;
    }
    let _ = writeln!(
        out,
        "  {:<28} {:>8} {:>6} {:>13} {:>10} {:>12} {:>7} {:>9} {:>5} {:>5}",
        "form",
        "receipts",
        "groups",
        "sim/sec/min",
        "exact/near",
        "no key",
        "replays",
        "conflicts",
        "stuck",
        "bots"
    );
    for r in &forms.rows {
        let [sim, sec, min] = r.by_class;
        let _ = writeln!(
            out,
            "  {:<28} {:>8} {:>6} {:>13} {:>10} {:>12} {:>7} {:>9} {:>5} {:>5}",
            inline(&r.scope, 28),
            r.receipts,
            r.duplicate_groups,
            format!("{sim}/{sec}/{min}"),
            format!("{}/{}", r.exact, r.near),
            format!("{} ({:.0}%)", r.keyless, r.keyless_share() * 100.0),
            r.replays,
            r.conflicts,
            r.stuck,
            r.bots,
        );
    }
    // The pathways of the forms with the most copies (then the most
    // receipts), in scope order; the rest are in --json.
    let mut told: Vec<&FormRow> = forms
        .rows
        .iter()
        .filter(|r| !r.pathways.is_empty())
        .collect();
    told.sort_by_key(|r| std::cmp::Reverse((r.copies, r.receipts)));
    let more = told.len().saturating_sub(PATHWAYS_SHOWN);
    told.truncate(PATHWAYS_SHOWN);
    told.sort_by(|a, b| a.scope.cmp(&b.scope));
    for r in told {
        let _ = writeln!(out, "\n  {}: likely pathways", inline(&r.scope, 60));
        for f in &r.pathways {
            let _ = writeln!(
                out,
                "    {:<18} {:>6} {:<8} {}",
                f.pathway.title(),
                f.count,
                f.pathway.unit(f.count),
                f.example_label()
            );
            let _ = writeln!(out, "      {}", f.evidence);
            let _ = writeln!(out, "      → {}", f.pathway.advice());
        }
    }
    if more > 0 {
        let _ = writeln!(
            out,
            "\n  … and the pathways of {more} more forms (see --json)"
        );
    }
    out
}
