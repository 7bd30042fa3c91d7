//! Export of the current run's output files (same bytes as the CLI's `--out`).

use evalboard_engine::scorers::ScoredQaRun;

pub fn export(s: &ScoredQaRun, file: &str) -> Result<String, String> {
    let out = evalboard_report::outputs::qa_outputs(s);
    out.file(file)
        .map(str::to_string)
        .ok_or_else(|| format!("unknown export {file:?}"))
}
