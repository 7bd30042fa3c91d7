//! The engine's one series (`series::series_in`: consecutive comparisons, metrics and metadata
//! across the runs) and slices of a comparison by a breakdown field (`slices::slices`), on the
//! fixture pairs the dashboard's Compare tab is tested with (src/families.rs).

use evalboard_engine::compare::{compare_pairs, CompareOptions, ItemContext, ItemContexts};
use evalboard_engine::compare::{PairTexts, PairedItem};
use evalboard_engine::family::Family;
use evalboard_engine::run::{
    self, CompareError, CompareSettings, ReadOptions, RunComparison, RunRef, ScoredRun, Settings,
    ALL_FAMILIES,
};
use evalboard_engine::run_meta;
use evalboard_engine::run_table::ItemKey;
use evalboard_engine::series::{self, Series};
use evalboard_engine::slices::{self, field_label, SliceRow, Slices, MAX_SLICES};
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{fixture, read_folder};

/// The fixture folder `dir` (under tests/fixtures) as a run of `family`, scored by default.
fn scored(family: Family, dir: &str) -> ScoredRun {
    let path = fixture(dir);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap();
    let files = read_folder(&path)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let read = run::read_as(
        family,
        &RunInput::new(name, files),
        None,
        ReadOptions::default(),
    )
    .unwrap();
    run::score(read, &Settings::default(), 1)
}

fn codegen_pair() -> (ScoredRun, ScoredRun) {
    (
        scored(Family::Codegen, "codegen/diff/baseline"),
        scored(Family::Codegen, "codegen/diff/candidate"),
    )
}

fn promptfoo_pair() -> (ScoredRun, ScoredRun) {
    (
        scored(Family::EvalLog, "evallog/runs/promptfoo_baseline"),
        scored(Family::EvalLog, "evallog/runs/promptfoo_candidate"),
    )
}

fn row(value: &str, counts: [u64; 5]) -> SliceRow {
    let [paired, baseline_correct, candidate_correct, regressed, improved] = counts;
    SliceRow {
        value: value.into(),
        paired,
        baseline_correct,
        candidate_correct,
        regressed,
        improved,
    }
}

fn sliced(b: &ScoredRun, c: &ScoredRun, by: Option<&str>) -> Slices {
    let cmp = run::compare(b.as_ref(), c.as_ref(), &CompareSettings::default()).unwrap();
    let context = slices::item_contexts_in::<ALL_FAMILIES>(b.as_ref(), c.as_ref());
    slices::slices(&cmp, &context, by)
}

/// The code-generation pair by model: the table the dashboard shows
/// (src/families.rs: `gpt-4 | 4 | 50.0% | 50.0% | 0.0 pp | 1 | 1`, `llama-3.3-70b | 4 | 75.0% |
/// 75.0% | 0.0 pp | 0 | 0`).
#[test]
fn codegen_pair_sliced_by_model() {
    let (b, c) = codegen_pair();
    let s = sliced(&b, &c, None);
    assert_eq!(s.fields, ["model"]);
    assert_eq!(s.by.as_deref(), Some("model"));
    assert_eq!(
        s.rows,
        [
            row("gpt-4", [4, 2, 2, 1, 1]),
            row("llama-3.3-70b", [4, 3, 3, 0, 0])
        ]
    );
    assert_eq!(s.rows[0].baseline_rate(), Some(0.5));
    assert_eq!(s.rows[1].candidate_rate(), Some(0.75));
    assert_eq!(s.rows[0].delta(), Some(0.0));
    // A field the items do not have falls back to the first offered.
    assert_eq!(sliced(&b, &c, Some("nope")), s);
    assert_eq!(field_label("model"), "Model");
}

/// The promptfoo pair: the log's breakdown fields, the category's own field first; each
/// slicing counts the same paired items and flips (src/families.rs'
/// `eval_log_comparison_slices_by_the_logs_breakdown_fields`).
#[test]
fn eval_log_pair_sliced_by_each_breakdown_field() {
    let (b, c) = promptfoo_pair();
    let s = sliced(&b, &c, None);
    assert_eq!(s.fields, ["column", "prompt", "promptIdx", "testIdx"]);
    assert_eq!(s.by.as_deref(), Some("column"));
    assert_eq!(
        s.rows,
        [
            row(
                "openai:gpt-5-mini: Solve this riddle: {{riddle}}",
                [2, 0, 0, 0, 0]
            ),
            row(
                "openai:gpt-5: Solve this riddle: {{riddle}}",
                [2, 0, 1, 0, 1]
            ),
        ]
    );
    let by_test = sliced(&b, &c, Some("testIdx"));
    assert_eq!(by_test.by.as_deref(), Some("testIdx"));
    assert_eq!(
        by_test.rows,
        [row("0", [2, 0, 1, 0, 1]), row("1", [2, 0, 0, 0, 0])]
    );
    assert_eq!(field_label("testIdx"), "TestIdx");
}

