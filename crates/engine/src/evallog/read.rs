//! Reading a folder of evaluation-tool logs: every file is sniffed, each log (or lm-eval results
//! file with its samples files) becomes one run, and every file is accounted for.

use crate::accounting::{status_of, FileStatus, InputFileReport, LoadError};
use crate::diag::Diagnostic;
use crate::input::InputFile;

use super::model::EvalLogRun;
use super::sniff::{sniff, EvalLogFileKind};
use super::{inspect, lm_eval};

/// What a folder of logs gave: the runs, every file's status, and the diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalLogRead {
    pub runs: Vec<EvalLogRun>,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads every recognised log in `files`. `Err` only when no run could be read at all.
pub fn read(files: &[InputFile]) -> Result<EvalLogRead, LoadError> {
    let mut runs = Vec::new();
    let mut reports = Vec::new();
    let mut diagnostics = Vec::new();
    let kinds: Vec<Option<EvalLogFileKind>> = files.iter().map(sniff).collect();
    // lm-eval: one results file with the samples files of the same folder and date = one run.
    let lm_results: Vec<&InputFile> = files
        .iter()
        .zip(&kinds)
        .filter(|(_, k)| **k == Some(EvalLogFileKind::LmEvalResults))
        .map(|(f, _)| f)
        .collect();
    let lm_samples: Vec<&InputFile> = files
        .iter()
        .zip(&kinds)
        .filter(|(_, k)| **k == Some(EvalLogFileKind::LmEvalSamples))
        .map(|(f, _)| f)
        .collect();
    let mut lm_claimed: Vec<&str> = Vec::new();
    for results in &lm_results {
        let mine = lm_eval::samples_of(results, &lm_samples);
        lm_claimed.extend(mine.iter().map(|f| f.path.as_str()));
        match lm_eval::read_run(results, &mine) {
            Ok((run, diags)) => {
                for f in std::iter::once(*results).chain(mine.iter().copied()) {
                    let own: Vec<Diagnostic> =
                        diags.iter().filter(|d| d.file == f.path).cloned().collect();
                    let (status, reason) = status_of(&own);
                    reports.push(InputFileReport::new(
                        f,
                        Some(label(f, &kinds, files)),
                        status,
                        reason,
                    ));
                }
                diagnostics.extend(diags);
                runs.push(run);
            }
            Err(diags) => {
                for f in std::iter::once(*results).chain(mine.iter().copied()) {
                    reports.push(InputFileReport::new(
                        f,
                        Some(label(f, &kinds, files)),
                        FileStatus::Skipped,
                        diags.first().map(|d| d.message.clone()),
                    ));
                }
                diagnostics.extend(diags);
            }
        }
    }
    for (f, kind) in files.iter().zip(&kinds) {
        let result = match kind {
            Some(EvalLogFileKind::InspectEval) => inspect::read_eval(f),
            Some(EvalLogFileKind::InspectJson) => inspect::read_json(f),
            Some(EvalLogFileKind::LmEvalResults) => continue,
            Some(EvalLogFileKind::LmEvalSamples) => {
                if !lm_claimed.contains(&f.path.as_str()) {
                    reports.push(InputFileReport::new(
                        f,
                        Some(EvalLogFileKind::LmEvalSamples.label()),
                        FileStatus::Skipped,
                        Some("lm-eval samples file without its results_<date>.json".into()),
                    ));
                }
                continue;
            }
            Some(other) => {
                reports.push(InputFileReport::new(
                    f,
                    Some(other.label()),
                    FileStatus::Skipped,
                    Some(format!(
                        "{} files are recognised but not read yet",
                        other.label()
                    )),
                ));
                continue;
            }
            None => {
                reports.push(InputFileReport::new(
                    f,
                    None,
                    FileStatus::Skipped,
                    Some("not a log of a supported evaluation tool".into()),
                ));
                continue;
            }
        };
        let label = kind.map(|k| k.label());
        match result {
            Ok((run, diags)) => {
                let (status, reason) = status_of(&diags);
                reports.push(InputFileReport::new(f, label, status, reason));
                diagnostics.extend(diags);
                runs.push(run);
            }
            Err(diags) => {
                reports.push(InputFileReport::new(
                    f,
                    label,
                    FileStatus::Skipped,
                    diags.first().map(|d| d.message.clone()),
                ));
                diagnostics.extend(diags);
            }
        }
    }
    if runs.is_empty() {
        return Err(LoadError {
            message: "no evaluation-tool log could be read".into(),
            files: reports,
            diagnostics,
        });
    }
    Ok(EvalLogRead {
        runs,
        files: reports,
        diagnostics,
    })
}

fn label(f: &InputFile, kinds: &[Option<EvalLogFileKind>], files: &[InputFile]) -> &'static str {
    files
        .iter()
        .position(|g| std::ptr::eq(g, f))
        .and_then(|i| kinds.get(i).copied().flatten())
        .map(|k| k.label())
        .unwrap_or("unknown")
}
