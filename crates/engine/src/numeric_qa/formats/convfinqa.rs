//! ConvFinQA dataset reader: {train|dev: [...]} and {metadata, examples: [...]} files.
//!
//! Both shapes hold the same records: `{id, doc{pre_text, post_text, table}, dialogue{
//! conv_questions, conv_answers, turn_program, executed_answers, qa_split}, features{...}}`. The
//! table is either the original list of rows or the take-home `{column: {row: value}}` form; both
//! become rows of cells (`["", col...]` header, then `[row name, cell...]`), the shape the
//! official program executor expects. A bad record becomes a diagnostic; the others are kept.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::diag::Diagnostic;
use crate::numeric_qa::finqa_program::py_float_repr;
use crate::numeric_qa::model::{Features, RawValue};

/// A dataset file, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    pub conversations: Vec<DatasetConversation>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One conversation of a dataset. The per-turn lists normally have the same length; when the file
/// disagrees with itself they are kept as written and a diagnostic says so.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DatasetConversation {
    pub id: String,
    /// `train`/`dev`/`test` for split files, `None` for `{examples: [...]}` files.
    pub split: Option<String>,
    pub questions: Vec<String>,
    /// `conv_answers`, as written (usually strings like "15.7%").
    pub answers: Vec<RawValue>,
    pub turn_programs: Vec<String>,
    pub executed_answers: Vec<RawValue>,
    pub features: Features,
    /// Rows of cells; row 0 is the header.
    pub table: Vec<Vec<String>>,
    /// 0-based index of the record inside its array (`dev[3]`).
    pub record: u32,
}

impl DatasetConversation {
    pub fn n_turns(&self) -> usize {
        self.questions.len()
    }
}

/// Split keys recognised at the top level, in the order they are read.
const SPLIT_KEYS: [&str; 5] = ["train", "dev", "validation", "valid", "test"];

/// How far into the file [`looks_like_dataset`] looks.
const SNIFF_BYTES: usize = 256 * 1024;

/// Cheap content sniff: a JSON object or array whose first records carry a ConvFinQA
/// `dialogue` with `turn_program` or `conv_questions`.
pub fn looks_like_dataset(bytes: &[u8]) -> bool {
    let head = bytes
        .get(..SNIFF_BYTES.min(bytes.len()))
        .unwrap_or_default();
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let Some(first) = head.iter().find(|b| !b.is_ascii_whitespace()) else {
        return false;
    };
    let contains = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    matches!(first, b'{' | b'[')
        && contains(b"\"dialogue\"")
        && (contains(b"\"turn_program\"") || contains(b"\"conv_questions\""))
}

