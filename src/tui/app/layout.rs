//! Where things go on the screen. Shared by `update` (page sizes, scrolling)
//! and the canvas (drawing), so the two always agree.

use ratatui::layout::Rect;

use super::state::Focus;

pub use super::screen_size::{MIN_HEIGHT, MIN_WIDTH};
/// From this width on, list and detail stand side by side.
pub const WIDE: u16 = 120;

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

pub fn areas(area: Rect, read_only: bool, focus: Focus) -> Areas {
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
        let list_w = body.width * 2 / 5;
        (
            Rect::new(body.x, body.y, list_w, body.height),
            Rect::new(body.x + list_w, body.y, body.width - list_w, body.height),
        )
    } else {
        let list_h = match focus {
            // Reading the detail: the list keeps a few rows for context.
            Focus::Detail => 4.min(body.height),
            Focus::List => (body.height * 2 / 5).max(4).min(body.height),
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
    let a = areas(Rect::new(0, 0, size.0, size.1), read_only, focus);
    usize::from(a.list.height.saturating_sub(1)).max(1)
}

/// How many rows of the detail pane are visible (its title line aside).
pub fn detail_rows(size: (u16, u16), read_only: bool, focus: Focus) -> usize {
    let a = areas(Rect::new(0, 0, size.0, size.1), read_only, focus);
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
            for focus in [Focus::List, Focus::Detail] {
                let a = areas(area, ro, focus);
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
}
