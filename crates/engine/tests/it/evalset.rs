//! Eval-set family end to end: golden vectors of the seed system's scoring, fixture folders
//! with expected outputs (regenerate with `UPDATE_EXPECT=1`), and data tests on the real tunix-rt
//! files in `../shared/data` (see `evalboard_test_support::shared_data`).

use std::fs;
use std::path::Path;

use evalboard_engine::compare::{mcnemar_exact_p, CompareOptions, Flip};
use evalboard_engine::evalset::dto::{predictions_jsonl, ScorecardFile};
use evalboard_engine::evalset::{
    answers_match, compute_primary_score, compute_scorecard, read_eval_items, read_evalset_run,
    score_run, sniff, validate_evalset, AnswerScorer, EvalItem, EvalRun, EvalsetFileKind, ScoreRow,
    ScoredRun, ScoringOptions, Verdict,
};
use evalboard_engine::run::RunComparison;
use evalboard_engine::run::{CompareSettings, RunRef};
use evalboard_engine::InputFile;
use serde_json::{json, Value};

use evalboard_test_support::{cases, expect_file, fixture, shared_data as shared, Case};

fn input(path: &Path, rel: &str) -> InputFile {
    InputFile::new(rel, fs::read(path).unwrap())
}

// ---------------------------------------------------------------------------------------------
// Golden vectors
// ---------------------------------------------------------------------------------------------

fn check_golden(golden: &Value) -> usize {
    let mut n = 0;
    for case in golden["primary_score_edge_cases"].as_array().unwrap() {
        let rows = case["rows"].as_array().unwrap();
        assert_eq!(
            json!(compute_primary_score(rows)),
            case["primary_score"],
            "primary_score of {rows:?}"
        );
        let score_rows: Vec<ScoreRow> = rows.iter().map(ScoreRow::from_json).collect();
        let card = compute_scorecard(&score_rows, None);
        let got = serde_json::to_value(&card).unwrap();
        assert_eq!(got, case["scorecard"], "scorecard of {rows:?}");
        // Same text too: key order and float formatting are part of the contract.
        assert_eq!(
            serde_json::to_string(&card).unwrap(),
            serde_json::to_string(&case["scorecard"]).unwrap()
        );
        n += 1;
    }
    for v in golden["compare_vectors"].as_array().unwrap() {
        let gt = v["ground_truth"].as_str().unwrap();
        let pred = v["prediction"].as_str().unwrap();
        assert_eq!(
            answers_match(gt, pred),
            v["correct"].as_bool().unwrap(),
            "{gt:?} vs {pred:?}"
        );
        n += 1;
    }
    n
}

#[test]
fn golden_vectors_checked_in() {
    let path = fixture("vectors/evalset/tunix_scoring.json");
    let golden: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let n = check_golden(&golden);
    assert_eq!(n, 12);
}

#[test]
fn golden_vectors_shared_data() {
    let Some(path) = shared("golden/tunix_scoring.json") else {
        return;
    };
    let golden: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let n = check_golden(&golden);
    println!("tunix_scoring.json: {n} vectors pass");
}

// ---------------------------------------------------------------------------------------------
// Fixture folders
// ---------------------------------------------------------------------------------------------

/// Every file under `dir`, as run-folder inputs with `/` paths relative to `dir`, sorted.
fn folder(dir: &Path) -> Vec<InputFile> {
    evalboard_test_support::read_folder(dir)
        .into_iter()
        .map(|(rel, bytes)| InputFile::new(rel, bytes))
        .collect()
}

/// What reading a run folder gave: identity, counts, the original entry, every diagnostic and
/// every file's status.
fn read_text(run: &EvalRun) -> String {
    let mut s = format!(
        "name: {}\nmodel: {}\nitems: {}\npredictions: {}\nsummaries: {}\ntraining_metrics: {}\n",
        run.name,
        run.model.as_deref().unwrap_or("-"),
        run.items.len(),
        run.predictions.len(),
        run.summaries.len(),
        run.training_metrics.len(),
    );
    if let Some(m) = &run.manifest {
        s.push_str(&format!(
            "manifest: {} status={}\n",
            m.file,
            m.status.as_deref().unwrap_or("-")
        ));
    }
    if let Some(e) = run.original_entry() {
        s.push_str(&format!(
            "original entry: {} accuracy={:?} n_items={:?}\n",
            e.name, e.accuracy, e.n_items
        ));
    }
    for d in &run.diagnostics {
        s.push_str(&d.to_string());
        s.push('\n');
    }
    for f in &run.files {
        s.push_str(&format!(
            "file {} [{}] {:?}{}\n",
            f.path,
            f.format.as_deref().unwrap_or("-"),
            f.status,
            f.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ));
    }
    s
}

