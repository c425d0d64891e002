//! Styles, in the palette the operator chose: for a dark background, for a
//! light one, or none at all (`NO_COLOR`), where emphasis is bold, reverse
//! video and underline, so the selection and the differences stay visible.

use ratatui::style::{Color, Modifier, Style};

use crate::tui::app::palette::Palette;

/// Dark orange and dark green: yellow and bright green vanish on white.
const LIGHT_PENDING: Color = Color::Indexed(130);
const LIGHT_GOOD: Color = Color::Indexed(28);

#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub palette: Palette,
}

impl Theme {
    pub fn new(palette: Palette) -> Self {
        Theme { palette }
    }

    fn pick(&self, dark: Style, light: Style, plain: Style) -> Style {
        match self.palette {
            Palette::Dark => dark,
            Palette::Light => light,
            Palette::Plain => plain,
        }
    }

    fn fg(colour: Color) -> Style {
        Style::default().fg(colour)
    }

    fn bold() -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    pub fn plain(&self) -> Style {
        Style::default()
    }

    pub fn title(&self) -> Style {
        self.pick(
            Self::fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Self::fg(Color::Blue).add_modifier(Modifier::BOLD),
            Self::bold(),
        )
    }

    pub fn dim(&self) -> Style {
        self.pick(
            Self::fg(Color::DarkGray),
            Self::fg(Color::DarkGray),
            Style::default().add_modifier(Modifier::DIM),
        )
    }

    pub fn key(&self) -> Style {
        self.title()
    }

    /// The selected row: reverse video in every palette, so it never depends on colour.
    pub fn selected(&self, focused: bool) -> Style {
        let base = Style::default().add_modifier(Modifier::REVERSED);
        if focused {
            base.add_modifier(Modifier::BOLD)
        } else {
            base
        }
    }

    pub fn differs(&self) -> Style {
        self.pick(
            Self::fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Self::fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    pub fn pending(&self) -> Style {
        self.pick(
            Self::fg(Color::Yellow),
            Self::fg(LIGHT_PENDING),
            Self::bold(),
        )
    }

    pub fn resolved(&self) -> Style {
        self.pick(
            Self::fg(Color::Green),
            Self::fg(LIGHT_GOOD),
            Style::default(),
        )
    }

    pub fn warn(&self) -> Style {
        self.pick(
            Self::fg(Color::LightRed).add_modifier(Modifier::BOLD),
            Self::fg(Color::Red).add_modifier(Modifier::BOLD),
            Self::bold(),
        )
    }

    pub fn success(&self) -> Style {
        self.resolved()
    }

    pub fn banner(&self) -> Style {
        let red = Style::default()
            .fg(Color::White)
            .bg(Color::Red)
            .add_modifier(Modifier::BOLD);
        self.pick(
            red,
            red,
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        )
    }

    pub fn tab(&self, active: bool) -> Style {
        if !active {
            return Style::default();
        }
        self.pick(
            Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            Style::default()
                .fg(Color::White)
                .bg(Color::Blue)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        )
    }

    /// A list's column header.
    pub fn head(&self) -> Style {
        self.dim().add_modifier(Modifier::UNDERLINED)
    }

    /// The words or characters that differ inside a differing field: not by
    /// colour alone (reverse video), so it shows without colour too.
    pub fn changed(&self) -> Style {
        let on = |bg| {
            Style::default()
                .fg(Color::Black)
                .bg(bg)
                .add_modifier(Modifier::BOLD)
        };
        self.pick(
            on(Color::Yellow),
            on(Color::LightYellow),
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        )
    }

    pub fn pane_title(&self, focused: bool) -> Style {
        if focused {
            self.title().add_modifier(Modifier::UNDERLINED)
        } else {
            Self::bold()
        }
    }
}
