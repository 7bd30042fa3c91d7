//! Readers for the eval-set family: eval sets, the five prediction shapes, eval summaries,
//! training metrics and run manifests, lowered into [`EvalRun`].
//!
//! JSONL is read line by line, so one bad line never loses the others: every bad line becomes a
//! diagnostic with its file and 1-based line, and the rest of the file is still read.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::pyfloat::{py_float, py_str};
use super::sniff::{sniff, strip_bom};
use super::{
    EvalItem, EvalRun, EvalSummary, EvalsetFileKind, Prediction, RunManifest, SummaryEntry,
    SummarySection, TrainingMetricPoint,
};
use crate::accounting::{FileStatus, InputFileReport};
use crate::diag::SourceRef;
use crate::diag::{Diagnostic, Severity};
use crate::input::InputFile;

/// An eval set read from one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalItemsRead {
    /// Items in file order; a later duplicate id is dropped (with a warning).
    pub items: Vec<EvalItem>,
    pub diagnostics: Vec<Diagnostic>,
    /// Non-blank lines that were not usable items (bad JSON, not an object, no id).
    pub n_bad_lines: usize,
}

/// Reads an eval set JSONL (`{id, prompt, expected_answer, section?, category?, difficulty?}`).
pub fn read_eval_items(path: &str, bytes: &[u8]) -> EvalItemsRead {
    let mut out = EvalItemsRead::default();
    let lines = jsonl_objects(path, bytes, &mut out.diagnostics);
    out.n_bad_lines = lines.n_bad;
    let mut seen: HashMap<String, u32> = HashMap::new();
    for (line, obj) in &lines.objects {
        let mut cx = Cx::new(path, *line, &mut out.diagnostics);
        let Some(item) = item_from_evalset_line(obj, &mut cx) else {
            out.n_bad_lines += 1;
            continue;
        };
        if let Some(first) = seen.get(&item.id) {
            cx.warn(format!(
                "duplicate item id `{}` (first at line {first}); ignored",
                item.id
            ));
            continue;
        }
        seen.insert(item.id.clone(), *line);
        out.items.push(item);
    }
    out.diagnostics.sort_by_key(|d| d.line);
    out
}

/// Reads a run folder of this family. Files of other families are reported as skipped.
/// `attached_evalset` wins over eval sets found in the folder, which win over the items that
/// research / per-item prediction rows carry themselves.
pub fn read_evalset_run(files: &[InputFile], attached_evalset: Option<&[EvalItem]>) -> EvalRun {
    let mut run = EvalRun::default();
    let mut ordered: Vec<&InputFile> = files.iter().collect();
    ordered.sort_by(|a, b| a.path.cmp(&b.path));

    let mut folder_items: Vec<EvalItem> = Vec::new();
    let mut embedded: Vec<EvalItem> = Vec::new();
    let mut per_file_predictions: Vec<(String, Vec<Prediction>)> = Vec::new();
    let mut trace_model: Option<String> = None;

    for f in ordered {
        let path = f.path.as_str();
        let n_before = run.diagnostics.len();
        let kind = sniff(path, &f.bytes);
        let n_records = match kind {
            None => {
                run.files.push(InputFileReport::new(
                    f,
                    None,
                    FileStatus::Skipped,
                    Some("not a file of the eval-set family".into()),
                ));
                continue;
            }
            Some(EvalsetFileKind::EvalSet) => {
                let r = read_eval_items(path, &f.bytes);
                run.diagnostics.extend(r.diagnostics);
                let n = r.items.len();
                folder_items.extend(r.items);
                n
            }
            Some(k) if k.is_predictions() => {
                let r = read_predictions(path, &f.bytes, k);
                run.diagnostics.extend(r.diagnostics);
                if trace_model.is_none() {
                    trace_model = r.model;
                }
                embedded.extend(r.embedded);
                let n = r.predictions.len();
                run.prediction_files.push(path.to_string());
                per_file_predictions.push((path.to_string(), r.predictions));
                n
            }
            Some(EvalsetFileKind::EvalSummary) => {
                match read_summary(path, &f.bytes, &mut run.diagnostics) {
                    Some(s) => {
                        run.summaries.push(s);
                        1
                    }
                    None => 0,
                }
            }
            Some(EvalsetFileKind::RunManifest) => {
                match read_manifest(path, &f.bytes, &mut run.diagnostics) {
                    Some(m) if run.manifest.is_some() => {
                        let first = run.manifest.as_ref().map(|m| m.file.clone());
                        run.diagnostics.push(Diagnostic::warning(
                            path,
                            None,
                            format!(
                                "a second run manifest; the first ({}) is used",
                                first.unwrap_or_default()
                            ),
                        ));
                        drop(m);
                        0
                    }
                    Some(m) => {
                        run.manifest = Some(m);
                        1
                    }
                    None => 0,
                }
            }
            Some(EvalsetFileKind::TrainingMetrics) => {
                let pts = read_training_metrics(path, &f.bytes, &mut run.diagnostics);
                let n = pts.len();
                run.training_metrics.extend(pts);
                n
            }
            // Every predictions kind is handled above.
            Some(_) => 0,
        };
        let n_errors = run.diagnostics[n_before..]
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let label = kind.map(|k| k.label().to_string());
        let (status, reason) = match (n_records, n_errors) {
            (0, _) => (
                FileStatus::Skipped,
                Some(if n_errors == 0 {
                    "no usable record".to_string()
                } else {
                    format!("no usable record ({n_errors} errors)")
                }),
            ),
            (_, 0) => (FileStatus::Parsed, None),
            (_, e) => (
                FileStatus::PartlyParsed,
                Some(format!("{e} errors (see diagnostics); the rest was read")),
            ),
        };
        run.files.push(InputFileReport {
            path: f.path.clone(),
            bytes: f.bytes.len() as u64,
            format: label,
            status,
            reason,
        });
    }

    // The items: attached, else the folder's eval sets, else what prediction rows carried.
    let mut diags = std::mem::take(&mut run.diagnostics);
    let folder_items_were_empty = folder_items.is_empty();
    run.items = if let Some(att) = attached_evalset {
        if let Some(first) = folder_items.first() {
            diags.push(Diagnostic {
                severity: Severity::Info,
                ..Diagnostic::error(
                    first.source.file.to_string(),
                    None,
                    "an eval set was attached; this eval set in the folder is not used",
                )
            });
        }
        att.to_vec()
    } else if !folder_items.is_empty() {
        dedup_items(folder_items, &mut diags)
    } else {
        // Cloned: later rows are still checked against the first one below.
        dedup_embedded(embedded.clone())
    };
    merge_embedded(&mut run.items, &embedded, &mut diags);
    let unanswerable: Vec<&EvalItem> = run.items.iter().filter(|i| i.expected.is_none()).collect();
    if let (Some(first), None, true) = (
        unanswerable.first(),
        attached_evalset,
        folder_items_were_empty,
    ) {
        diags.push(Diagnostic::warning(
            first.source.file.to_string(),
            None,
            format!(
                "{} items have no expected answer (this predictions format carries none); \
                 attach the eval set to score them",
                unanswerable.len()
            ),
        ));
    }

    // The predictions: first per item wins; one warning per file for duplicates and unknowns.
    let known: HashSet<&str> = run.items.iter().map(|i| i.id.as_str()).collect();
    let mut first_at: HashMap<String, String> = HashMap::new();
    let mut predictions = Vec::new();
    for (path, preds) in per_file_predictions {
        let mut dup: Vec<(String, Option<u32>, String)> = Vec::new();
        let mut unknown: Vec<(String, Option<u32>)> = Vec::new();
        for p in preds {
            if let Some(first) = first_at.get(&p.item_id) {
                dup.push((p.item_id.clone(), p.source.line, first.clone()));
                continue;
            }
            if !known.contains(p.item_id.as_str()) {
                unknown.push((p.item_id.clone(), p.source.line));
            }
            let at = match p.source.line {
                Some(l) => format!("{}:{l}", p.source.file),
                None => p.source.file.to_string(),
            };
            first_at.insert(p.item_id.clone(), at);
            predictions.push(p);
        }
        if let Some((id, line, first)) = dup.first() {
            diags.push(Diagnostic::warning(
                path.clone(),
                *line,
                format!(
                    "{} predictions repeat items already predicted (first: `{id}`, predicted at \
                     {first}); the first prediction is used",
                    dup.len()
                ),
            ));
        }
        if let Some((id, line)) = unknown.first() {
            diags.push(Diagnostic::warning(
                path.clone(),
                *line,
                format!(
                    "{} predictions name items that are not in the eval set (first: `{id}`); \
                     they are not scored",
                    unknown.len()
                ),
            ));
        }
    }
    run.predictions = predictions;

    run.training_metrics
        .sort_by_key(|p| (p.step.is_none(), p.step.unwrap_or(0)));
    run.model = run
        .manifest
        .as_ref()
        .and_then(|m| m.model_id.clone())
        .or(trace_model);
    run.name = run_name(&run);
    run.diagnostics = diags;
    run
}

