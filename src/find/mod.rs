//! Finding any receipt, not only those in an item: by the text of its
//! fields, its request key, scope or number, and by when it arrived, in the
//! operator's time zone.
//!
//! - [`query`]: what was typed, read ([`Query`]), times written the
//!   Japanese way too ([`japanese_time`]);
//! - [`scan`]: one pass over every receipt of the database, keeping the
//!   newest matches and the counts a miss is explained with; names and
//!   phone numbers are compared without the spaces and dashes that only
//!   part them ([`loose`]);
//! - [`around`]: the analysis the hits need, read around them alone
//!   ([`timeline`]: when each receipt arrived, kept by the scan for it);
//! - [`hits`]: each match with its state, replays, items and fields;
//! - [`text`], [`json`]: the answer for people and for scripts.

pub mod around;
pub mod hits;
pub mod japanese_time;
pub mod json;
pub mod loose;
pub mod prefilter;
pub mod query;
pub mod scan;
pub mod text;
pub mod timeline;

pub use hits::{Hit, ItemRef, Outcome, assemble, miss};
pub use query::{Query, QueryError, parse, parse_in};
pub use scan::{FormCounts, FoundIn, Scan, search, search_with_timeline};
pub use timeline::Timeline;
