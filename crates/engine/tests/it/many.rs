//! Many runs against one baseline (`engine::compare::many`), on the Inspect logs of
//! `tests/fixtures/compare/` (written by `make_compare.py`: two tasks, five models, a run with
//! missing items, one with no item in common, one with epochs, one unpriced). Every number is
//! checked against an independent computation: McNemar's exact two-sided p from the binomial,
//! Holm's step-down adjustment, cost ÷ correct items, and a brute-force dominance check for the
//! frontier; each pair's counts, p and bootstrap against the pair comparison `diff` prints.

use evalboard_engine::compare::many::{
    ci95_of, compare_many, CiMethod, ManyError, ManyRun, RunRow,
};
use evalboard_engine::family::Family;
use evalboard_engine::prices::PriceTable;
use evalboard_engine::run::{self, CompareSettings, ReadOptions, RunRef, ScoredRun, Settings};
use evalboard_engine::run_table::{MetricValue, Stderr, Unit};
use evalboard_engine::stats::Rate;
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{fixture, read_folder};

fn settings() -> Settings {
    let bytes = std::fs::read(fixture("compare/prices.json")).unwrap();
    let (table, diags) = PriceTable::from_json("prices.json", &bytes).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    let mut s = Settings::default();
    s.numeric_qa.prices = table;
    s
}

/// The runs of one fixture folder (a folder of several logs is several runs).
pub(crate) fn load(folder: &str, s: &Settings) -> Vec<ScoredRun> {
    let files: Vec<InputFile> = read_folder(&fixture(&format!("compare/{folder}")))
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    run::read_parts(
        Family::EvalLog,
        RunInput::new(folder, files),
        None,
        ReadOptions::default(),
    )
    .unwrap()
    .into_iter()
    .map(|r| run::score(r, s, 1))
    .collect()
}

fn many<'a>(folder: &str, runs: &'a [ScoredRun]) -> Vec<ManyRun<'a>> {
    runs.iter()
        .map(|r| ManyRun {
            path: folder.to_string(),
            run: Ok(r.as_ref()),
        })
        .collect()
}

/// C(n, k) as a float, by the product formula (n ≤ 80 here).
fn choose(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// McNemar's exact two-sided p: twice the smaller binomial(b + c, ½) tail, at most 1.
fn mcnemar(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let tail: f64 = (0..=b.min(c)).map(|k| choose(n, k)).sum::<f64>() / 2f64.powi(n as i32);
    (2.0 * tail).min(1.0)
}

/// Holm's adjustment written out: the i-th smallest p times (m − i), made monotone, capped at 1.
fn holm(p: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[a].partial_cmp(&p[b]).unwrap());
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut best = 0.0f64;
    for (i, &j) in idx.iter().enumerate() {
        best = best.max(((m - i) as f64 * p[j]).min(1.0));
        out[j] = best;
    }
    out
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-12, "{what}: {a} ≠ {b}");
}

