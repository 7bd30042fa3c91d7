//! What the workspace's integration tests share: where the fixtures are, a folder read as
//! (relative path, bytes), expected files compared or rewritten as `expect-test` does, and the
//! checks that need `../shared/data` (outside the repository).
//!
//! **`UPDATE_EXPECT`** has expect-test's one meaning: when the variable is set (to anything; by
//! convention `UPDATE_EXPECT=1`), every expected file that differs is rewritten instead of
//! failing. Comparison is byte for byte (expect-test reads `\r\n` as `\n`; the financial-agent-2
//! fixtures are byte-exact CSV with `\r\n`), and a difference is reported by expect-test's diff.
//!
//! **`../shared/data`**: a check that needs it fails when it is absent, unless
//! `EVALBOARD_ALLOW_MISSING_SHARED_DATA=1` is set (the Makefile sets it only when the folder is
//! absent); then it writes `SKIPPED: <test>: …` to stderr, which `cargo test` always shows.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    workspace_root().join("tests/fixtures").join(rel)
}

/// A golden case of a family: `tests/fixtures/<family>/{ok,err}/<name>/`. An `ok` case must read
/// without diagnostics; an `err` case must give some (its snapshot says which).
#[derive(Debug)]
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub ok: bool,
}

/// Every case of `family`, `ok/` then `err/`, each sorted by name. Panics when there is none.
pub fn cases(family: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for (kind, ok) in [("ok", true), ("err", false)] {
        let root = fixture(family).join(kind);
        let Ok(rd) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = rd
            .map(|e| e.expect("fixture entry").path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        out.extend(dirs.into_iter().map(|dir| Case {
            name: file_name(&dir),
            dir,
            ok,
        }));
    }
    assert!(
        !out.is_empty(),
        "no cases under {}",
        fixture(family).display()
    );
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every file under `dir` as (path relative to `dir` with `/` separators, bytes), sorted by path:
/// what the engine receives for a dropped folder.
pub fn read_folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let rd = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{e}: {}", dir.display()));
        let mut paths: Vec<PathBuf> = rd.map(|e| e.expect("folder entry").path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("under root");
                let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{e}: {}", p.display()));
                out.push((rel.to_string_lossy().replace('\\', "/"), bytes));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// Every file under the folders `dirs` whose name ends in `.ext`, sorted; a folder that is not
/// there is passed over (`../shared/data` on a machine without it).
pub fn files_under(dirs: &[PathBuf], ext: &str) -> Vec<PathBuf> {
    let mut dirs = dirs.to_vec();
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// expect-test's test for "update instead of compare".
fn update_expect() -> bool {
    std::env::var("UPDATE_EXPECT").is_ok()
}

/// Compares `actual` with the file at `path` byte for byte (a missing file reads as empty, as in
/// expect-test), or rewrites it when `UPDATE_EXPECT` is set.
pub fn expect_file(path: &Path, actual: &str) {
    if std::fs::read(path).is_ok_and(|want| want == actual.as_bytes()) {
        return;
    }
    if update_expect() {
        let parent = path.parent().expect("a file path");
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}: {}", parent.display()));
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("{e}: {}", path.display()));
        println!("updating: {}", path.display());
        return;
    }
    // expect-test prints the diff and fails; it returns only if the texts differ in `\r\n` alone.
    expect_test::expect_file![path].assert_eq(actual);
    panic!(
        "{} differs from the output in line endings only (\\r\\n); run with UPDATE_EXPECT=1",
        path.display()
    );
}

/// A whole folder of expected files: `files` (relative path, text) must be exactly the files
/// under `dir`, each compared with [`expect_file`]. With `UPDATE_EXPECT` set, files that are no
/// longer produced are deleted.
pub fn expect_dir(dir: &Path, files: &[(String, String)]) {
    let stale: Vec<String> = if dir.exists() {
        read_folder(dir)
            .into_iter()
            .map(|(rel, _)| rel)
            .filter(|rel| !files.iter().any(|(name, _)| name == rel))
            .collect()
    } else {
        Vec::new()
    };
    for (rel, text) in files {
        expect_file(&dir.join(rel), text);
    }
    if update_expect() {
        for rel in &stale {
            let path = dir.join(rel);
            std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}: {}", path.display()));
            println!("removing: {}", path.display());
        }
    } else {
        assert!(
            stale.is_empty(),
            "{}: expected files no longer produced: {stale:?} (UPDATE_EXPECT=1 removes them)",
            dir.display()
        );
    }
}

/// The variable that lets checks needing `../shared/data` pass when it is absent.
pub const ALLOW_MISSING_SHARED_DATA: &str = "EVALBOARD_ALLOW_MISSING_SHARED_DATA";

/// `../shared/data/<rel>` (beside the repository) when it exists. When it does not, the calling
/// test fails, unless `EVALBOARD_ALLOW_MISSING_SHARED_DATA=1`: then this writes
/// `SKIPPED: <test>: …` to stderr (uncaptured, so `cargo test` shows it) and returns `None`.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = workspace_root().join("../shared/data").join(rel);
    if path.exists() {
        return Some(path);
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_string();
    if std::env::var(ALLOW_MISSING_SHARED_DATA).is_ok_and(|v| v == "1") {
        // Not `eprintln!`: the test harness captures that and shows it only on failure.
        let _ = writeln!(
            std::io::stderr().lock(),
            "SKIPPED: {test}: needs ../shared/data/{rel}, which is absent"
        );
        return None;
    }
    panic!(
        "{test} needs {}, which is absent (set {ALLOW_MISSING_SHARED_DATA}=1 to skip the \
         checks that need ../shared/data)",
        path.display()
    );
}
