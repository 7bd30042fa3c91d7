//! Other tools' evaluation logs (`engine::evallog`): every real file under
//! `../shared/data/eval-formats/` that a reader covers is read, and its recomputed headline numbers
//! must equal the ones the log recorded (within 1e-9); the derived fixtures under
//! `tests/fixtures/evallog/{ok,err}/` (written by `make_fixtures.py`) cover the archive's edge
//! cases (zstd and deflate members, truncation, a bomb-like member, duplicates, no header, NaN);
//! those written by `make_tool_fixtures.py` (real promptfoo, OpenAI Evals and HELM files, copied,
//! cut or edited) cover those readers' malformed inputs.

use std::fs;
use std::path::Path;

use evalboard_engine::evallog::archive::{Archive, Limits};
use evalboard_engine::evallog::{self, EvalLogRead, EvalLogRun, Headline, SampleKey, Tool};
use evalboard_engine::{InputFile, Severity};
use evalboard_test_support::{cases, expect_file, fixture, read_folder, shared_data};

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

/// Every headline with a recorded number is either recomputed and agrees, or marked not
/// recomputed with its reason; returns the recomputed ones for the per-file numbers below.
fn check_headlines(run: &EvalLogRun) -> Vec<&Headline> {
    let checked = check_recorded(run);
    assert!(!checked.is_empty(), "{:?}: no headline checked", run.files);
    checked
}

/// [`check_headlines`], where a run may have nothing recomputed (0 samples read).
fn check_recorded(run: &EvalLogRun) -> Vec<&Headline> {
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
        if h.recorded.is_some() && h.recomputed.is_none() {
            assert!(
                h.note.as_deref().is_some_and(|n| !n.is_empty()),
                "{:?}: {} not recomputed without a reason",
                run.files,
                h.key.label()
            );
        } else if h.recorded.is_some() {
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

fn keys(run: &EvalLogRun) -> Vec<Vec<String>> {
    run.samples
        .iter()
        .map(|s| evallog::score::key_parts(&s.key))
        .collect()
}

#[test]
fn promptfoo_generated_export_and_jsonl() {
    let dir = "promptfoo/generated-0.121.20";
    let Some(read) = read_shared(&[&format!("{dir}/results.json")]) else {
        return;
    };
    no_errors(&read);
    let run = &read.runs[0];
    assert_eq!(run.tool, Tool::Promptfoo);
    assert_eq!(run.tool_version.as_deref(), Some("0.121.20"));
    assert_eq!(run.format_version, Some(3));
    assert_eq!(run.samples.len(), 32);
    // The pass rate and, per column, its pass rate, score, cost and four named metrics; every
    // other number of `stats` (but its two durations) and of each column's `metrics` (issue 28
    // class 4): 3 counts + 20 token fields (5 counts, 5 completion details, each again for the
    // graders), and per column 6 counts, 20 token fields, 4 named score counts and 4 weights.
    assert_eq!(check_headlines(run).len(), 1 + 4 * 7 + 23 + 4 * 34);
    let h = headline(run, "pass/pass_rate");
    assert_eq!((h.recorded, h.recomputed, h.n), (Some(0.5), Some(0.5), 32));
    for (label, want) in [
        ("stats/successes", 16.0),
        ("stats/failures", 8.0),
        ("stats/errors", 8.0),
        ("stats/tokenUsage.prompt", 1392.0),
        // Every row is a request, the 8 provider errors too.
        ("stats/tokenUsage.numRequests", 32.0),
        ("toy-bad: chatty/metrics/testErrorCount", 2.0),
        ("toy-good: terse/metrics/assertPassCount", 14.0),
        ("toy-good: terse/metrics/totalLatencyMs", 32.0),
        ("toy-good: terse/metrics/namedScoresCount.numeric", 2.0),
        ("toy-good: terse/metrics/namedScoreWeights.numeric", 4.0),
    ] {
        let h = headline(run, label);
        assert_eq!(
            (h.recorded, h.recomputed),
            (Some(want), Some(want)),
            "{label}"
        );
    }
    let h = headline(run, "stats/durationMs");
    assert_eq!((h.recorded, h.recomputed), (Some(397.0), None));
    assert!(h.note.as_deref().unwrap().contains("wall-clock"));
    let h = headline(run, "toy-bad: chatty/numeric/sum");
    assert_eq!(h.recomputed, Some(4.0));
    assert_eq!(run.model.as_deref(), Some("toy-good, toy-bad"));
    assert_eq!(run.task.as_deref(), Some("arith-mini promptfoo sample"));
    // --repeat 2: testIdx 0 and 1 are the same test, repeats 0 and 1 of each column.
    let k = keys(run);
    assert_eq!(
        k[0],
        [
            r#"addition small {"expected":"4","question":"What is 2+2?"}"#,
            // Two providers share each prompt label: the key's prompt part is the column's.
            "toy-good: terse",
            "0"
        ]
    );
    assert_eq!(k[1][2], "1");
    assert_eq!(k.iter().filter(|k| k[2] == "1").count(), 16);
    let mut dedup = k.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), 32, "item keys are unique");
    // Provider errors (failureReason 2) carry their error; assertion failures do not.
    let errors: Vec<_> = run.samples.iter().filter(|s| s.error.is_some()).collect();
    assert_eq!(errors.len(), 8);
    assert!(errors[0].error.as_deref().unwrap().contains("HTTP 503"));
    let failed = run
        .samples
        .iter()
        .find(|s| s.error.is_none() && s.scores[0].reading == Some(0.0))
        .unwrap();
    assert_eq!(failed.target, ["4"]);
    assert_eq!(failed.output.as_deref(), Some("5"));
    assert_eq!(failed.latency, Some(0.005));
    // The .jsonl form of the same eval: the same items, the same recomputed numbers.
    let Some(jl) = read_shared(&[&format!("{dir}/results.jsonl")]) else {
        return;
    };
    no_errors(&jl);
    let jrun = &jl.runs[0];
    assert_eq!(keys(jrun), k);
    // (`stats` and the columns' `metrics` are recorded numbers only an export holds.)
    for h in run
        .headlines
        .iter()
        .filter(|h| !["stats", "metrics"].contains(&h.key.scorer.as_str()))
    {
        assert_eq!(headline(jrun, &h.key.label()).recomputed, h.recomputed);
    }
    assert!(jrun.recorded.is_empty());
}

