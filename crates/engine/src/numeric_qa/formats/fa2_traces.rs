//! financial-agent-2 run folder reader: traces/*.json (TraceRecord) into the canonical model.
//!
//! The financial-agent-2 system (varshav2801/financial-agent-2, `src/evaluation/`) writes one
//! `traces/<trace_id>.json` per conversation (a pydantic `TraceRecord` dumped with
//! `json.dump(indent=2, default=str)`) plus `summary.csv`, `turns.csv`, `errors.csv`,
//! `validation.csv` and `statistics.json`. This module lowers:
//!
//! - a trace JSON into one [`QaConversation`] ([`read_trace`]), every TurnMetrics field kept with
//!   pydantic's defaults for missing fields: the validator logs in [`QaTurn::validator_logs`],
//!   the fields only the compat writer reproduces in [`Fa2TurnExtra`] (checked but not kept when
//!   read with [`ReadDetail::Doc`], [`read_trace_text`]);
//! - the original `turns.csv` into conversations ([`read_turns_csv`]), for folders without traces;
//! - a whole run folder into a [`QaRun`] ([`read_run_folder`]), ordering traces as the original
//!   writer did (its `summary.csv` order) and keeping `statistics.json` as "originally scored".

use std::borrow::Cow;
use std::sync::Arc;

use super::json_tree::with_py_json;
use super::pyval::{entries_where, obj_get, Obj, PyVal};
use super::Src;
use crate::accounting::{FileStatus, InputFileReport};
use crate::csv_rows::CsvRows;
use crate::diag::Diagnostic;
use crate::diag::SourceRef;
use crate::input::RunInput;
use crate::numeric_qa::model::trace_key;
use crate::numeric_qa::model::TOOL_TEXT_CAP;
use crate::numeric_qa::model::{
    Fa2LlmCall, Fa2ToolCall, Fa2TraceExtra, Fa2TurnExtra, Fa2ValidatorLog, Features, OriginalFiles,
    OriginalTurnScores, QaConversation, QaRun, QaTurn, RawValue, ReadDetail, Tokens, TurnError,
};
use crate::pyrepr::parse_py_json;

/// Format name of a trace JSON in [`InputFileReport::format`].
pub const FORMAT_TRACE: &str = "fa2-trace";
/// Format name of the writer's `turns.csv`.
pub const FORMAT_TURNS_CSV: &str = "fa2-turns-csv";
/// Format name of the writer's `statistics.json` (kept as originally scored).
pub const FORMAT_STATISTICS: &str = "fa2-statistics";
/// Format name of the writer's other CSVs (summary, errors, validation), kept as originally scored.
pub const FORMAT_ORIGINAL_CSV: &str = "fa2-original-csv";

// ---------------------------------------------------------------------------------------------
// Sniffing

fn find(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

fn skip_bom_ws(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// Content sniff for a TraceRecord JSON: an object with `"trace_id"`, `"conversation_id"` and
/// `"turns"` keys (results.json of later versions has none of `trace_id`).
pub fn looks_like_trace(bytes: &[u8]) -> bool {
    let body = skip_bom_ws(bytes);
    body.first() == Some(&b'{')
        && find(body, b"\"trace_id\"")
        && find(body, b"\"conversation_id\"")
        && find(body, b"\"turns\"")
}

/// Content sniff for the writer's `turns.csv`: its header line.
pub fn looks_like_turns_csv(bytes: &[u8]) -> bool {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let header_end = body.iter().position(|&b| b == b'\n').unwrap_or(body.len());
    let header = &body[..header_end];
    header.starts_with(b"trace_id,conversation_id,turn_idx,question,expected_answer,actual_answer")
}

// ---------------------------------------------------------------------------------------------
// Field lowering, pydantic style

/// Collects diagnostics for one file with a record locator.
struct Ctx<'a> {
    path: &'a str,
    diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn warn(&mut self, record: Record, message: String) {
        self.diags
            .push(Diagnostic::warning(self.path, None, message).with_record(record.to_string()));
    }
}

/// Where in a trace a diagnostic points (its text is only made for a diagnostic).
#[derive(Clone, Copy)]
enum Record {
    Trace,
    Turn(usize),
}

impl std::fmt::Display for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Record::Trace => f.write_str("trace"),
            Record::Turn(i) => write!(f, "turns[{i}]"),
        }
    }
}

/// Lowers pydantic-typed fields of one JSON object, warning (and using the model default) when a
/// field has a type the original model would not have written.
struct Fields<'a, 'j, 'c, 'p> {
    obj: &'a Obj<'j>,
    record: Record,
    ctx: &'c mut Ctx<'p>,
}

impl<'a, 'j> Fields<'a, 'j, '_, '_> {
    fn raw(&self, key: &str) -> Option<RawValue> {
        obj_get(self.obj, key).map(PyVal::raw)
    }

    /// A required field: warn when missing.
    fn required(&mut self, key: &str) -> Option<RawValue> {
        let v = self.raw(key);
        if v.is_none() {
            self.ctx
                .warn(self.record, format!("missing required field `{key}`"));
        }
        v
    }

