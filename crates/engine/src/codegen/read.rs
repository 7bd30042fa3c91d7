//! Readers for code-generation run folders: the seed system's `chat_history/<session>/metrics.json`
//! and `metrics_summary.json` (scores only), code-generation trace JSONL (docs/codegen.md), and
//! the data CSVs the traces name. Bad input is data: every malformed entry or line becomes a
//! diagnostic with file and line, and reading goes on.

use std::collections::BTreeMap;

use super::aggregate::EntryScores;
use super::dto::{MetricsEntry, MetricsSummaryFile};
use super::model::{CodegenMessage, DataFile, ExecutionResult, RecoveryAttempt, Tokens};
use super::sniff::{file_name, sniff, strip_bom, CodegenFileKind};
use super::{CodegenRun, CodegenSession, OriginalEntry, OriginalMetrics, OriginalSummary};
use crate::accounting::{FileStatus, InputFileReport};
use crate::diag::LineCursor;
use crate::{Diagnostic, InputFile};

/// The session a `chat_history/<session>/metrics*.json` file belongs to: its folder's name.
fn session_of_path(path: &str) -> Option<String> {
    let mut parts = path.rsplit('/');
    parts.next();
    parts.next().filter(|s| !s.is_empty()).map(str::to_string)
}

#[derive(Default)]
struct Builder {
    sessions: BTreeMap<String, CodegenSession>,
    diags: Vec<Diagnostic>,
}

impl Builder {
    fn session(&mut self, id: &str) -> &mut CodegenSession {
        self.sessions
            .entry(id.to_string())
            .or_insert_with(|| CodegenSession {
                session_id: id.to_string(),
                original: None,
                original_summary: None,
                messages: Vec::new(),
            })
    }
}

/// Reads every code-generation file of a run folder. Files that are not code-generation files
/// are left alone; CSVs are read as data files when a trace names them (or is the only one).
pub fn read_codegen_run(name: &str, files: &[InputFile]) -> CodegenRun {
    let mut sorted: Vec<&InputFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut b = Builder::default();
    let mut data_files = Vec::new();
    let mut summaries = Vec::new();
    let mut traces = Vec::new();
    for f in &sorted {
        if f.path.to_ascii_lowercase().ends_with(".csv") {
            let (d, diags) = read_data_file(f);
            data_files.push(d);
            b.diags.extend(diags);
            continue;
        }
        match sniff(&f.path, &f.bytes) {
            Some(CodegenFileKind::MetricsJson) => {
                let session = session_of_path(&f.path).unwrap_or_else(|| name.to_string());
                let (orig, diags) = read_metrics_json(&f.path, &f.bytes);
                b.diags.extend(diags);
                if let Some(orig) = orig {
                    let s = b.session(&session);
                    if s.original.is_some() {
                        b.diags.push(Diagnostic::warning(
                            &f.path,
                            None,
                            format!(
                                "second metrics.json for session {session}; this one is ignored"
                            ),
                        ));
                    } else {
                        s.original = Some(orig);
                    }
                }
            }
            Some(CodegenFileKind::MetricsSummaryJson) => summaries.push(*f),
            Some(CodegenFileKind::TraceJsonl) => traces.push(*f),
            None => {}
        }
    }
    for f in summaries {
        let (summary, diags) = read_metrics_summary(&f.path, &f.bytes);
        b.diags.extend(diags);
        let Some(summary) = summary else { continue };
        let from_json = summary
            .raw
            .get("session_id")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let session = session_of_path(&f.path)
            .or_else(|| from_json.clone())
            .unwrap_or_else(|| name.to_string());
        if let Some(id) = from_json.filter(|id| *id != session) {
            b.diags.push(Diagnostic::warning(
                &f.path,
                None,
                format!(
                    "session_id {id:?} differs from the folder name {session:?}; the folder wins"
                ),
            ));
        }
        b.session(&session).original_summary = Some(summary);
    }
    for f in traces {
        let stem = file_name(&f.path)
            .rsplit_once('.')
            .map_or(file_name(&f.path), |(s, _)| s)
            .to_string();
        let (messages, diags) = read_trace(&f.path, &f.bytes, &stem);
        b.diags.extend(diags);
        for mut m in messages {
            m.data_file = resolve_data_file(&mut m, &data_files, &mut b.diags);
            b.session(&m.session_id.clone()).messages.push(m);
        }
    }
    if b.sessions.is_empty() {
        b.diags.push(Diagnostic::error(
            name,
            None,
            "no code-generation files (metrics.json, metrics_summary.json or trace .jsonl) in this folder",
        ));
    }
    CodegenRun {
        name: name.to_string(),
        sessions: b.sessions.into_values().collect(),
        data_files,
        diagnostics: b.diags,
    }
}

