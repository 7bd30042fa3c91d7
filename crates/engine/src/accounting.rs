//! File accounting, shared by every family: each input file ends up parsed, partly parsed (with
//! diagnostics) or skipped with a reason, so nothing is dropped silently; and the error of a
//! load that found nothing usable.

use serde::{Deserialize, Serialize};

use crate::diag::{Diagnostic, Severity};
use crate::input::InputFile;

/// How one input file was handled. Nothing is dropped silently: every file gets one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Parsed,
    PartlyParsed,
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputFileReport {
    pub path: String,
    pub bytes: u64,
    /// The format it was recognised as (`fa2-trace`, `fa2-results`, `qa-jsonl`, `convfinqa-dataset`...).
    pub format: Option<String>,
    pub status: FileStatus,
    /// Why the file was skipped or only partly parsed; for a file read with others as one log
    /// (an lm-eval results file and its samples files), how it was matched to them first.
    pub reason: Option<String>,
}

impl InputFileReport {
    /// The report of `f`, recognised as `format` (a family's file-kind label) or not at all.
    pub fn new(
        f: &InputFile,
        format: Option<&str>,
        status: FileStatus,
        reason: Option<String>,
    ) -> InputFileReport {
        InputFileReport {
            path: f.path.clone(),
            bytes: f.bytes.len() as u64,
            format: format.map(str::to_string),
            status,
            reason,
        }
    }
}

/// Why nothing in the folder could be scored.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub message: String,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Status of a file that was read, from the diagnostics its reader returned: parsed, or partly
/// parsed with the number of errors and the first one as the reason.
pub fn status_of(diags: &[Diagnostic]) -> (FileStatus, Option<String>) {
    let errors: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    match errors.first() {
        None => (FileStatus::Parsed, None),
        Some(first) => (
            FileStatus::PartlyParsed,
            Some(format!(
                "{} problem{}; first: {}",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" },
                first.message
            )),
        ),
    }
}
