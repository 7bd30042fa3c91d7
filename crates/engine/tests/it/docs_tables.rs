//! docs/scoring.md against the engine's tables: its "All scorers" and "Headline metrics" sections
//! are the text the engine renders from the scorer table and the headline tables
//! (`UPDATE_EXPECT=1` rewrites them), every scorer id, headline key and label appears in it, and
//! it names no `name@version` scorer id the table lacks. Every repository path the docs name
//! exists, and no table cell in the docs is longer than 400 characters.

use std::path::Path;

use evalboard_engine::{headline, run::lists as run_lists, scorer_table};
use evalboard_test_support::{expect_file, workspace_root};

const SCORING_MD: &str = "docs/scoring.md";

/// The generated sections: (marker name, rendered text).
fn generated() -> [(&'static str, String); 2] {
    [
        (
            "scorer_table::markdown",
            scorer_table::markdown(run_lists::scorers()),
        ),
        (
            "headline::markdown",
            headline::markdown(&run_lists::headline_tables()),
        ),
    ]
}

/// `doc` with the text between `<!-- begin NAME -->` and `<!-- end NAME -->` replaced by each
/// rendered section.
fn with_sections(doc: &str) -> String {
    let mut out = doc.to_string();
    for (name, text) in generated() {
        let begin = format!("<!-- begin {name}: generated from the engine's tables -->\n");
        let end = format!("<!-- end {name} -->");
        let (Some(b), Some(e)) = (out.find(&begin), out.find(&end)) else {
            panic!("{SCORING_MD} lacks the markers {begin:?} … {end:?}");
        };
        assert!(b < e, "{name}: end marker before begin marker");
        out.replace_range(b + begin.len()..e, &text);
    }
    out
}

#[test]
fn scoring_md_sections_are_the_rendered_tables() {
    let path = workspace_root().join(SCORING_MD);
    let doc = std::fs::read_to_string(&path).expect("docs/scoring.md");
    expect_file(&path, &with_sections(&doc));
}

#[test]
fn scoring_md_names_every_scorer_and_headline_metric() {
    let doc = std::fs::read_to_string(workspace_root().join(SCORING_MD)).expect("scoring.md");
    for s in run_lists::scorers() {
        assert!(
            doc.contains(&format!("`{}`", s.id)),
            "no {} in {SCORING_MD}",
            s.id
        );
    }
    for t in run_lists::headline_tables() {
        for m in t.metrics {
            assert!(doc.contains(&format!("`{}`", m.key)), "no {}", m.key);
            assert!(doc.contains(m.label), "no {:?}", m.label);
        }
    }
}

/// Every `name@version` in `text`: a name of letters, digits, `_` and `.` joined by `@` to a
/// version of letters, digits, `-`, `.` and `+` (trailing `.`/`-` dropped).
fn scorer_ids(text: &str) -> Vec<String> {
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let version_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '+');
    let mut out = Vec::new();
    for (at, _) in text.match_indices('@') {
        let before = &text[..at];
        let name_start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| name_char(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let after = &text[at + 1..];
        let version_len = after
            .char_indices()
            .take_while(|(_, c)| version_char(*c))
            .last()
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &text[name_start..at];
        let version = after[..version_len].trim_end_matches(['.', '-']);
        if !name.is_empty() && !version.is_empty() {
            out.push(format!("{name}@{version}"));
        }
    }
    out
}

#[test]
fn scoring_md_names_no_scorer_the_table_lacks() {
    let doc = std::fs::read_to_string(workspace_root().join(SCORING_MD)).expect("scoring.md");
    let ids = scorer_ids(&doc);
    assert!(ids.len() >= run_lists::scorers().count(), "{ids:?}");
    for id in ids {
        if id == "name@version" {
            continue;
        }
        // Tolerance settings extend a doc-v1 version: `soft_match@doc-v1+rel0.02`.
        let base = id.split('+').next().unwrap_or(&id);
        assert!(
            run_lists::find_scorer(base).is_some(),
            "{SCORING_MD} names {id}, which is not in the scorer table"
        );
    }
    assert_eq!(
        scorer_ids("`a_b@doc-v1+rel0.02`, x@v1-extract. @v1 name@"),
        ["a_b@doc-v1+rel0.02", "x@v1-extract"]
    );
}

/// Repository paths (`crates/…`, `src/…`, `tests/…`, …) named in a document, with the line they
/// are on. Templates (`<family>`, `{ok,err}`, `*`) are left out.
fn repo_paths(text: &str) -> Vec<(usize, String)> {
    const ROOTS: [&str; 8] = [
        "crates/", "src/", "tests/", "docs/", "bench/", "scripts/", "demo/", "fuzz/",
    ];
    let path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (i, _) in line.char_indices() {
            let rest = &line[i..];
            let starts_word = line[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !path_char(c) && c != '<' && c != '}');
            if !starts_word || !ROOTS.iter().any(|r| rest.starts_with(r)) {
                continue;
            }
            let len = rest.find(|c| !path_char(c)).unwrap_or(rest.len());
            let next = rest[len..].chars().next();
            if matches!(next, Some('<' | '{' | '*')) {
                continue;
            }
            let path = rest[..len].trim_end_matches('.');
            out.push((n + 1, path.to_string()));
        }
    }
    out
}

