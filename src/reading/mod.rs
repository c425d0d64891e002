//! Readings of a receipts database: what the report, `check`, `resolve` and
//! the screen all work from.
//!
//! - [`reader`]: [`Reader`], the one pipeline (a first reading, then the rows
//!   appended since), and [`read`] for a reading once;
//! - [`snapshot`]: [`Snapshot`], the analysis with the review log joined in;
//! - [`receipts`]: the receipts the items show, compact and shared between
//!   readings;
//! - [`shown`]: which receipts the items show, kept up to date between readings;
//! - [`subset`]: some receipts alone, analysed as if they were all;
//! - [`stage`]: where a reading is, for a progress display.

mod compact_sink;
pub mod reader;
pub mod receipts;
pub mod shown;
pub mod snapshot;
pub mod stage;
pub mod subset;

pub use reader::{Extent, PendingReceipts, Reader, read, read_with_receipts};
pub use receipts::{CompactReceipts, Receipts, View};
pub use snapshot::{ItemReview, LogLine, Snapshot, Target, find_item, shown_ids};
pub use stage::{Progress, ReadingStage};
pub use subset::Subsets;
