//! One traffic model for both sinks: who visits a form, what they type, and the timed requests
//! each pathway makes. The demo writes these visits through the intake store
//! ([`crate::demo`]); `simulate` sends them over HTTP to a running server
//! ([`crate::simulate`]). Pure: everything is drawn from the caller's seeded generator.
//!
//! - [`texts`]: names, addresses and messages in Japanese and English, and spam;
//! - [`inquiry`]: what one visitor typed, and the roles of a form's fields;
//! - [`page`]: what the page adds to a click (event id, clock, campaign tag) and its keys;
//! - [`visit`]: the pathways, and one visit's timed attempts;
//! - [`profile`]: the timings and habits each sink draws visits with.

pub mod inquiry;
pub mod page;
pub mod profile;
pub mod texts;
pub mod visit;

pub use inquiry::{FieldRole, Inquiry};
pub use profile::Profile;
pub use visit::{Attempt, Content, Dropped, KeyUse, Visit, VisitKind};
