//! Content detection for the eval-set family: which of its file shapes a file is, if any.
//!
//! A whole-file JSON object is checked for the document shapes (eval summary, run manifest) and
//! then, as a one-line JSONL, for the line shapes. Otherwise the first few non-blank lines are
//! tried in order and the first JSON object among them decides. The path is not used to decide
//! (content wins); it is accepted so callers can sniff any file uniformly.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a file of this family was recognised as, by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalsetFileKind {
    /// Eval set JSONL: `{id, prompt, expected_answer, section?, category?, difficulty?}`.
    EvalSet,
    /// The judge's prediction contract: `{id | trace_id, prediction}`.
    Predictions,
    /// Research eval output: `{id, prompt, expected_answer, predicted_answer, ..., correct}`.
    ResearchPredictions,
    /// Observer (error-detector) output: `{id, prompt, expected_answer, generated_answer, ...}`;
    /// its `correct` grades the observer's label, not the answer.
    ObserverPredictions,
    /// Trace format: `{trace_version, prompt, final_answer, steps[], meta{eval_id, model, ...}}`.
    TracePredictions,
    /// The per-item artifact schema: `{item_id, expected, predicted, correctness, eval_time_ms}`.
    ItemPredictions,
    /// `eval_summary.json`: a research batch summary or a submission summary.
    EvalSummary,
    /// Training `metrics.jsonl`: `{step, loss, timestamp, metrics{...}}`.
    TrainingMetrics,
    /// A run manifest: `{run_version | run_id, model_id, dataset, eval_set, config_path, ...}`.
    RunManifest,
}

impl EvalsetFileKind {
    /// The label used in file reports.
    pub fn label(self) -> &'static str {
        match self {
            EvalsetFileKind::EvalSet => "evalset",
            EvalsetFileKind::Predictions => "evalset-predictions",
            EvalsetFileKind::ResearchPredictions => "evalset-research-predictions",
            EvalsetFileKind::ObserverPredictions => "evalset-observer-predictions",
            EvalsetFileKind::TracePredictions => "evalset-trace-predictions",
            EvalsetFileKind::ItemPredictions => "evalset-item-predictions",
            EvalsetFileKind::EvalSummary => "evalset-summary",
            EvalsetFileKind::TrainingMetrics => "training-metrics",
            EvalsetFileKind::RunManifest => "run-manifest",
        }
    }

    /// Files that carry per-item predictions.
    pub fn is_predictions(self) -> bool {
        matches!(
            self,
            EvalsetFileKind::Predictions
                | EvalsetFileKind::ResearchPredictions
                | EvalsetFileKind::ObserverPredictions
                | EvalsetFileKind::TracePredictions
                | EvalsetFileKind::ItemPredictions
        )
    }
}

/// How many non-blank lines are tried before giving up on a JSONL file whose first lines are
/// broken.
const SNIFF_LINES: usize = 5;

/// Detects the eval-set family's file kinds by content. `None`: not a file of this family.
pub fn sniff(path: &str, bytes: &[u8]) -> Option<EvalsetFileKind> {
    let _ = path;
    let body = strip_bom(bytes);
    if let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(body) {
        return classify_document(&obj).or_else(|| classify_line(&obj));
    }
    body.split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(SNIFF_LINES)
        .find_map(|l| match serde_json::from_slice::<Value>(l) {
            Ok(Value::Object(obj)) => Some(classify_line(&obj)),
            _ => None,
        })
        .flatten()
}

pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

fn has(obj: &Map<String, Value>, key: &str) -> bool {
    obj.contains_key(key)
}

/// Whole-file JSON documents: eval summaries and run manifests.
pub(crate) fn classify_document(obj: &Map<String, Value>) -> Option<EvalsetFileKind> {
    // Research batch summary: results{name: {accuracy, checkpoint_name, total_examples, ...}}.
    if let Some(Value::Object(results)) = obj.get("results") {
        let looks = results.values().any(|r| match r {
            Value::Object(r) => ["accuracy", "checkpoint_name", "total_examples", "correct"]
                .iter()
                .any(|k| r.contains_key(*k)),
            _ => false,
        });
        if looks {
            return Some(EvalsetFileKind::EvalSummary);
        }
    }
    // Submission summary: primary_score / scorecard / metrics.answer_correctness.
    let metrics_ac = matches!(obj.get("metrics"), Some(Value::Object(m)) if m.contains_key("answer_correctness"));
    if has(obj, "primary_score")
        || matches!(obj.get("scorecard"), Some(Value::Object(_)))
        || metrics_ac
    {
        return Some(EvalsetFileKind::EvalSummary);
    }
    // Run manifest: an identity plus something describing the run.
    if has(obj, "run_version") || has(obj, "run_id") {
        let described = [
            "model_id",
            "command",
            "config_path",
            "dataset",
            "eval_set",
            "status",
            "config",
            "hardware",
        ]
        .iter()
        .any(|k| has(obj, k));
        if described {
            return Some(EvalsetFileKind::RunManifest);
        }
    }
    None
}

