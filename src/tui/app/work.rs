//! The items of the reading a keypress looks at, counted in the crate's own
//! tests: a key's work has to follow the rows on screen (and, while a filter
//! is typed, the items of the tab shown), never every item the reading
//! holds. A count says so on any machine, where a timing would not.

#[cfg(test)]
thread_local! {
    static ITEMS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `n` items of the reading were looked at (counted in tests only: this is
/// nothing in the program).
#[inline(always)]
pub fn items(n: usize) {
    #[cfg(test)]
    ITEMS.with(|c| c.set(c.get() + n));
    #[cfg(not(test))]
    let _ = n;
}

/// The items counted on this thread since the last call.
#[cfg(test)]
pub fn take() -> usize {
    ITEMS.with(|c| c.replace(0))
}
