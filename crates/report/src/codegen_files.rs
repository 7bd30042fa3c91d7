//! Output files of a scored code-generation run and the statistics `--json` prints for it,
//! shared by the CLI and the app.

use evalboard_engine::codegen;
use serde_json::{json, Value};

fn pretty<T: serde::Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// Files written for a scored code-generation run: per session `<session>/metrics.json` (the
/// original system's entry schema) and `<session>/metrics_summary.json`, and for sessions that were
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
/// with its summary, and the keys of the run-level summary at the top level (the engine's
/// [`codegen::ScoredRun::summary`], the dashboard's overview: for one session it is that
/// session's summary), so `--fail-under` can gate on them.
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
        "family": evalboard_engine::family::Family::Codegen,
        "profile": s.profile.name(),
        "sessions": sessions,
        "diagnostics": s.diagnostics.len(),
    });
    if let (Some(sum), Value::Object(top)) = (&s.summary, &mut v) {
        if let Ok(Value::Object(m)) = serde_json::to_value(&sum.summary) {
            for (k, val) in m {
                top.entry(k).or_insert(val);
            }
        }
    }
    v
}