fn run_name(run: &EvalRun) -> String {
    if let Some(m) = &run.manifest {
        if let Some(n) = m.run_version.clone().or_else(|| m.run_id.clone()) {
            return n;
        }
    }
    if let Some(p) = run.prediction_files.first() {
        let name = p.rsplit('/').next().unwrap_or(p);
        let stem = name
            .strip_suffix(".jsonl")
            .or_else(|| name.strip_suffix(".ndjson"))
            .or_else(|| name.strip_suffix(".json"))
            .unwrap_or(name);
        let stem = stem.strip_suffix("_predictions").unwrap_or(stem);
        if !stem.is_empty() {
            return stem.to_string();
        }
    }
    if let [s] = run.summaries.as_slice() {
        if let [e] = s.entries.as_slice() {
            return e.name.clone();
        }
    }
    "run".into()
}

fn dedup_items(items: Vec<EvalItem>, diags: &mut Vec<Diagnostic>) -> Vec<EvalItem> {
    let mut seen: HashMap<String, SourceRef> = HashMap::new();
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        if let Some(first) = seen.get(&it.id) {
            diags.push(Diagnostic::warning(
                it.source.file.to_string(),
                it.source.line,
                format!(
                    "duplicate item id `{}` (first in {}); ignored",
                    it.id, first.file
                ),
            ));
            continue;
        }
        seen.insert(it.id.clone(), it.source.clone());
        out.push(it);
    }
    out
}

/// Items carried by prediction rows, first per id (duplicates are reported with predictions).
fn dedup_embedded(items: Vec<EvalItem>) -> Vec<EvalItem> {
    let mut seen: HashSet<String> = HashSet::new();
    items
        .into_iter()
        .filter(|it| seen.insert(it.id.clone()))
        .collect()
}

