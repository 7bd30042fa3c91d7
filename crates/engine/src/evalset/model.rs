//! The eval-set family's model: eval-set items, predictions, eval summaries, training metrics,
//! run manifests, and the run they make once read and joined ([`EvalRun`]).

use serde::{Deserialize, Serialize};

use crate::accounting::InputFileReport;
use crate::diag::{Diagnostic, SourceRef};

/// One eval set item. `expected` is `None` when the source had no ground truth (trace-format
/// predictions without an attached eval set); such items cannot be scored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalItem {
    pub id: String,
    pub prompt: String,
    pub expected: Option<String>,
    pub section: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
    pub source: SourceRef,
}

/// One model output for one item, in any of the prediction shapes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub item_id: String,
    /// The model's answer text; `None` when the row had none (`null`), which scores 0 as a
    /// missing prediction.
    pub predicted: Option<String>,
    /// Why the item produced no answer (`crashed`, `timeout`, an error message), when recorded.
    pub failure: Option<String>,
    /// The correctness the original system wrote (research `correct`, per-item `correctness`),
    /// kept as "as originally scored"; never used as the source of truth.
    pub original_correct: Option<f64>,
    pub eval_time_ms: Option<u64>,
    /// Item metadata carried by the prediction row itself; it wins over the eval set's, as in the
    /// seed system's `compute_scorecard`.
    pub section: Option<String>,
    pub category: Option<String>,
    pub difficulty: Option<String>,
    pub source: SourceRef,
}

/// Per-section tally of an original summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SummarySection {
    pub name: String,
    pub n_items: Option<u64>,
    pub n_correct: Option<u64>,
    pub accuracy: Option<f64>,
}

/// One scored checkpoint/run inside an eval summary, as originally scored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryEntry {
    /// `results` key (research batch) or `run_version` (submission summary).
    pub name: String,
    /// `accuracy` (research) or `primary_score` / `metrics.answer_correctness` (submission).
    pub accuracy: Option<f64>,
    pub n_correct: Option<u64>,
    pub n_items: Option<u64>,
    pub runtime_seconds: Option<f64>,
    /// The predictions file it wrote (`output_file` / `predictions_path`), as recorded.
    pub output_file: Option<String>,
    /// The error recorded instead of results, when evaluation failed.
    pub error: Option<String>,
    pub sections: Vec<SummarySection>,
}

/// An `eval_summary.json`, kept as "as originally scored".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalSummary {
    pub file: String,
    pub eval_set: Option<String>,
    pub n_items: Option<u64>,
    pub entries: Vec<SummaryEntry>,
    /// The file's JSON, verbatim.
    pub original: serde_json::Value,
}

/// One line of a training `metrics.jsonl`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingMetricPoint {
    pub step: Option<u64>,
    pub loss: Option<f64>,
    pub timestamp: Option<String>,
    /// Numeric entries of `metrics{...}` in file order (`train_runtime`, `epoch`, ...).
    pub metrics: Vec<(String, f64)>,
    pub source: SourceRef,
}

/// A run manifest: what was trained, on what, with which command.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    pub file: String,
    pub run_version: Option<String>,
    pub run_id: Option<String>,
    /// `model_id`, else `config.model_id`.
    pub model_id: Option<String>,
    pub dataset: Option<String>,
    pub eval_set: Option<String>,
    pub config_path: Option<String>,
    pub command: Option<String>,
    /// `status` (`completed`, `failed`, `timeout`, ...), when recorded.
    pub status: Option<String>,
    /// The file's JSON, verbatim.
    pub original: serde_json::Value,
}

impl RunManifest {
    /// The run's failure status (`failed`, `crashed`, `timeout`, `cancelled`, `error`), if any.
    pub fn failure_status(&self) -> Option<&str> {
        let s = self.status.as_deref()?;
        let l = s.trim().to_ascii_lowercase();
        matches!(
            l.as_str(),
            "failed" | "failure" | "crashed" | "timeout" | "timed_out" | "cancelled" | "error"
        )
        .then_some(s)
    }
}

/// An answer-correctness run, read and joined, ready to score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalRun {
    /// Manifest `run_version`/`run_id`, else the first predictions file's name without
    /// `_predictions.jsonl`, else `run`. Callers may overwrite it.
    pub name: String,
    /// The eval set: attached, else read from the folder, else embedded in prediction rows.
    pub items: Vec<EvalItem>,
    /// At most one per item id (first wins), in file path then line order.
    pub predictions: Vec<Prediction>,
    /// Every eval summary found, in path order.
    pub summaries: Vec<EvalSummary>,
    /// Training metric lines, ordered by step (lines without a step last), then file order.
    pub training_metrics: Vec<TrainingMetricPoint>,
    pub manifest: Option<RunManifest>,
    /// The model: manifest `model_id`, else trace `meta.model`.
    pub model: Option<String>,
    /// Names of the files that carried predictions (for matching summary entries).
    pub prediction_files: Vec<String>,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
    /// `evalboard validate` of every eval-set file among the inputs, in input order.
    #[serde(skip)]
    pub validation: Vec<ValidationDto>,
}

/// `evalboard validate` of one dropped eval set file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationDto {
    pub file: String,
    pub items: u64,
    /// `line N: message` (or just the message).
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    /// (dimension, [(label, count)]).
    pub composition: Vec<(String, Vec<(String, u64)>)>,
}

impl EvalRun {
    /// The run holds something to show: eval-set items, predictions or an eval summary.
    pub fn is_usable(&self) -> bool {
        !(self.items.is_empty() && self.predictions.is_empty() && self.summaries.is_empty())
    }

    /// The summary entry that scored this run originally: the only entry of the only summary,
    /// else the entry whose recorded `output_file` names one of this run's prediction files (by
    /// file name or `_`-separated suffix), else the entry named like the run.
    pub fn original_entry(&self) -> Option<&SummaryEntry> {
        let all: Vec<&SummaryEntry> = self.summaries.iter().flat_map(|s| &s.entries).collect();
        if let [only] = all.as_slice() {
            return Some(only);
        }
        let by_file = all.iter().find(|e| {
            let Some(out) = e.output_file.as_deref() else {
                return false;
            };
            let base = out.rsplit(['/', '\\']).next().unwrap_or(out);
            !base.is_empty()
                && self.prediction_files.iter().any(|p| {
                    let name = p.rsplit('/').next().unwrap_or(p);
                    name == base
                        || name
                            .strip_suffix(base)
                            .is_some_and(|head| head.ends_with('_'))
                })
        });
        by_file
            .or_else(|| all.iter().find(|e| e.name == self.name))
            .copied()
    }
}
