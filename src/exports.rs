//! Export of the current run's output files (same bytes as the CLI's `--out`): numeric QA
//! runs' statistics.json and CSVs, eval-set runs' scorecard.json and predictions.jsonl.

use evalboard_engine::scorers::ScoredQaRun;

pub fn export(s: &ScoredQaRun, file: &str) -> Result<String, String> {
    let out = evalboard_report::outputs::qa_outputs(s);
    out.file(file)
        .map(str::to_string)
        .ok_or_else(|| format!("unknown export {file:?}"))
}

/// One output file of a numeric QA run or an eval-set run (`scorecard.json`,
/// `predictions.jsonl`, as `evalboard score --out` writes them); `None` when neither is given.
pub fn export_run(
    qa: Option<&ScoredQaRun>,
    evalset: Option<&evalboard_engine::evalset::ScoredRun>,
    file: &str,
) -> Option<Result<String, String>> {
    if let Some(s) = qa {
        return Some(export(s, file));
    }
    let s = evalset?;
    Some(
        evalboard_report::evalset_files(s)
            .into_iter()
            .find(|(name, _)| name == file)
            .map(|(_, text)| text)
            .ok_or_else(|| format!("{file} is not available for this run")),
    )
}
