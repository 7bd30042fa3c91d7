//! "Export this view" (the dashboard's Items screen): the items a view shows, as run rows
//! ([`super::rows`], `evalboard_rows` v1), which the eval-log family reads back as a run
//! (`engine::evallog::evalboard_rows`). One function builds them for every consumer
//! ([`view_rows`]): the JSONL export is its bytes, the CSV export its lines flattened
//! ([`csv_table`]), the Parquet export the run it reads back as, written as a one-run lake.
//!
//! The rows are the lake's ([`super::build`] of the one run: every scorer's verdict as the run
//! is scored now, slice fields, texts), kept to the view's items, with each item's flip against
//! a comparison's baseline among its slice fields (`flip`) and the view in the header (`view`:
//! its filters in words, the run's items). A filtered export's header gives the headline of
//! the items kept (the mean of the judge's values, as the reader computes it), so dropping the
//! file back lists the numbers the view had.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::rows::{run_rows, RunRows};
use super::schema::{RUNS, SAMPLES, SAMPLE_TEXT, VERDICTS};
use super::{build, Cell, LakeRun, Table};
use crate::compare::CompareOptions;
use crate::run_table::ItemKey;

/// The item fields an export may leave out (its "columns": name in the request, label): the
/// key, status, error and every scorer's verdict are always kept, so the numbers read back.
pub const COLUMNS: [(&str, &str); 5] = [
    ("input", "question"),
    ("expected", "expected answer"),
    ("output", "output"),
    ("answer", "extracted answer"),
    ("metadata", "slice fields"),
];

/// The slice field an item's flip is exported as, when a comparison is open.
pub const FLIP_FIELD: &str = "flip";

/// What the view shows.
#[derive(Debug, Clone, Default)]
pub struct ViewSpec {
    /// The items its filters show; `None`: every item.
    pub keys: Option<BTreeSet<ItemKey>>,
    /// Each paired item's flip against the comparison's baseline (`regressed`, …).
    pub flips: BTreeMap<ItemKey, String>,
    /// The [`COLUMNS`] kept, by name; empty: all of them.
    pub columns: Vec<String>,
    /// The view's filters in words (kept in the header's `view`).
    pub filter: String,
}

impl ViewSpec {
    fn keeps(&self, column: &str) -> bool {
        self.columns.is_empty() || self.columns.iter().any(|c| c == column)
    }
}

fn col_of(t: &Table, name: &str) -> usize {
    t.schema.index_of(name).unwrap_or(usize::MAX)
}

fn str_at(row: &[Cell], i: usize) -> Option<&str> {
    match row.get(i) {
        Some(Cell::Str(s)) => Some(s),
        _ => None,
    }
}

fn set(row: &mut [Cell], i: usize, cell: Cell) {
    if let Some(c) = row.get_mut(i) {
        *c = cell;
    }
}

/// Keeps `t`'s rows whose `item_key` is in `keys` (every row when `None`).
fn keep_keys(t: &mut Table, keys: Option<&HashSet<String>>) {
    let Some(keys) = keys else {
        return;
    };
    let k = col_of(t, "item_key");
    t.rows
        .retain(|r| str_at(r, k).is_some_and(|key| keys.contains(key)));
}

