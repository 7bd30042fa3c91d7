//! `evalboard-bench query [SAMPLES] [MESSAGES]`: the query language over a big log's
//! conversations (issue 29's Must-hold): SAMPLES samples of MESSAGES messages each (default
//! 20,000 × 20, about 200 MB of text), laid into query docs as the dashboard's worker lays a
//! read conversation (`evallog::query::add_messages`). Times each query over the docs (the
//! index) against a bare `regex` scan of the same texts, and the index's heap bytes against the
//! text's. One JSON line per query, then one for the index.

use std::time::Instant;

use evalboard_engine::evallog::messages::{Message, Part, PartKind, ToolCall};
use evalboard_engine::query::{self, Doc, Query, Value};
use evalboard_engine::run_table::ItemKey;

use crate::Rng;

const WORDS: &[&str] = &[
    "the",
    "model",
    "returned",
    "a",
    "value",
    "of",
    "revenue",
    "for",
    "2019",
    "and",
    "then",
    "called",
    "tool",
    "with",
    "arguments",
    "result",
    "was",
    "table",
    "row",
    "column",
    "sum",
    "answer",
    "is",
    "approximately",
    "percent",
    "increase",
    "compared",
    "previous",
    "year",
    "error",
    "retry",
    "request",
    "completed",
    "successfully",
    "in",
    "seconds",
];

/// About `len` bytes of words; now and then a phrase the queries look for.
fn text(r: &mut Rng, len: usize) -> String {
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        if !s.is_empty() {
            s.push(' ');
        }
        match r.below(4000) {
            0 => s.push_str("Rate limit reached, retrying"),
            1 => s.push_str("the request timed out"),
            _ => s.push_str(WORDS[r.below(WORDS.len() as u64) as usize]),
        }
    }
    s
}

fn conversation(r: &mut Rng, n: usize) -> Vec<Message> {
    (0..n)
        .map(|i| {
            let role = match i % 4 {
                0 => "user",
                1 | 3 => "assistant",
                _ => "tool",
            };
            let tool_calls = if i % 4 == 1 {
                vec![ToolCall {
                    id: Some(format!("call_{i}")),
                    function: ["bash", "python", "search"][r.below(3) as usize].into(),
                    arguments: format!("{{\"cmd\":\"{}\"}}", text(r, 60)),
                    parse_error: None,
                }]
            } else {
                Vec::new()
            };
            Message {
                role: role.into(),
                parts: vec![Part {
                    kind: PartKind::Text,
                    text: text(r, 480),
                }],
                tool_calls,
                tool_call_id: None,
                function: (role == "tool").then(|| "bash".to_string()),
                model: None,
                error: None,
            }
        })
        .collect()
}

