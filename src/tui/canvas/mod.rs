pub fn draw(_f: &mut ratatui::Frame, _a: &crate::tui::app::App) {}
