//! A lake's runs as evalboard's run rows ([`crate::evallog::evalboard_rows`]): each `runs` row
//! with its `samples`, `verdicts` and `sample_text` rows becomes one JSONL file, which the
//! eval-log family reads like any log. `compare LAKE`, `report LAKE` (and any consumer that
//! takes runs) then take the runs a lake holds, judged by the verdicts as exported.
//!
//! Bounded by the tables' own size: one pass per table, the rows grouped by `run_id` and
//! `item_key` in hash maps of borrowed cells.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::{Cell, Table};
use crate::evallog::evalboard_rows::{HEADER_KEY, VERSION};

/// One run of a lake as run rows.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRows {
    pub run_id: String,
    /// The run's name, as `score` printed it.
    pub name: String,
    /// The rows file: a header line, then one line per item.
    pub bytes: Vec<u8>,
}

fn col<'t>(t: &Table, row: &'t [Cell], name: &str) -> &'t Cell {
    t.schema
        .index_of(name)
        .and_then(|i| row.get(i))
        .unwrap_or(&Cell::Null)
}

fn str_of<'t>(t: &Table, row: &'t [Cell], name: &str) -> Option<&'t str> {
    match col(t, row, name) {
        Cell::Str(s) => Some(s),
        _ => None,
    }
}

fn json_of(c: &Cell) -> Value {
    match c {
        Cell::Null => Value::Null,
        Cell::Str(s) => Value::from(s.as_str()),
        Cell::Int(i) | Cell::Micros(i) => Value::from(*i),
        Cell::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
        Cell::Bool(b) => Value::from(*b),
    }
}

/// Each `(to, from)`: the row's column `from`, when not null, as the line's `to`.
fn copy(line: &mut Map<String, Value>, t: &Table, row: &[Cell], pairs: &[(&str, &str)]) {
    for (to, from) in pairs {
        let v = json_of(col(t, row, from));
        if !v.is_null() {
            line.insert((*to).to_string(), v);
        }
    }
}

/// A JSON object column's value (`metadata_json`), `{}` when absent or not an object.
fn object_of(t: &Table, row: &[Cell], name: &str) -> Value {
    str_of(t, row, name)
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Map::new()))
}

/// The rows of a table by `(run_id, item_key)`, in table order.
fn by_item(t: Option<&Table>) -> HashMap<(&str, &str), Vec<&[Cell]>> {
    let mut out: HashMap<(&str, &str), Vec<&[Cell]>> = HashMap::new();
    let Some(t) = t else {
        return out;
    };
    for row in &t.rows {
        if let (Some(run), Some(key)) = (str_of(t, row, "run_id"), str_of(t, row, "item_key")) {
            out.entry((run, key)).or_default().push(row);
        }
    }
    out
}

/// Every run of `runs` as run rows, in `runs`' order, with the items `samples` holds for it
/// (their verdicts from `verdicts`, their texts from `sample_text` when given). A run with no
/// samples gives a header alone.
pub fn run_rows(
    runs: &Table,
    samples: Option<&Table>,
    verdicts: Option<&Table>,
    texts: Option<&Table>,
) -> Vec<RunRows> {
    let verdicts_of = by_item(verdicts);
    let texts_of = by_item(texts);
    let mut samples_of: HashMap<&str, Vec<&[Cell]>> = HashMap::new();
    if let Some(t) = samples {
        for row in &t.rows {
            if let Some(run) = str_of(t, row, "run_id") {
                samples_of.entry(run).or_default().push(row);
            }
        }
    }
    let mut out = Vec::new();
    for run in &runs.rows {
        let Some(run_id) = str_of(runs, run, "run_id") else {
            continue;
        };
        let name = str_of(runs, run, "name").unwrap_or(run_id).to_string();
        let mut head = Map::new();
        for c in runs.schema.columns {
            let v = match c.name {
                "metadata_json" => object_of(runs, run, c.name),
                // Kept by the lake; not needed to read the run again.
                "statistics_json" | "metrics_json" | "input_files_json" => continue,
                _ => json_of(col(runs, run, c.name)),
            };
            let key = if c.name == "metadata_json" {
                "metadata"
            } else {
                c.name
            };
            head.insert(key.to_string(), v);
        }
        let mut bytes = json!({ HEADER_KEY: VERSION, "run": Value::Object(head) }).to_string();
        bytes.push('\n');
        let (Some(st), rows) = (samples, samples_of.get(run_id)) else {
            out.push(RunRows {
                run_id: run_id.to_string(),
                name,
                bytes: bytes.into_bytes(),
            });
            continue;
        };
        for s in rows.into_iter().flatten() {
            let Some(key_text) = str_of(st, s, "item_key") else {
                continue;
            };
            let key: Value = serde_json::from_str(key_text).unwrap_or(Value::Null);
            let mut line = Map::new();
            line.insert("item_key".into(), key);
            copy(
                &mut line,
                st,
                s,
                &[
                    ("epoch", "epoch"),
                    ("status", "status"),
                    ("error", "error"),
                    ("answer", "extracted_answer"),
                    ("input_tokens", "input_tokens"),
                    ("output_tokens", "output_tokens"),
                    ("reasoning_tokens", "reasoning_tokens"),
                    ("latency_ms", "latency_ms"),
                    ("cost_usd", "cost_usd"),
                ],
            );
            line.insert("metadata".into(), object_of(st, s, "metadata_json"));
            if let (Some(tt), Some(t)) = (
                texts,
                texts_of.get(&(run_id, key_text)).and_then(|r| r.first()),
            ) {
                copy(
                    &mut line,
                    tt,
                    t,
                    &[
                        ("input", "input_text"),
                        ("expected", "expected_text"),
                        ("output", "output_text"),
                        ("reasoning", "reasoning_text"),
                    ],
                );
            }
            if let (Some(vt), Some(rows)) = (verdicts, verdicts_of.get(&(run_id, key_text))) {
                let list: Vec<Value> = rows
                    .iter()
                    .map(|v| {
                        json!({
                            "scorer": json_of(col(vt, v, "scorer")),
                            "value": json_of(col(vt, v, "value")),
                            "correct": json_of(col(vt, v, "correct")),
                            "label": json_of(col(vt, v, "label")),
                        })
                    })
                    .collect();
                line.insert("verdicts".into(), Value::Array(list));
            }
            bytes.push_str(&Value::Object(line).to_string());
            bytes.push('\n');
        }
        out.push(RunRows {
            run_id: run_id.to_string(),
            name,
            bytes: bytes.into_bytes(),
        });
    }
    out
}
