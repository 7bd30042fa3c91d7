//! No import cycles between modules, in any crate of the workspace (the app in `src/` included).
//!
//! A module is a file (`foo.rs`, `foo/mod.rs`) reached from a crate root (`lib.rs`, `main.rs`,
//! `src/bin/*.rs`) by `mod x;` declarations; an inline `mod x { … }` counts as its file. An edge is
//! a path in non-test code (items under a `#[cfg(…test…)]` and comments dropped, literals blanked)
//! that starts at `crate::`, `super::`, `self::`, `$crate::` or a child module's name, resolved to
//! the longest existing module path. A path naming an item that module imports (`pub use a::X`)
//! is followed to the module the import names. A path into the module's own
//! ancestor is no edge (a parent's file is its children's shared vocabulary and the parent uses
//! its children; a re-export through the parent is still followed): so `mod.rs` re-exporting or
//! calling its children is no cycle, siblings using each other are. Strongly connected components
//! come from an iterative Tarjan; each of two or more modules is a failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use evalboard_test_support::workspace_root;

/// A module: its file's tokens (an identifier, `::`, one other mark; a whole string literal is
/// `"`, a character literal `'`) and the names its `use` declarations bind (name → path).
#[derive(Default)]
struct Module {
    toks: Vec<String>,
    imports: BTreeMap<String, Vec<String>>,
}

/// A crate's modules by path (the root is `[]`).
type Graph = BTreeMap<Vec<String>, Module>;
type Edges = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

