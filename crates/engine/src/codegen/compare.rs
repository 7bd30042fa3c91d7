//! Judges a scored code-generation run message by message for the one join
//! ([`crate::compare::join`]; `evalboard diff`, the dashboard's Compare tab): key
//! `[session_id, message_index]`, judged by execution success.
//!
//! Only re-scored trace messages pair: a `metrics.json` alone holds scores, not per-message code,
//! and the two runs' originals were scored by whatever system wrote them.

use crate::compare::join::{repeated_warnings, sort_unique, Judged, JudgedRow, Side};
use crate::compare::{ItemContext, ItemContexts, Unit};
use crate::family_run::{FamilyCompare, PairJudge};
use crate::run_table::{ItemKey, MetricValue};

use super::{Loaded, MetricsEntry};

/// What judges a pair: the delivered code ran without an error.
pub const JUDGED_BY: &str = "execution_success";

/// Set as `per_item_unavailable` when neither run has a re-scorable message.
pub const NO_MESSAGES: &str = "per-item diff unavailable: no re-scorable messages (metrics.json \
                               alone holds no per-message code)";

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

/// One judged message: its question (shown as the pair's `expected`) and outcome.
struct Message<'a>(&'a MetricsEntry);

impl JudgedRow for Message<'_> {
    fn verdict(&self) -> Option<bool> {
        Some(self.0.code_correctness.execution_success)
    }
    fn expected(&self) -> Option<String> {
        Some(self.0.question.clone())
    }
    fn answer(&self) -> Option<String> {
        Some(outcome_text(self.0))
    }
}

/// How two code-generation runs compare: messages pair on `[session id, message index]`
/// (numeric order), judged by execution success; without a re-scorable message in either run
/// there is nothing to pair ([`NO_MESSAGES`]).
impl FamilyCompare for Loaded {
    type Judge = ();

    fn judge_pair(
        baseline: &Self,
        candidate: &Self,
        _asked: Option<&str>,
    ) -> Result<PairJudge<()>, String> {
        let none = |l: &Loaded| l.scored.sessions.iter().all(|s| s.entries.is_empty());
        Ok(PairJudge {
            judge: (),
            scorer: JUDGED_BY.into(),
            judged_by: judged_by(JUDGED_BY),
            warnings: Vec::new(),
            note: (none(baseline) && none(candidate)).then(|| NO_MESSAGES.to_string()),
        })
    }

    fn judged(&self, _: &(), side: Side) -> Result<Judged<'_>, String> {
        let mut rows: Vec<(ItemKey, Message)> = self
            .scored
            .sessions
            .iter()
            .flat_map(|s| {
                s.entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (ItemKey::text_index(&s.session_id, i as u64), Message(e)))
            })
            .collect();
        let repeated = sort_unique(&mut rows);
        let warnings = repeated_warnings(side, &self.scored.name, "message", repeated);
        Ok(Judged {
            items: Box::new(rows),
            failed: Vec::new(),
            warnings,
        })
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
        out.entry(ItemKey::text_index(&m.session_id, m.index as u64))
            .or_insert_with(|| ItemContext {
                category: Some(m.model.clone()),
                question: Some(m.question.clone()),
                fields: vec![("model".to_string(), m.model.clone())],
                ..ItemContext::default()
            });
    }
}

