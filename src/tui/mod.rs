//! The review screen: `app` (state + pure update), `canvas` (pure drawing),
//! and the runtime that does the I/O.

pub mod app;
pub mod canvas;
