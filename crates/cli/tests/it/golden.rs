//! Golden tests of the real `evalboard` binary on the fixture folders in `tests/fixtures/cli/`.
//!
//! Each fixture with a `cmd` file (the arguments, run from the fixture folder, so its paths are
//! relative to it) has an `expected/`
//! folder: every output file, plus `stderr.txt` (diagnostics) and `exit_code`, compared by
//! `evalboard_test_support::expect_dir` (`UPDATE_EXPECT=1` rewrites `expected/`).

use std::path::{Path, PathBuf};
use std::process::Command;

use evalboard_test_support::expect_dir;

fn fixtures() -> PathBuf {
    evalboard_test_support::fixture("")
}

/// Every output file of `evalboard <cmd> --out <tmp>` run in `dir` (relative path, text), then
/// `stderr.txt` and `exit_code`.
fn run_fixture(dir: &Path) -> Vec<(String, String)> {
    let cmd = std::fs::read_to_string(dir.join("cmd")).expect("cmd file");
    let args: Vec<&str> = cmd.split_whitespace().collect();
    let out_dir = std::env::temp_dir().join(format!(
        "evalboard-golden-{}-{}",
        std::process::id(),
        dir.file_name().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_dir_all(&out_dir);
    let output = Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(&args)
        .arg("--out")
        .arg(&out_dir)
        .current_dir(dir)
        .output()
        .expect("run evalboard");
    let mut files: Vec<(String, String)> = if out_dir.exists() {
        evalboard_test_support::read_folder(&out_dir)
            .into_iter()
            .map(|(rel, bytes)| (rel, String::from_utf8_lossy(&bytes).into_owned()))
            .collect()
    } else {
        Vec::new()
    };
    let stderr = String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| !l.starts_with("wrote "))
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    files.push(("stderr.txt".into(), stderr));
    files.push((
        "exit_code".into(),
        format!("{}\n", output.status.code().unwrap_or(-1)),
    ));
    let _ = std::fs::remove_dir_all(&out_dir);
    files
}

#[test]
fn cli_fixtures_match_expected_outputs() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("cli"))
        .expect("fixtures dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("cmd").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no cli fixtures found");
    for dir in &dirs {
        expect_dir(&dir.join("expected"), &run_fixture(dir));
    }
}