    /// An `int` field (default `default`): integral floats are accepted as ints.
    fn int(&mut self, key: &str, default: i64) -> RawValue {
        match self.raw(key) {
            None => RawValue::Int(default),
            Some(v) => match as_int(&v) {
                Some(i) => RawValue::Int(i),
                None => {
                    self.ctx.warn(
                        self.record,
                        format!("`{key}` should be an integer, got {v:?}; using {default}"),
                    );
                    RawValue::Int(default)
                }
            },
        }
    }

    /// A `float` field: ints become floats, as pydantic stores them.
    fn float(&mut self, key: &str, default: f64) -> RawValue {
        match self.raw(key) {
            None => RawValue::Float(default),
            Some(RawValue::Float(f)) => RawValue::Float(f),
            Some(RawValue::Int(i)) => RawValue::Float(i as f64),
            Some(v) => {
                self.ctx.warn(
                    self.record,
                    format!("`{key}` should be a number, got {v:?}; using {default:?}"),
                );
                RawValue::Float(default)
            }
        }
    }

    /// A `float | None` field.
    fn opt_float(&mut self, key: &str) -> RawValue {
        match self.raw(key) {
            None | Some(RawValue::Null) => RawValue::Null,
            Some(_) => self.float(key, 0.0),
        }
    }

    fn bool(&mut self, key: &str, default: bool) -> RawValue {
        match self.raw(key) {
            None => RawValue::Bool(default),
            Some(RawValue::Bool(b)) => RawValue::Bool(b),
            Some(v) => {
                self.ctx.warn(
                    self.record,
                    format!("`{key}` should be true/false, got {v:?}; using {default}"),
                );
                RawValue::Bool(default)
            }
        }
    }

    /// [`Self::opt_str`] when `keep`; else the same check and warning, and `Null` (no copy of
    /// a string that would be dropped).
    fn opt_str_if(&mut self, keep: bool, key: &str) -> RawValue {
        if !keep && obj_get(self.obj, key).is_some_and(|v| v.as_text().is_some()) {
            return RawValue::Null;
        }
        let v = self.opt_str(key);
        if keep {
            v
        } else {
            RawValue::Null
        }
    }

    /// A `str | None` field (datetimes are strings in the JSON: `default=str`).
    fn opt_str(&mut self, key: &str) -> RawValue {
        match self.raw(key) {
            None | Some(RawValue::Null) => RawValue::Null,
            Some(RawValue::Str(s)) => RawValue::Str(s),
            Some(v) => {
                self.ctx.warn(
                    self.record,
                    format!("`{key}` should be a string, got {v:?}; ignored"),
                );
                RawValue::Null
            }
        }
    }

    fn list(&mut self, key: &str) -> &'a [PyVal<'j>] {
        match obj_get(self.obj, key) {
            None | Some(PyVal::Null) => &[],
            Some(PyVal::Arr(a)) => a,
            Some(_) => {
                self.ctx
                    .warn(self.record, format!("`{key}` should be a list; ignored"));
                &[]
            }
        }
    }
}

fn as_int(v: &RawValue) -> Option<i64> {
    match v {
        RawValue::Int(i) => Some(*i),
        RawValue::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
            Some(*f as i64)
        }
        _ => None,
    }
}

fn int_of(v: &RawValue) -> Option<i64> {
    match v {
        RawValue::Int(i) => Some(*i),
        _ => None,
    }
}

fn u32_of(v: &RawValue) -> Option<u32> {
    int_of(v).and_then(|i| u32::try_from(i).ok())
}

fn u64_of(v: &RawValue) -> Option<u64> {
    int_of(v).and_then(|i| u64::try_from(i).ok())
}

fn bool_of(v: &RawValue) -> Option<bool> {
    match v {
        RawValue::Bool(b) => Some(*b),
        _ => None,
    }
}

fn str_of(v: RawValue) -> Option<String> {
    match v {
        RawValue::Str(s) => Some(s),
        _ => None,
    }
}

