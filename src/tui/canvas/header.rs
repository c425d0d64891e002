//! The header: the database, live or read-only, who decides, and the counts.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::{Theme, text, whole_segments};
use crate::t;
use crate::tui::app::App;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(snap) = app.snapshot.as_ref() else {
        return;
    };
    let w = usize::from(area.width);
    let lang = app.lang;
    let c = &app.counts;
    let mut first = Vec::new();
    if w >= 100 {
        first.push(("receipt-review  ".to_string(), theme.title()));
    }
    // The path always shows; a long one is cut with a marker.
    let path = text::safe(&snap.database.shown(), (w / 2).max(12));
    first.push((path, theme.plain()));
    match &snap.read_only {
        Some(_) => first.push((
            format!("  {}", t!(lang, "screen.header.read_only")),
            theme.warn(),
        )),
        None => first.push((
            format!("  {}", t!(lang, "screen.header.live")),
            theme.success(),
        )),
    }
    if app.stale {
        first.push((
            format!("  {}", t!(lang, "screen.header.stale")),
            theme.warn(),
        ));
    }
    if let Some(p) = &app.progress {
        let stage = text::safe(p.stage, 20);
        // A step with nothing to count shows only its name.
        let shown = if p.done == 0 && p.total.is_none() {
            format!("  ⟳ {stage}")
        } else {
            format!("  ⟳ {stage} {}", p.done)
        };
        first.push((shown, theme.dim()));
    }
    if let Some(op) = &app.operator {
        first.push((
            format!(
                "  {}",
                t!(lang, "screen.header.operator", name = text::safe(op, 24))
            ),
            theme.plain(),
        ));
    }
    let zone = app.shown_zone();
    let now = app.now_ms().unwrap_or(snap.settings.now_ms);
    // The zone's full name where there is room, its abbreviation always.
    let zone_name = if zone.is_utc() {
        "UTC".to_string()
    } else if w >= 120 {
        format!("{} ({})", zone.abbreviation(now), zone.name())
    } else {
        zone.abbreviation(now)
    };
    first.push((
        format!(
            "  {}",
            t!(
                lang,
                "screen.header.as_of",
                time = zone.format_minutes(now),
                zone = zone_name
            )
        ),
        theme.dim(),
    ));

    let pending = if c.looked_at > 0 {
        t!(
            lang,
            "screen.header.pending_looked_at",
            n = c.pending(),
            looked = c.looked_at
        )
    } else {
        t!(lang, "screen.header.pending", n = c.pending())
    };
    let [simultaneous, seconds, minutes] = c.by_class;
    let classes = if w >= 80 {
        t!(
            lang,
            "screen.header.classes",
            simultaneous = simultaneous,
            seconds = seconds,
            minutes = minutes
        )
    } else {
        t!(
            lang,
            "screen.header.classes_short",
            simultaneous = simultaneous,
            seconds = seconds,
            minutes = minutes
        )
    };
    let mut second = vec![
        (pending, theme.pending()),
        (
            format!(
                " · {}",
                t!(lang, "screen.header.resolved", n = c.resolved())
            ),
            theme.resolved(),
        ),
        (format!(" │ {classes}"), theme.plain()),
        (
            format!(
                " │ {}",
                t!(
                    lang,
                    "screen.header.matches",
                    exact = c.exact,
                    near = c.groups - c.exact
                )
            ),
            theme.plain(),
        ),
    ];
    if c.groups_new_copy > 0 {
        second.push((
            format!(
                " │ {}",
                t!(lang, "screen.header.new_copy", n = c.groups_new_copy)
            ),
            theme.warn(),
        ));
    }
    if c.bots > 0 {
        second.push((
            format!(" │ {}", t!(lang, "screen.header.bots", n = c.bots)),
            theme.plain(),
        ));
    }
    second.push((
        format!(" │ {}", t!(lang, "screen.header.receipts", n = c.receipts)),
        theme.dim(),
    ));
    let lines = vec![whole_segments(first, w), whole_segments(second, w)];
    frame.render_widget(Paragraph::new(lines), area);
}

/// The read-only banner: why decisions are off, across the whole width.
pub fn draw_banner(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let Some(why) = app.read_only() else {
        return;
    };
    let w = usize::from(area.width);
    let line = text::pad(
        &format!(
            " {}",
            t!(
                app.lang,
                "screen.header.banner",
                why = crate::sanitize::clean(why)
            )
        ),
        w,
    );
    frame.render_widget(Paragraph::new(line).style(theme.banner()), area);
}
