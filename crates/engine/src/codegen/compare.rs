//! Pairs two scored code-generation runs message by message for comparison (`evalboard diff`,
//! the dashboard's Compare tab): key `[session_id, message_index]`, judged by execution success.
//!
//! Only re-scored trace messages pair: a `metrics.json` alone holds scores, not per-message code,
//! and the two runs' originals were scored by whatever system wrote them.

use std::collections::BTreeMap;

use crate::compare::{
    compare_pairs, CompareOptions, ItemContext, ItemContexts, PairedComparison, PairedItem, Unit,
};
use crate::run_table::MetricValue;

use super::{Loaded, MetricsEntry, ScoredRun};

/// What judges a pair: the delivered code ran without an error.
pub const JUDGED_BY: &str = "execution_success";

/// Set as `per_item_unavailable` when neither run has a re-scorable message.
pub const NO_MESSAGES: &str = "per-item diff unavailable: no re-scorable messages (metrics.json \
                               alone holds no per-message code)";

/// Two code-generation runs, paired.
#[derive(Debug, Clone, PartialEq)]
pub struct CodegenComparison {
    pub baseline: String,
    pub candidate: String,
    /// Pairs in (session id, message index) order.
    pub stats: PairedComparison,
    pub per_item_unavailable: Option<String>,
}

/// One message's outcome as text: `executed` or `error: <message>`, and its overall score.
pub fn outcome_text(e: &MetricsEntry) -> String {
    let outcome = if e.code_correctness.execution_success {
        "executed".to_string()
    } else {
        match &e.code_correctness.execution_error {
            serde_json::Value::String(s) => format!("error: {s}"),
            serde_json::Value::Null => "error".to_string(),
            other => format!("error: {other}"),
        }
    };
    match e.overall_score {
        Some(s) => format!("{outcome} · overall {s:.3}"),
        None => outcome,
    }
}

/// One pair per `[session_id, index]` found in either run; the question is the pair's
/// `expected` (shown next to the two outcomes).
pub fn pair_messages(baseline: &ScoredRun, candidate: &ScoredRun) -> Vec<PairedItem> {
    let mut pairs: BTreeMap<(String, usize), PairedItem> = BTreeMap::new();
    for (side, run) in [(0, baseline), (1, candidate)] {
        for s in &run.sessions {
            for (i, e) in s.entries.iter().enumerate() {
                let p = pairs.entry((s.session_id.clone(), i)).or_default();
                p.key = vec![s.session_id.clone(), i.to_string()];
                p.expected.get_or_insert_with(|| e.question.clone());
                let ok = Some(e.code_correctness.execution_success);
                let answer = Some(outcome_text(e));
                if side == 0 {
                    p.baseline = ok;
                    p.baseline_answer = answer;
                } else {
                    p.candidate = ok;
                    p.candidate_answer = answer;
                }
            }
        }
    }
    pairs.into_values().collect()
}

/// Flips, McNemar and the bootstrap CI between two scored runs; the pairs come back in
/// (session id, numeric message index) order.
pub fn compare_runs(
    baseline: &ScoredRun,
    candidate: &ScoredRun,
    opts: &CompareOptions,
) -> CodegenComparison {
    let stats = compare_pairs(pair_messages(baseline, candidate), opts);
    CodegenComparison {
        baseline: baseline.name.clone(),
        candidate: candidate.name.clone(),
        per_item_unavailable: stats.pairs.is_empty().then(|| NO_MESSAGES.to_string()),
        stats,
    }
}

/// How two code-generation runs' messages are joined and judged, in a sentence.
pub fn judged_by(scorer: &str) -> String {
    format!(
        "messages joined on session id + message index, judged by {scorer} (the delivered \
         code ran); re-scored trace messages only"
    )
}

/// Execution success, the mean overall score and the recovery rate of the run.
pub fn metrics(l: &Loaded) -> Vec<MetricValue> {
    let s = l.summary().summary;
    let exec =
        (s.total_questions > 0).then(|| s.successful_executions as f64 / s.total_questions as f64);
    let m = |key: &str, label: &str, v: Option<f64>| MetricValue::new(key, label, Unit::Rate, v);
    vec![
        m("execution_success_rate", "Execution success", exec),
        m(
            "average_overall_score",
            "Mean overall score (0–1 as %)",
            s.average_overall_score,
        ),
        m(
            "recovery_success_rate",
            "Recovery rate",
            s.recovery_success_rate,
        ),
    ]
}

/// The model (category, and the one field) and question of every message, by
/// `[session id, message index]`.
pub fn item_context(run: &Loaded, out: &mut ItemContexts) {
    for m in &run.messages {
        out.entry(vec![m.session_id.clone(), m.index.to_string()])
            .or_insert_with(|| ItemContext {
                category: Some(m.model.clone()),
                question: Some(m.question.clone()),
                fields: vec![("model".to_string(), m.model.clone())],
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::{read_codegen_run, CodegenConfig};
    use crate::compare::Flip;
    use crate::InputFile;

    fn run(name: &str, lines: &[(&str, &str)]) -> ScoredRun {
        let text: Vec<String> = lines
            .iter()
            .map(|(q, result)| {
                format!(
                    r#"{{"session_id":"s","model":"m","question":"{q}","code":"result = df['a'].sum()","execution_result":{result}}}"#
                )
            })
            .collect();
        let files = [InputFile::new("t.jsonl", text.join("\n"))];
        read_codegen_run(name, &files).score(&CodegenConfig::default())
    }

    #[test]
    fn pairs_by_session_and_index_in_numeric_order() {
        let ok = r#"{"type":"number","data":1}"#;
        let bad = r#"{"type":"error","data":"KeyError: 'a'"}"#;
        let qs: Vec<String> = (0..11).map(|i| format!("q{i}")).collect();
        let base: Vec<(&str, &str)> = qs.iter().map(|q| (q.as_str(), ok)).collect();
        let mut cand = base.clone();
        cand[10].1 = bad;
        cand[2].1 = bad;
        let c = compare_runs(
            &run("b", &base),
            &run("c", &cand[..]),
            &CompareOptions::default(),
        );
        assert_eq!(c.per_item_unavailable, None);
        assert_eq!(c.stats.flips.regressed, 2);
        let keys: Vec<String> = c.stats.pairs.iter().map(|p| p.key.join("#")).collect();
        assert_eq!(keys.first().map(String::as_str), Some("s#0"));
        assert_eq!(keys.get(10).map(String::as_str), Some("s#10"));
        let p2 = &c.stats.pairs[2];
        assert_eq!(p2.flip(), Flip::Regressed);
        assert_eq!(p2.expected.as_deref(), Some("q2"));
        assert!(p2
            .candidate_answer
            .as_deref()
            .is_some_and(|a| a.starts_with("error: KeyError")));
        assert!(p2
            .baseline_answer
            .as_deref()
            .is_some_and(|a| a.starts_with("executed · overall ")));
    }

    #[test]
    fn originals_alone_have_no_pairs() {
        let files = [InputFile::new(
            "chat_history/s/metrics.json",
            r#"[{"model":"m","overall_score":0.5}]"#,
        )];
        let r = read_codegen_run("r", &files).score(&CodegenConfig::default());
        let c = compare_runs(&r, &r, &CompareOptions::default());
        assert_eq!(c.per_item_unavailable.as_deref(), Some(NO_MESSAGES));
        assert!(c.stats.pairs.is_empty());
    }
}