/// Finds the run-folder CSV for a message: by exact path, else by file name (the seed app
/// stored uploads as `uploads/<session>_<name>.csv`), else the folder's only CSV when the message
/// names none and lists no columns (the message's `csv_file` becomes that path).
fn resolve_data_file(
    m: &mut CodegenMessage,
    data_files: &[DataFile],
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    match m.csv_file.as_deref().filter(|f| !f.is_empty()) {
        Some(csv) => {
            let csv_norm = csv.replace('\\', "/");
            let exact = data_files.iter().find(|d| d.path == csv_norm);
            let by_name = || {
                let want = file_name(&csv_norm);
                data_files
                    .iter()
                    .find(|d| file_name(&d.path) == want)
                    .or_else(|| {
                        data_files
                            .iter()
                            .find(|d| want.ends_with(file_name(&d.path)))
                    })
            };
            match exact.or_else(by_name) {
                Some(d) => Some(d.path.clone()),
                None => {
                    if m.columns.is_none() {
                        diags.push(Diagnostic::warning(
                            &m.file,
                            Some(m.line),
                            format!(
                                "data file {csv:?} is not in the run folder and the line lists no columns: column checks see none"
                            ),
                        ));
                    }
                    None
                }
            }
        }
        None => match (data_files, &m.columns) {
            ([only], None) => {
                m.csv_file = Some(only.path.clone());
                Some(only.path.clone())
            }
            _ => None,
        },
    }
}

/// pandas' header: duplicate names get `.1`, `.2`…; empty names become `Unnamed: <i>`.
///
/// A name takes the first of `base`, `base.1`, `base.2`… not taken yet. Names once taken stay
/// taken, so the next duplicate of `base` resumes after the suffix the last one got: each name
/// costs a few set lookups. (Searching from `.1` in the list of names taken was cubic in the
/// number of duplicates: a fuzzed one-line CSV of 40,000 equal names took minutes.)
fn pandas_columns(raw: Vec<String>) -> Vec<String> {
    use std::collections::{HashMap, HashSet};
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut taken: HashSet<String> = HashSet::with_capacity(raw.len());
    // The next suffix to try for a base name (0: the name itself).
    let mut next: HashMap<String, usize> = HashMap::new();
    for (i, name) in raw.into_iter().enumerate() {
        let base = if name.is_empty() {
            format!("Unnamed: {i}")
        } else {
            name
        };
        let mut k = next.get(&base).copied().unwrap_or(0);
        let mut candidate = if k == 0 {
            base.clone()
        } else {
            format!("{base}.{k}")
        };
        while taken.contains(&candidate) {
            k += 1;
            candidate = format!("{base}.{k}");
        }
        next.insert(base, k + 1);
        taken.insert(candidate.clone());
        out.push(candidate);
    }
    out
}

/// Reads a CSV's header and size.
pub fn read_data_file(f: &InputFile) -> (DataFile, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let bytes = strip_bom(&f.bytes);
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    let columns = match rdr.read_byte_record(&mut record) {
        Ok(true) => {
            // A header is one line: one that runs on has a quoted name with a line break, or a
            // stray quote that swallowed rows. pandas reads it the same way, so the columns are
            // kept as read, and the lines named.
            let lines = crate::csv_rows::lines_spanned(bytes, 0, rdr.position().byte());
            if lines > 1 {
                diags.push(Diagnostic::warning(
                    &f.path,
                    Some(1),
                    format!(
                        "the header runs on to line {lines}: a quoted column name holds a line \
                         break, or a quote is stray (then rows were read as column names); \
                         columns kept as pandas reads them"
                    ),
                ));
            }
            let names: Result<Vec<String>, _> = record
                .iter()
                .map(|field| String::from_utf8(field.to_vec()))
                .collect();
            match names {
                Ok(names) => Some(pandas_columns(names)),
                Err(_) => {
                    diags.push(Diagnostic::warning(
                        &f.path,
                        Some(1),
                        "CSV header is not valid UTF-8: columns unknown",
                    ));
                    None
                }
            }
        }
        Ok(false) => {
            diags.push(Diagnostic::warning(
                &f.path,
                None,
                "CSV is empty: columns unknown",
            ));
            None
        }
        Err(e) => {
            let line = e
                .position()
                .map(|p| u32::try_from(p.line()).unwrap_or(u32::MAX));
            diags.push(Diagnostic::warning(
                &f.path,
                line,
                format!("CSV header unreadable: {e}"),
            ));
            None
        }
    };
    (
        DataFile {
            path: f.path.clone(),
            columns,
            size_bytes: f.bytes.len() as u64,
        },
        diags,
    )
}

