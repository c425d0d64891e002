//! (in progress)
pub mod model;