/// A list of strings (`tools_used`); other items are kept as their Python `str()`.
fn string_list(items: &[PyVal<'_>]) -> Vec<String> {
    items
        .iter()
        .map(|v| match v.raw() {
            RawValue::Str(s) => s,
            other => crate::pyrepr::py_str(&other),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Trace JSON

/// Reads one TraceRecord JSON into a conversation. `Err` only when the file is not a JSON object.
///
/// Turns are sorted by `turn_idx` (with a warning when the file had them out of order); each
/// turn's `source.record` is its index in the file's `turns` array.
pub fn read_trace(
    path: &str,
    bytes: &[u8],
) -> Result<(QaConversation, Vec<Diagnostic>), Vec<Diagnostic>> {
    read_trace_from(path, Src::Bytes(bytes), ReadDetail::Full)
}

/// [`read_trace`] of a file already known to be UTF-8 text (not validated again), keeping
/// `detail`.
pub fn read_trace_text(
    path: &str,
    text: &str,
    detail: ReadDetail,
) -> Result<(QaConversation, Vec<Diagnostic>), Vec<Diagnostic>> {
    read_trace_from(path, Src::Text(text), detail)
}

fn read_trace_from(
    path: &str,
    src: Src<'_>,
    detail: ReadDetail,
) -> Result<(QaConversation, Vec<Diagnostic>), Vec<Diagnostic>> {
    let lowered = with_py_json(src, |value| {
        let PyVal::Obj(obj) = value else {
            return Err(vec![Diagnostic::error(
                path,
                Some(1),
                "a trace must be a JSON object (TraceRecord)",
            )]);
        };
        let mut ctx = Ctx {
            path,
            diags: Vec::new(),
        };
        let conv = lower_trace(path, obj, detail, &mut ctx);
        Ok((conv, ctx.diags))
    });
    match lowered {
        Ok((Ok((conv, mut diags)), repeats)) => {
            diags.extend(crate::json_keys::warnings(
                path,
                src.as_bytes(),
                1,
                &repeats,
            ));
            Ok((conv, diags))
        }
        Ok((Err(diags), _)) => Err(diags),
        Err(e) => {
            let line = u32::try_from(e.line()).ok().filter(|&l| l > 0);
            Err(vec![Diagnostic::error(
                path,
                line,
                format!("not valid JSON: {e}"),
            )])
        }
    }
}

fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".json").unwrap_or(name)
}

fn lower_trace(path: &str, obj: &Obj<'_>, detail: ReadDetail, ctx: &mut Ctx<'_>) -> QaConversation {
    let file: Arc<str> = path.into();
    let mut f = Fields {
        obj,
        record: Record::Trace,
        ctx,
    };
    let trace_id = match f.required("trace_id") {
        Some(RawValue::Str(s)) => s,
        _ => file_stem(path).to_string(),
    };
    let conversation_id = f
        .required("conversation_id")
        .and_then(str_of)
        .unwrap_or_default();
    let conversation_type = f.required("conversation_type").and_then(str_of);
    let num_turns = f.required("num_turns").and_then(|v| as_int(&v));
    let has_type2 = bool_of(&f.bool("has_type2_question", false));
    let has_dup = bool_of(&f.bool("has_duplicate_columns", false));
    let has_non_numeric = bool_of(&f.bool("has_non_numeric_values", false));

    // The top-level fields the compat writer reads, verbatim.
    let fa2 = (detail == ReadDetail::Full).then(|| {
        let fields: Vec<(Cow<'static, str>, RawValue)> = entries_where(obj, |k| {
            crate::numeric_qa::model::FA2_TRACE_FIELDS.contains(&k)
        })
        .map(|(k, v)| (trace_key(k), v.raw()))
        .collect();
        Box::new(Fa2TraceExtra { fields })
    });

    let turn_values = f.list("turns");
    let mut turns = Vec::with_capacity(turn_values.len());
    // The conversation's model: the first LLM call's that names one, in turn order (turns
    // sorted by turn_idx, stably); keyed by (turn_idx, position in the file).
    let mut model: Option<((u32, usize), String)> = None;
    for (i, tv) in turn_values.iter().enumerate() {
        let record = Record::Turn(i);
        match tv {
            PyVal::Obj(t) => {
                let turn = lower_turn(&file, i, t, record, detail, ctx);
                let key = (turn.turn_idx, i);
                if model.as_ref().is_none_or(|(k, _)| key < *k) {
                    if let Some(m) = first_llm_model(t) {
                        model = Some((key, m));
                    }
                }
                turns.push(turn);
            }
            _ => ctx.warn(record, "a turn must be an object; skipped".to_string()),
        }
    }
    sort_turns(&mut turns, path, &trace_id, "turns", ctx);
    if turns.is_empty() {
        let expected = num_turns.map_or(String::new(), |n| format!(" of {n}"));
        ctx.warn(
            Record::Trace,
            format!(
                "trace {trace_id} has no turns{expected} (the original runner writes such a \
                 trace when the agent raised before the first turn)"
            ),
        );
    }

    let trace_error = obj_get(obj, "error_occurred").and_then(PyVal::as_bool) == Some(true);
    let failure = (turns.is_empty() && trace_error).then(|| {
        let et = obj_get(obj, "error_type")
            .and_then(PyVal::as_str)
            .unwrap_or("");
        let em = obj_get(obj, "error_message")
            .and_then(PyVal::as_str)
            .unwrap_or("");
        format!("{et}: {em}")
    });

    QaConversation {
        id: conversation_id,
        trace_id: Some(trace_id),
        conversation_type,
        model: model.map(|(_, m)| m),
        features: Features {
            num_dialogue_turns: num_turns.and_then(|n| u32::try_from(n).ok()),
            has_type2_question: has_type2,
            has_duplicate_columns: has_dup,
            has_non_numeric_values: has_non_numeric,
        },
        turns,
        failure,
        source: SourceRef {
            file: file.clone(),
            line: None,
            record: None,
        },
        fa2,
    }
}

/// Sorts turns by `turn_idx` (stable), warning once when they were out of order.
fn sort_turns(turns: &mut [QaTurn], path: &str, trace_id: &str, record: &str, ctx: &mut Ctx<'_>) {
    let in_order = turns.windows(2).all(|w| w[0].turn_idx <= w[1].turn_idx);
    if !in_order {
        let order: Vec<String> = turns.iter().map(|t| t.turn_idx.to_string()).collect();
        ctx.diags.push(
            Diagnostic::warning(
                path,
                None,
                format!(
                    "turns of {trace_id} are out of order (turn_idx {}); sorted by turn_idx",
                    order.join(", ")
                ),
            )
            .with_record(record),
        );
        turns.sort_by_key(|t| t.turn_idx);
    }
}

fn lower_turn(
    file: &Arc<str>,
    index: usize,
    t: &Obj<'_>,
    record: Record,
    detail: ReadDetail,
    ctx: &mut Ctx<'_>,
) -> QaTurn {
    let mut f = Fields {
        obj: t,
        record,
        ctx,
    };
    let turn_idx = match f.required("turn_idx").as_ref().and_then(as_int) {
        Some(i) => match u32::try_from(i) {
            Ok(u) => u,
            Err(_) => {
                f.ctx.warn(
                    record,
                    format!("turn_idx {i} is negative; using position {index}"),
                );
                index as u32
            }
        },
        None => index as u32,
    };
    let question = f.required("question").and_then(str_of).unwrap_or_default();
    let expected = f.required("expected_answer").unwrap_or(RawValue::Null);
    let predicted = match f.required("actual_answer") {
        None | Some(RawValue::Null) => None,
        Some(v) => Some(v),
    };

    // Fields are read in the order the writer's model declares them, so that their warnings
    // come in that order; the validator logs are read between `tools_used` and `tool_calls`.
    let validator_logs: Vec<Fa2ValidatorLog>;
    // What only the compat writer reads is checked (same warnings) but not copied for `Doc`.
    let keep = detail == ReadDetail::Full;
    let extra = Fa2TurnExtra {
        turn_tokens: f.int("turn_tokens", 0),
        prompt_tokens: f.int("prompt_tokens", 0),
        completion_tokens: f.int("completion_tokens", 0),
        turn_llm_calls: f.int("turn_llm_calls", 0),
        turn_tool_calls: f.int("turn_tool_calls", 0),
        turn_latency_ms: f.float("turn_latency_ms", 0.0),
        plan_type: f.opt_str_if(keep, "plan_type"),
        plan_steps: f.int("plan_steps", 0),
        plan_complexity: f.float("plan_complexity", 0.0),
        validator_retries: f.int("validator_retries", 0),
        validator_valid: f.bool("validator_valid", false),
        validator_confidence: f.float("validator_confidence", 0.0),
        tools_used: match f.list("tools_used") {
            used if keep => string_list(used),
            _ => Vec::new(),
        },
        tool_calls: {
            validator_logs = f
                .list("validator_logs")
                .iter()
                .map(lower_validator_log)
                .collect();
            match f.list("tool_calls") {
                calls if keep => calls.iter().map(lower_tool_call).collect(),
                _ => Vec::new(),
            }
        },
        llm_calls: match obj_get(t, "llm_calls") {
            Some(PyVal::Arr(calls)) if keep => calls.iter().map(lower_llm_call).collect(),
            _ => Vec::new(),
        },
        logic_recall: f.opt_float("logic_recall"),
        operations_per_turn: f.int("operations_per_turn", 0),
        error_occurred: f.bool("error_occurred", false),
        timestamp_start: f.opt_str_if(keep, "timestamp_start"),
        timestamp_end: f.opt_str_if(keep, "timestamp_end"),
    };
    let numerical = bool_of(&f.bool("numerical_match", false));
    let financial = bool_of(&f.bool("financial_match", false));
    let soft = bool_of(&f.bool("soft_match", false));
    let ground_truth_program = str_of(f.opt_str("ground_truth_program"));
    let error_type = str_of(f.opt_str("error_type"));
    let error_message = str_of(f.opt_str("error_message"));
    let error_context = match obj_get(t, "error_context") {
        None | Some(PyVal::Null) => None,
        Some(v @ PyVal::Obj(_)) => Some(v.to_value()),
        Some(_) => {
            f.ctx.warn(
                record,
                "`error_context` should be an object; ignored".into(),
            );
            None
        }
    };
    let error_occurred = bool_of(&extra.error_occurred) == Some(true);
    let error =
        (error_occurred || error_type.is_some() || error_message.is_some()).then(|| TurnError {
            error_type: error_type.unwrap_or_default(),
            message: error_message.unwrap_or_default(),
            context: error_context,
        });

    QaTurn {
        turn_idx,
        question,
        expected,
        predicted,
        plan: None,
        plan_steps: u32_of(&extra.plan_steps),
        ground_truth_program,
        executed_answer: None,
        tokens: Tokens {
            prompt: u64_of(&extra.prompt_tokens),
            completion: u64_of(&extra.completion_tokens),
            total: u64_of(&extra.turn_tokens),
        },
        latency_ms: extra.turn_latency_ms.as_f64(),
        error: error.map(Box::new),
        original: OriginalTurnScores {
            numerical_match: numerical,
            financial_match: financial,
            soft_match: soft,
            unit_agnostic_match: None,
            sign_agnostic_match: None,
            general_match: None,
            logic_recall: extra.logic_recall.as_f64(),
            operations_per_turn: u32_of(&extra.operations_per_turn),
        },
        source: SourceRef {
            file: file.clone(),
            line: None,
            record: Some(index as u32),
        },
        validator_logs,
        fa2: keep.then(|| Box::new(extra)),
    }
}

fn lower_validator_log(v: &PyVal<'_>) -> Fa2ValidatorLog {
    let get = |k: &str| v.get(k).map(PyVal::raw).unwrap_or_default();
    let list = |k: &str| -> Vec<RawValue> {
        v.get(k)
            .and_then(PyVal::as_array)
            .map(|a| a.iter().map(PyVal::raw).collect())
            .unwrap_or_default()
    };
    Fa2ValidatorLog {
        valid: get("valid"),
        confidence: get("confidence"),
        failed_steps: list("failed_steps"),
        issues: list("issues"),
        retry_number: get("retry_number"),
    }
}

fn lower_tool_call(v: &PyVal<'_>) -> Fa2ToolCall {
    Fa2ToolCall {
        tool_name: match v.get("tool_name").map(PyVal::raw) {
            Some(RawValue::Str(s)) => s,
            Some(other) => crate::pyrepr::py_str(&other),
            None => String::new(),
        },
        success: v.get("success").map(PyVal::raw).unwrap_or_default(),
        latency_ms: v.get("latency_ms").map(PyVal::raw).unwrap_or_default(),
        params: shown_value(v.get("params")),
        result: shown_value(v.get("result")),
        error: shown_value(v.get("error")),
    }
}

/// A recorded value as compact JSON text cut to [`TOOL_TEXT_CAP`] characters; `None` when
/// absent or null.
fn shown_value(v: Option<&PyVal<'_>>) -> Option<String> {
    let text = match v? {
        PyVal::Null => return None,
        PyVal::Str(s) => s.to_string(),
        other => other.to_value().to_string(),
    };
    Some(crate::diag::shortened(&text, TOOL_TEXT_CAP).into_owned())
}

fn lower_llm_call(v: &PyVal<'_>) -> Fa2LlmCall {
    let uint = |k: &str| v.get(k).map(PyVal::raw).as_ref().and_then(u64_of);
    let text = |k: &str| v.get(k).and_then(PyVal::as_str).map(str::to_string);
    Fa2LlmCall {
        model: text("model"),
        purpose: text("purpose"),
        prompt_tokens: uint("prompt_tokens"),
        completion_tokens: uint("completion_tokens"),
        total_tokens: uint("total_tokens"),
        latency_ms: v.get("latency_ms").and_then(|x| x.raw().as_f64()),
    }
}

/// The `model` of a turn's first LLM call that names one as a string (the turn's `llm_calls`
/// are not kept otherwise: nothing else reads them).
fn first_llm_model(turn: &Obj<'_>) -> Option<String> {
    let Some(PyVal::Arr(calls)) = obj_get(turn, "llm_calls") else {
        return None;
    };
    calls
        .iter()
        .find_map(|c| c.get("model").and_then(PyVal::as_str).map(str::to_string))
}

// ---------------------------------------------------------------------------------------------
// turns.csv

/// Column kinds of the writer's turns.csv, by header name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ColKind {
    Str,
    OptStr,
    Int,
    Float,
    OptFloat,
    Bool,
}

