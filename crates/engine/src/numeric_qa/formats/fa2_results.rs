//! financial-agent-2 batch results reader: `results.json` (a list of per-conversation entries with
//! turns, plans and tokens) into the canonical model.
//!
//! Turns are numbered from 1 in this format: `turn_idx = turn − 1`. An entry with `error` and no
//! turns (e.g. `Evaluation timeout (300s)`) is a conversation that failed as a whole.

use std::borrow::Cow;

use crate::numeric_qa::model::plan_word;

use serde::Deserialize;
use serde_json::Value;

use crate::diag::SourceRef;
use crate::diag::{line_of_offset, Diagnostic};
use crate::numeric_qa::model::{
    Features, OriginalTurnScores, Plan, PlanStep, QaConversation, QaTurn, RawValue, StepDetail,
    Tokens, TurnError,
};

/// Cheap content sniff: a JSON array whose first object has `example_id` and `turns` or `error`.
pub fn looks_like_results(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('[') && t.contains("\"example_id\"")
}

#[derive(Deserialize)]
struct Entry {
    example_id: Option<Value>,
    model: Option<String>,
    #[serde(default)]
    features: Option<Value>,
    num_turns: Option<Value>,
    turns: Option<Vec<Value>>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct RawTurn {
    answer: Option<Value>,
    expected: Option<Value>,
    question: Option<Value>,
    turn: Option<Value>,
    execution_time_ms: Option<Value>,
    plan: Option<Value>,
    step_results: Option<Value>,
    error: Option<Value>,
    numerical_match: Option<Value>,
    financial_match: Option<Value>,
    soft_match: Option<Value>,
    tokens: Option<Value>,
    ground_truth_program: Option<Value>,
    turn_program: Option<Value>,
}

fn as_u64(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

/// An integer JSON number (`3`, `-1`, `3.0`) as an `i128`; `None` for anything else. Turn
/// numbers and counts go through it so that one outside `u32` is refused, not truncated.
fn as_int(v: Option<&Value>) -> Option<i128> {
    let Value::Number(n) = v? else { return None };
    n.as_u64()
        .map(i128::from)
        .or_else(|| n.as_i64().map(i128::from))
        .or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.fract() == 0.0)
                .map(|f| f as i128)
        })
}

/// A count (`num_turns`, `features.num_dialogue_turns`): an integer outside `u32` is not used,
/// and `refused` says so (as qa_jsonl refuses a turn number out of that range).
fn count(v: Option<&Value>, name: &str, refused: &mut Vec<String>) -> Option<u32> {
    let n = as_int(v)?;
    let c = u32::try_from(n).ok();
    if c.is_none() {
        refused.push(format!("{name} {n} out of range; not used"));
    }
    c
}

fn as_f64(v: Option<&Value>) -> Option<f64> {
    v?.as_f64()
}

