//! Output files of the code-generation and eval-set families, shared by the CLI and the app.

use evalboard_engine::{codegen, evalset};
use serde_json::{json, Value};

fn pretty<T: serde::Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// Files written for a scored code-generation run: per session `<session>/metrics.json` (the
/// seed system's entry schema) and `<session>/metrics_summary.json`, and for sessions that were
/// only originally scored, `<session>/metrics_summary.json` recomputed from their entries.
pub fn codegen_files(s: &codegen::ScoredRun) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for sess in &s.sessions {
        let dir = &sess.session_id;
        if !sess.entries.is_empty() {
            out.push((format!("{dir}/metrics.json"), pretty(&sess.entries)));
        }
        if let Some(sum) = sess.summary.as_ref().or(sess.original_summary.as_ref()) {
            out.push((format!("{dir}/metrics_summary.json"), pretty(sum)));
        }
    }
    out
}

/// The statistics object printed by `--json` for a code-generation run: one entry per session
/// with its summary; with a single session its summary's keys are also at the top level, so
/// `--fail-under` can gate on them.
pub fn codegen_statistics(s: &codegen::ScoredRun) -> Value {
    let sessions: Vec<Value> = s
        .sessions
        .iter()
        .map(|sess| {
            json!({
                "session_id": sess.session_id,
                "entries": sess.entries.len(),
                "metrics_summary": sess.summary,
                "original_metrics_summary": sess.original_summary,
            })
        })
        .collect();
    let mut v = json!({
        "run_name": s.name,
        "family": "codegen",
        "profile": s.profile.name(),
        "sessions": sessions,
        "diagnostics": s.diagnostics.len(),
    });
    if let [only] = s.sessions.as_slice() {
        let sum = only.summary.as_ref().or(only.original_summary.as_ref());
        if let Some(Value::Object(m)) = sum
            .and_then(|x| serde_json::to_value(x).ok())
            .and_then(|x| x.get("summary").cloned())
        {
            if let Value::Object(top) = &mut v {
                for (k, val) in m {
                    top.entry(k).or_insert(val);
                }
            }
        }
    }
    v
}

/// Files written for a scored eval-set run: `scorecard.json` (when per-item predictions exist)
/// and `predictions.jsonl` in the seed's per-item schema.
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
        m.insert("family".into(), json!("evalset"));
        m.insert("scorer".into(), json!(s.scorer.id()));
        m.entry("verdict").or_insert(json!(s.verdict.as_str()));
        m.insert("verdict_reason".into(), json!(s.verdict_reason));
        m.insert("per_item_unavailable".into(), json!(s.per_item_unavailable));
    }
    v
}
