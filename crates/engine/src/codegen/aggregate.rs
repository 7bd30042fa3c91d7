//! `metrics_summary.json` recomputed from entries: the seed system's `save_evaluation_metrics`
//! summary (ise547) or its doc-v1 reading. Works on [`EntryScores`], which both freshly scored
//! entries and entries read back from a `metrics.json` reduce to.

use serde::{Deserialize, Serialize};

use super::dto::{Counts, MetricsEntry, MetricsSummaryFile, Summary};
use super::score::Profile;

/// What the summary reads from one entry, with Python's `.get(key, default)` already applied
/// for ise547 (a missing score is `None` here; ise547 averages it as 0, doc-v1 skips it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntryScores {
    /// `None` when the entry has no model (the seed system counted it as "unknown").
    pub model: Option<String>,
    pub timestamp: Option<String>,
    pub overall_score: Option<f64>,
    pub correctness_score: Option<f64>,
    pub quality_score: Option<f64>,
    pub performance_score: Option<f64>,
    pub understanding_score: Option<f64>,
    pub coverage_score: Option<f64>,
    pub recovery_score: Option<f64>,
    pub execution_time_seconds: Option<f64>,
    pub time_notation: Option<String>,
    pub space_notation: Option<String>,
    pub execution_success: bool,
    pub has_error: bool,
    pub recovery_success: bool,
    pub recovery_attempts_count: u64,
}

impl EntryScores {
    pub fn from_entry(e: &MetricsEntry) -> EntryScores {
        EntryScores {
            model: Some(e.model.clone()),
            timestamp: e.timestamp.clone(),
            overall_score: e.overall_score,
            correctness_score: e.code_correctness.correctness_score,
            quality_score: e.code_quality.quality_score,
            performance_score: Some(e.performance.performance_score),
            understanding_score: Some(e.prompt_understanding.understanding_score),
            coverage_score: Some(e.requirement_coverage.coverage_score),
            recovery_score: Some(e.error_recovery.recovery_score),
            execution_time_seconds: e.performance.execution_time_seconds,
            time_notation: Some(e.performance.time_complexity.notation.clone()),
            space_notation: Some(e.performance.space_complexity.notation.clone()),
            execution_success: e.code_correctness.execution_success,
            has_error: e.error_recovery.has_error,
            recovery_success: e.error_recovery.recovery_success,
            recovery_attempts_count: e.error_recovery.recovery_attempts_count,
        }
    }

    /// Reads a raw `metrics.json` entry the way the seed system's summary code did:
    /// `m.get('performance', {}).get('performance_score', 0)` and so on. Non-numbers count as
    /// missing; flags use Python truthiness.
    pub fn from_json(v: &serde_json::Value) -> EntryScores {
        let get = |path: &[&str]| -> Option<&serde_json::Value> {
            path.iter().try_fold(v, |cur, key| cur.get(key))
        };
        let num = |path: &[&str]| get(path).and_then(serde_json::Value::as_f64);
        let text = |path: &[&str]| get(path).and_then(|x| x.as_str()).map(str::to_string);
        let truthy = |path: &[&str]| get(path).is_some_and(py_truthy);
        EntryScores {
            model: text(&["model"]),
            timestamp: text(&["timestamp"]),
            overall_score: num(&["overall_score"]),
            correctness_score: num(&["code_correctness", "correctness_score"]),
            quality_score: num(&["code_quality", "quality_score"]),
            performance_score: num(&["performance", "performance_score"]),
            understanding_score: num(&["prompt_understanding", "understanding_score"]),
            coverage_score: num(&["requirement_coverage", "coverage_score"]),
            recovery_score: num(&["error_recovery", "recovery_score"]),
            execution_time_seconds: num(&["performance", "execution_time_seconds"]),
            time_notation: text(&["performance", "time_complexity", "notation"]),
            space_notation: text(&["performance", "space_complexity", "notation"]),
            execution_success: truthy(&["code_correctness", "execution_success"]),
            has_error: truthy(&["error_recovery", "has_error"]),
            recovery_success: truthy(&["error_recovery", "recovery_success"]),
            recovery_attempts_count: get(&["error_recovery", "recovery_attempts_count"])
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0),
        }
    }
}

