//! The field-by-field comparison of copies: differing fields are marked by a
//! symbol as well as by colour, and inside them the words (or characters)
//! that differ from the first column's are marked too (see `diff`). Fields
//! the visitor fingerprint leaves out (event ids, times, tokens) are "not
//! compared" wherever copies are compared: duplicates and conflicts alike.

use std::collections::{BTreeMap, BTreeSet};

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::{Theme, text};
use super::diff;
use crate::i18n::Lang;
use crate::sanitize::clean;
use crate::t;
use crate::triage::model::VisitorFields;
use crate::triage::visitor::{IgnoreList, fingerprint, normalize_key};
use crate::tui::app::App;
use crate::tui::app::msg::PayloadRef;

pub const DIFFERS: &str = "≠";
pub const NORMALISED: &str = "≈";
pub const IGNORED: &str = "·";

/// A payload as the comparison sees it.
pub enum Fields {
    Loading,
    Failed(String),
    /// The visitor data was erased: when and by whom, in words.
    Erased(String),
    /// Its fields as shown, and (see [`compared_fields`]) its visitor
    /// fields as the analysis folds them.
    Object(BTreeMap<String, String>, Option<VisitorFields>),
}

/// Parses a payload's top-level fields for display (strings as themselves,
/// other values as JSON).
pub fn fields(app: &App, r: PayloadRef) -> Fields {
    parsed(app, r, false)
}

/// Payloads up to this size are folded as the analysis folds them on each
/// drawing; a larger one is compared as it is (its fields marked as
/// differing or not, never "not compared").
const FOLDED_BYTES: usize = 64 * 1024;

/// [`fields`], with the visitor fields the analysis would take from the
/// payload: for copies the analysis did not fold (a conflict's attempts),
/// so that they are compared as a group's copies are.
pub fn compared_fields(app: &App, r: PayloadRef) -> Fields {
    parsed(app, r, true)
}

fn parsed(app: &App, r: PayloadRef, fold: bool) -> Fields {
    let lang = app.lang;
    match app.payload(r) {
        None => Fields::Loading,
        Some(Err(why)) => Fields::Failed(t!(lang, "screen.detail.could_not_load", why = why)),
        Some(Ok(body)) if erased(app, r, body).is_some() => {
            let tombstone = erased(app, r, body).expect("just seen");
            Fields::Erased(crate::find::text::erased_line(
                &tombstone,
                app.shown_zone(),
                lang,
            ))
        }
        Some(Ok(body)) => match serde_json::from_str::<serde_json::Value>(body) {
            Ok(serde_json::Value::Object(map)) => {
                let visitor = (fold && body.len() <= FOLDED_BYTES).then(|| {
                    let ignore = app
                        .snapshot
                        .as_ref()
                        .map(|s| IgnoreList::new(&s.settings.ignore_fields))
                        .unwrap_or_default();
                    fingerprint(&map, &ignore).fields
                });
                let shown = map
                    .into_iter()
                    .map(|(k, v)| {
                        let shown = match v {
                            serde_json::Value::String(s) => s,
                            other => other.to_string(),
                        };
                        (k, shown)
                    })
                    .collect();
                Fields::Object(shown, visitor)
            }
            Ok(_) => Fields::Failed(t!(lang, "screen.detail.not_an_object").into()),
            Err(e) => Fields::Failed(t!(lang, "screen.detail.not_json", error = e)),
        },
    }
}

/// The tombstone of an erased receipt's payload (its stored digest, which
/// the reading holds, tells it from a visitor's own field named `_erased`);
/// a refused attempt's body is judged by its shape.
fn erased(app: &App, r: PayloadRef, body: &str) -> Option<crate::model::erasure::Tombstone> {
    let digest = match r {
        PayloadRef::Receipt(id) => Some(app.snapshot.as_ref()?.receipt(id)?.digest),
        PayloadRef::KeyConflict(_) => None,
    };
    crate::model::erasure::Tombstone::of_row(body, digest.as_deref())
}

pub struct Column<'a> {
    pub label: String,
    pub fields: Fields,
    /// The normalised visitor fields, when the column is an analysed
    /// receipt (else those of its payload are used).
    pub visitor: Option<&'a VisitorFields>,
}

