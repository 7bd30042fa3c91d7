//! Hostile input through the real binary: inputs built to crash a reader or a parser end with a
//! clean exit and a diagnostic, never an abort. The inputs are made here (a million levels of
//! nesting is a megabyte each) under a temporary folder.

use super::evalboard;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_folder(root: &Path, name: &str, files: &[(&str, String)]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("a folder");
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("a file");
    }
    dir
}

/// Python code nested a million levels deep, in every way Python nests, scored as a
/// code-generation trace: refused by the syntax check (CPython refuses it too), no stack overflow.
#[test]
fn python_nested_a_million_levels_is_invalid_code_not_a_crash() {
    const N: usize = 1_000_000;
    let root = std::env::temp_dir().join(format!("eb-hostile-py-{}", std::process::id()));
    let cases = [
        ("unary", format!("x = {}1", "-".repeat(N))),
        ("spaced_unary", format!("x = {}1", "- ".repeat(N))),
        ("not", format!("x = {}1", "not ".repeat(N))),
        ("binary", format!("x = {}", vec!["1"; N].join("+"))),
        ("power", format!("x = {}", vec!["2"; N].join("**"))),
        ("and", format!("x = {}", vec!["a"; N].join(" and "))),
        ("parens", format!("x = {}1{}", "(".repeat(N), ")".repeat(N))),
        ("calls", format!("x = {}{}", "f(".repeat(N), ")".repeat(N))),
        ("lists", format!("x = {}{}", "[".repeat(N), "]".repeat(N))),
        ("lambdas", format!("x = {}1", "lambda: ".repeat(N))),
        ("conditionals", format!("x = {}1", "1 if 1 else ".repeat(N))),
    ];
    // Each case is megabytes of code: two at a time.
    let check = |(name, code): &(&str, String)| {
        let line = serde_json::json!({
            "session_id": "s",
            "model": "m",
            "question": "q",
            "code": code,
            "execution_result": {"type": "number", "data": 1},
        });
        let dir = run_folder(&root, name, &[("trace.jsonl", format!("{line}\n"))]);
        let out = root.join(format!("{name}-out"));
        let (code, _, err) = evalboard(&[Path::new("score"), &dir, Path::new("--out"), &out]);
        assert_eq!(code, 0, "{name}: {err}");
        let metrics = std::fs::read_to_string(out.join("s/metrics.json")).expect("metrics.json");
        let entries: serde_json::Value = serde_json::from_str(&metrics).expect("json");
        let syntax = &entries[0]["code_correctness"];
        assert_eq!(syntax["syntax_valid"], false, "{name}: {syntax}");
        let message = syntax["syntax_errors"][0]["message"].as_str().unwrap_or("");
        assert!(
            message.contains("too many nested parentheses")
                || message.contains("nested deeper than 1000 operators at line 1"),
            "{name}: {message}"
        );
    };
    let (odd, even): (Vec<_>, Vec<_>) = cases.iter().enumerate().partition(|(i, _)| i % 2 == 1);
    std::thread::scope(|s| {
        s.spawn(|| odd.iter().for_each(|(_, c)| check(c)));
        even.iter().for_each(|(_, c)| check(c));
    });
    let _ = std::fs::remove_dir_all(&root);
}

