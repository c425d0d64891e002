//! Where things go on the screen. Shared by `update` (page sizes, scrolling)
//! and the canvas (drawing), so the two always agree.

use ratatui::layout::Rect;

use super::state::Focus;
use super::tab::Tab;

pub use super::screen_size::{MIN_HEIGHT, MIN_WIDTH};
/// From this width on, list and detail stand side by side.
pub const WIDE: u16 = 120;
/// Side by side, the detail keeps at least this many columns (a comparison
/// of two copies needs them), and at least this share of the width (the
/// table of a group's copies, with its keep mark, wants 77 columns at 160).
pub const DETAIL_MIN: u16 = 60;
const DETAIL_SHARE: (u16, u16) = (77, 160);
/// Side by side, the list takes at least this share of the width.
const LIST_SHARE: (u16, u16) = (1, 3);
/// Lines of a list pane above its rows: its title and its column header.
pub const LIST_HEAD: u16 = 2;

/// Lines of a tab's list pane above its rows: the lists of the reading
/// have a column header under their title; the Receipts tab's hits have
/// only the title.
pub fn list_head(tab: Tab) -> u16 {
    if Tab::ORDERED.contains(&tab) {
        LIST_HEAD
    } else {
        1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    /// The read-only banner (zero height when writable).
    pub banner: Rect,
    pub tabs: Rect,
    /// The list pane, its title line included.
    pub list: Rect,
    /// The detail pane, its title line included.
    pub detail: Rect,
    /// Status line (or the line being typed).
    pub status: Rect,
    /// Key hints.
    pub hints: Rect,
}

pub fn too_small(area: Rect) -> bool {
    super::screen_size::too_small(area.width, area.height)
}

/// The first row shown of a list `height` rows high, so that `selected` is
/// in sight, moving the last `offset` as little as it can.
pub fn offset_showing(selected: usize, offset: usize, height: usize) -> usize {
    if selected < offset {
        selected
    } else if selected >= offset + height {
        selected + 1 - height
    } else {
        offset
    }
}

fn rows(area: Rect, y: u16, height: u16) -> Rect {
    Rect::new(area.x, y, area.width, height)
}

/// How wide the list stands beside the detail: what its columns want
/// (`list_want` cells), within the shares each pane keeps.
pub fn list_width(width: u16, list_want: u16) -> u16 {
    let detail_min = DETAIL_MIN.max(width * DETAIL_SHARE.0 / DETAIL_SHARE.1);
    let most = width.saturating_sub(detail_min);
    let least = (width * LIST_SHARE.0 / LIST_SHARE.1).min(most);
    list_want.clamp(least, most)
}

/// Where each part goes; side by side, the list is as wide as
/// [`list_width`] says for `list_want` (the heights never depend on it).
pub fn areas(area: Rect, read_only: bool, focus: Focus, list_want: u16) -> Areas {
    let header = rows(area, area.y, 2.min(area.height));
    let banner_h = u16::from(read_only);
    let banner = rows(
        area,
        header.bottom(),
        banner_h.min(area.height - header.height),
    );
    let tabs = rows(
        area,
        banner.bottom(),
        1.min(area.bottom() - banner.bottom()),
    );
    let footer_h = 2.min(area.bottom() - tabs.bottom());
    let status = rows(area, area.bottom() - footer_h, footer_h.min(1));
    let hints = rows(area, status.bottom(), footer_h - status.height);
    let body = Rect::new(
        area.x,
        tabs.bottom(),
        area.width,
        status.y.saturating_sub(tabs.bottom()),
    );
    let (list, detail) = if area.width >= WIDE {
        let list_w = list_width(body.width, list_want);
        (
            Rect::new(body.x, body.y, list_w, body.height),
            Rect::new(body.x + list_w, body.y, body.width - list_w, body.height),
        )
    } else {
        let list_h = match focus {
            // Reading the detail: the list keeps a few rows for context.
            Focus::Detail => 4.min(body.height),
            Focus::List => (body.height * 2 / 5).max(5).min(body.height),
        };
        (
            Rect::new(body.x, body.y, body.width, list_h),
            Rect::new(body.x, body.y + list_h, body.width, body.height - list_h),
        )
    };
    Areas {
        header,
        banner,
        tabs,
        list,
        detail,
        status,
        hints,
    }
}

/// How many rows of the list are visible (its title line aside).
pub fn list_rows(size: (u16, u16), read_only: bool, focus: Focus) -> usize {
    list_rows_of(size, read_only, focus, 1)
}

/// How many rows of the list are visible below its `head` lines.
pub fn list_rows_of(size: (u16, u16), read_only: bool, focus: Focus, head: u16) -> usize {
    let a = areas(Rect::new(0, 0, size.0, size.1), read_only, focus, 0);
    usize::from(a.list.height.saturating_sub(head)).max(1)
}

/// How many rows of the detail pane are visible (its title line aside).
pub fn detail_rows(size: (u16, u16), read_only: bool, focus: Focus) -> usize {
    let a = areas(Rect::new(0, 0, size.0, size.1), read_only, focus, 0);
    usize::from(a.detail.height.saturating_sub(1)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_tile_the_screen() {
        for (w, h, ro) in [
            (80, 24, false),
            (160, 48, true),
            (60, 16, true),
            (3, 2, true),
        ] {
            let area = Rect::new(0, 0, w, h);
            for (focus, want) in [(Focus::List, 0), (Focus::Detail, 90), (Focus::List, 500)] {
                let a = areas(area, ro, focus, want);
                let mut total = a.header.height + a.banner.height + a.tabs.height;
                total += a.status.height + a.hints.height;
                if w >= WIDE {
                    total += a.list.height;
                    assert_eq!(a.list.width + a.detail.width, w);
                } else {
                    total += a.list.height + a.detail.height;
                }
                assert_eq!(total, h, "{w}x{h} {focus:?}");
            }
        }
    }

    #[test]
    fn the_list_takes_what_its_columns_want_within_limits() {
        // Wide enough for both: the list gets what it wants.
        assert_eq!(list_width(200, 100), 100);
        assert_eq!(list_width(200, 110), 104);
        // The detail keeps 60 columns, or nearly half a wide screen.
        assert_eq!(list_width(160, 110), 83);
        assert_eq!(list_width(140, 110), 73);
        assert_eq!(list_width(120, 110), 60);
        // A list that wants little still takes a third.
        assert_eq!(list_width(160, 30), 53);
    }
}
