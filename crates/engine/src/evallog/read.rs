//! Reading a folder of evaluation-tool logs: every file is sniffed, each log (an Inspect log, an
//! lm-eval results file with its samples files, a promptfoo export, an OpenAI Evals record file,
//! a HELM run folder) becomes one run, and every file is accounted for (an lm-eval file's report
//! line says how it was paired, [`super::lm_eval_pair`]).

use crate::accounting::{status_of, FileStatus, InputFileReport, LoadError};
use crate::diag::Diagnostic;
use crate::input::InputFile;

use super::model::EvalLogRun;
use super::sniff::{sniff, EvalLogFileKind};
use super::{
    eval_file, evalboard_rows, helm, inspect, lm_eval, lm_eval_pair, openai_evals, promptfoo,
};

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
    let mut out = Out {
        runs: &mut runs,
        reports: &mut reports,
        diagnostics: &mut diagnostics,
    };
    let pairing = lm_eval_pair::pair(&lm_results, &lm_samples);
    for run in &pairing.runs {
        let tasks: Vec<(&InputFile, &str)> = run
            .samples
            .iter()
            .map(|s| (s.file, s.task.as_str()))
            .collect();
        let group: Vec<&InputFile> = std::iter::once(run.results)
            .chain(run.samples.iter().map(|s| s.file))
            .collect();
        let notes: Vec<&str> = std::iter::once(run.note.as_str())
            .chain(run.samples.iter().map(|s| s.how.as_str()))
            .collect();
        let result = lm_eval::read_run(Some(run.results), &tasks);
        out.group_noted(&group, result, &kinds, files, &notes);
    }
    // Samples files of a task no results file records (alone, as the Open LLM Leaderboard's
    // details datasets publish them): each folder and date id is a run, every metric
    // recomputed, none recorded. One a results file nearly took (a tie, a second samples file
    // of its task) stays skipped.
    let lone: Vec<&InputFile> = pairing
        .unmatched
        .iter()
        .filter(|u| u.near.is_none())
        .map(|u| u.file)
        .collect();
    for group in lm_eval_pair::lone_runs(&lone) {
        let tasks: Vec<String> = group.iter().map(|f| lm_eval_pair::own_task(f)).collect();
        let pairs: Vec<(&InputFile, &str)> = group
            .iter()
            .copied()
            .zip(tasks.iter().map(String::as_str))
            .collect();
        let notes: Vec<String> = tasks
            .iter()
            .map(|t| {
                format!(
                    "lm-eval samples of task {t} (by its file name), read without a results \
                     file (none records {t}): every metric recomputed, none recorded"
                )
            })
            .collect();
        let notes: Vec<&str> = notes.iter().map(String::as_str).collect();
        let result = lm_eval::read_run(None, &pairs);
        out.group_noted(&group, result, &kinds, files, &notes);
    }
    for u in pairing.unmatched.iter().filter(|u| u.near.is_some()) {
        out.reports.push(InputFileReport::new(
            u.file,
            Some(EvalLogFileKind::LmEvalSamples.label()),
            FileStatus::Skipped,
            Some(u.why.clone()),
        ));
    }
    // HELM: the run and summary files of one folder = one run.
    let mut helm_claimed: Vec<&str> = Vec::new();
    for group in helm_folders(files, &kinds) {
        helm_claimed.extend(group.iter().map(|f| f.path.as_str()));
        let (summaries, read): (Vec<&InputFile>, Vec<&InputFile>) = group
            .into_iter()
            .partition(|f| helm::SUMMARY_FILES.contains(&f.file_name()));
        for f in summaries {
            out.reports.push(InputFileReport::new(
                f,
                Some(EvalLogFileKind::HelmRunFile.label()),
                FileStatus::Skipped,
                Some(helm::SUMMARY_SKIP.into()),
            ));
        }
        let result = helm::read_run(&read);
        out.group(&read, result, &kinds, files);
    }
    for (f, kind) in files.iter().zip(&kinds) {
        let result = match kind {
            Some(EvalLogFileKind::InspectEval) => eval_file::read_eval(f),
            Some(EvalLogFileKind::InspectJson) => inspect::read_json(f),
            Some(EvalLogFileKind::PromptfooJson) => promptfoo::read_json(f),
            Some(EvalLogFileKind::PromptfooJsonl) => promptfoo::read_jsonl(f),
            Some(EvalLogFileKind::OpenaiEvalsJsonl) => openai_evals::read(f),
            Some(EvalLogFileKind::EvalboardRows) => evalboard_rows::read(f),
            Some(EvalLogFileKind::LmEvalResults) => continue,
            _ if helm_claimed.contains(&f.path.as_str()) => continue,
            // Reported with their results file, or as unmatched, above.
            Some(EvalLogFileKind::LmEvalSamples) => continue,
            Some(EvalLogFileKind::HelmRunFile) => continue,
            None => {
                out.reports.push(InputFileReport::new(
                    f,
                    None,
                    FileStatus::Skipped,
                    Some("not a log of a supported evaluation tool".into()),
                ));
                continue;
            }
        };
        out.group(&[f], result, &kinds, files);
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

type ReadResult = Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>>;

/// Where a read's runs, file reports and diagnostics go.
struct Out<'a> {
    runs: &'a mut Vec<EvalLogRun>,
    reports: &'a mut Vec<InputFileReport>,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl Out<'_> {
    /// A run read from several files: each file's status from its own diagnostics (all skipped,
    /// with the first reason, when the run could not be read).
    fn group(
        &mut self,
        group: &[&InputFile],
        result: ReadResult,
        kinds: &[Option<EvalLogFileKind>],
        files: &[InputFile],
    ) {
        self.group_noted(group, result, kinds, files, &[]);
    }

    /// [`Out::group`], each file's reason led by its note (how it was matched to the others),
    /// `notes` in `group`'s order.
    fn group_noted(
        &mut self,
        group: &[&InputFile],
        result: ReadResult,
        kinds: &[Option<EvalLogFileKind>],
        files: &[InputFile],
        notes: &[&str],
    ) {
        match result {
            Ok((mut run, diags)) => {
                run.explain_not_recomputed();
                for (i, f) in group.iter().enumerate() {
                    let own: Vec<Diagnostic> =
                        diags.iter().filter(|d| d.file == f.path).cloned().collect();
                    let (status, problems) = status_of(&own);
                    let reason = match (notes.get(i), problems) {
                        (Some(note), Some(p)) => Some(format!("{note}; {p}")),
                        (Some(note), None) => Some(note.to_string()),
                        (None, p) => p,
                    };
                    self.reports.push(InputFileReport::new(
                        f,
                        Some(label(f, kinds, files)),
                        status,
                        reason,
                    ));
                }
                self.diagnostics.extend(diags);
                self.runs.push(run);
            }
            Err(diags) => {
                for f in group {
                    self.reports.push(InputFileReport::new(
                        f,
                        Some(label(f, kinds, files)),
                        FileStatus::Skipped,
                        diags.first().map(|d| d.message.clone()),
                    ));
                }
                self.diagnostics.extend(diags);
            }
        }
    }
}

/// The HELM run folders among `files`: per folder holding a file sniffed as a HELM run file,
/// its run and summary files (`stats.json`, `instances.json`, … are claimed by name there).
pub fn helm_folders<'a>(
    files: &'a [InputFile],
    kinds: &[Option<EvalLogFileKind>],
) -> Vec<Vec<&'a InputFile>> {
    let mut dirs: Vec<&str> = files
        .iter()
        .zip(kinds)
        .filter(|(_, k)| **k == Some(EvalLogFileKind::HelmRunFile))
        .map(|(f, _)| helm::dir_of(&f.path))
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    dirs.into_iter()
        .map(|d| {
            files
                .iter()
                .zip(kinds)
                .filter(|(f, k)| {
                    helm::in_run_folder(f, d)
                        && matches!(k, None | Some(EvalLogFileKind::HelmRunFile))
                })
                .map(|(f, _)| f)
                .collect()
        })
        .collect()
}

fn label(f: &InputFile, kinds: &[Option<EvalLogFileKind>], files: &[InputFile]) -> &'static str {
    files
        .iter()
        .position(|g| std::ptr::eq(g, f))
        .and_then(|i| kinds.get(i).copied().flatten())
        .map(|k| k.label())
        .unwrap_or(EvalLogFileKind::HelmRunFile.label())
}
