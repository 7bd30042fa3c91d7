//! The doc profile's CSVs: summary.csv, turns.csv, errors.csv, validation.csv, with the seed
//! document's column names plus one column per scorer (named as the scorer table names it). Booleans are `true`/`false`, empty
//! cells mean "not available", line ends are `\n`.

use evalboard_engine::csv_cell::neutralize;
use evalboard_engine::numeric_qa::aggregate::doc::{conversation_type, Mean};
use evalboard_engine::numeric_qa::aggregate::{ERRORS_HEADER, VALIDATION_HEADER};
use evalboard_engine::numeric_qa::model::{QaConversation, QaTurn, RawValue};
use evalboard_engine::numeric_qa::score::why::why_wrong;
use evalboard_engine::numeric_qa::score::{
    doc, logic, ScoredQaRun, TurnScore, OPERATIONS_PER_TURN,
};

fn writer<W: std::io::Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// A CSV written into memory, as text.
fn to_text(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut bytes = Vec::new();
    match write(&mut bytes) {
        // Every cell is a Rust string: the bytes are UTF-8.
        Ok(()) => String::from_utf8(bytes).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn b(v: bool) -> &'static str {
    if v {
        "true"
    } else {
        "false"
    }
}

fn ob(v: Option<bool>) -> String {
    v.map(|x| b(x).to_string()).unwrap_or_default()
}

/// A float as the shortest text that reads back to the same value.
pub fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

fn raw(v: &RawValue) -> String {
    v.display()
}

fn turn_of<'a>(s: &'a ScoredQaRun, ts: &TurnScore) -> Option<(&'a QaConversation, &'a QaTurn)> {
    let c = s.run.conversations.get(ts.conv as usize)?;
    Some((c, c.turns.get(ts.turn as usize)?))
}

pub const TURNS_HEADER: &[&str] = &[
    "trace_id",
    "conversation_id",
    "turn_idx",
    "question",
    "expected_answer",
    "actual_answer",
    "turn_tokens",
    "prompt_tokens",
    "completion_tokens",
    "turn_latency_ms",
    "plan_steps",
    doc::EXACT.name(),
    doc::NUMERICAL.name(),
    doc::SOFT.name(),
    doc::UNIT_AGNOSTIC.name(),
    doc::SIGN_AGNOSTIC.name(),
    doc::GENERAL.name(),
    logic::RECALL.name(),
    logic::PRECISION.name(),
    logic::F1.name(),
    logic::ORDER.name(),
    OPERATIONS_PER_TURN.name(),
    "ground_truth_program",
    "error_occurred",
    "error_type",
    "error_message",
    "score_reason",
    "why_wrong",
];

pub fn turns_csv(s: &ScoredQaRun) -> String {
    to_text(|out| write_turns_csv(s, out))
}

/// [`turns_csv`] written to `out` as it is made (the CLI writes a 1M-turn run's CSVs straight to
/// their files).
pub fn write_turns_csv(s: &ScoredQaRun, out: impl std::io::Write) -> std::io::Result<()> {
    let mut w = writer(out);
    w.write_record(TURNS_HEADER)?;
    for ts in &s.turns {
        let Some((c, t)) = turn_of(s, ts) else {
            continue;
        };
        let a = &ts.answer;
        let rec: Vec<String> = vec![
            opt(c.trace_id.as_deref()),
            c.id.clone(),
            t.turn_idx.to_string(),
            t.question.clone(),
            raw(&t.expected),
            t.predicted.as_ref().map(raw).unwrap_or_default(),
            opt(t.tokens.total()),
            opt(t.tokens.prompt),
            opt(t.tokens.completion),
            opt(t.latency_ms.map(num)),
            opt(t.plan_steps),
            b(a.exact_match).into(),
            b(a.numerical_match).into(),
            b(a.soft_match).into(),
            b(a.unit_agnostic_match).into(),
            b(a.sign_agnostic_match).into(),
            b(a.general_match).into(),
            opt(ts.logic.recall.map(num)),
            opt(ts.logic.precision.map(num)),
            opt(ts.logic.f1.map(num)),
            opt(ts.logic.order.map(num)),
            opt(ts.operations_per_turn),
            opt(t.ground_truth_program.as_deref()),
            b(t.error.is_some()).into(),
            opt(t.error.as_ref().map(|e| e.error_type.as_str())),
            opt(t.error.as_ref().map(|e| e.message.as_str())),
            opt(a.reason.as_deref()),
            opt(why_wrong(c, t, ts, s.config.profile, &s.config.tolerances)),
        ];
        w.write_record(rec.iter().map(|c| neutralize(c).into_owned()))?;
    }
    w.flush()
}