/// Fills fields an item lacks from what prediction rows carried, and reports a prediction row
/// whose expected answer disagrees with the eval set's.
fn merge_embedded(items: &mut [EvalItem], embedded: &[EvalItem], diags: &mut Vec<Diagnostic>) {
    let mut index: HashMap<&str, &EvalItem> = HashMap::new();
    for e in embedded {
        index.entry(e.id.as_str()).or_insert(e);
        if let Some(item) = items.iter().find(|i| i.id == e.id) {
            if let (Some(a), Some(b)) = (&item.expected, &e.expected) {
                if a != b && item.source != e.source {
                    diags.push(Diagnostic::warning(
                        e.source.file.to_string(),
                        e.source.line,
                        format!(
                            "expected answer {b:?} for `{}` differs from the item's {a:?} (eval \
                             set, else first row); {a:?} is used",
                            e.id
                        ),
                    ));
                }
            }
        }
    }
    for item in items.iter_mut() {
        let Some(e) = index.get(item.id.as_str()) else {
            continue;
        };
        if item.expected.is_none() {
            item.expected.clone_from(&e.expected);
        }
        if item.prompt.is_empty() {
            item.prompt.clone_from(&e.prompt);
        }
        if item.section.is_none() {
            item.section.clone_from(&e.section);
        }
        if item.category.is_none() {
            item.category.clone_from(&e.category);
        }
        if item.difficulty.is_none() {
            item.difficulty.clone_from(&e.difficulty);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSONL plumbing
// ---------------------------------------------------------------------------------------------

pub(crate) struct JsonlObjects {
    pub objects: Vec<(u32, Map<String, Value>)>,
    /// Non-blank lines that were not JSON objects.
    pub n_bad: usize,
}

/// Every non-blank line parsed as a JSON object; each bad line becomes an error diagnostic.
pub(crate) fn jsonl_objects(path: &str, bytes: &[u8], diags: &mut Vec<Diagnostic>) -> JsonlObjects {
    let mut out = JsonlObjects {
        objects: Vec::new(),
        n_bad: 0,
    };
    let body = strip_bom(bytes);
    for (idx, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                diags.push(Diagnostic::error(
                    path,
                    Some(line_no),
                    format!(
                        "not UTF-8 text (invalid byte at column {}); line skipped",
                        e.valid_up_to() + 1
                    ),
                ));
                out.n_bad += 1;
                continue;
            }
        };
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(obj)) => {
                crate::json_keys::warn_duplicates(diags, path, raw, line_no);
                out.objects.push((line_no, obj));
            }
            Ok(other) => {
                diags.push(Diagnostic::error(
                    path,
                    Some(line_no),
                    format!(
                        "expected a JSON object, found {}; line skipped",
                        json_type(&other)
                    ),
                ));
                out.n_bad += 1;
            }
            Err(e) => {
                diags.push(Diagnostic::error(
                    path,
                    Some(line_no),
                    format!("invalid JSON: {}; line skipped", json_error(&e)),
                ));
                out.n_bad += 1;
            }
        }
    }
    out
}

/// serde_json's message with its own "line 1" position replaced by the column alone.
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let head = match msg.rfind(" at line ") {
        Some(i) => msg.get(..i).unwrap_or(&msg).to_string(),
        None => msg,
    };
    format!("{head} at column {}", e.column())
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Field access for one line, reporting problems at that line.
struct Cx<'a> {
    file: &'a str,
    line: u32,
    diags: &'a mut Vec<Diagnostic>,
}

impl<'a> Cx<'a> {
    fn new(file: &'a str, line: u32, diags: &'a mut Vec<Diagnostic>) -> Self {
        Cx { file, line, diags }
    }
    fn warn(&mut self, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::warning(self.file, Some(self.line), msg));
    }
    fn error(&mut self, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(self.file, Some(self.line), msg));
    }
    fn source(&self) -> SourceRef {
        SourceRef {
            file: self.file.into(),
            line: Some(self.line),
            record: None,
        }
    }
    /// A text field: strings as is, numbers and booleans as Python's `str()` gives them;
    /// `None` for null or absent; lists/objects are reported and ignored.
    fn text(&mut self, obj: &Map<String, Value>, key: &str) -> Option<String> {
        match obj.get(key)? {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            v @ (Value::Number(_) | Value::Bool(_)) => Some(py_str(v)),
            v => {
                let t = json_type(v);
                self.warn(format!("`{key}` is {t}, not text; ignored"));
                None
            }
        }
    }
    /// A label (section/category/difficulty): non-empty text.
    fn label(&mut self, obj: &Map<String, Value>, key: &str) -> Option<String> {
        self.text(obj, key).filter(|s| !s.is_empty())
    }
    /// An id: non-empty text.
    fn id(&mut self, obj: &Map<String, Value>, key: &str) -> Option<String> {
        self.text(obj, key).filter(|s| !s.is_empty())
    }
}

fn item_from_evalset_line(obj: &Map<String, Value>, cx: &mut Cx<'_>) -> Option<EvalItem> {
    let Some(id) = cx.id(obj, "id") else {
        cx.error("item without an `id`; line skipped");
        return None;
    };
    let prompt = cx.text(obj, "prompt").unwrap_or_else(|| {
        cx.warn(format!("item `{id}` has no `prompt`"));
        String::new()
    });
    let expected = cx.text(obj, "expected_answer");
    match &expected {
        None => cx.error(format!(
            "item `{id}` has no `expected_answer`; it cannot be scored"
        )),
        Some(e) if e.is_empty() => cx.warn(format!("item `{id}` has an empty `expected_answer`")),
        Some(_) => {}
    }
    Some(EvalItem {
        prompt,
        expected,
        section: cx.label(obj, "section"),
        category: cx.label(obj, "category"),
        difficulty: cx.label(obj, "difficulty"),
        source: cx.source(),
        id,
    })
}

// ---------------------------------------------------------------------------------------------
// Predictions
// ---------------------------------------------------------------------------------------------

struct PredictionsRead {
    predictions: Vec<Prediction>,
    /// Items the rows carried (research, observer, per-item and trace rows).
    embedded: Vec<EvalItem>,
    model: Option<String>,
    diagnostics: Vec<Diagnostic>,
}

fn read_predictions(path: &str, bytes: &[u8], kind: EvalsetFileKind) -> PredictionsRead {
    let mut out = PredictionsRead {
        predictions: Vec::new(),
        embedded: Vec::new(),
        model: None,
        diagnostics: Vec::new(),
    };
    let lines = jsonl_objects(path, bytes, &mut out.diagnostics);
    if kind == EvalsetFileKind::ObserverPredictions && !lines.objects.is_empty() {
        out.diagnostics.push(Diagnostic {
            severity: Severity::Info,
            ..Diagnostic::error(
                path,
                None,
                "observer file: its `correct` field grades the observer's label, not the \
                 answer, so it is not kept as the original correctness",
            )
        });
    }
    for (line, obj) in &lines.objects {
        let mut cx = Cx::new(path, *line, &mut out.diagnostics);
        let row = match kind {
            EvalsetFileKind::Predictions => simple_prediction(obj, &mut cx),
            EvalsetFileKind::ResearchPredictions => {
                research_prediction(obj, &mut cx, "predicted_answer", true)
            }
            EvalsetFileKind::ObserverPredictions => {
                research_prediction(obj, &mut cx, "generated_answer", false)
            }
            EvalsetFileKind::TracePredictions => trace_prediction(obj, &mut cx, &mut out.model),
            EvalsetFileKind::ItemPredictions => item_prediction(obj, &mut cx),
            _ => None,
        };
        if let Some((pred, item)) = row {
            out.predictions.push(pred);
            out.embedded.extend(item);
        }
    }
    // Parse errors were found first; report everything in line order.
    out.diagnostics.sort_by_key(|d| d.line);
    out
}

