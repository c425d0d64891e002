//! Memory a reading freed goes back to the system when the worker asks
//! (its own process: other tests' allocations would move the numbers).

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn freed_memory_in_the_middle_of_the_heap_goes_back() {
    fn rss_kb() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
    // Blocks below the size glibc maps on their own, each written to and
    // followed by a small one that stays: freed, they lie between blocks in
    // use, where the allocator keeps them.
    let (blocks, pins): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (0..640)
        .map(|_| (vec![1u8; 64 * 1024], vec![1u8; 64]))
        .unzip();
    drop(blocks);
    let kept = rss_kb();
    receipt_review::memory::give_back_freed();
    let after = rss_kb();
    // 40 MB were freed; most of it leaves the process now.
    assert!(
        after + 30 * 1024 < kept,
        "RSS {kept} kB after freeing, {after} kB after giving back"
    );
    assert!(pins.iter().all(|p| p == &[1u8; 64]));
}
