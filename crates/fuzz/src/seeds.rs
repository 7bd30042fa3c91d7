//! Seeds: the real files the project tests with (`tests/fixtures/**`), the reference data beside
//! the project (`../shared/data/**`, absent on CI: skipped), the hostile corpus
//! (`tests/hostile/**`, when present), and what earlier runs kept (`<out>/<target>/corpus`).
//! Every file is a single-file seed; every folder of them (up to 64 files) is
//! a folder seed, as a user would drop it.

use std::path::{Path, PathBuf};

use crate::input::Folder;

/// A folder seed holds at most this many files (bigger folders, like `tests/fixtures` itself,
/// are a mix of runs no user would score as one).
const MAX_FOLDER_FILES: usize = 64;
/// Files bigger than this are not read as seeds.
const MAX_SEED_BYTES: u64 = 16 << 20;

#[derive(Debug, Clone)]
pub struct SeedFile {
    /// Where it was read from (for `--list-seeds`).
    pub origin: String,
    /// Its file name, e.g. `turns.csv` (some readers look at names).
    pub name: String,
    pub bytes: Vec<u8>,
    /// From the hostile corpus: offered to every target.
    pub hostile: bool,
}

#[derive(Debug, Clone)]
pub struct SeedFolder {
    pub origin: String,
    pub files: Folder,
    pub hostile: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Seeds {
    pub files: Vec<SeedFile>,
    pub folders: Vec<SeedFolder>,
    /// (root, files read) per seed root, `None` when the root is absent.
    pub roots: Vec<(String, Option<usize>)>,
}

/// The seed roots under the project root `root`: (path, is the hostile corpus).
pub fn roots(root: &Path) -> Vec<(PathBuf, bool)> {
    vec![
        (root.join("tests/fixtures"), false),
        (root.join("../shared/data"), false),
        (root.join("tests/hostile"), true),
    ]
}

/// Reads every seed root; a missing or unreadable root or file is skipped (the harness must run
/// from a fresh clone, where `../shared/data` does not exist).
pub fn load(root: &Path) -> Seeds {
    let mut seeds = Seeds::default();
    let mut seen = std::collections::HashSet::new();
    for (dir, hostile) in roots(root) {
        let shown = dir.display().to_string();
        if !dir.is_dir() {
            seeds.roots.push((shown, None));
            continue;
        }
        let mut tree = Vec::new();
        walk(&dir, "", &mut tree);
        seeds.roots.push((shown.clone(), Some(tree.len())));
        for (rel, bytes) in &tree {
            if !seen.insert(crate::rng::fnv1a(bytes)) {
                continue;
            }
            seeds.files.push(SeedFile {
                origin: format!("{shown}/{rel}"),
                name: rel.rsplit('/').next().unwrap_or(rel).to_string(),
                bytes: bytes.clone(),
                hostile,
            });
        }
        folders_of(&shown, &tree, hostile, &mut seeds.folders);
        if hostile {
            // A hostile file is also a one-file run folder (the CLI scores a single file).
            for (rel, bytes) in &tree {
                let name = rel.rsplit('/').next().unwrap_or(rel).to_string();
                seeds.folders.push(SeedFolder {
                    origin: format!("{shown}/{rel}"),
                    files: vec![(name, bytes.clone())],
                    hostile,
                });
            }
        }
    }
    seeds
}

/// Every file under `dir` (relative path with `/`, bytes), sorted; links are not followed and
/// unreadable entries are skipped.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let Ok(ft) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = format!("{prefix}{name}");
        if ft.is_dir() {
            walk(&e.path(), &format!("{rel}/"), out);
        } else if ft.is_file() && name != ".gitattributes" {
            let small = e.metadata().is_ok_and(|m| m.len() <= MAX_SEED_BYTES);
            if let (true, Ok(bytes)) = (small, std::fs::read(e.path())) {
                out.push((rel, bytes));
            }
        }
    }
}

/// The folder seeds of one root's files: each folder with 1..=[`MAX_FOLDER_FILES`] files below
/// it, its `expected/` outputs left out (they are what the engine wrote, not a run).
fn folders_of(root: &str, tree: &[(String, Vec<u8>)], hostile: bool, out: &mut Vec<SeedFolder>) {
    let mut dirs: Vec<&str> = Vec::new();
    for (rel, _) in tree {
        let mut at = 0;
        while let Some(i) = rel.get(at..).and_then(|r| r.find('/')) {
            dirs.push(rel.get(..at + i).unwrap_or_default());
            at += i + 1;
        }
    }
    dirs.sort_unstable();
    dirs.dedup();
    let mut seen = std::collections::HashSet::new();
    for d in dirs {
        if d.split('/').any(|c| c == "expected") {
            continue;
        }
        let prefix = format!("{d}/");
        let files: Folder = tree
            .iter()
            .filter_map(|(rel, b)| {
                let inner = rel.strip_prefix(&prefix)?;
                (!inner.split('/').any(|c| c == "expected")).then(|| (inner.to_string(), b.clone()))
            })
            .collect();
        if files.is_empty() || files.len() > MAX_FOLDER_FILES {
            continue;
        }
        if seen.insert(crate::input::Input::Folder(files.clone()).hash()) {
            out.push(SeedFolder {
                origin: format!("{root}/{d}"),
                files,
                hostile,
            });
        }
    }
}

/// Every file under `dir` as (relative path, bytes), sorted: the inputs an earlier run kept in
/// `<out>/<target>/corpus`, or a folder given to `--replay`.
pub fn read_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    walk(dir, "", &mut out);
    out
}
