//! The page's one sort: every list the page orders (picked files, dropped folders, error types,
//! the route's screen choices) goes through [`order`], a short merge sort of text keys, so the
//! page links no copy of std's sorts (each `sort_by` over its own type and closure was its own
//! instantiation of std's stable sort, several KB of wasm each; docs/dashboard.md § Size).

/// The permutation that orders `keys` by their bytes; equal keys keep their order (stable).
pub fn order(keys: &[String]) -> Vec<usize> {
    let n = keys.len();
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut i = 0;
        while i < n {
            let (mid, end) = ((i + width).min(n), (i + 2 * width).min(n));
            let (mut l, mut r) = (i, mid);
            for slot in &mut b[i..end] {
                if l < mid && (r >= end || keys[a[l]] <= keys[a[r]]) {
                    *slot = a[l];
                    l += 1;
                } else {
                    *slot = a[r];
                    r += 1;
                }
            }
            i = end;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Sorts `v` by `key` (stable), through [`order`].
pub fn sort_by_key<T>(v: &mut Vec<T>, key: impl Fn(&T) -> String) {
    let keys: Vec<String> = v.iter().map(key).collect();
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(order(&keys).into_iter().filter_map(|i| slots[i].take()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same order as std's stable sort, ties included, for lists of every length up to 40.
    #[test]
    fn orders_as_the_stable_sort() {
        let mut seed = 7u64;
        for n in 0..40 {
            let v: Vec<(String, usize)> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (format!("k{}", (seed >> 33) % 7), i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by(|a, b| a.0.cmp(&b.0));
            let mut got = v;
            sort_by_key(&mut got, |x| x.0.clone());
            assert_eq!(got, want, "n = {n}");
        }
        let keys: Vec<String> = ["b", "", "ab", "a", "é", "a"].map(String::from).to_vec();
        assert_eq!(order(&keys), [1, 3, 5, 2, 0, 4]);
    }
}
