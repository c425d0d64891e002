//! Giving memory freed by a reading back to the system.
//!
//! glibc keeps freed memory in the arena of the thread that freed it, and
//! keeps the top of each heap while it is below a threshold that grows with
//! the largest block freed (up to 64 MB an arena). A reading frees its
//! passing buffers on every core's thread, and the screen's thread does not
//! reuse them, so without this the process holds them for good.

/// Returns every wholly free page of the allocator's heaps to the system
/// (1–10 ms after a reading of a million receipts). Call it where a reading
/// has just let go of a lot, off the screen's path.
pub fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer; it walks the allocator's own
    // free lists under the allocator's locks.
    unsafe {
        libc::malloc_trim(0);
    }
}