/// Reads a dataset file. `Err` only when nothing is usable (not JSON, not a dataset shape, or
/// every record bad); otherwise the good records plus diagnostics for the rest.
pub fn read_dataset(path: &str, bytes: &[u8]) -> Result<Dataset, Vec<Diagnostic>> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let root: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            let line = u32::try_from(e.line()).ok().filter(|&l| l > 0);
            return Err(vec![Diagnostic::error(
                path,
                line,
                format!("not valid JSON: {e}"),
            )]);
        }
    };
    let mut diagnostics = Vec::new();
    crate::json_keys::warn_duplicates(&mut diagnostics, path, bytes, 1);
    let arrays = match top_level_arrays(path, &root, &mut diagnostics) {
        Ok(arrays) => arrays,
        Err(message) => return Err(vec![Diagnostic::error(path, None, message)]),
    };
    let mut conversations: Vec<DatasetConversation> = Vec::new();
    let mut n_bad = 0usize;
    // Record diagnostics get the line of their record's id: (diagnostic, id, occurrence).
    let mut located: Vec<(usize, String, usize)> = Vec::new();
    let mut occurrences: HashMap<String, usize> = HashMap::new();
    let mut first_seen: HashMap<String, String> = HashMap::new();
    for (split, records) in arrays {
        for (i, record) in records.iter().enumerate() {
            let label = format!("{}[{i}]", split.unwrap_or("examples"));
            let id = record.get("id").and_then(Value::as_str);
            let locator = match id {
                Some(id) => format!("{label} id={id}"),
                None => label.clone(),
            };
            let mut push = |diagnostics: &mut Vec<Diagnostic>, d: Diagnostic| {
                if let Some(id) = id {
                    let n = occurrences.get(id).copied().unwrap_or(0);
                    located.push((diagnostics.len(), id.to_string(), n));
                }
                diagnostics.push(d.with_record(locator.clone()));
            };
            match read_record(record) {
                Ok((mut conv, notes)) => {
                    conv.split = split.map(str::to_string);
                    conv.record = u32::try_from(i).unwrap_or(u32::MAX);
                    for note in notes {
                        push(&mut diagnostics, note.into_diagnostic(path));
                    }
                    match first_seen.get(&conv.id) {
                        Some(first) => push(
                            &mut diagnostics,
                            Diagnostic::warning(
                                path,
                                None,
                                format!(
                                    "duplicate id (first seen at {first}); lookups use the first"
                                ),
                            ),
                        ),
                        None => {
                            first_seen.insert(conv.id.clone(), label.clone());
                        }
                    }
                    conversations.push(conv);
                }
                Err(reason) => {
                    n_bad += 1;
                    push(
                        &mut diagnostics,
                        Diagnostic::error(path, None, format!("record skipped: {reason}")),
                    );
                }
            }
            if let Some(id) = id {
                *occurrences.entry(id.to_string()).or_insert(0) += 1;
            }
        }
    }
    if !located.is_empty() {
        let lines = id_lines(bytes);
        for (d, id, n) in located {
            let line = lines.get(&id).and_then(|l| l.get(n)).copied();
            if let Some(diag) = diagnostics.get_mut(d) {
                diag.line = line;
            }
        }
    }
    if conversations.is_empty() && n_bad > 0 {
        return Err(diagnostics);
    }
    if conversations.is_empty() {
        diagnostics.push(Diagnostic::warning(
            path,
            None,
            "the dataset has no records",
        ));
    }
    Ok(Dataset {
        conversations,
        diagnostics,
    })
}

/// A split name (`None` for `{examples: [...]}` and bare arrays) and its records.
type SplitRecords<'a> = (Option<&'static str>, &'a [Value]);

/// The record arrays of a file with their split names.
fn top_level_arrays<'a>(
    path: &str,
    root: &'a Value,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<SplitRecords<'a>>, String> {
    const SHAPE: &str = "not a ConvFinQA dataset: expected {\"train\"|\"dev\"|\"test\": [...]} or {\"metadata\": ..., \"examples\": [...]}";
    match root {
        Value::Array(records) => Ok(vec![(None, records.as_slice())]),
        Value::Object(map) => {
            if let Some(examples) = map.get("examples") {
                let records = examples
                    .as_array()
                    .ok_or_else(|| format!("{SHAPE}; \"examples\" is {}", kind(examples)))?;
                return Ok(vec![(None, records.as_slice())]);
            }
            let mut arrays = Vec::new();
            for key in SPLIT_KEYS {
                match map.get(key) {
                    Some(Value::Array(records)) => arrays.push((Some(key), records.as_slice())),
                    Some(other) => diagnostics.push(Diagnostic::error(
                        path,
                        None,
                        format!("split \"{key}\" is {}, expected an array", kind(other)),
                    )),
                    None => {}
                }
            }
            if arrays.is_empty() {
                return Err(SHAPE.to_string());
            }
            for key in map.keys() {
                if !SPLIT_KEYS.contains(&key.as_str()) && key != "metadata" {
                    diagnostics.push(Diagnostic::warning(
                        path,
                        None,
                        format!("top-level key \"{key}\" ignored"),
                    ));
                }
            }
            Ok(arrays)
        }
        other => Err(format!("{SHAPE}; the file holds {}", kind(other))),
    }
}

/// A problem with a record that is kept.
struct Note {
    error: bool,
    message: String,
}

impl Note {
    fn into_diagnostic(self, path: &str) -> Diagnostic {
        if self.error {
            Diagnostic::error(path, None, self.message)
        } else {
            Diagnostic::warning(path, None, self.message)
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn field<'a>(obj: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value, String> {
    obj.get(key)
        .ok_or_else(|| format!("missing field {at}{key}"))
}

fn string_list(v: &Value, at: &str) -> Result<Vec<String>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("{at} is {}, expected an array of strings", kind(v)))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(format!("{at}[{i}] is {}, expected a string", kind(other))),
        })
        .collect()
}