#[test]
fn every_number_equals_an_independent_computation() {
    let s = settings();
    let folders = ["gpt4o", "mini", "llama", "disjoint", "epochs", "words_only"];
    let base = load("base", &s);
    let loaded: Vec<(&str, Vec<ScoredRun>)> = folders.iter().map(|f| (*f, load(f, &s))).collect();
    let runs: Vec<ManyRun> = loaded.iter().flat_map(|(f, r)| many(f, r)).collect();
    let all: Vec<RunRef> = base
        .iter()
        .chain(loaded.iter().flat_map(|(_, r)| r))
        .map(ScoredRun::as_ref)
        .collect();
    let cmp = compare_many(&many("base", &base), &runs, &CompareSettings::default(), 1).unwrap();
    // On two threads, the same comparison.
    let on_two = compare_many(&many("base", &base), &runs, &CompareSettings::default(), 2).unwrap();
    assert_eq!(cmp, on_two);
    assert_eq!(cmp.runs.len(), 10, "2 baselines + 8 runs");
    assert_eq!(cmp.baseline, ["base/arith.json", "base/words.json"]);
    let by_name = |n: &str| all.iter().find(|r| r.name() == n).copied().unwrap();

    for row in &cmp.runs {
        let r = by_name(&row.run);
        // Own numbers: the run's verdicts, its cost ÷ its correct items.
        let rate = r.verdicts(None).unwrap().rate();
        assert_eq!(
            (row.n_items, row.correct),
            (Some(rate.n), Some(rate.correct))
        );
        let cost = r.metrics().into_iter().find(|m| m.key == "total_cost_usd");
        let cost = cost.and_then(|m| m.value);
        assert_eq!(row.cost_usd, cost, "{}", row.run);
        match cost {
            Some(c) => close(
                row.cost_per_correct_usd.unwrap(),
                c / rate.correct as f64,
                "cost/correct",
            ),
            None => assert_eq!((row.cost_per_correct_usd, row.on_frontier), (None, None)),
        }
        if row.is_baseline {
            assert!(row.n_paired.is_none() && row.holm_p.is_none() && row.delta.is_none());
            continue;
        }
        // Paired numbers: the pair comparison's, against the baseline of the run's task.
        let b = by_name(row.baseline.as_deref().unwrap());
        assert_eq!(b.facts().task, r.facts().task, "baseline of the same task");
        let pair = run::compare(b, r, &CompareSettings::default()).unwrap();
        let st = &pair.stats;
        assert_eq!(row.n_paired, Some(st.n_paired));
        assert_eq!(row.only_in_baseline, Some(st.flips.only_in_baseline));
        assert_eq!(row.only_in_run, Some(st.flips.only_in_candidate));
        assert_eq!(row.regressed, Some(st.flips.regressed));
        assert_eq!(row.improved, Some(st.flips.improved));
        if st.n_paired == 0 {
            // No item in common: a row with its counts, every paired number absent, a note.
            assert_eq!(row.run, "disjoint");
            assert_eq!(
                (row.only_in_baseline, row.only_in_run),
                (Some(40), Some(40))
            );
            assert!(row.delta.is_none() && row.bootstrap_ci.is_none());
            assert!(row.mcnemar_exact_p.is_none() && row.holm_p.is_none());
            assert!(row.note.as_deref().unwrap().contains("no item in common"));
            continue;
        }
        assert_eq!(row.delta, st.accuracy_delta);
        assert_eq!(row.bootstrap_ci.as_ref(), Some(&st.bootstrap));
        let p = mcnemar(st.flips.regressed, st.flips.improved);
        assert!(
            (row.mcnemar_exact_p.unwrap() - p).abs() < 1e-12,
            "{}: p",
            row.run
        );
    }
    // Missing is not passing: the run without samples 37-40 has 36 items and 4 only in the
    // baseline, and its accuracy is over its own 36.
    let mini = cmp
        .runs
        .iter()
        .find(|r| r.run == "mini/arith.json")
        .unwrap();
    assert_eq!(
        (mini.n_items, mini.only_in_baseline, mini.n_paired),
        (Some(36), Some(4), Some(36))
    );
    assert!(cmp
        .warnings
        .iter()
        .any(|w| w.contains("4 only in the baseline")));
    // Epochs: epoch 2 exists only in the run; the difference in epochs is warned about.
    let ep = cmp.runs.iter().find(|r| r.run == "epochs").unwrap();
    assert_eq!(
        (ep.n_items, ep.only_in_run, ep.ci_method),
        (Some(80), Some(40), CiMethod::NormalItemClustered)
    );
    assert!(cmp.warnings.iter().any(|w| w.contains("repeats (epochs)")));

    // Holm per baseline (one per task), over the rows with a p, independently.
    for base in &cmp.baseline {
        let rows: Vec<&RunRow> = cmp
            .runs
            .iter()
            .filter(|r| r.baseline.as_deref() == Some(base) && r.mcnemar_exact_p.is_some())
            .collect();
        let want = holm(
            &rows
                .iter()
                .map(|r| r.mcnemar_exact_p.unwrap())
                .collect::<Vec<_>>(),
        );
        for (r, w) in rows.iter().zip(want) {
            close(r.holm_p.unwrap(), w, &format!("{}: Holm", r.run));
        }
    }
    // The frontier, by brute force within each task: a priced run is on it when no other
    // priced run of the task is at least as good on both and better on one.
    for row in &cmp.runs {
        let Some(cpc) = row.cost_per_correct_usd else {
            continue;
        };
        let h = row.headline.unwrap();
        let dominated = cmp.runs.iter().any(|o| {
            o.run != row.run
                && o.task == row.task
                && o.cost_per_correct_usd.is_some_and(|oc| {
                    let oh = o.headline.unwrap();
                    oh >= h && oc <= cpc && (oh > h || oc < cpc)
                })
        });
        assert_eq!(row.on_frontier, Some(!dominated), "{}", row.run);
    }
    let llama = cmp.runs.iter().find(|r| r.run == "llama").unwrap();
    assert_eq!(
        (llama.cost_usd, llama.on_frontier),
        (None, None),
        "unpriced, never $0"
    );
    assert!(llama.tokens_per_correct.is_some());
    // The grid: two tasks, five models, the macro mean only with every task.
    let g = cmp.grid.as_ref().unwrap();
    assert_eq!(g.tasks, ["arith", "words"]);
    assert_eq!(g.baseline_model, "anthropic/claude-sonnet-4");
    let llama_row = g.models.iter().find(|m| m.model == "local/llama").unwrap();
    assert!(llama_row.macro_mean.is_none() && llama_row.micro.is_some());
    let gpt = g
        .models
        .iter()
        .find(|m| m.model == "openai/gpt-4o")
        .unwrap();
    let rows: Vec<&RunRow> = ["gpt4o/arith.json", "gpt4o/words.json"]
        .iter()
        .map(|n| cmp.runs.iter().find(|r| r.run == *n).unwrap())
        .collect();
    let micro = (rows[0].correct.unwrap() + rows[1].correct.unwrap()) as f64
        / (rows[0].n_items.unwrap() + rows[1].n_items.unwrap()) as f64;
    close(gpt.micro.unwrap(), micro, "micro");
    close(
        gpt.macro_mean.unwrap(),
        (rows[0].headline.unwrap() + rows[1].headline.unwrap()) / 2.0,
        "macro",
    );
    assert!(
        cmp.reading
            .starts_with("1 of 7 runs beat the baseline after Holm's correction"),
        "{}",
        cmp.reading
    );
}

