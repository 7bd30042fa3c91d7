//! Pure output writers: scored runs → files (statistics.json, CSVs, SVG charts, HTML report).
//! No I/O: every writer returns the file's text; the CLI and the app decide where it goes.

pub mod charts;
pub mod codegen_charts;
mod codegen_files;
pub mod compare_charts;
pub mod csvs;
mod evalset_files;
pub mod html;
pub mod outputs;
pub mod qa_charts;

pub use codegen_files::{codegen_files, codegen_statistics};
pub use evalset_files::{evalset_files, evalset_statistics};

use evalboard_engine::numeric_qa::aggregate::doc::Statistics;

/// statistics.json of the doc profile: pretty-printed, keys in DTO order, trailing newline.
pub fn statistics_json(stats: &Statistics) -> String {
    let mut s =
        serde_json::to_string_pretty(stats).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// The output files of a scored run of any family, and its statistics as a value (for `--json`
/// and `--fail-under`): one function for the CLI's `--out` and the dashboard's Export.
pub fn run_outputs(run: evalboard_engine::run::RunRef) -> RunFiles {
    use evalboard_engine::run::ALL_FAMILIES;
    match run_outputs_in::<ALL_FAMILIES>(run) {
        Some(files) => files,
        // Every family has its outputs here.
        None => unreachable!("{} is one of every family", run.family()),
    }
}

/// [`run_outputs`] for a run of a family in `FAMILIES` (a consumer's family set,
/// [`evalboard_engine::run::FamilySet`]); `None` for another family's run.
pub fn run_outputs_in<const FAMILIES: evalboard_engine::run::FamilySet>(
    run: evalboard_engine::run::RunRef,
) -> Option<RunFiles> {
    use evalboard_engine::family::Family;
    use evalboard_engine::run::{has, RunRef};
    Some(match run {
        RunRef::NumericQa(s) if has(FAMILIES, Family::NumericQa) => {
            let out = outputs::qa_outputs(s);
            RunFiles {
                statistics: out.statistics,
                files: out
                    .files
                    .into_iter()
                    .map(|(n, t)| (n.to_string(), t))
                    .collect(),
                diagnostics: out.diagnostics,
            }
        }
        RunRef::Codegen(l) if has(FAMILIES, Family::Codegen) => RunFiles {
            statistics: codegen_statistics(&l.scored),
            files: codegen_files(&l.scored),
            diagnostics: Vec::new(),
        },
        RunRef::Evalset(_, s) if has(FAMILIES, Family::Evalset) => RunFiles {
            statistics: evalset_statistics(s),
            files: evalset_files(s),
            diagnostics: Vec::new(),
        },
        _ => return None,
    })
}

/// What [`run_outputs`] gives: the statistics and every file's (name, text).
#[derive(Debug, Clone, PartialEq)]
pub struct RunFiles {
    pub statistics: serde_json::Value,
    pub files: Vec<(String, String)>,
    /// What writing the files found (the compat profile's CSV cells that start like formulas).
    pub diagnostics: Vec<evalboard_engine::Diagnostic>,
}