/// Two scored runs compared through the registry (`evalboard diff`'s function).
fn compare_runs(b: &ScoredRun, c: &ScoredRun, opts: &CompareOptions) -> RunComparison {
    let read = EvalRun::default();
    let settings = CompareSettings {
        opts: opts.clone(),
        ..CompareSettings::default()
    };
    evalboard_engine::run::compare(
        RunRef::Evalset(&read, b),
        RunRef::Evalset(&read, c),
        &settings,
    )
    .unwrap()
}

fn comparison_json(cmp: &RunComparison) -> String {
    let s = &cmp.stats;
    let flips: Vec<Value> = s
        .pairs
        .iter()
        .filter(|p| matches!(p.flip(), Flip::Regressed | Flip::Improved))
        .map(|p| json!({"key": p.key.to_json(), "flip": p.flip()}))
        .collect();
    let v = json!({
        "baseline": cmp.baseline,
        "candidate": cmp.candidate,
        "scorer": cmp.scorer,
        "flips": s.flips,
        "n_paired": s.n_paired,
        "baseline_accuracy": s.baseline_accuracy,
        "candidate_accuracy": s.candidate_accuracy,
        "accuracy_delta": s.accuracy_delta,
        "mcnemar_p": s.mcnemar_p,
        "bootstrap": s.bootstrap,
        "changed_items": flips,
        "per_item_unavailable": cmp.note,
    });
    let mut out = serde_json::to_string_pretty(&v).unwrap();
    out.push('\n');
    out
}

/// Per item: v1 and v1-extract correctness, the reason, what extract compared; then verdicts
/// and agreement with the original system's verdicts.
fn items_text(v1: &ScoredRun, x: &ScoredRun) -> String {
    let mut s = String::new();
    for (a, b) in v1.items.iter().zip(&x.items) {
        s.push_str(&format!(
            "{}\tv1={:?}\tv1-extract={:?}\treason={}\textracted={:?}\n",
            a.item_id,
            a.correctness,
            b.correctness,
            a.reason.as_deref().unwrap_or("-"),
            b.extracted.as_deref().unwrap_or("-"),
        ));
    }
    for r in [v1, x] {
        s.push_str(&format!(
            "{}: verdict {} ({})\n",
            r.scorer.id(),
            r.verdict.as_str(),
            r.verdict_reason
        ));
    }
    if let Some(a) = &v1.original_agreement {
        s.push_str(&format!(
            "v1 vs original verdicts: {} compared, {} disagree {:?}\n",
            a.n_compared, a.n_disagree, a.disagreeing_ids
        ));
    }
    s
}

fn scorecard_text(scored: &ScoredRun) -> String {
    match ScorecardFile::from_scored(scored) {
        Some(f) => f.to_json_pretty(),
        None => format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "per_item_unavailable": scored.per_item_unavailable,
                "verdict": scored.verdict,
                "verdict_reason": scored.verdict_reason,
            }))
            .unwrap()
        ),
    }
}

