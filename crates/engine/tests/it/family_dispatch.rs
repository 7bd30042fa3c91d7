//! Family dispatch stays in the registry: outside `engine::run` (run.rs and `run/`), the
//! `Family` enum's own file and the four family folders, a family's variant (`Family::Codegen`,
//! `RunRef::NumericQa`, `ScoredRun::EvalLog`, …) is named at most [`MAX`] times in non-test
//! code, and every file that names one is listed, with its reason, in ARCHITECTURE.md's
//! "Where families are still named" (issue 25: 121 such names at acef577).

use std::path::{Path, PathBuf};

use evalboard_test_support::workspace_root;

use crate::module_cycles::{strip_tests, tokens};

/// The most family variant names allowed outside the registry and the families.
const MAX: usize = 41;

const TYPES: &[&str] = &["Family", "RunRef", "ScoredRun", "ReadRun", "ReportRun"];
const VARIANTS: &[&str] = &["NumericQa", "Codegen", "Evalset", "EvalLog"];

/// Where a family may be named freely: the registry and the families themselves.
fn is_registry_or_family(rel: &str) -> bool {
    const FREE: &[&str] = &[
        "crates/engine/src/run.rs",
        "crates/engine/src/run/",
        "crates/engine/src/family.rs",
        "crates/engine/src/numeric_qa/",
        "crates/engine/src/codegen/",
        "crates/engine/src/evalset/",
        "crates/engine/src/evallog/",
    ];
    FREE.iter().any(|f| rel.starts_with(f))
}

/// Non-test source files: each crate's `src/` and the app's, without test-only files and
/// crates (the fuzz harness, the benches and the test support name every family on purpose).
fn sources(root: &Path) -> Vec<(String, PathBuf)> {
    let mut dirs = vec![root.join("src")];
    if let Ok(rd) = std::fs::read_dir(root.join("crates")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !matches!(name.as_str(), "fuzz" | "bench" | "test-support") {
                dirs.push(e.path().join("src"));
            }
        }
    }
    evalboard_test_support::files_under(&dirs, "rs")
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs"))
        .map(|p| {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, p)
        })
        .collect()
}

/// The family variant names in `text`'s non-test code.
fn names(text: &str) -> usize {
    let t = strip_tests(tokens(text));
    t.windows(3)
        .filter(|w| {
            TYPES.contains(&w[0].as_str()) && w[1] == "::" && VARIANTS.contains(&w[2].as_str())
        })
        .count()
}

#[test]
fn families_are_named_in_the_registry_and_listed_places_only() {
    let root = workspace_root();
    let arch = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let listed = arch
        .split("## Where families are still named")
        .nth(1)
        .unwrap_or_default();
    let mut total = 0;
    let mut report = String::new();
    let mut unlisted = Vec::new();
    for (rel, path) in sources(&root) {
        if is_registry_or_family(&rel) {
            continue;
        }
        let n = names(&std::fs::read_to_string(&path).unwrap());
        if n == 0 {
            continue;
        }
        total += n;
        report.push_str(&format!("{n:4} {rel}\n"));
        if !listed.contains(&format!("`{rel}`")) {
            unlisted.push(rel);
        }
    }
    assert!(
        total <= MAX,
        "{total} family variant names outside the registry (at most {MAX}):\n{report}"
    );
    assert!(
        unlisted.is_empty(),
        "not listed in ARCHITECTURE.md's \"Where families are still named\": {unlisted:?}\n{report}"
    );
}

#[test]
fn the_count_sees_paths_and_skips_tests() {
    let text =
        "fn a(f: Family) -> bool { f == Family::Codegen || matches!(r, RunRef::EvalLog(_)) }\n\
                // Family::Evalset in a comment\n\
                #[cfg(test)]\nmod tests { fn b() { let _ = Family::NumericQa; } }\n";
    assert_eq!(names(text), 2);
}