fn is_id(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

pub(crate) fn tokens(text: &str) -> Vec<String> {
    let s = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    // Past the first `close` at or after `i`, stepping over `\` escapes when `esc`.
    let past = |mut i: usize, close: &[u8], esc: bool| {
        while i < s.len() && !s[i..].starts_with(close) {
            i += if esc && s[i] == b'\\' { 2 } else { 1 };
        }
        i + close.len()
    };
    while i < s.len() {
        let r = &s[i..];
        let b = usize::from(r.starts_with(b"br"));
        let hashes = r.iter().skip(1 + b).take_while(|c| **c == b'#').count();
        let ch = text.get(i + 1..).and_then(|t| t.chars().next());
        let n = r.iter().take_while(|c| is_id(**c)).count();
        let (tok, next) = if r.starts_with(b"//") || r.starts_with(b"/*") {
            let close: &[u8] = if r[1] == b'/' { b"\n" } else { b"*/" };
            ("", past(i + 2, close, false))
        } else if r[b] == b'r' && r.get(1 + b + hashes) == Some(&b'"') {
            let close = [&b"\""[..], &vec![b'#'; hashes]].concat();
            ("\"", past(i + 2 + b + hashes, &close, false))
        } else if r[0] == b'"' {
            ("\"", past(i + 1, b"\"", true))
        } else if r[0] == b'\''
            && (ch == Some('\\') || r.get(1 + ch.map_or(1, char::len_utf8)) == Some(&b'\''))
        {
            ("'", past(i + 2, b"'", true))
        } else if n > 0 || r.starts_with(b"::") {
            let len = if n > 0 { n } else { 2 };
            (text.get(i..i + len).unwrap_or(""), i + len)
        } else {
            (text.get(i..i + 1).unwrap_or("").trim(), i + 1)
        };
        out.extend((!tok.is_empty()).then(|| tok.to_string()));
        i = next;
    }
    out
}

fn id(t: &[String], i: usize) -> Option<&str> {
    t.get(i)
        .map(String::as_str)
        .filter(|s| is_id(s.as_bytes()[0]))
}

/// The index past the bracket that closes the one at `t[j]`.
fn past_group(t: &[String], mut j: usize, open: &str, close: &str) -> usize {
    let mut depth = 0;
    while j < t.len() {
        depth += i32::from(t[j] == open) - i32::from(t[j] == close);
        j += 1;
        if depth == 0 {
            return j;
        }
    }
    j
}

/// `t` without the items under a `#[cfg(…)]` that names `test` other than as `not(test)`.
pub(crate) fn strip_tests(t: Vec<String>) -> Vec<String> {
    let (mut out, mut i) = (Vec::new(), 0);
    while i < t.len() {
        if !(t[i] == "#" && t.get(i + 1).is_some_and(|s| s == "[") && id(&t, i + 2) == Some("cfg"))
        {
            out.push(t[i].clone());
            i += 1;
            continue;
        }
        let end = past_group(&t, i + 1, "[", "]");
        let pred = &t[i + 3..end];
        let not_test = pred
            .windows(3)
            .any(|w| w.iter().eq(["not", "(", "test"].iter()));
        if not_test || !pred.iter().any(|s| s == "test") {
            out.extend_from_slice(&t[i..end]);
            i = end;
            continue;
        }
        // The item: to its `;` or past its braced body (attributes and types bracket theirs).
        let mut j = end;
        while j < t.len() && t[j] != ";" && t[j] != "{" {
            j = match t[j].as_str() {
                "[" => past_group(&t, j, "[", "]"),
                "(" => past_group(&t, j, "(", ")"),
                _ => j + 1,
            };
        }
        i = match t.get(j) {
            Some(s) if s == "{" => past_group(&t, j, "{", "}"),
            _ => j + 1,
        };
    }
    out
}

/// The paths of a `use` tree (or of one path in code) at `t[*i..]` under `prefix`, each with the
/// name it binds (its last segment or its `as` alias).
fn tree(t: &[String], i: &mut usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    let at = |i: usize| t.get(i).map_or("", String::as_str);
    if at(*i) == "{" {
        *i += 1;
        while *i < t.len() && at(*i) != "}" {
            tree(t, i, prefix.clone(), out);
            while *i < t.len() && !matches!(at(*i), "," | "}") {
                *i += 1;
            }
            *i += usize::from(at(*i) == ",");
        }
        *i += 1;
        return;
    }
    let mut path = prefix;
    if let Some(seg) = id(t, *i).or((at(*i) == "*").then_some("*")) {
        *i += 1;
        path.push(seg.to_string());
        let more = id(t, *i + 1).is_some() || matches!(at(*i + 1), "{" | "*");
        if seg != "*" && at(*i) == "::" && more {
            *i += 1;
            return tree(t, i, path, out);
        }
    }
    if path.last().is_some_and(|s| s == "self") {
        path.pop();
    }
    let mut name = path.last().cloned().unwrap_or_default();
    if at(*i) == "as" {
        name = at(*i + 1).to_string();
        *i += 2;
    }
    out.push((path, name));
}

/// Reads the module at `file` as `path`, then its children (`dir` holds their files).
fn load(g: &mut Graph, file: &Path, dir: &Path, path: Vec<String>) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}: {}", file.display()));
    let toks = strip_tests(tokens(&text));
    let (mut m, mut children) = (Module::default(), Vec::new());
    for k in 0..toks.len() {
        if toks[k] == "mod" && toks.get(k + 2).is_some_and(|s| s == ";") {
            children.extend(id(&toks, k + 1).map(str::to_string));
        } else if toks[k] == "use" {
            let (mut i, mut found) = (k + 1, Vec::new());
            tree(&toks, &mut i, Vec::new(), &mut found);
            m.imports
                .extend(found.into_iter().map(|(p, name)| (name, p)));
        }
    }
    m.toks = toks;
    g.insert(path.clone(), m);
    for child in children {
        let (flat, sub) = (dir.join(format!("{child}.rs")), dir.join(&child));
        let file = [flat, sub.join("mod.rs")].into_iter().find(|f| f.is_file());
        let file = file.unwrap_or_else(|| panic!("no file of mod {child} in {}", dir.display()));
        load(g, &file, &sub, [path.clone(), vec![child]].concat());
    }
}

/// The module that `path`, written in module `from`, depends on; `depth` bounds re-exports.
fn resolve(g: &Graph, from: &[String], path: &[String], depth: u32) -> Option<Vec<String>> {
    let (mut m, mut k) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), 1),
        Some("self") => (from.to_vec(), 1),
        _ => (from.to_vec(), 0),
    };
    while path.get(k).is_some_and(|s| s == "super") {
        m.pop()?;
        k += 1;
    }
    while k < path.len() && g.contains_key(&[m.clone(), vec![path[k].clone()]].concat()) {
        m.push(path[k].clone());
        k += 1;
    }
    let module = g.get(&m)?;
    match path.get(k).filter(|s| *s != "*") {
        Some(item) if module.imports.contains_key(item) => {
            (depth < 8).then(|| resolve(g, &m, &module.imports[item], depth + 1))?
        }
        _ if from.starts_with(&m) => None,
        _ => Some(m),
    }
}