fn value_list(v: &Value, at: &str) -> Result<Vec<RawValue>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("{at} is {}, expected an array", kind(v)))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Array(_) | Value::Object(_) => Err(format!(
                "{at}[{i}] is {}, expected a number or a string",
                kind(item)
            )),
            scalar => Ok(RawValue::from_json(scalar)),
        })
        .collect()
}

fn read_record(record: &Value) -> Result<(DatasetConversation, Vec<Note>), String> {
    let obj = record
        .as_object()
        .ok_or_else(|| format!("the record is {}, expected an object", kind(record)))?;
    let id = match field(obj, "id", "")? {
        Value::String(s) => s.clone(),
        other => return Err(format!("id is {}, expected a string", kind(other))),
    };
    let dialogue = field(obj, "dialogue", "")?
        .as_object()
        .ok_or("dialogue is not an object")?;
    let questions = string_list(
        field(dialogue, "conv_questions", "dialogue.")?,
        "dialogue.conv_questions",
    )?;
    let answers = value_list(
        field(dialogue, "conv_answers", "dialogue.")?,
        "dialogue.conv_answers",
    )?;
    let turn_programs = string_list(
        field(dialogue, "turn_program", "dialogue.")?,
        "dialogue.turn_program",
    )?;
    let executed_answers = value_list(
        field(dialogue, "executed_answers", "dialogue.")?,
        "dialogue.executed_answers",
    )?;

    let mut notes = Vec::new();
    let lengths = [
        ("conv_questions", questions.len()),
        ("conv_answers", answers.len()),
        ("turn_program", turn_programs.len()),
        ("executed_answers", executed_answers.len()),
    ];
    if lengths.iter().any(|&(_, n)| n != questions.len()) {
        let listed: Vec<String> = lengths.iter().map(|(k, n)| format!("{k} {n}")).collect();
        notes.push(Note {
            error: true,
            message: format!("dialogue lists differ in length: {}", listed.join(", ")),
        });
    }

    let features = match obj.get("features") {
        None | Some(Value::Null) => {
            notes.push(Note {
                error: false,
                message: "no features".into(),
            });
            Features::default()
        }
        Some(v) => read_features(v, &mut notes),
    };
    if let Some(n) = features.num_dialogue_turns {
        if n as usize != questions.len() {
            notes.push(Note {
                error: false,
                message: format!(
                    "features.num_dialogue_turns is {n} but the dialogue has {} questions",
                    questions.len()
                ),
            });
        }
    }

    let table = match obj.get("doc").and_then(|d| d.get("table")) {
        None | Some(Value::Null) => {
            notes.push(Note {
                error: false,
                message: "no doc.table: table operations cannot run".into(),
            });
            Vec::new()
        }
        Some(t) => match read_table(t) {
            Ok(rows) => rows,
            Err(message) => {
                notes.push(Note {
                    error: true,
                    message,
                });
                Vec::new()
            }
        },
    };

    Ok((
        DatasetConversation {
            id,
            split: None,
            questions,
            answers,
            turn_programs,
            executed_answers,
            features,
            table,
            record: 0,
        },
        notes,
    ))
}

fn read_features(v: &Value, notes: &mut Vec<Note>) -> Features {
    let Some(obj) = v.as_object() else {
        notes.push(Note {
            error: false,
            message: format!("features is {}, expected an object", kind(v)),
        });
        return Features::default();
    };
    let mut flag = |key: &str| match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            notes.push(Note {
                error: false,
                message: format!("features.{key} is {}, expected a boolean", kind(other)),
            });
            None
        }
    };
    let has_type2_question = flag("has_type2_question");
    let has_duplicate_columns = flag("has_duplicate_columns");
    let has_non_numeric_values = flag("has_non_numeric_values");
    let num_dialogue_turns = match obj.get("num_dialogue_turns") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) => Some(n),
            None => {
                notes.push(Note {
                    error: false,
                    message: format!(
                        "features.num_dialogue_turns is {v}, expected a non-negative integer"
                    ),
                });
                None
            }
        },
    };
    Features {
        num_dialogue_turns,
        has_type2_question,
        has_duplicate_columns,
        has_non_numeric_values,
    }
}