/// The heap bytes of a doc (its vectors' capacity and each string's).
fn heap(d: &Doc) -> usize {
    d.fields.capacity() * std::mem::size_of::<(String, Value)>()
        + d.fields
            .iter()
            .map(|(k, v)| {
                k.capacity()
                    + match v {
                        Value::Str(s) => s.capacity(),
                        _ => 0,
                    }
            })
            .sum::<usize>()
        + d.texts.capacity() * std::mem::size_of::<query::Text>()
        + d.texts
            .iter()
            .map(|t| t.at.capacity() + t.text.capacity())
            .sum::<usize>()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(samples: usize, messages: usize) -> Result<(), String> {
    let mut r = Rng(29);
    let mut docs: Vec<Doc> = Vec::with_capacity(samples);
    for i in 0..samples {
        let mut d = Doc::new(ItemKey::text_index(&i.to_string(), 1));
        d.push(
            "verdict",
            Value::Str(if i % 3 == 0 { "wrong" } else { "correct" }.into()),
        );
        d.push_num("latency_s", Some((i % 900) as f64));
        evalboard_engine::evallog::query::add_messages(&mut d, &conversation(&mut r, messages));
        docs.push(d);
    }
    let text_bytes: usize = docs
        .iter()
        .flat_map(|d| d.texts.iter())
        .map(|t| t.text.len())
        .sum();
    let n_texts: usize = docs.iter().map(|d| d.texts.len()).sum();
    let index_bytes: usize =
        docs.iter().map(heap).sum::<usize>() + docs.capacity() * std::mem::size_of::<Doc>();
    for (q, pattern) in [
        ("text ~ /rate limit/i", "(?i)rate limit"),
        ("text ~ /time(d)? ?out/i", "(?i)time(d)? ?out"),
        ("text ~ /zzzz never/", "zzzz never"),
        ("text ~ /a+$/", "a+$"),
        ("text ~ /(a+)+$/", "(a+)+$"),
        ("text ~ /\\d{4}/ and verdict == wrong", "\\d{4}"),
    ] {
        let parsed = Query::parse(q).map_err(|e| e.to_string())?;
        let re = regex::Regex::new(pattern).map_err(|e| e.to_string())?;
        let mut t_query = Vec::new();
        let mut t_bare = Vec::new();
        let mut matched = 0;
        let mut bare_hits = 0;
        for _ in 0..3 {
            let t = Instant::now();
            matched = query::select(&docs, &parsed).n_matched;
            t_query.push(t.elapsed().as_secs_f64());
            // The bare scan: every text searched to its first match, as a query needs.
            let t = Instant::now();
            bare_hits = docs
                .iter()
                .filter(|d| d.texts.iter().any(|x| re.is_match(&x.text)))
                .count();
            t_bare.push(t.elapsed().as_secs_f64());
        }
        let (tq, tb) = (median(t_query), median(t_bare));
        println!(
            "{{\"bench\":\"query\",\"query\":{},\"samples\":{samples},\"texts\":{n_texts},\"text_mb\":{:.1},\"matched\":{matched},\"bare_matched\":{bare_hits},\"query_s\":{tq:.3},\"bare_regex_s\":{tb:.3},\"ratio\":{:.2}}}",
            serde_json::Value::from(q),
            text_bytes as f64 / 1e6,
            tq / tb.max(1e-9)
        );
    }
    println!(
        "{{\"bench\":\"query-index\",\"text_mb\":{:.1},\"index_mb\":{:.1},\"index_over_text\":{:.3}}}",
        text_bytes as f64 / 1e6,
        index_bytes as f64 / 1e6,
        index_bytes as f64 / text_bytes.max(1) as f64
    );
    Ok(())
}

/// `evalboard-bench query-log SAMPLES MESSAGES OUT.json`: the same conversations as [`run`] (the
/// same seed, so the same texts) written as an Inspect `.json` log, for the dashboard's side of
/// the measure (`bench/query_wasm.mjs`): the worker reads them as it reads any log's.
pub fn write_log(samples: usize, messages: usize, out: &std::path::Path) -> Result<(), String> {
    use std::io::Write;
    let mut r = Rng(29);
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let header = serde_json::json!({
        "version": 2, "status": "success",
        "eval": {
            "eval_id": "QueryBenchEval", "run_id": "QueryBenchRun", "created": "2026-12-06T12:00:00+00:00",
            "task": "query_bench", "task_version": 0, "model": "mockllm/model",
            "dataset": {"name": "query-bench", "samples": samples}, "config": {"epochs": 1},
            "scorers": [{"name": "match", "options": {}, "metrics": [{"name": "inspect_ai/accuracy", "options": {}}], "metadata": {}}],
        },
        "plan": {"name": "plan", "steps": []},
        "stats": {"started_at": "", "completed_at": ""},
    });
    let mut head = serde_json::to_string(&header).map_err(|e| e.to_string())?;
    head.pop(); // the closing brace: the samples follow
    let io = |e: std::io::Error| e.to_string();
    write!(w, "{head},\"samples\":[").map_err(io)?;
    for i in 0..samples {
        let conv = conversation(&mut r, messages);
        let msgs: Vec<serde_json::Value> = conv
            .iter()
            .map(|m| {
                let text: String = m.parts.iter().map(|p| p.text.as_str()).collect();
                let mut v = serde_json::json!({"role": m.role, "content": text});
                if !m.tool_calls.is_empty() {
                    v["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            serde_json::json!({
                                "id": c.id, "function": c.function, "type": "function",
                                "arguments": serde_json::from_str::<serde_json::Value>(&c.arguments)
                                    .unwrap_or_else(|_| c.arguments.clone().into()),
                            })
                        })
                        .collect();
                }
                if let Some(f) = &m.function {
                    v["function"] = f.clone().into();
                }
                v
            })
            .collect();
        let answer = conv
            .iter()
            .rev()
            .find(|m| m.role == "assistant")
            .map(|m| m.parts.iter().map(|p| p.text.as_str()).collect::<String>())
            .unwrap_or_default();
        let correct = i % 3 != 0;
        let sample = serde_json::json!({
            "id": i, "epoch": 1, "input": format!("question {i}"), "target": "answer",
            "messages": msgs,
            "output": {"model": "mockllm/model", "choices": [], "completion": answer},
            "scores": {"match": {"value": if correct { "C" } else { "I" }}},
            "total_time": (i % 900) as f64,
        });
        if i > 0 {
            w.write_all(b",").map_err(io)?;
        }
        serde_json::to_writer(&mut w, &sample).map_err(|e| e.to_string())?;
    }
    w.write_all(b"]}\n").map_err(io)?;
    w.flush().map_err(io)
}
