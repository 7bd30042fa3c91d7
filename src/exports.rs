//! Export of a run's output files, for any family: the same bytes as `evalboard score --out`
//! writes ([`evalboard_report::run_outputs`]).

use evalboard_engine::run::{FamilySet, RunRef, ALL_FAMILIES};
use evalboard_report::html::{
    render_report_in, FileProvenance, HtmlOptions, Provenance, ReportInput,
};

/// The name a downloaded output file gets (`<session>/metrics.json` → `<session>-metrics.json`).
pub fn download_name(path: &str) -> String {
    path.replace('/', "-")
}

/// One output file of the run under the current settings: (download name, text).
pub fn export(run: RunRef, file: &str) -> Result<(String, String), String> {
    export_in::<ALL_FAMILIES>(run, file)
}

/// [`export`] for a run of a family in `FAMILIES` (a worker's family set).
pub fn export_in<const FAMILIES: FamilySet>(
    run: RunRef,
    file: &str,
) -> Result<(String, String), String> {
    evalboard_report::run_outputs_in::<FAMILIES>(run)
        .ok_or_else(|| format!("{} runs have no exports here", run.family().label()))?
        .files
        .into_iter()
        .find(|(path, _)| path == file)
        .map(|(path, text)| (download_name(&path), text))
        .ok_or_else(|| format!("unknown export {file:?}"))
}

/// The dashboard's HTML report (the Export tab's `report.html`): `runs`, each compared with the
/// first of `baselines` when there is one, through the report function `evalboard report` calls
/// ([`render_report_in`]) — with two runs or more against a baseline, `report --baseline B
/// RUN...`'s many-runs section, the other `baselines` being the baseline's companions of other
/// tasks (the All runs tab's pinned log and the other logs of its folder); each `(run, its
/// files' provenance)`. `scorer` judges the many-runs section (the tab's "Judged by").
pub fn report_in<const FAMILIES: FamilySet>(
    runs: Vec<(RunRef, &[FileProvenance])>,
    baselines: Vec<(RunRef, &[FileProvenance])>,
    (generated_at, scorer): (String, Option<String>),
    human: Option<evalboard_report::html::HumanMarks>,
) -> String {
    let files: Vec<FileProvenance> = runs
        .iter()
        .chain(&baselines)
        .flat_map(|(_, f)| f.iter().cloned())
        .collect();
    let mut baselines = baselines.into_iter().map(|b| b.0);
    render_report_in::<FAMILIES>(&ReportInput {
        runs: runs.into_iter().map(|r| r.0).collect(),
        baseline: baselines.next(),
        task_baselines: baselines.collect(),
        provenance: Provenance {
            generated_at,
            generator: "evalboard dashboard".into(),
            files,
        },
        options: HtmlOptions {
            scorer,
            ..HtmlOptions::default()
        },
        human,
    })
}
