//! The canonical model: what every reader produces and every scorer consumes.
//!
//! Readers lower their format (trace JSON, results.json, JSONL, CSV) into these types once; scorers
//! and aggregates never see raw JSON or CSV. Values that the original systems stored with a type
//! (a JSON string vs a number vs a bool) keep that type in [`RawValue`], because the compatibility
//! profiles reproduce Python's behaviour, which depends on it.

use serde::{Deserialize, Serialize};

use crate::accounting::InputFileReport;
use crate::diag::{Diagnostic, SourceRef};

/// An answer or value exactly as the source recorded it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawValue {
    #[default]
    Null,
    Bool(bool),
    /// A JSON integer (Python `int`).
    Int(i64),
    /// A JSON number with a fraction or exponent, or an integer too large for i64 (Python `float`).
    Float(f64),
    Str(String),
}

impl RawValue {
    /// Lowers a JSON value; arrays and objects become their JSON text (they are never answers in
    /// the formats we read, but a bad file must not be dropped silently).
    pub fn from_json(v: &serde_json::Value) -> RawValue {
        match v {
            serde_json::Value::Null => RawValue::Null,
            serde_json::Value::Bool(b) => RawValue::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    RawValue::Int(i)
                } else {
                    RawValue::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => RawValue::Str(s.clone()),
            other => RawValue::Str(other.to_string()),
        }
    }

    /// A non-negative JSON integer as [`RawValue::from_json`] lowers it: `Int`, or `Float`
    /// past `i64::MAX`.
    pub fn from_u64(u: u64) -> RawValue {
        match i64::try_from(u) {
            Ok(i) => RawValue::Int(i),
            Err(_) => RawValue::Float(u as f64),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, RawValue::Null)
    }

    /// The value of a JSON number (an int or a float); `None` for anything else.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            RawValue::Float(f) => Some(*f),
            RawValue::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// Human-readable text (no quotes around strings; `None` for null). For display and the doc
    /// profile's CSVs; the compat profile has its own Python `str()`.
    pub fn display(&self) -> String {
        match self {
            RawValue::Null => String::new(),
            RawValue::Bool(b) => b.to_string(),
            RawValue::Int(i) => i.to_string(),
            RawValue::Float(f) => format!("{f}"),
            RawValue::Str(s) => s.clone(),
        }
    }
}

/// Dataset features of a conversation (ConvFinQA `features`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Features {
    pub num_dialogue_turns: Option<u32>,
    pub has_type2_question: Option<bool>,
    pub has_duplicate_columns: Option<bool>,
    pub has_non_numeric_values: Option<bool>,
}

/// One step of an agent's plan. Only `tool` and `operation` matter for scoring.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    /// Borrowed for the common `"compute"` (no allocation per step).
    pub tool: std::borrow::Cow<'static, str>,
    /// Borrowed for the operations of the program language (see [`plan_word`]).
    pub operation: Option<std::borrow::Cow<'static, str>>,
    /// What the step asked and what it gave, where the source records them (results.json's
    /// step params and `step_results`); boxed, most runs' steps have none.
    #[serde(default)]
    pub detail: Option<Box<StepDetail>>,
}

/// A plan step's query and result as text, each cut at [`StepDetail::MAX_TEXT`] characters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepDetail {
    /// A compute step's operation over its operands (`subtract(#1, #2)`: `#n` is step n's
    /// result), another step's source and parameters (`text {"year":"2009",…}`, nulls left out).
    pub query: Option<String>,
    /// The step's result as recorded (`step_results[step_id]`).
    pub result: Option<String>,
}

impl StepDetail {
    pub const MAX_TEXT: usize = 300;
}

/// A plan's tool or operation name: the words plans use over and over (`compute`, `add`,
/// `percentage_change`...) are borrowed statics, so a plan step allocates nothing for them.
pub fn plan_word(w: &str) -> std::borrow::Cow<'static, str> {
    const WORDS: &[&str] = &[
        "",
        "compute",
        "extract_value",
        "extract",
        "add",
        "subtract",
        "multiply",
        "divide",
        "exp",
        "greater",
        "percentage",
        "percentage_change",
        "table_max",
        "table_min",
        "table_sum",
        "table_average",
        "lookup",
        "sum",
        "average",
        "max",
        "min",
        "ratio",
        "difference",
    ];
    interned(WORDS, w)
}

