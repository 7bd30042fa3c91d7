//! financial-agent-2 compatibility outputs: statistics.json and CSVs exactly as its writer produces them.
//!
//! Reproduces `MetricsTracker.finalize_trace` (per-trace totals and rates) and `ResultWriter`
//! (`write_summary_csv`, `write_turn_level_csv`, `write_error_log`, `write_validation_log`,
//! `generate_summary_statistics`) of varshav2801/financial-agent-2 (`src/evaluation/`), byte for
//! byte under CPython 3.11: Python float repr, `True`/`False`, `x or ""` fields, `\r\n` rows,
//! `str(dict)` error contexts, `json.dump(indent=2)` with first-seen key order. The turn flags are
//! recomputed with [`crate::numeric_qa::score::fa2`] from the expected/actual answers, never copied from the
//! stored flags. Every quirk is listed in `docs/fa2-compat.md`.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::numeric_qa::aggregate::{ERRORS_HEADER, VALIDATION_HEADER};
use crate::numeric_qa::model::{QaConversation, QaRun, QaTurn, RawValue};
use crate::numeric_qa::score::fa2::{self, calculate_accuracy, logic_recall};
use crate::pyrepr::{csv_row, py_csv_cell, py_float_repr, py_str, py_truthy, PyObj};

/// The four statistics.json keys that no recomputation can reproduce. Each `None` falls back to
/// the value in the run's original `statistics.json`, else JSON null.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fa2Options {
    pub run_id: Option<String>,
    pub timestamp: Option<String>,
    pub sample_size: Option<u64>,
    pub random_seed: Option<u64>,
}

/// The five files the original writer produces, as text, plus notes where this output departs
/// from what the original would have done (it writes no file at all for a run without traces,
/// and crashes on a run whose traces have no turns).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fa2Outputs {
    pub statistics_json: String,
    pub summary_csv: String,
    pub turns_csv: String,
    pub errors_csv: String,
    pub validation_csv: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// One turn as the compat profile scores it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Fa2TurnScores {
    pub numerical: bool,
    pub financial: bool,
    pub soft_match: bool,
    /// `None` when the tracker would not compute it (no plan or no ground-truth program).
    pub logic_recall: Option<f64>,
    pub operations_per_turn: u32,
}

/// Scores one turn as `finalize_turn` and `log_plan` do: the three flags from the expected and
/// actual answers (unscored, all false, when there is no answer); with a plan, operations are its
/// compute steps and logic recall is computed when the turn has a non-empty ground-truth program;
/// without a plan (traces record only the results) the recorded recall and operations are kept.
pub fn score_turn(turn: &QaTurn) -> Fa2TurnScores {
    let v = calculate_accuracy(&turn.expected, turn.predicted.as_ref());
    let (recall, ops) = match &turn.plan {
        Some(plan) => {
            let recall = match turn.ground_truth_program.as_deref() {
                Some(p) if !p.is_empty() => logic_recall(Some(p), Some(&plan.compute_operations())),
                _ => None,
            };
            (recall, plan.n_compute_steps())
        }
        None => (
            turn.original.logic_recall,
            turn.original.operations_per_turn.unwrap_or(0),
        ),
    };
    Fa2TurnScores {
        numerical: v.numerical,
        financial: v.financial,
        soft_match: v.soft_match,
        logic_recall: recall,
        operations_per_turn: ops,
    }
}

// ---------------------------------------------------------------------------------------------
// Python numbers

/// A Python number as the writer's arithmetic sees it: `int` sums stay exact, `int + float` is a
/// float, `/` is true division.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

const ZERO: Num = Num::Int(0);

impl Num {
    fn of(v: &RawValue) -> Num {
        match v {
            RawValue::Int(i) => Num::Int(i128::from(*i)),
            RawValue::Float(f) => Num::Float(*f),
            RawValue::Bool(b) => Num::Int(i128::from(*b)),
            RawValue::Null | RawValue::Str(_) => ZERO,
        }
    }
    fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
    fn add(self, other: Num) -> Num {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Num::Int(a.saturating_add(b)),
            (a, b) => Num::Float(a.to_f64() + b.to_f64()),
        }
    }
    /// `self / other`; `None` for Python's ZeroDivisionError. `int / int` is exact for operands
    /// below 2^53 (both convert exactly, and IEEE division rounds once, as Python does).
    fn div(self, other: Num) -> Option<f64> {
        let d = other.to_f64();
        if d == 0.0 {
            return None;
        }
        Some(self.to_f64() / d)
    }
    fn is_positive(self) -> bool {
        match self {
            Num::Int(i) => i > 0,
            Num::Float(f) => f > 0.0,
        }
    }
    fn text(self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => py_float_repr(f),
        }
    }
    fn obj(self) -> PyObj {
        match self {
            Num::Int(i) => PyObj::Int(i),
            Num::Float(f) => PyObj::Float(f),
        }
    }
}