/// A parse error of JSON text that starts on line `base_line` of its file.
fn json_error(path: &str, base_line: u32, e: &serde_json::Error, what: &str) -> Diagnostic {
    let line = base_line + u32::try_from(e.line()).unwrap_or(1).saturating_sub(1);
    Diagnostic::error(
        path,
        Some(line),
        format!(
            "{what}: {} (column {})",
            crate::json_array::error_message(e),
            e.column()
        ),
    )
}

/// Reads `metrics.json`.
pub fn read_metrics_json(path: &str, bytes: &[u8]) -> (Option<OriginalMetrics>, Vec<Diagnostic>) {
    let bytes = strip_bom(bytes);
    let mut diags = Vec::new();
    let (spans, problems) = match crate::json_array::element_spans(bytes) {
        Ok(x) => x,
        Err(not) => {
            let msg = match not {
                crate::json_array::NotAnArray::Empty => "empty file",
                crate::json_array::NotAnArray::Other => "expected a JSON list of metric entries",
            };
            diags.push(Diagnostic::error(path, Some(1), msg));
            return (None, diags);
        }
    };
    // Problems and spans each come in file order: one cursor pass for each.
    let mut lines = LineCursor::new(bytes);
    for (off, msg) in problems {
        diags.push(Diagnostic::error(path, Some(lines.line_of(off)), msg));
    }
    let mut entries = Vec::new();
    for (idx, (s, e)) in spans.into_iter().enumerate() {
        let line = lines.line_of(s);
        let slice = bytes.get(s..e).unwrap_or_default();
        let record = format!("entry {idx}");
        let raw: serde_json::Value = match serde_json::from_slice(slice) {
            Ok(v) => v,
            Err(err) => {
                diags.push(json_error(path, line, &err, "malformed entry").with_record(record));
                continue;
            }
        };
        if !raw.is_object() {
            diags.push(
                Diagnostic::error(path, Some(line), "entry is not a JSON object")
                    .with_record(record),
            );
            continue;
        }
        let repeats: Vec<_> = crate::json_keys::duplicate_keys(slice)
            .into_iter()
            .map(|d| d.within(&format!("[{idx}]")))
            .collect();
        diags.extend(
            crate::json_keys::warnings(path, slice, line, &repeats)
                .into_iter()
                .map(|d| d.with_record(record.clone())),
        );
        let typed = match serde_json::from_value::<MetricsEntry>(raw.clone()) {
            Ok(t) => Some(t),
            Err(err) => {
                diags.push(
                    Diagnostic::warning(
                        path,
                        Some(line),
                        format!("entry does not have the seed system's full metrics shape ({err}); its scores are read as far as present"),
                    )
                    .with_record(record),
                );
                None
            }
        };
        entries.push(OriginalEntry {
            index: idx,
            line,
            scores: EntryScores::from_json(&raw),
            typed,
            raw,
        });
    }
    (
        Some(OriginalMetrics {
            file: path.to_string(),
            entries,
        }),
        diags,
    )
}

/// Reads `metrics_summary.json`.
pub fn read_metrics_summary(
    path: &str,
    bytes: &[u8],
) -> (Option<OriginalSummary>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let raw: serde_json::Value = match serde_json::from_slice(strip_bom(bytes)) {
        Ok(v) => v,
        Err(e) => {
            diags.push(json_error(path, 1, &e, "malformed metrics summary"));
            return (None, diags);
        }
    };
    if !raw.is_object() {
        diags.push(Diagnostic::error(
            path,
            Some(1),
            "metrics summary is not a JSON object",
        ));
        return (None, diags);
    }
    crate::json_keys::warn_duplicates(&mut diags, path, bytes, 1);
    let typed = match serde_json::from_value::<MetricsSummaryFile>(raw.clone()) {
        Ok(t) => Some(t),
        Err(e) => {
            diags.push(Diagnostic::warning(
                path,
                Some(1),
                format!("summary does not have the seed system's shape ({e})"),
            ));
            None
        }
    };
    (
        Some(OriginalSummary {
            file: path.to_string(),
            raw,
            typed,
        }),
        diags,
    )
}

/// Field access with diagnostics for one trace line.
struct Line<'a> {
    path: &'a str,
    line: u32,
    obj: &'a serde_json::Map<String, serde_json::Value>,
    diags: &'a mut Vec<Diagnostic>,
}