#[test]
fn promptfoo_real_export() {
    let Some(read) = read_shared(&["promptfoo/sample-export.json"]) else {
        return;
    };
    no_errors(&read);
    let run = &read.runs[0];
    assert_eq!(run.samples.len(), 4);
    // The pass rate, per column its pass rate, score and cost; `stats` (3 counts, 16 token
    // fields, the graders' included) and per column 6 counts and 16 token fields.
    assert_eq!(check_headlines(run).len(), 1 + 2 * 3 + 19 + 2 * 22);
    let h = headline(run, "stats/tokenUsage.assertions.total");
    assert_eq!((h.recorded, h.recomputed), (Some(989.0), Some(989.0)));
    // Reasoning tokens add up to the export's stats; every row is priced.
    let reasoning: u64 = run.samples.iter().filter_map(|s| s.tokens.reasoning).sum();
    assert_eq!(reasoning, 576);
    assert!(run.samples.iter().all(|s| s.cost.is_some()));
}

#[test]
fn openai_evals_record_files() {
    for (rel, samples, checked, accuracy) in [
        (
            "openai-evals/generated-HEAD-4bfc1f58/arith-match.jsonl",
            4,
            6,
            "match/accuracy",
        ),
        (
            "openai-evals/generated-HEAD-4bfc1f58/arith-fuzzy.jsonl",
            4,
            7,
            "accuracy/mean",
        ),
        (
            "openai-evals/auto-gpt-benchmarks-2023-04-17_test-match.jsonl",
            3,
            1,
            "match/accuracy",
        ),
    ] {
        let Some(read) = read_shared(&[rel]) else {
            return;
        };
        no_errors(&read);
        let run = &read.runs[0];
        assert_eq!(run.tool, Tool::OpenaiEvals);
        assert_eq!(run.samples.len(), samples, "{rel}");
        assert_eq!(check_headlines(run).len(), checked, "{rel}");
        assert_eq!(
            run.primary.as_ref().map(|k| k.label()).as_deref(),
            Some(accuracy),
            "{rel}"
        );
        // Sorted by row index; the final_report line came before the events.
        assert!(keys(run)[0][0].ends_with(".0"), "{rel}");
    }
    let read = read_shared(&["openai-evals/generated-HEAD-4bfc1f58/arith-fuzzy.jsonl"]).unwrap();
    let run = &read.runs[0];
    assert_eq!(headline(run, "f1_score/mean").recorded, Some(0.625));
    let s = &run.samples[2];
    assert_eq!(s.target, ["12", "twelve"]);
    assert_eq!(s.output.as_deref(), Some("12, I think"));
    assert_eq!(s.input.as_deref(), Some("What is 3*4?"));
    assert_eq!((s.tokens.input, s.tokens.output), (Some(10), Some(6)));
    assert_eq!(run.model.as_deref(), Some("toy-lookup-v1"));
}

#[test]
fn helm_generated_run_folder() {
    let dir = "helm/generated-0.5.16";
    let names = [
        "run_spec.json",
        "scenario.json",
        "scenario_state.json",
        "per_instance_stats.json",
        "stats.json",
    ];
    let rels: Vec<String> = names.iter().map(|n| format!("{dir}/{n}")).collect();
    let rels: Vec<&str> = rels.iter().map(String::as_str).collect();
    let Some(read) = read_shared(&rels) else {
        return;
    };
    no_errors(&read);
    assert_eq!(read.runs.len(), 1);
    assert!(read
        .files
        .iter()
        .all(|f| f.status == evalboard_engine::accounting::FileStatus::Parsed));
    let run = &read.runs[0];
    assert_eq!(run.tool, Tool::Helm);
    assert_eq!(run.samples.len(), 30);
    assert_eq!(run.model.as_deref(), Some("simple/model1"));
    // Every per-instance stat of stats.json (19 of 23 unperturbed; perplexity and the like are
    // computed over a whole trial), recomputed as the mean of the train trials' means.
    assert_eq!(check_headlines(run).len(), 17);
    assert_eq!(run.headlines.len(), 19);
    let h = headline(run, "test/num_prompt_tokens/mean");
    assert_eq!((h.recorded, h.n), (Some(216.9666666666667), 30));
    // This scenario has no accuracy stat: no main metric, no verdicts (a warning says so).
    assert_eq!(run.primary, None);
    assert!(read
        .diagnostics
        .iter()
        .any(|d| d.message.contains("no main metric")));
    assert_eq!(
        keys(run)[0],
        ["id10".to_string(), String::new(), "0".into()]
    );
    assert_eq!(run.samples[0].target, ["15"]);
    assert_eq!(run.samples[0].tokens.input, Some(217));
}

// ---------------------------------------------------------------------------------------------
// Derived fixtures (tests/fixtures/evallog/make_fixtures.py)
// ---------------------------------------------------------------------------------------------