pub const SUMMARY_HEADER: &[&str] = &[
    "trace_id",
    "conversation_id",
    "conversation_type",
    "model",
    "num_turns",
    "total_tokens",
    "prompt_tokens",
    "completion_tokens",
    "total_latency_ms",
    "avg_plan_steps",
    "numerical_accuracy",
    "exact_match_accuracy",
    "soft_match_accuracy",
    "unit_agnostic_accuracy",
    "sign_agnostic_accuracy",
    "general_match_accuracy",
    "avg_logic_recall",
    "avg_operations_per_turn",
    "all_correct",
    "error_occurred",
    "error_type",
    "error_message",
    "failed_turn",
    "has_type2_question",
    "has_duplicate_columns",
    "has_non_numeric_values",
];

#[derive(Default)]
struct ConvAcc {
    n: u64,
    numerical: Mean,
    exact: Mean,
    soft: Mean,
    unit: Mean,
    sign: Mean,
    general: Mean,
    recall: Mean,
    ops: Mean,
    plan_steps: Mean,
    tokens: Option<u64>,
    prompt: Option<u64>,
    completion: Option<u64>,
    latency: Option<f64>,
}

pub fn summary_csv(s: &ScoredQaRun) -> String {
    to_text(|out| write_summary_csv(s, out))
}

/// [`summary_csv`] written to `out` as it is made.
pub fn write_summary_csv(s: &ScoredQaRun, out: impl std::io::Write) -> std::io::Result<()> {
    let mut accs: Vec<ConvAcc> = s
        .run
        .conversations
        .iter()
        .map(|_| ConvAcc::default())
        .collect();
    for ts in &s.turns {
        let Some((_, t)) = turn_of(s, ts) else {
            continue;
        };
        let Some(acc) = accs.get_mut(ts.conv as usize) else {
            continue;
        };
        let a = &ts.answer;
        acc.n += 1;
        acc.numerical.add_bool(a.numerical_match);
        acc.exact.add_bool(a.exact_match);
        acc.soft.add_bool(a.soft_match);
        acc.unit.add_bool(a.unit_agnostic_match);
        acc.sign.add_bool(a.sign_agnostic_match);
        acc.general.add_bool(a.general_match);
        if let Some(r) = ts.logic.recall {
            acc.recall.add(r);
        }
        if let Some(o) = ts.operations_per_turn {
            acc.ops.add(o as f64);
        }
        if let Some(p) = t.plan_steps {
            acc.plan_steps.add(p as f64);
        }
        if let Some(x) = t.tokens.total() {
            *acc.tokens.get_or_insert(0) += x;
        }
        if let Some(x) = t.tokens.prompt {
            *acc.prompt.get_or_insert(0) += x;
        }
        if let Some(x) = t.tokens.completion {
            *acc.completion.get_or_insert(0) += x;
        }
        if let Some(x) = t.latency_ms {
            *acc.latency.get_or_insert(0.0) += x;
        }
    }
    let mut w = writer(out);
    w.write_record(SUMMARY_HEADER)?;
    for (c, acc) in s.run.conversations.iter().zip(&accs) {
        let first_err = c.turns.iter().find(|t| t.error.is_some());
        let all_correct = c.failure.is_none() && acc.n > 0 && acc.numerical.sum == acc.n as f64;
        let rec: Vec<String> = vec![
            opt(c.trace_id.as_deref()),
            c.id.clone(),
            conversation_type(c),
            opt(c.model.as_deref()),
            c.turns.len().to_string(),
            opt(acc.tokens),
            opt(acc.prompt),
            opt(acc.completion),
            opt(acc.latency.map(num)),
            opt(acc.plan_steps.get().map(num)),
            opt(acc.numerical.get().map(num)),
            opt(acc.exact.get().map(num)),
            opt(acc.soft.get().map(num)),
            opt(acc.unit.get().map(num)),
            opt(acc.sign.get().map(num)),
            opt(acc.general.get().map(num)),
            opt(acc.recall.get().map(num)),
            opt(acc.ops.get().map(num)),
            b(all_correct).into(),
            b(first_err.is_some()).into(),
            opt(first_err
                .and_then(|t| t.error.as_ref())
                .map(|e| e.error_type.as_str())),
            opt(first_err
                .and_then(|t| t.error.as_ref())
                .map(|e| e.message.as_str())),
            opt(first_err.map(|t| t.turn_idx)),
            ob(c.features.has_type2_question),
            ob(c.features.has_duplicate_columns),
            ob(c.features.has_non_numeric_values),
        ];
        w.write_record(rec.iter().map(|c| neutralize(c).into_owned()))?;
    }
    w.flush()
}