impl Line<'_> {
    fn warn(&mut self, msg: String) {
        self.diags
            .push(Diagnostic::warning(self.path, Some(self.line), msg));
    }
    fn error(&mut self, msg: String) {
        self.diags
            .push(Diagnostic::error(self.path, Some(self.line), msg));
    }
    /// An optional string field; wrong types are warned about and dropped.
    fn opt_str(&mut self, key: &str) -> Option<String> {
        match self.obj.get(key) {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.warn(format!("{key} should be a string, got {other}; ignored"));
                None
            }
        }
    }
    /// An optional number field; wrong types are warned about and dropped.
    fn opt_num(&mut self, key: &str, v: Option<&serde_json::Value>) -> Option<f64> {
        match v {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::Number(n)) => {
                let x = n.as_f64();
                if x.is_some_and(|x| x < 0.0) {
                    self.warn(format!("{key} is negative ({n}); kept as given"));
                }
                x
            }
            Some(other) => {
                self.warn(format!(
                    "{key} should be a number of seconds, got {other}; ignored"
                ));
                None
            }
        }
    }
}

fn read_tokens(l: &mut Line<'_>) -> Option<Tokens> {
    let v = l.obj.get("tokens")?;
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::Number(n) => match n.as_u64() {
            Some(total) => Some(Tokens {
                total: Some(total),
                ..Tokens::default()
            }),
            None => {
                l.warn(format!("tokens should be a count, got {n}; ignored"));
                None
            }
        },
        serde_json::Value::Object(o) => {
            let mut t = Tokens::default();
            for (key, slot) in [
                ("prompt", &mut t.prompt),
                ("completion", &mut t.completion),
                ("total", &mut t.total),
            ] {
                match o.get(key) {
                    None | Some(serde_json::Value::Null) => {}
                    Some(x) => match x.as_u64() {
                        Some(n) => *slot = Some(n),
                        None => l.warn(format!("tokens.{key} should be a count, got {x}; ignored")),
                    },
                }
            }
            Some(t)
        }
        other => {
            l.warn(format!(
                "tokens should be a count or {{prompt, completion, total}}, got {other}; ignored"
            ));
            None
        }
    }
}