/// A case's read as text: runs (headlines, samples), file statuses, diagnostics.
fn snapshot(read: &Result<EvalLogRead, evalboard_engine::accounting::LoadError>) -> String {
    let mut out = String::new();
    let (runs, files, diags) = match read {
        Ok(r) => (&r.runs[..], &r.files, &r.diagnostics),
        Err(e) => (&[][..], &e.files, &e.diagnostics),
    };
    for run in runs {
        out += &format!(
            "run {:?} status={:?} task={:?} model={:?} samples={}\n",
            run.tool,
            run.status,
            run.task,
            run.model,
            run.samples.len()
        );
        for h in &run.headlines {
            out += &format!(
                "  {} recorded={:?} recomputed={:?} n={}",
                h.key.label(),
                h.recorded,
                h.recomputed,
                h.n
            );
            match (h.recorded, h.not_recomputed_reason()) {
                (Some(_), Some(why)) => out += &format!(" not recomputed: {why}\n"),
                _ => out += "\n",
            }
        }
        for s in &run.samples {
            let scores: Vec<String> = s
                .scores
                .iter()
                .map(|e| format!("{}={:?}->{:?}", e.score_name(), e.value, e.reading))
                .collect();
            out += &format!("  {:?} error={:?} {}\n", s.key, s.error, scores.join(" "));
            for c in &s.checks.list {
                out += &format!(
                    "    check {}{} value={:?} pass={:?} score={:?} reason={:?}\n",
                    "  ".repeat(c.depth as usize),
                    c.kind,
                    c.value,
                    c.pass,
                    c.score,
                    c.reason
                );
            }
            if s.checks.more > 0 {
                out += &format!("    checks not kept: {}\n", s.checks.more);
            }
        }
    }
    for f in files {
        out += &format!(
            "file {} {:?} {:?} {:?}\n",
            f.path, f.format, f.status, f.reason
        );
    }
    for d in diags {
        out += &format!("{d}\n");
    }
    out
}

#[test]
fn fixture_cases() {
    for case in cases("evallog") {
        let files: Vec<InputFile> = read_folder(&case.dir.join("input"))
            .into_iter()
            .map(|(p, b)| InputFile::new(p, b))
            .collect();
        let read = evallog::read(&files);
        if case.ok {
            let r = read
                .as_ref()
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(
                r.diagnostics.is_empty(),
                "{}: {:?}",
                case.name,
                r.diagnostics
            );
            for run in &r.runs {
                check_recorded(run);
            }
        } else {
            let diags = match &read {
                Ok(r) => &r.diagnostics,
                Err(e) => &e.diagnostics,
            };
            assert!(
                !diags.is_empty(),
                "{}: an err case gives diagnostics",
                case.name
            );
        }
        expect_file(&case.dir.join("expected/read.txt"), &snapshot(&read));
    }
}

fn fixture_bytes(case: &str) -> Vec<u8> {
    fs::read(fixture(&format!("evallog/{case}/input/arith.eval"))).unwrap()
}

#[test]
fn truncation_at_every_byte_never_panics() {
    for case in ["ok/zstd_multiframe", "ok/deflate_stored_zip64"] {
        let bytes = fixture_bytes(case);
        for cut in 0..bytes.len() {
            let f = InputFile::new("cut.eval", bytes[..cut].to_vec());
            // Errors or partial runs are both fine; a panic fails the test.
            let _ = evallog::read(&[f]);
        }
    }
}

#[test]
fn every_byte_flipped_never_panics() {
    let bytes = fixture_bytes("ok/zstd_multiframe");
    for at in 0..bytes.len() {
        let mut b = bytes.clone();
        b[at] ^= 0xFF;
        let _ = evallog::read(&[InputFile::new("flip.eval", b)]);
    }
}

#[test]
fn output_cap_refuses_members_instead_of_allocating() {
    let bytes = fixture_bytes("ok/zstd_multiframe");
    // Full caps: every member reads.
    let archive = Archive::parse(&bytes, Limits::default()).unwrap();
    for e in &archive.entries {
        archive.read(e).unwrap();
    }
    // An absolute cap below the header's size: that member is refused, not decompressed.
    let tight = Limits {
        absolute: 1000,
        ..Limits::default()
    };
    let archive = Archive::parse(&bytes, tight).unwrap();
    let header = archive.get("header.json").unwrap();
    let err = archive.read(header).unwrap_err();
    assert!(err.contains("exceeds the cap"), "{err}");
    // All members together: under `absolute` for a small archive, `total_per_byte` × its size
    // for a big one (a 1 GB log inflates to several GB, read a member at a time).
    let sizes: Vec<u64> = Archive::parse(&bytes, Limits::default())
        .unwrap()
        .entries
        .iter()
        .map(|e| e.uncompressed_size)
        .collect();
    let (largest, sum) = (*sizes.iter().max().unwrap(), sizes.iter().sum::<u64>());
    assert!(largest < sum);
    let total_tight = Limits {
        absolute: largest,
        total_per_byte: 0,
        ..Limits::default()
    };
    let archive = Archive::parse(&bytes, total_tight).unwrap();
    let results: Vec<Result<Vec<u8>, String>> =
        archive.entries.iter().map(|e| archive.read(e)).collect();
    assert!(results.iter().any(|r| r.is_ok()));
    assert!(results
        .iter()
        .any(|r| r.as_ref().is_err_and(|e| e.contains("exceeds the cap"))));
    let l = Limits::default();
    assert_eq!(l.total_cap_for(1 << 20), 1 << 30);
    assert_eq!(l.total_cap_for(1 << 30), 32 << 30);
    assert_eq!(l.cap_for(1 << 30), 1 << 30);
    // The bomb fixture: a few KB of zstd that would inflate to 64 MiB, over input × 1100.
    let bomb = fixture_bytes("err/bomb_member");
    let archive = Archive::parse(&bomb, Limits::default()).unwrap();
    assert!(archive.cap() < 64 << 20);
    let member = archive.get("samples/bomb_epoch_1.json").unwrap();
    assert_eq!(member.uncompressed_size, 0xFFFF_FFF0);
    assert!(archive
        .read(member)
        .unwrap_err()
        .contains("exceeds the cap"));
}