/// Whole numbers by value then text; a field with one value, or more than [`MAX_SLICES`], is
/// not offered; items not judged in both runs are left out.
#[test]
fn slices_order_values_and_offer_fields_with_two_to_fifty_values() {
    let n = MAX_SLICES + 1;
    let mut pairs = Vec::new();
    let mut context = ItemContexts::new();
    for i in 0..n {
        let key = ItemKey::text(&i.to_string());
        let turn = ["10", "2", "x", "-1"][i % 4];
        pairs.push(PairedItem {
            key: key.clone(),
            baseline: Some(i % 2 == 0),
            // The last item is only in the baseline.
            candidate: (i + 1 < n).then_some(i % 3 == 0),
            ..Default::default()
        });
        context.insert(
            key,
            ItemContext {
                fields: vec![
                    ("same".into(), "one".into()),
                    ("id".into(), i.to_string()),
                    ("turn".into(), turn.into()),
                ],
                ..Default::default()
            },
        );
    }
    let opts = CompareOptions {
        resamples: 10,
        seed: 1,
        texts: PairTexts::Changed,
    };
    let cmp = RunComparison {
        family: Family::Evalset,
        baseline: "b".into(),
        candidate: "c".into(),
        scorer: String::new(),
        judged_by: String::new(),
        pairing: None,
        item_part: None,
        metrics: Vec::new(),
        stats: compare_pairs(pairs, &opts),
        failed_items: Vec::new(),
        note: None,
        warnings: Vec::new(),
        not_comparable: None,
    };
    // `id` has 50 values over the 50 items judged in both runs: offered.
    let s = slices::slices(&cmp, &context, Some("turn"));
    assert_eq!(s.fields, ["id", "turn"]);
    let values: Vec<&str> = s.rows.iter().map(|r| r.value.as_str()).collect();
    assert_eq!(values, ["-1", "2", "10", "x"]);
    let paired: u64 = s.rows.iter().map(|r| r.paired).sum();
    assert_eq!(paired, n as u64 - 1);
    let by_id = slices::slices(&cmp, &context, None);
    assert_eq!(by_id.by.as_deref(), Some("id"));
    assert_eq!(by_id.rows.len(), MAX_SLICES);
    assert_eq!(
        slices::slices(&cmp, &ItemContexts::new(), None),
        Slices::default()
    );
    assert_eq!(field_label("final_answer"), "Final answer");
}

/// A series is every consecutive comparison (each the two-run comparison), the metadata side
/// by side, and the first run's rates and scores across the runs.
#[test]
fn series_is_consecutive_comparisons() {
    let (b, c) = codegen_pair();
    let (l, m) = promptfoo_pair();
    let settings = CompareSettings::default();
    let refs = [b.as_ref(), c.as_ref(), b.as_ref()];
    let s = series::series(&refs, &settings);
    assert_eq!(s.steps.len(), 2);
    for (step, pair) in s.steps.iter().zip(refs.windows(2)) {
        let two = run::compare(pair[0], pair[1], &settings);
        assert_eq!(step.comparison.as_ref(), Some(&two));
        assert_eq!(
            step.meta,
            run_meta::side_by_side(&[&pair[0].meta(), &pair[1].meta()])
        );
    }
    let metas: Vec<_> = refs.iter().map(RunRef::meta).collect();
    assert_eq!(s.metas, metas);
    assert_eq!(
        s.meta,
        run_meta::side_by_side(&metas.iter().collect::<Vec<_>>())
    );
    let head = b.as_ref().headline();
    let metrics = series::metrics(&refs);
    assert_eq!(metrics[0].0, head.label);
    assert_eq!(
        metrics[0].1,
        [head.value, c.as_ref().headline_value(), head.value]
    );

    // Eval logs: the first run's metrics; a step across families carries the error.
    let s = series::series(&[l.as_ref(), m.as_ref(), b.as_ref()], &settings);
    assert!(matches!(s.steps[0].comparison, Some(Ok(_))));
    assert!(matches!(
        s.steps[1].comparison,
        Some(Err(CompareError::FamilyMismatch { .. }))
    ));
    assert_eq!(
        series::metrics(&[l.as_ref(), m.as_ref(), b.as_ref()])[0].1[0],
        l.as_ref().headline_value()
    );

    // A run not held (another worker's): its steps are not compared, its metadata is empty.
    let s = series::series(&[Some(l.as_ref()), None, Some(m.as_ref())], &settings);
    assert_eq!(s.steps.len(), 2);
    assert!(s.steps.iter().all(|st| st.comparison.is_none()));
    assert_eq!(s.metas[1], Default::default());
    assert!(series::metrics(&[Some(l.as_ref()), None, Some(m.as_ref())])
        .iter()
        .all(|(_, v)| v.len() == 3 && v[1].is_none()));

    // Fewer than two runs: no steps.
    let one: Series = series::series(&refs[..1], &settings);
    assert!(one.steps.is_empty());
    assert_eq!(one.metas.len(), 1);
    let none: Series = series::series(&[] as &[RunRef], &settings);
    assert_eq!(none, Series::default());
}
