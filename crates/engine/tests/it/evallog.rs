//! Other tools' evaluation logs (`engine::evallog`): every real file under
//! `../shared/data/eval-formats/` that a reader covers is read, and its recomputed headline numbers
//! must equal the ones the log recorded (within 1e-9); the derived fixtures under
//! `tests/fixtures/evallog/{ok,err}/` (written by `make_fixtures.py`) cover the archive's edge
//! cases (zstd and deflate members, truncation, a bomb-like member, duplicates, no header, NaN).

use std::fs;
use std::path::Path;

use evalboard_engine::evallog::{self, EvalLogRead, EvalLogRun, Headline, SampleKey, Tool};
use evalboard_engine::{InputFile, Severity};
use evalboard_test_support::shared_data;

const TOL: f64 = 1e-9;

fn input(path: &Path, rel: &str) -> InputFile {
    InputFile::new(rel, fs::read(path).unwrap())
}

fn read_shared(rels: &[&str]) -> Option<EvalLogRead> {
    let mut files = Vec::new();
    for rel in rels {
        let path = shared_data(&format!("eval-formats/{rel}"))?;
        files.push(input(&path, rel));
    }
    Some(evallog::read(&files).unwrap_or_else(|e| panic!("{rels:?}: {e}: {:?}", e.diagnostics)))
}

/// Every headline with a recorded number is recomputed and agrees; returns them for the
/// per-file numbers below.
fn check_headlines(run: &EvalLogRun) -> Vec<&Headline> {
    let mut checked = Vec::new();
    for h in &run.headlines {
        println!(
            "{:?} {}: recorded {:?} recomputed {:?} (n={}) {}",
            run.files,
            h.key.label(),
            h.recorded,
            h.recomputed,
            h.n,
            h.note.as_deref().unwrap_or("")
        );
        if h.recorded.is_some() {
            assert!(
                h.agrees(TOL),
                "{:?}: {} recorded {:?} recomputed {:?} ({:?})",
                run.files,
                h.key.label(),
                h.recorded,
                h.recomputed,
                h.note
            );
            checked.push(h);
        }
    }
    assert!(!checked.is_empty(), "{:?}: no headline checked", run.files);
    checked
}

fn headline<'a>(run: &'a EvalLogRun, label: &str) -> &'a Headline {
    run.headlines
        .iter()
        .find(|h| h.key.label() == label)
        .unwrap_or_else(|| panic!("no headline {label} in {:?}", run.files))
}

fn no_errors(read: &EvalLogRead) {
    let errors: Vec<_> = read
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn inspect_generated_eval_zstd() {
    let Some(read) = read_shared(&[
        "inspect_ai/generated-0.3.285/2026-11-25T20-36-08-00-00_arith_BQpM8JFfU92qzZe9tDU2Q9.eval",
    ]) else {
        return;
    };
    no_errors(&read);
    let run = &read.runs[0];
    assert_eq!(run.tool, Tool::InspectAi);
    assert_eq!(run.tool_version.as_deref(), Some("0.3.285"));
    assert_eq!(run.samples.len(), 8);
    let checked = check_headlines(run);
    assert_eq!(checked.len(), 16);
    let h = headline(run, "match[mean]/accuracy");
    assert_eq!(h.recorded, Some(0.3333333333333333));
    assert_eq!(h.n, 3);
    let h = headline(run, "closeness[mean]/stderr");
    assert!((h.recomputed.unwrap() - 0.1324023858785942).abs() < TOL);
    assert_eq!(
        run.primary.as_ref().map(|k| k.label()).as_deref(),
        Some("match[mean]/accuracy")
    );
    // Sorted like Inspect: epoch, then int ids (zero-filled) before string ids.
    let first: Vec<String> = run
        .samples
        .iter()
        .take(4)
        .map(|s| match &s.key {
            SampleKey::Inspect { id, epoch } => format!("{}@{epoch}", id.label()),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(first, ["2@1", "add@1", "boom@1", "mul@1"]);
    // `boom` errored: error kept, no scores; `2` has a NaN closeness in one epoch: unscored.
    let boom = run.samples.iter().find(|s| s.error.is_some()).unwrap();
    assert!(boom.scores.is_empty());
    assert!(run
        .samples
        .iter()
        .flat_map(|s| &s.scores)
        .any(|e| e.scorer == "closeness" && e.reading.is_none()));
}

#[test]
fn inspect_generated_json_with_nan() {
    let Some(read) = read_shared(&[
        "inspect_ai/generated-0.3.285/2026-11-25T20-36-12-00-00_arith_VVWPBMGtpotgvVsouiGCU7.json",
    ]) else {
        return;
    };
    no_errors(&read);
    let run = &read.runs[0];
    assert_eq!(run.samples.len(), 8);
    assert_eq!(check_headlines(run).len(), 16);
}

#[test]
fn inspect_chunked_eval() {
    let Some(read) =
        read_shared(&["inspect_ai/generated-0.3.285/chunked-parts/arith-chunked.eval"])
    else {
        return;
    };
    no_errors(&read);
    let run = &read.runs[0];
    assert_eq!(run.samples.len(), 8);
    assert_eq!(check_headlines(run).len(), 16);
}

#[test]
fn inspect_fixture_logs() {
    for (rel, checked, samples) in [
        ("inspect_ai/log_streaming.eval", 2, 4),
        (
            "inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
            2,
            10,
        ),
        ("inspect_ai/mmlu-summary-choices.eval", 2, 1),
        ("inspect_ai/log_message_deduplication.eval", 2, 1),
        ("inspect_ai/log_formats.json", 2, 1),
        ("inspect_ai/2025-05-12T20-28-13-04-00_popularity.json", 2, 3),
    ] {
        let Some(read) = read_shared(&[rel]) else {
            return;
        };
        no_errors(&read);
        let run = &read.runs[0];
        assert_eq!(run.samples.len(), samples, "{rel}");
        assert_eq!(check_headlines(run).len(), checked, "{rel}");
    }
}

#[test]
fn lm_eval_generated_run() {
    let dir = "lm-evaluation-harness/generated-0.4.13/toy-lookup-v1";
    let Some(read) = read_shared(&[
        &format!("{dir}/results_2026-11-25T20-38-20.566618.json"),
        &format!("{dir}/samples_arith_gen_2026-11-25T20-38-20.566618.jsonl"),
        &format!("{dir}/samples_arith_mc_2026-11-25T20-38-20.566618.jsonl"),
    ]) else {
        return;
    };
    no_errors(&read);
    assert_eq!(read.runs.len(), 1);
    let run = &read.runs[0];
    assert_eq!(run.tool, Tool::LmEvaluationHarness);
    assert_eq!(run.samples.len(), 15);
    assert_eq!(check_headlines(run).len(), 10);
    let h = headline(run, "arith_gen/exact_match[strict-match]/exact_match");
    assert_eq!((h.recorded, h.n), (Some(0.6), 5));
}
