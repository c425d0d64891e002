//! Pure drawing: `draw(frame, app)` reads the state and changes nothing; it
//! returns what the frame measured (how far the detail pane and the help
//! can scroll, where the tabs, rows and panes went), which the runtime
//! hands back to `update` as `Msg::Drawn`.
//!
//! Every piece of untrusted text (payload values, keys, scopes, notes,
//! operator names, the database path) passes through [`crate::sanitize`]
//! (via [`text::safe`]) before it becomes a `Span`.

mod columns;
mod confirm;
mod detail;
mod footer;
mod forms;
mod header;
mod help;
mod list;
mod progress;
mod receipts;
mod tabs;
pub mod text;
mod theme;
mod too_small;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::app::layout;
use crate::tui::app::msg::Measured;
use crate::tui::app::{App, Overlay, Tab};

pub use theme::Theme;

/// Draws the whole screen for this state; says what the frame measured.
pub fn draw(frame: &mut Frame, app: &App) -> Measured {
    let area = frame.area();
    let theme = Theme::new(app.palette);
    let mut measured = Measured::default();
    if layout::too_small(area) {
        too_small::draw(frame, area, app.lang, &theme);
        return measured;
    }
    if app.snapshot.is_none() {
        progress::draw(frame, area, app, &theme);
        return measured;
    }
    // The Receipts tab's hits keep two fifths; the Forms tab takes both panes.
    let list_want = match app.tab {
        Tab::Receipts | Tab::Forms => area.width * 2 / 5,
        _ => list::wanted_width(app),
    };
    let areas = layout::areas(area, app.read_only().is_some(), app.focus, list_want);
    header::draw(frame, areas.header, app, &theme);
    header::draw_banner(frame, areas.banner, app, &theme);
    let places = &mut measured.places;
    places.tabs = tabs::draw(frame, areas.tabs, app, &theme);
    if app.tab == Tab::Forms {
        forms::draw(frame, areas.list.union(areas.detail), app, &theme, places);
    } else {
        places.list = Some(areas.list);
        places.detail = Some(areas.detail);
        if app.tab == Tab::Receipts {
            places.list_rows = receipts::draw_list(frame, areas.list, app, &theme);
            measured.detail_max_scroll = receipts::draw_detail(frame, areas.detail, app, &theme);
        } else {
            places.list_rows = list::draw(frame, areas.list, app, &theme);
            measured.detail_max_scroll = detail::draw(frame, areas.detail, app, &theme);
        }
    }
    footer::draw(frame, areas.status, areas.hints, app, &theme);
    match &app.overlay {
        Some(Overlay::Help { scroll }) => {
            measured.help_max_scroll = Some(help::draw(frame, area, *scroll, app, &theme));
        }
        Some(Overlay::Confirm(c)) => confirm::draw_confirm(frame, area, c, &theme),
        Some(Overlay::Export { choice }) => {
            confirm::draw_export(frame, area, choice, app.lang, &theme)
        }
        Some(Overlay::Copy { choice }) => confirm::draw_copy(frame, area, *choice, app, &theme),
        None => {}
    }
    measured
}

/// A line of segments, kept whole while they fit; the first that does not is
/// cut with `…` (when there is room for a few cells) and the rest left out.
fn fit_segments(segments: Vec<(String, Style)>, width: usize) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (text, style) in segments {
        let w = text::width(&text);
        if used + w <= width {
            used += w;
            spans.push(Span::styled(text, style));
        } else {
            let room = width - used;
            if room >= 4 {
                spans.push(Span::styled(text::fit(&text, room), style));
            }
            break;
        }
    }
    Line::from(spans)
}

/// A line of the segments that fit whole, in order; the first that does not
/// fit ends the line (nothing is shown half: a cut date or count would mislead).
fn whole_segments(segments: Vec<(String, Style)>, width: usize) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (text, style) in segments {
        let w = text::width(&text);
        if used + w > width {
            break;
        }
        used += w;
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// Clears `rect` for a popup. A wide (CJK) character just left of it would
/// spill its second half over the popup's border: it is blanked too.
fn clear_popup(frame: &mut Frame, rect: Rect) {
    frame.render_widget(ratatui::widgets::Clear, rect);
    if rect.x == 0 {
        return;
    }
    let buffer = frame.buffer_mut();
    for y in rect.top()..rect.bottom() {
        let cell = &mut buffer[(rect.x - 1, y)];
        if text::width(cell.symbol()) > 1 {
            cell.set_symbol(" ");
        }
    }
}

/// A rectangle of `width` × `height` centred in `area` (clamped to it).
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// `11-29 10:15` in the year of `now`, else `2025-11-29`: the list's times.
fn compact_time(
    zone: crate::model::Zone,
    ms: crate::model::Millis,
    now: crate::model::Millis,
) -> String {
    let full = zone.format_minutes(ms);
    let this_year = zone.format_minutes(now);
    if full.get(..4) == this_year.get(..4) {
        full.get(5..).unwrap_or(&full).to_string()
    } else {
        full.get(..10).unwrap_or(&full).to_string()
    }
}

/// A moment as the detail pane says it: as the list does (`11-29 10:15`,
/// the year too when it is not this one's), in the zone the screen shows.
/// Raw RFC 3339 UTC is for JSON, not for people.
fn screen_time(app: &App, ms: crate::model::Millis) -> String {
    let zone = app.shown_zone();
    let now = app
        .now_ms()
        .or(app.snapshot.as_ref().map(|s| s.settings.now_ms))
        .unwrap_or(ms);
    if zone.format_minutes(ms).get(..4) == zone.format_minutes(now).get(..4) {
        compact_time(zone, ms, now)
    } else {
        zone.format_minutes(ms)
    }
}
