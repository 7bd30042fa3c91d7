//! An eval-log sample's query fields ([`crate::query`]), under the names its format documents:
//! the key's parts (`id`, `epoch`; lm-eval `task`, `doc_id`, `filter`; promptfoo `test`,
//! `prompt`, `repeat`; OpenAI Evals `sample_id`; HELM `instance`, `perturbation`, `trial`),
//! `input`, `target`, `output`, `error`, `metadata.*`, `score.<name>` (the value as recorded and
//! its 0–1 reading), `score.<name>.answer`, `score.<name>.explanation`, the normalised
//! `latency_s`, `tokens.*`, `cost_usd` and `model`; `verdict` adds `rescored` where a re-scorer
//! flips the recorded verdict. A conversation read later adds its messages, tool calls (`tool`)
//! and tool errors ([`add_messages`]).

use std::collections::HashSet;

use super::messages::{Message, PartKind};
use super::model::{RecordedValue, Sample, SampleKey};
use super::score::ScoredLog;
use crate::query::{Doc, Docs, Value};
use crate::run_table::ItemKey;

/// Adds each judged sample's fields to its doc.
pub fn query_fields(s: &ScoredLog, docs: &mut Docs<'_>) {
    let run = &s.log.run;
    let flips: HashSet<usize> = s.disagreements().into_iter().collect();
    for it in s.judged() {
        let Some(sample) = run.samples.get(it.sample) else {
            continue;
        };
        let Some(d) = docs.get(&ItemKey::from_parts(&it.key)) else {
            continue;
        };
        if flips.contains(&it.sample) {
            d.push("verdict", Value::Str("rescored".into()));
        }
        let bill = s.billing.samples.get(it.sample);
        d.push_str("model", Some(&super::billing::model_key(run, sample)));
        d.push_str("task", run.task.as_deref());
        d.push_num("cost_usd", sample.cost.or(bill.and_then(|b| b.cost)));
        sample_fields(sample, d);
        // promptfoo's grading reason says why a test failed (`why`, what failure cohorts group
        // by); other tools' explanations are often the output itself.
        if run.tool == super::Tool::Promptfoo {
            let judge = s.verdict_by.as_ref().map(|k| k.scorer.as_str());
            let reason = sample
                .scores
                .iter()
                .find(|e| Some(e.score_name()) == judge)
                .or(sample.scores.first())
                .and_then(|e| e.explanation.as_deref());
            if let Some(r) = reason {
                d.push_text("why", r);
            }
        }
    }
}

fn sample_fields(x: &Sample, d: &mut Doc) {
    d.rename_text("question", "input");
    d.rename_text("expected", "target");
    d.rename_text("answer", "output");
    match &x.key {
        SampleKey::Inspect { id, epoch } => {
            d.push(
                "id",
                match id {
                    super::SampleId::Int(i) => Value::Num(*i as f64),
                    super::SampleId::Str(s) => Value::Str(s.clone()),
                },
            );
            d.push("epoch", Value::Num(f64::from(*epoch)));
        }
        SampleKey::LmEval {
            task,
            doc_id,
            filter,
        } => {
            d.push("task", Value::Str(task.clone()));
            d.push("doc_id", Value::Num(*doc_id as f64));
            d.push("filter", Value::Str(filter.clone()));
        }
        SampleKey::Promptfoo {
            test,
            prompt,
            repeat,
        } => {
            d.push("test", Value::Str(test.clone()));
            d.push("prompt", Value::Str(prompt.clone()));
            d.push("repeat", Value::Num(f64::from(*repeat)));
        }
        SampleKey::OpenaiEvals { sample_id } => d.push("sample_id", Value::Str(sample_id.clone())),
        SampleKey::Helm {
            instance,
            perturbation,
            trial,
        } => {
            d.push("instance", Value::Str(instance.clone()));
            d.push_str("perturbation", perturbation.as_deref());
            d.push("trial", Value::Num(f64::from(*trial)));
        }
        SampleKey::Evalboard { parts } => {
            d.push(
                "item_key",
                Value::Str(
                    crate::run_table::ItemKey::from_parts(parts)
                        .to_json()
                        .to_string(),
                ),
            );
        }
    }
    if let Some(e) = &x.error {
        d.push_text("error", e);
    }
    d.push_num("latency_s", x.latency);
    let t = &x.tokens;
    for (name, v) in [
        ("tokens.input", t.input),
        ("tokens.output", t.output),
        ("tokens.total", t.total),
        ("tokens.reasoning", t.reasoning),
        ("tokens.cache_read", t.cache_read),
        ("tokens.cache_write", t.cache_write),
        ("tokens.replayed", t.replayed),
    ] {
        d.push_num(name, v.map(|v| v as f64));
    }
    for (k, v) in &x.metadata {
        d.push_json(&format!("metadata.{k}"), v);
    }
    for e in &x.scores {
        let name = format!("score.{}", e.score_name());
        let before = d.fields.len();
        push_recorded(d, &name, &e.value);
        // The 0–1 reading, when the value is not already that number (`C` reads 1).
        let same = d.fields[before..]
            .iter()
            .any(|(_, v)| matches!((v, e.reading), (Value::Num(a), Some(b)) if *a == b));
        if !same {
            d.push_num(&name, e.reading);
        }
        if let Some(a) = &e.answer {
            d.push(format!("{name}.answer"), Value::Str(a.clone()));
        }
        if let Some(x) = &e.explanation {
            d.push_text(format!("{name}.explanation"), x);
        }
    }
}