/// A case `evalset/{ok,err}/<case>/`: `runs/<name>/` run folders, optional
/// `attached_evalset.jsonl`, optional `pairs.txt` (`baseline candidate` per line); outputs in
/// `expected/`. The runs of an ok/ case read without diagnostics; an err/ case gives some.
fn check_case(case: &Case) {
    let dir = case.dir.as_path();
    let attached: Option<Vec<EvalItem>> = {
        let p = dir.join("attached_evalset.jsonl");
        p.exists().then(|| {
            let r = read_eval_items("attached_evalset.jsonl", &fs::read(&p).unwrap());
            assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
            r.items
        })
    };
    let mut names: Vec<String> = fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let exp = dir.join("expected");
    let mut scored_v1 = Vec::new();
    let mut scored_x = Vec::new();
    let mut n_diagnostics = 0;
    for name in &names {
        let mut run = read_evalset_run(&folder(&dir.join("runs").join(name)), attached.as_deref());
        n_diagnostics += run.diagnostics.len();
        expect_file(&exp.join(format!("{name}.read.txt")), &read_text(&run));
        run.name = name.clone();
        let v1 = score_run(&run, &ScoringOptions::default());
        let x = score_run(
            &run,
            &ScoringOptions {
                scorer: AnswerScorer::V1Extract,
                ..ScoringOptions::default()
            },
        );
        expect_file(
            &exp.join(format!("{name}.scorecard.json")),
            &scorecard_text(&v1),
        );
        expect_file(
            &exp.join(format!("{name}.predictions.jsonl")),
            &predictions_jsonl(&v1),
        );
        expect_file(
            &exp.join(format!("{name}.extract.scorecard.json")),
            &scorecard_text(&x),
        );
        expect_file(
            &exp.join(format!("{name}.extract.predictions.jsonl")),
            &predictions_jsonl(&x),
        );
        expect_file(&exp.join(format!("{name}.items.txt")), &items_text(&v1, &x));
        scored_v1.push(v1);
        scored_x.push(x);
    }
    assert_eq!(
        n_diagnostics == 0,
        case.ok,
        "{}: an ok/ case reads cleanly, an err/ case gives diagnostics",
        case.name
    );
    let pairs = dir.join("pairs.txt");
    if pairs.exists() {
        let find = |v: &[ScoredRun], n: &str| v.iter().position(|r| r.name == n).unwrap();
        for line in fs::read_to_string(pairs).unwrap().lines() {
            let Some((a, b)) = line.split_once(' ') else {
                continue;
            };
            for (tag, set) in [("", &scored_v1), (".extract", &scored_x)] {
                let cmp = compare_runs(
                    &set[find(set, a)],
                    &set[find(set, b)],
                    &CompareOptions::default(),
                );
                expect_file(
                    &exp.join(format!("compare.{a}.{b}{tag}.json")),
                    &comparison_json(&cmp),
                );
            }
        }
    }
}

#[test]
fn fixtures() {
    let cases = cases("evalset");
    assert!(cases.len() >= 9, "evalset cases: {cases:?}");
    for case in &cases {
        check_case(case);
    }
}

// ---------------------------------------------------------------------------------------------
// Real data (tunix-rt)
// ---------------------------------------------------------------------------------------------

fn eval_v2() -> Option<Vec<EvalItem>> {
    let p = shared("tunix-rt/eval_v2.jsonl")?;
    let r = read_eval_items("eval_v2.jsonl", &fs::read(p).unwrap());
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    Some(r.items)
}

/// Files under `../shared/data/tunix-rt` (the caller has checked it is present).
fn real_run(files: &[&str], set: &[EvalItem]) -> EvalRun {
    let root = shared("tunix-rt").expect("checked by the caller");
    let inputs: Vec<InputFile> = files
        .iter()
        .map(|f| {
            let p = root.join(f);
            input(&p, f.rsplit('/').next().unwrap())
        })
        .collect();
    read_evalset_run(&inputs, Some(set))
}

fn extract_opts() -> ScoringOptions {
    ScoringOptions {
        scorer: AnswerScorer::V1Extract,
        ..ScoringOptions::default()
    }
}

fn print_scored(s: &ScoredRun) {
    let c = s.scorecard.as_ref().unwrap();
    println!(
        "  {:<28} {:<30} primary={:?} n_scored={} stddev={:?} sections={:?} verdict={:?}",
        s.name,
        s.scorer.id(),
        c.primary_score,
        c.n_scored,
        c.stddev,
        c.section_scores,
        s.verdict
    );
}

fn print_cmp(c: &RunComparison) {
    let s = &c.stats;
    println!(
        "  {} -> {} [{}]: paired={} regressed={} improved={} acc {:?} -> {:?} delta={:?} \
         mcnemar_p={} ci95=[{:?}, {:?}]",
        c.baseline,
        c.candidate,
        c.scorer,
        s.n_paired,
        s.flips.regressed,
        s.flips.improved,
        s.baseline_accuracy,
        s.candidate_accuracy,
        s.accuracy_delta,
        s.mcnemar_p,
        s.bootstrap.low,
        s.bootstrap.high
    );
}

