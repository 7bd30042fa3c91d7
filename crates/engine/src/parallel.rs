//! Native only: map a slice on several threads (the CLI and benches read and parse a folder's
//! files on every core; wasm has one thread and never compiles this module).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to every item on `threads` threads, results in item order. Threads take the next
/// item as they finish one, so put the biggest items first. `None` when `f` panicked on some
/// thread (the caller falls back or reports it).
///
/// Each result goes straight into its slot of the one output vector: a folder of 28 589 files
/// has as many results, and every extra vector of them (per-thread parts, a sorted copy) was
/// megabytes of fresh memory, which is slow to touch on the machines this runs on.
pub fn map_on_threads<T, R, F>(items: &[T], threads: usize, f: F) -> Option<Vec<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(items.len()).collect());
    let finished: Vec<bool> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    // `f` runs outside the lock, so a panic in it cannot poison the slots.
                    if let Ok(mut slots) = slots.lock() {
                        if let Some(slot) = slots.get_mut(i) {
                            *slot = Some(r);
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().is_ok()).collect()
    });
    if !finished.iter().all(|&ok| ok) {
        return None;
    }
    let slots = slots.into_inner().ok()?;
    // Every slot is filled once every thread finished; collected in place.
    let out: Vec<R> = slots.into_iter().map_while(|r| r).collect();
    (out.len() == items.len()).then_some(out)
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
