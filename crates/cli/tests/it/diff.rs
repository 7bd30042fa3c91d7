//! `evalboard diff` and the eval-set `validate` on real runs: the demo's gpt-4o vs o3 (numeric
//! QA, with whole-conversation evaluation timeouts), tunix m45 vs m46 on eval_v2 (eval set), and
//! two code-generation traces (`tests/fixtures/codegen/diff`).
//! Outputs are compared with `tests/fixtures/cli/diff/expected/` (`UPDATE_EXPECT=1` rewrites).

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    evalboard_test_support::workspace_root()
}

fn evalboard(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run evalboard");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn golden(name: &str, actual: &str) {
    let path = evalboard_test_support::fixture("cli/diff/expected").join(name);
    evalboard_test_support::expect_file(&path, actual);
}

#[test]
fn codegen_traces_pair_by_session_and_message() {
    let (code, out, err) = evalboard(&[
        "diff",
        "tests/fixtures/codegen/diff/baseline",
        "tests/fixtures/codegen/diff/candidate",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["family"], "codegen");
    assert_eq!(v["scorer"], "execution_success");
    assert_eq!(v["n_items"], 8);
    assert_eq!(
        v["regressed"],
        serde_json::json!([["11111111-1111-1111-1111-111111111111", 0]])
    );
    assert_eq!(
        v["improved"],
        serde_json::json!([["11111111-1111-1111-1111-111111111111", 3]])
    );
    golden("codegen_baseline_vs_candidate.json", &out);
    // The human summary lists each regression with its question and both outcomes.
    let (_, text, _) = evalboard(&[
        "diff",
        "tests/fixtures/codegen/diff/baseline",
        "tests/fixtures/codegen/diff/candidate",
    ]);
    assert!(
        text.contains("What is the average salary by department? | executed · overall"),
        "{text}"
    );
}

/// `--scorer` takes the numeric QA comparison scorers of the engine's table, by id or (doc-v1)
/// by bare name; any other name is unusable input, named with the table's ids before a run is
/// read.
#[test]
fn numeric_qa_scorer_comes_from_the_table() {
    use evalboard_engine::numeric_qa::compare::QA_COMPARE_SCORERS;
    let (code, out, err) = evalboard(&[
        "diff",
        "demo/gpt-4o",
        "demo/o3",
        "--json",
        "--scorer",
        "general_match",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scorer"], "general_match@doc-v1");
    let (code, out, err) = evalboard(&["diff", "demo/gpt-4o", "demo/o3", "--scorer", "nope"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("unknown scorer \"nope\""), "{err}");
    for s in QA_COMPARE_SCORERS {
        assert!(err.contains(s.id), "{err}");
    }
}

#[test]
fn numeric_qa_gpt4o_vs_o3() {
    let (code, out, _) = evalboard(&["diff", "demo/gpt-4o", "demo/o3", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scorer"], "numerical_match@doc-v1");
    assert_eq!(v["n_items"], 48);
    assert_eq!(v["regressed"].as_array().unwrap().len(), 5);
    assert_eq!(v["improved"].as_array().unwrap().len(), 0);
    // McNemar exact: b = 5, c = 0 → p = 2 · C(5,0) / 2^5 = 0.0625.
    assert_eq!(v["mcnemar_exact_p"], 0.0625);
    // Evaluation timeouts are failed items, counted wrong, and name their run.
    let failed = v["failed_items"].as_array().unwrap();
    assert!(failed
        .iter()
        .any(|f| f["reason"].as_str().unwrap().contains("timeout")));
    assert_eq!(
        v["regressed"][1],
        serde_json::json!(["Single_CE/2010/page_134.pdf-2", 0])
    );
    golden("gpt4o_vs_o3.json", &out);

    let (code, _, err) = evalboard(&[
        "diff",
        "demo/gpt-4o",
        "demo/o3",
        "--fail-on-regression",
        "4",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("5 regressions > 4"));
    let (code, _, _) = evalboard(&[
        "diff",
        "demo/gpt-4o",
        "demo/o3",
        "--fail-on-regression",
        "5",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn eval_set_m45_vs_m46_extract() {
    let runs = "tests/fixtures/evalset/ok/m45_vs_m46/runs";
    let (code, out, err) = evalboard(&[
        "diff",
        &format!("{runs}/m45_m44_baseline"),
        &format!("{runs}/m46_control"),
        "--profile",
        "v1-extract",
        "--dataset",
        "tests/fixtures/evalset/ok/m45_vs_m46/attached_evalset.jsonl",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scorer"], "answer_correctness@v1-extract");
    // The same numbers as the engine's golden comparison of this 12-item slice.
    let engine: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(
            "tests/fixtures/evalset/ok/m45_vs_m46/expected/compare.m45_m44_baseline.m46_control.extract.json",
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(v["improved"].as_array().unwrap().len(), 5);
    assert_eq!(v["regressed"].as_array().unwrap().len(), 2);
    assert_eq!(v["mcnemar_exact_p"], engine["mcnemar_p"]);
    assert_eq!(v["bootstrap_ci"]["low"], engine["bootstrap"]["low"]);
    assert_eq!(v["bootstrap_ci"]["high"], engine["bootstrap"]["high"]);
    golden("m45_vs_m46_extract.json", &out);
}

#[test]
fn families_must_match() {
    let (code, _, err) = evalboard(&[
        "diff",
        "demo/gpt-4o",
        "tests/fixtures/evalset/ok/m45_vs_m46/runs/m46_control",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("only runs of one family compare"), "{err}");
}

#[test]
fn validate_eval_set_composition_and_min_items() {
    let dir = root().join("tests/fixtures/cli/diff");
    let set = dir.join("evalset.jsonl");
    std::fs::write(
        &set,
        concat!(
            "{\"id\": \"a\", \"prompt\": \"1+1\", \"expected_answer\": \"2\", \"section\": \"core\", \"category\": \"arithmetic\", \"difficulty\": \"easy\"}\n",
            "{\"id\": \"a\", \"prompt\": \"2+2\", \"expected_answer\": \"4\", \"section\": \"weird\", \"difficulty\": \"easy\"}\n",
            "not json\n",
            "{\"id\": \"c\", \"prompt\": \"\", \"expected_answer\": \"4\"}\n",
        ),
    )
    .unwrap();
    let set = set.to_string_lossy().into_owned();
    let (code, out, _) = evalboard(&["validate", &set, "--json", "--min-items", "2"]);
    let _ = std::fs::remove_file(&set);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let errors: Vec<String> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{}: {}", e["line"], e["message"]))
        .collect();
    assert!(errors.iter().any(|e| e.starts_with("3: ")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("duplicate")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("prompt")), "{errors:?}");
    assert!(!v["warnings"].as_array().unwrap().is_empty());
    assert_eq!(v["composition"]["section"]["core"], 1);

    let (code, out, _) = evalboard(&[
        "validate",
        "tests/fixtures/evalset/ok/m45_vs_m46/attached_evalset.jsonl",
    ]);
    assert!(code == 0 || code == 1, "{out}");
    assert!(out.contains("items"));
}

/// The two-run human output shows the runs' metadata side by side (≠ marks a difference).
#[test]
fn human_output_shows_run_metadata() {
    let runs = "tests/fixtures/evalset/ok/loss_curve/runs";
    let (code, out, err) = evalboard(&[
        "diff",
        &format!("{runs}/sft_lr1e-5"),
        &format!("{runs}/sft_lr3e-5"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("  ≠ Config "), "{out}");
    assert!(
        out.contains("    Model                  google/gemma-2b"),
        "{out}"
    );
    golden("loss_curve_pair.txt", &out);
    // numeric QA: models, failed conversations, model time.
    let (_, out, _) = evalboard(&["diff", "demo/gpt-4o", "demo/o3"]);
    assert!(
        out.contains("  ≠ Model                  gpt-4o | o3"),
        "{out}"
    );
    assert!(
        out.contains("2 of 12 conversations failed: Evaluation timeout (300s)"),
        "{out}"
    );
}

/// Three runs: consecutive-pair summaries (human and --json), the same numbers as two-run
/// diffs of each pair; --fail-on-regression gates on every step.
#[test]
fn series_of_three_runs() {
    let dir = "tests/fixtures/evalset/ok/m45_stages";
    let run = |s: &str| format!("{dir}/runs/stage_{s}");
    let set = format!("{dir}/attached_evalset.jsonl");
    let common = ["--profile", "v1-extract", "--dataset", &set];
    let mut args = vec!["diff".to_string(), run("a"), run("b"), run("c")];
    args.extend(common.iter().map(|s| s.to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = evalboard(&argv);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("series of 3 runs: stage_a → stage_b → stage_c"),
        "{out}"
    );
    golden("series_m45_stages.txt", &out);

    let mut json_argv = argv.clone();
    json_argv.push("--json");
    let (code, out, _) = evalboard(&json_argv);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["runs"],
        serde_json::json!(["stage_a", "stage_b", "stage_c"])
    );
    for (i, (b, c)) in [("a", "b"), ("b", "c")].into_iter().enumerate() {
        let mut pair = vec!["diff".to_string(), run(b), run(c), "--json".into()];
        pair.extend(common.iter().map(|s| s.to_string()));
        let pair: Vec<&str> = pair.iter().map(String::as_str).collect();
        let (_, two, _) = evalboard(&pair);
        let two: serde_json::Value = serde_json::from_str(&two).unwrap();
        assert_eq!(v["steps"][i], two, "step {i} equals the two-run diff");
    }
    golden("series_m45_stages.json", &out);

    let mut gate = argv.clone();
    gate.extend(["--fail-on-regression", "0"]);
    let (code, _, err) = evalboard(&gate);
    assert_eq!(code, 1);
    assert!(err.contains("in stage_a → stage_b"), "{err}");
}

/// Two lm-eval runs of one task pair on (task, doc_id, filter) and are judged by the first
/// task's first metric under its first filter (`tests/fixtures/evallog/make_diff_fixtures.py`:
/// doc 0 regressed, doc 1 improved).
#[test]
fn eval_log_lm_eval_pair_on_the_tools_key() {
    let runs = "tests/fixtures/evallog/runs";
    let (code, out, err) = evalboard(&[
        "diff",
        &format!("{runs}/lm_eval_baseline"),
        &format!("{runs}/lm_eval_candidate"),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["family"], "eval-log");
    assert_eq!(
        v["scorer"],
        "arith_gen/exact_match[strict-match]/exact_match"
    );
    assert_eq!(v["n_items"], 5);
    assert_eq!(
        v["regressed"],
        serde_json::json!([["arith_gen", 0, "strict-match"]])
    );
    assert_eq!(
        v["improved"],
        serde_json::json!([["arith_gen", 1, "strict-match"]])
    );
    assert_eq!(
        (v["both_correct"].clone(), v["both_wrong"].clone()),
        (2.into(), 1.into())
    );
    assert_eq!(v["mcnemar_exact_p"], 1.0);
    golden("lm_eval_baseline_vs_candidate.json", &out);
    // `--scorer` picks another score: the flexible-extract filter is unchanged.
    let (code, out, err) = evalboard(&[
        "diff",
        &format!("{runs}/lm_eval_baseline"),
        &format!("{runs}/lm_eval_candidate"),
        "--json",
        "--scorer",
        "arith_gen/exact_match[flexible-extract]/exact_match",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["n_items"], 5);
    assert_eq!(v["regressed"], serde_json::json!([]));
    let (code, _, err) = evalboard(&[
        "diff",
        &format!("{runs}/lm_eval_baseline"),
        &format!("{runs}/lm_eval_candidate"),
        "--scorer",
        "nope",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no score \"nope\""), "{err}");
}

/// Two promptfoo exports pair on (test, prompt label, repeat) and are judged by the rows' `success`
/// (`tests/fixtures/evallog/make_tool_fixtures.py`: the candidate's gpt-5 row of the first riddle
/// passes).
#[test]
fn eval_log_promptfoo_exports_pair_on_test_column_and_repeat() {
    let runs = "tests/fixtures/evallog/runs";
    let (code, out, err) = evalboard(&[
        "diff",
        &format!("{runs}/promptfoo_baseline"),
        &format!("{runs}/promptfoo_candidate"),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["family"], "eval-log");
    assert_eq!(v["scorer"], "pass/pass_rate");
    assert_eq!(v["n_items"], 4);
    assert_eq!(v["regressed"], serde_json::json!([]));
    let improved = v["improved"].as_array().unwrap();
    assert_eq!(improved.len(), 1);
    // The gpt-5 column, repeat 0. The export's two columns share one prompt label (one prompt,
    // two providers), so the key's prompt part is the column label; with one provider it is the
    // prompt label alone (key parts that read as numbers are printed as numbers).
    assert_eq!(
        (improved[0][1].clone(), improved[0][2].clone()),
        (
            "openai:gpt-5: Solve this riddle: {{riddle}}".into(),
            0.into()
        )
    );
    assert!(
        improved[0][0]
            .as_str()
            .unwrap()
            .contains("I speak without a mouth"),
        "{out}"
    );
    // One column's pass rate judges that column's rows only.
    let (code, out, err) = evalboard(&[
        "diff",
        &format!("{runs}/promptfoo_baseline"),
        &format!("{runs}/promptfoo_candidate"),
        "--json",
        "--scorer",
        "openai:gpt-5-mini: Solve this riddle: {{riddle}}/pass/pass_rate",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["n_items"], 2);
    assert_eq!(v["improved"], serde_json::json!([]));
}

/// An Inspect log compared with itself pairs every (sample id, epoch) with a verdict; errored
/// samples have none and are not paired.
#[test]
fn eval_log_inspect_pairs_on_id_and_epoch() {
    let log = "tests/fixtures/evallog/runs/inspect_arith/arith.eval";
    let (code, out, err) = evalboard(&["diff", log, log, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scorer"], "match[mean]/accuracy");
    // 8 samples (4 ids × 2 epochs), `boom` errored in both epochs.
    assert_eq!(v["n_items"], 6);
    assert_eq!(v["both_correct"], 2);
    assert_eq!(v["both_wrong"], 4);
}

/// Under a re-scorer (`--profile`), both logs' items are re-scored from their outputs and paired
/// on those verdicts; `--scorer` (a recorded score) is refused beside it.
#[test]
fn eval_log_diff_pairs_on_rescored_verdicts() {
    let log = "tests/fixtures/evallog/runs/inspect_arith/arith.eval";
    // No sample writes `ANSWER:`: every sample with a verdict reads 0 under answer_pattern.
    let (code, out, err) = evalboard(&["diff", log, log, "--json", "--profile", "answer_pattern"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scorer"], "answer_pattern@v1");
    assert_eq!(v["n_items"], 6);
    assert_eq!(
        (v["both_correct"].clone(), v["both_wrong"].clone()),
        (0.into(), 6.into())
    );
    let (code, out, err) = evalboard(&["diff", log, log, "--profile", "match@v1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("judged by match@v1"), "{out}");
    let (code, _, err) = evalboard(&[
        "diff",
        log,
        log,
        "--profile",
        "match",
        "--scorer",
        "includes",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("re-scored by match@v1"), "{err}");
    let (code, _, err) = evalboard(&["diff", log, log, "--profile", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("as-recorded, exact, includes, match"), "{err}");
}

/// With `--prices`, both runs' cost in dollars is shown beside the comparison (the price table
/// `score` takes; `tests/fixtures/evallog/make_issue28_prices.py`): the OpenAI Evals log costs
/// $0.01219 on both sides, the promptfoo log has a model without a price, so it stays unpriced
/// on both sides while the cost its tool recorded is kept. Without `--prices` nothing is added.
#[test]
fn eval_log_diff_shows_both_sides_cost_under_prices() {
    let p = "tests/fixtures/evallog/prices";
    let table = format!("{p}/prices.json");
    let log = format!("{p}/openai_evals");
    let (code, out, err) = evalboard(&["diff", &log, &log, "--prices", &table, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cost = |v: &serde_json::Value, key: &str| -> (Option<f64>, Option<f64>) {
        let m = v["costs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["key"] == key)
            .unwrap_or_else(|| panic!("no {key} in {v}"));
        (m["baseline"].as_f64(), m["candidate"].as_f64())
    };
    let (b, c) = cost(&v, "total_cost_usd");
    assert!((b.unwrap() - 0.01219).abs() < 1e-12 && (c.unwrap() - 0.01219).abs() < 1e-12);
    let (b, _) = cost(&v, "cost_per_correct_usd");
    assert!((b.unwrap() - 0.006095).abs() < 1e-12);
    let (code, out, err) = evalboard(&["diff", &log, &log, "--prices", &table]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  cost              $0.012190 → $0.012190\n"),
        "{out}"
    );

    let log = format!("{p}/promptfoo");
    let (code, out, err) = evalboard(&["diff", &log, &log, "--prices", &table, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no price for cheap"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(cost(&v, "total_cost_usd"), (None, None));
    let (b, c) = cost(&v, "cost");
    assert!((b.unwrap() - 0.0139).abs() < 1e-12 && (c.unwrap() - 0.0139).abs() < 1e-12);
    let (code, out, err) = evalboard(&["diff", &log, &log]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("cost"), "{out}");
}

/// `--by-item`: two Inspect logs of 3 epochs (`make_issue28_repeats.py`) pair per item, each
/// item's epochs reduced first (by default by the headline's own reducer, pass_at_2); the mean
/// difference comes with its item-clustered CI, McNemar only when every value is 0 or 1, and the
/// output names the pairing. `report --by-item` shows the same numbers.
#[test]
fn eval_log_by_item_reduces_epochs_before_pairing() {
    let runs = "tests/fixtures/evallog/runs";
    let (a, b) = (
        format!("{runs}/inspect_repeats_a"),
        format!("{runs}/inspect_repeats_b"),
    );
    let (code, out, err) = evalboard(&["diff", &a, &b, "--by-item", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pairing"]["by"], "item");
    assert_eq!(v["pairing"]["reducer"], "pass_at_2");
    assert_eq!(v["by_item"]["n_items"], 6);
    assert_eq!(v["by_item"]["binary"], false);
    assert_eq!(v["mcnemar_exact_p"], serde_json::Value::Null);
    assert_eq!(v["regressed"], serde_json::json!([["f"]]));
    assert_eq!(v["improved"], serde_json::json!([["c"]]));
    golden("inspect_repeats_by_item.json", &out);
    let (code, human, err) = evalboard(&["diff", &a, &b, "--by-item", "pass@2"]);
    assert_eq!(code, 0, "{err}");
    assert!(human.contains("pairing: by item: each item's repeats (epochs) reduced by pass_at_2"));
    golden("inspect_repeats_by_item.txt", &human);
    // at_least_2 gives 0 or 1 per item: McNemar and the bootstrap apply.
    let (code, out, err) = evalboard(&["diff", &a, &b, "--by-item", "at_least_2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v2: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v2["by_item"]["binary"], true);
    assert!(v2["mcnemar_exact_p"].is_number());
    // By default each (id, epoch) is a pair, and the comparison says so.
    let (code, out, err) = evalboard(&["diff", &a, &b, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v3: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v3["n_items"].clone(), v3["pairing"]["by"].clone()),
        (15.into(), "repeat".into())
    );
    // Logs with no repeats, and a reducer that is not one, are refused (exit 2).
    let lm = format!("{runs}/lm_eval_baseline");
    let (code, _, err) = evalboard(&["diff", &lm, &lm, "--by-item"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pairing by item needs"), "{err}");
    let (code, _, err) = evalboard(&["diff", &a, &b, "--by-item", "pass@x"]);
    assert_eq!(code, 2, "{err}");
    // The report pairs the same way and shows the same numbers.
    let html = std::env::temp_dir().join(format!("evalboard-by-item-{}.html", std::process::id()));
    let (code, _, err) = evalboard(&[
        "report",
        &b,
        "--baseline",
        &a,
        "--by-item",
        "-o",
        &html.display().to_string(),
        "--force",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&html).unwrap();
    let _ = std::fs::remove_file(&html);
    let m = &v["by_item"];
    let shown = format!(
        "pass_at_2: {:.4} → {:.4}, change {:+.4} (item-clustered 95% CI [{:+.4}, {:+.4}]",
        m["baseline_mean"].as_f64().unwrap(),
        m["candidate_mean"].as_f64().unwrap(),
        m["mean_delta"].as_f64().unwrap(),
        m["ci95"]["low"].as_f64().unwrap(),
        m["ci95"]["high"].as_f64().unwrap(),
    );
    assert!(text.contains(&shown), "{shown}");
}