fn read_attempts(l: &mut Line<'_>) -> Vec<RecoveryAttempt> {
    let list = match l.obj.get("recovery_attempts") {
        None | Some(serde_json::Value::Null) => return Vec::new(),
        Some(serde_json::Value::Array(a)) => a,
        Some(other) => {
            l.warn(format!(
                "recovery_attempts should be a list, got {other}; ignored"
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let mut misnumbered = false;
    for (i, item) in list.iter().enumerate() {
        let Some(a) = item.as_object() else {
            l.warn(format!("recovery_attempts[{i}] is not an object; skipped"));
            continue;
        };
        let text = |key: &str, l: &mut Line<'_>| match a.get(key) {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => {
                l.warn(format!(
                    "recovery_attempts[{i}].{key} should be a string, got {other}; ignored"
                ));
                None
            }
        };
        let code = text("code", l);
        let error = text("error", l);
        let success = match a.get("success") {
            Some(serde_json::Value::Bool(b)) => *b,
            other => {
                l.warn(format!(
                    "recovery_attempts[{i}].success should be true or false, got {}; taken as false",
                    other.map_or("nothing".to_string(), |v| v.to_string())
                ));
                false
            }
        };
        let attempt_number = match a.get("attempt_number") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => {
                match v.as_u64() {
                    Some(n) => Some(n),
                    None => {
                        l.warn(format!("recovery_attempts[{i}].attempt_number should be a count, got {v}; ignored"));
                        None
                    }
                }
            }
        };
        if !misnumbered && attempt_number.is_some_and(|n| n != out.len() as u64 + 1) {
            misnumbered = true;
            l.warn(format!(
                "recovery_attempts[{i}].attempt_number is {}, expected {}; attempts are taken in list order",
                attempt_number.unwrap_or_default(),
                out.len() + 1
            ));
        }
        if success && error.is_some() {
            l.warn(format!(
                "recovery_attempts[{i}] is a success but has an error; the error is kept"
            ));
        }
        let execution_time = l.opt_num(
            &format!("recovery_attempts[{i}].execution_time"),
            a.get("execution_time"),
        );
        out.push(RecoveryAttempt {
            attempt_number,
            code,
            error,
            success,
            execution_time,
        });
    }
    out
}

/// Reads one trace line (already a JSON object). `None` when a required field is unusable.
fn read_message(l: &mut Line<'_>, default_session: &str) -> Option<CodegenMessage> {
    let question = match l.obj.get("question") {
        Some(serde_json::Value::String(s)) => s.clone(),
        other => {
            l.error(format!(
                "question should be a string, got {}; line skipped",
                other.map_or("nothing".to_string(), |v| v.to_string())
            ));
            return None;
        }
    };
    let code = match l.obj.get("code") {
        Some(serde_json::Value::String(s)) => s.clone(),
        // The seed app scored "" when code generation failed.
        Some(serde_json::Value::Null) => String::new(),
        other => {
            l.error(format!(
                "code should be a string (or null when generation failed), got {}; line skipped",
                other.map_or("nothing".to_string(), |v| v.to_string())
            ));
            return None;
        }
    };
    let execution_result = match l.obj.get("execution_result") {
        Some(serde_json::Value::Object(r)) => match r.get("type") {
            Some(serde_json::Value::String(kind)) => {
                let execution_time =
                    l.opt_num("execution_result.execution_time", r.get("execution_time"));
                ExecutionResult {
                    kind: kind.clone(),
                    data: r.get("data").cloned(),
                    execution_time,
                }
            }
            other => {
                l.error(format!(
                    "execution_result.type should be a string, got {}; line skipped",
                    other.map_or("nothing".to_string(), |v| v.to_string())
                ));
                return None;
            }
        },
        other => {
            l.error(format!(
                "execution_result should be an object {{type, data}}, got {}; line skipped",
                other.map_or("nothing".to_string(), |v| v.to_string())
            ));
            return None;
        }
    };
    if execution_result.is_error()
        && !matches!(execution_result.data, Some(serde_json::Value::String(_)))
    {
        l.warn("execution_result is an error without a message string in data".to_string());
    }
    let execution_time = if l.obj.contains_key("execution_time") {
        let v = l.obj.get("execution_time");
        l.opt_num("execution_time", v)
    } else {
        execution_result.execution_time
    };
    let session_id = match l.obj.get("session_id") {
        Some(serde_json::Value::String(s)) if !s.is_empty() => s.clone(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        other => {
            l.warn(format!(
                "session_id missing or not a string ({}); using {default_session:?}",
                other.map_or("nothing".to_string(), |v| v.to_string())
            ));
            default_session.to_string()
        }
    };
    let model = match l.obj.get("model") {
        Some(serde_json::Value::String(m)) => m.clone(),
        other => {
            l.warn(format!(
                "model missing or not a string ({}); recorded as \"unknown\"",
                other.map_or("nothing".to_string(), |v| v.to_string())
            ));
            "unknown".to_string()
        }
    };
    let timestamp = l.opt_str("timestamp");
    let csv_file = l.opt_str("csv_file");
    let columns = match l.obj.get("columns") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Array(items)) => {
            let mut cols = Vec::new();
            for (i, c) in items.iter().enumerate() {
                match c.as_str() {
                    Some(s) => cols.push(s.to_string()),
                    None => l.warn(format!("columns[{i}] should be a string, got {c}; skipped")),
                }
            }
            Some(cols)
        }
        Some(other) => {
            l.warn(format!(
                "columns should be a list of names, got {other}; ignored"
            ));
            None
        }
    };
    let tokens = read_tokens(l);
    let recovery_attempts = read_attempts(l);
    if !execution_result.is_error() && !recovery_attempts.is_empty() {
        l.warn("recovery attempts on an execution that did not fail".to_string());
    }
    Some(CodegenMessage {
        file: l.path.to_string(),
        line: l.line,
        session_id,
        timestamp,
        model,
        question,
        csv_file,
        columns,
        data_file: None,
        code,
        execution_result,
        execution_time,
        tokens,
        recovery_attempts,
    })
}

/// Reads a trace JSONL file: one message per line; blank lines are skipped.
pub fn read_trace(
    path: &str,
    bytes: &[u8],
    default_session: &str,
) -> (Vec<CodegenMessage>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut out = Vec::new();
    let bytes = strip_bom(bytes);
    for (i, raw_line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let raw_line = raw_line.strip_suffix(b"\r").unwrap_or(raw_line);
        if raw_line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_slice(raw_line) {
            Ok(v) => v,
            Err(e) => {
                diags.push(Diagnostic::error(
                    path,
                    Some(line_no),
                    format!(
                        "malformed JSON: {} (column {}); line skipped",
                        crate::json_array::error_message(&e),
                        e.column()
                    ),
                ));
                continue;
            }
        };
        let Some(obj) = value.as_object() else {
            diags.push(Diagnostic::error(
                path,
                Some(line_no),
                "line is not a JSON object; skipped",
            ));
            continue;
        };
        crate::json_keys::warn_duplicates(&mut diags, path, raw_line, line_no);
        let mut l = Line {
            path,
            line: line_no,
            obj,
            diags: &mut diags,
        };
        if let Some(m) = read_message(&mut l, default_session) {
            out.push(m);
        }
    }
    if out.is_empty() {
        diags.push(Diagnostic::error(
            path,
            None,
            "no usable message in this trace",
        ));
    }
    (out, diags)
}

