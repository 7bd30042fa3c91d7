//! Repeats (issue 28, classes 3 and 6): pass@k, pass^k and at_least_k against an independent
//! computation (every `k`-subset of an item's repeats enumerated, n = 1..5, k = 1..n, every
//! number of correct repeats), the item-clustered standard error against Inspect AI's
//! `stderr(cluster=...)` on hand-made items (1–5 epochs, clusters of unequal size; the numbers
//! `tests/fixtures/evallog/make_issue28_repeats.py` printed with inspect_ai 0.3.285), and the
//! reducers against the logs Inspect wrote with `--epochs N --epochs-reducer ...`.

use evalboard_engine::evallog::{self, EvalLogRun};
use evalboard_engine::repeats::{group, ItemRepeats, Reduction, RepeatSummary};
use evalboard_engine::run_table::ItemKey;
use evalboard_engine::stats::{at_least_k, pass_at_k, pass_hat_k, ClusterSums, MeanDiff};
use evalboard_engine::InputFile;
use evalboard_test_support::{fixture, read_folder};

/// Over every `k`-subset of `n` repeats (as bit masks) of which the first `c` are correct:
/// the share holding a correct one (pass@k) and the share holding only correct ones (pass^k).
fn by_enumeration(n: u32, c: u32, k: u32) -> (f64, f64) {
    let correct: u32 = (1 << c) - 1;
    let (mut subsets, mut any, mut all) = (0u32, 0u32, 0u32);
    for mask in 0u32..(1 << n) {
        if mask.count_ones() != k {
            continue;
        }
        subsets += 1;
        any += u32::from(mask & correct != 0);
        all += u32::from(mask & !correct == 0);
    }
    (
        f64::from(any) / f64::from(subsets),
        f64::from(all) / f64::from(subsets),
    )
}

#[test]
fn pass_at_k_and_pass_hat_k_equal_the_share_of_subsets() {
    for n in 1..=5u32 {
        for k in 1..=n {
            for c in 0..=n {
                let (at, hat) = by_enumeration(n, c, k);
                let (n64, c64, k64) = (u64::from(n), u64::from(c), u64::from(k));
                let got_at = pass_at_k(n64, c64, k64).unwrap();
                let got_hat = pass_hat_k(n64, c64, k64).unwrap();
                assert!(
                    (got_at - at).abs() < 1e-12,
                    "pass@{k} n={n} c={c}: {got_at} vs {at}"
                );
                assert!(
                    (got_hat - hat).abs() < 1e-12,
                    "pass^{k} n={n} c={c}: {got_hat} vs {hat}"
                );
                assert_eq!(at_least_k(c64, k64), if c >= k { 1.0 } else { 0.0 });
                // The reducers give the same from the readings themselves.
                let readings: Vec<f64> = (0..n).map(|i| if i < c { 1.0 } else { 0.0 }).collect();
                let r = |red: Reduction| red.reduce(&readings).unwrap();
                assert_eq!(r(Reduction::PassAt(k64)), got_at);
                assert_eq!(r(Reduction::PassHat(k64)), got_hat);
                assert_eq!(r(Reduction::AtLeast(k64)), at_least_k(c64, k64));
            }
            // Fewer scored repeats than k: undefined, as Inspect's NaN.
            assert_eq!(pass_at_k(u64::from(k) - 1, 0, u64::from(k)), None);
            assert_eq!(pass_hat_k(u64::from(k) - 1, 0, u64::from(k)), None);
        }
    }
    // pass@1 and pass^1 are the share correct.
    assert_eq!(pass_at_k(4, 3, 1), Some(0.75));
    assert_eq!(pass_hat_k(4, 3, 1), Some(0.75));
}

/// Hand-made items' epoch-level scores and Inspect's `stderr(cluster="item")` of them, as
/// `make_issue28_repeats.py` printed it with inspect_ai 0.3.285.
const INSPECT_CLUSTERED: [(&[&[f64]], f64); 5] = [
    (&[&[1.0], &[0.0], &[1.0]], 0.3333333333333333),
    (&[&[1.0, 0.0], &[1.0, 1.0, 1.0], &[0.0]], 0.2545875386086578),
    (
        &[
            &[1.0, 1.0, 0.0, 1.0],
            &[0.0, 0.0],
            &[1.0, 0.0, 1.0, 0.0, 1.0],
            &[1.0],
        ],
        0.13560943070256307,
    ),
    (
        &[
            &[0.5, 1.0, 0.25],
            &[0.0, 0.75],
            &[1.0, 1.0, 1.0, 1.0, 0.0],
            &[0.25],
            &[0.0, 0.0, 0.5, 1.0],
        ],
        0.11242281302693367,
    ),
    (
        &[
            &[1.0, 1.0, 1.0, 1.0, 1.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0],
            &[1.0, 0.0],
        ],
        0.36084391824351614,
    ),
];