/// One JSONL object: which line shape it is.
pub(crate) fn classify_line(obj: &Map<String, Value>) -> Option<EvalsetFileKind> {
    if has(obj, "trace_version") && (has(obj, "final_answer") || has(obj, "steps")) {
        return Some(EvalsetFileKind::TracePredictions);
    }
    if has(obj, "item_id")
        && ["predicted", "correctness", "expected"]
            .iter()
            .any(|k| has(obj, k))
    {
        return Some(EvalsetFileKind::ItemPredictions);
    }
    if has(obj, "predicted_answer") {
        return Some(EvalsetFileKind::ResearchPredictions);
    }
    if has(obj, "generated_answer") && has(obj, "expected_answer") {
        return Some(EvalsetFileKind::ObserverPredictions);
    }
    if has(obj, "prediction") && (has(obj, "id") || has(obj, "trace_id")) {
        return Some(EvalsetFileKind::Predictions);
    }
    if has(obj, "id") && has(obj, "prompt") && has(obj, "expected_answer") {
        return Some(EvalsetFileKind::EvalSet);
    }
    if has(obj, "step")
        && (has(obj, "loss") || matches!(obj.get("metrics"), Some(Value::Object(_))))
    {
        return Some(EvalsetFileKind::TrainingMetrics);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use EvalsetFileKind::*;

    fn check(input: &str, expected: Option<EvalsetFileKind>) {
        assert_eq!(sniff("x", input.as_bytes()), expected, "{input}");
    }

    #[test]
    fn detects_every_shape() {
        check(
            r#"{"id": "e1", "prompt": "p", "expected_answer": "42", "category": "a", "difficulty": "easy"}"#,
            Some(EvalSet),
        );
        check(r#"{"id": "e1", "prediction": "42"}"#, Some(Predictions));
        check(
            r#"{"trace_id": "e1", "prediction": null}"#,
            Some(Predictions),
        );
        check(
            r#"{"id": "e1", "prompt": "p", "expected_answer": "42", "predicted_answer": "x", "correct": false}"#,
            Some(ResearchPredictions),
        );
        check(
            r#"{"id": "e1", "prompt": "p", "expected_answer": "42", "generated_answer": "x", "correct": false}"#,
            Some(ObserverPredictions),
        );
        check(
            r#"{"trace_version": "1.0", "prompt": "p", "final_answer": "x", "steps": [], "meta": {"eval_id": "e1"}}"#,
            Some(TracePredictions),
        );
        check(
            r#"{"item_id": "e1", "expected": "42", "predicted": "42", "correctness": 1.0, "eval_time_ms": 3}"#,
            Some(ItemPredictions),
        );
        check(
            r#"{"step": 1, "loss": 0.5, "metrics": {}}"#,
            Some(TrainingMetrics),
        );
        check(
            r#"{"results": {"a": {"accuracy": 0.0, "correct": 0}}, "total_examples": 100}"#,
            Some(EvalSummary),
        );
        check(
            r#"{"run_version": "m36_v1", "primary_score": null, "scorecard": {}}"#,
            Some(EvalSummary),
        );
        check(
            r#"{"run_version": "m36_v1", "model_id": "gemma", "command": "python x"}"#,
            Some(RunManifest),
        );
        check(
            r#"{"run_id": "m39", "status": "completed"}"#,
            Some(RunManifest),
        );
    }

    #[test]
    fn skips_broken_first_lines_and_bom() {
        check(
            "\u{feff}{\"id\": \"e1\", \"prediction\": \"x\"}\n",
            Some(Predictions),
        );
        check(
            "not json\n\n{\"id\": \"e1\", \"prediction\": \"x\"}\n",
            Some(Predictions),
        );
        check(
            "{\"id\": \"e1\", \"prediction\": \"x\"}\r\n{\"id\": \"e2\"\r\n",
            Some(Predictions),
        );
    }

    #[test]
    fn rejects_other_files() {
        check("", None);
        check("[1, 2]", None);
        check(r#"{"dev": []}"#, None);
        check(r#"[{"id": "x", "predicted": ["EOF"]}]"#, None);
        check(r#"{"conversation_id": "c", "turn_idx": 0}"#, None);
        check(r#"{"run_version": "x"}"#, None);
        check("a,b,c\n1,2,3\n", None);
    }
}
