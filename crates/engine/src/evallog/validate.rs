//! `evalboard validate` on evaluation-tool logs: a log's structural problems — what the readers
//! found (missing members, a log without its header, unreadable samples, truncation), a format
//! version evalboard does not know, sample counts that disagree with the header — as errors
//! (exit code 1) and warnings.

use serde::Serialize;

use crate::accounting::InputFileReport;
use crate::diag::{Diagnostic, Severity};
use crate::input::InputFile;

use super::model::{EvalLogRun, Tool};

/// The Inspect log format versions evalboard reads (`version` of the log: 1 before 2024's
/// archive format, 2 since).
pub const INSPECT_FORMAT_VERSIONS: [i64; 2] = [1, 2];

/// One log as `validate` reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogSummary {
    pub files: Vec<String>,
    pub tool: Tool,
    pub tool_version: Option<String>,
    pub format_version: Option<i64>,
    pub samples: usize,
    /// The header's sample count, when it has one.
    pub declared_samples: Option<u64>,
}

/// What `validate` found in a set of log files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogValidateReport {
    pub logs: Vec<LogSummary>,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    /// Every file's status, with its reason (how an lm-eval samples file was matched to its
    /// results file, why a file was skipped).
    pub files: Vec<InputFileReport>,
}

impl LogValidateReport {
    /// 0 without errors, 1 with.
    pub fn exit_code(&self) -> i32 {
        i32::from(!self.errors.is_empty())
    }
}

/// The structural problems of one run, beyond what its reader said.
fn run_problems(run: &EvalLogRun) -> Vec<Diagnostic> {
    let file = run.files.first().cloned().unwrap_or_default();
    let mut out = Vec::new();
    if run.tool == Tool::InspectAi {
        match run.format_version {
            Some(v) if !INSPECT_FORMAT_VERSIONS.contains(&v) => out.push(Diagnostic::error(
                file.as_str(),
                None,
                format!(
                    "unknown Inspect log format version {v} (evalboard reads versions {})",
                    INSPECT_FORMAT_VERSIONS.map(|v| v.to_string()).join(" and ")
                ),
            )),
            None => out.push(Diagnostic::warning(
                file.as_str(),
                None,
                "the log records no format version",
            )),
            Some(_) => {}
        }
    }
    if let Some(declared) = run.declared_samples {
        let read = run.samples.len() as u64;
        if declared != read {
            out.push(Diagnostic::error(
                file.as_str(),
                None,
                format!(
                    "the header declares {declared} samples (samples × epochs) but {read} {} read",
                    if read == 1 { "was" } else { "were" }
                ),
            ));
        }
    }
    out
}

/// Reads `files` as logs and reports their structural problems.
pub fn validate_logs(files: &[InputFile]) -> LogValidateReport {
    let (runs, diagnostics, reports) = match super::read(files) {
        Ok(r) => (r.runs, r.diagnostics, r.files),
        Err(e) => {
            let mut d = e.diagnostics;
            if !d.iter().any(|d| d.severity == Severity::Error) {
                d.push(Diagnostic::error(
                    files.first().map(|f| f.path.as_str()).unwrap_or_default(),
                    None,
                    e.message,
                ));
            }
            (Vec::new(), d, e.files)
        }
    };
    let mut all = diagnostics;
    let mut logs = Vec::new();
    for run in &runs {
        all.extend(run_problems(run));
        logs.push(LogSummary {
            files: run.files.clone(),
            tool: run.tool,
            tool_version: run.tool_version.clone(),
            format_version: run.format_version,
            samples: run.samples.len(),
            declared_samples: run.declared_samples,
        });
    }
    let (errors, warnings) = all
        .into_iter()
        .partition(|d: &Diagnostic| d.severity == Severity::Error);
    LogValidateReport {
        logs,
        errors,
        warnings,
        files: reports,
    }
}