#[test]
fn a_bad_run_keeps_a_row_and_bad_input_is_an_error() {
    let s = settings();
    let base = load("base", &s);
    let gpt = load("gpt4o", &s);
    let b = many("base", &base[..1]);
    // An unreadable run among many keeps a row with its note; the others are compared.
    let mut runs = many("gpt4o", &gpt[..1]);
    runs.push(ManyRun {
        path: "broken".into(),
        run: Err("truncated archive".into()),
    });
    let cmp = compare_many(&b, &runs, &CompareSettings::default(), 1).unwrap();
    let broken = cmp.runs.iter().find(|r| r.path == "broken").unwrap();
    assert_eq!(broken.note.as_deref(), Some("not read: truncated archive"));
    assert!(broken.n_items.is_none() && broken.holm_p.is_none());
    assert!(cmp
        .runs
        .iter()
        .any(|r| r.run == "gpt4o/arith.json" && r.holm_p.is_some()));
    // A single run, an unreadable baseline, runs of two families: errors.
    assert!(matches!(
        compare_many(&b, &[], &CompareSettings::default(), 1),
        Err(ManyError::TooFew(_))
    ));
    let bad = [ManyRun {
        path: "gone".into(),
        run: Err("no such folder".into()),
    }];
    assert!(matches!(
        compare_many(&bad, &runs, &CompareSettings::default(), 1),
        Err(ManyError::Baseline(..))
    ));
    let qa_files: Vec<InputFile> =
        read_folder(&evalboard_test_support::workspace_root().join("demo/o3"))
            .into_iter()
            .map(|(p, b)| InputFile::new(p, b))
            .collect();
    let qa = run::score(
        run::read(&RunInput::new("o3", qa_files), None, ReadOptions::default()).unwrap(),
        &Settings::default(),
        1,
    );
    let other = [ManyRun {
        path: "demo/o3".into(),
        run: Ok(qa.as_ref()),
    }];
    let e = compare_many(&b, &other, &CompareSettings::default(), 1).unwrap_err();
    assert!(matches!(e, ManyError::Families { .. }), "{e}");
    assert!(
        e.to_string().contains("only runs of one family compare"),
        "{e}"
    );
}