impl PlanStep {
    /// A compute step, as the seed system counts them (`step.tool == "compute"`).
    pub fn is_compute(&self) -> bool {
        self.tool == "compute"
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub steps: Vec<PlanStep>,
}

impl Plan {
    /// Operations of the compute steps, in plan order (steps without an operation are skipped).
    pub fn compute_operations(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter(|s| s.is_compute())
            .filter_map(|s| s.operation.as_deref())
            .filter(|op| !op.is_empty())
            .collect()
    }
    pub fn n_compute_steps(&self) -> u32 {
        self.steps.iter().filter(|s| s.is_compute()).count() as u32
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub prompt: Option<u64>,
    pub completion: Option<u64>,
    pub total: Option<u64>,
}

impl Tokens {
    /// Total tokens: the recorded total, else prompt + completion when either is known.
    pub fn total(&self) -> Option<u64> {
        self.total.or(match (self.prompt, self.completion) {
            (None, None) => None,
            (p, c) => Some(p.unwrap_or(0) + c.unwrap_or(0)),
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnError {
    pub error_type: String,
    pub message: String,
    /// The original `error_context` object, when recorded.
    pub context: Option<serde_json::Value>,
}

/// Verdicts the original system wrote, kept as "as originally scored".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginalTurnScores {
    pub numerical_match: Option<bool>,
    pub financial_match: Option<bool>,
    pub soft_match: Option<bool>,
    pub unit_agnostic_match: Option<bool>,
    pub sign_agnostic_match: Option<bool>,
    pub general_match: Option<bool>,
    pub logic_recall: Option<f64>,
    pub operations_per_turn: Option<u32>,
}

impl OriginalTurnScores {
    /// The six answer verdicts under their names in the source, in this order.
    pub fn flags(&self) -> [(&'static str, Option<bool>); 6] {
        [
            ("numerical_match", self.numerical_match),
            ("financial_match", self.financial_match),
            ("soft_match", self.soft_match),
            ("unit_agnostic_match", self.unit_agnostic_match),
            ("sign_agnostic_match", self.sign_agnostic_match),
            ("general_match", self.general_match),
        ]
    }
}

/// One turn of a multi-turn numeric QA conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QaTurn {
    /// 0-based position in the conversation.
    pub turn_idx: u32,
    pub question: String,
    /// Ground truth; `RawValue::Null` when the source had none.
    pub expected: RawValue,
    /// The model's answer; `None` when the agent produced no answer.
    pub predicted: Option<RawValue>,
    /// The agent's plan, when the source recorded it (results.json, JSONL).
    pub plan: Option<Plan>,
    /// Plan length as recorded by the source (traces record the count, not the plan).
    pub plan_steps: Option<u32>,
    /// Ground-truth FinQA program (`turn_program`), from the trace or the joined dataset.
    pub ground_truth_program: Option<String>,
    /// The dataset's executed answer for this turn, when a dataset was joined.
    pub executed_answer: Option<RawValue>,
    pub tokens: Tokens,
    pub latency_ms: Option<f64>,
    /// Boxed: most turns have none, and the model of a 1M-turn run is memory-bound.
    pub error: Option<Box<TurnError>>,
    pub original: OriginalTurnScores,
    pub source: SourceRef,
    /// The agent's validator logs (financial-agent-2 traces), for validation.csv in every
    /// profile; empty when the source recorded none.
    pub validator_logs: Vec<Fa2ValidatorLog>,
    /// The rest of what the financial-agent-2 trace writer recorded, for the compat profile's
    /// CSVs; `None` when the source has no such fields or the run was read with
    /// [`ReadDetail::Doc`].
    pub fa2: Option<Box<Fa2TurnExtra>>,
}

/// A conversation: the unit of conversation-level accuracy and cost per correct answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QaConversation {
    /// The dataset id (ConvFinQA `id`, results.json `example_id`).
    pub id: String,
    /// The seed writer's per-trace UUID, when present.
    pub trace_id: Option<String>,
    /// e.g. `4+turn_type2False`; derived from features when the source lacks it.
    pub conversation_type: Option<String>,
    pub model: Option<String>,
    pub features: Features,
    pub turns: Vec<QaTurn>,
    /// The whole conversation failed (e.g. `Evaluation timeout (300s)`) and has no turns.
    pub failure: Option<String>,
    pub source: SourceRef,
    pub fa2: Option<Box<Fa2TraceExtra>>,
}

impl QaConversation {
    /// Number of turns this conversation should have: the dataset's count, else the turns read.
    pub fn expected_turns(&self) -> u32 {
        self.features
            .num_dialogue_turns
            .unwrap_or(self.turns.len() as u32)
    }
}

/// Turn fields of a financial-agent-2 TraceRecord that only the compat outputs need.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fa2TurnExtra {
    pub turn_tokens: RawValue,
    pub prompt_tokens: RawValue,
    pub completion_tokens: RawValue,
    pub turn_llm_calls: RawValue,
    pub turn_tool_calls: RawValue,
    pub turn_latency_ms: RawValue,
    pub plan_type: RawValue,
    pub plan_steps: RawValue,
    pub plan_complexity: RawValue,
    pub validator_retries: RawValue,
    pub validator_valid: RawValue,
    pub validator_confidence: RawValue,
    pub tools_used: Vec<String>,
    pub tool_calls: Vec<Fa2ToolCall>,
    /// The turn's LLM calls (for the conversation view; no output reads them).
    pub llm_calls: Vec<Fa2LlmCall>,
    pub logic_recall: RawValue,
    pub operations_per_turn: RawValue,
    pub error_occurred: RawValue,
    pub timestamp_start: RawValue,
    pub timestamp_end: RawValue,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fa2ValidatorLog {
    pub valid: RawValue,
    pub confidence: RawValue,
    pub failed_steps: Vec<RawValue>,
    pub issues: Vec<RawValue>,
    pub retry_number: RawValue,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fa2ToolCall {
    pub tool_name: String,
    pub success: RawValue,
    pub latency_ms: RawValue,
    /// The call's `params`, `result` and `error` as compact JSON text, cut to
    /// [`TOOL_TEXT_CAP`] characters (for the conversation view; no output reads them).
    pub params: Option<String>,
    pub result: Option<String>,
    pub error: Option<String>,
}

/// Most characters of a tool call's params, result or error kept for display.
pub const TOOL_TEXT_CAP: usize = 300;

/// One LLM call of a turn, as a financial-agent-2 trace records it (`llm_calls`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fa2LlmCall {
    pub model: Option<String>,
    pub purpose: Option<String>,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub latency_ms: Option<f64>,
}

/// How much of a run the readers keep.
///
/// A financial-agent-2 trace records ~20 fields per turn that only the compat profile's writer
/// reproduces ([`Fa2TurnExtra`], [`Fa2TraceExtra`]); kept, they are about half of a trace
/// folder's model (a 100k-turn folder: ~210 MB of memory with them, ~120 MB without).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReadDetail {
    /// Everything, for every profile: what the dashboard reads (it switches profiles) and the
    /// compat profile needs.
    #[default]
    Full,
    /// What the doc profile uses: the readers still check the compat-only fields (their
    /// warnings are the same) but do not keep them (`fa2: None`). For the CLI's `score` and
    /// `report` with the doc profile, and `diff`.
    Doc,
}

/// Trace-level fields of a financial-agent-2 TraceRecord, verbatim, for the compat profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fa2TraceExtra {
    /// The top-level keys of the trace JSON the compat writer reads ([`FA2_TRACE_FIELDS`]), in
    /// file order, as raw values. The rest of the trace-level keys are the writer's own
    /// aggregates of its turns, which the engine recomputes; a trace folder has one of these
    /// per conversation, tens of thousands of them, so they are not kept.
    /// Keys are borrowed statics ([`trace_key`]).
    pub fields: Vec<(std::borrow::Cow<'static, str>, RawValue)>,
}

/// The top-level TraceRecord keys kept in [`Fa2TraceExtra::fields`].
pub const FA2_TRACE_FIELDS: &[&str] = &["num_turns", "timestamp_start", "timestamp_end"];

/// A top-level TraceRecord key as a borrowed static when it is one of [`FA2_TRACE_FIELDS`] (the
/// only keys kept), else an owned copy.
pub fn trace_key(k: &str) -> std::borrow::Cow<'static, str> {
    interned(FA2_TRACE_FIELDS, k)
}

/// `w` borrowed from `words` when it is one of them, else an owned copy.
fn interned(words: &'static [&'static str], w: &str) -> std::borrow::Cow<'static, str> {
    match words.iter().find(|x| **x == w) {
        Some(x) => std::borrow::Cow::Borrowed(x),
        None => std::borrow::Cow::Owned(w.to_string()),
    }
}

impl Fa2TraceExtra {
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// Files a run folder carried that were already scored by the original system: kept verbatim
/// ("as originally scored") and never used as the source of truth when traces exist.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginalFiles {
    /// Relative path → the file's JSON (statistics.json, aggregate_metrics.json, metadata.json...).
    pub json: Vec<(String, serde_json::Value)>,
    /// Relative paths of original CSVs that were read (summary.csv, errors.csv, validation.csv...).
    pub csv: Vec<String>,
}

/// A multi-turn numeric QA run, read and joined, ready to score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QaRun {
    pub name: String,
    pub conversations: Vec<QaConversation>,
    pub original: OriginalFiles,
    pub files: Vec<InputFileReport>,
    pub diagnostics: Vec<Diagnostic>,
}

impl QaRun {
    pub fn n_turns(&self) -> usize {
        self.conversations.iter().map(|c| c.turns.len()).sum()
    }
}