/// Python's `sum(iterable)` (start 0, left to right; CPython 3.11 has no compensated summation).
fn py_sum(items: impl IntoIterator<Item = Num>) -> Num {
    items.into_iter().fold(ZERO, Num::add)
}

fn count_true(items: impl IntoIterator<Item = bool>) -> Num {
    Num::Int(items.into_iter().filter(|b| *b).count() as i128)
}

// ---------------------------------------------------------------------------------------------
// Lowering to the writer's view

/// A turn's TurnMetrics values as the writer reads them.
struct TurnView<'a> {
    turn: &'a QaTurn,
    scores: Fa2TurnScores,
    turn_tokens: Num,
    prompt_tokens: Num,
    completion_tokens: Num,
    turn_llm_calls: Num,
    turn_tool_calls: Num,
    turn_latency_ms: Num,
    plan_type: RawValue,
    plan_steps: Num,
    plan_complexity: RawValue,
    validator_retries: Num,
    validator_valid: RawValue,
    validator_confidence: Num,
    error_occurred: bool,
}

impl<'a> TurnView<'a> {
    fn new(turn: &'a QaTurn) -> Self {
        let scores = score_turn(turn);
        match turn.fa2.as_deref() {
            Some(x) => TurnView {
                turn,
                scores,
                turn_tokens: Num::of(&x.turn_tokens),
                prompt_tokens: Num::of(&x.prompt_tokens),
                completion_tokens: Num::of(&x.completion_tokens),
                turn_llm_calls: Num::of(&x.turn_llm_calls),
                turn_tool_calls: Num::of(&x.turn_tool_calls),
                turn_latency_ms: Num::of(&x.turn_latency_ms),
                plan_type: x.plan_type.clone(),
                plan_steps: Num::of(&x.plan_steps),
                plan_complexity: x.plan_complexity.clone(),
                validator_retries: Num::of(&x.validator_retries),
                validator_valid: x.validator_valid.clone(),
                validator_confidence: Num::of(&x.validator_confidence),
                error_occurred: py_truthy(&x.error_occurred),
            },
            // Another format: TurnMetrics defaults where the canonical model has nothing.
            None => {
                let int = |v: Option<u64>| Num::Int(i128::from(v.unwrap_or(0)));
                let plan_steps = turn
                    .plan_steps
                    .or_else(|| turn.plan.as_ref().map(|p| p.steps.len() as u32));
                TurnView {
                    turn,
                    scores,
                    turn_tokens: int(turn.tokens.total()),
                    prompt_tokens: int(turn.tokens.prompt),
                    completion_tokens: int(turn.tokens.completion),
                    turn_llm_calls: ZERO,
                    turn_tool_calls: ZERO,
                    turn_latency_ms: Num::Float(turn.latency_ms.unwrap_or(0.0)),
                    plan_type: RawValue::Null,
                    plan_steps: Num::Int(i128::from(plan_steps.unwrap_or(0))),
                    plan_complexity: RawValue::Float(0.0),
                    validator_retries: ZERO,
                    validator_valid: RawValue::Bool(false),
                    validator_confidence: Num::Float(0.0),
                    error_occurred: turn.error.is_some(),
                }
            }
        }
    }
    fn error_type(&self) -> String {
        self.turn
            .error
            .as_ref()
            .map(|e| e.error_type.clone())
            .unwrap_or_default()
    }
    fn error_message(&self) -> String {
        self.turn
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_default()
    }
    fn tools_used(&self) -> &[String] {
        self.turn
            .fa2
            .as_deref()
            .map(|x| x.tools_used.as_slice())
            .unwrap_or(&[])
    }
}