impl Column<'_> {
    /// The visitor fields the column is compared by: the analysis's, else
    /// its payload's fingerprint.
    fn visitor(&self) -> Option<&VisitorFields> {
        self.visitor.or(match &self.fields {
            Fields::Object(_, v) => v.as_ref(),
            _ => None,
        })
    }
}

fn visitor_value<'v>(v: &'v VisitorFields, field: &str) -> Option<&'v str> {
    let key = normalize_key(field);
    v.0.binary_search_by(|(k, _)| k.as_str().cmp(key.as_str()))
        .ok()
        .map(|i| v.0[i].1.as_str())
}

/// The marker of a field: ` ` same, `≠` differs, `≈` same once normalised,
/// `·` not part of the visitor fingerprint (a bookkeeping field, never
/// compared), whether its values differ or not.
fn marker(columns: &[&Column], field: &str, use_visitor: bool) -> &'static str {
    let raw: Vec<Option<&str>> = columns.iter().map(|c| value_of(c, field)).collect();
    let same = raw.windows(2).all(|w| w[0] == w[1]);
    if !use_visitor || columns.iter().any(|c| c.visitor().is_none()) {
        return if same { " " } else { DIFFERS };
    }
    let normalised: Vec<Option<&str>> = columns
        .iter()
        .map(|c| c.visitor().and_then(|v| visitor_value(v, field)))
        .collect();
    if normalised.iter().all(Option::is_none) {
        // Dropped from the fingerprint (bookkeeping) or empty in every copy.
        let any_filled = raw.iter().flatten().any(|v| !v.trim().is_empty());
        return if any_filled { IGNORED } else { " " };
    }
    if same {
        " "
    } else if normalised.windows(2).all(|w| w[0] == w[1]) {
        NORMALISED
    } else {
        DIFFERS
    }
}

fn marker_style(marker: &str, theme: &Theme) -> Style {
    match marker {
        DIFFERS => theme.differs(),
        NORMALISED => theme.plain(),
        IGNORED => theme.dim(),
        _ => theme.plain(),
    }
}

pub fn legend(use_visitor: bool, lang: Lang, theme: &Theme, width: usize) -> Line<'static> {
    // The longest wording that fits.
    let differs = t!(lang, "screen.detail.legend.differs");
    let noise = t!(lang, "screen.detail.legend.noise");
    let wordings = [
        (
            format!(" {}", t!(lang, "screen.detail.legend.differs_long")),
            format!("  ≈ {}  ", t!(lang, "screen.detail.legend.folded_long")),
            format!(" {}", t!(lang, "screen.detail.legend.noise_long")),
        ),
        (
            format!(" {differs}"),
            format!("  ≈ {}  ", t!(lang, "screen.detail.legend.folded")),
            format!(" {noise}"),
        ),
        (
            format!(" {differs}"),
            format!(" ≈ {} ", t!(lang, "screen.detail.legend.folded_short")),
            format!(" {noise}"),
        ),
    ];
    let spans = |(differs, folded, noise): &(String, String, String)| {
        let mut spans = vec![
            Span::styled(DIFFERS.to_string(), theme.differs()),
            Span::raw(differs.clone()),
        ];
        if use_visitor {
            spans.push(Span::raw(folded.clone()));
            spans.push(Span::styled(IGNORED.to_string(), theme.dim()));
            spans.push(Span::raw(noise.clone()));
        }
        spans
    };
    let fits =
        |s: &Vec<Span<'static>>| s.iter().map(|s| text::width(&s.content)).sum::<usize>() <= width;
    let chosen = wordings
        .iter()
        .map(spans)
        .find(fits)
        .unwrap_or_else(|| spans(&wordings[2]));
    Line::from(chosen)
}

/// The most fields a comparison shows.
const SHOWN_FIELDS: usize = 200;