fn col_kind(name: &str) -> ColKind {
    match name {
        "turn_idx"
        | "turn_tokens"
        | "prompt_tokens"
        | "completion_tokens"
        | "turn_llm_calls"
        | "turn_tool_calls"
        | "plan_steps"
        | "validator_retries"
        | "operations_per_turn" => ColKind::Int,
        "turn_latency_ms" | "plan_complexity" | "validator_confidence" => ColKind::Float,
        "logic_recall" => ColKind::OptFloat,
        "validator_valid" | "numerical_match" | "financial_match" | "soft_match"
        | "error_occurred" => ColKind::Bool,
        "plan_type" | "ground_truth_program" | "error_type" | "error_message" | "actual_answer" => {
            ColKind::OptStr
        }
        _ => ColKind::Str,
    }
}

/// Parses one cell by its column kind; `Err` with a reason when it does not fit.
fn parse_cell(kind: ColKind, cell: &str) -> Result<RawValue, String> {
    match kind {
        ColKind::Str => Ok(RawValue::Str(cell.to_string())),
        ColKind::OptStr => Ok(if cell.is_empty() {
            RawValue::Null
        } else {
            RawValue::Str(cell.to_string())
        }),
        ColKind::Int => cell
            .parse::<i64>()
            .map(RawValue::Int)
            .map_err(|_| format!("expected an integer, got {cell:?}")),
        ColKind::Float | ColKind::OptFloat => {
            if cell.is_empty() && kind == ColKind::OptFloat {
                return Ok(RawValue::Null);
            }
            crate::pyrepr::py_float_parse(cell)
                .map(RawValue::Float)
                .ok_or_else(|| format!("expected a number, got {cell:?}"))
        }
        ColKind::Bool => match cell {
            "True" => Ok(RawValue::Bool(true)),
            "False" => Ok(RawValue::Bool(false)),
            _ => Err(format!("expected True or False, got {cell:?}")),
        },
    }
}