/// A trace after `finalize_trace`: totals and rates recomputed from its turns.
struct TraceView<'a> {
    conv: &'a QaConversation,
    turns: Vec<TurnView<'a>>,
    trace_id: String,
    conversation_type: RawValue,
    num_turns: Num,
    total_tokens: Num,
    total_prompt_tokens: Num,
    total_completion_tokens: Num,
    total_llm_calls: Num,
    total_tool_calls: Num,
    total_latency_ms: Num,
    total_validator_retries: Num,
    avg_plan_steps: f64,
    numerical_accuracy: f64,
    financial_accuracy: f64,
    soft_match_accuracy: f64,
    avg_logic_recall: f64,
    avg_operations_per_turn: f64,
    error_occurred: bool,
    error_type: String,
    error_message: String,
    failed_turn: Option<u32>,
    timestamp_start: RawValue,
    timestamp_end: RawValue,
    has_type2_question: bool,
    has_non_numeric_values: bool,
}

/// `runner._get_conversation_type`, for conversations whose source did not record the type.
fn conversation_type_of(conv: &QaConversation) -> RawValue {
    if let Some(t) = &conv.conversation_type {
        return RawValue::Str(t.clone());
    }
    match (
        conv.features.num_dialogue_turns,
        conv.features.has_type2_question,
    ) {
        (Some(n), Some(t2)) => {
            let group = match n {
                0..=2 => "2turn",
                3 => "3turn",
                _ => "4+turn",
            };
            let t2 = if t2 { "True" } else { "False" };
            RawValue::Str(format!("{group}_type2{t2}"))
        }
        _ => RawValue::Null,
    }
}

impl<'a> TraceView<'a> {
    fn new(conv: &'a QaConversation) -> Self {
        let turns: Vec<TurnView<'a>> = conv.turns.iter().map(TurnView::new).collect();
        let field = |k: &str| conv.fa2.as_deref().and_then(|x| x.get(k)).cloned();
        let num_turns = match field("num_turns") {
            Some(RawValue::Int(n)) => Num::Int(i128::from(n)),
            _ => Num::Int(i128::from(conv.expected_turns())),
        };
        let mut view = TraceView {
            conv,
            trace_id: conv.trace_id.clone().unwrap_or_default(),
            conversation_type: conversation_type_of(conv),
            num_turns,
            total_tokens: py_sum(turns.iter().map(|t| t.turn_tokens)),
            total_prompt_tokens: py_sum(turns.iter().map(|t| t.prompt_tokens)),
            total_completion_tokens: py_sum(turns.iter().map(|t| t.completion_tokens)),
            total_llm_calls: py_sum(turns.iter().map(|t| t.turn_llm_calls)),
            total_tool_calls: py_sum(turns.iter().map(|t| t.turn_tool_calls)),
            // TraceRecord.total_latency_ms starts as the float 0.0.
            total_latency_ms: turns
                .iter()
                .fold(Num::Float(0.0), |acc, t| acc.add(t.turn_latency_ms)),
            total_validator_retries: py_sum(turns.iter().map(|t| t.validator_retries)),
            avg_plan_steps: 0.0,
            numerical_accuracy: 0.0,
            financial_accuracy: 0.0,
            soft_match_accuracy: 0.0,
            avg_logic_recall: 0.0,
            avg_operations_per_turn: 0.0,
            error_occurred: false,
            error_type: String::new(),
            error_message: String::new(),
            failed_turn: None,
            timestamp_start: field("timestamp_start").unwrap_or_default(),
            timestamp_end: field("timestamp_end").unwrap_or_default(),
            has_type2_question: conv.features.has_type2_question.unwrap_or(false),
            has_non_numeric_values: conv.features.has_non_numeric_values.unwrap_or(false),
            turns,
        };
        // The first failed turn.
        if let Some(t) = view.turns.iter().find(|t| t.error_occurred) {
            view.error_occurred = true;
            view.error_type = t.error_type();
            view.error_message = t.error_message();
            view.failed_turn = Some(t.turn.turn_idx);
        }
        // Rates over the dataset's turn count, only when it is positive (else model defaults).
        if view.num_turns.is_positive() {
            let n = view.num_turns;
            let rate = |x: Num| x.div(n).unwrap_or(0.0);
            view.avg_plan_steps = rate(py_sum(view.turns.iter().map(|t| t.plan_steps)));
            view.numerical_accuracy =
                rate(count_true(view.turns.iter().map(|t| t.scores.numerical)));
            view.financial_accuracy =
                rate(count_true(view.turns.iter().map(|t| t.scores.financial)));
            view.soft_match_accuracy =
                rate(count_true(view.turns.iter().map(|t| t.scores.soft_match)));
            let recalls: Vec<Num> = view
                .turns
                .iter()
                .filter_map(|t| t.scores.logic_recall.map(Num::Float))
                .collect();
            view.avg_logic_recall = py_sum(recalls.iter().copied())
                .div(Num::Int(recalls.len() as i128))
                .unwrap_or(0.0);
            view.avg_operations_per_turn = rate(py_sum(
                view.turns
                    .iter()
                    .map(|t| Num::Int(i128::from(t.scores.operations_per_turn))),
            ));
        }
        view
    }
}