#[test]
fn duplicate_members_resolve_to_the_last_entry() {
    let bytes = fixture_bytes("err/duplicate_member");
    let archive = Archive::parse(&bytes, Limits::default()).unwrap();
    assert_eq!(archive.duplicates, ["samples/b_epoch_1.json"]);
    let read = evallog::read(&[InputFile::new("d.eval", bytes)]).unwrap();
    let b = read.runs[0]
        .samples
        .iter()
        .find(|s| matches!(&s.key, SampleKey::Inspect { id, .. } if id.label() == "b"))
        .unwrap();
    // The appended (last) entry says "I"; the first one said "C".
    assert_eq!(
        b.scores
            .iter()
            .find(|e| e.scorer == "match")
            .unwrap()
            .reading,
        Some(0.0)
    );
}

// ---------------------------------------------------------------------------------------------
// Registration (`Family::EvalLog` in `engine::run`)
// ---------------------------------------------------------------------------------------------

fn run_input(rel: &str) -> evalboard_engine::RunInput {
    let dir = fixture(&format!("evallog/runs/{rel}"));
    let files = read_folder(&dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    evalboard_engine::RunInput::new(rel, files)
}

#[test]
fn logs_are_detected_as_the_eval_log_family() {
    use evalboard_engine::family::{detect_family, Family};
    for rel in ["inspect_arith", "lm_eval_baseline"] {
        assert_eq!(detect_family(&run_input(rel)), Family::EvalLog, "{rel}");
    }
    let json = fixture("evallog/ok/json_nan/input");
    let files = read_folder(&json)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    assert_eq!(
        detect_family(&evalboard_engine::RunInput::new("json", files)),
        Family::EvalLog
    );
    assert_eq!(Family::EvalLog.name(), "eval-log");
    assert_eq!(
        serde_json::to_value(Family::EvalLog).unwrap(),
        serde_json::json!("eval-log")
    );
    assert_eq!(Family::ALL.last(), Some(&Family::EvalLog));
}

#[test]
fn registry_reads_scores_and_compares_logs() {
    use evalboard_engine::run::{self, CompareSettings, ReadOptions, Settings};
    let load = |rel: &str| {
        let read = run::read(&run_input(rel), None, ReadOptions::default()).expect("reads");
        run::score(read, &Settings::default(), 1)
    };
    let b = load("lm_eval_baseline");
    let c = load("lm_eval_candidate");
    assert_eq!(b.as_ref().headline_value(), Some(0.6));
    assert_eq!(b.as_ref().counts(), (0, 15));
    let cmp = run::compare(b.as_ref(), c.as_ref(), &CompareSettings::default()).expect("compares");
    assert_eq!(cmp.stats.n_paired, 5);
    assert_eq!(
        (cmp.stats.flips.regressed, cmp.stats.flips.improved),
        (1, 1)
    );
    let i = load("inspect_arith");
    assert!(matches!(
        run::compare(b.as_ref(), i.as_ref(), &CompareSettings::default()),
        Ok(ref r) if !r.warnings.is_empty()
    ));
}

/// Two promptfoo exports pair on (test, column, repeat) and are judged by `success`
/// (`make_tool_fixtures.py`: the candidate's gpt-5 row of the first riddle passes).
#[test]
fn registry_compares_promptfoo_exports() {
    use evalboard_engine::family::{detect_family, Family};
    use evalboard_engine::run::{self, CompareSettings, ReadOptions, Settings};
    assert_eq!(
        detect_family(&run_input("promptfoo_baseline")),
        Family::EvalLog
    );
    let load = |rel: &str| {
        let read = run::read(&run_input(rel), None, ReadOptions::default()).expect("reads");
        run::score(read, &Settings::default(), 1)
    };
    let b = load("promptfoo_baseline");
    let c = load("promptfoo_candidate");
    assert_eq!(b.as_ref().headline_value(), Some(0.0));
    assert_eq!(c.as_ref().headline_value(), Some(0.25));
    let cmp = run::compare(b.as_ref(), c.as_ref(), &CompareSettings::default()).expect("compares");
    assert_eq!(cmp.stats.n_paired, 4);
    assert_eq!(
        (cmp.stats.flips.regressed, cmp.stats.flips.improved),
        (0, 1)
    );
    assert!(cmp.warnings.is_empty(), "{:?}", cmp.warnings);
}

/// A folder of several logs of the new tools splits into one input per log: each promptfoo
/// export and record file alone, a HELM folder whole.
#[test]
fn split_logs_keeps_a_helm_folder_together() {
    use evalboard_engine::evallog::score::split_logs;
    let mut files = Vec::new();
    for (case, prefix) in [
        ("ok/helm_exact_match", "helm/"),
        ("ok/promptfoo_export", ""),
        ("ok/openai_evals_fuzzy", ""),
    ] {
        for (p, b) in read_folder(&fixture(&format!("evallog/{case}/input"))) {
            files.push(InputFile::new(format!("{prefix}{p}"), b));
        }
    }
    let pieces = split_logs(evalboard_engine::RunInput::new("mixed", files));
    let sizes: Vec<usize> = pieces.iter().map(|p| p.files.len()).collect();
    assert_eq!(
        sizes,
        [1, 1, 5],
        "{:?}",
        pieces.iter().map(|p| &p.name).collect::<Vec<_>>()
    );
}

/// Issue 28, class 9: several folders of logs dropped at once (a folder of folders) are one run
/// per log, and each lists its own folder's other files and broken logs in its Load report —
/// never all of them on the first run's.
#[test]
fn a_folder_of_folders_keeps_each_folders_files_with_its_own_log() {
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions};
    let mut files = Vec::new();
    for (case, prefix) in [
        ("ok/promptfoo_export", "a/"),
        ("ok/openai_evals_fuzzy", "b/"),
    ] {
        for (p, b) in read_folder(&fixture(&format!("evallog/{case}/input"))) {
            files.push(InputFile::new(format!("{prefix}{p}"), b));
        }
    }
    files.push(InputFile::new("a/notes.txt", "about a"));
    files.push(InputFile::new("b/notes.txt", "about b"));
    files.push(InputFile::new("b/broken.eval", b"PK\x03\x04 cut".to_vec()));
    let runs = run::read_parts(
        Family::EvalLog,
        evalboard_engine::RunInput::new("drop", files),
        None,
        ReadOptions::default(),
    )
    .expect("readable logs");
    let listed: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let run::ReadRun::EvalLog(l) = r else {
                panic!("an eval log")
            };
            let mut p: Vec<String> = l.files.iter().map(|f| f.path.clone()).collect();
            p.sort();
            p
        })
        .collect();
    assert_eq!(
        listed,
        [
            vec!["a/notes.txt", "a/sample-export.json"],
            vec!["b/arith-fuzzy.jsonl", "b/broken.eval", "b/notes.txt"],
        ],
        "{listed:?}"
    );
}