/// The load report of a code-generation run folder: every input file with its status. CSVs and
/// code-generation files are parsed, or partly parsed when reading them gave errors (the count
/// and the first one are the reason); anything else is skipped with the reason. Sorted by path.
pub fn file_reports(files: &[InputFile], diagnostics: &[Diagnostic]) -> Vec<InputFileReport> {
    let mut out: Vec<InputFileReport> = files
        .iter()
        .map(|f| {
            let is_csv = f.path.to_ascii_lowercase().ends_with(".csv");
            let format = match sniff(&f.path, &f.bytes) {
                Some(CodegenFileKind::MetricsJson) => Some("codegen-metrics-json"),
                Some(CodegenFileKind::MetricsSummaryJson) => Some("codegen-metrics-summary"),
                Some(CodegenFileKind::TraceJsonl) => Some("codegen-trace-jsonl"),
                None if is_csv => Some("csv-data"),
                None => None,
            };
            let (status, reason) = match format {
                None => (
                    FileStatus::Skipped,
                    Some(
                        "not a code-generation file (metrics.json, metrics_summary.json, trace \
                         .jsonl or a data .csv)"
                            .to_string(),
                    ),
                ),
                Some(_) => {
                    let mine: Vec<Diagnostic> = diagnostics
                        .iter()
                        .filter(|d| d.file == f.path)
                        .cloned()
                        .collect();
                    crate::accounting::status_of(&mine)
                }
            };
            InputFileReport {
                path: f.path.clone(),
                bytes: f.bytes.len() as u64,
                format: format.map(str::to_string),
                status,
                reason,
            }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_reports_give_every_file_a_status() {
        let files = [
            InputFile::new("t.jsonl", "{\"question\":\"q\",\"code\":\"x\",\"execution_result\":{\"type\":\"number\"}}\nnot json\n"),
            InputFile::new("s/metrics.json", "[]"),
            InputFile::new("data.csv", "a,b\n1,2\n"),
            InputFile::new("notes.txt", "hello"),
        ];
        let run = read_codegen_run("r", &files);
        let reports = file_reports(&files, &run.diagnostics);
        let got: Vec<(&str, FileStatus, Option<&str>)> = reports
            .iter()
            .map(|r| (r.path.as_str(), r.status, r.format.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("data.csv", FileStatus::Parsed, Some("csv-data")),
                ("notes.txt", FileStatus::Skipped, None),
                (
                    "s/metrics.json",
                    FileStatus::Parsed,
                    Some("codegen-metrics-json")
                ),
                (
                    "t.jsonl",
                    FileStatus::PartlyParsed,
                    Some("codegen-trace-jsonl")
                ),
            ]
        );
        let reason = reports[3].reason.as_deref().unwrap_or("");
        assert!(
            reason.starts_with("1 problem; first: malformed JSON"),
            "{reason}"
        );
    }

    #[test]
    fn pandas_header_mangling() {
        let check = |raw: &[&str], want: &[&str]| {
            let got = pandas_columns(raw.iter().map(|s| s.to_string()).collect());
            assert_eq!(got, want);
        };
        check(&["a", "b"], &["a", "b"]);
        check(&["a", "a", "a"], &["a", "a.1", "a.2"]);
        check(&["", "x", ""], &["Unnamed: 0", "x", "Unnamed: 2"]);
        check(&["a", "a.1", "a"], &["a", "a.1", "a.2"]);
        check(
            &["a", "a", "a.1", "", "a"],
            &["a", "a.1", "a.1.1", "Unnamed: 3", "a.2"],
        );
        check(
            &["a.2", "a", "a", "a", "a"],
            &["a.2", "a", "a.1", "a.3", "a.4"],
        );
        check(&[], &[]);
    }

    /// Fuzz finding (evalboard-fuzz, codegen_files: a hang): a one-line CSV of tens of thousands
    /// of equal names. Each duplicate searched its suffix from `.1` through the list of names
    /// taken, cubic in their number.
    #[test]
    fn many_duplicate_header_names_are_numbered_in_linear_time() {
        let n = 30_000;
        let header = vec!["x,"; n].concat();
        let t = std::time::Instant::now();
        let (d, diags) = read_data_file(&InputFile::new("data.csv", header.into_bytes()));
        let took = t.elapsed();
        assert!(diags.is_empty(), "{diags:?}");
        let cols = d.columns.unwrap_or_default();
        assert_eq!(cols.len(), n + 1);
        assert_eq!(cols[0], "x");
        assert_eq!(cols[n - 1], format!("x.{}", n - 1));
        assert_eq!(cols[n], format!("Unnamed: {n}"));
        assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn data_file_headers() {
        let check = |bytes: &[u8], want: Option<&[&str]>, n_diags: usize| {
            let (d, diags) = read_data_file(&InputFile::new("d.csv", bytes.to_vec()));
            let want: Option<Vec<String>> = want.map(|w| w.iter().map(|s| s.to_string()).collect());
            assert_eq!(d.columns, want, "{bytes:?}");
            assert_eq!(d.size_bytes, bytes.len() as u64);
            assert_eq!(diags.len(), n_diags, "{diags:?}");
        };
        check(b"name,age\nA,1\n", Some(&["name", "age"]), 0);
        // A stray quote in the header swallows the rows: kept as pandas reads it, and named.
        check(
            b"name,\"age\nA,1\nB,2\n",
            Some(&["name", "age\nA,1\nB,2\n"]),
            1,
        );
        check(b"\xEF\xBB\xBF\"a,b\",c\r\n1,2\r\n", Some(&["a,b", "c"]), 0);
        check(b"", None, 1);
        check(b"\xff\xfe,a\n", None, 1);
        check(b"x", Some(&["x"]), 0);
    }

    fn line(fields: &str) -> String {
        format!(
            r#"{{"session_id": "s", "model": "m", "question": "q", "code": "x = 1", "execution_result": {{"type": "number", "data": 1}}{fields}}}"#
        )
    }

    #[test]
    fn trace_lines_and_positions() {
        let text = format!(
            "{}\r\n\n{}\n{{bad\n{}",
            line(""),
            line(r#", "execution_time": 0.5, "tokens": 7"#),
            line(
                r#", "execution_result": {"type": "error", "data": "E", "execution_time": 0.2}, "recovery_attempts": [{"attempt_number": 1, "code": null, "error": "E2", "success": false, "execution_time": null}]"#
            )
        );
        let (msgs, diags) = read_trace("t.jsonl", text.as_bytes(), "t");
        let lines: Vec<u32> = msgs.iter().map(|m| m.line).collect();
        assert_eq!(lines, vec![1, 3, 5]);
        assert_eq!(diags.len(), 2);
        assert_eq!(diags[0].line, Some(4));
        // Line 5 repeats `execution_result`: the last value is read, with a warning.
        assert_eq!(
            diags[1].to_string(),
            "t.jsonl:5: warning: duplicate key \"execution_result\" in the top-level object; the last value is used"
        );
        assert_eq!(msgs[1].execution_time, Some(0.5));
        assert_eq!(msgs[1].tokens.map(|t| t.total), Some(Some(7)));
        // execution_time falls back to execution_result.execution_time.
        assert_eq!(msgs[2].execution_time, Some(0.2));
        assert_eq!(msgs[2].recovery_attempts.len(), 1);
        assert_eq!(msgs[2].recovery_attempts[0].code, None);
        let (msgs, diags) = read_trace("t.jsonl", b"\n\n", "t");
        assert!(msgs.is_empty());
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn data_file_resolution() {
        let data = |p: &str| DataFile {
            path: p.into(),
            columns: Some(vec!["a".into()]),
            size_bytes: 1,
        };
        let check = |csv: Option<&str>,
                     columns: Option<Vec<String>>,
                     files: &[DataFile],
                     want: Option<&str>,
                     n_diags: usize| {
            let text = match csv {
                Some(c) => line(&format!(r#", "csv_file": {}"#, serde_json::json!(c))),
                None => line(""),
            };
            let (mut msgs, _) = read_trace("t.jsonl", text.as_bytes(), "t");
            let mut m = msgs.remove(0);
            m.columns = columns;
            let mut diags = Vec::new();
            let got = resolve_data_file(&mut m, files, &mut diags);
            assert_eq!(got.as_deref(), want, "{csv:?}");
            assert_eq!(diags.len(), n_diags, "{diags:?}");
        };
        let files = [data("data/employees.csv"), data("sales.csv")];
        check(
            Some("data/employees.csv"),
            None,
            &files,
            Some("data/employees.csv"),
            0,
        );
        check(
            Some("employees.csv"),
            None,
            &files,
            Some("data/employees.csv"),
            0,
        );
        check(
            Some("uploads/abc_sales.csv"),
            None,
            &files,
            Some("sales.csv"),
            0,
        );
        check(
            Some("C:\\up\\sales.csv"),
            None,
            &files,
            Some("sales.csv"),
            0,
        );
        check(Some("other.csv"), None, &files, None, 1);
        check(Some("other.csv"), Some(vec!["x".into()]), &files, None, 0);
        check(None, None, &files, None, 0);
        check(None, None, &files[..1], Some("data/employees.csv"), 0);
        check(None, Some(vec![]), &files[..1], None, 0);
    }

    #[test]
    fn run_groups_sessions_by_folder_and_trace() {
        let files = vec![
            InputFile::new("chat_history/s2/metrics.json", b"[]".to_vec()),
            InputFile::new(
                "chat_history/s2/metrics_summary.json",
                br#"{"session_id": "s2"}"#.to_vec(),
            ),
            InputFile::new("t.jsonl", line("").into_bytes()),
            InputFile::new("notes.txt", b"hello".to_vec()),
        ];
        let run = read_codegen_run("r", &files);
        let ids: Vec<&str> = run.sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, vec!["s", "s2"]);
        assert_eq!(
            run.sessions[1].original.as_ref().map(|o| o.entries.len()),
            Some(0)
        );
        assert!(run.sessions[1].original_summary.is_some());
        assert_eq!(run.sessions[0].messages.len(), 1);
        let run = read_codegen_run("r", &[InputFile::new("notes.txt", b"x".to_vec())]);
        assert!(run.sessions.is_empty());
        assert_eq!(run.diagnostics.len(), 1);
        assert_eq!(session_of_path("metrics.json"), None);
        assert_eq!(session_of_path("a/b/metrics.json").as_deref(), Some("b"));
    }

    #[test]
    fn metrics_json_entry_lines() {
        let text =
            b"[\n  {\"overall_score\": 1},\n  {\"overall_score\": ,},\n  {\"model\": \"m\"}\n]";
        let (orig, diags) = read_metrics_json("m.json", text);
        let entries = orig.map(|o| o.entries).unwrap_or_default();
        let lines: Vec<(usize, u32)> = entries.iter().map(|e| (e.index, e.line)).collect();
        assert_eq!(lines, vec![(0, 2), (2, 4)]);
        let errors: Vec<(Option<u32>, crate::Severity)> =
            diags.iter().map(|d| (d.line, d.severity)).collect();
        assert!(
            errors.contains(&(Some(3), crate::Severity::Error)),
            "{diags:?}"
        );
        assert_eq!(entries[0].scores.overall_score, Some(1.0));
        let (orig, diags) = read_metrics_json("m.json", b"{}");
        assert!(orig.is_none());
        assert_eq!(diags.len(), 1);
    }

    /// Fuzz finding (evalboard-fuzz): each entry's line (and each malformed entry's, and each
    /// `,,` problem's) was counted from the start of the file, so a metrics.json of many small
    /// entries read in time quadratic in its size. Now one pass, with the same lines.
    #[test]
    fn many_entries_are_located_in_one_pass() {
        let n = 40_000;
        let mut text = String::from("[\n");
        for i in 0..n {
            text.push_str(match i % 4 {
                0 => "{\"overall_score\": 1},\n",
                1 => "{\"overall_score\": ,},\n",
                2 => ",\n",
                _ => "{\"model\": \"m\"},\n",
            });
        }
        text.push_str("{}]");
        let t = std::time::Instant::now();
        let (orig, diags) = read_metrics_json("m.json", text.as_bytes());
        let took = t.elapsed();
        let entries = orig.map(|o| o.entries).unwrap_or_default();
        // Element i of the array sits on line i + 2 (the `[` has line 1), empty ones included.
        assert_eq!(entries.len(), n / 2 + 1);
        let last = entries.last().map(|e| e.line);
        assert_eq!(last, Some(n as u32 + 2));
        let malformed: Vec<Option<u32>> = diags
            .iter()
            .filter(|d| d.message.starts_with("malformed entry"))
            .map(|d| d.line)
            .take(2)
            .collect();
        assert_eq!(malformed, vec![Some(3), Some(7)]);
        let empty = diags
            .iter()
            .find(|d| d.message == "empty element in the list")
            .map(|d| d.line);
        assert_eq!(empty, Some(Some(4)));
        // Quadratic counting took minutes here; one pass is milliseconds even unoptimized.
        assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    }
}