fn bool_text(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
}

// ---------------------------------------------------------------------------------------------
// The files

const SUMMARY_HEADER: [&str; 25] = [
    "trace_id",
    "conversation_id",
    "conversation_type",
    "num_turns",
    "total_tokens",
    "prompt_tokens",
    "completion_tokens",
    "total_llm_calls",
    "total_tool_calls",
    "total_latency_ms",
    "avg_plan_steps",
    "total_validator_retries",
    "numerical_accuracy",
    "financial_accuracy",
    "soft_match_accuracy",
    "avg_logic_recall",
    "avg_operations_per_turn",
    "error_occurred",
    "error_type",
    "error_message",
    "failed_turn",
    "timestamp_start",
    "timestamp_end",
    "has_type2_question",
    "has_non_numeric_values",
];

const TURNS_HEADER: [&str; 28] = [
    "trace_id",
    "conversation_id",
    "turn_idx",
    "question",
    "expected_answer",
    "actual_answer",
    "turn_tokens",
    "prompt_tokens",
    "completion_tokens",
    "turn_llm_calls",
    "turn_tool_calls",
    "turn_latency_ms",
    "plan_type",
    "plan_steps",
    "plan_complexity",
    "validator_retries",
    "validator_valid",
    "validator_confidence",
    "tools_used",
    fa2::NUMERICAL.name(),
    fa2::FINANCIAL.name(),
    fa2::SOFT.name(),
    "logic_recall",
    "operations_per_turn",
    "ground_truth_program",
    "error_occurred",
    "error_type",
    "error_message",
];

