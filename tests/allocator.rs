//! The allocator as `memory::keep_large_blocks_apart` leaves it. A test binary of its
//! own: the allocator's settings and counts are the whole process's.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

/// Bytes the allocator holds in blocks on pages of their own.
fn on_own_pages() -> usize {
    // SAFETY: `mallinfo2` takes no pointer and only reads the allocator's counts.
    unsafe { libc::mallinfo2() }.hblkhd
}

#[test]
fn a_large_block_keeps_pages_of_its_own_after_a_larger_one_was_freed() {
    receipt_review::memory::keep_large_blocks_apart();
    // Left to itself, glibc would now carve blocks up to 16 MB from an arena.
    drop(std::hint::black_box(vec![1u8; 16 << 20]));
    let before = on_own_pages();
    let block = std::hint::black_box(vec![1u8; 4 << 20]);
    let grew = on_own_pages() - before;
    drop(block);
    assert!(
        grew >= 4 << 20,
        "a 4 MB block came from an arena ({grew} bytes on own pages)"
    );
    assert_eq!(
        on_own_pages(),
        before,
        "a freed block's pages are given back"
    );
}
