//! The per-form table of `report` (text): one row per scope, then each
//! form's likely pathways with their count, an example item and the fix.

use std::fmt::Write as _;

use crate::forms::{FormRow, Forms, Pathway};
use crate::i18n::width::width;
use crate::i18n::{Lang, pad_left, pad_right};
use crate::t;

/// How many forms' pathways the text shows.
const PATHWAYS_SHOWN: usize = 10;
/// Where the absorbed copies' column goes: right after the replays'.
const ABSORBED_AT: usize = 7;
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
    // The absorbed copies' column stands beside the replays', and only where
    // the database counts them.
    let absorbed = forms.absorbed_counted;
    let mut headings = vec![
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
    let mut widths = vec![28, 8, 6, 13, 10, 12, 7, 9, 5, 5];
    if absorbed {
        headings.insert(ABSORBED_AT, t!(lang, "report.forms.column.absorbed"));
        widths.insert(ABSORBED_AT, 8);
    }
    for (w, h) in widths.iter_mut().zip(&headings) {
        *w = (*w).max(width(h));
    }
    let row = |cells: &[&str]| {
        let mut line = format!("  {}", pad_right(cells[0], widths[0]));
        for (cell, &w) in cells[1..].iter().zip(&widths[1..]) {
            line.push(' ');
            line.push_str(&pad_left(cell, w));
        }
        line
    };
    let _ = writeln!(out, "{}", row(&headings));
    for r in &forms.rows {
        let [sim, sec, min] = r.by_class;
        let mut cells = vec![
            inline(&r.scope, 28),
            r.receipts.to_string(),
            r.duplicate_groups.to_string(),
            format!("{sim}/{sec}/{min}"),
            format!("{}/{}", r.exact, r.near),
            format!("{} ({:.0}%)", r.keyless, r.keyless_share() * 100.0),
            r.replays.to_string(),
            r.conflicts.to_string(),
            r.stuck.to_string(),
            r.bots.to_string(),
        ];
        if absorbed {
            cells.insert(ABSORBED_AT, r.absorbed.to_string());
        }
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        let _ = writeln!(out, "{}", row(&cells));
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
                pad_right(f.unit_in(lang), 8),
                f.example_label_in(lang)
            );
            let _ = writeln!(out, "      {}", f.evidence_in(lang));
            let _ = writeln!(out, "      → {}", f.advice_in(lang));
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
            absorbed: 0,
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
    fn absorbed_copies_have_a_column_beside_the_replays_where_counted() {
        let mut forms = forms();
        let en = render(&forms, Lang::En);
        assert!(!en.contains("absorbed"), "{en}");
        forms.absorbed_counted = true;
        let row = &mut forms.rows[0];
        (row.replays, row.absorbed) = (3, 2);
        row.pathways.push(Finding {
            pathway: Pathway::RetriesAbsorbed,
            count: 5,
            absorbed: 2,
            example: None,
            example_receipt: Some(21),
            evidence: String::new(),
            keyless: None,
        });
        let en = render(&forms, Lang::En);
        let lines: Vec<&str> = en.lines().collect();
        let heading = lines.iter().find(|l| l.contains("replays")).unwrap();
        assert!(heading.contains("replays absorbed conflicts"), "{en}");
        let cells: Vec<&str> = lines[lines.iter().position(|l| l == heading).unwrap() + 1]
            .split_whitespace()
            .collect();
        // The no-key cell is two words ("8 (40%)").
        assert_eq!(cells[7..10], ["3", "2", "0"], "{en}");
        assert!(
            en.contains("    retries absorbed        5 retries  e.g. receipt #21"),
            "{en}"
        );
        assert!(en.contains(
            "retries the key answered with the stored response (3), \
             and exact copies the intake answered with the original's response, never stored (2)"
        ));
        assert!(en.contains("came with another key or none"), "{en}");
        let ja = render(&forms, Lang::Ja);
        let heading = ja.lines().find(|l| l.contains("再送")).unwrap();
        let at = |word| heading.find(word).unwrap();
        assert!(
            at("再送") < at("吸収") && at("吸収") < at("競合"),
            "{heading}"
        );
        assert!(ja.contains("同一の重複（2 回、"), "{ja}");
        // Headings and cells still end in the same columns.
        let table: Vec<&str> = ja
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .collect();
        assert_eq!(
            width(table[0]),
            width(table[1]),
            "\n{}\n{}",
            table[0],
            table[1]
        );
    }

    #[test]
    fn an_empty_period_says_so() {
        let empty = Forms::default();
        assert!(render(&empty, Lang::Ja).contains("この期間の受付はありません"));
        assert!(render(&empty, Lang::En).contains("no receipts in this period"));
    }
}
