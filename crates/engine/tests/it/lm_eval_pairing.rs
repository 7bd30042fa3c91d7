//! lm-evaluation-harness results and samples paired by content (issue 28, class 1): every
//! layout the harness wrote (`tests/fixtures/evallog/make_issue28_pairing.py`) reads as the same
//! run as the 0.4.13 one it was made from; ties between results files are broken and said; a
//! samples file no results file takes says why; a JSON-array samples file with a bad element
//! reads the others.

use evalboard_engine::accounting::{FileStatus, InputFileReport};
use evalboard_engine::evallog::{self, EvalLogRead, EvalLogRun, Sample};
use evalboard_engine::{InputFile, RunInput, Severity};
use evalboard_test_support::{fixture, read_folder};

const DATE: &str = "2026-11-25T20-38-20.566618";

fn folder(rel: &str) -> Vec<InputFile> {
    read_folder(&fixture(&format!("evallog/{rel}")))
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect()
}

/// The files of the 0.4.13 run, renamed by `name` (its results file and each task's samples).
fn baseline_as(name: impl Fn(&str) -> String) -> Vec<InputFile> {
    folder("runs/lm_eval_baseline")
        .into_iter()
        .map(|f| {
            let n = f.file_name().to_string();
            let key = if n.starts_with("results_") {
                "results".to_string()
            } else if n.contains("arith_gen") {
                "arith_gen".into()
            } else {
                "arith_mc".into()
            };
            InputFile::new(name(&key), f.bytes)
        })
        .collect()
}

/// The date id of a second run.
const OTHER: &str = "2026-11-26T09-00-00.000001";

/// Two runs of the same tasks side by side (their rows alike): `run_a.json` with its samples
/// files named by `samples_a`, and `x_<OTHER>.json` with `samples_<task>_<OTHER>.jsonl`.
fn two_runs(samples_a: impl Fn(&str) -> String) -> Vec<InputFile> {
    let mut files = baseline_as(|k| match k {
        "results" => "run_a.json".into(),
        t => samples_a(t),
    });
    files.extend(baseline_as(|k| match k {
        "results" => format!("x_{OTHER}.json"),
        t => format!("samples_{t}_{OTHER}.jsonl"),
    }));
    files
}

fn read(files: &[InputFile]) -> EvalLogRead {
    evallog::read(files).unwrap_or_else(|e| panic!("{e}: {:?}", e.diagnostics))
}

fn report<'a>(r: &'a EvalLogRead, path: &str) -> &'a InputFileReport {
    r.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no report of {path}: {:?}", r.files))
}

fn reason<'a>(r: &'a EvalLogRead, path: &str) -> &'a str {
    report(r, path).reason.as_deref().unwrap_or_default()
}

/// What a sample is, whatever file and layout it came from.
fn essence(s: &Sample) -> String {
    let scores: Vec<String> = s
        .scores
        .iter()
        .map(|e| format!("{}={:?}", e.scorer, e.reading))
        .collect();
    format!(
        "{:?} in={:?} target={:?} out={:?} {}",
        s.key,
        s.input,
        s.target,
        s.output,
        scores.join(" ")
    )
}

fn essences(run: &EvalLogRun) -> Vec<String> {
    run.samples.iter().map(essence).collect()
}

fn only_run(r: &EvalLogRead) -> &EvalLogRun {
    assert_eq!(r.runs.len(), 1, "{:?}", r.files);
    &r.runs[0]
}

/// Every recorded number recomputed, and equal (within 1e-9).
fn all_recomputed(run: &EvalLogRun) {
    for h in &run.headlines {
        if h.recorded.is_some() {
            assert!(
                h.agrees(1e-9),
                "{}: recorded {:?} recomputed {:?} ({:?})",
                h.key.label(),
                h.recorded,
                h.recomputed,
                h.note
            );
        }
    }
}

