//! How the process gets its memory from the kernel.

/// Asks Linux to back this process's memory with ordinary 4 KB pages, never transparent huge
/// pages; call it first thing in `main`. Elsewhere, or when the caller chose for themselves with
/// `MIMALLOC_ALLOW_THP` in the environment, it does nothing.
///
/// Why: mimalloc asks for huge pages (`madvise(MADV_HUGEPAGE)`) for its arenas. Under the common
/// `defrag = madvise` setting the kernel then compacts memory *inside the page fault* whenever no
/// free 2 MB page is at hand, and clears 2 MB for every huge page first touched, however little
/// of it is used. On the benchmark machine touching fresh memory cost a steady 0.44 ms per MB with
/// 4 KB pages, and anywhere from 0.05 to 2.4 ms per MB with huge pages, from one minute to the
/// next. A run's model is ~100 MB of small allocations that are each written once: huge pages buy
/// it nothing, and they made loading a 100k-turn trace folder take 0.23–0.40 s instead of a
/// steady 0.24–0.28 s (docs/performance.md, session 8).
pub fn small_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // Best effort: an old kernel without the flag keeps huge pages, which is only slower.
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn small_pages_turns_huge_pages_off_for_the_process() {
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() {
            return; // the user's choice stands; nothing to check
        }
        super::small_pages();
        // The flag belongs to the process: every thread sees it.
        let seen = std::thread::spawn(rustix::thread::transparent_huge_pages_are_disabled)
            .join()
            .expect("thread ran");
        assert!(matches!(seen, Ok(true)), "{seen:?}");
    }
}