/// Python truthiness of a JSON value.
pub fn py_truthy(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        serde_json::Value::String(s) => !s.is_empty(),
        serde_json::Value::Array(a) => !a.is_empty(),
        serde_json::Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `sum(xs) / len(xs)`: left-to-right float addition. `None` for no values.
fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = xs.fold((0.0, 0u64), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Options of a summary: the session id and `last_updated` (input data; default: the last
/// entry's timestamp).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SummaryOptions {
    pub session_id: String,
    pub last_updated: Option<String>,
}

/// Recomputes `metrics_summary.json` from entries.
///
/// ise547: a missing score averages as 0; `successful_recoveries` counts every entry whose
/// `recovery_success` is true, including those without an error (so the rate can exceed 1);
/// the rate is 0.0 when no entry has an error; `average_execution_time_ms` is null when the
/// average time is 0. doc-v1: missing scores are skipped; `successful_recoveries` counts only
/// entries with an error that recovered; the rate is null without errors.
pub fn summarize(entries: &[EntryScores], opts: &SummaryOptions, p: Profile) -> MetricsSummaryFile {
    let avg = |f: fn(&EntryScores) -> Option<f64>| match p {
        Profile::Ise547 => mean(entries.iter().map(|e| f(e).unwrap_or(0.0))),
        Profile::DocV1 => mean(entries.iter().filter_map(f)),
    };
    let avg_time = mean(entries.iter().filter_map(|e| e.execution_time_seconds));
    let avg_time_ms = match p {
        Profile::Ise547 => avg_time.filter(|t| *t != 0.0).map(|t| t * 1000.0),
        Profile::DocV1 => avg_time.map(|t| t * 1000.0),
    };
    let mut models_used: Vec<String> = Vec::new();
    let mut time_dist = Counts::default();
    let mut space_dist = Counts::default();
    for e in entries {
        let model = e.model.clone().unwrap_or_else(|| "unknown".into());
        if !models_used.contains(&model) {
            models_used.push(model);
        }
        time_dist.add(e.time_notation.as_deref().unwrap_or("O(1)"));
        space_dist.add(e.space_notation.as_deref().unwrap_or("O(1)"));
    }
    let count = |f: fn(&EntryScores) -> bool| entries.iter().filter(|e| f(e)).count() as u64;
    let errors_encountered = count(|e| e.has_error);
    let successful_recoveries = match p {
        Profile::Ise547 => count(|e| e.recovery_success),
        Profile::DocV1 => count(|e| e.has_error && e.recovery_success),
    };
    let recovery_success_rate = if errors_encountered > 0 {
        Some(successful_recoveries as f64 / errors_encountered as f64)
    } else {
        match p {
            Profile::Ise547 => Some(0.0),
            Profile::DocV1 => None,
        }
    };
    let summary = Summary {
        average_overall_score: avg(|e| e.overall_score),
        average_correctness_score: avg(|e| e.correctness_score),
        average_quality_score: avg(|e| e.quality_score),
        average_performance_score: avg(|e| e.performance_score),
        average_understanding_score: avg(|e| e.understanding_score),
        average_coverage_score: avg(|e| e.coverage_score),
        average_recovery_score: avg(|e| e.recovery_score),
        average_execution_time_seconds: avg_time,
        average_execution_time_ms: avg_time_ms,
        models_used,
        total_questions: entries.len() as u64,
        successful_executions: count(|e| e.execution_success),
        errors_encountered,
        total_recovery_attempts: entries.iter().map(|e| e.recovery_attempts_count).sum(),
        successful_recoveries,
        recovery_success_rate,
        time_complexity_distribution: time_dist,
        space_complexity_distribution: space_dist,
    };
    MetricsSummaryFile {
        session_id: opts.session_id.clone(),
        total_entries: entries.len() as u64,
        last_updated: opts
            .last_updated
            .clone()
            .or_else(|| entries.iter().rev().find_map(|e| e.timestamp.clone())),
        summary,
    }
}

/// The headline metrics of a code-generation run (keys of its metrics summary), in display order.
pub const HEADLINE: [crate::headline::Metric; 5] = {
    use crate::headline::{Metric, Shown::Decimals};
    const fn score(key: &'static str, label: &'static str, definition: &'static str) -> Metric {
        Metric {
            key,
            label,
            shown: Decimals(3),
            definition,
        }
    }
    [
        score(
            "average_overall_score",
            "Overall score",
            "Mean of every message's weighted overall score (0–1) over the six components.",
        ),
        score(
            "average_understanding_score",
            "Prompt understanding",
            "Mean share of the prompt's requirements the code addresses.",
        ),
        score(
            "average_coverage_score",
            "Requirement coverage",
            "Mean share of the requested outputs the code produces.",
        ),
        score(
            "average_recovery_score",
            "Error recovery",
            "Mean score of the attempts that followed a failed execution.",
        ),
        score(
            "recovery_success_rate",
            "Recovery success rate",
            "Share of failed executions fixed within the allowed attempts.",
        ),
    ]
};

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(overall: Option<f64>, has_error: bool, recovery_success: bool) -> EntryScores {
        EntryScores {
            model: Some("gpt-4".into()),
            timestamp: Some("t".into()),
            overall_score: overall,
            correctness_score: Some(1.0),
            quality_score: Some(0.8),
            performance_score: Some(0.83),
            understanding_score: Some(0.2),
            coverage_score: Some(1.0),
            recovery_score: Some(1.0),
            execution_time_seconds: Some(0.004),
            time_notation: Some("O(n)".into()),
            space_notation: Some("O(n)".into()),
            execution_success: !has_error,
            has_error,
            recovery_success,
            recovery_attempts_count: if has_error { 2 } else { 0 },
        }
    }

    fn run(entries: &[EntryScores], p: Profile) -> Summary {
        summarize(entries, &SummaryOptions::default(), p).summary
    }

    #[test]
    fn ise547_successful_recoveries_count_no_error_entries() {
        // Seed quirk: an entry without error has recovery_success = true and is counted.
        let entries = [
            entry(Some(1.0), false, true),
            entry(Some(0.5), true, false),
            entry(Some(0.7), false, true),
        ];
        let ise = run(&entries, Profile::Ise547);
        assert_eq!((ise.errors_encountered, ise.successful_recoveries), (1, 2));
        assert_eq!(ise.recovery_success_rate, Some(2.0));
        let doc = run(&entries, Profile::DocV1);
        assert_eq!((doc.errors_encountered, doc.successful_recoveries), (1, 0));
        assert_eq!(doc.recovery_success_rate, Some(0.0));
        assert_eq!(ise.total_recovery_attempts, 2);
    }

    #[test]
    fn no_errors_rate_is_zero_in_ise547_and_null_in_doc_v1() {
        let entries = [entry(Some(1.0), false, true)];
        assert_eq!(
            run(&entries, Profile::Ise547).recovery_success_rate,
            Some(0.0)
        );
        assert_eq!(run(&entries, Profile::DocV1).recovery_success_rate, None);
    }

    #[test]
    fn ise547_zero_average_time_has_no_ms() {
        let mut e = entry(Some(1.0), false, true);
        e.execution_time_seconds = Some(0.0);
        let ise = run(std::slice::from_ref(&e), Profile::Ise547);
        assert_eq!(
            (
                ise.average_execution_time_seconds,
                ise.average_execution_time_ms
            ),
            (Some(0.0), None)
        );
        let doc = run(&[e], Profile::DocV1);
        assert_eq!(doc.average_execution_time_ms, Some(0.0));
    }

    #[test]
    fn missing_scores_average_as_zero_in_ise547_and_are_skipped_in_doc_v1() {
        let entries = [entry(Some(0.9), false, true), entry(None, false, true)];
        assert_eq!(
            run(&entries, Profile::Ise547).average_overall_score,
            Some(0.45)
        );
        assert_eq!(
            run(&entries, Profile::DocV1).average_overall_score,
            Some(0.9)
        );
        assert_eq!(
            run(&[entry(None, false, true)], Profile::DocV1).average_overall_score,
            None
        );
    }

    #[test]
    fn averages_sum_left_to_right_like_python() {
        let xs = [
            0.8145,
            0.844,
            0.5758333333333334,
            0.388,
            0.7769999999999999,
            0.6645,
        ];
        let entries: Vec<EntryScores> = xs.iter().map(|&x| entry(Some(x), false, true)).collect();
        // Python: sum(xs) / 6 == 0.6773055555555557 (math.fsum would give ...555).
        assert_eq!(
            run(&entries, Profile::Ise547).average_overall_score,
            Some(0.6773055555555557)
        );
    }

    #[test]
    fn empty_summary_is_null_not_zero() {
        for p in [Profile::Ise547, Profile::DocV1] {
            let s = run(&[], p);
            assert_eq!(s.average_overall_score, None);
            assert_eq!(s.average_execution_time_seconds, None);
            assert_eq!(s.total_questions, 0);
            assert!(s.models_used.is_empty());
        }
    }

    #[test]
    fn models_and_distributions_in_first_occurrence_order() {
        let mut a = entry(Some(1.0), false, true);
        a.model = None;
        a.time_notation = None;
        let mut b = entry(Some(1.0), false, true);
        b.time_notation = Some("O(n²)".into());
        let c = entry(Some(1.0), false, true);
        let s = run(&[a, b, c], Profile::Ise547);
        assert_eq!(s.models_used, vec!["unknown", "gpt-4"]);
        assert_eq!(
            s.time_complexity_distribution.0,
            vec![
                ("O(1)".to_string(), 1),
                ("O(n²)".to_string(), 1),
                ("O(n)".to_string(), 1)
            ]
        );
        assert_eq!(s.space_complexity_distribution.get("O(n)"), Some(3));
    }

    #[test]
    fn last_updated_is_input_data() {
        let mut e = entry(Some(1.0), false, true);
        e.timestamp = Some("2026-01-02T03:04:05".into());
        let opts = SummaryOptions {
            session_id: "s".into(),
            last_updated: None,
        };
        let f = summarize(std::slice::from_ref(&e), &opts, Profile::Ise547);
        assert_eq!(f.last_updated.as_deref(), Some("2026-01-02T03:04:05"));
        let opts = SummaryOptions {
            last_updated: Some("given".into()),
            ..opts
        };
        assert_eq!(
            summarize(&[e], &opts, Profile::Ise547)
                .last_updated
                .as_deref(),
            Some("given")
        );
    }

    #[test]
    fn from_json_reads_like_python_get() {
        let v = serde_json::json!({
            "model": "m",
            "overall_score": 0.5,
            "code_correctness": {"correctness_score": 1, "execution_success": 1},
            "performance": {"execution_time_seconds": null, "time_complexity": {"notation": "O(n)"}},
            "error_recovery": {"has_error": "yes", "recovery_success": [], "recovery_attempts_count": 2},
            "prompt_understanding": {"understanding_score": "high"}
        });
        let e = EntryScores::from_json(&v);
        assert_eq!(
            (e.overall_score, e.correctness_score, e.quality_score),
            (Some(0.5), Some(1.0), None)
        );
        assert_eq!(
            (e.execution_success, e.has_error, e.recovery_success),
            (true, true, false)
        );
        assert_eq!(
            (e.recovery_attempts_count, e.understanding_score),
            (2, None)
        );
        assert_eq!(e.time_notation.as_deref(), Some("O(n)"));
        assert_eq!(e.space_notation, None);
        assert_eq!(
            EntryScores::from_json(&serde_json::json!(3)),
            EntryScores::default()
        );
    }

    #[test]
    fn truthiness() {
        let check = |v: serde_json::Value, want: bool| assert_eq!(py_truthy(&v), want, "{v}");
        check(serde_json::json!(null), false);
        check(serde_json::json!(0), false);
        check(serde_json::json!(0.0), false);
        check(serde_json::json!(-1), true);
        check(serde_json::json!(""), false);
        check(serde_json::json!("0"), true);
        check(serde_json::json!([]), false);
        check(serde_json::json!({"a": 1}), true);
        check(serde_json::json!(true), true);
    }
}