#[test]
fn every_layout_reads_as_the_run_it_was_written_from() {
    let base = read(&folder("runs/lm_eval_baseline"));
    let want = essences(only_run(&base));
    assert_eq!(want.len(), 15);
    for case in [
        "lm_eval_renamed_results",
        "lm_eval_tracker_json_arrays",
        "lm_eval_v0_4_0_layout",
        "lm_eval_samples_by_content",
    ] {
        let r = read(&folder(&format!("ok/{case}/input")));
        assert!(r.diagnostics.is_empty(), "{case}: {:?}", r.diagnostics);
        assert!(
            r.files.iter().all(|f| f.status == FileStatus::Parsed),
            "{case}: {:?}",
            r.files
        );
        let run = only_run(&r);
        assert_eq!(essences(run), want, "{case}");
        all_recomputed(run);
        assert_eq!(run.model.as_deref(), Some("toy-lookup-v1"), "{case}");
        // 8 task numbers (4 recorded metrics and their stderrs); the 0.4.13 files add the group's 2.
        assert!(run.headlines.len() >= 8, "{case}");
    }
    // The old layouts' run ids: the date of the names, else the results file's name.
    let v040 = read(&folder("ok/lm_eval_v0_4_0_layout/input"));
    assert_eq!(
        only_run(&v040).eval_id.as_deref(),
        Some("toy-lookup-v1/results")
    );
    let arrays = read(&folder("ok/lm_eval_tracker_json_arrays/input"));
    assert_eq!(
        only_run(&arrays).eval_id,
        Some(format!("toy-lookup-v1/{DATE}"))
    );
}

#[test]
fn a_tie_between_results_files_is_broken_by_the_date_and_said() {
    // Two runs of the same tasks side by side (their rows alike), one results file renamed to a
    // dateless name: the date ids of the names say which samples are whose.
    let files = two_runs(|t| format!("samples_{t}_{DATE}.jsonl"));
    let other = OTHER;
    let r = read(&files);
    assert_eq!(r.runs.len(), 2);
    for run in &r.runs {
        assert_eq!(run.samples.len(), 15, "{:?}", run.files);
    }
    assert_eq!(
        reason(&r, &format!("samples_arith_gen_{other}.jsonl")),
        format!(
            "samples of task arith_gen (by its file name), matched by content to x_{other}.json, \
             which records arith_gen; run_a.json also records it: chosen by the date in both \
             names ({other})"
        )
    );
    assert_eq!(
        reason(&r, &format!("samples_arith_mc_{DATE}.jsonl")),
        format!(
            "samples of task arith_mc (by its file name), matched by content to run_a.json, \
             which records arith_mc; x_{other}.json also records it: chosen by the dates in the \
             names (the others' are not its own)"
        )
    );
}

#[test]
fn a_tie_without_dates_is_broken_by_task_hashes() {
    use sha2::{Digest, Sha256};
    // Two results files of arith_gen, in other folders than their samples files, whose rows
    // differ (one document's hash): each `task_hashes` entry names its own rows.
    let base = folder("runs/lm_eval_baseline");
    let results = &base[0];
    let gen = String::from_utf8(base[1].bytes.clone()).unwrap();
    let first_hash = gen.split("\"doc_hash\": \"").nth(1).unwrap()[..64].to_string();
    let gen2 = gen.replacen(&first_hash, &"0".repeat(64), 1);
    let hash_of = |text: &str| -> String {
        let mut h = Sha256::new();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            for k in ["doc_hash", "prompt_hash", "target_hash"] {
                h.update(v[k].as_str().unwrap().as_bytes());
            }
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    };
    let mut r2: serde_json::Value = serde_json::from_slice(&results.bytes).unwrap();
    r2["task_hashes"]["arith_gen"] = hash_of(&gen2).into();
    let files = vec![
        InputFile::new("a/results.json", results.bytes.clone()),
        InputFile::new("b/results.json", serde_json::to_vec(&r2).unwrap()),
        InputFile::new("x/model__m_arith_gen.jsonl", gen2),
        InputFile::new("y/model__m_arith_gen.jsonl", gen),
    ];
    let r = read(&files);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let x = reason(&r, "x/model__m_arith_gen.jsonl");
    assert!(
        x.contains("matched by content to b/results.json")
            && x.ends_with(
                "a/results.json also records it: chosen by its task_hashes (these rows' hash)"
            ),
        "{x}"
    );
    let y = reason(&r, "y/model__m_arith_gen.jsonl");
    assert!(y.contains("matched by content to a/results.json"), "{y}");
}

#[test]
fn a_tie_with_nothing_else_is_broken_by_the_nearest_folder() {
    let mut files = baseline_as(|k| match k {
        "results" => "a/results.json".into(),
        t => format!("a/model__m_{t}.jsonl"),
    });
    files.extend(baseline_as(|k| match k {
        "results" => "b/results.json".into(),
        t => format!("b/model__m_{t}.jsonl"),
    }));
    let files: Vec<InputFile> = files
        .into_iter()
        .map(|f| {
            let text = String::from_utf8(f.bytes)
                .unwrap()
                .replace("\"task_hashes\"", "\"hashes\"");
            InputFile::new(f.path, text)
        })
        .collect();
    let r = read(&files);
    assert_eq!(r.runs.len(), 2);
    let why = reason(&r, "b/model__m_arith_gen.jsonl");
    assert!(
        why.contains("matched by content to b/results.json")
            && why.contains("a/results.json also records it: chosen by its folder"),
        "{why}"
    );
}

