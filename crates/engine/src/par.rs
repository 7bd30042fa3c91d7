//! Mapping a slice where there are threads: natively on several ([`crate::parallel`]), in wasm
//! on the one it has. A leaf module (it imports no other), so any stage may use it.

/// `f` over `items` in order: on `threads` threads natively ([`crate::parallel`], falling back
/// to one when a thread fails), on one in wasm.
pub fn map_items<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    #[cfg(not(target_arch = "wasm32"))]
    if threads > 1 && items.len() > 1 {
        if let Some(out) = crate::parallel::map_on_threads(items, threads, &f) {
            return out;
        }
    }
    let _ = threads;
    items.iter().map(f).collect()
}
