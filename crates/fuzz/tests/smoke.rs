//! The harness works: every target runs a few dozen inputs (seeds first, then mutants) with no
//! crash or hang, and the self-test target proves that a panic, an abort, a stack overflow, an
//! allocation past the memory limit and a hang are each caught, saved and replayable. Kept to
//! a fixed number of runs so `cargo test --workspace` stays quick; `make fuzz` is the real run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn harness() -> Command {
    Command::new(env!("CARGO_BIN_EXE_evalboard-fuzz"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("evalboard-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("the harness starts");
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn summary(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

#[test]
fn every_target_runs_its_seeds_and_mutants_clean() {
    let out = scratch("smoke");
    // A debug build's frames are several times a release build's: the 2 MiB stack `make fuzz`
    // checks against would overflow here on inputs the release build handles.
    let o = run(harness()
        .args(["--runs", "25", "--seed", "7", "--hang-seconds", "60"])
        .args([
            "--stack-kib",
            "16384",
            "--out",
            out.to_str().expect("utf-8 temp path"),
        ]));
    let s = summary(&out);
    let targets = s["targets"].as_array().expect("targets");
    let names: Vec<&str> = targets
        .iter()
        .filter_map(|t| t["target"].as_str())
        .collect();
    for want in [
        "fa2_trace",
        "fa2_results",
        "turns_csv",
        "qa_jsonl",
        "convfinqa",
        "answer",
        "finqa_program",
        "codegen_files",
        "python_syntax",
        "evalset_files",
        "inspect_eval",
        "inspect_json",
        "lm_eval_samples",
        "evallog_folder",
        "run_numeric_qa",
        "run_codegen",
        "run_evalset",
        "cli",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for t in targets {
        assert_eq!(t["runs"], 25, "{t}");
        assert!(t["seeds"].as_u64().unwrap_or(0) >= 1, "{t}");
        assert_eq!(t["crashes"], 0, "{t}");
        assert_eq!(t["hangs"], 0, "{t}");
    }
    assert_eq!(o.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn panics_aborts_overflows_allocation_bombs_and_hangs_are_caught_and_saved() {
    let out = scratch("selftest");
    let o = run(harness()
        .args([
            "--targets",
            "selftest",
            "--runs",
            "30",
            "--hang-seconds",
            "1",
        ])
        .args([
            "--max-restarts",
            "8",
            "--out",
            out.to_str().expect("utf-8 temp path"),
        ]));
    assert_eq!(o.status.code(), Some(1), "findings make the exit code 1");
    let s = summary(&out);
    let t = &s["targets"][0];
    assert!(t["crashes"].as_u64().unwrap_or(0) >= 4, "{t}");
    assert!(t["hangs"].as_u64().unwrap_or(0) >= 1, "{t}");
    let distinct: Vec<&str> = t["distinct"]
        .as_array()
        .expect("distinct")
        .iter()
        .filter_map(|k| k.as_str())
        .collect();
    for want in [
        "panic at ",
        "stack overflow",
        "allocation failure",
        "hang over 1s",
    ] {
        assert!(
            distinct.iter().any(|k| k.starts_with(want)),
            "{want} not in {distinct:?}"
        );
    }
    // Every saved input is on disk with its explanation, and the panic replays as a failure.
    let saved: Vec<PathBuf> = t["saved"]
        .as_array()
        .expect("saved")
        .iter()
        .filter_map(|p| p.as_str())
        .map(|p| out.join(p))
        .collect();
    assert!(saved.len() >= 5, "{saved:?}");
    let mut panic_file = None;
    for f in &saved {
        let why =
            std::fs::read_to_string(format!("{}.txt", f.display())).expect("a .txt beside it");
        assert!(f.is_file(), "{}", f.display());
        if why.contains("key: panic at ") {
            panic_file = Some(f.clone());
        }
    }
    let panic_file = panic_file.expect("a saved panic");
    assert_eq!(
        std::fs::read(&panic_file)
            .ok()
            .and_then(|b| b.first().copied()),
        Some(b'P')
    );
    let r = run(harness()
        .args([
            "--replay",
            panic_file.to_str().expect("utf-8"),
            "--target",
            "selftest",
        ])
        .env("RUST_BACKTRACE", "0"));
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("selftest: a panic"));
    let _ = std::fs::remove_dir_all(&out);
}

/// A target the harness cannot run (here its findings folder cannot be made: a file is in its
/// place) is not a clean run: the exit code is 2, and summary.json says which target broke.
#[test]
fn a_target_the_harness_cannot_run_exits_2() {
    let out = scratch("broken");
    std::fs::create_dir_all(&out).expect("scratch folder");
    std::fs::write(out.join("answer"), "not a folder").expect("blocking file");
    let o = run(harness().args([
        "--targets",
        "answer",
        "--runs",
        "3",
        "--out",
        out.to_str().expect("utf-8 temp path"),
    ]));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("could not run answer"));
    let s = summary(&out);
    assert_eq!(s["targets"][0]["broken"], true, "{s}");
    assert_eq!(s["targets"][0]["runs"], 0, "{s}");
    let _ = std::fs::remove_dir_all(&out);
}
