//! Native only: map a slice on several threads (the CLI and benches read and parse a folder's
//! files on every core; wasm has one thread and never compiles this module).

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` applied to every item on `threads` threads, results in item order. Threads take the next
/// item as they finish one, so put the biggest items first. `None` when `f` panicked on some
/// thread (the caller falls back or reports it).
pub fn map_on_threads<T, R, F>(items: &[T], threads: usize, f: F) -> Option<Vec<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let parts: Vec<Option<Vec<(usize, R)>>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, f(item)));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().ok()).collect()
    });
    let mut out: Vec<(usize, R)> = Vec::with_capacity(items.len());
    for part in parts {
        out.extend(part?);
    }
    out.sort_by_key(|(i, _)| *i);
    Some(out.into_iter().map(|(_, r)| r).collect())
}

#[cfg(test)]
mod tests {
    use super::map_on_threads;

    #[test]
    fn results_keep_item_order_on_any_thread_count() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in [0, 1, 2, 7, 5000] {
            let got = map_on_threads(&items, threads, |x| x * x).expect("no panic");
            assert_eq!(got, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
        assert_eq!(map_on_threads(&[] as &[u8], 4, |x| *x), Some(vec![]));
    }

    #[test]
    fn a_panicking_item_is_none_not_a_crash() {
        let items = [1, 2, 3, 4];
        let r = map_on_threads(&items, 2, |x| {
            assert!(*x != 3, "boom");
            *x
        });
        assert_eq!(r, None);
    }
}
