//! `engine::stats`: statistics from mergeable counts. Shards of a run merged give the
//! statistics of the whole (a property test over random splits), and the paired bootstrap gives
//! the bounds in `tests/fixtures/vectors/bootstrap.tsv` bit for bit — the file `tests/web.rs`
//! checks in wasm32 in Chromium, so native and wasm draw the same.

use evalboard_engine::compare::{CompareOptions, PairedStats};
use evalboard_engine::stats::{paired_bootstrap, ClusterSums, Moments, PairCounts, Rate};
use proptest::prelude::*;

/// The bootstrap vectors: counts, resamples and seed, then the bounds' bits.
fn vectors() -> String {
    let cases: [(PairCounts, u32, u64); 8] = [
        (counts(16, 5, 0, 27), 10_000, 42),
        (counts(12, 4, 9, 15), 10_000, 42),
        (counts(0, 0, 0, 1), 10_000, 42),
        (counts(3, 0, 0, 0), 1, 7),
        (counts(40_000, 6_000, 4_000, 50_000), 10_000, 42),
        (counts(10, 1, 1, 10), 200, 3),
        (counts(500_000, 12_345, 12_999, 474_656), 2_000, 9),
        (counts(1, 1, 1, 1), 10_000, 1 << 52),
    ];
    let mut out =
        String::from("# n11\tn10\tn01\tn00\tresamples\tseed\tlow (f64 bits)\thigh (f64 bits)\n");
    for (c, r, seed) in cases {
        let b = paired_bootstrap(c, r, seed);
        let bits =
            |x: Option<f64>| x.map_or("none".to_string(), |v| format!("{:016x}", v.to_bits()));
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{r}\t{seed}\t{}\t{}\n",
            c.n11,
            c.n10,
            c.n01,
            c.n00,
            bits(b.low),
            bits(b.high)
        ));
    }
    out
}

fn counts(n11: u64, n10: u64, n01: u64, n00: u64) -> PairCounts {
    PairCounts { n11, n10, n01, n00 }
}

#[test]
fn bootstrap_vectors_are_stable() {
    let path = evalboard_test_support::fixture("vectors/bootstrap.tsv");
    evalboard_test_support::expect_file(&path, &vectors());
}

#[test]
fn paired_stats_from_counts_alone() {
    let s = PairedStats::from_counts(counts(16, 5, 0, 27), &CompareOptions::default());
    assert_eq!(s.n_paired, 48);
    assert_eq!(s.baseline_accuracy, Some(21.0 / 48.0));
    assert_eq!(s.candidate_accuracy, Some(16.0 / 48.0));
    assert_eq!(s.accuracy_delta, Some(-5.0 / 48.0));
    assert_eq!(s.mcnemar_p, 0.0625);
    assert_eq!(s.flips.regressed, 5);
}

proptest! {
    /// Any split of a run's items into shards, merged, gives the statistics of the whole.
    #[test]
    fn shards_merge_into_the_whole(
        items in proptest::collection::vec((any::<bool>(), any::<bool>(), 0u8..=4, 1usize..4), 0..200),
        cuts in proptest::collection::vec(0usize..200, 0..6),
    ) {
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(items.len())).collect();
        bounds.push(0);
        bounds.push(items.len());
        bounds.sort_unstable();
        let stats = |part: &[(bool, bool, u8, usize)]| {
            let (mut pc, mut rate, mut m, mut cl) =
                (PairCounts::default(), Rate::default(), Moments::default(), ClusterSums::default());
            for &(b, c, score, epochs) in part {
                pc.push(b, c);
                rate.push(c);
                let x = f64::from(score) / 4.0;
                m.push(x);
                cl.push_cluster(&vec![x; epochs]);
            }
            (pc, rate, m, cl)
        };
        let whole = stats(&items);
        let (mut pc, mut rate, mut m, mut cl) =
            (PairCounts::default(), Rate::default(), Moments::default(), ClusterSums::default());
        for w in bounds.windows(2) {
            let part = stats(&items[w[0]..w[1]]);
            pc.merge(&part.0);
            rate.merge(&part.1);
            m.merge(&part.2);
            cl.merge(&part.3);
        }
        prop_assert_eq!(pc, whole.0);
        prop_assert_eq!(rate, whole.1);
        prop_assert_eq!(m.n, whole.2.n);
        prop_assert!((m.mean - whole.2.mean).abs() < 1e-12);
        prop_assert!((m.m2 - whole.2.m2).abs() < 1e-9);
        prop_assert_eq!(cl.clusters, whole.3.clusters);
        let (a, b) = (cl.stderr(), whole.3.stderr());
        prop_assert_eq!(a.is_some(), b.is_some());
        if let (Some(a), Some(b)) = (a, b) {
            prop_assert!((a - b).abs() < 1e-9, "{} vs {}", a, b);
        }
        // The bootstrap of merged counts is the bootstrap of the whole.
        prop_assert_eq!(paired_bootstrap(pc, 100, 5), paired_bootstrap(whole.0, 100, 5));
    }
}