type Row = (Prediction, Option<EvalItem>);

/// Why a row produced no answer: `failure`, else `error`, else a failing `status`.
fn failure_of(obj: &Map<String, Value>, cx: &mut Cx<'_>) -> Option<String> {
    if let Some(f) = cx.text(obj, "failure").filter(|s| !s.is_empty()) {
        return Some(f);
    }
    match obj.get("error") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(Value::String(s)) => return Some(s.clone()),
        Some(other) => return Some(other.to_string()),
    }
    let status = cx.text(obj, "status")?;
    let l = status.trim().to_ascii_lowercase();
    matches!(
        l.as_str(),
        "failed"
            | "failure"
            | "crashed"
            | "crash"
            | "timeout"
            | "timed_out"
            | "error"
            | "cancelled"
    )
    .then_some(status)
}

fn answer_text(obj: &Map<String, Value>, key: &str, cx: &mut Cx<'_>) -> Option<String> {
    cx.text(obj, key)
}

fn simple_prediction(obj: &Map<String, Value>, cx: &mut Cx<'_>) -> Option<Row> {
    // The judge reads `rec.get("trace_id") or rec.get("id")`: an empty trace_id falls back.
    let id = cx.id(obj, "trace_id").or_else(|| cx.id(obj, "id"));
    let Some(item_id) = id else {
        cx.error("prediction without `trace_id` or `id`; line skipped");
        return None;
    };
    if !obj.contains_key("prediction") {
        cx.error(format!(
            "row for `{item_id}` has no `prediction` field; line skipped"
        ));
        return None;
    }
    let prediction = Prediction {
        predicted: answer_text(obj, "prediction", cx),
        failure: failure_of(obj, cx),
        original_correct: None,
        eval_time_ms: eval_time_ms(obj, cx),
        section: cx.label(obj, "section"),
        category: cx.label(obj, "category"),
        difficulty: cx.label(obj, "difficulty"),
        source: cx.source(),
        item_id,
    };
    Some((prediction, None))
}

fn research_prediction(
    obj: &Map<String, Value>,
    cx: &mut Cx<'_>,
    answer_key: &str,
    keep_correct: bool,
) -> Option<Row> {
    let Some(item_id) = cx.id(obj, "id") else {
        cx.error("prediction row without an `id`; line skipped");
        return None;
    };
    let original_correct = if keep_correct {
        original_correctness(obj, "correct", cx)
    } else {
        None
    };
    let section = cx.label(obj, "section");
    let category = cx.label(obj, "category");
    let difficulty = cx.label(obj, "difficulty");
    let item = EvalItem {
        id: item_id.clone(),
        prompt: cx.text(obj, "prompt").unwrap_or_default(),
        expected: cx.text(obj, "expected_answer"),
        section: section.clone(),
        category: category.clone(),
        difficulty: difficulty.clone(),
        source: cx.source(),
    };
    let prediction = Prediction {
        predicted: answer_text(obj, answer_key, cx),
        failure: failure_of(obj, cx),
        original_correct,
        eval_time_ms: eval_time_ms(obj, cx),
        section,
        category,
        difficulty,
        source: cx.source(),
        item_id,
    };
    Some((prediction, Some(item)))
}

fn trace_prediction(
    obj: &Map<String, Value>,
    cx: &mut Cx<'_>,
    model: &mut Option<String>,
) -> Option<Row> {
    let empty = Map::new();
    let meta = match obj.get("meta") {
        Some(Value::Object(m)) => m,
        Some(Value::Null) | None => &empty,
        Some(v) => {
            let t = json_type(v);
            cx.warn(format!("`meta` is {t}, not an object; ignored"));
            &empty
        }
    };
    let id = cx
        .id(meta, "eval_id")
        .or_else(|| cx.id(meta, "item_id"))
        .or_else(|| cx.id(obj, "eval_id"))
        .or_else(|| cx.id(obj, "id"));
    let Some(item_id) = id else {
        cx.error("trace without `meta.eval_id`: it cannot be joined to an item; line skipped");
        return None;
    };
    if model.is_none() {
        *model = cx.text(meta, "model").filter(|s| !s.is_empty());
    }
    let section = cx.label(meta, "section");
    let category = cx.label(meta, "category");
    let difficulty = cx.label(meta, "difficulty");
    let item = EvalItem {
        id: item_id.clone(),
        prompt: cx.text(obj, "prompt").unwrap_or_default(),
        expected: cx
            .text(meta, "expected_answer")
            .or_else(|| cx.text(obj, "expected_answer")),
        section: section.clone(),
        category: category.clone(),
        difficulty: difficulty.clone(),
        source: cx.source(),
    };
    let failure = failure_of(obj, cx).or_else(|| failure_of(meta, cx));
    let prediction = Prediction {
        predicted: answer_text(obj, "final_answer", cx),
        failure,
        original_correct: None,
        eval_time_ms: eval_time_ms(meta, cx).or_else(|| eval_time_ms(obj, cx)),
        section,
        category,
        difficulty,
        source: cx.source(),
        item_id,
    };
    Some((prediction, Some(item)))
}