/// Issue 28, class 9: what a first look shows is in words and never circular — promptfoo's
/// `failureReason` in words and never a breakdown; scores summarised per slice (an lm-eval
/// score per task and filter, never pooled over filters); a finished run is not warned about.
#[test]
fn tool_metadata_in_words_and_no_circular_or_pooled_views() {
    use evalboard_engine::evallog::views::{breakdown_fields, score_summaries};
    let dir = fixture("evallog/ok/promptfoo_errors/input");
    let files: Vec<InputFile> = read_folder(&dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let run = &evallog::read(&files).unwrap().runs[0];
    let reasons: std::collections::BTreeSet<&str> = run
        .samples
        .iter()
        .filter_map(|s| s.metadata.get("failureReason").map(String::as_str))
        .collect();
    assert_eq!(
        reasons.into_iter().collect::<Vec<_>>(),
        [r#""assertion failed""#, r#""none""#, r#""provider error""#]
    );
    assert!(!breakdown_fields(run).iter().any(|f| f == "failureReason"));
    assert_eq!(run.unfinished_status(), None, "{:?}", run.status);
    let names: Vec<String> = score_summaries(run).into_iter().map(|x| x.name).collect();
    assert!(
        names.contains(&"toy-bad: chatty/pass".to_string()),
        "{names:?}"
    );

    let dir = fixture("evallog/runs/lm_eval_baseline");
    let files: Vec<InputFile> = read_folder(&dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let run = &evallog::read(&files).unwrap().runs[0];
    let sums = score_summaries(run);
    let gen = sums
        .iter()
        .find(|x| x.name == "arith_gen/exact_match[strict-match]")
        .expect("per task and filter");
    // 5 documents under that filter: the same n and mean as the number lm-eval records.
    assert_eq!((gen.n, gen.mean), (5, Some(0.6)));
    assert!(!sums.iter().any(|x| x.name == "exact_match"));
    assert_eq!(run.created.as_deref(), Some("2026-11-25 20:38:20 UTC"));
}

/// Cut anywhere, the three readers give a run or diagnostics, never a panic.
#[test]
fn tool_logs_cut_anywhere_never_panic() {
    for (case, name) in [
        ("ok/promptfoo_export", "sample-export.json"),
        ("ok/openai_evals_fuzzy", "arith-fuzzy.jsonl"),
        ("ok/helm_exact_match", "per_instance_stats.json"),
        ("ok/helm_exact_match", "scenario_state.json"),
    ] {
        let dir = fixture(&format!("evallog/{case}/input"));
        let all: Vec<InputFile> = read_folder(&dir)
            .into_iter()
            .map(|(p, b)| InputFile::new(p, b))
            .collect();
        let bytes = fs::read(dir.join(name)).unwrap();
        let step = (bytes.len() / 400).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let files: Vec<InputFile> = all
                .iter()
                .map(|f| match f.path == name {
                    true => InputFile::new(name, bytes[..cut].to_vec()),
                    false => f.clone(),
                })
                .collect();
            let _ = evallog::read(&files);
        }
    }
}

/// The dashboard's workers do not carry the family yet: a dropped log is refused with a message
/// that names the CLI, never a panic.
#[test]
fn a_consumer_without_the_family_refuses_a_log_naming_the_cli() {
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, FamilySet, ReadOptions, Settings};
    const MAIN_WORKER: FamilySet = Family::NumericQa.bit() | Family::Evalset.bit();
    let err = run::load_in::<MAIN_WORKER>(
        Family::EvalLog,
        &run_input("inspect_arith"),
        (None, ReadOptions::default()),
        &Settings::default(),
        1,
    )
    .expect_err("not read here");
    assert!(
        err.message.contains("not supported in the dashboard yet") && err.message.contains("CLI"),
        "{}",
        err.message
    );
}

/// `validate`: the reader's problems, an unknown format version and a sample count that
/// disagrees with the header are errors; a clean log has none.
#[test]
fn validate_reports_structural_problems() {
    use evalboard_engine::evallog::validate::validate_logs;
    let path = fixture("evallog/ok/json_nan/input/arith.json");
    let text = fs::read_to_string(&path).unwrap();
    let ok = validate_logs(&[InputFile::new("arith.json", text.clone().into_bytes())]);
    assert_eq!((ok.errors.len(), ok.exit_code()), (0, 0), "{:?}", ok.errors);
    assert_eq!(ok.logs[0].declared_samples, Some(4));
    let edited = text
        .replacen("\"version\": 2,", "\"version\": 9,", 1)
        .replacen("\"total_samples\": 4,", "\"total_samples\": 5,", 1);
    let bad = validate_logs(&[InputFile::new("arith.json", edited.into_bytes())]);
    let messages: Vec<&str> = bad.errors.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(bad.exit_code(), 1);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("unknown Inspect log format version 9")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("declares 5 samples") && m.contains("4 were read")),
        "{messages:?}"
    );
    let truncated = validate_logs(&[InputFile::new("arith.eval", fixture_bytes("err/truncated"))]);
    assert_eq!(truncated.exit_code(), 1);
    assert!(truncated.errors.iter().all(|d| d.file == "arith.eval"));
}

