//! Which colours the screen draws in: chosen by the command line from the
//! config file's `theme` and `NO_COLOR`; the canvas turns it into styles.

/// The screen's colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Palette {
    /// For a dark terminal background (the default).
    #[default]
    Dark,
    /// For a light terminal background.
    Light,
    /// No colour at all (`NO_COLOR`): emphasis by bold, reverse video and
    /// underline only.
    Plain,
}

impl Palette {
    /// The theme a config file names: `dark` or `light`.
    pub fn parse(name: &str) -> Option<Palette> {
        match name.trim().to_ascii_lowercase().as_str() {
            "dark" => Some(Palette::Dark),
            "light" => Some(Palette::Light),
            _ => None,
        }
    }

    /// `theme`, unless `NO_COLOR` asks for none: it wins over any file.
    pub fn chosen(theme: Palette, no_color: bool) -> Palette {
        if no_color { Palette::Plain } else { theme }
    }

    pub fn name(self) -> &'static str {
        match self {
            Palette::Dark => "dark",
            Palette::Light => "light",
            Palette::Plain => "none",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_wins_over_the_theme() {
        assert_eq!(Palette::chosen(Palette::Light, true), Palette::Plain);
        assert_eq!(Palette::chosen(Palette::Light, false), Palette::Light);
        assert_eq!(Palette::parse(" Light "), Some(Palette::Light));
        assert_eq!(Palette::parse("solarized"), None);
    }
}
