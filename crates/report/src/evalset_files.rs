//! Output files of a scored eval-set run and the statistics `--json` prints for it, shared by
//! the CLI and the app.

use evalboard_engine::evalset;
use serde_json::{json, Value};

/// Files written for a scored eval-set run: `scorecard.json` (when per-item predictions exist)
/// and `predictions.jsonl` in the original system's per-item schema.
pub fn evalset_files(s: &evalset::ScoredRun) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(card) = evalset::dto::ScorecardFile::from_scored(s) {
        out.push(("scorecard.json".to_string(), card.to_json_pretty()));
    }
    if !s.items.is_empty() {
        out.push((
            "predictions.jsonl".to_string(),
            evalset::dto::predictions_jsonl(s),
        ));
    }
    out
}

/// The statistics object printed by `--json` for an eval-set run: the scorecard keys, verdict,
/// and the reason per-item data is unavailable when it is.
pub fn evalset_statistics(s: &evalset::ScoredRun) -> Value {
    let mut v = evalset::dto::ScorecardFile::from_scored(s)
        .and_then(|c| serde_json::to_value(c).ok())
        .unwrap_or_else(|| json!({}));
    if let Value::Object(m) = &mut v {
        m.insert("run_name".into(), json!(s.name));
        m.insert(
            "family".into(),
            json!(evalboard_engine::family::Family::Evalset),
        );
        m.insert("scorer".into(), json!(s.scorer.id()));
        m.entry("verdict").or_insert(json!(s.verdict.as_str()));
        m.insert("verdict_reason".into(), json!(s.verdict_reason));
        m.insert("per_item_unavailable".into(), json!(s.per_item_unavailable));
    }
    v
}
