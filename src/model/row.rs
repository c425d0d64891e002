//! Rows of `receipts` and `key_conflicts` as storage reads them, before
//! anything checks them.

use super::ReceiptId;

/// A value of a time column exactly as SQLite handed it over.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    /// A BLOB or anything else that cannot be a time.
    Other(String),
}

/// One row of `receipts` as read, before it is checked. Optional columns that
/// the source lacks are already filled with the contract's defaults (README, "The database contract"), except `digest`,
/// which is `None` when the source has no digest column (it is then computed).
#[derive(Clone, Debug, PartialEq)]
pub struct RawReceipt {
    pub id: ReceiptId,
    pub scope: String,
    pub request_key: Option<String>,
    pub digest: Option<String>,
    /// `Err` holds a description when the stored payload is not text (e.g. a BLOB
    /// that is not UTF-8): such a row is damaged, never dropped.
    pub payload: Result<String, String>,
    pub state: String,
    pub created_at: TimeValue,
    pub updated_at: TimeValue,
}

impl TimeValue {
    pub fn as_ref(&self) -> TimeRef<'_> {
        match self {
            Self::Null => TimeRef::Null,
            Self::Integer(n) => TimeRef::Integer(*n),
            Self::Real(x) => TimeRef::Real(*x),
            Self::Text(t) => TimeRef::Text(t),
            Self::Other(what) => TimeRef::Other(what),
        }
    }
}

/// A value of a time column, borrowed from wherever the row is held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    /// A BLOB or anything else that cannot be a time: its description.
    Other(&'a str),
}

/// One row of `receipts` as read, borrowed: what the analysis inspects. The
/// streaming reader hands these out without copying each value into its own
/// allocation; [`RawReceipt::row`] gives one for an owned row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row<'a> {
    pub id: ReceiptId,
    pub scope: &'a str,
    pub request_key: Option<&'a str>,
    pub digest: Option<&'a str>,
    /// `Err` holds why the stored payload is not text.
    pub payload: Result<&'a str, &'a str>,
    pub state: &'a str,
    pub created_at: TimeRef<'a>,
    pub updated_at: TimeRef<'a>,
}

impl RawReceipt {
    pub fn row(&self) -> Row<'_> {
        Row {
            id: self.id,
            scope: &self.scope,
            request_key: self.request_key.as_deref(),
            digest: self.digest.as_deref(),
            payload: self.payload.as_deref().map_err(String::as_str),
            state: &self.state,
            created_at: self.created_at.as_ref(),
            updated_at: self.updated_at.as_ref(),
        }
    }
}

impl TimeRef<'_> {
    pub fn to_owned_value(self) -> TimeValue {
        match self {
            Self::Null => TimeValue::Null,
            Self::Integer(n) => TimeValue::Integer(n),
            Self::Real(x) => TimeValue::Real(x),
            Self::Text(t) => TimeValue::Text(t.to_string()),
            Self::Other(what) => TimeValue::Other(what.to_string()),
        }
    }
}

impl Row<'_> {
    /// The row, owned.
    pub fn to_raw(&self) -> RawReceipt {
        RawReceipt {
            id: self.id,
            scope: self.scope.to_string(),
            request_key: self.request_key.map(str::to_string),
            digest: self.digest.map(str::to_string),
            payload: self.payload.map(str::to_string).map_err(str::to_string),
            state: self.state.to_string(),
            created_at: self.created_at.to_owned_value(),
            updated_at: self.updated_at.to_owned_value(),
        }
    }
}

/// Every row heard, kept whole: for a few rows (tests, a detail view).
impl RowSink for Vec<RawReceipt> {
    fn row(&mut self, row: &Row<'_>) {
        self.push(row.to_raw());
    }
}

/// One row of `key_conflicts`: a later attempt with the same key and another body.
#[derive(Clone, Debug, PartialEq)]
pub struct RawConflict {
    pub id: i64,
    pub receipt_id: ReceiptId,
    pub digest: String,
    pub payload: String,
    pub received_at: TimeValue,
}

/// Rows held somewhere, handed out one at a time on whichever thread
/// inspects them.
pub trait RowSource: Sync {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`; `buf` is for text the row has to make up.
    fn row<'a>(&'a self, i: usize, buf: &'a mut String) -> Row<'a>;
}

impl RowSource for [Row<'_>] {
    fn len(&self) -> usize {
        <[Row<'_>]>::len(self)
    }

    fn row<'a>(&'a self, i: usize, _buf: &'a mut String) -> Row<'a> {
        self[i]
    }
}

/// Where a reading puts the rows it reads. A reading on several connections
/// has one sink per connection: each receives its own rows, in id order, on one
/// thread, and the sinks together cover the rows in the order of the sinks.
pub trait RowSink: Send {
    fn row(&mut self, row: &Row<'_>);

    /// Many rows at once, read on one connection while the next are read
    /// (a sink may inspect them on every core); by default one by one.
    fn rows(&mut self, rows: &dyn RowSource) {
        let mut buf = String::new();
        for i in 0..rows.len() {
            self.row(&rows.row(i, &mut buf));
        }
    }
}