/// The comparison, as lines of at most `width` cells.
pub fn compare(
    columns: &[Column],
    width: usize,
    use_visitor: bool,
    lang: Lang,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if columns.iter().any(|c| matches!(c.fields, Fields::Loading)) {
        lines.push(Line::styled(
            format!("  {}", t!(lang, "screen.detail.loading")),
            theme.dim(),
        ));
        return lines;
    }
    for c in columns {
        if let Fields::Failed(why) = &c.fields {
            lines.push(Line::styled(
                text::fit(&format!("  {}: {}", c.label, clean(why)), width),
                theme.warn(),
            ));
        }
        if let Fields::Erased(when) = &c.fields {
            lines.push(Line::styled(
                text::fit(&format!("  {}: {}", c.label, clean(when)), width),
                theme.dim(),
            ));
        }
    }
    // An erased copy was said above: it has no fields to set beside the others'.
    let columns: Vec<&Column> = columns
        .iter()
        .filter(|c| !matches!(c.fields, Fields::Erased(_)))
        .collect();
    let mut names: BTreeSet<&str> = columns
        .iter()
        .filter_map(|c| match &c.fields {
            Fields::Object(map, _) => Some(map.keys().map(String::as_str)),
            _ => None,
        })
        .flatten()
        .collect();
    // A form has a few dozen fields; a payload with thousands is compared on
    // its first ones (every frame stays cheap), and says so.
    let left_out = names.len().saturating_sub(SHOWN_FIELDS);
    if left_out > 0 {
        names = names.into_iter().take(SHOWN_FIELDS).collect();
    }
    if names.is_empty() {
        if lines.is_empty() {
            lines.push(Line::styled(
                format!("  {}", t!(lang, "screen.detail.no_fields")),
                theme.dim(),
            ));
        }
        return lines;
    }
    let n = columns.len().max(1);
    let head = t!(lang, "screen.detail.field");
    let field_w = names
        .iter()
        .map(|f| text::width(&clean(f)))
        .max()
        .unwrap_or(5)
        .clamp(5, 16)
        .max(text::width(head));
    // marker, space, field, then a space before each column.
    let value_w = width.saturating_sub(2 + field_w + n) / n;
    if value_w >= 10 {
        table(
            &columns,
            &names,
            (head, field_w),
            value_w,
            use_visitor,
            theme,
            &mut lines,
        );
    } else {
        stacked(&columns, &names, width, use_visitor, theme, &mut lines);
    }
    if left_out > 0 {
        lines.push(Line::styled(
            text::fit(
                &format!("  {}", t!(lang, "screen.detail.more_fields", n = left_out)),
                width,
            ),
            theme.dim(),
        ));
    }
    lines
}

fn value_of<'c>(column: &'c Column, field: &str) -> Option<&'c str> {
    match &column.fields {
        Fields::Object(map, _) => map.get(field).map(String::as_str),
        _ => None,
    }
}

/// The most characters of a value the comparison reads (the part shown
/// is far shorter; a difference further in is not looked for).
const READ_CHARS: usize = 4_000;

/// A field's values, made safe, each as lines of spans: those of a
/// differing field with what differs from the first column's value marked
/// (the first column's own marks are what any later column changed).
fn value_lines(
    columns: &[&Column],
    name: &str,
    differs: bool,
    cells: usize,
    max_lines: usize,
    theme: &Theme,
) -> Vec<Vec<Vec<Span<'static>>>> {
    // A value that differs is read further: its change may lie past what
    // fits (see `diff::lines`); any other is cut to what can be shown.
    let read = if differs {
        READ_CHARS
    } else {
        cells * max_lines + 1
    };
    let texts: Vec<Option<String>> = columns
        .iter()
        .map(|c| value_of(c, name).map(|v| clean(&text::head(v, read)).into_owned()))
        .collect();
    let mut marks: Vec<diff::Ranges> = vec![Vec::new(); columns.len()];
    if differs && let Some(Some(first)) = texts.first() {
        let mut in_first = Vec::new();
        for (i, other) in texts.iter().enumerate().skip(1) {
            if let Some(other) = other {
                let (old, new) = diff::changed(first, other);
                in_first.extend(old);
                marks[i] = new;
            }
        }
        marks[0] = diff::union(in_first);
    }
    texts
        .iter()
        .zip(&marks)
        .map(|(value, marked)| match value {
            Some(v) => diff::lines(v, marked, cells, max_lines, theme.plain(), theme.changed()),
            None => vec![vec![Span::raw("—")]],
        })
        .collect()
}

