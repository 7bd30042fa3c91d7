//! Hostile input through the real binary: inputs built to crash a reader or a parser end with a
//! clean exit and a diagnostic, never an abort. The inputs are made here (a million levels of
//! nesting is a megabyte each) under a temporary folder.

use super::evalboard;
use std::path::{Path, PathBuf};

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
