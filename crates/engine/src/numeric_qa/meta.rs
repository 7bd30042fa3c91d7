//! What a numeric QA run is, for comparisons: its models, dataset, size, failed conversations,
//! model time and tokens, and what the original `metadata.json` / `aggregate_metrics.json` record.

use serde_json::Value;

use crate::numeric_qa::score::ScoredQaRun;
use crate::run_meta::{base_name, fmt_duration, fmt_int, plural, str_at, RunMeta};

/// Metadata of a numeric-QA run: its models, dataset, size, failed conversations, model time
/// and tokens, and what the original `metadata.json` / `aggregate_metrics.json` record.
pub fn qa_meta(s: &ScoredQaRun) -> RunMeta {
    let mut m = RunMeta::default();
    let run = &s.run;
    let original = |name: &str| -> Option<&Value> {
        run.original
            .json
            .iter()
            .find(|(p, _)| p.ends_with(name))
            .map(|(_, v)| v)
    };
    let meta_json = original("metadata.json");
    let agg_json = original("aggregate_metrics.json");
    let mut models: Vec<&str> = run
        .conversations
        .iter()
        .filter_map(|c| c.model.as_deref())
        .collect();
    models.sort_unstable();
    models.dedup();
    let model = if models.is_empty() {
        meta_json
            .or(agg_json)
            .and_then(|j| str_at(j, &["model"]))
            .map(str::to_string)
    } else {
        Some(models.join(", "))
    };
    m.put("model", model);
    let dataset_file = run
        .files
        .iter()
        .find(|f| f.format.as_deref() == Some("convfinqa-dataset"))
        .map(|f| base_name(&f.path).to_string());
    m.put(
        "dataset",
        meta_json
            .and_then(|j| str_at(j, &["dataset_path"]))
            .map(|p| base_name(p).to_string())
            .or(dataset_file),
    );
    let n_turns: usize = run.conversations.iter().map(|c| c.turns.len()).sum();
    m.put(
        "items",
        Some(format!(
            "{} · {}",
            plural(run.conversations.len(), "conversation", "conversations"),
            plural(n_turns, "turn", "turns")
        )),
    );
    let failed: Vec<&str> = run
        .conversations
        .iter()
        .filter_map(|c| c.failure.as_deref())
        .collect();
    let status = match failed.as_slice() {
        [] => "no failed conversations".to_string(),
        [first, ..] => format!(
            "{} of {} conversations failed: {first}",
            failed.len(),
            run.conversations.len()
        ),
    };
    m.put("status", Some(status));
    m.put(
        "started",
        meta_json
            .and_then(|j| str_at(j, &["timestamp"]))
            .map(str::to_string),
    );
    let latencies: Vec<f64> = run
        .conversations
        .iter()
        .flat_map(|c| c.turns.iter().filter_map(|t| t.latency_ms))
        .filter(|x| x.is_finite() && *x >= 0.0)
        .collect();
    if !latencies.is_empty() {
        let total: f64 = latencies.iter().sum();
        m.put(
            "eval_duration",
            Some(format!(
                "{} (model time, summed over turns)",
                fmt_duration(total / 1000.0)
            )),
        );
    }
    let tokens: u64 = run
        .conversations
        .iter()
        .flat_map(|c| c.turns.iter().filter_map(|t| t.tokens.total()))
        .sum();
    if tokens > 0 {
        m.put("tokens", Some(fmt_int(tokens)));
    }
    m.put(
        "scorer",
        Some(format!("profile {}", s.config.profile.name())),
    );
    m
}