/// A conversation that failed as a whole and declares a hundred million turns (a 150-byte file)
/// counts as [`MAX_DECLARED_TURNS`] wrong turns with a warning: the count sizes no allocation.
#[test]
fn declared_turn_counts_size_nothing_beyond_the_cap() {
    use evalboard_engine::numeric_qa::read::MAX_DECLARED_TURNS;
    let root = std::env::temp_dir().join(format!("eb-hostile-count-{}", std::process::id()));
    let cases = [
        // results.json: the failed conversation has no turn of its own, so its declared count
        // would decide.
        (
            "results",
            "results.json",
            r#"[{"example_id":"c1","model":"m","features":{"num_dialogue_turns":100000000},"num_turns":100000000,"turns":[],"error":"timeout"}]"#,
            MAX_DECLARED_TURNS,
        ),
        // A QA JSONL conversation-error line: no turn of its own either.
        (
            "jsonl",
            "run.jsonl",
            "{\"conversation_id\":\"c1\",\"turn_idx\":0,\"conversation_error\":\"timeout\",\"features\":{\"num_dialogue_turns\":100000000}}\n",
            MAX_DECLARED_TURNS,
        ),
    ];
    for (name, file, text, turns) in cases {
        let dir = run_folder(&root, name, &[(file, text.to_string())]);
        let (code, out, err) = evalboard(&[Path::new("score"), &dir, Path::new("--json")]);
        assert_eq!(code, 0, "{name}: {err}");
        let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
        assert_eq!(stats["total_turns"], turns, "{name}: {out}");
        assert!(
            err.contains("declares 100000000 turns: counted as 1000 wrong turns"),
            "{name}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// A gate that is not a finite number would always pass (`x < NaN` is false): it is a usage error.
#[test]
fn a_gate_that_is_not_a_number_is_refused() {
    let run = evalboard_test_support::workspace_root().join("demo/o3");
    for gate in [
        "numerical_accuracy=NaN",
        "numerical_accuracy=nan",
        "numerical_accuracy=-inf",
    ] {
        let (code, _, err) = evalboard(&[
            Path::new("score"),
            &run,
            Path::new("--fail-under"),
            Path::new(gate),
        ]);
        assert_eq!(code, 2, "{gate}: {err}");
        assert!(err.contains("is not a finite number"), "{gate}: {err}");
    }
    let (code, _, err) = evalboard(&[
        Path::new("score"),
        &run,
        Path::new("--fail-under"),
        Path::new("numerical_accuracy=0.1"),
    ]);
    assert_eq!(code, 0, "{err}");
}

/// Terminal control sequences in answers, ids and file names are printed as escapes in every
/// human-readable output (`diff`, `score`'s table and warnings), never sent to the terminal.
#[test]
fn control_sequences_in_runs_are_printed_as_escapes() {
    let root = std::env::temp_dir().join(format!("eb-hostile-term-{}", std::process::id()));
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}";
    let line = |id: &str, predicted: &str| {
        serde_json::json!({
            "conversation_id": id, "turn_idx": 0, "question": evil,
            "expected": "1", "predicted": predicted,
        })
        .to_string()
            + "\n"
    };
    // The second conversation's id and the file name carry the sequences too.
    let a = run_folder(
        &root,
        "a",
        &[(
            "run\u{1b}[31m.jsonl",
            line("c1", "1") + &line(&format!("c2{evil}"), "1"),
        )],
    );
    let b = run_folder(
        &root,
        "b",
        &[(
            "run.jsonl",
            line("c1", &format!("2{evil}")) + &line(&format!("c2{evil}"), "1"),
        )],
    );
    for args in [
        vec![Path::new("diff"), &a, &b],
        vec![Path::new("score"), &a, &b],
        vec![Path::new("validate"), &a],
    ] {
        let (_, out, err) = evalboard(&args);
        for (stream, text) in [("stdout", &out), ("stderr", &err)] {
            assert!(
                !text
                    .chars()
                    .any(|c| c != '\n' && c != '\t' && (c.is_control() || c == '\u{202e}')),
                "{args:?} {stream}: {text:?}"
            );
        }
    }
    let (_, out, _) = evalboard(&[Path::new("diff"), &a, &b]);
    assert!(out.contains("\\x1b]0;pwned\\x07"), "{out}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Answers and ids that a spreadsheet would run as formulas are written with a leading `'` in
/// every CSV of the doc profile; numbers keep their sign. The financial-agent-2 profile keeps the
/// original system's bytes and names each such cell in a warning.
#[test]
fn csv_cells_that_start_formulas_are_neutralised() {
    let root = std::env::temp_dir().join(format!("eb-hostile-csv-{}", std::process::id()));
    let line = |turn: u32, id: &str, predicted: &str| {
        serde_json::json!({
            "conversation_id": id, "turn_idx": turn, "question": "=1+1",
            "expected": "-3.5", "predicted": predicted,
        })
        .to_string()
            + "\n"
    };
    let text = line(0, "=HYPERLINK(\"http://evil\",\"x\")", "@SUM(A1)")
        + &line(1, "=HYPERLINK(\"http://evil\",\"x\")", "-2+3")
        + &line(2, "=HYPERLINK(\"http://evil\",\"x\")", "-3.5");
    let run = run_folder(&root, "run", &[("run.jsonl", text)]);
    let out = root.join("out");
    let (code, _, err) = evalboard(&[Path::new("score"), &run, Path::new("--out"), &out]);
    assert_eq!(code, 0, "{err}");
    let turns = std::fs::read_to_string(out.join("turns.csv")).expect("turns.csv");
    let mut rows = csv::Reader::from_reader(turns.as_bytes());
    let header = rows.headers().expect("header").clone();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let cells: Vec<csv::StringRecord> = rows.records().map(|r| r.expect("a row")).collect();
    for r in &cells {
        assert!(
            r[col("conversation_id")].starts_with("'=HYPERLINK"),
            "{r:?}"
        );
        assert_eq!(&r[col("question")], "'=1+1");
        assert_eq!(
            &r[col("expected_answer")],
            "-3.5",
            "a number keeps its sign"
        );
    }
    let answers: Vec<&str> = cells.iter().map(|r| &r[col("actual_answer")]).collect();
    assert_eq!(answers, ["'@SUM(A1)", "'-2+3", "-3.5"]);
    // No file the doc profile writes has a cell that starts a formula.
    for f in ["summary.csv", "turns.csv", "errors.csv", "validation.csv"] {
        let text = std::fs::read_to_string(out.join(f)).expect(f);
        for r in csv::Reader::from_reader(text.as_bytes()).records() {
            let r = r.expect("a row");
            assert!(
                r.iter().all(|c| !evalboard_engine::csv_cell::is_formula(c)),
                "{f}: {r:?}"
            );
        }
    }

    let compat = root.join("compat");
    let (code, _, err) = evalboard(&[
        Path::new("score"),
        &run,
        Path::new("--profile"),
        Path::new("financial-agent-2"),
        Path::new("--out"),
        &compat,
    ]);
    assert_eq!(code, 0, "{err}");
    let turns = std::fs::read_to_string(compat.join("turns.csv")).expect("turns.csv");
    assert!(
        turns.contains("@SUM(A1)") && !turns.contains("'@SUM"),
        "{turns}"
    );
    assert!(
        err.contains(
            "turns.csv:2: warning: column conversation_id starts like a spreadsheet formula"
        ),
        "{err}"
    );
    assert!(err.contains("column actual_answer"), "{err}");
    let _ = std::fs::remove_dir_all(&root);
}

fn qa_run(root: &Path, name: &str) -> PathBuf {
    let line = |turn: u32, predicted: &str| {
        serde_json::json!({
            "conversation_id": "c1", "turn_idx": turn, "question": "q",
            "expected": "1", "predicted": predicted,
        })
        .to_string()
            + "\n"
    };
    run_folder(root, name, &[("run.jsonl", line(0, "1") + &line(1, "2"))])
}

fn total_turns(run: &Path) -> serde_json::Value {
    let (code, out, err) = evalboard(&[Path::new("score"), run, Path::new("--json")]);
    assert_eq!(code, 0, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
    stats["total_turns"].clone()
}

/// The user's files: outputs never land on or in a run being read, never replace a file without
/// --force, never escape --out, and written inside a run folder are not read back as its input.
#[test]
fn outputs_never_overwrite_or_feed_the_runs_they_come_from() {
    let root = std::env::temp_dir().join(format!("eb-hostile-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let run = qa_run(&root, "run");
    let before = std::fs::read(run.join("run.jsonl")).expect("run.jsonl");
    let score = |args: &[&Path]| {
        let mut all = vec![Path::new("score")];
        all.extend_from_slice(args);
        evalboard(&all)
    };

    // Into the run folder itself: refused, nothing written.
    let (code, _, err) = score(&[&run, Path::new("--out"), &run]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("refusing to write") && err.contains("into the run"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&run).expect("the run").count(),
        1,
        "nothing written"
    );

    // A report over the run's own data file: refused, the file intact.
    let (code, _, err) = evalboard(&[
        Path::new("report"),
        &run,
        Path::new("-o"),
        &run.join("run.jsonl"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read(run.join("run.jsonl")).expect("run.jsonl"),
        before
    );

    // Inside the run folder: written and marked, and not read back (2 turns, not 2 + 2).
    let inside = run.join("out");
    let (code, _, err) = score(&[&run, Path::new("--out"), &inside]);
    assert_eq!(code, 0, "{err}");
    assert!(inside.join(".evalboard-outputs").is_file());
    assert!(inside.join("turns.csv").is_file());
    assert_eq!(total_turns(&run), 2);
    let (_, _, err) = score(&[&run]);
    assert!(
        err.contains("out/: skipped: evalboard's own outputs"),
        "{err}"
    );

    // Existing outputs are kept unless --force.
    let out = root.join("out");
    assert_eq!(score(&[&run, Path::new("--out"), &out]).0, 0);
    let (code, _, err) = score(&[&run, Path::new("--out"), &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        score(&[&run, Path::new("--out"), &out, Path::new("--force")]).0,
        0
    );
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(&out)
        .expect("out")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");

    // Two runs with the same folder name get two folders.
    let other = qa_run(&root.join("elsewhere"), "run");
    let many = root.join("many");
    let (code, _, err) = score(&[&run, &other, Path::new("--out"), &many]);
    assert_eq!(code, 0, "{err}");
    let mut made: Vec<String> = std::fs::read_dir(&many)
        .expect("many")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    assert_eq!(made, ["run", "run-2"]);
    let _ = std::fs::remove_dir_all(&root);
}

/// Symbolic links and FIFOs in a run folder are listed as skipped with their reason; a FIFO is
/// never opened (reading one would block).
#[cfg(unix)]
#[test]
fn links_and_fifos_in_a_run_are_skipped_with_a_reason() {
    let root = std::env::temp_dir().join(format!("eb-hostile-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let run = qa_run(&root, "run");
    std::os::unix::fs::symlink(run.join("run.jsonl"), run.join("link.jsonl")).expect("a link");
    std::os::unix::fs::symlink(&run, run.join("loop")).expect("a folder link");
    let fifo = run.join("pipe.jsonl");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let (code, out, err) = evalboard(&[Path::new("score"), &run, Path::new("--json")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("link.jsonl: skipped: a symbolic link (not followed)"),
        "{err}"
    );
    assert!(
        err.contains("loop: skipped: a symbolic link (not followed)"),
        "{err}"
    );
    if made {
        assert!(
            err.contains("pipe.jsonl: skipped: not a regular file"),
            "{err}"
        );
    }
    let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
    assert_eq!(stats["total_turns"], 2, "the link is not read twice");
    let _ = std::fs::remove_dir_all(&root);
}

/// A code-generation trace whose first line is truncated is still a trace: the bad line is a
/// diagnostic with its line, the others are read.
#[test]
fn a_truncated_first_line_does_not_drop_a_trace() {
    let root = std::env::temp_dir().join(format!("eb-hostile-trace-{}", std::process::id()));
    let line = serde_json::json!({
        "session_id": "s", "model": "m", "question": "q", "code": "x = 1",
        "execution_result": {"type": "number", "data": 1},
    })
    .to_string();
    let run = run_folder(
        &root,
        "trace",
        &[(
            "trace.jsonl",
            format!("{{\"question\": \"q\", \"co\n{line}\n{line}\n"),
        )],
    );
    let (code, out, err) = evalboard(&[Path::new("score"), &run]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("trace.jsonl:1: error: malformed JSON"),
        "{err}"
    );
    assert!(
        out.contains("code generation") && out.contains("2 messages"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Copies `src` to `dst` with a UTF-8 byte-order mark before every file's bytes.
fn copy_with_bom(src: &Path, dst: &Path) {
    for (rel, bytes) in evalboard_test_support::read_folder(src) {
        let path = dst.join(&rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
        let mut with = b"\xEF\xBB\xBF".to_vec();
        with.extend_from_slice(&bytes);
        std::fs::write(path, with).expect("a file");
    }
}

/// A UTF-8 byte-order mark (Windows tools write one) is read past in every format: each run
/// scores the same with one before every file as without.
#[test]
fn a_byte_order_mark_is_accepted_in_every_format() {
    let root = std::env::temp_dir().join(format!("eb-hostile-bom-{}", std::process::id()));
    let ws = evalboard_test_support::workspace_root();
    let fixtures = ws.join("tests/fixtures");
    let runs = [
        (
            ws.join("demo/o3"),
            &["total_turns", "numerical_accuracy"][..],
        ),
        (
            fixtures.join("numeric_qa/ok/fa2_simulated/input"),
            &[
                "total_turns",
                "numerical_accuracy",
                "conversation_level_accuracy",
            ][..],
        ),
        (
            fixtures.join("evalset/ok/m45_vs_m46/runs/m46_control"),
            &["n_items", "n_scored", "primary_score"][..],
        ),
        (
            fixtures.join("codegen/ok/trace/input"),
            &["average_overall_score", "total_questions"][..],
        ),
        (
            fixtures.join("codegen/ok/chat_history/input"),
            &["average_overall_score"][..],
        ),
    ];
    for (i, (run, keys)) in runs.iter().enumerate() {
        let bom = root.join(format!("run{i}"));
        copy_with_bom(run, &bom);
        let stats = |dir: &Path| {
            let (code, out, err) = evalboard(&[Path::new("score"), dir, Path::new("--json")]);
            assert_eq!(code, 0, "{}: {err}", dir.display());
            (
                serde_json::from_str::<serde_json::Value>(&out).expect("json"),
                err,
            )
        };
        let (want, _) = stats(run);
        let (got, err) = stats(&bom);
        for k in *keys {
            assert!(!want[k].is_null(), "{}: {k} missing", run.display());
            assert_eq!(got[k], want[k], "{}: {k}; stderr: {err}", run.display());
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// One byte that is not UTF-8 spoils its line, not its file: the other lines of a QA JSONL are
/// read, and the bad line is named.
#[test]
fn a_bad_byte_costs_its_line_not_the_file() {
    let root = std::env::temp_dir().join(format!("eb-hostile-utf8-{}", std::process::id()));
    let dir = root.join("run");
    std::fs::create_dir_all(&dir).expect("a folder");
    let mut bytes = Vec::new();
    for i in 0..5 {
        bytes.extend_from_slice(
            serde_json::json!({
                "conversation_id": format!("c{i}"), "turn_idx": 0, "question": "q",
                "expected": "1", "predicted": "1",
            })
            .to_string()
            .as_bytes(),
        );
        bytes.push(b'\n');
    }
    // A Latin-1 é on the last line.
    bytes.extend_from_slice(b"{\"conversation_id\":\"c9\",\"turn_idx\":0,\"question\":\"caf\xe9\",\"expected\":\"1\",\"predicted\":\"1\"}\n");
    std::fs::write(dir.join("run.jsonl"), &bytes).expect("run.jsonl");
    let (code, out, err) = evalboard(&[Path::new("score"), &dir, Path::new("--json")]);
    assert_eq!(code, 0, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
    assert_eq!(stats["total_turns"], 5, "{out}");
    assert!(
        err.contains("run.jsonl:6: error: not UTF-8 text (invalid byte at offset"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// A repeated JSON key costs nothing and is never silent: the QA JSONL line is read with the
/// key's last value (it used to be skipped), a trace's repeated field is read the same way, and
/// each repeat is printed with its file and line.
#[test]
fn a_repeated_key_keeps_its_last_value_and_is_named() {
    let root = std::env::temp_dir().join(format!("eb-hostile-dupkey-{}", std::process::id()));
    let jsonl = concat!(
        "{\"conversation_id\": \"c1\", \"turn_idx\": 0, \"expected\": \"1\", \"predicted\": \"1\"}\n",
        "{\"conversation_id\": \"c1\", \"turn_idx\": 1, \"expected\": \"2\", \"predicted\": \"9\", \"predicted\": \"2\"}\n",
    );
    let dir = run_folder(&root, "jsonl", &[("run.jsonl", jsonl.to_string())]);
    let (code, out, err) = evalboard(&[Path::new("score"), &dir, Path::new("--json")]);
    assert_eq!(code, 0, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
    assert_eq!(stats["total_turns"], 2, "{out}");
    assert_eq!(
        stats["numerical_accuracy"], 1.0,
        "the last value is scored: {out}"
    );
    assert!(
        err.contains(
            "run.jsonl:2: warning: duplicate key \"predicted\" in the top-level object; the last value is used"
        ),
        "{err}"
    );

    let ws = evalboard_test_support::workspace_root();
    let trace_rel = "traces/1499cdf3-e676-4158-ada8-1039d2c4e711.json";
    let src = ws.join("tests/fixtures/numeric_qa/ok/fa2_simulated/input");
    let trace = std::fs::read_to_string(src.join(trace_rel)).expect("trace");
    let trace = trace.replacen(
        "\"turn_idx\": 0,",
        "\"turn_idx\": 0,\n      \"turn_idx\": 7,\n      \"turn_idx\": 0,",
        1,
    );
    let dir = root.join("trace");
    std::fs::create_dir_all(dir.join("traces")).expect("a folder");
    std::fs::write(dir.join(trace_rel), trace).expect("trace");
    let (code, out, err) = evalboard(&[Path::new("score"), &dir, Path::new("--json")]);
    assert_eq!(code, 0, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
    assert_eq!(stats["total_turns"], 5, "{out}");
    for line in [26, 27] {
        assert!(
            err.contains(&format!(
                "{trace_rel}:{line}: warning: duplicate key \"turn_idx\" in the object at turns[0]; the last value is used"
            )),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Two stray opening quotes in one column of a `turns.csv` used to merge the four rows from one
/// to the other into one row with the header's number of fields: 1 turn, no word. Now the
/// merge is reported with its lines and the rows are read one by one.
#[test]
fn stray_quotes_in_turns_csv_cost_no_row_and_are_named() {
    let root = std::env::temp_dir().join(format!("eb-hostile-quotes-{}", std::process::id()));
    let ws = evalboard_test_support::workspace_root();
    let fixture = ws.join("tests/fixtures/numeric_qa/ok/fa2_simulated/input/turns.csv");
    let text = std::fs::read_to_string(fixture).expect("turns.csv");
    let header = text.lines().next().expect("a header");
    let row = |i: usize, stray: bool| {
        header
            .split(',')
            .map(|c| match c {
                "trace_id" => "t1".to_string(),
                "conversation_id" => "c1".to_string(),
                "turn_idx" => i.to_string(),
                "question" if stray => format!("\"what was it in year {i}?"),
                "question" => format!("what was it in year {i}?"),
                "expected_answer" | "actual_answer" => format!("{}", 10 + i),
                "validator_valid" | "numerical_match" | "financial_match" | "soft_match" => {
                    "True".to_string()
                }
                "error_occurred" => "False".to_string(),
                "error_type" | "error_message" => String::new(),
                _ => "1".to_string(),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let csv = [
        header.to_string(),
        row(0, true),
        row(1, false),
        row(2, false),
        row(3, true),
    ]
    .join("\n")
        + "\n";
    let dir = run_folder(&root, "run", &[("turns.csv", csv)]);
    let (code, out, err) = evalboard(&[Path::new("score"), &dir, Path::new("--json")]);
    assert_eq!(code, 0, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&out).expect("statistics");
    assert_eq!(stats["total_turns"], 4, "{out}");
    assert_eq!(
        stats["input_files"]["partly_parsed"][0]["path"], "turns.csv",
        "{out}"
    );
    for want in [
        "turns.csv:2: error: lines 2–5 were read as one row: a quote opened in `question` on line 2 closes only on line 5 (a stray quote?); the lines are read one by one (4 of 4 are rows)",
        "turns.csv:2: warning: stray quote at the start of `question`; the line is read without it",
        "turns.csv:5: warning: stray quote at the start of `question`; the line is read without it",
    ] {
        assert!(err.contains(want), "{want}\n{err}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Line feeds and carriage returns in a run's text (a scorer name, a file name) are escaped in
/// every human-readable line, as control sequences are: a scorer named
/// `match\n  accuracy 0.0% → 100.0%` cannot print a fake result, and a file named with a line
/// feed cannot split its diagnostic. `--json` keeps the text as it is (JSON escapes it).
#[test]
fn line_feeds_in_names_do_not_start_lines() {
    let root = std::env::temp_dir().join(format!("eb-hostile-lf-{}", std::process::id()));
    let log = std::fs::read_to_string(evalboard_test_support::fixture(
        "evallog/ok/json_nan/input/arith.json",
    ))
    .expect("the fixture");
    let fake = "match\\n  accuracy          0.0% → 100.0%\\r";
    let log = log.replace("\"match\"", &format!("\"{fake}\"")).replacen(
        "\"status\": \"success\"",
        "\"status\": \"success\", \"status\": \"success\"",
        1,
    );
    let dir = run_folder(&root, "lf", &[("arith\nevil\u{200f}.json", log)]);
    let (code, _, err) = evalboard(&[Path::new("score"), &dir]);
    assert_eq!(code, 0, "{err}");
    let warning: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("duplicate key"))
        .collect();
    assert_eq!(warning.len(), 1, "{err}");
    assert!(
        warning[0].contains("/arith\\x0aevil\\u{200f}.json:3: warning: duplicate key"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one diagnostic, one line: {err}");
    let (code, out, err) = evalboard(&[Path::new("diff"), &dir, &dir]);
    assert_eq!(code, 0, "{err}");
    let accuracy: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("  accuracy"))
        .collect();
    assert_eq!(accuracy.len(), 1, "{out}");
    assert!(
        out.contains("judged by match\\x0a  accuracy          0.0% → 100.0%\\x0d"),
        "{out}"
    );
    // JSON output keeps the name as it is, escaped by JSON.
    let (_, json, _) = evalboard(&[Path::new("diff"), &dir, &dir, Path::new("--json")]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert!(v.to_string().contains("match\\n  accuracy"), "{json}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Runs whose output folder names (`<folder>_<file>`) pass 255 bytes are written, in shortened
/// folders with a hash of the whole name, listed with their full names in evalboard-runs.json.
#[test]
fn score_out_shortens_run_folder_names_past_the_file_system_limit() {
    let runs = evalboard_test_support::workspace_root().join("tests/hostile/runs/long_run_names");
    let out = std::env::temp_dir().join(format!("eb-hostile-long-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let (code, _, err) = evalboard(&[Path::new("score"), &runs, Path::new("--out"), &out]);
    assert_eq!(code, 0, "{err}");
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("evalboard-runs.json")).expect("the index"),
    )
    .expect("JSON");
    let list = index["runs"].as_array().expect("runs");
    assert_eq!(list.len(), 2);
    for r in list {
        let (run, folder) = (r["run"].as_str().unwrap(), r["folder"].as_str().unwrap());
        assert!(run.len() > 255 && folder.len() <= 200, "{run} {folder}");
        assert!(
            out.join(folder).join("statistics.json").is_file(),
            "{folder}"
        );
    }
    assert_ne!(list[0]["folder"], list[1]["folder"]);
    let _ = std::fs::remove_dir_all(&out);
}
