//! Styles. Under `NO_COLOR` nothing is coloured: emphasis is bold, reverse
//! video and underline, so the selection and the differences stay visible.

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub no_color: bool,
}

impl Theme {
    pub fn new(no_color: bool) -> Self {
        Theme { no_color }
    }

    fn pick(&self, colour: Style, plain: Style) -> Style {
        if self.no_color { plain } else { colour }
    }

    pub fn plain(&self) -> Style {
        Style::default()
    }

    pub fn title(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::BOLD),
        )
    }

    pub fn dim(&self) -> Style {
        self.pick(
            Style::default().fg(Color::DarkGray),
            Style::default().add_modifier(Modifier::DIM),
        )
    }

    pub fn key(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::BOLD),
        )
    }

    /// The selected row: reverse video in both modes, so it never depends on colour.
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
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    pub fn pending(&self) -> Style {
        self.pick(
            Style::default().fg(Color::Yellow),
            Style::default().add_modifier(Modifier::BOLD),
        )
    }

    pub fn resolved(&self) -> Style {
        self.pick(Style::default().fg(Color::Green), Style::default())
    }

    pub fn warn(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::BOLD),
        )
    }

    pub fn success(&self) -> Style {
        self.pick(Style::default().fg(Color::Green), Style::default())
    }

    pub fn banner(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        )
    }

    pub fn tab(&self, active: bool) -> Style {
        if active {
            self.pick(
                Style::default()
                    .fg(Color::Black)
                    .bg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
                Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            )
        } else {
            Style::default()
        }
    }

    /// A list's column header.
    pub fn head(&self) -> Style {
        self.dim().add_modifier(Modifier::UNDERLINED)
    }

    /// The words or characters that differ inside a differing field: not by
    /// colour alone (reverse video), so it shows under `NO_COLOR` too.
    pub fn changed(&self) -> Style {
        self.pick(
            Style::default()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        )
    }

    pub fn pane_title(&self, focused: bool) -> Style {
        if focused {
            self.title().add_modifier(Modifier::UNDERLINED)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        }
    }
}
