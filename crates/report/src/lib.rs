//! Pure output writers: scored runs → files (statistics.json, CSVs, SVG charts, HTML report).
//! No I/O: every writer returns the file's text; the CLI and the app decide where it goes.

pub mod charts;
pub mod codegen_charts;
mod codegen_files;
pub mod compare_charts;
pub mod csvs;
pub mod evallog_charts;
mod evallog_files;
mod evalset_files;
pub mod html;
pub mod many_charts;
pub mod outputs;
pub mod qa_charts;

pub use codegen_files::{codegen_files, codegen_statistics};
pub use evallog_files::{evallog_files, evallog_statistics};
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
    run_output_plan(run).collect()
}

/// [`run_outputs`] before any file's text is made ([`RunOutputPlan`]).
pub fn run_output_plan(run: evalboard_engine::run::RunRef<'_>) -> RunOutputPlan<'_> {
    use evalboard_engine::run::ALL_FAMILIES;
    match run_output_plan_in::<ALL_FAMILIES>(run) {
        Some(plan) => plan,
        // Every family has its outputs here.
        None => unreachable!("{} is one of every family", run.family()),
    }
}

/// [`run_outputs`] for a run of a family in `FAMILIES` (a consumer's family set,
/// [`evalboard_engine::run::FamilySet`]); `None` for another family's run.
pub fn run_outputs_in<const FAMILIES: evalboard_engine::run::FamilySet>(
    run: evalboard_engine::run::RunRef,
) -> Option<RunFiles> {
    run_output_plan_in::<FAMILIES>(run).map(RunOutputPlan::collect)
}

/// [`run_output_plan`] for a run of a family in `FAMILIES`; `None` for another family's run.
pub fn run_output_plan_in<const FAMILIES: evalboard_engine::run::FamilySet>(
    run: evalboard_engine::run::RunRef<'_>,
) -> Option<RunOutputPlan<'_>> {
    html::family_report::<FAMILIES>(run).map(|f| f.output_plan())
}

/// A scored run's outputs before any file is made: the statistics, what writing found, and
/// each file as (name, a function that writes it). The CLI writes each file straight to disk,
/// so the texts never sit in memory beside the run (`score` stays within 2× its input).
pub struct RunOutputPlan<'a> {
    pub statistics: serde_json::Value,
    pub files: Vec<(String, outputs::WriteFile<'a>)>,
    pub diagnostics: Vec<evalboard_engine::Diagnostic>,
}

impl<'a> RunOutputPlan<'a> {
    /// The plan of a family that makes its files together: each function hands one over.
    pub(crate) fn made(statistics: serde_json::Value, files: Vec<(String, String)>) -> Self {
        RunOutputPlan {
            statistics,
            files: files
                .into_iter()
                .map(|(n, t)| (n, outputs::file_of(t)))
                .collect(),
            diagnostics: Vec::new(),
        }
    }

    /// Every file made.
    pub fn collect(self) -> RunFiles {
        RunFiles {
            statistics: self.statistics,
            files: self
                .files
                .into_iter()
                .map(|(n, write)| (n, outputs::text_of(write)))
                .collect(),
            diagnostics: self.diagnostics,
        }
    }
}

/// What [`run_outputs`] gives: the statistics and every file's (name, text).
#[derive(Debug, Clone, PartialEq)]
pub struct RunFiles {
    pub statistics: serde_json::Value,
    pub files: Vec<(String, String)>,
    /// What writing the files found (the compat profile's CSV cells that start like formulas).
    pub diagnostics: Vec<evalboard_engine::Diagnostic>,
}