/// Inspect's int id `1` and string id `"1"` are different items (the string one is quoted).
#[test]
fn inspect_int_and_string_ids_stay_apart_in_item_keys() {
    use evalboard_engine::evallog::score::key_parts;
    use evalboard_engine::evallog::SampleId;
    let int = key_parts(&SampleKey::Inspect {
        id: SampleId::Int(1),
        epoch: 2,
    });
    let string = key_parts(&SampleKey::Inspect {
        id: SampleId::Str("1".into()),
        epoch: 2,
    });
    assert_eq!(int, ["1", "2"]);
    assert_eq!(string, ["\"1\"", "2"]);
    let word = key_parts(&SampleKey::Inspect {
        id: SampleId::Str("add".into()),
        epoch: 1,
    });
    assert_eq!(word, ["add", "1"]);
}

/// A promptfoo item is keyed by its prompt's label, never by `promptIdx` nor by the provider:
/// the same test and prompt pair across two exports although a prompt added in front moved its
/// column from 0 to 1 and the model changed.
#[test]
fn promptfoo_items_key_on_the_prompt_label_not_its_index() {
    let row = |prompt_idx: u32, provider: &str, label: &str, pass: bool| {
        serde_json::json!({
            "testIdx": 0, "promptIdx": prompt_idx, "success": pass, "score": if pass { 1 } else { 0 },
            "provider": {"id": provider, "label": ""},
            "prompt": {"raw": "Q: 2+2?", "label": label},
            "vars": {"q": "2+2"}, "testCase": {"vars": {"q": "2+2"}},
            "response": {"output": "4"}, "failureReason": if pass { 0 } else { 1 },
        })
    };
    let export = |prompts: serde_json::Value, rows: Vec<serde_json::Value>| {
        serde_json::json!({"evalId": "e", "results": {"version": 3, "timestamp": "t", "prompts": prompts, "results": rows, "stats": {"successes": 0, "failures": 0, "errors": 0}}})
            .to_string()
    };
    let a = export(
        serde_json::json!([{"label": "ask", "provider": "openai:gpt-4o"}]),
        vec![row(0, "openai:gpt-4o", "ask", false)],
    );
    let b = export(
        serde_json::json!([{"label": "other", "provider": "openai:gpt-5"}, {"label": "ask", "provider": "openai:gpt-5"}]),
        vec![
            row(0, "openai:gpt-5", "other", true),
            row(1, "openai:gpt-5", "ask", true),
        ],
    );
    let key_of = |text: &str| {
        let read = evallog::read(&[InputFile::new("a/results.json", text.as_bytes().to_vec())])
            .expect("read");
        assert_eq!(read.runs.len(), 1, "{:?}", read.diagnostics);
        read.runs[0]
            .samples
            .iter()
            .map(|s| s.key.clone())
            .collect::<Vec<SampleKey>>()
    };
    let (ka, kb) = (key_of(&a), key_of(&b));
    assert!(
        matches!(&ka[0], SampleKey::Promptfoo { prompt, .. } if prompt == "ask"),
        "{ka:?}"
    );
    assert!(
        kb.contains(&ka[0]),
        "the 'ask' item pairs: {ka:?} vs {kb:?}"
    );
}

/// A [`ByteSource`] over bytes that counts what is read.
struct Counting<'a> {
    bytes: &'a [u8],
    read: u64,
}

impl evallog::eval_file::ByteSource for Counting<'_> {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
    async fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, String> {
        self.read += len;
        evallog::eval_file::range(self.bytes, at, len).map(<[u8]>::to_vec)
    }
}

/// An Inspect log of `n` samples as `.eval` members (stored), each sample with `pad` bytes of
/// messages, with `summaries.json`.
fn big_eval(n: usize, pad: usize) -> Vec<u8> {
    let header = r#"{"version": 2, "status": "success",
        "eval": {"task": "big", "model": "mockllm/model", "eval_id": "E", "run_id": "R",
                 "created": "2026-11-26T00:00:00+00:00", "dataset": {"name": "big"},
                 "config": {"epochs": 1}, "packages": {"inspect_ai": "0.3.285"}},
        "results": {"total_samples": N, "completed_samples": N,
                    "scores": [{"name": "match", "scorer": "match", "reducer": "mean",
                                "metrics": {"accuracy": {"name": "accuracy", "value": ACC}}}]}}"#;
    let correct = n.div_ceil(2);
    let header = header
        .replace("ACC", &(correct as f64 / n as f64).to_string())
        .replace('N', &n.to_string());
    let mut members = vec![("header.json".to_string(), header.into_bytes())];
    let mut summaries = Vec::new();
    for i in 1..=n {
        let verdict = if i % 2 == 1 { "C" } else { "I" };
        let summary = format!(
            r#"{{"id": {i}, "epoch": 1, "input": "What is {i} + 0?", "target": "{i}",
                "scores": {{"match": {{"value": "{verdict}", "answer": "{i}"}}}}}}"#
        );
        let sample = format!(
            r#"{{"id": {i}, "epoch": 1, "input": "What is {i} + 0?", "target": "{i}",
                "messages": [{{"role": "user", "content": "{}"}}],
                "output": {{"completion": "ANSWER: {i}"}},
                "scores": {{"match": {{"value": "{verdict}", "answer": "{i}"}}}}}}"#,
            "x".repeat(pad)
        );
        summaries.push(summary);
        members.push((format!("samples/{i}_epoch_1.json"), sample.into_bytes()));
    }
    members.push((
        "summaries.json".into(),
        format!("[{}]", summaries.join(",")).into_bytes(),
    ));
    crate::duplicate_keys::stored_zip(&members)
}

