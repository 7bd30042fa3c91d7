//! `evalboard compare BASELINE RUN...` on the many-runs fixtures (`tests/fixtures/compare/`,
//! `make_compare.py`): its JSON contract, each pair's numbers equal to `evalboard diff --json`
//! for that pair, the exit codes, and the human table (golden in
//! `tests/fixtures/cli/compare/expected/`, `UPDATE_EXPECT=1` rewrites).

use serde_json::Value;

fn evalboard(args: &[&str]) -> (i32, String, String) {
    crate::evalboard_in(&evalboard_test_support::workspace_root(), args)
}

fn golden(name: &str, actual: &str) {
    let path = evalboard_test_support::fixture("cli/compare/expected").join(name);
    evalboard_test_support::expect_file(&path, actual);
}

const C: &str = "tests/fixtures/compare";

/// The many-runs fixtures' folders, the baseline first.
pub(crate) const RUNS: [&str; 7] = [
    "base",
    "gpt4o",
    "mini",
    "llama",
    "disjoint",
    "epochs",
    "words_only",
];

fn all_args(json: bool) -> Vec<String> {
    let mut a: Vec<String> = std::iter::once("compare")
        .chain(RUNS)
        .collect::<Vec<_>>()
        .iter()
        .enumerate()
        .map(|(i, x)| {
            if i == 0 {
                x.to_string()
            } else {
                format!("{C}/{x}")
            }
        })
        .collect();
    a.extend(["--prices".to_string(), format!("{C}/prices.json")]);
    if json {
        a.push("--json".into());
    }
    a
}

#[test]
fn compare_pairs_equal_diff_and_the_json_holds_its_contract() {
    let args = all_args(true);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["multiple_testing"], "holm");
    assert_eq!(v["family"], "eval-log");
    for key in [
        "baseline",
        "judged_by",
        "warnings",
        "runs",
        "reading",
        "grid",
    ] {
        assert!(v.get(key).is_some(), "no {key}");
    }
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10);
    let keys = [
        "run",
        "path",
        "model",
        "n_items",
        "headline",
        "ci95",
        "ci_method",
        "n_paired",
        "only_in_baseline",
        "only_in_run",
        "regressed",
        "improved",
        "delta",
        "bootstrap_ci",
        "mcnemar_exact_p",
        "holm_p",
        "cost_usd",
        "cost_per_correct_usd",
        "on_frontier",
        "note",
        "is_baseline",
    ];
    let mut checked = 0;
    for r in runs {
        for k in keys {
            assert!(r.get(k).is_some(), "row {} has no {k}", r["run"]);
        }
        if r["is_baseline"] == true {
            assert!(r["n_paired"].is_null() && r["holm_p"].is_null());
            continue;
        }
        // The pair as `diff` sees it: the baseline log of the run's task against the run's log.
        let base = format!("{C}/base/{}.json", r["task"].as_str().unwrap());
        let path = r["path"].as_str().unwrap();
        let name = r["run"].as_str().unwrap();
        let file = match name.split_once('/') {
            Some((_, f)) => format!("{path}/{f}"),
            None => path.to_string(),
        };
        let (code, d, err) = evalboard(&["diff", &base, &file, "--json"]);
        assert_eq!(code, 0, "{err}");
        let d: Value = serde_json::from_str(&d).unwrap();
        let n = d["n_items"].as_u64().unwrap();
        assert_eq!(r["n_paired"].as_u64(), Some(n), "{name}");
        let count = |k: &str| d[k].as_array().unwrap().len() as u64;
        assert_eq!(r["regressed"].as_u64(), Some(count("regressed")), "{name}");
        assert_eq!(r["improved"].as_u64(), Some(count("improved")), "{name}");
        if n == 0 {
            // diff prints p = 1 for an empty pair; compare prints null, with a note.
            assert_eq!(d["mcnemar_exact_p"], 1.0);
            for k in ["delta", "bootstrap_ci", "mcnemar_exact_p", "holm_p"] {
                assert!(r[k].is_null(), "{name}: {k}");
            }
            assert!(r["note"].as_str().unwrap().contains("no item in common"));
            continue;
        }
        assert_eq!(r["mcnemar_exact_p"], d["mcnemar_exact_p"], "{name}");
        assert_eq!(r["bootstrap_ci"], d["bootstrap_ci"], "{name}");
        assert_eq!(r["delta"], d["accuracy_delta"], "{name}");
        let only = count("only_in_one");
        assert_eq!(
            r["only_in_baseline"].as_u64().unwrap() + r["only_in_run"].as_u64().unwrap(),
            only,
            "{name}"
        );
        checked += 1;
    }
    assert_eq!(checked, 7, "every paired run checked against diff");
    let llama = runs.iter().find(|r| r["run"] == "llama").unwrap();
    assert!(llama["cost_usd"].is_null() && llama["on_frontier"].is_null());
    assert!(err.contains("no price for local/llama"), "{err}");
    golden("all.json", &out);
}

#[test]
fn compare_prints_a_ranked_table_and_gates_on_regressions() {
    let args = all_args(false);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "reading: 1 of 7 runs beat the baseline after Holm's correction and 1 falls behind it"
        ),
        "{out}"
    );
    assert!(
        err.contains(
            "warning: mini/arith.json and its baseline base/arith.json score different items"
        ),
        "{err}"
    );
    golden("all.txt", &out);
    // llama regressed on 22 items.
    args.extend(["--fail-on-regression", "21"]);
    let (code, _, err) = evalboard(&args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("FAIL 22 regressions > 21 (--fail-on-regression) in base/arith.json → llama"),
        "{err}"
    );
    args.pop();
    args.push("22");
    assert_eq!(evalboard(&args).0, 0);
}

