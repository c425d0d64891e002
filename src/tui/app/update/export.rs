//! Taking the review log out: the choice of file, sent to the worker.

use super::super::msg::Effect;
use super::super::state::{App, EXPORT_CHOICES, export_label};
use super::status::working;
use crate::review::ExportFile;
use crate::t;

/// The dialog's choice `steps` places on from `choice`, round the end.
pub(super) fn next_export_choice(choice: ExportFile, steps: usize) -> ExportFile {
    let at = EXPORT_CHOICES
        .iter()
        .position(|c| *c == choice)
        .unwrap_or(0);
    EXPORT_CHOICES[(at + steps) % EXPORT_CHOICES.len()]
}

pub(super) fn export(app: &mut App, file: ExportFile, effects: &mut Vec<Effect>) {
    app.overlay = None;
    let name = export_label(file, app.lang);
    working(app, t!(app.lang, "status.exporting", name = name));
    effects.push(Effect::Export(file));
}