fn kind_default(kind: ColKind) -> RawValue {
    match kind {
        ColKind::Str => RawValue::Str(String::new()),
        ColKind::OptStr | ColKind::OptFloat => RawValue::Null,
        ColKind::Int => RawValue::Int(0),
        ColKind::Float => RawValue::Float(0.0),
        ColKind::Bool => RawValue::Bool(false),
    }
}

/// Reads the writer's `turns.csv` into conversations, one per trace (rows grouped by `trace_id`,
/// else `conversation_id`, in order of first appearance).
///
/// What turns.csv cannot carry stays unknown: the dataset's `num_turns` (the number of rows is
/// used), `conversation_type`, features, validator logs, tool calls and `error_context`. Cells
/// are typed by column: `actual_answer`, `logic_recall` and the optional strings read an empty
/// cell as None (the writer wrote `x or ""`, so an answer of 0.0 also became empty). Rows with the
/// wrong number of fields are skipped with a diagnostic; rows a stray quote merged are read line
/// by line again, with diagnostics naming the lines ([`crate::csv_rows`]); bad cells get the
/// model default.
pub fn read_turns_csv(path: &str, bytes: &[u8]) -> (Vec<QaConversation>, Vec<Diagnostic>) {
    let file: Arc<str> = path.into();
    let mut diags = Vec::new();
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    // Rows checked against their lines: a stray quote cannot merge rows silently (csv_rows).
    let Some(mut rows) = CsvRows::new(path, body, &mut diags) else {
        return (Vec::new(), diags);
    };
    let headers: Vec<String> = rows.header().iter().map(str::to_string).collect();
    let col = |name: &str| headers.iter().position(|h| h == name);
    for required in ["turn_idx", "expected_answer"] {
        if col(required).is_none() {
            diags.push(Diagnostic::error(
                path,
                Some(1),
                format!("turns.csv header lacks `{required}`"),
            ));
            return (Vec::new(), diags);
        }
    }
    if col("trace_id").is_none() && col("conversation_id").is_none() {
        diags.push(Diagnostic::error(
            path,
            Some(1),
            "turns.csv header lacks both `trace_id` and `conversation_id`",
        ));
        return (Vec::new(), diags);
    }

    let mut groups: Vec<(String, QaConversation)> = Vec::new();
    let mut group_index: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    let mut record = csv::StringRecord::new();
    while let Some(line) = rows.next_row(&mut diags, &mut record) {
        let mut cell = |name: &str| -> RawValue {
            let kind = col_kind(name);
            let Some(text) = col(name).and_then(|i| record.get(i)) else {
                return kind_default(kind);
            };
            match parse_cell(kind, text) {
                Ok(v) => v,
                Err(reason) => {
                    diags.push(Diagnostic::warning(
                        path,
                        Some(line),
                        format!("`{name}`: {reason}; using the default"),
                    ));
                    kind_default(kind)
                }
            }
        };
        let trace_id = str_of(cell("trace_id")).unwrap_or_default();
        let conversation_id = str_of(cell("conversation_id")).unwrap_or_default();
        let turn = csv_turn(&file, line, &mut cell);
        let key = if trace_id.is_empty() {
            conversation_id.clone()
        } else {
            trace_id.clone()
        };
        match group_index.get(&key).and_then(|&i| groups.get_mut(i)) {
            Some((_, conv)) => conv.turns.push(turn),
            None => {
                group_index.insert(key.clone(), groups.len());
                let mut fields = Vec::new();
                if !trace_id.is_empty() {
                    fields.push((Cow::Borrowed("trace_id"), RawValue::Str(trace_id.clone())));
                }
                fields.push((
                    Cow::Borrowed("conversation_id"),
                    RawValue::Str(conversation_id.clone()),
                ));
                groups.push((
                    key,
                    QaConversation {
                        id: conversation_id,
                        trace_id: (!trace_id.is_empty()).then_some(trace_id),
                        turns: vec![turn],
                        source: SourceRef {
                            file: path.into(),
                            line: Some(line),
                            record: None,
                        },
                        fa2: Some(Box::new(Fa2TraceExtra { fields })),
                        ..QaConversation::default()
                    },
                ))
            }
        }
    }
    if !groups.is_empty() {
        diags.push(Diagnostic {
            severity: crate::diag::Severity::Info,
            file: path.into(),
            line: None,
            record: None,
            message: "scored from turns.csv, which does not record conversation_type, the \
                      dataset's num_turns (the row count is used), features, validator logs, \
                      tool calls or error contexts"
                .to_string(),
        });
    }
    let mut ctx = Ctx {
        path,
        diags: Vec::new(),
    };
    let mut out = Vec::with_capacity(groups.len());
    for (key, mut conv) in groups {
        sort_turns(&mut conv.turns, path, &key, &key, &mut ctx);
        out.push(conv);
    }
    diags.extend(ctx.diags);
    (out, diags)
}