/// A table cell as text: strings as written, numbers as Python prints them (`5.0`, `60.94`).
fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => py_float_repr(f),
            (None, None) => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// Rows of cells from `[[...], ...]` or `{column: {row: value}}`.
fn read_table(v: &Value) -> Result<Vec<Vec<String>>, String> {
    match v {
        Value::Array(rows) => rows
            .iter()
            .enumerate()
            .map(|(i, row)| match row {
                Value::Array(cells) => Ok(cells.iter().map(cell_text).collect()),
                other => Err(format!(
                    "doc.table[{i}] is {}, expected an array of cells",
                    kind(other)
                )),
            })
            .collect(),
        Value::Object(columns) => {
            let mut row_names: Vec<&str> = Vec::new();
            let mut index: HashMap<&str, usize> = HashMap::new();
            for (name, column) in columns {
                let cells = column.as_object().ok_or_else(|| {
                    format!(
                        "doc.table[\"{name}\"] is {}, expected an object of rows",
                        kind(column)
                    )
                })?;
                for row in cells.keys() {
                    index.entry(row).or_insert_with(|| {
                        row_names.push(row);
                        row_names.len() - 1
                    });
                }
            }
            let mut header = vec![String::new()];
            header.extend(columns.keys().cloned());
            let mut rows = vec![header];
            for name in &row_names {
                let mut row = vec![name.to_string()];
                for column in columns.values() {
                    row.push(column.get(*name).map(cell_text).unwrap_or_default());
                }
                rows.push(row);
            }
            Ok(rows)
        }
        other => Err(format!(
            "doc.table is {}, expected rows or {{column: {{row: value}}}}",
            kind(other)
        )),
    }
}

/// Conversations of a dataset by id (the first record wins when an id repeats).
#[derive(Debug, Clone)]
pub struct DatasetIndex<'a> {
    dataset: &'a Dataset,
    by_id: HashMap<&'a str, usize>,
}

impl<'a> DatasetIndex<'a> {
    pub fn get(&self, id: &str) -> Option<&'a DatasetConversation> {
        self.by_id
            .get(id)
            .and_then(|&i| self.dataset.conversations.get(i))
    }
    pub fn len(&self) -> usize {
        self.by_id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// An index of the dataset's conversations by id.
pub fn dataset_index(ds: &Dataset) -> DatasetIndex<'_> {
    let mut by_id = HashMap::with_capacity(ds.conversations.len());
    for (i, c) in ds.conversations.iter().enumerate() {
        by_id.entry(c.id.as_str()).or_insert(i);
    }
    DatasetIndex { dataset: ds, by_id }
}