#[test]
fn a_big_eval_opens_from_its_summaries_reading_a_fraction_of_it() {
    use evallog::eval_file::{now, EvalFile};
    let bytes = big_eval(400, 20_000);
    let mut src = Counting {
        bytes: &bytes,
        read: 0,
    };
    let file = now(async { Ok(EvalFile::open(&mut src, "big.eval").await) })
        .unwrap()
        .unwrap();
    assert_eq!(file.plan.samples.len(), 400);
    let (first, diags) = now(async { Ok(file.summaries_run(&mut src).await) })
        .unwrap()
        .unwrap()
        .unwrap();
    // The table, from a few per cent of the file: end records, directory, header, summaries.
    assert!(
        src.read * 50 < bytes.len() as u64,
        "read {} of {} bytes",
        src.read,
        bytes.len()
    );
    assert_eq!(first.samples.len(), 400);
    assert!(first.samples.iter().all(|s| s.output.is_none()));
    assert!(diags.iter().any(|d| d.severity == Severity::Info
        && d.message
            .contains("400 samples shown from the log's summaries")));
    // Every sample read after: the run the in-memory reader gives, which the summaries' run
    // matches in keys, scores and headline numbers.
    let mut seen = Vec::new();
    let (full, full_diags) = now(async {
        Ok(file
            .full_run(&mut src, &mut |done, total| {
                seen.push((done, total));
                std::ops::ControlFlow::Continue(())
            })
            .await)
    })
    .unwrap()
    .unwrap();
    assert_eq!(seen.last(), Some(&(400, 400)));
    let eager = evallog::eval_file::read_eval(&InputFile::new("big.eval", bytes.clone())).unwrap();
    assert_eq!((full.clone(), full_diags), eager);
    assert!(full.samples.iter().all(|s| s.output.is_some()));
    assert_eq!(first.headlines, full.headlines);
    assert!(first.headlines[0].agrees(TOL));
    for (a, b) in first.samples.iter().zip(&full.samples) {
        assert_eq!(
            (&a.key, &a.scores, &a.target),
            (&b.key, &b.scores, &b.target)
        );
    }
    // One sample's member again, as the drawer reads it.
    let name = evallog::inspect::sample_member(&file.index, &evallog::SampleId::Int(7), 1).unwrap();
    let member = now(async { Ok(file.member(&mut src, &name).await) })
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(String::from_utf8(member).unwrap().contains("ANSWER: 7"));
}

#[test]
fn an_eval_read_through_slices_is_the_eval_read_in_memory_for_every_real_log() {
    use evallog::eval_file::{now, EvalFile};
    let mut paths: Vec<(String, Vec<u8>)> = Vec::new();
    for case in cases("evallog") {
        let p = case.dir.join("input/arith.eval");
        if p.exists() {
            paths.push((p.display().to_string(), fs::read(&p).unwrap()));
        }
    }
    let shared = shared_data("eval-formats/inspect_ai");
    // Without ../shared/data (a clone elsewhere, allowed to skip it): the fixtures' logs only.
    let at_least = if shared.is_some() {
        8
    } else {
        paths.len().max(1)
    };
    if let Some(dir) = shared {
        for sub in [dir.clone(), dir.join("generated-0.3.285")] {
            for e in fs::read_dir(&sub).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "eval") {
                    paths.push((p.display().to_string(), fs::read(&p).unwrap()));
                }
            }
        }
    }
    assert!(
        paths.len() >= at_least,
        "{:?}",
        paths.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    for (name, bytes) in paths {
        let eager = evallog::eval_file::read_eval(&InputFile::new("x.eval", bytes.clone()));
        let mut src = Counting {
            bytes: &bytes,
            read: 0,
        };
        let lazy = now(async {
            Ok(match EvalFile::open(&mut src, "x.eval").await {
                Ok(f) => {
                    if let Some(Ok((first, _))) = f.summaries_run(&mut src).await {
                        let full = f
                            .full_run(&mut src, &mut |_, _| std::ops::ControlFlow::Continue(()))
                            .await;
                        if let Ok((full, _)) = &full {
                            assert_eq!(first.samples.len(), full.samples.len(), "{name}");
                        }
                        full
                    } else {
                        f.full_run(&mut src, &mut |_, _| std::ops::ControlFlow::Continue(()))
                            .await
                    }
                }
                Err(d) => Err(d),
            })
        })
        .unwrap();
        assert_eq!(eager, lazy, "{name}");
    }
}

/// Issue 28, class 8: a folder holding a good `.eval` and a truncated one is the good log's run;
/// the truncated log is named as skipped in its files, with the reason, and its diagnostics
/// kept. A folder of broken logs only is still an error.
#[test]
fn one_broken_log_never_sinks_the_rest() {
    use evalboard_engine::accounting::FileStatus;
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions, ReadRun};
    let dir = fixture("evallog/err/broken_beside_good/input");
    let files: Vec<InputFile> = read_folder(&dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    let input = evalboard_engine::RunInput::new("broken_beside_good", files.clone());
    let runs = run::read_parts(Family::EvalLog, input, None, ReadOptions::default())
        .expect("the good log is read");
    assert_eq!(runs.len(), 1);
    let ReadRun::EvalLog(log) = &runs[0] else {
        panic!("an eval log")
    };
    assert_eq!(log.run.files, ["good.eval"]);
    assert_eq!(log.run.samples.len(), 8);
    let bad = log
        .files
        .iter()
        .find(|f| f.path == "truncated.eval")
        .expect("the broken log is accounted for");
    assert_eq!(bad.status, FileStatus::Skipped);
    assert!(
        bad.reason
            .as_deref()
            .is_some_and(|r| r.contains("end-of-central-directory")),
        "{bad:?}"
    );
    assert!(log.diagnostics.iter().any(|d| d.file == "truncated.eval"));

    let broken: Vec<InputFile> = files
        .into_iter()
        .filter(|f| f.path == "truncated.eval")
        .chain(std::iter::once(InputFile::new(
            "also.eval",
            fixture_bytes("err/truncated"),
        )))
        .collect();
    let e = run::read_parts(
        Family::EvalLog,
        evalboard_engine::RunInput::new("broken", broken),
        None,
        ReadOptions::default(),
    )
    .expect_err("nothing usable");
    assert_eq!(e.files.len(), 2, "both broken logs named: {:?}", e.files);
}