#[test]
fn samples_without_a_task_in_their_name_are_matched_by_their_rows() {
    // The v0.4.0 rows carry no hashes: their metrics and documents tell the tasks apart.
    let files: Vec<InputFile> = folder("ok/lm_eval_v0_4_0_layout/input")
        .into_iter()
        .map(|f| {
            let name = match f.file_name() {
                "results.json" => "out.json",
                n if n.contains("arith_gen") => "part1.jsonl",
                _ => "part2.jsonl",
            };
            InputFile::new(name, f.bytes)
        })
        .collect();
    let r = read(&files);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(only_run(&r).samples.len(), 15);
    all_recomputed(only_run(&r));
    assert_eq!(
        reason(&r, "part2.jsonl"),
        "samples of task arith_mc (by its rows: their metrics acc, acc_norm, 5 docs fit it), \
         matched by content to out.json, which records arith_mc"
    );
    // Two tasks with the same metrics and documents: the rows cannot say which they are.
    let mut twin = files.clone();
    for f in &mut twin {
        if f.path == "out.json" {
            let mut v: serde_json::Value = serde_json::from_slice(&f.bytes).unwrap();
            let mc = v["results"]["arith_mc"].clone();
            v["results"]["arith_mc2"] = mc;
            f.bytes = serde_json::to_vec(&v).unwrap();
        }
    }
    let r = read(&twin);
    let skipped = report(&r, "part2.jsonl");
    assert_eq!(skipped.status, FileStatus::Skipped);
    assert_eq!(
        skipped.reason.as_deref(),
        Some(
            "lm-eval samples: its rows fit tasks arith_mc, arith_mc2 of out.json alike \
             (metrics acc, acc_norm, 5 docs); named samples_<task>_<date>.jsonl, it would be read"
        )
    );
    assert_eq!(only_run(&r).samples.len(), 10);
}

#[test]
fn a_samples_file_no_results_file_takes_says_why() {
    let mut files = baseline_as(|k| match k {
        "results" => format!("results_{DATE}.json"),
        t => format!("samples_{t}_{DATE}.jsonl"),
    });
    // Another task, of no results file; a row set no task fits; a second copy of one task.
    let gen = files
        .iter()
        .find(|f| f.path.contains("arith_gen"))
        .cloned()
        .unwrap();
    files.push(InputFile::new(
        "samples_other_2026-11-27T10-00-00.jsonl",
        gen.bytes.clone(),
    ));
    files.push(InputFile::new(
        "stray.jsonl",
        "{\"doc_id\": 0, \"doc\": {}, \"resps\": [], \"bleu\": 1}\n",
    ));
    files.push(InputFile::new(
        "copy/samples_arith_gen.jsonl",
        gen.bytes.clone(),
    ));
    let r = read(&files);
    // The stray rows are a run of their own (task `stray`, by the file name).
    assert_eq!(r.runs.len(), 2, "{:?}", r.files);
    assert_eq!(r.runs[0].samples.len(), 15);
    assert_eq!(r.runs[1].samples.len(), 1);
    assert_eq!(r.runs[1].task.as_deref(), Some("stray"));
    let other = report(&r, "samples_other_2026-11-27T10-00-00.jsonl");
    // Its rows are arith_gen's: it is that task's, by content, and one arith_gen file is read.
    assert_eq!(other.status, FileStatus::Skipped);
    assert!(
        other
            .reason
            .as_deref()
            .unwrap()
            .starts_with("lm-eval samples of task arith_gen: another samples file of this task is read with results_"),
        "{other:?}"
    );
    assert_eq!(
        reason(&r, "stray.jsonl"),
        "lm-eval samples of task stray (by its file name), read without a results file (none \
         records stray): every metric recomputed, none recorded"
    );
    let kept = reason(&r, &format!("samples_arith_gen_{DATE}.jsonl"));
    assert!(
        kept.contains("read instead of samples_other_2026-11-27T10-00-00.jsonl, copy/samples_arith_gen.jsonl (same task), chosen by the date in both names"),
        "{kept}"
    );
    // A task no results file records, in a file of its own date: by name only.
    let r = read(&[
        InputFile::new(format!("results_{DATE}.json"), files[0].bytes.clone()),
        InputFile::new(
            format!("samples_bleu_task_{DATE}.jsonl"),
            "{\"doc_id\": 0, \"doc\": {}, \"resps\": [], \"bleu\": 1}\n",
        ),
    ]);
    assert_eq!(
        reason(&r, &format!("samples_bleu_task_{DATE}.jsonl")),
        format!(
            "samples of task bleu_task (by its file name), matched by file name only to \
             results_{DATE}.json (the same date, {DATE}); it records no task bleu_task"
        )
    );
}