/// Lines of the `"id": "<value>"` pairs in a JSON text, by id, in file order (one entry per
/// occurrence): one pass over the bytes, so record diagnostics can carry a line. Best effort: an
/// `"id"` key nested elsewhere in a record would also be listed.
fn id_lines(bytes: &[u8]) -> HashMap<String, Vec<u32>> {
    const KEY: &[u8] = b"\"id\"";
    let mut out: HashMap<String, Vec<u32>> = HashMap::new();
    let mut line = 1u32;
    let mut counted_to = 0usize;
    let mut from = 0usize;
    while let Some(pos) = bytes.get(from..).and_then(|rest| find(rest, KEY)) {
        let at = from + pos;
        from = at + KEY.len();
        if at > 0 && bytes.get(at - 1) == Some(&b'\\') {
            continue; // an escaped quote inside a string
        }
        let mut i = from;
        let skip_ws = |i: &mut usize| {
            while bytes.get(*i).is_some_and(u8::is_ascii_whitespace) {
                *i += 1;
            }
        };
        skip_ws(&mut i);
        if bytes.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        skip_ws(&mut i);
        if bytes.get(i) != Some(&b'"') {
            continue;
        }
        let mut end = i + 1;
        while let Some(&b) = bytes.get(end) {
            match b {
                b'\\' => end += 2,
                b'"' => break,
                _ => end += 1,
            }
        }
        let Some(Ok(id)) = bytes.get(i..=end).map(serde_json::from_slice::<String>) else {
            continue;
        };
        line += bytes
            .get(counted_to..at)
            .unwrap_or_default()
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        counted_to = at;
        out.entry(id).or_default().push(line);
        from = end;
    }
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"dev": [
      {"id": "a", "doc": {"pre_text": "x", "post_text": "y",
        "table": {"2019": {"revenue": 1200.0, "costs": "n/a"}, "2018": {"revenue": 1000, "other": -5.5}}},
       "dialogue": {"conv_questions": ["q1", "q2"], "conv_answers": ["1200", "20%"],
         "turn_program": ["1200", "subtract(1200, 1000), divide(#0, 1000)"],
         "executed_answers": [1200.0, 0.2], "qa_split": [false, false]},
       "features": {"num_dialogue_turns": 2, "has_type2_question": false,
         "has_duplicate_columns": false, "has_non_numeric_values": true}}
    ]}"#;

    fn read_ok(json: &str) -> Dataset {
        read_dataset("d.json", json.as_bytes()).expect("usable")
    }

    fn messages(ds: &Dataset) -> Vec<String> {
        ds.diagnostics.iter().map(|d| d.to_string()).collect()
    }

    #[test]
    fn reads_the_split_shape() {
        let ds = read_ok(GOOD);
        assert_eq!(messages(&ds), Vec::<String>::new());
        let c = &ds.conversations[0];
        assert_eq!(c.id, "a");
        assert_eq!(c.split.as_deref(), Some("dev"));
        assert_eq!(c.questions, ["q1", "q2"]);
        assert_eq!(
            c.answers,
            [RawValue::Str("1200".into()), RawValue::Str("20%".into())]
        );
        assert_eq!(
            c.executed_answers,
            [RawValue::Float(1200.0), RawValue::Float(0.2)]
        );
        assert_eq!(c.features.num_dialogue_turns, Some(2));
        assert_eq!(c.features.has_non_numeric_values, Some(true));
        assert_eq!(
            c.table,
            [
                vec!["", "2019", "2018"],
                vec!["revenue", "1200.0", "1000"],
                vec!["costs", "n/a", ""],
                vec!["other", "", "-5.5"],
            ]
        );
        assert_eq!(c.record, 0);
    }

    #[test]
    fn reads_the_examples_shape_and_row_tables() {
        let json = r#"{"metadata": {"total_examples": 1}, "examples": [
          {"id": "b", "doc": {"table": [["", "2019"], ["margin", "25%"]]},
           "dialogue": {"conv_questions": ["q"], "conv_answers": [5], "turn_program": ["5"],
             "executed_answers": [5]}, "features": {"num_dialogue_turns": 1}}]}"#;
        let ds = read_ok(json);
        assert_eq!(messages(&ds), Vec::<String>::new());
        let c = &ds.conversations[0];
        assert_eq!(c.split, None);
        assert_eq!(c.table, [vec!["", "2019"], vec!["margin", "25%"]]);
        assert_eq!(c.executed_answers, [RawValue::Int(5)]);
        assert_eq!(c.features.has_type2_question, None);
    }

    #[test]
    fn bad_records_become_diagnostics() {
        let json = r#"{"train": [
            {"id": "ok", "doc": {"table": []}, "features": {},
             "dialogue": {"conv_questions": ["q"], "conv_answers": ["1"], "turn_program": ["1"], "executed_answers": [1.0]}},
            {"id": "no-program", "dialogue": {"conv_questions": ["q"], "conv_answers": ["1"], "executed_answers": [1.0]}},
            {"id": 7},
            "junk",
            {"id": "bad-type", "dialogue": {"conv_questions": ["q"], "conv_answers": ["1"], "turn_program": [3], "executed_answers": [1.0]}},
            {"id": "bad-answer", "dialogue": {"conv_questions": ["q"], "conv_answers": ["1"], "turn_program": ["1"], "executed_answers": [[1]]}}
        ], "test": {"oops": 1}, "extra": 1}"#;
        let ds = read_ok(json);
        assert_eq!(ds.conversations.len(), 1);
        assert_eq!(
            messages(&ds),
            [
                "d.json: error: split \"test\" is an object, expected an array",
                "d.json: warning: top-level key \"extra\" ignored",
                "d.json:4 [train[1] id=no-program]: error: record skipped: missing field dialogue.turn_program",
                "d.json [train[2]]: error: record skipped: id is a number, expected a string",
                "d.json [train[3]]: error: record skipped: the record is a string, expected an object",
                "d.json:7 [train[4] id=bad-type]: error: record skipped: dialogue.turn_program[0] is a number, expected a string",
                "d.json:8 [train[5] id=bad-answer]: error: record skipped: dialogue.executed_answers[0] is an array, expected a number or a string",
            ]
        );
    }

    #[test]
    fn inconsistent_records_are_kept_with_diagnostics() {
        let json = r#"[
            {"id": "x", "dialogue": {"conv_questions": ["q1", "q2"], "conv_answers": ["1"],
               "turn_program": ["1", "2"], "executed_answers": [1.0, 2.0]},
             "features": {"num_dialogue_turns": 3, "has_type2_question": "no"},
             "doc": {"table": 5}},
            {"id": "x", "doc": {"table": {}}, "features": {},
             "dialogue": {"conv_questions": [], "conv_answers": [], "turn_program": [], "executed_answers": []}}
        ]"#;
        let ds = read_ok(json);
        assert_eq!(ds.conversations.len(), 2);
        assert_eq!(
            messages(&ds),
            [
                "d.json:2 [examples[0] id=x]: error: dialogue lists differ in length: conv_questions 2, conv_answers 1, turn_program 2, executed_answers 2",
                "d.json:2 [examples[0] id=x]: warning: features.has_type2_question is a string, expected a boolean",
                "d.json:2 [examples[0] id=x]: warning: features.num_dialogue_turns is 3 but the dialogue has 2 questions",
                "d.json:2 [examples[0] id=x]: error: doc.table is a number, expected rows or {column: {row: value}}",
                "d.json:6 [examples[1] id=x]: warning: duplicate id (first seen at examples[0]); lookups use the first",
            ]
        );
        let index = dataset_index(&ds);
        assert_eq!(index.len(), 1);
        assert_eq!(index.get("x").map(|c| c.questions.len()), Some(2));
        assert!(index.get("y").is_none());
    }

    #[test]
    fn unusable_files_are_errors() {
        let err = |json: &str| -> Vec<String> {
            read_dataset("d.json", json.as_bytes())
                .expect_err(json)
                .iter()
                .map(|d| d.to_string())
                .collect()
        };
        assert_eq!(
            err("{\"dev\": [\n  {\"id\": 1,}\n]}"),
            ["d.json:2: error: not valid JSON: trailing comma at line 2 column 12"]
        );
        assert!(err("").join("").contains("not valid JSON"));
        assert!(err("{\"foo\": []}")
            .join("")
            .contains("not a ConvFinQA dataset"));
        assert!(err("42").join("").contains("the file holds a number"));
        assert!(err("{\"examples\": {}}")
            .join("")
            .contains("\"examples\" is an object"));
        // Every record bad: nothing usable.
        assert!(err("{\"dev\": [1, 2]}").join("\n").contains("dev[1]"));
        // An empty dataset is usable but says so.
        let ds = read_ok("{\"dev\": []}");
        assert_eq!(
            messages(&ds),
            ["d.json: warning: the dataset has no records"]
        );
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_dataset(GOOD.as_bytes()));
        assert!(looks_like_dataset(
            b"\xef\xbb\xbf [{\"dialogue\": {\"conv_questions\": []}}]"
        ));
        assert!(!looks_like_dataset(b"{\"dialogue\": 1}"));
        assert!(!looks_like_dataset(
            b"[{\"example_id\": \"x\", \"turns\": []}]"
        ));
        assert!(!looks_like_dataset(
            b"id,question\n\"dialogue\",\"turn_program\""
        ));
        assert!(!looks_like_dataset(b""));
    }

    #[test]
    fn finds_the_lines_of_ids() {
        let text = "{\"dev\": [\n {\"x\": \"id\", \"t\": \"say \\\"id\\\": \\\"q\\\"\"},\n {\"id\" : \"a\\\"b\"},\n\n {\"id\": \"a\\\"b\"}, {\"id\": 5}\n]}";
        let lines = id_lines(text.as_bytes());
        assert_eq!(lines.get("a\"b"), Some(&vec![3, 5]));
        assert_eq!(lines.len(), 1, "{lines:?}");
    }
}
