//! Setting the allocator up for large readings, giving memory freed by a
//! reading back to the system, and freeing a large analysis off the
//! caller's path.
//!
//! glibc keeps freed memory in the arena of the thread that freed it, and
//! gives back by itself only the free top of a heap. A reading frees its
//! passing buffers on every core's thread, and the screen's thread does not
//! reuse them, so without [`give_back_freed`] the process holds them for good.

/// How large a block is before it gets pages of its own, given back as soon
/// as it is freed. glibc raises this limit each time such a block is freed
/// (up to 32 MB), so a reading's large buffers, grown and freed, end up
/// carved from the arenas, where what is left around them stays held and
/// the screen's peak swings from one reading to the next. Held here, the
/// peak is steady; much lower, each refresh would fault in fresh pages for
/// every buffer it makes.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const OWN_PAGES_FROM: libc::c_int = 2 << 20;

/// Lets the allocator keep one arena per core (glibc's default is eight
/// per core). Each arena holds on to what was freed in it; with fewer, what
/// a reading's threads freed serves the next reading's instead of being held
/// apart. Call it first thing, before any thread starts.
pub fn one_arena_per_core() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: `mallopt` takes no pointer; it sets one of the allocator's
        // parameters under its lock.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Gives blocks of 2 MB and more pages of their own, for a process that
/// reads again and again and stays (see [`OWN_PAGES_FROM`]). Not for one
/// that reads once and ends: it would fault in more pages to save memory it
/// does not need.
pub fn keep_large_blocks_apart() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` takes no pointer; it sets one of the allocator's
    // parameters under its lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_PAGES_FROM);
    }
}

/// Returns every wholly free page of the allocator's heaps to the system
/// (it takes milliseconds after a large reading). Call it where a reading
/// has just freed a lot, off the screen's path.
pub fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer; it walks the allocator's own
    // free lists under the allocator's locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Drops `value` on a thread of its own: a caller that has used a large
/// analysis goes on (or ends) without waiting for it to be freed piece by
/// piece (25-30 ms at a million receipts).
pub fn free_later<T: Send + 'static>(value: T) {
    // When no thread can be started, the closure, and `value`, drop here.
    let _ = std::thread::Builder::new()
        .name("receipt-review-free".into())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    struct Tells(mpsc::Sender<Option<String>>);

    impl Drop for Tells {
        fn drop(&mut self) {
            let _ = self
                .0
                .send(std::thread::current().name().map(str::to_string));
        }
    }

    #[test]
    fn what_is_freed_later_is_freed_on_another_thread() {
        let (tx, rx) = mpsc::channel();
        super::free_later(Tells(tx));
        let dropped_on = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("hung: the value was never dropped");
        assert_eq!(dropped_on.as_deref(), Some("receipt-review-free"));
    }
}