fn summary_csv(traces: &[TraceView<'_>], formulas: &mut FormulaCells) -> String {
    let mut out = CompatCsv::new("summary.csv", &SUMMARY_HEADER, formulas);
    for t in traces {
        out.row(&[
            t.trace_id.clone(),
            t.conv.id.clone(),
            py_csv_cell(&t.conversation_type),
            t.num_turns.text(),
            t.total_tokens.text(),
            t.total_prompt_tokens.text(),
            t.total_completion_tokens.text(),
            t.total_llm_calls.text(),
            t.total_tool_calls.text(),
            t.total_latency_ms.text(),
            py_float_repr(t.avg_plan_steps),
            t.total_validator_retries.text(),
            py_float_repr(t.numerical_accuracy),
            py_float_repr(t.financial_accuracy),
            py_float_repr(t.soft_match_accuracy),
            py_float_repr(t.avg_logic_recall),
            py_float_repr(t.avg_operations_per_turn),
            bool_text(t.error_occurred),
            t.error_type.clone(),
            t.error_message.clone(),
            // `failed_turn or ""`: a failure in turn 0 prints as empty.
            match t.failed_turn {
                Some(i) if i != 0 => i.to_string(),
                _ => String::new(),
            },
            py_csv_cell(&t.timestamp_start),
            py_csv_cell(&t.timestamp_end),
            bool_text(t.has_type2_question),
            bool_text(t.has_non_numeric_values),
        ]);
    }
    out.finish()
}

fn turns_csv(traces: &[TraceView<'_>], formulas: &mut FormulaCells) -> String {
    let mut out = CompatCsv::new("turns.csv", &TURNS_HEADER, formulas);
    for t in traces {
        for v in &t.turns {
            let turn = v.turn;
            // `actual_answer or ""`: None, 0, 0.0, False and "" all print as empty.
            let actual = match &turn.predicted {
                Some(a) if py_truthy(a) => py_str(a),
                _ => String::new(),
            };
            let plan_type = if py_truthy(&v.plan_type) {
                py_str(&v.plan_type)
            } else {
                String::new()
            };
            // `logic_recall or ""`: 0.0 prints as empty.
            let recall = match v.scores.logic_recall {
                Some(r) if r != 0.0 => py_float_repr(r),
                _ => String::new(),
            };
            out.row(&[
                t.trace_id.clone(),
                t.conv.id.clone(),
                turn.turn_idx.to_string(),
                turn.question.clone(),
                py_csv_cell(&turn.expected),
                actual,
                v.turn_tokens.text(),
                v.prompt_tokens.text(),
                v.completion_tokens.text(),
                v.turn_llm_calls.text(),
                v.turn_tool_calls.text(),
                v.turn_latency_ms.text(),
                plan_type,
                v.plan_steps.text(),
                py_csv_cell(&v.plan_complexity),
                v.validator_retries.text(),
                py_csv_cell(&v.validator_valid),
                v.validator_confidence.text(),
                v.tools_used().join(","),
                bool_text(v.scores.numerical),
                bool_text(v.scores.financial),
                bool_text(v.scores.soft_match),
                recall,
                v.scores.operations_per_turn.to_string(),
                turn.ground_truth_program.clone().unwrap_or_default(),
                bool_text(v.error_occurred),
                v.error_type(),
                v.error_message(),
            ]);
        }
    }
    out.finish()
}

fn validation_csv(traces: &[TraceView<'_>], formulas: &mut FormulaCells) -> String {
    let mut out = CompatCsv::new("validation.csv", &VALIDATION_HEADER, formulas);
    for t in traces {
        for v in &t.turns {
            for log in &v.turn.validator_logs {
                let failed: Vec<String> = log.failed_steps.iter().map(py_str).collect();
                let issues: Vec<String> = log.issues.iter().map(py_str).collect();
                out.row(&[
                    t.trace_id.clone(),
                    t.conv.id.clone(),
                    v.turn.turn_idx.to_string(),
                    py_csv_cell(&log.retry_number),
                    py_csv_cell(&log.valid),
                    py_csv_cell(&log.confidence),
                    failed.join(","),
                    issues.join("; "),
                ]);
            }
        }
    }
    out.finish()
}

fn errors_csv(traces: &[TraceView<'_>], formulas: &mut FormulaCells) -> String {
    let mut out = CompatCsv::new("errors.csv", &ERRORS_HEADER, formulas);
    for t in traces {
        for v in t.turns.iter().filter(|v| v.error_occurred) {
            let turn = v.turn;
            let context = turn
                .error
                .as_ref()
                .and_then(|e| e.context.as_ref())
                .map(|c| PyObj::from_json(c).repr())
                .unwrap_or_else(|| "{}".to_string());
            out.row(&[
                t.trace_id.clone(),
                t.conv.id.clone(),
                turn.turn_idx.to_string(),
                turn.question.clone(),
                py_csv_cell(&turn.expected),
                v.error_type(),
                v.error_message(),
                bool_text(t.has_type2_question),
                bool_text(t.has_non_numeric_values),
                v.plan_steps.text(),
                v.scores.operations_per_turn.to_string(),
                context,
            ]);
        }
    }
    out.finish()
}

/// Increments a count in an insertion-ordered map (a Python `defaultdict(int)`).
fn bump<K: PartialEq>(map: &mut Vec<(K, i128)>, key: K, by: i128) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some((_, n)) => *n += by,
        None => map.push((key, by)),
    }
}

/// One key of `accuracy_by_turn_number` / `avg_operations_by_turn`.
struct TurnNumberStats {
    turn_idx: u32,
    correct: i128,
    total: i128,
    operations: Vec<Num>,
}

/// The value of `key` in the run's original statistics.json, as Python loaded it.
fn original_value(run: &QaRun, key: &str) -> Option<PyObj> {
    let stats = run
        .original
        .json
        .iter()
        .find(|(p, _)| p == "statistics.json")
        .or_else(|| {
            run.original
                .json
                .iter()
                .find(|(p, _)| p.ends_with("/statistics.json"))
        })?;
    stats.1.get(key).map(PyObj::from_json)
}

/// `generate_summary_statistics`: the statistics.json text.
fn statistics_json(
    run: &QaRun,
    traces: &[TraceView<'_>],
    opts: &Fa2Options,
    diags: &mut Vec<Diagnostic>,
) -> String {
    let pick = |given: Option<PyObj>, key: &str| {
        given
            .or_else(|| original_value(run, key))
            .unwrap_or(PyObj::None)
    };
    let run_id = pick(opts.run_id.clone().map(PyObj::Str), "run_id");
    let timestamp = pick(opts.timestamp.clone().map(PyObj::Str), "timestamp");
    let sample_size = pick(
        opts.sample_size.map(|n| PyObj::Int(i128::from(n))),
        "sample_size",
    );
    let random_seed = pick(
        opts.random_seed.map(|n| PyObj::Int(i128::from(n))),
        "random_seed",
    );

    let n_traces = Num::Int(traces.len() as i128);
    let total_turns = py_sum(traces.iter().map(|t| t.num_turns));
    let all_turns = || traces.iter().flat_map(|t| t.turns.iter());
    if traces.is_empty() {
        diags.push(Diagnostic::warning(
            "statistics.json",
            None,
            "no conversations: the original writer raises ValueError and writes no files; \
             ratios are null here",
        ));
    } else if !total_turns.is_positive() {
        diags.push(Diagnostic::warning(
            "statistics.json",
            None,
            "the traces' num_turns sum to 0: the original writer raises ZeroDivisionError; \
             per-turn ratios are null here",
        ));
    }
    let per_turn = |x: Num| x.div(total_turns).map_or(PyObj::None, PyObj::Float);
    let per_trace = |x: Num| x.div(n_traces).map_or(PyObj::None, PyObj::Float);

    let numerical = count_true(all_turns().map(|t| t.scores.numerical));
    let financial = count_true(all_turns().map(|t| t.scores.financial));
    let soft = count_true(all_turns().map(|t| t.scores.soft_match));
    let conv_correct = count_true(traces.iter().map(|t| t.numerical_accuracy == 1.0));

    let recalls: Vec<Num> = all_turns()
        .filter_map(|t| t.scores.logic_recall.map(Num::Float))
        .collect();
    let avg_logic_recall = py_sum(recalls.iter().copied())
        .div(Num::Int(recalls.len() as i128))
        .unwrap_or(0.0);

    let total_tokens_all = py_sum(traces.iter().map(|t| t.total_tokens));
    let cost_per_correct = total_tokens_all.div(conv_correct).unwrap_or(0.0);

    // Accuracy and operations by turn number, keys in first-seen order.
    let mut by_turn: Vec<TurnNumberStats> = Vec::new();
    for t in all_turns() {
        let idx = t.turn.turn_idx;
        let pos = match by_turn.iter().position(|s| s.turn_idx == idx) {
            Some(p) => p,
            None => {
                by_turn.push(TurnNumberStats {
                    turn_idx: idx,
                    correct: 0,
                    total: 0,
                    operations: Vec::new(),
                });
                by_turn.len() - 1
            }
        };
        if let Some(stats) = by_turn.get_mut(pos) {
            stats.total += 1;
            stats
                .operations
                .push(Num::Int(i128::from(t.scores.operations_per_turn)));
            if t.scores.numerical {
                stats.correct += 1;
            }
        }
    }
    let accuracy_by_turn = PyObj::Dict(
        by_turn
            .iter()
            .map(|s| {
                let acc = Num::Int(s.correct).div(Num::Int(s.total)).unwrap_or(0.0);
                (PyObj::Int(i128::from(s.turn_idx)), PyObj::Float(acc))
            })
            .collect(),
    );
    let operations_by_turn = PyObj::Dict(
        by_turn
            .iter()
            .map(|s| {
                let avg = py_sum(s.operations.iter().copied())
                    .div(Num::Int(s.operations.len() as i128))
                    .unwrap_or(0.0);
                (PyObj::Int(i128::from(s.turn_idx)), PyObj::Float(avg))
            })
            .collect(),
    );

    let avg_plan_steps = py_sum(traces.iter().map(|t| Num::Float(t.avg_plan_steps)));
    let n_errors = Num::Int(traces.iter().filter(|t| t.error_occurred).count() as i128);
    let mut error_types: Vec<(String, i128)> = Vec::new();
    for t in traces.iter().filter(|t| t.error_occurred) {
        if !t.error_type.is_empty() {
            bump(&mut error_types, t.error_type.clone(), 1);
        }
    }
    let total_retries = py_sum(traces.iter().map(|t| t.total_validator_retries));
    let confidences: Vec<Num> = all_turns()
        .map(|t| t.validator_confidence)
        .filter(|c| c.is_positive())
        .collect();
    let avg_confidence = py_sum(confidences.iter().copied())
        .div(Num::Int(confidences.len() as i128))
        .unwrap_or(0.0);

    let mut tool_counts: Vec<(String, i128)> = Vec::new();
    let mut tool_totals: Vec<(String, i128)> = Vec::new();
    let mut tool_successes: Vec<(String, i128)> = Vec::new();
    for t in all_turns() {
        for tool in t.tools_used() {
            bump(&mut tool_counts, tool.clone(), 1);
        }
        if let Some(x) = t.turn.fa2.as_deref() {
            for call in &x.tool_calls {
                bump(&mut tool_totals, call.tool_name.clone(), 1);
                if py_truthy(&call.success) {
                    bump(&mut tool_successes, call.tool_name.clone(), 1);
                }
            }
        }
    }
    let tool_success_rates = PyObj::Dict(
        tool_totals
            .iter()
            .map(|(name, total)| {
                let ok = tool_successes
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(0, |(_, c)| *c);
                let rate = Num::Int(ok).div(Num::Int(*total)).unwrap_or(0.0);
                (PyObj::Str(name.clone()), PyObj::Float(rate))
            })
            .collect(),
    );

    let mut by_type: Vec<(RawValue, (i128, i128))> = Vec::new();
    for t in traces {
        let pos = match by_type.iter().position(|(k, _)| *k == t.conversation_type) {
            Some(p) => p,
            None => {
                by_type.push((t.conversation_type.clone(), (0, 0)));
                by_type.len() - 1
            }
        };
        if let Some((_, (correct, total))) = by_type.get_mut(pos) {
            *total += 1;
            if t.numerical_accuracy == 1.0 {
                *correct += 1;
            }
        }
    }
    let accuracy_by_type = PyObj::Dict(
        by_type
            .iter()
            .map(|(k, (c, n))| {
                let acc = Num::Int(*c).div(Num::Int(*n)).unwrap_or(0.0);
                (PyObj::from_raw(k), PyObj::Float(acc))
            })
            .collect(),
    );
    let counts = |m: &[(String, i128)]| {
        PyObj::Dict(
            m.iter()
                .map(|(k, n)| (PyObj::Str(k.clone()), PyObj::Int(*n)))
                .collect(),
        )
    };
    let float = |x: f64| PyObj::Float(x);
    let entries: Vec<(&str, PyObj)> = vec![
        ("run_id", run_id),
        ("timestamp", timestamp),
        ("total_conversations", n_traces.obj()),
        ("total_turns", total_turns.obj()),
        ("sample_size", sample_size),
        ("random_seed", random_seed),
        ("numerical_accuracy", per_turn(numerical)),
        ("financial_accuracy", per_turn(financial)),
        ("soft_match_accuracy", per_turn(soft)),
        ("conversation_level_accuracy", per_trace(conv_correct)),
        ("avg_logic_recall", float(avg_logic_recall)),
        ("cost_per_correct_answer", float(cost_per_correct)),
        ("accuracy_by_turn_number", accuracy_by_turn),
        ("avg_operations_by_turn", operations_by_turn),
        ("avg_tokens_per_turn", per_turn(total_tokens_all)),
        (
            "avg_latency_per_turn",
            per_turn(py_sum(traces.iter().map(|t| t.total_latency_ms))),
        ),
        (
            "avg_llm_calls_per_turn",
            per_turn(py_sum(traces.iter().map(|t| t.total_llm_calls))),
        ),
        (
            "avg_tool_calls_per_turn",
            per_turn(py_sum(traces.iter().map(|t| t.total_tool_calls))),
        ),
        ("avg_plan_steps", per_trace(avg_plan_steps)),
        ("error_rate", per_trace(n_errors)),
        ("error_types", counts(&error_types)),
        ("avg_validator_retries", per_trace(total_retries)),
        ("avg_validator_confidence", float(avg_confidence)),
        ("tool_usage_counts", counts(&tool_counts)),
        ("tool_success_rates", tool_success_rates),
        ("accuracy_by_type", accuracy_by_type),
    ];
    let dict = PyObj::Dict(
        entries
            .into_iter()
            .map(|(k, v)| (PyObj::Str(k.to_string()), v))
            .collect(),
    );
    dict.json_dump(Some(2))
}

/// The financial-agent-2 profile's statistics.json of `run` as JSON (only that file: none of the
/// CSVs), for the numbers a screen shows under that profile; `Null` if it cannot be read back.
pub fn statistics_value(run: &QaRun) -> serde_json::Value {
    let traces: Vec<TraceView<'_>> = run.conversations.iter().map(TraceView::new).collect();
    let text = statistics_json(run, &traces, &Fa2Options::default(), &mut Vec::new());
    crate::pyrepr::parse_py_json(text.as_bytes()).unwrap_or(serde_json::Value::Null)
}

/// Writes the five files of the financial-agent-2 writer for a run, in `run.conversations` order
/// (the reader puts traces in the original writer's order).
pub fn write_outputs(run: &QaRun, opts: &Fa2Options) -> Fa2Outputs {
    let traces: Vec<TraceView<'_>> = run.conversations.iter().map(TraceView::new).collect();
    let mut diagnostics = Vec::new();
    let untyped = traces
        .iter()
        .filter(|t| t.conversation_type.is_null())
        .count();
    if untyped > 0 {
        diagnostics.push(Diagnostic::warning(
            "statistics.json",
            None,
            format!(
                "{untyped} conversation(s) without a conversation_type (nor features to derive \
                 it): empty in summary.csv, key \"null\" in accuracy_by_type"
            ),
        ));
    }
    let statistics_json = statistics_json(run, &traces, opts, &mut diagnostics);
    let mut formulas = FormulaCells::default();
    let summary_csv = summary_csv(&traces, &mut formulas);
    let turns_csv = turns_csv(&traces, &mut formulas);
    let errors_csv = errors_csv(&traces, &mut formulas);
    let validation_csv = validation_csv(&traces, &mut formulas);
    formulas.finish(&mut diagnostics);
    Fa2Outputs {
        statistics_json,
        summary_csv,
        turns_csv,
        errors_csv,
        validation_csv,
        diagnostics,
    }
}

/// The compat CSVs keep the original system's bytes, so a cell a spreadsheet would run as a
/// formula ([`crate::csv_cell::is_formula`]) is kept, and named in a warning (the first
/// [`FormulaCells::SHOWN`]; then how many more), noted as the rows are written ([`CompatCsv`]).
#[derive(Default)]
struct FormulaCells {
    found: usize,
    shown: Vec<Diagnostic>,
}

impl FormulaCells {
    const SHOWN: usize = 20;

    fn note(&mut self, file: &str, line: u32, column: &str, cell: &str) {
        self.found += 1;
        if self.found <= Self::SHOWN {
            let shown: String = cell.chars().take(40).collect();
            self.shown.push(Diagnostic::warning(
                file,
                Some(line),
                format!(
                    "column {column} starts like a spreadsheet formula ({shown:?}); kept as the \
                     financial-agent-2 system writes it (the doc profile prefixes such cells \
                     with ')"
                ),
            ));
        }
    }

    fn finish(self, diags: &mut Vec<Diagnostic>) {
        diags.extend(self.shown);
        if self.found > Self::SHOWN {
            diags.push(Diagnostic::warning(
                "",
                None,
                format!(
                    "{} more CSV cells start like spreadsheet formulas",
                    self.found - Self::SHOWN
                ),
            ));
        }
    }
}

/// One compat CSV as it is written: a header, then rows through Python's `csv.writer` rules
/// ([`csv_row`]), each cell that starts like a formula noted with the line its row starts on.
struct CompatCsv<'a> {
    file: &'static str,
    header: &'a [&'a str],
    text: String,
    /// The line the next row starts on (1-based; the header is line 1).
    line: u32,
    formulas: &'a mut FormulaCells,
}

impl<'a> CompatCsv<'a> {
    fn new(file: &'static str, header: &'a [&'a str], formulas: &'a mut FormulaCells) -> Self {
        let text = csv_row(header);
        let line = 1 + lines_in(&text);
        CompatCsv {
            file,
            header,
            text,
            line,
            formulas,
        }
    }

    fn row<S: AsRef<str>>(&mut self, cells: &[S]) {
        for (col, cell) in cells.iter().enumerate() {
            if crate::csv_cell::is_formula(cell.as_ref()) {
                let column = self.header.get(col).copied().unwrap_or("?");
                self.formulas
                    .note(self.file, self.line, column, cell.as_ref());
            }
        }
        let row = csv_row(cells);
        self.line = self.line.saturating_add(lines_in(&row));
        self.text.push_str(&row);
    }

    fn finish(self) -> String {
        self.text
    }
}

/// Line ends (`\n`) in `text`, as a CSV reader counts lines.
fn lines_in(text: &str) -> u32 {
    u32::try_from(memchr::memchr_iter(b'\n', text.as_bytes()).count()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
