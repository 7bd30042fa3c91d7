//! A numeric QA turn's query fields ([`crate::query`]), under the canonical JSONL's names
//! (docs/formats.md): `conversation_id`, `turn_idx`, `question`, `expected`, `predicted`,
//! `model`, `conversation_type`, `trace_id`, `latency_ms`, `prompt_tokens`, `completion_tokens`,
//! `total_tokens`, `error_type`, `error_message` (`error`: the message, else the type), `plan_steps`, `plan_operations`,
//! `ground_truth_program`, `features.*`, the verdicts as originally scored (`numerical_match`,
//! …); the normalised `latency_s`, `tokens.*`, `cost_usd`, `error`; each comparison scorer's
//! verdict as `score.<id>` (a doc-v1 scorer also by its bare name, `score.numerical_match`) and
//! why nothing could be compared (`why`); `tool` for each plan step's tool; `conversation_error`
//! for a conversation that failed as a whole.

use crate::numeric_qa::aggregate::doc::turn_cost;
use crate::numeric_qa::compare::{turn_verdict, QA_COMPARE_SCORERS};
use crate::numeric_qa::score::ScoredQaRun;
use crate::query::{Docs, Value};
use crate::run_table::ItemKey;

/// Adds each turn's fields to its doc.
pub fn query_fields(s: &ScoredQaRun, docs: &mut Docs<'_>) {
    for ts in &s.turns {
        let Some(conv) = s.run.conversations.get(ts.conv as usize) else {
            continue;
        };
        let Some(turn) = conv.turns.get(ts.turn as usize) else {
            continue;
        };
        let Some(d) = docs.get(&ItemKey::text_index(&conv.id, turn.turn_idx.into())) else {
            continue;
        };
        if d.fields.iter().any(|(k, _)| k == "conversation_id") {
            continue; // a repeated key: the first turn is the item
        }
        d.rename_text("answer", "predicted");
        d.push("conversation_id", Value::Str(conv.id.clone()));
        d.push("turn_idx", Value::Num(f64::from(turn.turn_idx)));
        d.push_str("model", conv.model.as_deref());
        d.push_str("conversation_type", conv.conversation_type.as_deref());
        d.push_str("trace_id", conv.trace_id.as_deref());
        if let Some(f) = &conv.failure {
            d.push_text("conversation_error", f);
        }
        d.push_num("latency_ms", turn.latency_ms);
        d.push_num("latency_s", turn.latency_ms.map(|ms| ms / 1000.0));
        let t = &turn.tokens;
        for (raw, norm, v) in [
            ("prompt_tokens", "tokens.input", t.prompt),
            ("completion_tokens", "tokens.output", t.completion),
            ("total_tokens", "tokens.total", t.total()),
        ] {
            d.push_num(raw, v.map(|v| v as f64));
            d.push_num(norm, v.map(|v| v as f64));
        }
        d.push_num("cost_usd", turn_cost(&s.config.prices, conv, turn));
        if let Some(e) = &turn.error {
            d.push("error_type", Value::Str(e.error_type.clone()));
            d.push("error_message", Value::Str(e.message.clone()));
            let text = if e.message.trim().is_empty() {
                &e.error_type
            } else {
                &e.message
            };
            d.push_text("error", text);
        }
        if let Some(p) = &turn.plan {
            for step in &p.steps {
                d.push("tool", Value::Str(step.tool.to_string()));
                if let Some(o) = &step.operation {
                    d.push("plan_operations", Value::Str(o.to_string()));
                }
            }
        }
        d.push_num("plan_steps", turn.plan_steps.map(f64::from));
        d.push_str("ground_truth_program", turn.ground_truth_program.as_deref());
        let f = &conv.features;
        d.push_num(
            "features.num_dialogue_turns",
            f.num_dialogue_turns.map(f64::from),
        );
        for (name, v) in [
            ("features.has_type2_question", f.has_type2_question),
            ("features.has_duplicate_columns", f.has_duplicate_columns),
            ("features.has_non_numeric_values", f.has_non_numeric_values),
        ] {
            if let Some(b) = v {
                d.push(name, Value::Bool(b));
            }
        }
        for (name, v) in turn.original.flags() {
            if let Some(b) = v {
                d.push(name, Value::Bool(b));
            }
        }
        d.push_num("logic_recall", ts.logic.recall);
        d.push_num("logic_precision", ts.logic.precision);
        d.push_num("logic_f1", ts.logic.f1);
        d.push_num("operations_per_turn", ts.operations_per_turn.map(f64::from));
        for sc in QA_COMPARE_SCORERS {
            let Some(v) = turn_verdict(ts, sc.id) else {
                continue;
            };
            d.push(format!("score.{}", sc.id), Value::Bool(v));
            if sc.version() == crate::numeric_qa::score::doc::VERSION {
                d.push(format!("score.{}", sc.name()), Value::Bool(v));
            }
        }
        if let Some(why) = &ts.answer.reason {
            d.push_text("why", why);
        }
    }
}
