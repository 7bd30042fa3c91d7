//! How dropped or picked files become runs: each top-level folder is a run, loose files dropped
//! together are one run, and run names stay unique; evalboard's own output folders inside a run
//! are not read. Pure (tested natively).

use evalboard_engine::input::OUTPUTS_MARKER;

/// One run to load: its display name and, for each file, (index in the input, path in the run).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRun {
    pub name: String,
    pub files: Vec<(usize, String)>,
    /// Files of the run not read, relative to it: they sit in a folder evalboard wrote its
    /// outputs to (`.evalboard-outputs` beside them), which is never a run's input.
    pub skipped: Vec<String>,
}

/// Normalises a dropped path: `\` → `/`, no leading `/` or `./`, no empty or `.` segments.
pub fn normalize(path: &str) -> String {
    path.replace('\\', "/")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// Groups paths (relative to the drop, e.g. `run_a/traces/x.json` or `results.json`) into runs.
/// Folders come first in name order, then one run for the loose files.
pub fn plan_runs(paths: &[String]) -> Vec<PlannedRun> {
    let mut folders: Vec<PlannedRun> = Vec::new();
    let mut loose: Vec<(usize, String)> = Vec::new();
    // Output folders inside a run folder (`run/out/` of `run/out/.evalboard-outputs`).
    let outputs: Vec<String> = paths
        .iter()
        .map(|p| normalize(p))
        .filter_map(|p| {
            let folder = p.strip_suffix(OUTPUTS_MARKER)?;
            (folder.ends_with('/') && folder.trim_end_matches('/').contains('/'))
                .then(|| folder.to_string())
        })
        .collect();
    for (i, raw) in paths.iter().enumerate() {
        let p = normalize(raw);
        if p.is_empty() {
            continue;
        }
        let own_output = outputs.iter().any(|o| p.starts_with(o.as_str()));
        match p.split_once('/') {
            Some((top, rest)) => {
                let run = match folders.iter().position(|r| r.name == top) {
                    Some(k) => k,
                    None => {
                        folders.push(PlannedRun {
                            name: top.to_string(),
                            files: Vec::new(),
                            skipped: Vec::new(),
                        });
                        folders.len() - 1
                    }
                };
                if let Some(r) = folders.get_mut(run) {
                    if own_output {
                        r.skipped.push(rest.to_string());
                    } else {
                        r.files.push((i, rest.to_string()));
                    }
                }
            }
            None => loose.push((i, p)),
        }
    }
    crate::ui::order::sort_by_key(&mut folders, |f| f.name.clone());
    if !loose.is_empty() {
        let name = match loose.as_slice() {
            [(_, only)] => stem(only).to_string(),
            _ => "dropped files".to_string(),
        };
        folders.push(PlannedRun {
            name,
            files: loose,
            skipped: Vec::new(),
        });
    }
    folders
}

/// File name without its last extension (`a.results.json` → `a.results`).
fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => name,
    }
}

/// `name`, or `name (2)`, `name (3)`… so that it is not in `taken`. Blank names become `run`.
pub fn unique_name(name: &str, taken: &[String]) -> String {
    let base = name.trim();
    let base = if base.is_empty() { "run" } else { base };
    if !taken.iter().any(|t| t == base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base} ({n})"))
        .find(|c| !taken.iter().any(|t| t == c))
        .unwrap_or_else(|| base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(paths: &[&str], expected: &[(&str, &[(usize, &str)])]) {
        let paths: Vec<String> = paths.iter().map(|s| s.to_string()).collect();
        let got = plan_runs(&paths);
        let want: Vec<PlannedRun> = expected
            .iter()
            .map(|(n, f)| PlannedRun {
                name: n.to_string(),
                files: f.iter().map(|(i, p)| (*i, p.to_string())).collect(),
                skipped: Vec::new(),
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn evalboards_own_outputs_inside_a_run_are_not_its_input() {
        let paths: Vec<String> = [
            "run/run.jsonl",
            "run/out/.evalboard-outputs",
            "run/out/turns.csv",
            "run/outside/turns.csv",
            "out/.evalboard-outputs",
            "out/turns.csv",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let plan = plan_runs(&paths);
        let run = plan.iter().find(|r| r.name == "run").expect("run");
        assert_eq!(
            run.files,
            [
                (0, "run.jsonl".to_string()),
                (3, "outside/turns.csv".to_string())
            ]
        );
        assert_eq!(run.skipped, ["out/.evalboard-outputs", "out/turns.csv"]);
        // An output folder dropped as a run of its own is that run (the user chose it).
        let out = plan.iter().find(|r| r.name == "out").expect("out");
        assert_eq!(out.files.len(), 2);
        assert!(out.skipped.is_empty());
    }

    #[test]
    fn folders_become_runs() {
        check(
            &[
                "b/x.json",
                "/a/traces/1.json",
                "a/statistics.json",
                "b\\y.csv",
            ],
            &[
                ("a", &[(1, "traces/1.json"), (2, "statistics.json")]),
                ("b", &[(0, "x.json"), (3, "y.csv")]),
            ],
        );
    }

    #[test]
    fn loose_files_are_one_run() {
        check(&["results.json"], &[("results", &[(0, "results.json")])]);
        check(
            &["a.json", "./b.jsonl", "run/c.json"],
            &[
                ("run", &[(2, "c.json")]),
                ("dropped files", &[(0, "a.json"), (1, "b.jsonl")]),
            ],
        );
        check(&[".hidden"], &[(".hidden", &[(0, ".hidden")])]);
    }

    #[test]
    fn empty_paths_are_ignored() {
        check(&["", "/", "./"], &[]);
        check(&[], &[]);
    }

    #[test]
    fn names_stay_unique() {
        let taken = vec!["a".to_string(), "a (2)".to_string()];
        assert_eq!(unique_name("a", &taken), "a (3)");
        assert_eq!(unique_name(" b ", &taken), "b");
        assert_eq!(unique_name("  ", &[]), "run");
        assert_eq!(normalize("//x/./y//z"), "x/y/z");
    }
}