/// Spans padded (or cut) to exactly `cells` cells.
fn padded(spans: &[Span<'static>], cells: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let w = text::width(&span.content);
        if used + w <= cells {
            used += w;
            out.push(span.clone());
        } else {
            let room = cells - used;
            let cut = text::fit(&span.content, room);
            used += text::width(&cut);
            out.push(Span::styled(cut, span.style));
            break;
        }
    }
    if used < cells {
        out.push(Span::raw(" ".repeat(cells - used)));
    }
    out
}

/// The table of fields: `field` is the field column's header and width.
fn table(
    columns: &[&Column],
    names: &BTreeSet<&str>,
    (field_head, field_w): (&str, usize),
    value_w: usize,
    use_visitor: bool,
    theme: &Theme,
    lines: &mut Vec<Line<'static>>,
) {
    let mut head = vec![Span::styled(
        format!("  {}", text::pad(field_head, field_w)),
        theme.dim(),
    )];
    for c in columns {
        head.push(Span::styled(
            format!(" {}", text::pad(&c.label, value_w)),
            theme.title(),
        ));
    }
    lines.push(Line::from(head));
    for name in names {
        let mark = marker(columns, name, use_visitor);
        let differs = mark == DIFFERS;
        let max_lines = if differs { 6 } else { 3 };
        let cells = value_lines(columns, name, differs, value_w, max_lines, theme);
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        let style = if differs {
            theme.differs()
        } else {
            theme.plain()
        };
        for row in 0..height {
            let field = if row == 0 {
                clean(name).into_owned()
            } else {
                String::new()
            };
            let mut spans = vec![
                Span::styled(
                    if row == 0 {
                        mark.to_string()
                    } else {
                        " ".to_string()
                    },
                    marker_style(mark, theme),
                ),
                Span::raw(" "),
                Span::styled(text::pad(&field, field_w), style),
            ];
            for cell in &cells {
                spans.push(Span::raw(" "));
                let part = cell.get(row).map(Vec::as_slice).unwrap_or(&[]);
                spans.extend(padded(part, value_w));
            }
            lines.push(Line::from(spans));
        }
    }
}

fn stacked(
    columns: &[&Column],
    names: &BTreeSet<&str>,
    width: usize,
    use_visitor: bool,
    theme: &Theme,
    lines: &mut Vec<Line<'static>>,
) {
    let label_w = columns
        .iter()
        .map(|c| text::width(&c.label))
        .max()
        .unwrap_or(4)
        .min(14);
    for name in names {
        let mark = marker(columns, name, use_visitor);
        let field = clean(name).into_owned();
        if mark == " " {
            let value = columns
                .iter()
                .find_map(|c| value_of(c, name))
                .unwrap_or("—");
            let head = format!("  {field}: ");
            let room = width.saturating_sub(text::width(&head));
            lines.push(Line::from(vec![
                Span::raw(text::fit(&head, width)),
                Span::raw(text::fit(&clean(&text::head(value, room + 1)), room)),
            ]));
            continue;
        }
        let style = if mark == DIFFERS {
            theme.differs()
        } else {
            theme.plain()
        };
        lines.push(Line::from(vec![
            Span::styled(mark.to_string(), marker_style(mark, theme)),
            Span::raw(" "),
            Span::styled(text::fit(&field, width.saturating_sub(2)), style),
        ]));
        let room = width.saturating_sub(label_w + 5).max(4);
        let values = value_lines(columns, name, mark == DIFFERS, room, 3, theme);
        for (c, parts) in columns.iter().zip(values) {
            for (i, part) in parts.into_iter().enumerate() {
                let label = if i == 0 { c.label.as_str() } else { "" };
                let mut spans = vec![Span::raw(format!("    {} ", text::pad(label, label_w)))];
                spans.extend(part);
                lines.push(Line::from(spans));
            }
        }
    }
}
