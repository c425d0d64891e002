//! The Forms tab: a table of the forms over the period on top; below, the
//! selected form's daily chart (receipts against duplicate copies) and its
//! likely pathways, the selected one with its evidence and advice.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline};

use super::list::shown_rows;
use super::{Theme, compact_time, fit_segments, text};
use crate::forms::{FormRow, Forms};
use crate::i18n::{Lang, pad_left, pad_right};
use crate::t;
use crate::tui::app::msg::{Places, ShownRows};
use crate::tui::app::{App, Focus, Tab};

/// From this width on, the chart and the pathways stand side by side.
const SIDE_BY_SIDE: u16 = 120;

/// Draws the tab over the list and detail panes (`body`: both together);
/// puts in `places` where the table and the selected form's part went.
pub fn draw(frame: &mut Frame, body: Rect, app: &App, theme: &Theme, places: &mut Places) {
    if body.height == 0 {
        return;
    }
    let Some(forms) = app.forms.view() else {
        return;
    };
    let rows = app.forms.rows();
    let table_h = (rows.len() as u16 + 2)
        .max(3)
        .min((body.height * 2 / 5).max(4))
        .min(body.height);
    let table = Rect::new(body.x, body.y, body.width, table_h);
    places.list = Some(table);
    places.list_rows = draw_table(frame, table, app, forms, theme);
    let rest = Rect::new(body.x, body.y + table_h, body.width, body.height - table_h);
    if rest.height < 2 {
        return;
    }
    places.detail = Some(rest);
    let lang = app.lang;
    let Some(form) = app.forms.selected_form() else {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("  {}", t!(lang, "screen.forms.no_form")),
                theme.dim(),
            )),
            rest,
        );
        return;
    };
    let focused = app.focus == Focus::Detail;
    let title = vec![
        (
            format!(" {} ", text::safe(&form.scope, 40)),
            theme.pane_title(focused),
        ),
        (
            if focused {
                format!("· {} ", t!(lang, "screen.forms.detail_hint"))
            } else {
                format!("· {} ", t!(lang, "screen.forms.list_hint"))
            },
            theme.dim(),
        ),
    ];
    frame.render_widget(
        Paragraph::new(fit_segments(title, usize::from(rest.width))),
        Rect::new(rest.x, rest.y, rest.width, 1),
    );
    let inner = Rect::new(rest.x, rest.y + 1, rest.width, rest.height - 1);
    let (chart, pathways) = if inner.width >= SIDE_BY_SIDE {
        let w = inner.width * 2 / 5;
        (
            Rect::new(inner.x, inner.y, w, inner.height),
            Rect::new(inner.x + w, inner.y, inner.width - w, inner.height),
        )
    } else {
        let h = 5.min(inner.height);
        (
            Rect::new(inner.x, inner.y, inner.width, h),
            Rect::new(inner.x, inner.y + h, inner.width, inner.height - h),
        )
    };
    draw_chart(frame, chart, app.shown_zone(), lang, forms, form, theme);
    places.pathway_rows = draw_pathways(frame, pathways, app, form, focused, theme);
}

/// A count of a form row, as shown.
type Cell = fn(&FormRow) -> String;

