//! The per-form table of `report` (text): one row per scope, then each
//! form's likely pathways with their count, an example item and the fix.

use std::fmt::Write as _;

use crate::forms::{FormRow, Forms, Pathway};
use crate::i18n::width::width;
use crate::i18n::{Lang, pad_left, pad_right};
use crate::t;

/// How many forms' pathways the text shows.
const PATHWAYS_SHOWN: usize = 10;
use crate::sanitize::inline;

/// The section in `lang`, starting with a blank line.
pub fn render(forms: &Forms, lang: Lang) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{}",
        t!(
            lang,
            "report.forms.heading",
            period = forms.period.label_in(lang)
        )
    );
    if forms.rows.is_empty() {
        let _ = writeln!(out, "  {}", t!(lang, "report.forms.empty"));
        return out;
    }
    let headings = [
        t!(lang, "report.forms.column.form"),
        t!(lang, "report.forms.column.receipts"),
        t!(lang, "report.forms.column.groups"),
        t!(lang, "report.forms.column.by_class"),
        t!(lang, "report.forms.column.exact_near"),
        t!(lang, "report.forms.column.no_key"),
        t!(lang, "report.forms.column.replays"),
        t!(lang, "report.forms.column.conflicts"),
        t!(lang, "report.forms.column.stuck"),
        t!(lang, "report.forms.column.bots"),
    ];
    // Each column as wide as its usual width or its heading, whichever is wider.
    let mut widths = [28, 8, 6, 13, 10, 12, 7, 9, 5, 5];
    for (w, h) in widths.iter_mut().zip(headings) {
        *w = (*w).max(width(h));
    }
    let row = |cells: [&str; 10]| {
        let mut line = format!("  {}", pad_right(cells[0], widths[0]));
        for (cell, &w) in cells[1..].iter().zip(&widths[1..]) {
            line.push(' ');
            line.push_str(&pad_left(cell, w));
        }
        line
    };
    let _ = writeln!(out, "{}", row(headings));
    for r in &forms.rows {
        let [sim, sec, min] = r.by_class;
        let _ = writeln!(
            out,
            "{}",
            row([
                &inline(&r.scope, 28),
                &r.receipts.to_string(),
                &r.duplicate_groups.to_string(),
                &format!("{sim}/{sec}/{min}"),
                &format!("{}/{}", r.exact, r.near),
                &format!("{} ({:.0}%)", r.keyless, r.keyless_share() * 100.0),
                &r.replays.to_string(),
                &r.conflicts.to_string(),
                &r.stuck.to_string(),
                &r.bots.to_string(),
            ])
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
    // Titles in a column as wide as the longest (in Japanese, wider than 18).
    let title_width = Pathway::ALL
        .iter()
        .map(|p| width(p.title_in(lang)))
        .fold(18, usize::max);
    for r in told {
        let _ = writeln!(
            out,
            "\n  {}",
            t!(lang, "report.forms.pathways", form = inline(&r.scope, 60))
        );
        for f in &r.pathways {
            let _ = writeln!(
                out,
                "    {} {} {} {}",
                pad_right(f.pathway.title_in(lang), title_width),
                pad_left(&f.count.to_string(), 6),
                pad_right(f.pathway.unit_in(f.count, lang), 8),
                f.example_label_in(lang)
            );
            let _ = writeln!(out, "      {}", f.evidence_in(lang));
            let _ = writeln!(out, "      → {}", f.pathway.advice_in(lang));
        }
    }
    if more > 0 {
        let _ = writeln!(out, "\n  {}", t!(lang, "report.forms.more", n = more));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::{Finding, Period};

    fn forms() -> Forms {
        let finding = |pathway, count, keyless| Finding {
            pathway,
            count,
            example: Some("dup:7".into()),
            example_receipt: Some(7),
            evidence: String::new(),
            keyless,
        };
        Forms {
            period: Period::Week,
            rows: vec![FormRow {
                scope: "corp/contact".into(),
                receipts: 20,
                duplicate_groups: 3,
                by_class: [1, 1, 1],
                exact: 2,
                near: 1,
                copies: 3,
                keyless: 8,
                pathways: vec![
                    finding(Pathway::NoKey, 1, Some((8, 20))),
                    finding(Pathway::NewKeyPerClick, 2, None),
                ],
                ..FormRow::default()
            }],
            ..Forms::default()
        }
    }

    #[test]
    fn the_table_and_pathways_in_both_languages() {
        let en = render(&forms(), Lang::En);
        assert!(en.contains("Forms (last 7 days; --period"), "{en}");
        assert!(
            en.contains("    new key per click       2 copies   e.g. dup:7"),
            "{en}"
        );
        assert!(en.contains("came without a key"), "{en}");

        let ja = render(&forms(), Lang::Ja);
        assert!(ja.contains("フォーム別（直近7日間。"), "{ja}");
        assert!(ja.contains("corp/contact: 考えられる原因"), "{ja}");
        assert!(
            ja.contains("20 件中 8 件（40%）がキーなしで届きました"),
            "{ja}"
        );
        assert!(ja.contains("→ ページがクリックのたびに"), "{ja}");
        // Headings and cells end in the same columns.
        let lines: Vec<&str> = ja
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .collect();
        let (heading, row) = (lines[0], lines[1]);
        assert_eq!(width(heading), width(row), "\n{heading}\n{row}");
        // Every pathway's count in one column.
        let counts: Vec<usize> = ja
            .lines()
            .filter(|l| l.ends_with("例: dup:7"))
            .map(|l| width(&l[..l.find(" 件").unwrap()]))
            .collect();
        assert_eq!(counts.len(), 2);
        assert_eq!(counts[0], counts[1], "{ja}");
    }

    #[test]
    fn an_empty_period_says_so() {
        let empty = Forms::default();
        assert!(render(&empty, Lang::Ja).contains("この期間の受付はありません"));
        assert!(render(&empty, Lang::En).contains("no receipts in this period"));
    }
}