fn evalboard(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_evalboard"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run evalboard");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn fail_under_gates_and_exit_codes() {
    let dir = fixtures().join("cli/jsonl_nasty");
    let (code, _, err) = evalboard(
        &["score", "input", "--fail-under", "numerical_accuracy=0.99"],
        &dir,
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("FAIL input: numerical_accuracy"), "{err}");
    let (code, _, err) = evalboard(
        &[
            "score",
            "input",
            "--fail-under",
            "numerical_accuracy=0.1",
            "--fail-under=exact_match_accuracy=0.1",
        ],
        &dir,
    );
    assert_eq!(code, 0, "{err}");
    // A null metric fails its gate: nothing is fully correct here, so cost per correct is null…
    let (code, _, err) = evalboard(
        &["score", "input", "--fail-under", "avg_logic_recall=0.0"],
        &dir,
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = evalboard(&["score", "input", "--fail-under", "nope=1"], &dir);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown metric"), "{err}");
    let (code, _, err) = evalboard(&["score", "does-not-exist"], &dir);
    assert_eq!(code, 2);
    assert!(err.contains("does-not-exist"), "{err}");
    let empty = std::env::temp_dir().join(format!("evalboard-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = evalboard(&["score", empty.to_str().unwrap()], &dir);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the folder is empty"), "{err}");
}

#[test]
fn json_prints_an_array_for_several_runs_in_argument_order() {
    let dir = fixtures();
    let (code, out, err) = evalboard(
        &[
            "score",
            "cli/jsonl_nasty/input",
            "numeric_qa/ok/fa2_simulated/input",
            "--json",
        ],
        &dir,
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let arr = v.as_array().expect("array");
    assert_eq!(arr.len(), 2);
    assert_eq!(arr[0]["total_conversations"], 4);
    assert_eq!(arr[1]["total_turns"], 9);
    // --out gets one subfolder per run (same folder names get a suffix).
    let out_dir = std::env::temp_dir().join(format!("evalboard-multi-{}", std::process::id()));
    let (code, _, err) = evalboard(
        &[
            "score",
            "cli/jsonl_nasty/input",
            "numeric_qa/ok/fa2_simulated/input",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out_dir.join("input/statistics.json").is_file());
    assert!(out_dir.join("input-2/turns.csv").is_file());
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn compat_profile_reproduces_the_original_files_byte_for_byte() {
    let dir = fixtures().join("numeric_qa/ok/fa2_simulated");
    let out_dir = std::env::temp_dir().join(format!("evalboard-fa2-{}", std::process::id()));
    let (code, _, err) = evalboard(
        &[
            "score",
            "input",
            "--profile",
            "financial-agent-2",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(code, 0, "{err}");
    for f in [
        "statistics.json",
        "summary.csv",
        "turns.csv",
        "errors.csv",
        "validation.csv",
    ] {
        let want = std::fs::read(dir.join("input").join(f)).unwrap();
        let got = std::fs::read(out_dir.join(f)).unwrap();
        assert!(want == got, "{f} differs from the original");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn validate_reports_mismatches_with_exit_1() {
    let tmp = std::env::temp_dir().join(format!("evalboard-val-{}.json", std::process::id()));
    std::fs::write(
        &tmp,
        r#"{"dev": [{"id": "a", "doc": {"pre_text": [], "post_text": [], "table": [["", "2019"], ["x", "1"]]},
          "dialogue": {"conv_questions": ["q1", "q2"], "conv_answers": ["3", "2"],
                       "turn_program": ["add(1, 2)", "subtract(5, 2)"], "executed_answers": [3.0, 2.0],
                       "qa_split": [false, false]},
          "features": {"num_dialogue_turns": 2, "has_type2_question": false,
                       "has_duplicate_columns": false, "has_non_numeric_values": false}}]}"#,
    )
    .unwrap();
    let (code, out, _) = evalboard(&["validate", tmp.to_str().unwrap(), "--json"], &fixtures());
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["programs_checked"], 2);
    assert_eq!(v["program_mismatches"][0]["turn_idx"], 1);
    assert_eq!(v["program_mismatches"][0]["program"], "subtract(5, 2)");
    let _ = std::fs::remove_file(&tmp);
    if let Some(shared) = evalboard_test_support::shared_data("convfinqa/convfinqa_dataset.json") {
        let (code, out, _) = evalboard(
            &["validate", shared.to_str().unwrap(), "--json"],
            &fixtures(),
        );
        assert_eq!(code, 0, "{}", &out[..out.len().min(2000)]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["programs_checked"], 1490);
    }
}

/// The command line itself (clap): help for every command, usage errors exit 2 naming the
/// argument, and a path that is not UTF-8 is an ordinary error rather than a panic.
mod usage {
    use super::{evalboard, fixtures};

    #[test]
    fn help_for_every_command_exits_0_and_names_its_flags() {
        let dir = fixtures();
        for (cmd, flags) in [
            (
                "score",
                &[
                    "--dataset",
                    "--profile",
                    "--prices",
                    "--rel-tol",
                    "--abs-tol",
                    "--out",
                    "--json",
                    "--fail-under",
                ][..],
            ),
            ("validate", &["--json", "--min-items"][..]),
            (
                "diff",
                &[
                    "--profile",
                    "--scorer",
                    "--dataset",
                    "--json",
                    "--fail-on-regression",
                ][..],
            ),
            (
                "report",
                &[
                    "--baseline",
                    "--profile",
                    "--dataset",
                    "--prices",
                    "--title",
                    "--max-rows",
                    "--generated-at",
                    "-o, --out",
                ][..],
            ),
        ] {
            let (code, out, err) = evalboard(&[cmd, "--help"], &dir);
            assert_eq!(code, 0, "{cmd} --help: {err}");
            for flag in flags {
                assert!(out.contains(flag), "{cmd} --help lacks {flag}:\n{out}");
            }
            let (code, sub, _) = evalboard(&["help", cmd], &dir);
            assert_eq!((code, &sub), (0, &out), "evalboard help {cmd}");
        }
        for top in [&["--help"][..], &["help"], &[]] {
            let (code, out, _) = evalboard(top, &dir);
            assert_eq!(code, 0, "{top:?}");
            for cmd in ["score", "validate", "diff", "report"] {
                assert!(out.contains(cmd), "{top:?} lacks {cmd}:\n{out}");
            }
        }
        let (code, out, _) = evalboard(&["--version"], &dir);
        assert_eq!(code, 0);
        assert_eq!(out, format!("evalboard {}\n", env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn usage_errors_exit_2_naming_the_argument() {
        let dir = fixtures().join("cli/jsonl_nasty");
        for (args, named) in [
            (&["score", "input", "--bogus"][..], "--bogus"),
            (&["report", "input", "-o", "x.html", "--json"], "--json"),
            (&["score", "input", "--rel-tol", "abc"], "--rel-tol"),
            (&["score", "input", "--abs-tol=abc"], "--abs-tol"),
            (&["score", "input", "--fail-under", "nope"], "--fail-under"),
            (&["validate", "x.jsonl", "--min-items=-3"], "--min-items"),
            (
                &["diff", "a", "b", "--fail-on-regression", "x"],
                "--fail-on-regression",
            ),
            (
                &["report", "input", "--max-rows", "1.5", "-o", "x.html"],
                "--max-rows",
            ),
            (&["report", "input"], "--out"),
            (&["diff", "input"], "<CANDIDATE>"),
            (&["score", "input", "--out"], "--out"),
            (&["frobnicate"], "frobnicate"),
        ] {
            let (code, out, err) = evalboard(args, &dir);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(out.is_empty(), "{args:?} printed to stdout: {out}");
            assert!(
                err.contains(named),
                "{args:?}: stderr does not name {named}: {err}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_an_ordinary_error() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_evalboard"))
            .arg("score")
            .arg(OsStr::from_bytes(b"run\xff"))
            .current_dir(fixtures())
            .output()
            .expect("run evalboard");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("evalboard: error: cannot read run"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `score --json` on an eval log prints, for every headline number, evalboard's recomputed value
/// beside the one the log recorded; where they differ, stderr names the score, both values and
/// the file (issue 16's contract).
#[test]
fn evallog_score_json_prints_recomputed_beside_recorded() {
    let dir = fixtures().join("evallog/runs");
    let score = |v: &serde_json::Value, metric: &str| -> (serde_json::Value, serde_json::Value) {
        let s = v["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .find(|s| s["metric"] == metric)
            .unwrap_or_else(|| panic!("no {metric}"))
            .clone();
        (s["recomputed"].clone(), s["recorded"].clone())
    };
    let (code, out, err) = evalboard(&["score", "inspect_arith/arith.eval", "--json"], &dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["family"], "eval-log");
    assert_eq!(v["tool_version"], "0.3.285");
    for (metric, want) in [
        ("match[mean]/accuracy", 0.3333333333333333),
        ("match[mean]/stderr", 0.16666666666666669),
    ] {
        assert_eq!(score(&v, metric), (want.into(), want.into()), "{metric}");
    }
    assert_eq!(v["n_mismatches"], 0);

    let (code, out, err) = evalboard(&["score", "lm_eval_baseline", "--json"], &dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    for (metric, want) in [
        ("arith_gen/exact_match[strict-match]/exact_match", 0.6),
        (
            "arith_gen/exact_match[strict-match]/exact_match_stderr",
            0.24494897427831783,
        ),
    ] {
        assert_eq!(score(&v, metric), (want.into(), want.into()), "{metric}");
    }

    let (code, out, err) = evalboard(&["score", "lm_eval_mismatch", "--json"], &dir);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let m = "arith_gen/exact_match[strict-match]/exact_match";
    assert_eq!(score(&v, m), (0.8.into(), 0.6.into()));
    assert!(
        err.contains(&format!(
            "lm_eval_mismatch/results_2026-11-25T20-38-20.566618.json: {m} recorded 0.6 but \
             recomputed 0.8 from the samples"
        )),
        "{err}"
    );
}

/// `--profile match` re-scores a log: the summary names the re-scorer, the statistics keep the
/// headline as recorded and recomputed beside the re-scored numbers, and the report shows both
/// verdicts (OpenAI Evals' Match checks the start of the answer, `match@v1` its end).
#[test]
fn evallog_rescored_by_a_profile_keeps_the_recorded_scores_visible() {
    let dir = fixtures().join("evallog/ok/openai_evals_2023");
    let (code, out, err) = evalboard(&["score", "input", "--profile", "match"], &dir);
    assert_eq!(code, 0, "{err}");
    for line in [
        "profile            match@v1",
        "headline_score     0.3333",
        "rescored_score     0.6667",
        "n_disagreements    1",
    ] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    let (code, out, err) = evalboard(&["score", "input", "--profile", "match@v1", "--json"], &dir);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["headline_score"], v["headline_recorded"]);
    assert_eq!(v["rescored_by"], "match@v1");
    assert_eq!(v["disagreements"], serde_json::json!(["test-match.s1.0"]));
    let html = std::env::temp_dir().join(format!("eb-rescore-{}.html", std::process::id()));
    let h = html.to_str().unwrap();
    let (code, _, err) = evalboard(&["report", "input", "--profile", "match", "-o", h], &dir);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    let _ = std::fs::remove_file(&html);
    for text in [
        "items re-scored by match@v1 from each sample&#39;s output and targets (as originally \
         scored: by match/accuracy; 1 verdict differs)",
        ">As recorded<",
        "data-metric=\"rescored_score\"",
    ] {
        assert!(page.contains(text), "{text:?} not in the report");
    }
    let (code, _, err) = evalboard(&["score", "input", "--profile", "financial-agent-2"], &dir);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown profile \"financial-agent-2\" for an eval log run"),
        "{err}"
    );
}

/// `validate` on a log: exit 0 when it is sound, 1 with its structural problems named.
#[test]
fn validate_checks_a_logs_structure() {
    let dir = fixtures().join("evallog");
    let (code, out, err) = evalboard(&["validate", "runs/inspect_arith/arith.eval"], &dir);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Inspect AI log (version 0.3.285), 8 samples (header: 8)"),
        "{out}"
    );
    let (code, out, err) = evalboard(
        &[
            "validate",
            "runs/lm_eval_baseline/results_2026-11-25T20-38-20.566618.json",
            "--json",
        ],
        &dir,
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["logs"][0]["samples"], 15);
    let (code, out, _) = evalboard(&["validate", "err/truncated/input/arith.eval"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no end-of-central-directory record"), "{out}");
}

/// Every lm-eval layout (issue 28, class 1: results and samples paired by content): `score`
/// reads every sample and recomputes every recorded number; `validate` on the results file
/// finds its samples files beside it by content and says how each was matched.
#[test]
fn every_lm_eval_layout_reads_every_sample() {
    let dir = fixtures().join("evallog/ok");
    for (case, results) in [
        ("lm_eval_renamed_results", "toy-lookup-v1.json"),
        (
            "lm_eval_tracker_json_arrays",
            "results_2026-11-25T20-38-20.566618.json",
        ),
        ("lm_eval_v0_4_0_layout", "results.json"),
        ("lm_eval_samples_by_content", "arith_run.json"),
    ] {
        let input = format!("{case}/input");
        let (code, out, err) = evalboard(&["score", &input, "--json"], &dir);
        assert_eq!(code, 0, "{case}: {err}");
        assert_eq!(err, "", "{case}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["n_samples"], 15, "{case}");
        assert_eq!(v["n_mismatches"], 0, "{case}");
        assert_eq!(v["n_not_recomputed"], 0, "{case}");
        assert_eq!(
            v["input_files"]["parsed"].as_array().map(Vec::len),
            Some(3),
            "{case}"
        );
        let (code, out, err) = evalboard(&["score", &input], &dir);
        assert_eq!(code, 0, "{case}: {err}");
        assert!(out.contains("15 samples"), "{case}: {out}");
        let file = format!("{input}/{results}");
        let (code, out, err) = evalboard(&["validate", &file], &dir);
        assert_eq!(code, 0, "{case}: {out}{err}");
        assert!(out.contains("lm-evaluation-harness log"), "{case}: {out}");
        assert!(out.contains(", 15 samples"), "{case}: {out}");
        assert_eq!(
            out.matches(&format!("matched by content to {file}, which records"))
                .count(),
            2,
            "{case}: {out}"
        );
        let (code, out, _) = evalboard(&["validate", &file, "--json"], &dir);
        assert_eq!(code, 0, "{case}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["logs"][0]["samples"], 15, "{case}");
        assert_eq!(v["files"].as_array().map(Vec::len), Some(3), "{case}");
    }
}

/// A folder of several logs is several runs: `score` prints one statistics object per log
/// (`--json` an array), `--out` one subfolder each; a file of no log is skipped with its reason.
#[test]
fn a_folder_of_several_logs_is_one_run_per_log() {
    let runs = fixtures().join("evallog/runs");
    let dir = std::env::temp_dir().join(format!("evalboard-logs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(runs.join("inspect_arith/arith.eval"), dir.join("a.eval")).unwrap();
    for e in std::fs::read_dir(runs.join("lm_eval_baseline")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    std::fs::write(dir.join("notes.txt"), "not a log").unwrap();
    let d = dir.to_str().unwrap();
    let (code, out, err) = evalboard(&["score", d, "--json"], &fixtures());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let arr = v.as_array().expect("one object per log");
    assert_eq!(arr.len(), 2);
    assert_eq!(arr[0]["tool"], "Inspect AI");
    assert_eq!(arr[1]["tool"], "lm-evaluation-harness");
    assert_eq!(arr[1]["n_samples"], 15);
    assert!(
        err.contains("notes.txt: skipped: not a log of a supported evaluation tool"),
        "{err}"
    );
    let out_dir = dir.join("out");
    let (code, _, err) = evalboard(
        &["score", d, "--out", out_dir.to_str().unwrap()],
        &fixtures(),
    );
    assert_eq!(code, 0, "{err}");
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(out_dir
        .join(format!("{name}_a.eval/statistics.json"))
        .is_file());
    assert!(out_dir
        .join(format!(
            "{name}_results_2026-11-25T20-38-20.566618.json/items.csv"
        ))
        .is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every real Inspect log and lm-eval run in `../shared/data/eval-formats/` that evalboard reads:
/// `score --json` recomputes every recorded headline number exactly as the tool wrote it (no
/// mismatch, no warning) and names the headline the items are judged by.
#[test]
fn evallog_real_logs_recompute_what_the_tools_recorded() {
    for rel in [
        "inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
        "inspect_ai/log_message_deduplication.eval",
        "inspect_ai/log_streaming.eval",
        "inspect_ai/mmlu-summary-choices.eval",
        "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json",
        "inspect_ai/log_formats.json",
        "inspect_ai/generated-0.3.285/2026-11-25T20-36-08-00-00_arith_BQpM8JFfU92qzZe9tDU2Q9.eval",
        "inspect_ai/generated-0.3.285/2026-11-25T20-36-12-00-00_arith_VVWPBMGtpotgvVsouiGCU7.json",
        "inspect_ai/generated-0.3.285/chunked-parts/arith-chunked.eval",
        "lm-evaluation-harness/generated-0.4.13/toy-lookup-v1",
    ] {
        let Some(path) = evalboard_test_support::shared_data(&format!("eval-formats/{rel}")) else {
            return;
        };
        let (code, out, err) = evalboard(&["score", path.to_str().unwrap(), "--json"], &fixtures());
        assert_eq!(code, 0, "{rel}: {err}");
        assert!(!err.contains("warning"), "{rel}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["n_mismatches"], 0, "{rel}");
        assert!(v["headline_metric"].is_string(), "{rel}");
        assert_eq!(v["headline_score"], v["headline_recorded"], "{rel}");
        let scores = v["scores"].as_array().expect("scores");
        assert!(
            scores
                .iter()
                .any(|s| !s["recorded"].is_null() && s["recorded"] == s["recomputed"]),
            "{rel}"
        );
    }
}

/// Issue 28, classes 4 and 5: every number a log records is in `scores` (recomputed, or not with
/// its reason); an OpenAI Evals sample with an `error` event keeps the verdict its `match` event
/// recorded and is paired; where the tool's headline counts errored samples as wrong and the
/// accuracy does not (promptfoo), both are said in words, with their denominators.
#[test]
fn evallog_errors_and_every_recorded_number() {
    let dir = fixtures().join("evallog");
    let json = |args: &[&str]| -> (serde_json::Value, String) {
        let (code, out, err) = evalboard(args, &dir);
        assert_eq!(code, 0, "{err}");
        (serde_json::from_str(&out).expect("json"), err)
    };
    let score = |v: &serde_json::Value, metric: &str| -> serde_json::Value {
        v["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .find(|s| s["metric"] == metric)
            .unwrap_or_else(|| panic!("no {metric}"))
            .clone()
    };
    let (v, err) = json(&["score", "ok/openai_evals_errors/input", "--json"]);
    // The errored sample .1 keeps its recorded `match` (wrong): 3 of 4, as evals' accuracy; .4
    // errored before any match and has no verdict.
    assert_eq!(v["accuracy"], 0.75);
    assert_eq!(v["headline_score"], 0.75);
    assert_eq!(
        (v["n_correct"].clone(), v["n_unscored"].clone()),
        (3.into(), 1.into())
    );
    assert_eq!(v["n_errors"], 2);
    assert!(v["accuracy_note"].is_null());
    for (metric, recorded) in [
        ("final_report/n_refusals", 0.0),
        ("final_report/by_difficulty.hard", 0.5),
        ("final_report/boostrap_std", 0.2496076921891631),
    ] {
        let s = score(&v, metric);
        assert_eq!(s["recorded"], recorded, "{metric}");
        assert_eq!(s["state"], "not recomputed", "{metric}");
        assert!(s["note"].is_string(), "{metric}");
    }
    assert_eq!(v["n_mismatches"], 0);
    assert!(
        err.contains("not recomputed (an eval-specific number: the eval's own code defines it)"),
        "{err}"
    );
    // The errored sample pairs: one improvement over 4 paired items.
    let (d, _) = json(&[
        "diff",
        "runs/openai_evals_errors_baseline",
        "runs/openai_evals_errors_candidate",
        "--json",
    ]);
    assert_eq!(d["n_items"], 4, "{d}");
    assert_eq!(
        d["improved"],
        serde_json::json!([["arith-match.dev.1"]]),
        "{d}"
    );

    let (v, err) = json(&["score", "ok/promptfoo_errors/input", "--json"]);
    assert_eq!(v["headline_score"], 0.5);
    assert_eq!(v["accuracy"], 16.0 / 24.0);
    let words = "Accuracy counts the 24 samples with a verdict: 16 correct of 24 (66.7%); the 8 \
                 errored samples have no verdict. promptfoo's pass/pass_rate counts errored \
                 samples as wrong: 16 of 32 (50.0%).";
    assert_eq!(v["accuracy_note"], words);
    assert!(err.contains(words), "{err}");
    for (metric, want) in [
        ("stats/errors", 8.0),
        ("stats/tokenUsage.numRequests", 32.0),
        ("toy-bad: chatty/metrics/testErrorCount", 2.0),
    ] {
        let s = score(&v, metric);
        assert_eq!(
            (s["recorded"].clone(), s["recomputed"].clone()),
            (want.into(), want.into())
        );
        assert_eq!(s["state"], "agrees", "{metric}");
    }
    assert_eq!(score(&v, "stats/durationMs")["state"], "not recomputed");
    assert_eq!(v["n_mismatches"], 0);
}