#[test]
fn bad_input_gets_a_clear_message() {
    // A single run: usage (exit 2).
    let (code, _, err) = evalboard(&["compare", &format!("{C}/base")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("RUN"), "{err}");
    // Runs of different families: exit 2, naming both.
    let (code, _, err) = evalboard(&["compare", &format!("{C}/gpt4o"), "demo/o3"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("demo/o3 is a numeric QA run but the baseline"),
        "{err}"
    );
    assert!(err.contains("only runs of one family compare"), "{err}");
    // An unreadable run among many keeps a row with a note; the others are compared (exit 0).
    let (code, out, err) = evalboard(&[
        "compare",
        &format!("{C}/base/arith.json"),
        &format!("{C}/gpt4o/arith.json"),
        "tests/fixtures/nope",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let rows = v["runs"].as_array().unwrap();
    let nope = rows
        .iter()
        .find(|r| r["path"] == "tests/fixtures/nope")
        .unwrap();
    assert!(
        nope["note"].as_str().unwrap().starts_with("not read: "),
        "{nope}"
    );
    assert!(rows
        .iter()
        .any(|r| r["run"] == "arith.json" && r["holm_p"].is_number()));
}

/// A run that holds several tasks (an lm-eval suite: `arith_gen`, `arith_mc`) is compared task
/// by task, each task judged by its first recorded metric — not the whole run by its first
/// task's — and each task's pair equals `diff --scorer` naming that task's score.
#[test]
fn suites_are_compared_task_by_task() {
    let r = "tests/fixtures/evallog/runs";
    let (b, c, m) = (
        format!("{r}/lm_eval_baseline"),
        format!("{r}/lm_eval_candidate"),
        format!("{r}/lm_eval_mismatch"),
    );
    let (code, out, err) = evalboard(&["compare", &b, &c, &m, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("each task is compared on its own"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["baseline"],
        serde_json::json!([
            "lm_eval_baseline · arith_gen",
            "lm_eval_baseline · arith_mc"
        ])
    );
    let rows = v["runs"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "3 runs × 2 tasks");
    for row in rows.iter().filter(|r| r["is_baseline"] == false) {
        let task = row["task"].as_str().unwrap();
        let judge = row["headline_label"].as_str().unwrap();
        let judge = &judge["Headline score (".len()..judge.len() - 1];
        assert!(judge.starts_with(&format!("{task}/")), "{judge}");
        let (code, d, err) = evalboard(&[
            "diff",
            &b,
            row["path"].as_str().unwrap(),
            "--scorer",
            judge,
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let d: Value = serde_json::from_str(&d).unwrap();
        assert_eq!(row["n_paired"], d["n_items"], "{}", row["label"]);
        assert_eq!(
            row["mcnemar_exact_p"], d["mcnemar_exact_p"],
            "{}",
            row["label"]
        );
        assert_eq!(row["bootstrap_ci"], d["bootstrap_ci"], "{}", row["label"]);
        assert_eq!(row["delta"], d["accuracy_delta"], "{}", row["label"]);
    }
    // The mismatch run's +20 points is on arith_gen, its first task; arith_mc is its own row.
    let mc = rows
        .iter()
        .find(|r| r["label"] == "lm_eval_mismatch · arith_mc")
        .unwrap();
    assert_eq!(mc["baseline"], "lm_eval_baseline · arith_mc");
    // Naming a scorer compares the whole runs by it, as before.
    let (code, out, err) = evalboard(&[
        "compare",
        &b,
        &c,
        "--scorer",
        "arith_mc/acc[none]/acc",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
}

/// `compare --series`: the runs in order, each against the run before it of its task, every
/// step's numbers those of `diff` on that pair, Holm's correction over the steps (golden:
/// `series.txt`).
#[test]
fn a_series_compares_each_run_with_the_one_before() {
    let dirs: Vec<String> = ["base", "gpt4o", "mini", "llama"]
        .iter()
        .map(|d| format!("{C}/{d}"))
        .collect();
    let prices = format!("{C}/prices.json");
    let mut args: Vec<&str> = vec!["compare", "--series", "--prices", &prices];
    args.extend(dirs.iter().map(String::as_str));
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    golden("series.txt", &out);
    args.push("--json");
    let (code, out, err) = evalboard(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["series"], true);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 7);
    for r in runs.iter().filter(|r| r["is_baseline"] == false) {
        // The step's own pair through `diff`: its run before and the run, by their paths.
        let before = runs.iter().find(|b| b["label"] == r["baseline"]).unwrap();
        let file = |x: &Value| {
            let path = x["path"].as_str().unwrap();
            let run = x["run"].as_str().unwrap();
            match run.rsplit_once('/') {
                Some((_, f)) if f.ends_with(".json") => format!("{path}/{f}"),
                _ => path.to_string(),
            }
        };
        let (code, d, err) = evalboard(&[
            "diff",
            &file(before),
            &file(r),
            "--json",
            "--prices",
            &prices,
        ]);
        assert!(code == 0 || code == 1, "{err}");
        let d: Value = serde_json::from_str(&d).unwrap();
        assert_eq!(r["n_paired"], d["n_items"], "{}", r["label"]);
        assert_eq!(r["mcnemar_exact_p"], d["mcnemar_exact_p"], "{}", r["label"]);
        assert_eq!(r["bootstrap_ci"]["low"], d["bootstrap_ci"]["low"]);
        assert_eq!(
            r["regressed"].as_u64(),
            Some(d["regressed"].as_array().unwrap().len() as u64)
        );
    }
}
