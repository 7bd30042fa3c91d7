//! What kind of evaluation-tool file a file is, by content: a look at its start (its first line
//! whole, 64 KiB of it otherwise), whatever its name (HELM's run files, named by the tool, are
//! the exception). Which lm-eval samples file goes with which results file is
//! [`super::lm_eval_pair`]'s, by content too.

use serde::{Deserialize, Serialize};

use crate::input::InputFile;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalLogFileKind {
    /// Inspect `.eval` zip (`PK\x03\x04`).
    InspectEval,
    /// Inspect `.json` log (an object with `version`, `eval`, …).
    InspectJson,
    /// An lm-evaluation-harness results file (`results_<date>.json`, `results.json`, renamed):
    /// an object with `results` and `configs`.
    LmEvalResults,
    /// An lm-evaluation-harness samples file (`samples_<task>_<date>.jsonl`, renamed): JSON
    /// lines, or one JSON array (before v0.4.3), of rows with `doc_id` and `resps`, `doc`, …
    LmEvalSamples,
    /// promptfoo `-o x.json` output (`evalId`, `results.version`).
    PromptfooJson,
    /// promptfoo `-o x.jsonl` output (rows with `promptIdx`, `testIdx`).
    PromptfooJsonl,
    /// OpenAI Evals record JSONL (`{"spec": …}`, events, `final_report`).
    OpenaiEvalsJsonl,
    /// A file of a HELM run folder (`run_spec.json`, `scenario_state.json`, …).
    HelmRunFile,
    /// evalboard's own run rows (`{"evalboard_rows": 1, …}` first): a run read from a lake.
    EvalboardRows,
}

impl EvalLogFileKind {
    pub fn label(&self) -> &'static str {
        match self {
            EvalLogFileKind::InspectEval => "inspect-eval",
            EvalLogFileKind::InspectJson => "inspect-json",
            EvalLogFileKind::LmEvalResults => "lm-eval-results",
            EvalLogFileKind::LmEvalSamples => "lm-eval-samples",
            EvalLogFileKind::PromptfooJson => "promptfoo-json",
            EvalLogFileKind::PromptfooJsonl => "promptfoo-jsonl",
            EvalLogFileKind::OpenaiEvalsJsonl => "openai-evals-jsonl",
            EvalLogFileKind::HelmRunFile => "helm-run-file",
            EvalLogFileKind::EvalboardRows => "evalboard-rows",
        }
    }
}

fn has(hay: &[u8], needle: &str) -> bool {
    memchr::memmem::find(hay, needle.as_bytes()).is_some()
}

/// The first line of `text` (up to its first line feed, or all of it), without a trailing CR.
fn first_line(text: &[u8]) -> &[u8] {
    let line = memchr::memchr(b'\n', text)
        .and_then(|n| text.get(..n))
        .unwrap_or(text);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Whether `text` (a whole row, or the start of one) is an lm-eval samples row: `doc_id` and one
/// of `doc`, `resps`, `filtered_resps`, `filter` (`doc_id` and `doc` lead every row the harness
/// writes, so the start of a long one holds them).
fn is_lm_eval_row(text: &[u8]) -> bool {
    has(text, "\"doc_id\"")
        && ["\"doc\"", "\"resps\"", "\"filtered_resps\"", "\"filter\""]
            .iter()
            .any(|k| has(text, k))
}

/// The key of evalboard's run-rows header line ([`super::evalboard_rows`]).
pub const EVALBOARD_ROWS_KEY: &str = "evalboard_rows";

/// Whether `first_line` (a file's first line) is evalboard's run-rows header.
fn is_evalboard_rows(first_line: &[u8]) -> bool {
    first_line
        .trim_ascii_start()
        .strip_prefix(b"{")
        .and_then(|r| r.trim_ascii_start().strip_prefix(b"\""))
        .and_then(|r| r.strip_prefix(EVALBOARD_ROWS_KEY.as_bytes()))
        .is_some_and(|r| r.starts_with(b"\""))
}

/// The kind of `f`, or `None` when it is none of these tools' files.
pub fn sniff(f: &InputFile) -> Option<EvalLogFileKind> {
    let b = f.bytes.as_slice();
    if b.starts_with(b"PK\x03\x04") {
        let head = b.get(..b.len().min(1 << 16)).unwrap_or(b);
        return (f.path.ends_with(".eval") || has(head, "_journal/") || has(b, "header.json"))
            .then_some(EvalLogFileKind::InspectEval);
    }
    let name = f.file_name();
    let text = {
        let start = b
            .iter()
            .position(|c| !c.is_ascii_whitespace())
            .unwrap_or(b.len());
        b.get(start..).unwrap_or(&[])
    };
    let head = text.get(..text.len().min(1 << 16)).unwrap_or(text);
    if matches!(
        name,
        "run_spec.json" | "scenario_state.json" | "per_instance_stats.json" | "scenario.json"
    ) && text.starts_with(b"{")
        || name == "per_instance_stats.json" && text.starts_with(b"[")
    {
        return Some(EvalLogFileKind::HelmRunFile);
    }
    // The first record decides, whatever its length (a first row longer than `head` is still
    // one row): the first line of the whole text, a slice of the file, no copy.
    let first_line = first_line(text);
    if text.starts_with(b"{") {
        // Line-oriented formats first: their first line is a whole object.
        if name.ends_with(".jsonl") || first_line.ends_with(b"}") {
            if is_evalboard_rows(first_line) {
                return Some(EvalLogFileKind::EvalboardRows);
            }
            if is_lm_eval_row(first_line) {
                return Some(EvalLogFileKind::LmEvalSamples);
            }
            // A whole export written on one line (minified) is not a row of the JSONL form:
            // it has the summary's `prompts` and `stats` beside its rows.
            if has(first_line, "\"evalId\"")
                && has(first_line, "\"prompts\"")
                && has(first_line, "\"stats\"")
            {
                return Some(EvalLogFileKind::PromptfooJson);
            }
            if has(first_line, "\"promptIdx\"") && has(first_line, "\"testIdx\"") {
                return Some(EvalLogFileKind::PromptfooJsonl);
            }
            if first_line.starts_with(b"{\"spec\"")
                || first_line.starts_with(b"{\"final_report\"")
                || has(first_line, "\"event_id\"") && has(first_line, "\"run_id\"")
            {
                return Some(EvalLogFileKind::OpenaiEvalsJsonl);
            }
        }
        if has(head, "\"evalId\"") && has(b, "\"results\"") {
            return Some(EvalLogFileKind::PromptfooJson);
        }
        if has(head, "\"version\"")
            && has(head, "\"eval\"")
            && (has(head, "\"plan\"") || has(head, "\"task\""))
        {
            return Some(EvalLogFileKind::InspectJson);
        }
        if has(b, "\"results\"")
            && has(b, "\"configs\"")
            && (has(b, "\"n-shot\"") || has(b, "\"versions\""))
        {
            return Some(EvalLogFileKind::LmEvalResults);
        }
    }
    // lm-eval samples written as one JSON array of rows (v0.4.0–v0.4.2, and the 2024-05
    // `samples_<task>_<date>.json`), whatever the name: its first element's start.
    if let Some(rest) = text.strip_prefix(b"[") {
        let first = rest
            .iter()
            .position(|c| !c.is_ascii_whitespace())
            .and_then(|i| rest.get(i..))
            .unwrap_or_default();
        if first.starts_with(b"{") && is_lm_eval_row(head) {
            return Some(EvalLogFileKind::LmEvalSamples);
        }
    }
    None
}