/// The documents: README.md, ARCHITECTURE.md and every `.md` file in docs/, as repository paths.
fn doc_files() -> Vec<String> {
    let mut docs: Vec<String> = ["README.md", "ARCHITECTURE.md"].map(String::from).to_vec();
    let mut in_docs = Vec::new();
    for e in std::fs::read_dir(workspace_root().join("docs")).expect("docs/") {
        let name = e.expect("entry").file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            in_docs.push(format!("docs/{name}"));
        }
    }
    in_docs.sort();
    docs.extend(in_docs);
    docs
}

#[test]
fn paths_named_in_the_docs_exist() {
    let root = workspace_root();
    let docs = doc_files();
    // Outputs of runs, not files of the repository (gitignored), and the paths of the systems
    // the docs describe.
    let not_ours = [
        "bench/out/",
        "tests/e2e/out/",
        "fuzz/out/",
        "src/evaluation/",
    ];
    let mut missing = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).expect("a doc");
        for (line, path) in repo_paths(&text) {
            if not_ours
                .iter()
                .any(|p| path.starts_with(p) || path == p.trim_end_matches('/'))
            {
                continue;
            }
            if !Path::new(&root.join(&path)).exists() {
                missing.push(format!("{doc}:{line}: {path}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
    assert_eq!(
        repo_paths(
            "see `crates/engine/src/lib.rs`, crates/engine/src/<family>/ and tests/x/{ok,err}."
        ),
        [(1, "crates/engine/src/lib.rs".to_string())]
    );
}

/// The longest a table cell of the docs may be, in characters: a longer text goes in a section
/// below the table, linked from the cell.
const MAX_CELL_CHARS: usize = 400;

/// The cells of a table row: `row` split on each `|` that is neither escaped (`\|`) nor inside a
/// code span (a run of backticks up to the next run of the same length; an unmatched run is
/// literal), each cell trimmed. The pieces before a leading and after a trailing `|` are cells too
/// (empty).
fn table_cells(row: &str) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                cell.extend(&chars[i..i + 2]);
                i += 2;
            }
            '`' => {
                let n = run_at(i);
                let mut end = i + n;
                let mut j = end;
                while j < chars.len() {
                    let m = if chars[j] == '`' { run_at(j) } else { 0 };
                    if m == n {
                        end = j + m;
                        break;
                    }
                    j += m.max(1);
                }
                cell.extend(&chars[i..end]);
                i = end;
            }
            '|' => {
                cells.push(cell.trim().to_string());
                cell.clear();
                i += 1;
            }
            c => {
                cell.push(c);
                i += 1;
            }
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

#[test]
fn no_table_cell_over_400_characters() {
    let root = workspace_root();
    let mut long = Vec::new();
    for doc in doc_files() {
        let text = std::fs::read_to_string(root.join(&doc)).expect("a doc");
        for (n, line) in text.lines().enumerate() {
            if !line.starts_with('|') {
                continue;
            }
            for cell in table_cells(line) {
                let chars = cell.chars().count();
                if chars > MAX_CELL_CHARS {
                    long.push(format!("{doc}:{}: {chars} characters", n + 1));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "table cells over {MAX_CELL_CHARS} characters (move the text into a section below the \
         table and link it from the cell):\n{}",
        long.join("\n")
    );
    assert_eq!(
        table_cells(r"| `a|b` | c \| d | ``x ` | y`` | `open | ü |"),
        ["", "`a|b`", r"c \| d", "``x ` | y``", "`open", "ü", ""]
    );
}