/// Re-scoring with v1 must agree with every `correct` the research script wrote (it used the
/// same `strip().lower()` comparison) and with its summary's accuracy.
fn assert_v1_matches_original(s: &ScoredRun) {
    let a = s.original_agreement.as_ref().unwrap();
    assert_eq!(a.n_compared, 100, "{}", s.name);
    assert_eq!(a.n_disagree, 0, "{}: {:?}", s.name, a.disagreeing_ids);
    let card = s.scorecard.as_ref().unwrap();
    let orig = s.original.as_ref().expect("summary entry matched");
    assert_eq!(card.primary_score, orig.accuracy, "{}", s.name);
    assert_eq!(s.verdict, Verdict::Fail);
}

#[test]
fn real_m45_baseline_vs_m46_control() {
    let Some(set) = eval_v2() else { return };
    let mut base = real_run(
        &[
            "m45_m44_baseline_predictions.jsonl",
            "m45_eval_summary.json",
        ],
        &set,
    );
    let mut cand = real_run(
        &["m46_control_predictions.jsonl", "m46_eval_summary.json"],
        &set,
    );
    base.name = "m45_m44_baseline".into();
    cand.name = "m46_control".into();
    assert!(base.diagnostics.is_empty(), "{:?}", base.diagnostics);
    assert!(cand.diagnostics.is_empty(), "{:?}", cand.diagnostics);
    println!("m45 baseline vs m46 control on eval_v2:");
    for opts in [ScoringOptions::default(), extract_opts()] {
        let b = score_run(&base, &opts);
        let c = score_run(&cand, &opts);
        if opts.scorer == AnswerScorer::V1 {
            assert_v1_matches_original(&b);
            assert_v1_matches_original(&c);
            assert_eq!(b.original.as_ref().unwrap().name, "m44_baseline");
            assert_eq!(c.original.as_ref().unwrap().name, "m46_control");
        }
        print_scored(&b);
        print_scored(&c);
        let cmp = compare_runs(&b, &c, &CompareOptions::default());
        assert_eq!(cmp.stats.n_paired, 100);
        assert_eq!(
            cmp.stats.mcnemar_p,
            mcnemar_exact_p(cmp.stats.flips.regressed, cmp.stats.flips.improved)
        );
        print_cmp(&cmp);
        if opts.scorer == AnswerScorer::V1Extract {
            // The numbers docs/evalset.md quotes.
            assert_eq!(b.scorecard.as_ref().unwrap().primary_score, Some(0.05));
            assert_eq!(c.scorecard.as_ref().unwrap().primary_score, Some(0.2));
            assert_eq!(
                (cmp.stats.flips.regressed, cmp.stats.flips.improved),
                (2, 17)
            );
            assert_eq!(cmp.stats.mcnemar_p, 382.0 / 524_288.0);
            assert_eq!(
                (cmp.stats.bootstrap.low, cmp.stats.bootstrap.high),
                (Some(0.07), Some(0.23))
            );
        }
        // Determinism: the same comparison twice is identical to the bit.
        assert_eq!(cmp, compare_runs(&b, &c, &CompareOptions::default()));
    }
}