/// A sample's reason is the explanation of the headline score (promptfoo's grading reason,
/// Inspect's scorer explanation), else the first explanation it records; none for a tool that
/// records none (lm-eval).
#[test]
fn each_sample_gives_the_reason_of_its_verdict() {
    use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
    let load = |dir: &str| {
        let files = read_folder(&fixture(dir))
            .into_iter()
            .map(|(p, b)| InputFile::new(p, b))
            .collect();
        let input = evalboard_engine::RunInput::new("log", files);
        let read = run::read(&input, None, ReadOptions::default()).expect("reads");
        match run::score(read, &Settings::default(), 1) {
            ScoredRun::EvalLog(l) => *l,
            _ => panic!("an eval log"),
        }
    };
    let reasons = |dir: &str| {
        let s = load(dir);
        (0..s.log.run.samples.len())
            .map(|i| s.reason(i).map(str::to_string))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        reasons("evallog/ok/promptfoo_assertions/input"),
        [
            Some("All assertions passed".to_string()),
            Some("Expected output to contain \"Paris\"".into()),
            Some("=The answer apologises instead of answering <script>alert(1)</script>".into()),
        ]
    );
    let inspect = reasons("evallog/ok/inspect_epochs2_json/input");
    assert_eq!(inspect[0].as_deref(), Some("The answer is 4."));
    assert!(reasons("evallog/runs/lm_eval_baseline")
        .iter()
        .all(Option::is_none));
    assert_eq!(load("evallog/runs/lm_eval_baseline").reason(10_000), None);
}

/// A log without `results` (a run cancelled, crashed or still going): its samples are
/// recomputed under the scorers `eval.scorers` declares, so the headline is the recorded one's
/// recomputation; a dict scorer's metrics by key give one score per key.
#[test]
fn a_log_without_results_is_recomputed_under_its_declared_scorers() {
    let Some(path) =
        shared_data("eval-formats/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json")
    else {
        return;
    };
    let whole: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let complete = evallog::read(&[input(&path, "popularity.json")]).unwrap();
    let recorded = headline(&complete.runs[0], "match/accuracy").recorded;
    let mut cut = whole.clone();
    cut.as_object_mut().unwrap().remove("results");
    let read = evallog::read(&[InputFile::new(
        "popularity.json",
        serde_json::to_vec(&cut).unwrap(),
    )])
    .unwrap();
    no_errors(&read);
    let h = headline(&read.runs[0], "match/accuracy");
    assert_eq!(h.recorded, None);
    assert!(
        (h.recomputed.unwrap() - recorded.unwrap()).abs() < TOL,
        "{h:?} vs {recorded:?}"
    );
    assert!(read.runs[0]
        .headlines
        .iter()
        .any(|h| h.key.label() == "match/stderr"));
    assert_eq!(
        read.runs[0].primary.as_ref().map(|k| k.label()).as_deref(),
        Some("match/accuracy")
    );

    // A dict scorer: one score per key, as `results.scores` names them.
    let mut dict = cut;
    dict["eval"]["scorers"] = serde_json::json!([{"name": "dict_scorer", "options": {},
        "metrics": {"exact": [{"name": "inspect_ai/accuracy", "options": {}}],
                    "close": [{"name": "inspect_ai/mean"}, {"name": "inspect_ai/stderr"}, {"name": "inspect_ai/stderr"}]}}]);
    let read = evallog::read(&[InputFile::new(
        "dict.json",
        serde_json::to_vec(&dict).unwrap(),
    )])
    .unwrap();
    let mut labels: Vec<String> = read.runs[0]
        .headlines
        .iter()
        .map(|h| h.key.label())
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        [
            "dict_scorer:close/mean",
            "dict_scorer:close/stderr",
            "dict_scorer:close/stderr2",
            "dict_scorer:exact/accuracy"
        ]
    );
}

/// A running Inspect `.eval` (its journal's start only) declares the items it will hold: its
/// dataset's sample ids (else samples) × epochs; a finished log, its `results.total_samples`; a
/// log that ended otherwise without results, nothing (what `validate` checks against).
#[test]
fn a_running_inspect_log_declares_its_samples_times_epochs() {
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{self, ReadOptions, Settings};
    use evalboard_engine::RunInput;
    let declared = |members: Vec<(&str, serde_json::Value)>| {
        let members: Vec<(String, Vec<u8>)> = members
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_string().into_bytes()))
            .collect();
        let zip = crate::duplicate_keys::zip_of(&members, true);
        let input = RunInput::new("w", vec![InputFile::new("a.eval", zip)]);
        let read = run::read_as(Family::EvalLog, &input, None, ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.message));
        run::score(read, &Settings::default(), 1)
            .as_ref()
            .declared_items()
    };
    let eval = |dataset: serde_json::Value| serde_json::json!({"task": "t", "model": "m", "dataset": dataset, "config": {"epochs": 2}});
    let start = |dataset| serde_json::json!({"version": 2, "eval": eval(dataset), "plan": {}});
    assert_eq!(
        declared(vec![(
            "_journal/start.json",
            start(serde_json::json!({"samples": 5}))
        )]),
        Some(10)
    );
    assert_eq!(
        declared(vec![(
            "_journal/start.json",
            start(serde_json::json!({"samples": 5, "sample_ids": [1, 2, 3]}))
        )]),
        Some(6)
    );
    let header = |status: &str, results: serde_json::Value| {
        let mut h = start(serde_json::json!({"samples": 5}));
        h["status"] = status.into();
        h["results"] = results;
        h
    };
    assert_eq!(
        declared(vec![(
            "header.json",
            header(
                "success",
                serde_json::json!({"total_samples": 7, "scores": []})
            )
        )]),
        Some(7)
    );
    assert_eq!(
        declared(vec![(
            "header.json",
            header("error", serde_json::Value::Null)
        )]),
        None
    );
}