#[test]
fn a_bad_element_of_an_array_is_one_error_and_the_rest_is_read() {
    let mut files = folder("ok/lm_eval_v0_4_0_layout/input");
    for f in &mut files {
        if f.path.ends_with("arith_mc.jsonl") {
            let text = String::from_utf8(f.bytes.clone()).unwrap();
            // The third element's `acc` value is cut to a bare word.
            let at = text.match_indices("\"acc\": ").nth(2).unwrap().0;
            let mut bad = text.clone();
            bad.replace_range(at..at + "\"acc\": 1.0".len(), "\"acc\": one");
            f.bytes = bad.into_bytes();
        }
    }
    let r = read(&files);
    let run = only_run(&r);
    assert_eq!(run.samples.len(), 14);
    let errors: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{:?}", r.diagnostics);
    assert_eq!(errors[0].record.as_deref(), Some("element 2"));
    assert!(
        errors[0]
            .message
            .starts_with("element 2 does not parse: expected value"),
        "{}",
        errors[0].message
    );
    let mc = report(&r, "model__toy-lookup-v1_arith_mc.jsonl");
    assert_eq!(mc.status, FileStatus::PartlyParsed);
    assert!(
        mc.reason.as_deref().unwrap().starts_with(
            "samples of task arith_mc (by its file name), matched by content to results.json, \
             which records arith_mc; 1 problem; first: element 2 does not parse"
        ),
        "{mc:?}"
    );
}

#[test]
fn rows_of_another_run_warn_against_task_hashes() {
    let mut files = folder("ok/lm_eval_renamed_results/input");
    for f in &mut files {
        if f.path.contains("arith_mc") {
            let text = String::from_utf8(f.bytes.clone()).unwrap();
            let last = text.trim_end().rsplit_once('\n').unwrap().0.to_string() + "\n";
            f.bytes = last.into_bytes();
        }
    }
    let r = read(&files);
    let warns: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        warns,
        [
            "its rows do not hash to task_hashes[\"arith_mc\"] of toy-lookup-v1.json (the rows of \
          another run of arith_mc, or edited?)"
        ]
    );
}

#[test]
fn a_folder_split_into_logs_keeps_each_pairing() {
    use evalboard_engine::evallog::score::split_logs;
    let mut files = two_runs(|t| format!("a_{t}.jsonl"));
    files.push(InputFile::new(
        "lone_gen.jsonl",
        b"{\"doc_id\": 0, \"doc\": {}, \"resps\": [], \"bleu\": 1}\n".to_vec(),
    ));
    let whole = read(&files);
    let parts = split_logs(RunInput::new("runs", files));
    assert_eq!(
        parts.len(),
        3,
        "{:?}",
        parts.iter().map(|p| &p.name).collect::<Vec<_>>()
    );
    for part in &parts {
        let paths: Vec<&str> = part.files.iter().map(|f| f.path.as_str()).collect();
        match evallog::read(&part.files) {
            Ok(r) => {
                for f in &r.files {
                    // The same file in the same run, matched the same way.
                    let w = report(&whole, &f.path);
                    assert_eq!((f.status, &f.format), (w.status, &w.format), "{paths:?}");
                }
                assert_eq!(r.runs.len(), 1, "{paths:?}");
                // The samples file of a task no results file records: a run of its own.
                let n = if paths == ["lone_gen.jsonl"] { 1 } else { 15 };
                assert_eq!(r.runs[0].samples.len(), n, "{paths:?}");
            }
            Err(e) => panic!("{paths:?}: {e:?}"),
        }
    }
}

#[test]
fn a_long_first_element_is_still_sniffed() {
    let files = folder("ok/lm_eval_v0_4_0_layout/input");
    let mc = files
        .iter()
        .find(|f| f.path.ends_with("arith_mc.jsonl"))
        .unwrap();
    let text = String::from_utf8(mc.bytes.clone()).unwrap().replacen(
        "\"question\": \"",
        &format!("\"question\": \"{}", "x".repeat(70_000)),
        1,
    );
    let f = InputFile::new("any_name.json", text);
    assert_eq!(
        evallog::sniff(&f),
        Some(evallog::EvalLogFileKind::LmEvalSamples)
    );
    assert_eq!(
        evalboard_engine::family::family_vote(&f),
        Some(evalboard_engine::family::Family::EvalLog)
    );
}