fn as_bool(v: Option<&Value>) -> Option<bool> {
    v?.as_bool()
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Reads dataset features (`num_dialogue_turns`, `has_*`) from a JSON object; a turn count out
/// of range is left out and noted in `refused`.
pub(crate) fn features_from(v: Option<&Value>, refused: &mut Vec<String>) -> Features {
    let Some(Value::Object(m)) = v else {
        return Features::default();
    };
    Features {
        num_dialogue_turns: count(
            m.get("num_dialogue_turns"),
            "features.num_dialogue_turns",
            refused,
        ),
        has_type2_question: as_bool(m.get("has_type2_question")),
        has_duplicate_columns: as_bool(m.get("has_duplicate_columns")),
        has_non_numeric_values: as_bool(m.get("has_non_numeric_values")),
    }
}

/// Reads a plan `{steps: [{tool, operation, ...}]}`; `None` when absent or not an object.
pub(crate) fn plan_from(v: Option<&Value>) -> Option<Plan> {
    plan_with_results(v, None)
}

/// [`plan_from`], each step with its query and its result in `step_results` (`{"<step_id>":
/// value}`) when the source records them ([`StepDetail`]).
pub(crate) fn plan_with_results(v: Option<&Value>, results: Option<&Value>) -> Option<Plan> {
    let Value::Object(m) = v? else { return None };
    let steps = m.get("steps")?.as_array()?;
    Some(Plan {
        steps: steps
            .iter()
            .map(|s| PlanStep {
                tool: s
                    .get("tool")
                    .and_then(Value::as_str)
                    .map_or(Cow::Borrowed(""), plan_word),
                operation: s.get("operation").and_then(Value::as_str).map(plan_word),
                detail: step_detail(s, results),
            })
            .collect(),
    })
}

fn cut(s: &str) -> String {
    crate::text::clip_at(s, StepDetail::MAX_TEXT).into_owned()
}

/// A value in a step's words: a string as written, a number as JSON, anything else compact JSON.
fn value_words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// An object without its null fields (nested objects too, to a small depth), as compact JSON.
fn without_nulls(v: &Value, depth: u8) -> Value {
    match v {
        Value::Object(m) if depth < 4 => Value::Object(
            m.iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.clone(), without_nulls(x, depth + 1)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A step's query and result; `None` when it records neither.
fn step_detail(s: &Value, results: Option<&Value>) -> Option<Box<StepDetail>> {
    let operands = s.get("operands").and_then(Value::as_array);
    let query = match (s.get("operation").and_then(Value::as_str), operands) {
        (Some(op), Some(args)) => {
            let args: Vec<String> = args
                .iter()
                .take(32)
                .map(
                    |a| match (a.get("step_ref").and_then(Value::as_i64), a.get("value")) {
                        (_, Some(v)) if !v.is_null() => value_words(v),
                        (Some(r), _) => format!("#{r}"),
                        _ => value_words(a),
                    },
                )
                .collect();
            Some(format!("{op}({})", args.join(", ")))
        }
        _ => {
            let params = ["table_params", "text_params", "params"]
                .iter()
                .find_map(|k| s.get(*k).filter(|p| !p.is_null()));
            let source = s.get("source").and_then(Value::as_str);
            match (source, params) {
                (None, None) => None,
                (Some(src), None) => Some(src.to_string()),
                (src, Some(p)) => {
                    let p = value_words(&without_nulls(p, 0));
                    Some(src.map_or(p.clone(), |src| format!("{src} {p}")))
                }
            }
        }
    };
    let id = s.get("step_id").map(value_words);
    let result = results
        .and_then(Value::as_object)
        .zip(id)
        .and_then(|(r, id)| r.get(&id))
        .map(value_words);
    (query.is_some() || result.is_some()).then(|| {
        Box::new(StepDetail {
            query: query.as_deref().map(cut),
            result: result.as_deref().map(cut),
        })
    })
}

/// Reads one results.json file. `Err` only when the file is not a JSON list of entries at all.
pub fn read_results(
    path: &str,
    bytes: &[u8],
) -> Result<(Vec<QaConversation>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let file: std::sync::Arc<str> = path.into();
    let entries: Vec<Value> = match serde_json::from_slice::<Vec<Value>>(bytes) {
        Ok(v) => v,
        Err(e) => {
            let line = u32::try_from(e.line()).ok().filter(|l| *l > 0);
            return Err(vec![Diagnostic::error(
                path,
                line.or(Some(line_of_offset(bytes, 0))),
                format!("not a results.json list of conversations: {e}"),
            )]);
        }
    };
    let mut diags = Vec::new();
    crate::json_keys::warn_duplicates(&mut diags, path, bytes, 1);
    let mut out = Vec::with_capacity(entries.len());
    for (i, raw) in entries.into_iter().enumerate() {
        let rec = format!("entry {i}");
        let entry: Entry = match serde_json::from_value(raw) {
            Ok(e) => e,
            Err(e) => {
                diags.push(
                    Diagnostic::error(path, None, format!("entry skipped: {e}")).with_record(rec),
                );
                continue;
            }
        };
        let Some(id) = text(entry.example_id.as_ref()) else {
            diags.push(
                Diagnostic::error(path, None, "entry skipped: no example_id").with_record(rec),
            );
            continue;
        };
        let mut refused = Vec::new();
        let mut features = features_from(entry.features.as_ref(), &mut refused);
        if features.num_dialogue_turns.is_none() {
            features.num_dialogue_turns =
                count(entry.num_turns.as_ref(), "num_turns", &mut refused);
        }
        for msg in refused {
            diags.push(Diagnostic::warning(path, None, msg).with_record(rec.clone()));
        }
        let mut conv = QaConversation {
            id: id.clone(),
            model: entry.model.clone(),
            features,
            source: SourceRef {
                file: file.clone(),
                line: None,
                record: Some(i as u32),
            },
            ..Default::default()
        };
        let turns = entry.turns.unwrap_or_default();
        if turns.is_empty() {
            match text(entry.error.as_ref()) {
                Some(err) => conv.failure = Some(err),
                None => diags.push(
                    Diagnostic::warning(path, None, format!("conversation {id} has no turns"))
                        .with_record(rec.clone()),
                ),
            }
        }
        for (j, t) in turns.into_iter().enumerate() {
            let trec = format!("{id} turn {}", j + 1);
            let rt: RawTurn = match serde_json::from_value(t) {
                Ok(t) => t,
                Err(e) => {
                    diags.push(
                        Diagnostic::error(path, None, format!("turn skipped: {e}"))
                            .with_record(trec),
                    );
                    continue;
                }
            };
            let turn_idx = match as_int(rt.turn.as_ref()) {
                // 1-based: turn 1 is index 0, up to index u32::MAX (qa_jsonl's turn_idx range).
                Some(n) if n != 0 => match u32::try_from(n - 1) {
                    Ok(idx) => idx,
                    Err(_) => {
                        diags.push(
                            Diagnostic::error(
                                path,
                                None,
                                format!("turn skipped: turn {n} out of range"),
                            )
                            .with_record(trec),
                        );
                        continue;
                    }
                },
                Some(_) => {
                    diags.push(
                        Diagnostic::warning(
                            path,
                            None,
                            "turn number 0 in a 1-based format; using its position",
                        )
                        .with_record(trec.clone()),
                    );
                    j as u32
                }
                None => j as u32,
            };
            let tokens = match rt.tokens.as_ref() {
                Some(Value::Object(m)) => Tokens {
                    prompt: as_u64(m.get("prompt_tokens")),
                    completion: as_u64(m.get("completion_tokens")),
                    total: as_u64(m.get("total_tokens")),
                },
                _ => Tokens::default(),
            };
            let error = text(rt.error.as_ref()).map(|msg| TurnError {
                error_type: error_type_of(&msg),
                message: msg,
                context: None,
            });
            let predicted = match rt.answer.as_ref() {
                None | Some(Value::Null) => None,
                Some(v) => Some(RawValue::from_json(v)),
            };
            let plan = plan_with_results(rt.plan.as_ref(), rt.step_results.as_ref());
            conv.turns.push(QaTurn {
                turn_idx,
                question: text(rt.question.as_ref()).unwrap_or_default(),
                expected: rt
                    .expected
                    .as_ref()
                    .map(RawValue::from_json)
                    .unwrap_or(RawValue::Null),
                predicted,
                plan_steps: plan.as_ref().map(|p| p.steps.len() as u32),
                plan,
                ground_truth_program: text(rt.ground_truth_program.as_ref())
                    .or_else(|| text(rt.turn_program.as_ref())),
                executed_answer: None,
                tokens,
                latency_ms: as_f64(rt.execution_time_ms.as_ref()),
                error: error.map(Box::new),
                original: OriginalTurnScores {
                    numerical_match: as_bool(rt.numerical_match.as_ref()),
                    financial_match: as_bool(rt.financial_match.as_ref()),
                    soft_match: as_bool(rt.soft_match.as_ref()),
                    ..Default::default()
                },
                source: SourceRef {
                    file: file.clone(),
                    line: None,
                    record: Some(i as u32),
                },
                validator_logs: Vec::new(),
                fa2: None,
            });
        }
        super::check_turn_order(path, &mut conv, &mut diags);
        out.push(conv);
    }
    Ok((out, diags))
}

/// An error type for a free-text error message: a leading `SomethingError:` / `SomethingError(`
/// when present, otherwise the message's first words (`Evaluation timeout`).
pub(crate) fn error_type_of(msg: &str) -> String {
    let m = msg.trim();
    let head: String = m
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    if !head.is_empty()
        && (head.ends_with("Error") || head.ends_with("Exception") || head.ends_with("Timeout"))
    {
        return head.rsplit('.').next().unwrap_or(&head).to_string();
    }
    let lower = m.to_ascii_lowercase();
    if lower.contains("timeout") || lower.contains("timed out") {
        return "Timeout".into();
    }
    "Error".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_steps_keep_their_query_and_result() {
        let json = r#"[{"example_id":"A","turns":[
          {"answer":0.5,"expected":"0.5","question":"q","turn":1,
           "plan":{"steps":[
             {"step_id":1,"tool":"extract_value","source":"text","table_params":null,
              "text_params":{"context_window":"post_text","year":"2009","unit":null},"operation":null,"operands":null},
             {"step_id":2,"tool":"extract_value","source":"table","table_params":{"row":"net sales","col":"2008"}},
             {"step_id":3,"tool":"compute","operation":"divide",
              "operands":[{"type":"reference","step_ref":1,"value":null},{"type":"constant","value":2},{"type":"reference","step_ref":-1}]},
             {"step_id":4,"tool":"compute","operation":"add","operands":"oops"},
             {"tool":"lookup"}]},
           "step_results":{"1":1563.0,"3":"x".repeat(0),"2":{"v":[1,2]}}}]}]"#
            .replace(r#""x".repeat(0)"#, &format!("\"{}\"", "9".repeat(1000)));
        let (convs, diags) = read_results("r.json", json.as_bytes()).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        let steps = &convs[0].turns[0].plan.as_ref().unwrap().steps;
        let d = |i: usize| {
            steps[i]
                .detail
                .as_deref()
                .map(|d| (d.query.clone(), d.result.clone()))
        };
        assert_eq!(
            d(0),
            Some((
                Some(r#"text {"context_window":"post_text","year":"2009"}"#.into()),
                Some("1563.0".into())
            ))
        );
        assert_eq!(
            d(1),
            Some((
                Some(r#"table {"row":"net sales","col":"2008"}"#.into()),
                Some(r#"{"v":[1,2]}"#.into())
            ))
        );
        let (q, r) = d(2).unwrap();
        assert_eq!(q.as_deref(), Some("divide(#1, 2, #-1)"));
        let r = r.unwrap();
        assert!(
            r.starts_with(&"9".repeat(300)) && r.contains("(cut at 300 of 1,000"),
            "{r}"
        );
        // Operands that are not a list: no query; a step with nothing recorded: no detail.
        assert_eq!(d(3), None);
        assert_eq!(d(4), None);
        assert_eq!(steps[2].operation.as_deref(), Some("divide"));
    }

    #[test]
    fn reads_turns_plans_and_failures() {
        let json = r#"[
          {"example_id":"A","model":"o3","features":{"num_dialogue_turns":2,"has_type2_question":true},
           "num_turns":2,"turns":[
             {"answer":16.0,"expected":"16","question":"q1","turn":1,"execution_time_ms":5.5,
              "plan":{"steps":[{"tool":"extract_value","operation":null},{"tool":"compute","operation":"subtract"}]},
              "error":null,"numerical_match":true,"tokens":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}},
             {"answer":null,"expected":"2%","question":"q2","turn":2,"error":"ValueError: bad"}]},
          {"example_id":"B","features":{"num_dialogue_turns":5},"error":"Evaluation timeout (300s)"}
        ]"#;
        let (convs, diags) = read_results("r.json", json.as_bytes()).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(convs.len(), 2);
        let a = &convs[0];
        assert_eq!(a.turns[0].turn_idx, 0);
        assert_eq!(a.turns[1].turn_idx, 1);
        assert_eq!(a.turns[0].predicted, Some(RawValue::Float(16.0)));
        assert_eq!(a.turns[0].expected, RawValue::Str("16".into()));
        assert_eq!(
            a.turns[0].plan.as_ref().unwrap().compute_operations(),
            vec!["subtract"]
        );
        assert_eq!(a.turns[0].tokens.total(), Some(7));
        assert_eq!(a.turns[1].predicted, None);
        assert_eq!(a.turns[1].error.as_ref().unwrap().error_type, "ValueError");
        let b = &convs[1];
        assert_eq!(b.failure.as_deref(), Some("Evaluation timeout (300s)"));
        assert_eq!(b.expected_turns(), 5);
    }

    #[test]
    fn bad_entries_are_diagnosed_not_dropped_silently() {
        let json = r#"[{"model":"x"}, 5, {"example_id":"C","turns":[7]}]"#;
        let (convs, diags) = read_results("r.json", json.as_bytes()).unwrap();
        assert_eq!(convs.len(), 1);
        assert_eq!(diags.len(), 3, "{diags:?}");
        assert!(read_results("r.json", b"{nope").is_err());
    }

    /// A turn number or a turn count outside `u32` is refused, not truncated (as qa_jsonl
    /// refuses a turn_idx out of that range): the turn is skipped with an error, the count left
    /// out with a warning, each naming the file and the record.
    #[test]
    fn turn_numbers_and_counts_out_of_range_are_refused() {
        let json = r#"[{"example_id":"A","num_turns":4294967297,"turns":[
            {"answer":1,"expected":"1","turn":1},
            {"answer":2,"expected":"2","turn":4294967297},
            {"answer":3,"expected":"3","turn":-1},
            {"answer":4,"expected":"4","turn":4294967296}]},
          {"example_id":"B","features":{"num_dialogue_turns":-1},"turns":[
            {"answer":1,"expected":"1","turn":1}]}]"#;
        let (convs, diags) = read_results("r.json", json.as_bytes()).unwrap();
        let shown: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            shown,
            [
                "r.json [entry 0]: warning: num_turns 4294967297 out of range; not used",
                "r.json [A turn 2]: error: turn skipped: turn 4294967297 out of range",
                "r.json [A turn 3]: error: turn skipped: turn -1 out of range",
                "r.json [entry 1]: warning: features.num_dialogue_turns -1 out of range; not used",
            ]
        );
        let idx: Vec<u32> = convs[0].turns.iter().map(|t| t.turn_idx).collect();
        assert_eq!(
            idx,
            [0, u32::MAX],
            "turn 4294967296 is the last index u32 holds"
        );
        assert_eq!(convs[0].features.num_dialogue_turns, None);
        assert_eq!(convs[1].features.num_dialogue_turns, None);
        assert_eq!(convs[1].turns.len(), 1);
    }

    #[test]
    fn error_types() {
        assert_eq!(error_type_of("ValueError: could not convert"), "ValueError");
        assert_eq!(error_type_of("Evaluation timeout (300s)"), "Timeout");
        assert_eq!(error_type_of("something odd"), "Error");
    }
}