#[test]
fn real_m45_curriculum_series() {
    let Some(set) = eval_v2() else { return };
    let stages = ["a", "b", "c"];
    println!("m45 curriculum stages on eval_v2:");
    for opts in [ScoringOptions::default(), extract_opts()] {
        let (runs, scored): (Vec<EvalRun>, Vec<ScoredRun>) = stages
            .iter()
            .map(|s| {
                let f = format!("m45_curriculum/post_stage_{s}_predictions.jsonl");
                let mut run = real_run(&[f.as_str(), "m45_eval_summary.json"], &set);
                assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
                assert_eq!(run.name, format!("post_stage_{s}"));
                run.name = format!("stage_{s}");
                let scored = score_run(&run, &opts);
                (run, scored)
            })
            .unzip();
        for s in &scored {
            if opts.scorer == AnswerScorer::V1 {
                assert_v1_matches_original(s);
            }
            print_scored(s);
        }
        let primaries: Vec<Option<f64>> = scored
            .iter()
            .map(|s| s.scorecard.as_ref().unwrap().primary_score)
            .collect();
        let cmps: Vec<RunComparison> = scored
            .windows(2)
            .map(|w| compare_runs(&w[0], &w[1], &CompareOptions::default()))
            .collect();
        for c in &cmps {
            print_cmp(c);
        }
        // The same consecutive comparisons through the engine's one series.
        let refs: Vec<RunRef> = runs
            .iter()
            .zip(&scored)
            .map(|(r, s)| RunRef::Evalset(r, s))
            .collect();
        let series = evalboard_engine::series::series(&refs, &CompareSettings::default());
        assert_eq!(
            series
                .steps
                .iter()
                .map(|s| s.comparison.clone().unwrap().unwrap().stats)
                .collect::<Vec<_>>(),
            cmps.iter().map(|c| c.stats.clone()).collect::<Vec<_>>()
        );
        assert_eq!(
            evalboard_engine::series::metrics(&refs)[0].1,
            primaries,
            "the headline across the stages"
        );
        // Metadata side by side: the same eval set, different checkpoints and eval durations,
        // all from the eval summary that scored the stages.
        let metas: Vec<&evalboard_engine::run_meta::RunMeta> =
            scored.iter().map(|s| &s.meta).collect();
        let rows = evalboard_engine::run_meta::side_by_side(&metas);
        assert_eq!(series.meta, rows);
        let row = |k: &str| rows.iter().find(|r| r.key == k).unwrap();
        assert!(!row("eval_set").differs);
        assert_eq!(row("eval_set").values[0].as_deref(), Some("eval_v2.jsonl"));
        assert!(row("checkpoint").differs);
        assert!(row("checkpoint").values[1]
            .as_deref()
            .unwrap()
            .ends_with("stage_b\\final_model"));
        assert_eq!(
            row("eval_duration").values,
            [
                Some("1 min 23.7 s".to_string()),
                Some("1 min 29.0 s".to_string()),
                Some("1 min 17.7 s".to_string())
            ]
        );
        for r in &rows {
            println!(
                "  {:<22} {}{}",
                r.label,
                r.values
                    .iter()
                    .map(|v| v.as_deref().unwrap_or("—"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                if r.differs { "  (differs)" } else { "" }
            );
        }
        if opts.scorer == AnswerScorer::V1Extract {
            // The numbers docs/evalset.md quotes.
            assert_eq!(primaries, [Some(0.13), Some(0.11), Some(0.17)]);
            let cis: Vec<(Option<f64>, Option<f64>)> = cmps
                .iter()
                .map(|c| (c.stats.bootstrap.low, c.stats.bootstrap.high))
                .collect();
            assert_eq!(cis, [(Some(-0.11), Some(0.07)), (Some(-0.03), Some(0.15))]);
        }
    }
}

#[test]
fn real_trace_format_matches_research_format() {
    let Some(set) = eval_v2() else { return };
    let trace = real_run(&["submission_m44_v1_predictions_traceformat.jsonl"], &set);
    let research = real_run(&["m45_m44_baseline_predictions.jsonl"], &set);
    assert!(trace.diagnostics.is_empty(), "{:?}", trace.diagnostics);
    assert_eq!(trace.predictions.len(), 100);
    assert_eq!(
        trace.model.as_deref(),
        Some("submission_runs/m44_v1/training_output/final_model")
    );
    for opts in [ScoringOptions::default(), extract_opts()] {
        let t = score_run(&trace, &opts);
        let r = score_run(&research, &opts);
        let tc: Vec<Option<f64>> = t.items.iter().map(|i| i.correctness).collect();
        let rc: Vec<Option<f64>> = r.items.iter().map(|i| i.correctness).collect();
        // The m44 submission and the m45 re-evaluation of the same checkpoint generated the same
        // text for most items; count where they differ.
        let same_text = t
            .items
            .iter()
            .zip(&r.items)
            .filter(|(a, b)| a.predicted == b.predicted)
            .count();
        println!(
            "m44 trace-format vs m45 baseline research file [{}]: same text {same_text}/100, \
             primary {:?} vs {:?}",
            opts.scorer.id(),
            t.scorecard.as_ref().unwrap().primary_score,
            r.scorecard.as_ref().unwrap().primary_score
        );
        if same_text == 100 {
            assert_eq!(tc, rc);
        }
    }
}

#[test]
fn real_eval_sets_validate() {
    let Some(p2) = shared("tunix-rt/eval_v2.jsonl") else {
        return;
    };
    let rep = validate_evalset("eval_v2.jsonl", &fs::read(p2).unwrap(), 50);
    assert_eq!(rep.exit_code(), 0, "{:?}", rep.errors);
    assert_eq!(rep.items, 100);
    assert!(rep.warnings.is_empty());
    assert_eq!(
        serde_json::to_value(&rep.composition.section).unwrap(),
        json!({"core": 60, "edge_case": 15, "trace_sensitive": 25})
    );
    assert_eq!(
        serde_json::to_value(&rep.composition.difficulty).unwrap(),
        json!({"easy": 52, "hard": 11, "medium": 37})
    );
    let Some(p1) = shared("tunix-rt/eval_v1.jsonl") else {
        return;
    };
    let rep = validate_evalset("eval_v1.jsonl", &fs::read(p1).unwrap(), 50);
    assert_eq!(rep.exit_code(), 1);
    assert_eq!(rep.items, 25);
    let msgs: Vec<&str> = rep.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(msgs, ["insufficient items: 25 < 50 required"]);
    let rep = validate_evalset(
        "eval_v1.jsonl",
        &fs::read(shared("tunix-rt/eval_v1.jsonl").unwrap()).unwrap(),
        25,
    );
    assert_eq!(rep.exit_code(), 0);
    println!(
        "eval_v2: {} items, composition {:?}",
        100, rep.composition.section
    );
}

#[test]
fn real_files_are_sniffed() {
    let Some(root) = shared("tunix-rt") else {
        return;
    };
    use EvalsetFileKind::*;
    let expected = [
        ("eval_v1.jsonl", Some(EvalSet)),
        ("eval_v2.jsonl", Some(EvalSet)),
        (
            "m45_curriculum/post_stage_a_predictions.jsonl",
            Some(ResearchPredictions),
        ),
        ("m45_eval_summary.json", Some(EvalSummary)),
        (
            "m45_m44_baseline_predictions.jsonl",
            Some(ResearchPredictions),
        ),
        ("m46_control_predictions.jsonl", Some(ResearchPredictions)),
        ("m46_eval_summary.json", Some(EvalSummary)),
        ("m49_observer_predictions.jsonl", Some(ObserverPredictions)),
        ("run_manifests/m36_v1_run_manifest.json", Some(RunManifest)),
        ("run_manifests/m37_v1_run_manifest.json", Some(RunManifest)),
        ("run_manifests/m39_v1_run_manifest.json", Some(RunManifest)),
        ("submission_m36_v1_eval_summary.json", Some(EvalSummary)),
        ("submission_m37_v1_eval_summary.json", Some(EvalSummary)),
        (
            "submission_m44_v1_predictions_traceformat.jsonl",
            Some(TracePredictions),
        ),
        (
            "training_output/m43_v1_metrics.jsonl",
            Some(TrainingMetrics),
        ),
        (
            "training_output/m44_v1_metrics.jsonl",
            Some(TrainingMetrics),
        ),
    ];
    for (rel, kind) in expected {
        let bytes = fs::read(root.join(rel)).unwrap();
        assert_eq!(sniff(rel, &bytes), kind, "{rel}");
    }
    // Files of other families are not claimed.
    for rel in [
        "golden/tunix_scoring.json",
        "finqa/example_predictions.json",
        "convfinqa/convfinqa_dataset.json",
    ] {
        if let Some(p) = shared(rel) {
            assert_eq!(sniff(rel, &fs::read(p).unwrap()), None, "{rel}");
        }
    }
}

#[test]
fn real_summary_only_and_observer_runs() {
    let Some(root) = shared("tunix-rt") else {
        return;
    };
    let run = read_evalset_run(
        &[
            input(
                &root.join("submission_m36_v1_eval_summary.json"),
                "eval_summary.json",
            ),
            input(
                &root.join("run_manifests/m36_v1_run_manifest.json"),
                "run_manifest.json",
            ),
            input(
                &root.join("training_output/m43_v1_metrics.jsonl"),
                "metrics.jsonl",
            ),
        ],
        None,
    );
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    assert_eq!(run.name, "m36_v1");
    assert_eq!(run.model.as_deref(), Some("google/gemma-2b"));
    assert_eq!(run.training_metrics.len(), 1);
    assert_eq!(run.training_metrics[0].step, Some(138));
    let s = score_run(&run, &ScoringOptions::default());
    assert!(s.scorecard.is_none());
    println!(
        "m36 submission: {} / verdict {:?} ({})",
        s.per_item_unavailable.as_deref().unwrap(),
        s.verdict,
        s.verdict_reason
    );
    assert_eq!(s.verdict, Verdict::Fail);

    let obs = read_evalset_run(
        &[input(
            &root.join("m49_observer_predictions.jsonl"),
            "m49_observer_predictions.jsonl",
        )],
        None,
    );
    assert_eq!(obs.items.len(), 11);
    let s = score_run(&obs, &ScoringOptions::default());
    let card = s.scorecard.as_ref().unwrap();
    // Exact matches: -38, -21, 792, 109 and the emoji; "$54.67" vs "54.67" is not one.
    assert_eq!(card.n_scored, 11);
    assert_eq!(card.primary_score, Some(5.0 / 11.0));
    println!("m49 observer answers: primary {:?}", card.primary_score);
}

// ---------------------------------------------------------------------------------------------
// docs/evalset.md worked examples
// ---------------------------------------------------------------------------------------------

/// `\n`, `\\` and `\u{hex}` escapes, as the doc tables write invisible characters.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('\\') => out.push('\\'),
            Some('u') => {
                assert_eq!(it.next(), Some('{'), "{s}");
                let hex: String = it.by_ref().take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            other => panic!("bad escape {other:?} in {s}"),
        }
    }
    out
}