/// The run `lr` as run rows of the items `spec` shows ([`ViewSpec`]), under `version`.
pub fn view_rows(lr: &LakeRun<'_>, spec: &ViewSpec, version: &str) -> RunRows {
    let mut tables = build(
        std::slice::from_ref(lr),
        &[],
        &CompareOptions::default(),
        version,
    );
    let mut take = |s: &'static super::TableSchema| {
        tables
            .tables
            .iter_mut()
            .find(|t| t.schema.name == s.name)
            .map(|t| std::mem::replace(t, Table::new(s)))
            .unwrap_or_else(|| Table::new(s))
    };
    let (mut runs, mut samples, mut verdicts, mut texts) = (
        take(&RUNS),
        take(&SAMPLES),
        take(&VERDICTS),
        take(&SAMPLE_TEXT),
    );
    let n_all = samples.rows.len();
    let keys: Option<HashSet<String>> = spec
        .keys
        .as_ref()
        .map(|ks| ks.iter().map(|k| k.to_json().to_string()).collect());
    for t in [&mut samples, &mut verdicts, &mut texts] {
        keep_keys(t, keys.as_ref());
    }
    let flips: BTreeMap<String, &str> = spec
        .flips
        .iter()
        .map(|(k, f)| (k.to_json().to_string(), f.as_str()))
        .collect();
    let (k, meta, answer) = (
        col_of(&samples, "item_key"),
        col_of(&samples, "metadata_json"),
        col_of(&samples, "extracted_answer"),
    );
    for row in &mut samples.rows {
        let mut fields: Map<String, Value> = match spec.keeps("metadata") {
            true => str_at(row, meta)
                .and_then(|m| serde_json::from_str(m).ok())
                .unwrap_or_default(),
            false => Map::new(),
        };
        if let Some(f) = str_at(row, k).and_then(|key| flips.get(key)) {
            fields.insert(FLIP_FIELD.into(), Value::from(*f));
        }
        set(row, meta, Cell::Str(Value::Object(fields).to_string()));
        if !spec.keeps("answer") {
            set(row, answer, Cell::Null);
        }
    }
    for (name, column) in [
        ("input", "input_text"),
        ("expected", "expected_text"),
        ("output", "output_text"),
    ] {
        if !spec.keeps(name) {
            let i = col_of(&texts, column);
            texts.rows.iter_mut().for_each(|r| set(r, i, Cell::Null));
        }
    }
    let n_kept = samples.rows.len();
    let (n_items, judge_at, headline_at) = (
        col_of(&runs, "n_items"),
        col_of(&runs, "judge"),
        col_of(&runs, "headline_value"),
    );
    if let (Some(_), Some(run)) = (&keys, runs.rows.first_mut()) {
        set(run, n_items, Cell::count(n_kept as u64));
        let judge = str_at(run, judge_at).map(str::to_string);
        let (s, v) = (col_of(&verdicts, "scorer"), col_of(&verdicts, "value"));
        let values: Vec<f64> = verdicts
            .rows
            .iter()
            .filter(|r| judge.is_some() && str_at(r, s) == judge.as_deref())
            .filter_map(|r| match r.get(v) {
                Some(Cell::Float(x)) => Some(*x),
                _ => None,
            })
            .collect();
        let mean = (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64);
        set(run, headline_at, Cell::opt_f64(mean));
    }
    let mut out = run_rows(&runs, Some(&samples), Some(&verdicts), Some(&texts))
        .into_iter()
        .next()
        .unwrap_or_else(|| RunRows {
            run_id: String::new(),
            name: lr.run.name().to_string(),
            bytes: Vec::new(),
        });
    // The view in the header: what it showed, of how many items.
    let at = out
        .bytes
        .iter()
        .position(|b| *b == b'\n')
        .unwrap_or(out.bytes.len());
    if let Ok(Value::Object(mut head)) = serde_json::from_slice::<Value>(&out.bytes[..at]) {
        head.insert(
            "view".into(),
            serde_json::json!({"filter": spec.filter, "items": n_kept, "of_items": n_all}),
        );
        let mut bytes = Value::Object(head).to_string().into_bytes();
        bytes.extend_from_slice(&out.bytes[at..]);
        out.bytes = bytes;
    }
    out
}

/// A verdict's cell: its value (1, 0, a score), else its label.
fn verdict_cell(v: &Value) -> String {
    match v.get("value") {
        Some(Value::Number(n)) => n.to_string(),
        _ => v
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}

/// Run rows as a table for a spreadsheet: a header row, then one row per item — `key` (its
/// JSON array), `status`, `error`, the texts present in any line, each slice field, then one
/// column per scorer (its value, else its label). Not read back: the JSONL is the form that is.
pub fn csv_table(rows: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let lines: Vec<Map<String, Value>> = rows
        .split(|b| *b == b'\n')
        .skip(1)
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .collect();
    let texts: Vec<&str> = ["answer", "input", "expected", "output", "reasoning"]
        .into_iter()
        .filter(|t| lines.iter().any(|l| l.contains_key(*t)))
        .collect();
    let mut fields: Vec<String> = Vec::new();
    let mut scorers: Vec<String> = Vec::new();
    for l in &lines {
        if let Some(Value::Object(m)) = l.get("metadata") {
            for f in m.keys() {
                if !fields.contains(f) {
                    fields.push(f.clone());
                }
            }
        }
        for v in l
            .get("verdicts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(s) = v.get("scorer").and_then(Value::as_str) {
                if !scorers.iter().any(|x| x == s) {
                    scorers.push(s.to_string());
                }
            }
        }
    }
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let mut head: Vec<String> = ["key", "status", "error"].map(String::from).to_vec();
    head.extend(texts.iter().map(|t| t.to_string()));
    head.extend(fields.iter().cloned());
    head.extend(scorers.iter().cloned());
    let body = lines
        .iter()
        .map(|l| {
            let mut row = vec![
                text(l.get("item_key")),
                text(l.get("status")),
                text(l.get("error")),
            ];
            row.extend(texts.iter().map(|t| text(l.get(*t))));
            let meta = l.get("metadata");
            row.extend(fields.iter().map(|f| text(meta.and_then(|m| m.get(f)))));
            let verdicts = l.get("verdicts").and_then(Value::as_array);
            row.extend(scorers.iter().map(|s| {
                verdicts
                    .into_iter()
                    .flatten()
                    .find(|v| v.get("scorer").and_then(Value::as_str) == Some(s))
                    .map(verdict_cell)
                    .unwrap_or_default()
            }));
            row
        })
        .collect();
    (head, body)
}