/// A recorded score value as query values (a list gives each element; no recursion: a list's
/// elements that are lists are left out).
fn push_recorded(d: &mut Doc, name: &str, v: &RecordedValue) {
    let one = |v: &RecordedValue| match v {
        RecordedValue::Null => Some(Value::Null),
        RecordedValue::Bool(b) => Some(Value::Bool(*b)),
        RecordedValue::Int(i) => Some(Value::Num(*i as f64)),
        RecordedValue::Float(f) if f.is_finite() => Some(Value::Num(*f)),
        RecordedValue::Float(f) => Some(Value::Str(f.to_string())),
        RecordedValue::Str(s) | RecordedValue::NonFinite(s) => Some(Value::Str(s.clone())),
        RecordedValue::List(_) => None,
    };
    match v {
        RecordedValue::List(items) => {
            for x in items {
                if let Some(v) = one(x) {
                    d.push(name, v);
                }
            }
        }
        other => {
            if let Some(v) = one(other) {
                d.push(name, v);
            }
        }
    }
}

/// Adds a sample's conversation to its doc: each message's text parts (`message 3 (assistant)`,
/// reasoning and tool results said as such), each tool call's function (`tool`) and arguments,
/// each tool error (`tool_error`). Marks the messages read.
pub fn add_messages(d: &mut Doc, messages: &[Message]) {
    for (i, m) in messages.iter().enumerate() {
        let n = i + 1;
        for p in &m.parts {
            let at = match (&m.function, p.kind) {
                (_, PartKind::Reasoning) => format!("message {n} ({}, reasoning)", m.role),
                (Some(f), _) => format!("message {n} (tool result: {f})"),
                (None, _) => format!("message {n} ({})", m.role),
            };
            d.push_text(at, &p.text);
        }
        for (j, c) in m.tool_calls.iter().enumerate() {
            d.push("tool", Value::Str(c.function.clone()));
            d.push_text(
                format!("message {n}, tool call {}: {}", j + 1, c.function),
                &c.arguments,
            );
        }
        if let Some(f) = &m.function {
            d.push("tool_result", Value::Str(f.clone()));
        }
        if let Some(e) = &m.error {
            d.push("tool_error", Value::Str(e.clone()));
            d.push_text(format!("message {n} (tool error)"), e);
        }
    }
    d.messages_read = true;
}

/// Reads every judged sample's conversation from the log files in `files` (where
/// [`super::messages::inspect_messages_at`] says it is: an `.eval` member, a chunked sample's
/// members, a `.json` log's sample) and adds it to its doc ([`add_messages`]); a doc already read
/// is left. What could not be read is returned, one line per sample (file and sample), and the
/// other samples are read. A log of another tool keeps no conversation: nothing to read.
pub fn read_conversations(
    s: &ScoredLog,
    files: &[crate::input::InputFile],
    docs: &mut Docs<'_>,
) -> Vec<String> {
    use super::archive::{Archive, Limits};
    use super::messages::{self as m, MessagesAt};
    let run = &s.log.run;
    let mut problems = Vec::new();
    for f in files.iter().filter(|f| run.files.contains(&f.path)) {
        let archive = match f.path.ends_with(".eval") {
            true => match Archive::parse(&f.bytes, Limits::default()) {
                Ok(a) => Some(a),
                Err(e) => {
                    problems.push(format!("{}: {e}", f.path));
                    continue;
                }
            },
            false => None,
        };
        // A `.json` log's samples are parsed once, not once per sample.
        #[allow(clippy::type_complexity)]
        let mut json_log: Option<
            Result<
                std::collections::HashMap<(super::SampleId, u32), Result<Vec<Message>, String>>,
                String,
            >,
        > = None;
        let member = |name: &str| -> Result<Vec<u8>, String> {
            let a = archive.as_ref().ok_or("not an .eval archive")?;
            // Texts cut as they inflate: a text bomb is held at its cut length.
            a.read_json(
                a.get(name).ok_or_else(|| format!("no member {name}"))?,
                super::long_text::MAX_TEXT_CHARS,
            )
        };
        for it in s.judged() {
            let Some(sample) = run.samples.get(it.sample) else {
                continue;
            };
            let Some(at) = m::inspect_messages_at(&f.path, sample) else {
                continue;
            };
            let Some(d) = docs.get(&ItemKey::from_parts(&it.key)) else {
                continue;
            };
            if d.messages_read {
                continue;
            }
            let read = match at {
                MessagesAt::Member(name) => {
                    member(&name).and_then(|b| m::inspect_sample_messages(&b))
                }
                MessagesAt::Chunked { shell, chunks } => (|| {
                    let a = archive.as_ref().ok_or("not an .eval archive")?;
                    let mut parts = Vec::new();
                    for n in a.names().into_iter().filter(|n| n.starts_with(&chunks)) {
                        parts.push((n.to_string(), member(n)?));
                    }
                    let refs: Vec<(&str, &[u8])> = parts
                        .iter()
                        .map(|(n, b)| (n.as_str(), b.as_slice()))
                        .collect();
                    m::inspect_chunked_sample_messages(&member(&shell)?, &refs)
                })(),
                MessagesAt::JsonLog { id, epoch } => {
                    let all = json_log.get_or_insert_with(|| {
                        m::inspect_json_log_messages(&f.bytes).map(|v| v.into_iter().collect())
                    });
                    match all {
                        Ok(all) => all.remove(&(id.clone(), epoch)).unwrap_or_else(|| {
                            Err(format!(
                                "the log holds no sample {} (epoch {epoch})",
                                id.label()
                            ))
                        }),
                        Err(e) => Err(e.clone()),
                    }
                }
            };
            match read {
                Ok(messages) => add_messages(d, &messages),
                Err(e) => problems.push(format!("{} ({}): {e}", f.path, sample.source)),
            }
        }
    }
    problems
}
