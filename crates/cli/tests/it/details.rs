//! Foreign per-sample Parquet: the Open LLM Leaderboard's lm-eval "details" files
//! (`tests/fixtures/evallog/details/`, written by make_details_parquet.py with pyarrow as the
//! Hub's converter writes them) are read as lm-eval runs: every metric recomputed equals the
//! same run read from its samples JSONL, and a comparison of two details runs gives the 2×2 and
//! statistics of the comparison of the JSONL runs.

use evalboard_test_support::fixture;
use serde_json::Value;

use super::evalboard;

fn json(args: &[&str]) -> Value {
    let (code, out, err) = evalboard(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

fn path(rel: &str) -> String {
    fixture(&format!("evallog/{rel}")).display().to_string()
}

#[test]
fn a_details_run_scores_as_its_samples_jsonl() {
    let details = json(&["score", &path("details/baseline"), "--json"]);
    let jsonl = json(&["score", &path("runs/lm_eval_baseline"), "--json"]);
    assert_eq!(details["tool"], "lm-evaluation-harness");
    assert_eq!(details["model"], "toy/toy-lookup-v1");
    assert_eq!(details["task"], "arith_gen,arith_mc");
    assert_eq!(
        details["files"],
        serde_json::json!([
            "toy__toy-lookup-v1__arith_gen/2026_11_25T20_38_20.566618/0000.parquet",
            "toy__toy-lookup-v1__arith_mc/2026_11_25T20_38_20.566618/0000.parquet"
        ])
    );
    for k in [
        "headline_metric",
        "headline_score",
        "accuracy",
        "n_items",
        "n_correct",
        "n_samples",
    ] {
        assert_eq!(details[k], jsonl[k], "{k}");
    }
    // No results file: nothing recorded, every task's metric recomputed as from the JSONL.
    assert_eq!(details["headline_recorded"], Value::Null);
    let recomputed = |v: &Value| -> Vec<(String, Value)> {
        v["scores"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["group"] != "arith_suite")
            .map(|s| {
                (
                    s["metric"].as_str().unwrap().to_string(),
                    s["recomputed"].clone(),
                )
            })
            .collect()
    };
    let want = recomputed(&jsonl);
    assert_eq!(want.len(), 8);
    assert_eq!(recomputed(&details), want);
    assert!(details["scores"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["recorded"].is_null() && s["state"] == "not recorded"));
}

#[test]
fn two_details_runs_compare_as_their_samples_jsonl() {
    let pick = |v: &Value| -> Vec<Value> {
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let mut p = p.clone();
                for k in [
                    "baseline",
                    "candidate",
                    "label",
                    "run",
                    "path",
                    "model",
                    "dataset",
                ] {
                    if let Some(o) = p.as_object_mut() {
                        o.remove(k);
                    }
                }
                p
            })
            .collect()
    };
    let details = json(&[
        "compare",
        &path("details/baseline"),
        &path("details/candidate"),
        "--json",
    ]);
    let jsonl = json(&[
        "compare",
        &path("runs/lm_eval_baseline"),
        &path("runs/lm_eval_candidate"),
        "--json",
    ]);
    let (d, j) = (pick(&details), pick(&jsonl));
    assert!(!j.is_empty(), "{jsonl}");
    assert_eq!(d, j);
}

#[test]
fn a_corrupt_details_file_is_named_with_its_reason() {
    let (code, _, err) = evalboard(&["score", &path("details/corrupt")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "toy__toy-lookup-v1__arith_mc/2026_11_25T20_38_20.566618/0000.parquet: skipped: \
             cannot be read (a Parquet file: EOF: Parquet file too small"
        ),
        "{err}"
    );
    assert!(err.contains("none of its 1 file could be read"), "{err}");
}

#[test]
fn a_details_file_nested_past_the_bound_is_refused_not_followed() {
    let (code, _, err) = evalboard(&["score", &path("details/deep")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("0000.parquet: skipped: cannot be read (a Parquet file: row 1, column doc: nested deeper than 64 levels)"),
        "{err}"
    );
}

#[test]
fn validate_reads_a_details_file_and_names_a_corrupt_one() {
    let ok = path(
        "details/baseline/toy__toy-lookup-v1__arith_mc/2026_11_25T20_38_20.566618/0000.parquet",
    );
    let (code, out, err) = evalboard(&["validate", &ok]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("lm-evaluation-harness log, 5 samples"),
        "{out}"
    );
    let bad = path(
        "details/corrupt/toy__toy-lookup-v1__arith_mc/2026_11_25T20_38_20.566618/0000.parquet",
    );
    let (code, _, err) = evalboard(&["validate", &bad]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("0000.parquet: EOF: Parquet file too small"),
        "{err}"
    );
}