/// Table rows (cells without the surrounding backticks) under a header line.
fn doc_table(doc: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != header).skip(2);
    let mut rows = Vec::new();
    for l in lines.by_ref() {
        if !l.starts_with('|') {
            break;
        }
        let cells: Vec<String> = l
            .trim_matches('|')
            .split(" | ")
            .map(|c| {
                let c = c.trim();
                let c = c
                    .strip_prefix('`')
                    .and_then(|c| c.strip_suffix('`'))
                    .unwrap_or(c);
                unescape(c)
            })
            .collect();
        rows.push(cells);
    }
    rows
}

#[test]
fn doc_tables_match_the_code() {
    let doc = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/evalset.md"
    ))
    .unwrap();
    let matches = doc_table(&doc, "| expected | predicted | correct |");
    assert!(matches.len() >= 10);
    for r in &matches {
        assert_eq!(
            answers_match(&r[0], &r[1]).to_string(),
            r[2],
            "docs/evalset.md row {r:?}"
        );
    }
    let extracts = doc_table(&doc, "| prediction | extracted | rule |");
    assert!(extracts.len() >= 9);
    for r in &extracts {
        let e = evalboard_engine::evalset::extract_answer(&r[0]);
        let rule = serde_json::to_value(e.rule).unwrap();
        assert_eq!(
            (e.text, rule.as_str().unwrap()),
            (r[1].as_str(), r[2].as_str()),
            "docs/evalset.md row {r:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Properties: bad input is data (never a panic), statistics stay in range, diffs rebuild.
// ---------------------------------------------------------------------------------------------

mod properties {
    use evalboard_engine::compare::{
        diff_chars, diff_text, mcnemar_exact_p, paired_bootstrap_ci, DiffKind, DiffSpan,
    };
    use evalboard_engine::evalset::{
        extract_answer, read_evalset_run, score_run, sniff, validate_evalset, ScoringOptions,
    };
    use evalboard_engine::InputFile;
    use proptest::prelude::*;

    /// JSONL-ish lines built from fragments of the real shapes, so the readers' deeper paths
    /// (not just the JSON parser) see hostile values.
    fn line() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("id"),
            Just("item_id"),
            Just("trace_id"),
            Just("prompt"),
            Just("expected_answer"),
            Just("expected"),
            Just("prediction"),
            Just("predicted"),
            Just("predicted_answer"),
            Just("final_answer"),
            Just("correct"),
            Just("correctness"),
            Just("eval_time_ms"),
            Just("section"),
            Just("status"),
            Just("error"),
            Just("meta"),
            Just("trace_version"),
            Just("step"),
            Just("loss"),
        ];
        let value = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("-1e308".to_string()),
            Just("1.5".to_string()),
            Just("[1, {}]".to_string()),
            Just("{\"eval_id\": 3}".to_string()),
            "[a-z0-9 ,%.\\-]{0,6}".prop_map(|s| format!("{s:?}")),
        ];
        prop_oneof![
            prop::collection::vec((key, value), 0..6).prop_map(|kv| {
                let body: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
                format!("{{{}}}", body.join(", "))
            }),
            ".{0,20}",
        ]
    }

    /// One side of a diff: the baseline's (`skip` Insert) or, with an equal number's other
    /// spelling, the candidate's (`skip` Delete).
    fn rebuild(v: &[DiffSpan], skip: DiffKind) -> String {
        v.iter()
            .filter(|s| s.kind != skip)
            .map(|s| match (&s.other, skip) {
                (Some(other), DiffKind::Delete) => other.as_str(),
                _ => s.text.as_str(),
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn readers_never_panic(lines in prop::collection::vec(line(), 0..8), raw in prop::collection::vec(any::<u8>(), 0..64)) {
            let text = lines.join("\n");
            let files = vec![
                InputFile::new("a.jsonl", text.clone().into_bytes()),
                InputFile::new("b.json", raw.clone()),
            ];
            let run = read_evalset_run(&files, None);
            let scored = score_run(&run, &ScoringOptions::default());
            if let Some(card) = &scored.scorecard {
                prop_assert_eq!(card.n_items, card.n_scored + card.n_skipped);
                if let Some(p) = card.primary_score {
                    prop_assert!((0.0..=1.0).contains(&p));
                }
            }
            let _ = sniff("x", &raw);
            let rep = validate_evalset("a.jsonl", text.as_bytes(), 3);
            prop_assert!((0..=2).contains(&rep.exit_code()));
        }

        #[test]
        fn extract_returns_a_part_of_the_input(s in "(.{0,10}(answer|Answer|ANSWER)? ?:?.{0,10}\n?){0,4}") {
            let e = extract_answer(&s);
            prop_assert!(s.contains(e.text));
        }

        #[test]
        fn mcnemar_is_a_symmetric_probability(b in 0u64..400, c in 0u64..400) {
            let p = mcnemar_exact_p(b, c);
            prop_assert!((0.0..=1.0).contains(&p));
            prop_assert_eq!(p, mcnemar_exact_p(c, b));
            if b + c > 0 && b != c {
                // One more discordant pair on the larger side never raises p.
                let (lo, hi) = (b.min(c), b.max(c));
                prop_assert!(mcnemar_exact_p(lo, hi + 1) <= p * (1.0 + 1e-12));
            }
        }

        #[test]
        fn bootstrap_bounds_are_ordered_differences(pairs in prop::collection::vec(any::<(bool, bool)>(), 1..40), seed in any::<u64>()) {
            let ci = paired_bootstrap_ci(&pairs, 200, seed);
            let (lo, hi) = (ci.low.unwrap(), ci.high.unwrap());
            prop_assert!(-1.0 <= lo && lo <= hi && hi <= 1.0);
            prop_assert_eq!(ci, paired_bootstrap_ci(&pairs, 200, seed));
        }

        #[test]
        fn diffs_rebuild_both_sides(a in "(.|[0-9.,%−+-]){0,30}", b in "(.|[0-9.,%−+-]){0,30}") {
            for d in [diff_text(&a, &b), diff_chars(&a, &b)] {
                prop_assert_eq!(rebuild(&d, DiffKind::Insert), a.clone());
                prop_assert_eq!(rebuild(&d, DiffKind::Delete), b.clone());
                // Spans of a kind are merged, but for a number equal as a number.
                prop_assert!(d
                    .windows(2)
                    .all(|w| w[0].kind != w[1].kind || w[0].other.is_some() || w[1].other.is_some()));
            }
        }
    }
}