pub fn errors_csv(s: &ScoredQaRun) -> String {
    let mut w = writer(Vec::new());
    let _ = w.write_record(ERRORS_HEADER);
    for ts in &s.turns {
        let Some((c, t)) = turn_of(s, ts) else {
            continue;
        };
        let Some(e) = &t.error else { continue };
        let rec: Vec<String> = vec![
            opt(c.trace_id.as_deref()),
            c.id.clone(),
            t.turn_idx.to_string(),
            t.question.clone(),
            raw(&t.expected),
            e.error_type.clone(),
            e.message.clone(),
            ob(c.features.has_type2_question),
            ob(c.features.has_non_numeric_values),
            opt(t.plan_steps),
            opt(ts.operations_per_turn),
            e.context
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_default(),
        ];
        let _ = w.write_record(rec.iter().map(|c| neutralize(c).into_owned()));
    }
    w.into_inner()
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// Validator logs, when the run recorded them (financial-agent-2 traces); otherwise the header.
pub fn validation_csv(s: &ScoredQaRun) -> String {
    let mut w = writer(Vec::new());
    let _ = w.write_record(VALIDATION_HEADER);
    for c in &s.run.conversations {
        for t in &c.turns {
            for log in &t.validator_logs {
                let join = |xs: &[RawValue]| {
                    xs.iter()
                        .map(RawValue::display)
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                let rec: Vec<String> = vec![
                    opt(c.trace_id.as_deref()),
                    c.id.clone(),
                    t.turn_idx.to_string(),
                    log.retry_number.display(),
                    log.valid.display(),
                    log.confidence.display(),
                    join(&log.failed_steps),
                    join(&log.issues),
                ];
                let _ = w.write_record(rec.iter().map(|c| neutralize(c).into_owned()));
            }
        }
    }
    w.into_inner()
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// A table as CSV (the dashboard's "Export this view": `engine::lake::view::csv_table`), every
/// cell through [`neutralize`].
pub fn table_csv(head: &[String], rows: &[Vec<String>]) -> String {
    to_text(|out| {
        let mut w = writer(out);
        w.write_record(head.iter().map(|c| neutralize(c).into_owned()))?;
        for row in rows {
            w.write_record(row.iter().map(|c| neutralize(c).into_owned()))?;
        }
        w.flush()
    })
}

#[cfg(test)]
mod table_tests {
    #[test]
    fn a_table_csv_neutralises_formulas() {
        let head = vec!["key".to_string(), "output".to_string()];
        let rows = vec![vec!["[1]".to_string(), "=HYPERLINK(\"x\")".to_string()]];
        let csv = super::table_csv(&head, &rows);
        assert_eq!(csv, "key,output\n[1],\"'=HYPERLINK(\"\"x\"\")\"\n");
    }
}