#[test]
fn a_ci_comes_from_counts_or_a_standard_error_and_says_which() {
    let rate = MetricValue::rate("a", "A", Rate::new(7, 10));
    let (ci, m) = ci95_of(&rate);
    assert_eq!(m, CiMethod::Wilson);
    let (lo, hi) = ci.unwrap();
    // Wilson, z = 1.96: p = 0.7, n = 10 → [0.3968, 0.8922].
    assert!(
        (lo - 0.396_8).abs() < 1e-4 && (hi - 0.892_2).abs() < 1e-4,
        "{lo} {hi}"
    );
    let mut mean = MetricValue::new("m", "M", Unit::Score, Some(2.0));
    assert_eq!(ci95_of(&mean), (None, CiMethod::None));
    mean.stderr = Some(Stderr {
        value: 0.5,
        clustered_by_item: true,
    });
    let (ci, m) = ci95_of(&mean);
    assert_eq!(m, CiMethod::NormalItemClustered);
    let (lo, hi) = ci.unwrap();
    close(lo, 2.0 - 1.959_963_984_540_054 * 0.5, "low");
    close(hi, 2.0 + 1.959_963_984_540_054 * 0.5, "high");
    // A rate's normal interval stays within 0–1.
    let mut r = MetricValue::new("r", "R", Unit::Rate, Some(0.95));
    r.stderr = Some(Stderr {
        value: 0.1,
        clustered_by_item: false,
    });
    assert_eq!(
        ci95_of(&r),
        (
            Some((0.95 - 0.195_996_398_454_005_4, 1.0)),
            CiMethod::Normal
        )
    );
}

#[test]
fn runs_of_different_tasks_read_no_verdict() {
    let s = settings();
    let base = load("base", &s);
    let (arith, words) = (base[0].as_ref(), base[1].as_ref());
    let pair = run::compare(arith, words, &CompareSettings::default()).unwrap();
    assert!(pair.stats.n_paired > 0, "the ids overlap by chance");
    let why = pair.not_comparable.as_deref().unwrap();
    assert!(
        why.starts_with("different tasks (arith and words)"),
        "{why}"
    );
    let reading = pair.reading();
    assert!(reading.text.starts_with("No verdict:"), "{}", reading.text);
    assert_eq!(pair.to_json()["not_comparable"], why);
    // In a many-runs comparison the pair keeps its counts but leaves Holm's family.
    let b = many("base", &base[..1]);
    let r = many("base", &base[1..]);
    let cmp = compare_many(&b, &r, &CompareSettings::default(), 1).unwrap();
    let row = &cmp.runs[1];
    assert!(row.n_paired.is_some_and(|n| n > 0) && row.holm_p.is_none());
    assert!(row
        .note
        .as_deref()
        .unwrap()
        .starts_with("not comparable: different tasks"));
    assert!(cmp.warnings.iter().any(|w| w.contains("different tasks")));
}