fn item_prediction(obj: &Map<String, Value>, cx: &mut Cx<'_>) -> Option<Row> {
    let Some(item_id) = cx.id(obj, "item_id") else {
        cx.error("row without an `item_id`; line skipped");
        return None;
    };
    let section = cx.label(obj, "section");
    let category = cx.label(obj, "category");
    let difficulty = cx.label(obj, "difficulty");
    let item = EvalItem {
        id: item_id.clone(),
        prompt: cx.text(obj, "prompt").unwrap_or_default(),
        expected: cx.text(obj, "expected"),
        section: section.clone(),
        category: category.clone(),
        difficulty: difficulty.clone(),
        source: cx.source(),
    };
    let prediction = Prediction {
        predicted: answer_text(obj, "predicted", cx),
        failure: failure_of(obj, cx),
        original_correct: original_correctness(obj, "correctness", cx),
        eval_time_ms: eval_time_ms(obj, cx),
        section,
        category,
        difficulty,
        source: cx.source(),
        item_id,
    };
    Some((prediction, Some(item)))
}

/// The original system's verdict for a row: `float(x)` of a bool or number (strings that
/// parse as numbers too); anything else is reported and dropped.
fn original_correctness(obj: &Map<String, Value>, key: &str, cx: &mut Cx<'_>) -> Option<f64> {
    let v = obj.get(key)?;
    if v.is_null() {
        return None;
    }
    match py_float(v).filter(|f| f.is_finite()) {
        Some(f) => Some(f),
        None => {
            cx.warn(format!("`{key}` is not a number or boolean: {v}; ignored"));
            None
        }
    }
}

/// `eval_time_ms`: a non-negative finite number, rounded to whole milliseconds.
fn eval_time_ms(obj: &Map<String, Value>, cx: &mut Cx<'_>) -> Option<u64> {
    match obj.get("eval_time_ms")? {
        Value::Null => None,
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                return Some(u);
            }
            match n.as_f64() {
                Some(f) if (0.0..1.8e19).contains(&f) => Some(f.round() as u64),
                _ => {
                    cx.warn(format!(
                        "`eval_time_ms` {n} is not a non-negative number; ignored"
                    ));
                    None
                }
            }
        }
        v => {
            cx.warn(format!(
                "`eval_time_ms` is {}, not a number; ignored",
                json_type(v)
            ));
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Documents: summaries and manifests
// ---------------------------------------------------------------------------------------------

fn read_document(
    path: &str,
    bytes: &[u8],
    diags: &mut Vec<Diagnostic>,
) -> Option<Map<String, Value>> {
    match serde_json::from_slice::<Value>(strip_bom(bytes)) {
        Ok(Value::Object(o)) => {
            crate::json_keys::warn_duplicates(diags, path, bytes, 1);
            Some(o)
        }
        Ok(other) => {
            diags.push(Diagnostic::error(
                path,
                None,
                format!("expected a JSON object, found {}", json_type(&other)),
            ));
            None
        }
        Err(e) => {
            let line = u32::try_from(e.line()).ok().filter(|l| *l > 0);
            diags.push(Diagnostic::error(
                path,
                line,
                format!("invalid JSON: {}", json_error(&e)),
            ));
            None
        }
    }
}

fn num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn uint(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => v.map(py_str),
        _ => None,
    }
}

/// Reads an `eval_summary.json`: a research batch summary (`results{name: {...}}`) or a
/// submission summary (`primary_score`, `scorecard`, `metrics`).
pub(crate) fn read_summary(
    path: &str,
    bytes: &[u8],
    diags: &mut Vec<Diagnostic>,
) -> Option<EvalSummary> {
    let obj = read_document(path, bytes, diags)?;
    let mut entries = Vec::new();
    if let Some(Value::Object(results)) = obj.get("results") {
        for (name, r) in results {
            let Value::Object(r) = r else {
                diags.push(
                    Diagnostic::warning(path, None, "result is not an object; ignored")
                        .with_record(format!("results.{name}")),
                );
                continue;
            };
            let mut sections = Vec::new();
            if let Some(Value::Object(secs)) = r.get("sections") {
                for (sname, s) in secs {
                    sections.push(SummarySection {
                        name: sname.clone(),
                        n_items: uint(s.get("total")),
                        n_correct: uint(s.get("correct")),
                        accuracy: num(s.get("accuracy")),
                    });
                }
            }
            entries.push(SummaryEntry {
                name: name.clone(),
                accuracy: num(r.get("accuracy")),
                n_correct: uint(r.get("correct")),
                n_items: uint(r.get("total_examples")),
                runtime_seconds: num(r.get("runtime_seconds")),
                output_file: text(r.get("output_file")),
                error: text(r.get("error")),
                sections,
            });
        }
    } else {
        let scorecard = match obj.get("scorecard") {
            Some(Value::Object(s)) => Some(s),
            _ => None,
        };
        let accuracy = num(obj.get("primary_score")).or_else(|| match obj.get("metrics") {
            Some(Value::Object(m)) => num(m.get("answer_correctness")),
            _ => None,
        });
        let mut sections = Vec::new();
        if let Some(Value::Object(secs)) = scorecard.and_then(|s| s.get("section_scores")) {
            for (sname, s) in secs {
                sections.push(SummarySection {
                    name: sname.clone(),
                    n_items: None,
                    n_correct: None,
                    accuracy: num(Some(s)),
                });
            }
        }
        let stem = path.rsplit('/').next().unwrap_or(path);
        let name = text(obj.get("run_version"))
            .or_else(|| text(obj.get("run_id")))
            .unwrap_or_else(|| stem.trim_end_matches(".json").to_string());
        entries.push(SummaryEntry {
            name,
            accuracy,
            n_correct: None,
            n_items: scorecard.and_then(|s| uint(s.get("n_items"))),
            runtime_seconds: num(obj.get("runtime_seconds")),
            output_file: text(obj.get("predictions_path")),
            error: text(obj.get("error")),
            sections,
        });
    }
    let n_items = uint(obj.get("total_examples")).or_else(|| match obj.get("scorecard") {
        Some(Value::Object(s)) => uint(s.get("n_items")),
        _ => None,
    });
    Some(EvalSummary {
        file: path.to_string(),
        eval_set: text(obj.get("eval_set")),
        n_items,
        entries,
        original: Value::Object(obj),
    })
}

