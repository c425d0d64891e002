//! Where ratatui's frames end in the byte stream, and whether each drew anything.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// Every draw ends by setting the cursor's visibility.
static FRAME_END: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\x1b\[\?25[lh]").unwrap());
/// A control sequence: colours, cursor moves, erases.
static CSI: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\x1b\[[0-?]*[ -/]*[@-~]").unwrap());

/// Splits the screen's output into frames across reads.
#[derive(Default)]
pub struct Frames {
    /// Bytes since the last frame's end.
    pending: Vec<u8>,
}

impl Frames {
    /// The frames that end in `data`, in order: whether each has content.
    pub fn feed(&mut self, data: &[u8]) -> Vec<bool> {
        self.pending.extend_from_slice(data);
        let mut ends = Vec::new();
        let mut start = 0;
        for end in FRAME_END.find_iter(&self.pending) {
            ends.push(has_content(&self.pending[start..end.start()]));
            start = end.end();
        }
        self.pending.drain(..start);
        ends
    }
}

/// True when anything but control sequences (and stray ESC bytes at either
/// end) is left in a frame.
fn has_content(segment: &[u8]) -> bool {
    let text = CSI.replace_all(segment, &b""[..]);
    text.iter().any(|&b| b != 0x1b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redraw_of_colours_only_is_no_content() {
        let mut frames = Frames::default();
        assert_eq!(frames.feed(b"\x1b[0m\x1b[1;1H\x1b[?25l"), vec![false]);
        assert_eq!(frames.feed(b"\x1b[2;3Hab\x1b[?25"), Vec::<bool>::new());
        assert_eq!(frames.feed(b"h\x1b[?25l"), vec![true, false]);
    }
}