/// The columns that fit, most useful first: (header, width, cell). A
/// header wider than its width (in terminal cells) widens its column.
type Column = (fn(Lang) -> &'static str, usize, Cell);

const COLUMNS: &[Column] = &[
    (
        |l| t!(l, "screen.forms.column.receipts"),
        9,
        |r| r.receipts.to_string(),
    ),
    (
        |l| t!(l, "screen.forms.column.groups"),
        7,
        |r| r.duplicate_groups.to_string(),
    ),
    (
        |l| t!(l, "screen.forms.column.no_key"),
        11,
        |r| format!("{} {:.0}%", r.keyless, r.keyless_share() * 100.0),
    ),
    (
        |l| t!(l, "screen.forms.column.by_class"),
        12,
        |r| {
            let [a, b, c] = r.by_class;
            format!("{a}/{b}/{c}")
        },
    ),
    (
        |l| t!(l, "screen.forms.column.bots"),
        5,
        |r| r.bots.to_string(),
    ),
    (
        |l| t!(l, "screen.forms.column.stuck"),
        6,
        |r| r.stuck.to_string(),
    ),
    (
        |l| t!(l, "screen.forms.column.conflicts"),
        6,
        |r| r.conflicts.to_string(),
    ),
    (
        |l| t!(l, "screen.forms.column.replays"),
        8,
        |r| r.replays.to_string(),
    ),
    (
        |l| t!(l, "screen.forms.column.exact_near"),
        11,
        |r| format!("{}/{}", r.exact, r.near),
    ),
];

/// The absorbed copies' column: right after the replays' (at
/// [`ABSORBED_AT`]), and only where the database counts them.
const ABSORBED: Column = (
    |l| t!(l, "screen.forms.column.absorbed"),
    9,
    |r| r.absorbed.to_string(),
);
const ABSORBED_AT: usize = 8;

/// Draws the table of forms; says where its rows went.
fn draw_table(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    forms: &Forms,
    theme: &Theme,
) -> Option<ShownRows> {
    let w = usize::from(area.width);
    let lang = app.lang;
    let rows = app.forms.rows();
    let focused = app.focus == Focus::List;
    let mut title = vec![
        (
            format!(" {} ", Tab::Forms.title(app.lang)),
            theme.pane_title(focused),
        ),
        (
            // The period's name, and the key that changes it.
            format!("· {} (p) ", forms.period.label_in(lang)),
            theme.key(),
        ),
        (
            format!(
                "· {} ",
                t!(
                    lang,
                    "screen.forms.count",
                    shown = rows.len(),
                    total = forms.rows.len()
                )
            ),
            theme.dim(),
        ),
    ];
    if !app.filter.is_empty() {
        title.push((
            format!(
                "· {} ",
                t!(
                    lang,
                    "screen.forms.filter",
                    text = text::safe(&app.filter, 30)
                )
            ),
            theme.key(),
        ));
    }
    let mut lines = vec![fit_segments(title, w)];
    if rows.is_empty() {
        let why = if app.filter.is_empty() {
            t!(lang, "screen.forms.empty")
        } else {
            t!(lang, "screen.forms.no_match")
        };
        lines.push(Line::styled(format!("  {why}"), theme.dim()));
        frame.render_widget(Paragraph::new(lines), area);
        return None;
    }
    // The scope column takes what the counts leave, within reason.
    let inner = w.saturating_sub(2);
    let scope_min = 14.min(inner);
    let mut used = scope_min;
    // (header, width, cell) of the columns that fit.
    let absorbed = forms.absorbed_counted.then_some(&ABSORBED);
    let columns: Vec<(&str, usize, Cell)> = COLUMNS[..ABSORBED_AT]
        .iter()
        .chain(absorbed)
        .chain(&COLUMNS[ABSORBED_AT..])
        .map(|c| {
            let head = (c.0)(lang);
            (head, c.1.max(text::width(head) + 1), c.2)
        })
        .take_while(|c| {
            used += c.1;
            used <= inner
        })
        .collect();
    let counts_w: usize = columns.iter().map(|c| c.1).sum();
    let scope_w = inner.saturating_sub(counts_w).min(36).max(scope_min);
    let mut header = vec![
        Span::raw("  "),
        Span::styled(
            text::pad(t!(lang, "screen.forms.column.form"), scope_w),
            theme.dim(),
        ),
    ];
    for c in &columns {
        header.push(Span::styled(text::pad_left(c.0, c.1), theme.dim()));
    }
    lines.push(Line::from(header));
    let height = usize::from(area.height.saturating_sub(2));
    let selected = app.forms.selected.min(rows.len() - 1);
    let offset = (selected + 1).saturating_sub(height.max(1));
    let top = lines.len();
    for (i, &index) in rows.iter().enumerate().skip(offset).take(height) {
        let r = &forms.rows[index];
        let is_selected = i == selected;
        let mut spans = vec![
            Span::raw(if is_selected { "> " } else { "  " }),
            Span::raw(text::safe_pad(&r.scope, scope_w)),
        ];
        for c in &columns {
            spans.push(Span::raw(text::pad_left(&(c.2)(r), c.1)));
        }
        let used = scope_w + counts_w;
        if used < inner {
            spans.push(Span::raw(" ".repeat(inner - used)));
        }
        let mut line = Line::from(spans);
        if is_selected {
            line = line.patch_style(theme.selected(focused));
        }
        lines.push(line);
    }
    let shown = shown_rows(area, top, lines.len() - top, offset);
    frame.render_widget(Paragraph::new(lines), area);
    shown
}

/// Receipts and duplicate copies per bucket, as two sparklines on the same
/// time axis (each scaled to its own largest bucket, written beside it).
fn draw_chart(
    frame: &mut Frame,
    area: Rect,
    zone: crate::model::Zone,
    lang: Lang,
    forms: &Forms,
    form: &FormRow,
    theme: &Theme,
) {
    if area.height == 0 || area.width < 20 {
        return;
    }
    let label_w: u16 = 16;
    let room = usize::from(area.width.saturating_sub(label_w + 1));
    // The latest buckets that fit, each as wide as the room allows (up to 4).
    let shown = form.series.len().min(room).max(1);
    let series = &form.series[form.series.len() - shown.min(form.series.len())..];
    let repeat = (room / series.len().max(1)).clamp(1, 4);
    let receipts: Vec<u64> = series
        .iter()
        .flat_map(|&(r, _)| std::iter::repeat_n(r, repeat))
        .collect();
    let copies: Vec<u64> = series
        .iter()
        .flat_map(|&(_, c)| std::iter::repeat_n(c, repeat))
        .collect();
    let hourly = forms.bucket_ms < 24 * 3_600_000;
    let max_r = series.iter().map(|s| s.0).max().unwrap_or(0);
    let max_c = series.iter().map(|s| s.1).max().unwrap_or(0);
    let rows = area.height.saturating_sub(1);
    let (h_r, h_c) = match rows {
        0 => (0, 0),
        1 => (1, 0),
        // Beyond four rows a bar says no more.
        n => ((n - n / 2).min(4), (n / 2).min(4)),
    };
    let spark_w = (receipts.len() as u16).min(area.width - label_w);
    let mut y = area.y;
    for (label, data, max, h, style) in [
        (
            t!(lang, "screen.forms.receipts"),
            &receipts,
            max_r,
            h_r,
            theme.plain(),
        ),
        (
            t!(lang, "screen.forms.copies"),
            &copies,
            max_c,
            h_c,
            theme.warn(),
        ),
    ] {
        if h == 0 {
            continue;
        }
        let most = if hourly {
            t!(lang, "screen.forms.max_hour", max = max)
        } else {
            t!(lang, "screen.forms.max_day", max = max)
        };
        let text_lines = vec![
            Line::styled(format!(" {label}"), style),
            Line::styled(format!(" {most}"), theme.dim()),
        ];
        frame.render_widget(Paragraph::new(text_lines), Rect::new(area.x, y, label_w, h));
        frame.render_widget(
            Sparkline::default().data(data).max(max.max(1)).style(style),
            Rect::new(area.x + label_w, y, spark_w, h),
        );
        y += h;
    }
    // Under the bars: what one bar counts, then the chart's first day (or
    // hour) under its first bar and its last under its last.
    let first = forms.series_start_ms + (form.series.len() - series.len()) as i64 * forms.bucket_ms;
    let end = forms.series_start_ms + form.series.len() as i64 * forms.bucket_ms - 1;
    let (unit, from, to) = if hourly {
        (
            t!(lang, "screen.forms.per_hour"),
            compact_time(zone, first, end),
            compact_time(zone, end, end),
        )
    } else {
        (
            t!(lang, "screen.forms.per_day"),
            compact_day(zone, first, end),
            compact_day(zone, end, end),
        )
    };
    let spark_w = usize::from(spark_w);
    let gap = spark_w.saturating_sub(text::width(&from) + text::width(&to));
    let days = if gap >= 1 {
        format!("{from}{}{to}", " ".repeat(gap))
    } else {
        format!("{from}–{to}")
    };
    let axis = format!(
        "{}{days}",
        text::pad(&format!(" {unit}"), usize::from(label_w))
    );
    frame.render_widget(
        Paragraph::new(Line::styled(
            text::fit(&axis, usize::from(area.width)),
            theme.dim(),
        )),
        Rect::new(area.x, y, area.width, 1.min(area.bottom() - y)),
    );
}

/// `11-29` in the year of `now`, else `2025-11-29`.
fn compact_day(
    zone: crate::model::Zone,
    ms: crate::model::Millis,
    now: crate::model::Millis,
) -> String {
    let day = compact_time(zone, ms, now);
    day.split(' ').next().unwrap_or(&day).to_string()
}

/// Draws the selected form's pathways; says where their rows went.
fn draw_pathways(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    form: &FormRow,
    focused: bool,
    theme: &Theme,
) -> Option<ShownRows> {
    if area.height == 0 {
        return None;
    }
    let w = usize::from(area.width);
    let lang = app.lang;
    let mut lines = vec![Line::styled(
        format!(" {}", t!(lang, "screen.forms.pathways")),
        theme.title(),
    )];
    if form.pathways.is_empty() {
        lines.push(Line::styled(
            format!("  {}", t!(lang, "screen.forms.no_pathways")),
            theme.dim(),
        ));
        frame.render_widget(Paragraph::new(lines), area);
        return None;
    }
    let selected = app.forms.pathway.min(form.pathways.len() - 1);
    // What the selected one says takes the lines the list leaves, at least 2.
    let height = usize::from(area.height) - 1;
    let list_h = form.pathways.len().min(height.saturating_sub(2).max(1));
    let offset = (selected + 1).saturating_sub(list_h);
    // Titles and units line up by terminal cells (a Japanese title takes
    // two a character); a title longer than the column widens it.
    let title_w = form
        .pathways
        .iter()
        .map(|f| text::width(f.pathway.title_in(lang)))
        .max()
        .unwrap_or(0)
        .max(18);
    let top = lines.len();
    for (i, f) in form.pathways.iter().enumerate().skip(offset).take(list_h) {
        let is_selected = i == selected;
        let line = format!(
            "{}{} {} {} {}",
            if is_selected { "> " } else { "  " },
            pad_right(f.pathway.title_in(lang), title_w),
            pad_left(&f.count.to_string(), 6),
            pad_right(f.unit_in(lang), 8),
            f.example_label_in(lang)
        );
        let mut line = Line::raw(text::pad(&text::fit(&line, w), w));
        if is_selected {
            line = line.patch_style(theme.selected(focused));
        }
        lines.push(line);
    }
    let shown = shown_rows(area, top, lines.len() - top, offset);
    let f = &form.pathways[selected];
    let room = height - list_h;
    let mut said = Vec::new();
    for l in text::wrap(&format!("→ {}", f.advice_in(lang)), w.saturating_sub(2)) {
        said.push(Line::styled(format!("  {l}"), theme.key()));
    }
    let seen = t!(lang, "screen.forms.seen", evidence = f.evidence_in(lang));
    for l in text::wrap(&seen, w.saturating_sub(2)) {
        said.push(Line::styled(format!("  {l}"), theme.dim()));
    }
    lines.extend(said.into_iter().take(room));
    frame.render_widget(Paragraph::new(lines), area);
    shown
}