pub(crate) fn read_manifest(
    path: &str,
    bytes: &[u8],
    diags: &mut Vec<Diagnostic>,
) -> Option<RunManifest> {
    let obj = read_document(path, bytes, diags)?;
    let config_model = match obj.get("config") {
        Some(Value::Object(c)) => text(c.get("model_id")),
        _ => None,
    };
    Some(RunManifest {
        file: path.to_string(),
        run_version: text(obj.get("run_version")),
        run_id: text(obj.get("run_id")),
        model_id: text(obj.get("model_id")).or(config_model),
        dataset: text(obj.get("dataset")),
        eval_set: text(obj.get("eval_set")),
        config_path: text(obj.get("config_path")),
        command: text(obj.get("command")),
        status: text(obj.get("status")),
        original: Value::Object(obj),
    })
}

pub(crate) fn read_training_metrics(
    path: &str,
    bytes: &[u8],
    diags: &mut Vec<Diagnostic>,
) -> Vec<TrainingMetricPoint> {
    let n_before = diags.len();
    let lines = jsonl_objects(path, bytes, diags);
    let mut out = Vec::new();
    for (line, obj) in &lines.objects {
        let mut cx = Cx::new(path, *line, diags);
        let step = uint(obj.get("step"));
        let loss = num(obj.get("loss"));
        if step.is_none() && obj.get("step").is_some_and(|v| !v.is_null()) {
            cx.warn("`step` is not a non-negative integer; ignored");
        }
        if loss.is_none() && obj.get("loss").is_some_and(|v| !v.is_null()) {
            cx.warn("`loss` is not a finite number; ignored");
        }
        if step.is_none() && loss.is_none() {
            cx.error("metrics line without `step` or `loss`; line skipped");
            continue;
        }
        let metrics = match obj.get("metrics") {
            Some(Value::Object(m)) => m
                .iter()
                .filter_map(|(k, v)| num(Some(v)).map(|f| (k.clone(), f)))
                .collect(),
            _ => Vec::new(),
        };
        out.push(TrainingMetricPoint {
            step,
            loss,
            timestamp: text(obj.get("timestamp")),
            metrics,
            source: cx.source(),
        });
    }
    diags[n_before..].sort_by_key(|d| d.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> InputFile {
        InputFile::new(path, text.as_bytes().to_vec())
    }

    /// Diagnostics as `file:line: severity: message` strings.
    fn diag_lines(d: &[Diagnostic]) -> Vec<String> {
        d.iter().map(|d| d.to_string()).collect()
    }

    fn check_items(input: &str, ids: &[&str], diags: &[&str]) {
        let r = read_eval_items("set.jsonl", input.as_bytes());
        let got: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(got, ids);
        assert_eq!(diag_lines(&r.diagnostics), diags);
    }

    #[test]
    fn eval_items_one_bad_line_never_loses_the_others() {
        check_items(
            concat!(
                "{\"id\": \"a\", \"prompt\": \"p\", \"expected_answer\": \"1\"}\n",
                "{\"id\": \"b\", \"prompt\": \n",
                "\n",
                "[1, 2]\n",
                "{\"prompt\": \"p\", \"expected_answer\": \"1\"}\n",
                "{\"id\": \"c\", \"prompt\": \"p\"}\r\n",
                "{\"id\": \"a\", \"prompt\": \"p\", \"expected_answer\": \"2\"}\n",
                "{\"id\": 7, \"prompt\": \"p\", \"expected_answer\": 42, \"section\": 3}\n",
            ),
            &["a", "c", "7"],
            &[
                "set.jsonl:2: error: invalid JSON: EOF while parsing a value at column 22; line skipped",
                "set.jsonl:4: error: expected a JSON object, found an array; line skipped",
                "set.jsonl:5: error: item without an `id`; line skipped",
                "set.jsonl:6: error: item `c` has no `expected_answer`; it cannot be scored",
                "set.jsonl:7: warning: duplicate item id `a` (first at line 1); ignored",
            ],
        );
        let r = read_eval_items(
            "s",
            b"{\"id\": 7, \"prompt\": \"p\", \"expected_answer\": 42.0, \"section\": [1]}",
        );
        assert_eq!(r.items[0].expected.as_deref(), Some("42.0"));
        assert_eq!(r.items[0].section, None);
        assert_eq!(
            diag_lines(&r.diagnostics),
            ["s:1: warning: `section` is an array, not text; ignored"]
        );
    }

    #[test]
    fn invalid_utf8_line_is_reported_with_its_line() {
        let mut bytes =
            b"{\"id\": \"a\", \"prompt\": \"p\", \"expected_answer\": \"1\"}\n".to_vec();
        bytes.extend_from_slice(b"{\"id\": \"\xff\"}\n");
        let r = read_eval_items("s", &bytes);
        assert_eq!(r.items.len(), 1);
        assert_eq!(
            diag_lines(&r.diagnostics),
            ["s:2: error: not UTF-8 text (invalid byte at column 9); line skipped"]
        );
    }

    const SET: &str = concat!(
        "{\"id\": \"e1\", \"prompt\": \"1+1?\", \"expected_answer\": \"2\", \"section\": \"core\", \"category\": \"arithmetic\", \"difficulty\": \"easy\"}\n",
        "{\"id\": \"e2\", \"prompt\": \"Capital of France?\", \"expected_answer\": \"Paris\", \"section\": \"core\", \"category\": \"knowledge\", \"difficulty\": \"easy\"}\n",
        "{\"id\": \"e3\", \"prompt\": \"3*3?\", \"expected_answer\": \"9\", \"section\": \"edge_case\", \"category\": \"arithmetic\", \"difficulty\": \"hard\"}\n",
    );

    #[test]
    fn every_prediction_shape_joins_to_the_eval_set() {
        let shapes = [
            (
                "predictions.jsonl",
                "{\"id\": \"e1\", \"prediction\": \"2\"}\n{\"trace_id\": \"e2\", \"prediction\": null}\n{\"id\": \"e3\", \"prediction\": \"\", \"error\": \"timeout\"}\n",
            ),
            (
                "research_predictions.jsonl",
                "{\"id\": \"e1\", \"prompt\": \"1+1?\", \"expected_answer\": \"2\", \"predicted_answer\": \"2\", \"section\": \"core\", \"correct\": true}\n{\"id\": \"e2\", \"prompt\": \"x\", \"expected_answer\": \"Paris\", \"predicted_answer\": null, \"correct\": false}\n{\"id\": \"e3\", \"prompt\": \"x\", \"expected_answer\": \"9\", \"predicted_answer\": \"\", \"status\": \"timeout\", \"correct\": false}\n",
            ),
            (
                "trace.jsonl",
                "{\"trace_version\": \"1.0\", \"prompt\": \"1+1?\", \"final_answer\": \"2\", \"steps\": [], \"meta\": {\"eval_id\": \"e1\", \"model\": \"m\"}}\n{\"trace_version\": \"1.0\", \"final_answer\": null, \"steps\": [], \"meta\": {\"eval_id\": \"e2\"}}\n{\"trace_version\": \"1.0\", \"final_answer\": \"\", \"steps\": [], \"meta\": {\"eval_id\": \"e3\", \"status\": \"timeout\"}}\n",
            ),
            (
                "items.jsonl",
                "{\"item_id\": \"e1\", \"expected\": \"2\", \"predicted\": \"2\", \"correctness\": 1.0, \"eval_time_ms\": 12}\n{\"item_id\": \"e2\", \"expected\": \"Paris\", \"predicted\": null, \"correctness\": 0, \"eval_time_ms\": 3.6}\n{\"item_id\": \"e3\", \"expected\": \"9\", \"predicted\": \"\", \"failure\": \"timeout\", \"correctness\": 0}\n",
            ),
        ];
        for (name, body) in shapes {
            let run = read_evalset_run(&[file("set.jsonl", SET), file(name, body)], None);
            assert_eq!(run.items.len(), 3, "{name}");
            let got: Vec<(&str, Option<&str>, Option<&str>)> = run
                .predictions
                .iter()
                .map(|p| {
                    (
                        p.item_id.as_str(),
                        p.predicted.as_deref(),
                        p.failure.as_deref(),
                    )
                })
                .collect();
            assert_eq!(
                got,
                [
                    ("e1", Some("2"), None),
                    ("e2", None, None),
                    ("e3", Some(""), Some("timeout"))
                ],
                "{name}"
            );
            assert!(run.diagnostics.is_empty(), "{name}: {:?}", run.diagnostics);
            assert!(
                run.files.iter().all(|f| f.status == FileStatus::Parsed),
                "{name}"
            );
        }
    }

    #[test]
    fn research_rows_supply_the_items_without_an_eval_set() {
        let body = "{\"id\": \"b\", \"prompt\": \"p\", \"expected_answer\": \"2\", \"predicted_answer\": \"2\", \"section\": \"core\", \"category\": \"c\", \"difficulty\": \"easy\", \"correct\": true}\n{\"id\": \"a\", \"prompt\": \"q\", \"expected_answer\": \"3\", \"predicted_answer\": \"4\", \"correct\": false}\n";
        let run = read_evalset_run(&[file("x/post_stage_a_predictions.jsonl", body)], None);
        assert_eq!(run.name, "post_stage_a");
        let ids: Vec<&str> = run.items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["b", "a"]);
        assert_eq!(run.items[0].expected.as_deref(), Some("2"));
        assert_eq!(run.predictions[0].original_correct, Some(1.0));
        assert_eq!(run.predictions[1].original_correct, Some(0.0));
    }

    #[test]
    fn rows_that_disagree_with_earlier_rows_are_reported() {
        let a = "{\"id\": \"e1\", \"prompt\": \"p\", \"expected_answer\": \"2\", \"predicted_answer\": \"2\", \"correct\": true}\n";
        let b = "{\"id\": \"e1\", \"prompt\": \"p\", \"expected_answer\": \"3\", \"predicted_answer\": \"2\", \"correct\": false}\n";
        let run = read_evalset_run(&[file("a.jsonl", a), file("b.jsonl", b)], None);
        assert_eq!(run.items.len(), 1);
        assert_eq!(
            diag_lines(&run.diagnostics),
            [
                "b.jsonl:1: warning: expected answer \"3\" for `e1` differs from the item's \"2\" (eval set, else first row); \"2\" is used",
                "b.jsonl:1: warning: 1 predictions repeat items already predicted (first: `e1`, predicted at a.jsonl:1); the first prediction is used",
            ]
        );
    }

    #[test]
    fn attached_set_wins_and_disagreements_are_reported() {
        let attached = read_eval_items("set.jsonl", SET.as_bytes()).items;
        let body = "{\"id\": \"e1\", \"prompt\": \"p\", \"expected_answer\": \"3\", \"predicted_answer\": \"2\", \"correct\": false}\n{\"id\": \"zz\", \"prompt\": \"p\", \"expected_answer\": \"3\", \"predicted_answer\": \"2\", \"correct\": false}\n{\"id\": \"e1\", \"prompt\": \"p\", \"expected_answer\": \"2\", \"predicted_answer\": \"9\", \"correct\": false}\n";
        let run = read_evalset_run(&[file("r.jsonl", body)], Some(&attached));
        assert_eq!(run.items.len(), 3);
        assert_eq!(run.items[0].expected.as_deref(), Some("2"));
        assert_eq!(
            diag_lines(&run.diagnostics),
            [
                "r.jsonl:1: warning: expected answer \"3\" for `e1` differs from the item's \"2\" (eval set, else first row); \"2\" is used",
                "r.jsonl:3: warning: 1 predictions repeat items already predicted (first: `e1`, predicted at r.jsonl:1); the first prediction is used",
                "r.jsonl:2: warning: 1 predictions name items that are not in the eval set (first: `zz`); they are not scored",
            ]
        );
        assert_eq!(run.files[0].status, FileStatus::Parsed);
    }

    #[test]
    fn bad_prediction_lines_are_reported_and_the_file_is_partly_parsed() {
        let body = "{\"id\": \"e1\", \"prediction\": \"2\"}\n{\"id\": \"e2\"}\n{\"prediction\": \"x\"}\n{oops\n";
        let run = read_evalset_run(&[file("set.jsonl", SET), file("p.jsonl", body)], None);
        assert_eq!(run.predictions.len(), 1);
        assert_eq!(
            diag_lines(&run.diagnostics),
            [
                "p.jsonl:2: error: row for `e2` has no `prediction` field; line skipped",
                "p.jsonl:3: error: prediction without `trace_id` or `id`; line skipped",
                "p.jsonl:4: error: invalid JSON: key must be a string at column 2; line skipped",
            ]
        );
        let rep = run.files.iter().find(|f| f.path == "p.jsonl").unwrap();
        assert_eq!(rep.status, FileStatus::PartlyParsed);
        assert_eq!(rep.format.as_deref(), Some("evalset-predictions"));
    }

    #[test]
    fn summaries_manifests_and_metrics() {
        let summary = r#"{"created_at": "t", "eval_set": "eval_v2.jsonl", "total_examples": 2,
            "results": {"a": {"checkpoint_name": "a", "accuracy": 0.5, "correct": 1, "total_examples": 2,
            "runtime_seconds": 3.5, "sections": {"core": {"total": 2, "correct": 1, "accuracy": 0.5}},
            "output_file": "C:\\x\\eval\\a_predictions.jsonl"},
            "b": {"error": "CUDA OOM"}}}"#;
        let manifest = r#"{"run_id": "m39", "status": "failed", "config": {"model_id": "gpt2"}}"#;
        let metrics = "{\"step\": 20, \"loss\": 0.5, \"timestamp\": \"t2\", \"metrics\": {\"epoch\": 2.0, \"note\": \"x\"}}\n{\"step\": 10, \"loss\": 0.9}\n{\"foo\": 1}\n";
        let run = read_evalset_run(
            &[
                file("eval_summary.json", summary),
                file("run_manifest.json", manifest),
                file("metrics.jsonl", metrics),
                file("training_log.txt", "hello"),
            ],
            None,
        );
        assert_eq!(run.name, "m39");
        assert_eq!(run.model.as_deref(), Some("gpt2"));
        assert_eq!(
            run.manifest.as_ref().and_then(|m| m.failure_status()),
            Some("failed")
        );
        let s = &run.summaries[0];
        assert_eq!(s.n_items, Some(2));
        assert_eq!(s.entries[0].accuracy, Some(0.5));
        assert_eq!(s.entries[0].sections[0].n_correct, Some(1));
        assert_eq!(s.entries[1].error.as_deref(), Some("CUDA OOM"));
        let steps: Vec<Option<u64>> = run.training_metrics.iter().map(|p| p.step).collect();
        assert_eq!(steps, [Some(10), Some(20)]);
        assert_eq!(
            run.training_metrics[1].metrics,
            [("epoch".to_string(), 2.0)]
        );
        assert_eq!(
            diag_lines(&run.diagnostics),
            ["metrics.jsonl:3: error: metrics line without `step` or `loss`; line skipped"]
        );
        let statuses: Vec<(&str, FileStatus)> = run
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("eval_summary.json", FileStatus::Parsed),
                ("metrics.jsonl", FileStatus::PartlyParsed),
                ("run_manifest.json", FileStatus::Parsed),
                ("training_log.txt", FileStatus::Skipped),
            ]
        );
    }

    #[test]
    fn summary_entry_matches_the_predictions_file() {
        let summary = r#"{"results": {
            "m44_baseline": {"accuracy": 0.0, "output_file": "C:\\r\\eval\\m44_baseline_predictions.jsonl"},
            "post_stage_a": {"accuracy": 0.25, "output_file": "C:\\r\\eval\\post_stage_a_predictions.jsonl"}}}"#;
        let preds = "{\"id\": \"e1\", \"prompt\": \"p\", \"expected_answer\": \"2\", \"predicted_answer\": \"2\", \"correct\": true}\n";
        let run = read_evalset_run(
            &[
                file("m45_m44_baseline_predictions.jsonl", preds),
                file("eval_summary.json", summary),
            ],
            None,
        );
        assert_eq!(
            run.original_entry().map(|e| e.name.as_str()),
            Some("m44_baseline")
        );
        let run = read_evalset_run(
            &[
                file("stage_a_predictions.jsonl", preds),
                file("eval_summary.json", summary),
            ],
            None,
        );
        assert_eq!(run.original_entry(), None);
    }

    #[test]
    fn empty_folder_and_empty_file() {
        let run = read_evalset_run(&[], None);
        assert_eq!(run.name, "run");
        assert!(run.items.is_empty() && run.predictions.is_empty());
        let run = read_evalset_run(&[file("p.jsonl", "")], None);
        assert_eq!(run.files[0].status, FileStatus::Skipped);
    }

    #[test]
    fn trace_predictions_without_an_eval_set_ask_for_one() {
        let body = "{\"trace_version\": \"1.0\", \"final_answer\": \"2\", \"steps\": [], \"meta\": {\"eval_id\": \"e1\"}}\n";
        let run = read_evalset_run(&[file("t.jsonl", body)], None);
        assert_eq!(
            diag_lines(&run.diagnostics),
            ["t.jsonl: warning: 1 items have no expected answer (this predictions format carries none); attach the eval set to score them"]
        );
        let set = read_eval_items("set.jsonl", SET.as_bytes()).items;
        let run = read_evalset_run(&[file("t.jsonl", body)], Some(&set));
        assert!(run.diagnostics.is_empty());
    }
}