fn csv_turn(file: &Arc<str>, line: u32, cell: &mut dyn FnMut(&str) -> RawValue) -> QaTurn {
    let tools_used = match cell("tools_used") {
        RawValue::Str(s) if !s.is_empty() => s.split(',').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let extra = Fa2TurnExtra {
        turn_tokens: cell("turn_tokens"),
        prompt_tokens: cell("prompt_tokens"),
        completion_tokens: cell("completion_tokens"),
        turn_llm_calls: cell("turn_llm_calls"),
        turn_tool_calls: cell("turn_tool_calls"),
        turn_latency_ms: cell("turn_latency_ms"),
        plan_type: cell("plan_type"),
        plan_steps: cell("plan_steps"),
        plan_complexity: cell("plan_complexity"),
        validator_retries: cell("validator_retries"),
        validator_valid: cell("validator_valid"),
        validator_confidence: cell("validator_confidence"),
        tools_used,
        tool_calls: Vec::new(),
        llm_calls: Vec::new(),
        logic_recall: cell("logic_recall"),
        operations_per_turn: cell("operations_per_turn"),
        error_occurred: cell("error_occurred"),
        timestamp_start: RawValue::Null,
        timestamp_end: RawValue::Null,
    };
    let error_type = str_of(cell("error_type"));
    let error_message = str_of(cell("error_message"));
    let error_occurred = bool_of(&extra.error_occurred) == Some(true);
    let error =
        (error_occurred || error_type.is_some() || error_message.is_some()).then(|| TurnError {
            error_type: error_type.unwrap_or_default(),
            message: error_message.unwrap_or_default(),
            context: None,
        });
    let predicted = match cell("actual_answer") {
        RawValue::Null => None,
        v => Some(v),
    };
    QaTurn {
        turn_idx: u32_of(&cell("turn_idx")).unwrap_or(0),
        question: str_of(cell("question")).unwrap_or_default(),
        expected: cell("expected_answer"),
        predicted,
        plan: None,
        plan_steps: u32_of(&extra.plan_steps),
        ground_truth_program: str_of(cell("ground_truth_program")),
        executed_answer: None,
        tokens: Tokens {
            prompt: u64_of(&extra.prompt_tokens),
            completion: u64_of(&extra.completion_tokens),
            total: u64_of(&extra.turn_tokens),
        },
        latency_ms: extra.turn_latency_ms.as_f64(),
        error: error.map(Box::new),
        original: OriginalTurnScores {
            numerical_match: bool_of(&cell("numerical_match")),
            financial_match: bool_of(&cell("financial_match")),
            soft_match: bool_of(&cell("soft_match")),
            logic_recall: extra.logic_recall.as_f64(),
            operations_per_turn: u32_of(&extra.operations_per_turn),
            ..OriginalTurnScores::default()
        },
        source: SourceRef {
            file: file.clone(),
            line: Some(line),
            record: None,
        },
        validator_logs: Vec::new(),
        fa2: Some(Box::new(extra)),
    }
}

/// The `trace_id` column of the writer's `summary.csv` (or `turns.csv`), in file order without
/// repeats: the order in which the original writer held its traces. Rows are read as
/// [`read_turns_csv`] reads them ([`crate::csv_rows`]: rows a stray quote merged are read line by
/// line again); the diagnostics are the file's `path`'s.
pub fn trace_order_from_csv(path: &str, bytes: &[u8]) -> (Vec<String>, Vec<Diagnostic>) {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut diags = Vec::new();
    let Some(mut rows) = CsvRows::new(path, body, &mut diags) else {
        return (Vec::new(), diags);
    };
    let Some(col) = rows.header().iter().position(|c| c == "trace_id") else {
        return (Vec::new(), diags);
    };
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut rec = csv::StringRecord::new();
    while rows.next_row(&mut diags, &mut rec).is_some() {
        if let Some(id) = rec.get(col) {
            if !id.is_empty() && seen.insert(id.to_string()) {
                out.push(id.to_string());
            }
        }
    }
    (out, diags)
}

// ---------------------------------------------------------------------------------------------
// Run folder

fn is_under_traces(path: &str) -> bool {
    path.starts_with("traces/") || path.contains("/traces/")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Reads a financial-agent-2 run folder: every trace JSON (by content), else `turns.csv`; the
/// original `statistics.json` (and `config.json`) as originally scored; the original CSVs listed.
///
/// Conversations come in the original writer's order (the `trace_id` order of `summary.csv`, else
/// `turns.csv`), then any others by path. Every file gets an [`InputFileReport`].
pub fn read_run_folder(input: &RunInput) -> QaRun {
    let mut run = QaRun {
        name: input.name.clone(),
        ..QaRun::default()
    };
    let mut files: Vec<&crate::input::InputFile> = input.files.iter().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));

    let mut traces: Vec<QaConversation> = Vec::new();
    let mut turns_csv: Option<&crate::input::InputFile> = None;
    let mut order: Vec<String> = Vec::new();
    let mut order_from_turns: Vec<String> = Vec::new();
    let mut turns_order_diags: Vec<Diagnostic> = Vec::new();
    let mut reports = Vec::new();
    let mut original = OriginalFiles::default();

    for f in &files {
        let report =
            |format: Option<&str>, status: FileStatus, reason: Option<String>| InputFileReport {
                path: f.path.clone(),
                bytes: f.bytes.len() as u64,
                format: format.map(str::to_string),
                status,
                reason,
            };
        let name = file_name(&f.path);
        if name.ends_with(".json") && looks_like_trace(&f.bytes) {
            match read_trace(&f.path, &f.bytes) {
                Ok((conv, diags)) => {
                    let status = if diags.is_empty() {
                        FileStatus::Parsed
                    } else {
                        FileStatus::PartlyParsed
                    };
                    let reason =
                        (!diags.is_empty()).then(|| format!("{} diagnostic(s)", diags.len()));
                    reports.push(report(Some(FORMAT_TRACE), status, reason));
                    run.diagnostics.extend(diags);
                    traces.push(conv);
                }
                Err(diags) => {
                    let reason = diags.first().map(|d| d.message.clone());
                    reports.push(report(Some(FORMAT_TRACE), FileStatus::Skipped, reason));
                    run.diagnostics.extend(diags);
                }
            }
            continue;
        }
        match name {
            "statistics.json" | "config.json" if !is_under_traces(&f.path) => {
                match parse_py_json(&f.bytes) {
                    Ok(v) => {
                        crate::json_keys::warn_duplicates(
                            &mut run.diagnostics,
                            &f.path,
                            &f.bytes,
                            1,
                        );
                        original.json.push((f.path.clone(), v));
                        let fmt = (name == "statistics.json").then_some(FORMAT_STATISTICS);
                        reports.push(report(
                            fmt.or(Some("fa2-config")),
                            FileStatus::Parsed,
                            Some("kept as originally scored".to_string()),
                        ));
                    }
                    Err(e) => {
                        let line = u32::try_from(e.line()).ok().filter(|&l| l > 0);
                        run.diagnostics.push(Diagnostic::error(
                            &f.path,
                            line,
                            format!("not valid JSON: {e}"),
                        ));
                        reports.push(report(None, FileStatus::Skipped, Some(e.to_string())));
                    }
                }
            }
            "turns.csv" if looks_like_turns_csv(&f.bytes) => {
                // Its problems are reported by whichever reads it: `read_turns_csv` below, or
                // this order alone when the traces are the source.
                (order_from_turns, turns_order_diags) = trace_order_from_csv(&f.path, &f.bytes);
                turns_csv = Some(f);
                original.csv.push(f.path.clone());
            }
            "summary.csv" | "errors.csv" | "validation.csv" => {
                let mut status = FileStatus::Parsed;
                let mut reason = Some("kept as originally scored".to_string());
                if name == "summary.csv" {
                    let diags;
                    (order, diags) = trace_order_from_csv(&f.path, &f.bytes);
                    if let (FileStatus::PartlyParsed, why) = crate::accounting::status_of(&diags) {
                        (status, reason) = (FileStatus::PartlyParsed, why);
                    }
                    run.diagnostics.extend(diags);
                }
                original.csv.push(f.path.clone());
                reports.push(report(Some(FORMAT_ORIGINAL_CSV), status, reason));
            }
            _ => {
                let reason = if name.ends_with(".json") {
                    "not a financial-agent-2 trace (no trace_id/conversation_id/turns)"
                } else {
                    "not a financial-agent-2 run file"
                };
                reports.push(report(None, FileStatus::Skipped, Some(reason.to_string())));
            }
        }
    }

    if let Some(f) = turns_csv {
        if traces.is_empty() {
            let (convs, diags) = read_turns_csv(&f.path, &f.bytes);
            let status = if convs.is_empty() {
                FileStatus::Skipped
            } else if diags.is_empty() {
                FileStatus::Parsed
            } else {
                FileStatus::PartlyParsed
            };
            let reason = (!diags.is_empty()).then(|| format!("{} diagnostic(s)", diags.len()));
            reports.push(InputFileReport {
                path: f.path.clone(),
                bytes: f.bytes.len() as u64,
                format: Some(FORMAT_TURNS_CSV.to_string()),
                status,
                reason,
            });
            run.diagnostics.extend(diags);
            traces = convs;
        } else {
            reports.push(InputFileReport {
                path: f.path.clone(),
                bytes: f.bytes.len() as u64,
                format: Some(FORMAT_TURNS_CSV.to_string()),
                status: FileStatus::Parsed,
                reason: Some("kept as originally scored; the traces are the source".to_string()),
            });
            run.diagnostics.extend(turns_order_diags);
        }
    }

    if order.is_empty() {
        order = order_from_turns;
    }
    // Stable: listed traces in the original order, the rest by path.
    traces.sort_by_key(|c| {
        let id = c.trace_id.as_deref().unwrap_or("");
        order.iter().position(|o| o == id).unwrap_or(usize::MAX)
    });
    run.conversations = traces;
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    run.files = reports;
    run.original = original;
    run
}

#[cfg(test)]
mod tests;