/// Each message's query fields ([`crate::query`]), under the trace's names: `session_id`,
/// `model`, `question`, `code` (a text), `csv_file`, `timestamp`, `outcome`, `failed_first`,
/// `first_error` (also `error`), `error_class`, `attempts`, `recovered`, each score
/// (`score.overall`, `score.correctness`, …), `execution_time_seconds`, the tokens, and the
/// normalised `latency_s` and `tokens.*`.
pub fn query_fields(run: &Loaded, docs: &mut crate::query::Docs<'_>) {
    use crate::query::Value;
    for m in &run.messages {
        let Some(d) = docs.get(&ItemKey::text_index(&m.session_id, m.index as u64)) else {
            continue;
        };
        if d.fields.iter().any(|(k, _)| k == "session_id") {
            continue;
        }
        d.push("session_id", Value::Str(m.session_id.clone()));
        d.push("outcome", Value::Str(m.outcome.clone()));
        d.push("failed_first", Value::Bool(m.failed_first));
        if let Some(e) = &m.first_error {
            d.push("first_error", Value::Str(e.clone()));
            d.push_text("error", e);
        }
        d.push_str("error_class", m.error_class.as_deref());
        d.push("attempts", Value::Num(m.attempts as f64));
        d.push("recovered", Value::Bool(m.recovered));
        let sc = &m.scores;
        d.push_str("timestamp", sc.timestamp.as_deref());
        for (name, v) in [
            ("score.overall", sc.overall_score),
            ("score.correctness", sc.correctness_score),
            ("score.quality", sc.quality_score),
            ("score.performance", sc.performance_score),
            ("score.understanding", sc.understanding_score),
            ("score.coverage", sc.coverage_score),
            ("score.recovery", sc.recovery_score),
            ("execution_time_seconds", sc.execution_time_seconds),
            ("latency_s", sc.execution_time_seconds),
        ] {
            d.push_num(name, v);
        }
        d.push_str("time_notation", sc.time_notation.as_deref());
        d.push_str("space_notation", sc.space_notation.as_deref());
        let Some(msg) = run
            .run
            .sessions
            .get(m.session as usize)
            .and_then(|s| s.messages.get(m.index as usize))
        else {
            continue;
        };
        d.push_text("code", &msg.code);
        for (j, a) in msg.recovery_attempts.iter().enumerate() {
            if let Some(c) = &a.code {
                d.push_text(format!("recovery attempt {}", j + 1), c);
            }
        }
        d.push_str("csv_file", msg.csv_file.as_deref());
        if let Some(t) = &msg.tokens {
            for (raw, norm, v) in [
                ("prompt_tokens", "tokens.input", t.prompt),
                ("completion_tokens", "tokens.output", t.completion),
                ("total_tokens", "tokens.total", t.total),
            ] {
                d.push_num(raw, v.map(|v| v as f64));
                d.push_num(norm, v.map(|v| v as f64));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::{read_codegen_run, CodegenConfig};
    use crate::compare::Flip;
    use crate::InputFile;

    fn run(name: &str, lines: &[(&str, &str)]) -> Loaded {
        let text: Vec<String> = lines
            .iter()
            .map(|(q, result)| {
                format!(
                    r#"{{"session_id":"s","model":"m","question":"{q}","code":"result = df['a'].sum()","execution_result":{result}}}"#
                )
            })
            .collect();
        let files = [InputFile::new("t.jsonl", text.join("\n"))];
        Loaded::new(
            read_codegen_run(name, &files),
            Vec::new(),
            &CodegenConfig::default(),
        )
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
        let c = crate::family_run::judge_and_join(
            &run("b", &base),
            &run("c", &cand[..]),
            None,
            &Default::default(),
        )
        .unwrap();
        assert_eq!(c.note, None);
        assert_eq!(c.stats.flips.regressed, 2);
        let keys: Vec<String> = c.stats.pairs.iter().map(|p| p.key.to_string()).collect();
        assert_eq!(keys.first().map(String::as_str), Some("s / 0"));
        assert_eq!(keys.get(10).map(String::as_str), Some("s / 10"));
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
        let r = Loaded::new(
            read_codegen_run("r", &files),
            Vec::new(),
            &CodegenConfig::default(),
        );
        let c = crate::family_run::judge_and_join(&r, &r, None, &Default::default()).unwrap();
        assert_eq!(c.note.as_deref(), Some(NO_MESSAGES));
        assert!(c.stats.pairs.is_empty());
    }
}