/// A series is the same comparison with a moving baseline: each row's paired numbers are the
/// pair comparison of the run before it and the run, Holm's adjustment runs over the steps,
/// and an unreadable run keeps its row while the run after it is not paired.
#[test]
fn a_series_compares_each_run_with_the_one_before() {
    use evalboard_engine::compare::many::compare_series;
    let s = settings();
    let folders = ["base", "gpt4o", "mini", "llama"];
    let loaded: Vec<Vec<ScoredRun>> = folders.iter().map(|f| load(f, &s)).collect();
    // Each folder's arith log, in order.
    let arith: Vec<(&str, RunRef)> = folders
        .iter()
        .zip(&loaded)
        .map(|(f, runs)| {
            let r = runs
                .iter()
                .map(ScoredRun::as_ref)
                .find(|r| r.facts().task.as_deref() == Some("arith"))
                .unwrap_or_else(|| panic!("{f}: an arith log"));
            (*f, r)
        })
        .collect();
    let given: Vec<ManyRun> = arith
        .iter()
        .map(|(f, r)| ManyRun {
            path: f.to_string(),
            run: Ok(*r),
        })
        .collect();
    let cmp = compare_series(&given, &CompareSettings::default(), 2).unwrap();
    assert_eq!(cmp.runs.len(), 4);
    assert!(cmp.runs[0].is_baseline && cmp.runs.iter().skip(1).all(|r| !r.is_baseline));
    // Every row's own counts are its verdicts', the first run's too.
    for (row, (_, r)) in cmp.runs.iter().zip(&arith) {
        let rate = r.verdicts(None).unwrap().rate();
        assert_eq!(
            (row.n_items, row.correct),
            (Some(rate.n), Some(rate.correct))
        );
    }
    assert!(cmp.grid.is_none());
    let mut p = Vec::new();
    for (i, row) in cmp.runs.iter().enumerate().skip(1) {
        // In the order given, each against the one before it.
        assert_eq!(row.run, arith[i].1.name());
        assert_eq!(
            row.baseline.as_deref(),
            Some(cmp.runs[i - 1].label.as_str())
        );
        let pair = run::compare(arith[i - 1].1, arith[i].1, &CompareSettings::default()).unwrap();
        let st = &pair.stats;
        assert_eq!(row.n_paired, Some(st.n_paired));
        assert_eq!(
            (row.regressed, row.improved),
            (Some(st.flips.regressed), Some(st.flips.improved))
        );
        assert_eq!(row.delta, st.accuracy_delta);
        assert_eq!(row.bootstrap_ci.as_ref(), Some(&st.bootstrap));
        close(
            row.mcnemar_exact_p.unwrap(),
            mcnemar(st.flips.regressed, st.flips.improved),
            "step p",
        );
        p.push(row.mcnemar_exact_p.unwrap());
    }
    for (row, adj) in cmp.runs.iter().skip(1).zip(holm(&p)) {
        close(row.holm_p.unwrap(), adj, "Holm over the steps");
    }
    assert!(cmp.reading.contains("of 3 steps"), "{}", cmp.reading);
    // An unreadable run in the middle: its row says why, the next run is paired with the
    // readable one before it.
    let mut broken = given.clone();
    broken[1].run = Err("bad bytes".to_string());
    let cmp = compare_series(&broken, &CompareSettings::default(), 1).unwrap();
    assert_eq!(cmp.runs.len(), 4);
    assert!(cmp.runs[1].note.as_deref().unwrap().contains("bad bytes"));
    assert_eq!(
        cmp.runs[2].baseline.as_deref(),
        Some(cmp.runs[0].label.as_str())
    );
    let pair = run::compare(arith[0].1, arith[2].1, &CompareSettings::default()).unwrap();
    assert_eq!(cmp.runs[2].n_paired, Some(pair.stats.n_paired));
    assert!(cmp.reading.contains("of 2 steps"), "{}", cmp.reading);
    // Folders of several tasks in order: each run against the run before it of its task.
    let mixed: Vec<ManyRun> = loaded
        .iter()
        .zip(folders)
        .flat_map(|(runs, f)| many(f, runs))
        .collect();
    let cmp = compare_series(&mixed, &CompareSettings::default(), 1).unwrap();
    assert_eq!(cmp.runs.len(), mixed.len());
    assert_eq!(
        cmp.runs.iter().filter(|r| r.is_baseline).count(),
        2,
        "arith and words"
    );
    for (i, row) in cmp.runs.iter().enumerate().filter(|(_, r)| !r.is_baseline) {
        let b = cmp.runs[..i]
            .iter()
            .rev()
            .find(|r| r.task == row.task)
            .unwrap();
        assert_eq!(row.baseline.as_deref(), Some(b.label.as_str()));
        assert!(row
            .note
            .as_deref()
            .is_none_or(|n| !n.contains("not comparable")));
    }
    // The first run unreadable: it keeps its row.
    let mut first = given.clone();
    first[0].run = Err("bad bytes".to_string());
    let cmp = compare_series(&first, &CompareSettings::default(), 1).unwrap();
    assert_eq!(cmp.runs.len(), 4);
    assert_eq!(cmp.runs[0].note.as_deref(), Some("not read: bad bytes"));
    // One run is too few.
    assert!(matches!(
        compare_series(&given[..1], &CompareSettings::default(), 1),
        Err(ManyError::TooFew(_))
    ));
}
