//! Module walls the compiler does not keep yet (page and workers are one crate): the page's
//! views (`src/ui/**`) never name worker code, the worker side never names `crate::ui`, and the
//! code-generation worker and its host reach the main worker only through `worker::runtime` and
//! `worker::intake`. Only `protocol`, `format` and `js_error` are shared. Read from the source
//! tree with `std::fs`, natively.

use std::path::{Path, PathBuf};

/// Top-level modules that run in a worker: the page must not name them. Each is `src/<name>.rs`
/// or `src/<name>/`, all of whose files are the worker side.
const WORKER_MODULES: &[&str] = &[
    "worker",
    "codegen_worker",
    "codegen_host",
    "lake_worker",
    "lake_host",
    "lake_view",
    "lake_job",
    "families",
    "codegen",
    "evallog",
    "evalset",
    "screen",
    "exports",
    "charts",
    "warmup",
    "many",
    "pair",
    "run_label",
    "qa_screens",
    "qa_items",
    "query_view",
    "review",
];

/// The page's top-level module, and the modules both sides share.
const PAGE_MODULES: &[&str] = &["ui"];
const SHARED_MODULES: &[&str] = &["protocol", "format", "js_error"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The rest of a `use` tree at `s[*i..]` under `prefix`, as full paths (`{a, b::{c, d}}` → `a`,
/// `b::c`, `b::d`).
fn use_tree(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    if s.get(*i) == Some(&b'{') {
        *i += 1;
        loop {
            while s.get(*i).is_some_and(|b| b.is_ascii_whitespace()) {
                *i += 1;
            }
            match s.get(*i) {
                None => return,
                Some(b'}') => {
                    *i += 1;
                    return;
                }
                _ => use_tree(s, i, prefix.clone(), out),
            }
            // Past `as name`, to the next item or the end of the group.
            while s.get(*i).is_some_and(|b| *b != b',' && *b != b'}') {
                *i += 1;
            }
            if s.get(*i) == Some(&b',') {
                *i += 1;
            }
        }
    }
    let start = *i;
    while s.get(*i).copied().is_some_and(is_ident) {
        *i += 1;
    }
    let mut path = prefix;
    if *i > start {
        path.push(String::from_utf8_lossy(&s[start..*i]).into_owned());
        if s[*i..].starts_with(b"::") {
            *i += 2;
            return use_tree(s, i, path, out);
        }
    }
    out.push(path);
}

/// Every path the text names from the crate root (`crate::a::b`, `crate::{a, b::c}`), comments
/// included, as its segments.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        if at > 0 && is_ident(s[at - 1]) {
            continue;
        }
        let mut i = at + "crate::".len();
        use_tree(s, &mut i, Vec::new(), &mut out);
    }
    out
}

/// `(file, path)` for every crate path in `files` that `bad` rejects.
fn offences(files: &[PathBuf], bad: impl Fn(&[String]) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("a source file");
        for path in crate_paths(&text) {
            if bad(&path) {
                let shown = file.strip_prefix(src()).unwrap_or(file);
                found.push(format!("{}: crate::{}", shown.display(), path.join("::")));
            }
        }
    }
    found
}

/// The files of the worker side: each worker module's `src/<name>.rs` and everything under
/// `src/<name>/`.
fn worker_side() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for m in WORKER_MODULES {
        let (file, dir) = (src().join(format!("{m}.rs")), src().join(m));
        assert!(file.is_file() || dir.is_dir(), "no module {m} in src/");
        files.extend(Some(file).filter(|f| f.is_file()));
        if dir.is_dir() {
            files.extend(rust_files(&dir));
        }
    }
    files
}

fn first_is(path: &[String], names: &[&str]) -> bool {
    path.first().is_some_and(|p| names.contains(&p.as_str()))
}

/// Every top-level module of src/lib.rs is on one side (worker, page or shared), and every one
/// the lists name exists there: a new module has to be placed, a deleted one leaves the lists.
#[test]
fn every_top_level_module_is_placed_and_every_listed_one_exists() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("src/lib.rs");
    let mut declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .filter_map(|l| l.strip_suffix(';'))
        .filter(|m| *m != "tidy")
        .collect();
    declared.sort_unstable();
    let mut listed: Vec<&str> = [WORKER_MODULES, PAGE_MODULES, SHARED_MODULES].concat();
    listed.sort_unstable();
    assert_eq!(
        declared, listed,
        "src/lib.rs's modules against the lists here"
    );
}

#[test]
fn the_page_names_no_worker_module() {
    let ui = rust_files(&src().join("ui"));
    assert!(ui.len() > 20, "src/ui/ holds the views: {ui:?}");
    let found = offences(&ui, |p| first_is(p, WORKER_MODULES));
    assert!(
        found.is_empty(),
        "the page names worker code:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_workers_name_no_page_module() {
    let files = worker_side();
    assert!(
        files.len() > WORKER_MODULES.len(),
        "worker files: {files:?}"
    );
    let found = offences(&files, |p| first_is(p, &["ui"]));
    assert!(
        found.is_empty(),
        "worker code names the page:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_code_generation_worker_reaches_the_main_worker_through_the_shared_modules_only() {
    // The lake worker and its host are held to the same rule.
    let files = [
        src().join("codegen_worker.rs"),
        src().join("codegen_host.rs"),
        src().join("lake_worker.rs"),
        src().join("lake_host.rs"),
    ];
    let found = offences(&files, |p| {
        first_is(p, &["worker"])
            && !matches!(
                p.get(1).map(String::as_str),
                Some("runtime" | "intake" | "store" | "sub")
            )
    });
    assert!(
        found.is_empty(),
        "past worker::runtime:\n{}",
        found.join("\n")
    );
    // …and the runtime, intake, run store and sub-worker host (`worker::sub`, which starts the
    // code-generation and lake workers) do not reach back into the main worker or a host.
    let shared = [
        src().join("worker/runtime.rs"),
        src().join("worker/intake.rs"),
        src().join("worker/store.rs"),
        src().join("worker/sub.rs"),
    ];
    let found = offences(&shared, |p| {
        first_is(
            p,
            &["codegen_host", "codegen_worker", "lake_host", "lake_worker"],
        ) || (first_is(p, &["worker"])
            && !matches!(
                p.get(1).map(String::as_str),
                Some("runtime" | "browser_files")
            ))
    });
    assert!(
        found.is_empty(),
        "the shared runtime names a worker:\n{}",
        found.join("\n")
    );
    for file in &shared {
        let text = std::fs::read_to_string(file).expect("a source file");
        assert!(
            !text.contains("super::"),
            "{} names its parent",
            file.display()
        );
    }
}

#[test]
fn crate_paths_expand_use_groups() {
    let text = "use crate::ui::{self, a::b as c, d::{e, f}};\n// crate::worker\nuse notcrate::x;";
    let got: Vec<String> = crate_paths(text).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        got,
        ["ui::self", "ui::a::b", "ui::d::e", "ui::d::f", "worker"]
    );
}