#[test]
fn clustered_stderr_equals_inspects() {
    for (items, inspect) in INSPECT_CLUSTERED {
        let mut sums = ClusterSums::default();
        for it in items {
            sums.push_cluster(it);
        }
        let got = sums.stderr().unwrap();
        assert!(
            (got - inspect).abs() < 1e-12,
            "{items:?}: {got} vs {inspect}"
        );
        // The same through a run's repeats: each item one cluster.
        let repeats: Vec<ItemRepeats> = items
            .iter()
            .enumerate()
            .map(|(i, r)| ItemRepeats {
                key: ItemKey::text(&format!("item{i}")),
                readings: r.to_vec(),
                repeats: r.len() as u64,
                first: i,
            })
            .collect();
        let s = RepeatSummary::of(&repeats, &[1]);
        assert_eq!(s.clustered_stderr, Some(got));
    }
}

#[test]
fn a_paired_mean_difference_has_the_paired_stderr() {
    let pairs = [(1.0, 1.0), (0.5, 1.0), (0.0, 0.25), (1.0, 0.0), (0.0, 1.0)];
    let mut d = MeanDiff::default();
    for (b, c) in pairs {
        d.push(b, c);
    }
    let diffs: Vec<f64> = pairs.iter().map(|(b, c)| c - b).collect();
    let mean = diffs.iter().sum::<f64>() / 5.0;
    let sd = (diffs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
    assert!((d.delta().unwrap() - mean).abs() < 1e-15);
    assert!((d.stderr().unwrap() - sd / 5f64.sqrt()).abs() < 1e-15);
    let (lo, hi) = d.ci95().unwrap();
    assert!((hi - lo - 2.0 * 1.959_963_984_540_054 * sd / 5f64.sqrt()).abs() < 1e-12);
    assert_eq!(d.baseline_mean(), Some(0.5));
    assert_eq!(MeanDiff::default().ci95(), None);
}

fn read_case(case: &str) -> EvalLogRun {
    let files: Vec<InputFile> = read_folder(&fixture(&format!("evallog/{case}")))
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let mut read = evallog::read(&files).unwrap();
    read.runs.remove(0)
}

/// Every reducer Inspect recorded in the logs it wrote is recomputed and equals its number.
#[test]
fn inspects_reducers_are_recomputed_from_its_logs() {
    for (case, epochs, with_k) in [
        ("ok/inspect_epochs5/input", 5, 15),
        ("ok/inspect_epochs1/input", 1, 3),
        ("ok/inspect_epochs2_json/input", 2, 4),
        ("runs/inspect_repeats_a", 3, 3),
        ("runs/inspect_repeats_b", 3, 3),
    ] {
        let run = read_case(case);
        assert_eq!(run.samples.len(), 6 * epochs, "{case}");
        let mut reducers = std::collections::BTreeSet::new();
        for h in &run.headlines {
            let v = h.key.variant.clone().unwrap_or_default();
            assert!(
                h.recorded.is_some() && h.recomputed.is_some(),
                "{case}: {} {:?} {:?} {:?}",
                h.key.label(),
                h.recorded,
                h.recomputed,
                h.note
            );
            assert!(h.agrees(1e-9), "{case}: {}", h.key.label());
            reducers.insert(v);
        }
        let k_reducers = reducers
            .iter()
            .filter(|r| r.starts_with("pass_") || r.starts_with("at_least_"))
            .count();
        assert_eq!(k_reducers, with_k, "{case}");
        // The dict scorer's keys are recomputed under every reducer.
        assert!(run.headlines.iter().any(|h| h.key.scorer == "graded:exact"
            && h.key
                .variant
                .as_deref()
                .is_some_and(|v| v.starts_with("pass_at_"))));
    }
}

/// The epochs-5 log's items, grouped by sample id: the table of the generator.
#[test]
fn the_generated_logs_repeats_are_the_generators_table() {
    let run = read_case("ok/inspect_epochs5/input");
    let key = run.primary.clone().unwrap();
    let items = evallog::score::verdicts(&run, &key);
    let rows = items
        .iter()
        .map(|it| (ItemKey::from_parts(&it.key), it.reading));
    let g = group(rows, 1);
    let got: Vec<(String, u64, u64, u64)> = g
        .iter()
        .map(|i| (i.key.to_string(), i.repeats, i.n(), i.correct()))
        .collect();
    // 1: CCCCC, 2: CICII, c: IIIII, d: CUCIC, 5: ICUUI, f: CCECC (E: errored, no verdict).
    assert_eq!(
        got,
        [
            ("1".to_string(), 5, 5, 5),
            ("2".to_string(), 5, 5, 2),
            ("5".to_string(), 5, 3, 1),
            ("c".to_string(), 5, 5, 0),
            ("d".to_string(), 5, 4, 3),
            ("f".to_string(), 5, 4, 4),
        ]
    );
    let s = RepeatSummary::of(&g, &[1, 2, 5]);
    let flaky: Vec<String> = s.flaky.iter().map(|k| k.to_string()).collect();
    assert_eq!(flaky, ["2", "5", "d"]);
    // pass@1 over items is Inspect's pass_at_1 accuracy.
    let recorded = |label: &str| {
        run.headlines
            .iter()
            .find(|h| h.key.label() == label)
            .and_then(|h| h.recorded)
            .unwrap()
    };
    let p1 = &s.pass[0];
    assert!((p1.pass_at_k.unwrap() - recorded("verdict[pass_at_1]/accuracy")).abs() < 1e-12);
    assert!((s.pass[1].pass_at_k.unwrap() - recorded("verdict[pass_at_2]/accuracy")).abs() < 1e-12);
    assert!((s.pass[1].pass_hat_k.unwrap() - recorded("verdict[pass_k_2]/accuracy")).abs() < 1e-12);
    assert_eq!(s.pass[2].n_items, 3);
}

fn scored(rel: &str) -> evalboard_engine::run::ScoredRun {
    use evalboard_engine::run::{self, ReadOptions, Settings};
    let dir = fixture(&format!("evallog/{rel}"));
    let files = read_folder(&dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let input = evalboard_engine::RunInput::new(rel, files);
    let read = run::read(&input, None, ReadOptions::default()).unwrap();
    run::score(read, &Settings::default(), 1)
}

/// Paired by item, each log's mean reduced value is the accuracy Inspect recorded under that
/// reducer; the difference comes with its item-clustered CI, McNemar only for 0/1 values.
#[test]
fn by_item_pairing_reduces_each_items_epochs_as_inspect_does() {
    use evalboard_engine::compare::{Flip, Pairing};
    use evalboard_engine::run::{self, CompareSettings};
    let (a, b) = (
        scored("runs/inspect_repeats_a"),
        scored("runs/inspect_repeats_b"),
    );
    let recorded = |r: &evalboard_engine::run::ScoredRun, label: &str| {
        let evalboard_engine::run::RunRef::EvalLog(l) = r.as_ref() else {
            panic!("an eval log")
        };
        l.log
            .run
            .headlines
            .iter()
            .find(|h| h.key.label() == label)
            .and_then(|h| h.recorded)
            .unwrap()
    };
    let by = |red: Option<Reduction>| {
        let settings = CompareSettings {
            pairing: Pairing::ByItem(red),
            ..Default::default()
        };
        run::compare(a.as_ref(), b.as_ref(), &settings).unwrap()
    };
    for red in ["pass_at_2", "pass_k_2", "at_least_2", "mean"] {
        let cmp = by(Reduction::parse(red));
        let m = cmp.stats.by_item.as_ref().unwrap();
        let label = format!("verdict[{red}]/accuracy");
        assert!(
            (m.baseline_mean.unwrap() - recorded(&a, &label)).abs() < 1e-12,
            "{red}"
        );
        assert!(
            (m.candidate_mean.unwrap() - recorded(&b, &label)).abs() < 1e-12,
            "{red}"
        );
        assert_eq!(m.n_items, 6);
        assert_eq!(m.binary, red == "at_least_2", "{red}");
        assert_eq!(cmp.stats.mcnemar_p.is_nan(), red != "at_least_2", "{red}");
        let (lo, hi) = (m.ci_low.unwrap(), m.ci_high.unwrap());
        assert!(lo < m.delta.unwrap() && m.delta.unwrap() < hi);
        assert_eq!(cmp.item_part, Some(1));
        assert!(cmp.pairing.as_deref().unwrap().contains(red));
    }
    // No reducer named: the headline's own (verdict[pass_at_2]/accuracy).
    let cmp = by(None);
    assert_eq!(cmp.stats.by_item.as_ref().unwrap().reducer, "pass_at_2");
    // Item f: CCE (2 of 2) in a, IIE (0 of 2) in b: the one regression; c: III → ICI improved.
    let flips: Vec<(String, Flip)> = cmp
        .stats
        .pairs
        .iter()
        .filter(|p| matches!(p.flip(), Flip::Regressed | Flip::Improved))
        .map(|p| (p.key.to_string(), p.flip()))
        .collect();
    assert_eq!(
        flips,
        [
            ("c".to_string(), Flip::Improved),
            ("f".to_string(), Flip::Regressed)
        ]
    );
    // As judged, each (id, epoch) is a pair, and the comparison says so.
    let cmp = run::compare(a.as_ref(), b.as_ref(), &CompareSettings::default()).unwrap();
    assert_eq!(cmp.stats.n_paired, 15);
    assert!(cmp.stats.by_item.is_none());
    assert!(cmp.pairing.as_deref().unwrap().starts_with("per repeat"));
    // Runs whose items are not repeated refuse to pair by item.
    let l = scored("runs/lm_eval_baseline");
    let err = run::compare(
        l.as_ref(),
        l.as_ref(),
        &CompareSettings {
            pairing: Pairing::ByItem(None),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("pairing by item needs"), "{err}");
    let cmp = run::compare(l.as_ref(), l.as_ref(), &CompareSettings::default()).unwrap();
    assert_eq!(cmp.pairing, None);
}