fn edges(g: &Graph) -> Edges {
    let mut out = Edges::new();
    for (from, m) in g {
        let (t, mut deps) = (&m.toks, BTreeSet::new());
        for k in 0..t.len() {
            let Some(first) = id(t, k) else { continue };
            let child = g.contains_key(&[from.clone(), vec![first.to_string()]].concat());
            let inside = k > 0 && (t[k - 1] == "::" || t[k - 1] == ".");
            let starts = child || matches!(first, "crate" | "super" | "self");
            if !starts || inside || t.get(k + 1).is_none_or(|s| s != "::") {
                continue;
            }
            let (mut i, mut found) = (k, Vec::new());
            tree(t, &mut i, Vec::new(), &mut found);
            let to = found
                .iter()
                .filter_map(|(path, _)| resolve(g, from, path, 0));
            deps.extend(to.filter(|to| to != from));
        }
        out.insert(from.clone(), deps);
    }
    out
}

/// The strongly connected components of two or more modules (iterative Tarjan), each sorted.
fn cycles(e: &Edges) -> Vec<Vec<String>> {
    let names: Vec<&Vec<String>> = e.keys().collect();
    let at: BTreeMap<&Vec<String>, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| e[*n].iter().filter_map(|d| at.get(d).copied()).collect())
        .collect();
    let n = names.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut out) = (Vec::new(), 0, Vec::new());
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Frames: (node, its next edge).
        let mut call = vec![(root, 0)];
        while let Some((v, edge)) = call.pop() {
            if edge == 0 {
                (index[v], low[v], on[v]) = (next, next, true);
                next += 1;
                stack.push(v);
            }
            if let Some(&w) = adj[v].get(edge) {
                call.push((v, edge + 1));
                if index[w] == usize::MAX {
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    scc.push(names[w].join("::"));
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    out.push(scc);
                }
            }
        }
    }
    out
}

/// Each crate root under `src` (library, binary, `bin/*.rs`) and the cycles among its modules.
fn crate_cycles(src: &Path) -> Vec<(PathBuf, Vec<Vec<String>>)> {
    let mut roots: Vec<PathBuf> = [src.join("lib.rs"), src.join("main.rs")].into();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        roots.extend(bins.map(|e| e.expect("a folder entry").path()));
    }
    roots.retain(|r| r.extension().is_some_and(|e| e == "rs") && r.is_file());
    roots.sort();
    assert!(!roots.is_empty(), "no crate root under {}", src.display());
    let mut out = Vec::new();
    for root in roots {
        let mut g = Graph::new();
        let dir = root.parent().expect("a folder").to_path_buf();
        load(&mut g, &root, &dir, Vec::new());
        out.push((root, cycles(&edges(&g))));
    }
    out
}

/// Every package of the workspace (Cargo.toml's members, and `.`: the app).
#[test]
fn no_module_imports_itself_through_others() {
    let root = workspace_root();
    let toml = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let line = toml
        .lines()
        .find(|l| l.starts_with("members"))
        .expect("a members line");
    let packages: Vec<&str> = line.split('"').skip(1).step_by(2).chain(["."]).collect();
    assert!(packages.len() > 5, "{line}");
    let mut found = Vec::new();
    for package in packages {
        for (file, cycles) in crate_cycles(&root.join(package).join("src")) {
            let shown = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .display()
                .to_string();
            found.extend(cycles.iter().map(|c| format!("{shown}: {}", c.join(" ⇄ "))));
        }
    }
    assert!(
        found.is_empty(),
        "{} import cycles:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The checker on a small crate: siblings that use each other are a cycle, through a parent's
/// re-export too; a parent that re-exports and calls its children, which use its items, is not.
#[test]
fn the_checker_finds_sibling_cycles_and_not_parents() {
    let dir = std::env::temp_dir().join(format!("evalboard-module-cycles-{}", std::process::id()));
    let files = [
        (
            "lib.rs",
            "mod a; mod b; pub mod p; pub use b::B; pub struct Root;",
        ),
        ("a.rs", "use crate::B; pub struct A; // crate::x::y\n"),
        ("b.rs", "pub struct B(crate::a::A, crate::Root);"),
        (
            "p/mod.rs",
            "mod q; pub use q::Q; pub struct P; fn f() { q::g(); }",
        ),
        (
            "p/q.rs",
            "use super::P; #[cfg(test)] mod t { use crate::p::Q; } pub struct Q;",
        ),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("a temporary folder");
        std::fs::write(&path, text).expect("a temporary file");
    }
    let got = crate_cycles(&dir);
    std::fs::remove_dir_all(&dir).expect("the temporary folder removed");
    assert_eq!(
        got,
        [(dir.join("lib.rs"), vec![vec!["a".to_string(), "b".into()]])]
    );
}
