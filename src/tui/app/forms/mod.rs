//! The Forms tab's state: the period shown, the selected form and pathway,
//! and the per-form view of the current reading (made again only when the
//! reading, the period or the text filter changes).
//!
//! - [`update`]: its keys (move, period, into the pathways, to the example).

pub mod update;

use std::sync::Arc;

use crate::forms::{Finding, FormRow, Forms, Period};
use crate::reading::Snapshot;

use super::search::normalize_query;

/// What the view was made for: the reading (by address), the period and the
/// folded filter.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MadeFor {
    snapshot: usize,
    period: Period,
    query: String,
}

#[derive(Clone, Debug, Default)]
pub struct FormsState {
    pub period: Period,
    /// The selected form, an index into [`FormsState::rows`].
    pub selected: usize,
    /// The selected pathway of the selected form.
    pub pathway: usize,
    view: Option<(MadeFor, Arc<Forms>, Vec<usize>)>,
}

impl FormsState {
    /// The per-form view, once a reading has arrived.
    pub fn view(&self) -> Option<&Forms> {
        self.view.as_ref().map(|(_, f, _)| &**f)
    }

    /// The forms shown (under the text filter): indices into the view's rows.
    pub fn rows(&self) -> &[usize] {
        self.view.as_ref().map_or(&[], |(_, _, rows)| rows)
    }

    pub fn selected_form(&self) -> Option<&FormRow> {
        let (_, forms, rows) = self.view.as_ref()?;
        forms.rows.get(*rows.get(self.selected)?)
    }

    pub fn selected_finding(&self) -> Option<&Finding> {
        self.selected_form()?.pathways.get(self.pathway)
    }

    /// Makes the view again if the reading, the period or the filter changed
    /// since, keeping the selection on the same form.
    pub fn refresh(&mut self, snapshot: Option<&Arc<Snapshot>>, filter: &str) {
        let Some(snap) = snapshot else {
            self.view = None;
            return;
        };
        let made_for = MadeFor {
            snapshot: Arc::as_ptr(snap) as usize,
            period: self.period,
            query: normalize_query(filter),
        };
        if self.view.as_ref().is_some_and(|(m, _, _)| *m == made_for) {
            return;
        }
        let before = self.selected_form().map(|r| r.scope.clone());
        let pathway = self.selected_finding().map(|f| f.pathway);
        let forms = Arc::new(crate::forms::compute(snap, self.period));
        let rows: Vec<usize> = forms
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                made_for.query.is_empty() || normalize_query(&r.scope).contains(&made_for.query)
            })
            .map(|(i, _)| i)
            .collect();
        self.view = Some((made_for, forms, rows));
        let found = before.and_then(|scope| {
            self.rows()
                .iter()
                .position(|&i| self.view().is_some_and(|f| f.rows[i].scope == scope))
        });
        self.selected = found.unwrap_or(self.selected);
        self.clamp();
        if let Some(p) = pathway {
            let at = self
                .selected_form()
                .and_then(|r| r.pathways.iter().position(|f| f.pathway == p));
            self.pathway = at.unwrap_or(0);
        }
        self.clamp();
    }

    /// Keeps the selection on a form and a pathway that are there.
    pub fn clamp(&mut self) {
        self.selected = self.selected.min(self.rows().len().saturating_sub(1));
        let pathways = self.selected_form().map_or(0, |r| r.pathways.len());
        self.pathway = self.pathway.min(pathways.saturating_sub(1));
    }
}
