//! financial-agent-2 compatibility: Python vectors, golden scoring vectors, and run-folder fixtures.
//!
//! - `tests/fixtures/vectors/numeric_qa/python_vectors.json`: CPython 3.11 outputs for float repr, round,
//!   float(), str repr, json.dumps and csv rows (set `FA2_PYREPR_VECTORS` to check a bigger file);
//! - `../shared/data/golden/financial_agent2_*.json`: vectors from the original functions (see
//!   `evalboard_test_support::shared_data`);
//! - `tests/fixtures/numeric_qa/{ok,err}/*/input` → `expected`: the compat writer reproduces the original files byte
//!   for byte (`UPDATE_EXPECT=1` rewrites `expected/`).

use std::path::{Path, PathBuf};

use evalboard_engine::pyrepr::{
    csv_row, parse_py_json, py_float_parse, py_float_repr, py_round, py_str_repr, py_strip, PyObj,
};

use evalboard_test_support::{cases, fixture, shared_data, Case};

fn f64_of(v: &serde_json::Value) -> f64 {
    f64::from_bits(v.as_u64().expect("u64 bits"))
}

fn same_float(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn pyrepr_matches_python_vectors() {
    let path = std::env::var("FA2_PYREPR_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| fixture("vectors/numeric_qa/python_vectors.json"));
    let bytes = std::fs::read(&path).expect("python vectors");
    let v: serde_json::Value = serde_json::from_slice(&bytes).expect("vectors json");
    let mut failures = Vec::new();
    let mut n = 0;
    for case in v["repr"].as_array().unwrap() {
        n += 1;
        let x = f64_of(&case[0]);
        let want = case[1].as_str().unwrap();
        if py_float_repr(x) != want {
            failures.push(format!("repr({x:?}) = {} want {want}", py_float_repr(x)));
        }
    }
    for case in v["round"].as_array().unwrap() {
        n += 1;
        let x = f64_of(&case[0]);
        let nd = case[1].as_i64().unwrap() as i32;
        let got = py_round(x, nd);
        let ok = match (&case[2], got) {
            (serde_json::Value::Null, None) => true,
            (w, Some(g)) if !w.is_null() => same_float(g, f64_of(w)),
            _ => false,
        };
        if !ok {
            failures.push(format!("round({x:?}, {nd}) = {got:?} want {}", case[2]));
        }
    }
    for case in v["parse"].as_array().unwrap() {
        n += 1;
        let s = case[0].as_str().unwrap();
        let got = py_float_parse(s);
        let ok = match (&case[1], got) {
            (serde_json::Value::Null, None) => true,
            (serde_json::Value::String(w), Some(g)) if w == "nan" => g.is_nan(),
            (w, Some(g)) if w.is_u64() => same_float(g, f64_of(w)),
            _ => false,
        };
        if !ok {
            failures.push(format!("float({s:?}) = {got:?} want {}", case[1]));
        }
    }
    for case in v["str"].as_array().unwrap() {
        n += 1;
        let s = case[0].as_str().unwrap();
        if py_str_repr(s) != case[1].as_str().unwrap() {
            failures.push(format!("repr({s:?}) = {} want {}", py_str_repr(s), case[1]));
        }
        let dumped = PyObj::Str(s.to_string()).json_dump(None);
        if dumped != case[2].as_str().unwrap() {
            failures.push(format!("json.dumps({s:?}) = {dumped} want {}", case[2]));
        }
        if py_strip(s) != case[3].as_str().unwrap() {
            failures.push(format!(
                "{s:?}.strip() = {:?} want {}",
                py_strip(s),
                case[3]
            ));
        }
    }
    for case in v["csv"].as_array().unwrap() {
        n += 1;
        let fields: Vec<&str> = case[0]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        if csv_row(&fields) != case[1].as_str().unwrap() {
            failures.push(format!(
                "csv {fields:?} = {:?} want {}",
                csv_row(&fields),
                case[1]
            ));
        }
    }
    for case in v["obj"].as_array().unwrap() {
        n += 1;
        let parsed = parse_py_json(case[0].as_str().unwrap().as_bytes()).expect("py json");
        let obj = PyObj::from_json(&parsed);
        if obj.repr() != case[1].as_str().unwrap() {
            failures.push(format!("repr {} want {}", obj.repr(), case[1]));
        }
        if obj.json_dump(Some(2)) != case[2].as_str().unwrap() {
            failures.push(format!(
                "dump indent {} want {}",
                obj.json_dump(Some(2)),
                case[2]
            ));
        }
        if obj.json_dump(None) != case[3].as_str().unwrap() {
            failures.push(format!("dump {} want {}", obj.json_dump(None), case[3]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} vectors failed:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
    println!("{n} Python vectors from {}", path.display());
}

// ---------------------------------------------------------------------------------------------
// Scoring vectors

use evalboard_engine::numeric_qa::model::RawValue;
use evalboard_engine::numeric_qa::score::fa2::{
    calculate_accuracy, calculate_accuracy_py, logic_recall, parse_ground_truth_operations,
    PyRaised,
};
use evalboard_engine::pyrepr::raw_from_py_json;

/// Checks `calculate_accuracy` vectors `{expected, actual, numerical, financial, soft_match}`
/// (or `raises`); returns the number checked.
fn check_accuracy_vectors(bytes: &[u8], label: &str) -> usize {
    let v = parse_py_json(bytes).expect("vectors json");
    let cases = v.as_array().expect("array");
    let mut failures = Vec::new();
    for case in cases {
        let expected = raw_from_py_json(&case["expected"]);
        let actual = raw_from_py_json(&case["actual"]);
        let actual_opt = (!actual.is_null()).then_some(&actual);
        if let Some(raised) = case.get("raises") {
            assert_eq!(raised, "ZeroDivisionError");
            if calculate_accuracy_py(&expected, &actual) != Err(PyRaised::ZeroDivisionError) {
                failures.push(format!("{expected:?} {actual:?}: should raise"));
            }
            continue;
        }
        let got = calculate_accuracy(&expected, actual_opt);
        let want = (
            case["numerical"].as_bool().unwrap(),
            case["financial"].as_bool().unwrap(),
            case["soft_match"].as_bool().unwrap(),
        );
        if (got.numerical, got.financial, got.soft_match) != want {
            failures.push(format!(
                "{expected:?} {actual:?}: got {got:?} want {want:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{label}: {} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases.len()
}

fn check_logic_recall_vectors(bytes: &[u8], label: &str) -> usize {
    let v: serde_json::Value = serde_json::from_slice(bytes).expect("vectors json");
    let cases = v.as_array().expect("array");
    for case in cases {
        let program = case["ground_truth_program"].as_str().unwrap();
        let ops: Vec<&str> = case["plan_compute_operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        let parsed: Vec<&str> = case["gt_ops_parsed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        assert_eq!(
            parse_ground_truth_operations(program),
            parsed,
            "{label}: {program}"
        );
        let want = case["logic_recall"].as_f64().unwrap();
        let got = logic_recall(Some(program), Some(&ops));
        assert_eq!(got, Some(want), "{label}: {program} {ops:?}");
    }
    cases.len()
}

#[test]
fn golden_calculate_accuracy() {
    let Some(path) = shared_data("golden/financial_agent2_calculate_accuracy.json") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let n = check_accuracy_vectors(&bytes, "golden");
    println!("{n} golden calculate_accuracy vectors");
}

#[test]
fn golden_logic_recall() {
    let Some(path) = shared_data("golden/financial_agent2_logic_recall.json") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let n = check_logic_recall_vectors(&bytes, "golden");
    println!("{n} golden logic_recall vectors");
}

/// Vectors generated by running the original functions (reconstructed outside the repo) on
/// thousands of expected/actual pairs: formats, percents, signs, scales, ties, non-finite values.
#[test]
fn python_generated_scoring_vectors() {
    let dir = fixture("vectors/numeric_qa");
    let n = check_accuracy_vectors(
        &std::fs::read(dir.join("accuracy_vectors.json")).unwrap(),
        "accuracy_vectors",
    );
    let m = check_logic_recall_vectors(
        &std::fs::read(dir.join("logic_recall_vectors.json")).unwrap(),
        "logic_recall_vectors",
    );
    println!("{n} accuracy and {m} logic recall vectors");
    let _ = RawValue::Null;
}

// ---------------------------------------------------------------------------------------------
// Run-folder fixtures: input/ → expected/

use evalboard_engine::input::{InputFile, RunInput};
use evalboard_engine::numeric_qa::aggregate::fa2::{write_outputs, Fa2Options, Fa2Outputs};
use evalboard_engine::numeric_qa::formats::fa2_traces::read_run_folder;
use evalboard_engine::numeric_qa::model::QaRun;

/// Every file under `dir`, as the engine receives a dropped folder (relative `/` paths).
fn read_folder(dir: &Path) -> RunInput {
    let files = evalboard_test_support::read_folder(dir)
        .into_iter()
        .map(|(rel, bytes)| InputFile::new(rel, bytes))
        .collect();
    RunInput::new(dir.file_name().unwrap().to_string_lossy(), files)
}

fn outputs_as_files(run: &QaRun, out: &Fa2Outputs) -> Vec<(&'static str, String)> {
    let mut diags: Vec<String> = run.diagnostics.iter().map(|d| d.to_string()).collect();
    diags.extend(out.diagnostics.iter().map(|d| d.to_string()));
    let diag_text: String = diags.iter().map(|d| format!("{d}\n")).collect();
    vec![
        ("statistics.json", out.statistics_json.clone()),
        ("summary.csv", out.summary_csv.clone()),
        ("turns.csv", out.turns_csv.clone()),
        ("errors.csv", out.errors_csv.clone()),
        ("validation.csv", out.validation_csv.clone()),
        ("diagnostics.txt", diag_text),
    ]
}

/// A case `numeric_qa/{ok,err}/<name>/`: reads `input/`, writes the compat outputs and compares
/// them with `expected/` byte for byte (`UPDATE_EXPECT=1` rewrites expected/). An ok/ case reads
/// cleanly; an err/ case gives diagnostics (`expected/diagnostics.txt`).
fn check_case(case: &Case) {
    let run = read_run_folder(&read_folder(&case.dir.join("input")));
    let out = write_outputs(&run, &Fa2Options::default());
    let clean = run.diagnostics.is_empty() && out.diagnostics.is_empty();
    assert_eq!(
        clean, case.ok,
        "{}: an ok/ case reads cleanly, an err/ case gives diagnostics",
        case.name
    );
    let files: Vec<(String, String)> = outputs_as_files(&run, &out)
        .into_iter()
        .map(|(file, text)| (file.to_string(), text))
        .collect();
    evalboard_test_support::expect_dir(&case.dir.join("expected"), &files);
}

/// Every case: `fa2_simulated` (a run folder written by the original system's own code),
/// `fa2_nasty` (hand-made nasty cases, expected files written by the original writer code),
/// `fa2_turns_csv_only` (a folder with only the writer's turns.csv is scored from it).
#[test]
fn numeric_qa_cases() {
    let cases = cases("numeric_qa");
    assert!(cases.len() >= 3, "{cases:?}");
    for case in &cases {
        check_case(case);
    }
}

/// A folder with only the writer's turns.csv: that turns.csv has no falsy answers, so it
/// reproduces itself.
#[test]
fn turns_csv_only_reproduces_its_turns_csv() {
    let dir = fixture("numeric_qa/err/fa2_turns_csv_only");
    assert_eq!(
        std::fs::read(dir.join("input/turns.csv")).unwrap(),
        std::fs::read(dir.join("expected/turns.csv")).unwrap()
    );
}

/// The shared-data copy of the acceptance run (when present) gives the same files as its own,
/// and statistics.json value for value without the original (the four unreproducible keys aside).
#[test]
fn shared_simulated_run_reproduces_its_files() {
    let Some(dir) = shared_data("financial-agent-2/simulated_eval_run") else {
        return;
    };
    let input = read_folder(&dir);
    let run = read_run_folder(&input);
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    let out = write_outputs(&run, &Fa2Options::default());
    for (file, got) in outputs_as_files(&run, &out) {
        if file == "diagnostics.txt" {
            assert_eq!(got, "");
            continue;
        }
        let want = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(got, want, "{file}");
    }
    // Without statistics.json: same values, the four keys null.
    let mut bare = input.clone();
    bare.files
        .retain(|f| f.path == "statistics.json" || f.path.starts_with("traces/"));
    bare.files.retain(|f| f.path != "statistics.json");
    let out = write_outputs(&read_run_folder(&bare), &Fa2Options::default());
    let got: serde_json::Value = serde_json::from_str(&out.statistics_json).unwrap();
    let want: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("statistics.json")).unwrap()).unwrap();
    for (k, v) in want.as_object().unwrap() {
        if ["run_id", "timestamp", "sample_size", "random_seed"].contains(&k.as_str()) {
            assert_eq!(got[k], serde_json::Value::Null, "{k}");
        } else {
            assert_eq!(&got[k], v, "{k}");
        }
    }
    let keys: Vec<&String> = got.as_object().unwrap().keys().collect();
    let want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
    assert_eq!(keys, want_keys);
    // With explicit options the four keys are taken from them.
    let opts = Fa2Options {
        run_id: Some("20260101_000000".into()),
        timestamp: Some("2026-11-21 15:57:24.572343".into()),
        sample_size: Some(2),
        random_seed: Some(42),
    };
    let out = write_outputs(&read_run_folder(&bare), &opts);
    assert_eq!(
        out.statistics_json,
        std::fs::read_to_string(dir.join("statistics.json")).unwrap()
    );
}

/// Differential check against runs written by the original code: with `FA2_DIFF_DIR` set to a
/// folder of run folders (each with traces/ and the writer's five files), every run must be
/// reproduced byte for byte. Without it, a note is printed.
#[test]
fn differential_runs_from_env() {
    let Ok(root) = std::env::var("FA2_DIFF_DIR") else {
        println!("note: FA2_DIFF_DIR not set, differential runs skipped");
        return;
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    for dir in &dirs {
        let run = read_run_folder(&read_folder(dir));
        let out = write_outputs(&run, &Fa2Options::default());
        for (file, got) in outputs_as_files(&run, &out) {
            if file == "diagnostics.txt" {
                continue;
            }
            let want = std::fs::read_to_string(dir.join(file)).unwrap();
            if got != want {
                failures.push(format!(
                    "{}/{file}\n--- want\n{want}\n--- got\n{got}",
                    dir.display()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs differ:\n{}",
        failures.len(),
        dirs.len(),
        failures[..failures.len().min(3)].join("\n")
    );
    println!("{} runs reproduced", dirs.len());
}

// ---------------------------------------------------------------------------------------------
// Properties: round trips, and no input makes the profile panic.

mod properties {
    use evalboard_engine::numeric_qa::aggregate::fa2::{write_outputs, Fa2Options};
    use evalboard_engine::numeric_qa::formats::fa2_traces::{read_trace, read_turns_csv};
    use evalboard_engine::numeric_qa::model::{QaRun, RawValue};
    use evalboard_engine::numeric_qa::score::fa2::calculate_accuracy;
    use evalboard_engine::pyrepr::{py_float_parse, py_float_repr, py_round};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn repr_round_trips(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let text = py_float_repr(x);
            prop_assert_eq!(py_float_parse(&text).map(f64::to_bits), Some(x.to_bits()), "{}", text);
        }

        #[test]
        fn round_is_idempotent_and_close(x in -1e12f64..1e12, n in 0i32..6) {
            let r = py_round(x, n).unwrap();
            prop_assert_eq!(py_round(r, n).unwrap().to_bits(), r.to_bits());
            prop_assert!((r - x).abs() <= 0.5 * 10f64.powi(-n) * (1.0 + 1e-9) + x.abs() * 1e-15);
        }

        #[test]
        fn scoring_never_panics(e in ".{0,12}", a in ".{0,12}", x in any::<f64>(), i in any::<i64>()) {
            for (exp, act) in [
                (RawValue::Str(e.clone()), RawValue::Str(a.clone())),
                (RawValue::Str(e.clone()), RawValue::Float(x)),
                (RawValue::Float(x), RawValue::Int(i)),
                (RawValue::Int(i), RawValue::Str(a.clone())),
            ] {
                let _ = calculate_accuracy(&exp, Some(&act));
            }
        }

        #[test]
        fn readers_and_writer_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = read_trace("traces/x.json", &bytes);
            let (convs, _) = read_turns_csv("turns.csv", &bytes);
            let run = QaRun { conversations: convs, ..QaRun::default() };
            let _ = write_outputs(&run, &Fa2Options::default());
        }

        #[test]
        fn mutated_traces_never_panic(cut in 0usize..9851, byte in any::<u8>()) {
            let base = include_bytes!("../../../../tests/fixtures/numeric_qa/ok/fa2_simulated/input/traces/1499cdf3-e676-4158-ada8-1039d2c4e711.json");
            let mut bytes = base.to_vec();
            if cut < bytes.len() {
                bytes[cut] = byte;
            }
            if let Ok((conv, _)) = read_trace("traces/x.json", &bytes) {
                let run = QaRun { conversations: vec![conv], ..QaRun::default() };
                let _ = write_outputs(&run, &Fa2Options::default());
            }
        }
    }
}

/// `ReadDetail::Doc` (what `evalboard score` reads with for the doc profile) leaves out exactly
/// the compat-only fields: the model is the full one with every `fa2` dropped, the diagnostics
/// and file reports are the same, and so are the doc profile's statistics.
#[test]
fn doc_detail_drops_only_the_compat_fields() {
    use evalboard_engine::numeric_qa::aggregate::doc;
    use evalboard_engine::numeric_qa::model::ReadDetail;
    use evalboard_engine::numeric_qa::read::{assemble_qa_run, read_file_owned};
    use evalboard_engine::numeric_qa::score::{score_qa_run, ScoreConfig};

    let load = |input: &RunInput, detail: ReadDetail| {
        let reads = input
            .files
            .iter()
            .map(|f| read_file_owned(f.clone(), detail).read)
            .collect();
        assemble_qa_run(&input.name, reads, None).expect("readable")
    };
    let mut dirs: Vec<PathBuf> = [
        "numeric_qa/ok/fa2_simulated",
        "numeric_qa/err/fa2_nasty",
        "cli/bad_input",
    ]
    .iter()
    .map(|n| fixture(n).join("input"))
    .collect();
    dirs.extend(shared_data("financial-agent-2/simulated_eval_run"));
    let mut with_traces = 0;
    for dir in &dirs {
        let input = read_folder(dir);
        let full = load(&input, ReadDetail::Full);
        let lean = load(&input, ReadDetail::Doc);
        let mut stripped = full.clone();
        for c in &mut stripped.conversations {
            c.fa2 = None;
            for t in &mut c.turns {
                t.fa2 = None;
            }
        }
        with_traces += usize::from(full.conversations.iter().any(|c| c.fa2.is_some()));
        assert_eq!(lean, stripped, "{}", dir.display());
        let stats = |run: QaRun| doc::statistics(&score_qa_run(run, &ScoreConfig::default()));
        assert_eq!(
            serde_json::to_string(&stats(lean)).unwrap(),
            serde_json::to_string(&stats(full)).unwrap(),
            "{}",
            dir.display()
        );
    }
    // fa2_simulated and fa2_nasty (cli/bad_input's traces are all unreadable).
    assert!(with_traces >= 2);
}
