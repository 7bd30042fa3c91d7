//! Export of a run's output files, for any family: the same bytes as `evalboard score --out`
//! writes ([`evalboard_report::run_outputs`]).

use evalboard_engine::run::{FamilySet, RunRef, ALL_FAMILIES};

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
