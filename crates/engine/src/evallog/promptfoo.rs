//! promptfoo (FORMATS.md §3): the `promptfoo eval -o x.json` export (`OutputFile`: `evalId`,
//! `results {version, timestamp, prompts, results, stats}`, `config`, `metadata`) and the
//! `-o x.jsonl` form (one `EvaluateResult` per line, no header).
//!
//! **One run per file.** An export is one eval: every test × column (prompt × provider) ×
//! repeat. A user comparing two exports (the same config before and after a prompt edit, or with
//! another model) expects the same test in the same column to pair, and promptfoo's own compare
//! view compares whole evals. So the export stays one run, each column's numbers are headlines of
//! their own (`group` = the column), and an item is keyed
//! ([`SampleKey::Promptfoo`]) by:
//! - `test`: the test's identity — `testCase.description` and its `vars` (keys sorted), the
//!   same in two exports however `--repeat` numbered the rows (`testIdx` counts repeats);
//! - `prompt`: the column's prompt label (`prompt.label`), never its index or its provider: the
//!   provider is the run's model, which is what a comparison of two exports changes, and a
//!   prompt added or moved shifts `promptIdx`. Only when two columns of one export share a
//!   prompt label (one prompt, several providers) does the key fall back to the column label
//!   (`provider: prompt`, `#promptIdx` when even that repeats), and when a column has no label,
//!   to `#promptIdx`. The column label is kept in the sample's metadata as `column`;
//! - `repeat`: the row's rank among the rows of the same test and column in `testIdx` order
//!   (`--repeat N` writes no repeat field: each repeat is a new `testIdx`).
//!
//! Comparing the columns of one export with each other is not a comparison of runs: it is not
//! offered.
//!
//! Headlines, recomputed from the rows the way promptfoo counts them: the pass rate
//! (`successes / (successes + failures + errors)`, the CLI's "Pass Rate"; errors are rows with
//! `failureReason` 2, a provider error), against `results.stats`; per column its pass rate
//! (`testPassCount / (testPassCount + testFailCount + testErrorCount)`), the sum of its rows'
//! `score`, of their `cost`, and of each named metric (`namedScores[m]` × the row's
//! `namedScoreWeights[m]`, 1 when absent), against `results.prompts[i].metrics`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::json::{self, compact, finite, string, uint};
use super::model::{
    EvalLogRun, Headline, MetricKey, RecordedMetric, RecordedValue, Sample, SampleKey, ScoreEntry,
    Tokens, Tool,
};
use super::promptfoo_counts::{self as counts, Counts, RowCounts};
use crate::diag::Diagnostic;
use crate::input::InputFile;

/// `failureReason` of a row whose provider call failed (`ResultFailureReason.ERROR`).
const FAILURE_ERROR: u64 = 2;

/// One column of the eval (`results.prompts[i]`, or what the rows say of it).
#[derive(Debug, Default, Clone)]
struct Column {
    label: String,
    /// The prompt's own label (without the provider): the item key's `prompt` part.
    prompt: Option<String>,
    /// The provider's label (else id), for the run's model.
    provider: Option<String>,
    /// `metrics` as recorded (v3 exports only).
    metrics: Option<Value>,
}

/// A row read, before its repeat rank is known.
struct Row {
    test: String,
    test_idx: i64,
    prompt_idx: i64,
    sample: Sample,
    success: bool,
    is_error: bool,
    score: Option<f64>,
    cost: Option<f64>,
    /// namedScores[m] × its weight.
    named: Vec<(String, f64)>,
    /// What the row adds to the export's other numbers ([`super::promptfoo_counts`]).
    counts: RowCounts,
}

/// Reads a `promptfoo eval -o x.json` export.
pub fn read_json(file: &InputFile) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = file.path.as_str();
    let mut diags = Vec::new();
    let top: Value =
        json::parse_file(file, "a promptfoo export", &mut diags).map_err(|d| vec![d])?;
    let Some(summary) = top.get("results").filter(|r| r.is_object()) else {
        return Err(vec![Diagnostic::error(
            path,
            None,
            "no `results` object: not a promptfoo export",
        )]);
    };
    let Some(rows) = summary.get("results").and_then(Value::as_array) else {
        return Err(vec![Diagnostic::error(
            path,
            None,
            "no `results.results` list: not a promptfoo export",
        )]);
    };
    let version = summary.get("version").and_then(Value::as_i64);
    if !matches!(version, Some(2 | 3)) {
        diags.push(Diagnostic::warning(
            path,
            None,
            format!(
                "results.version is {}: evalboard reads versions 2 and 3",
                summary
                    .get("version")
                    .map(compact)
                    .unwrap_or("absent".into())
            ),
        ));
    }
    let declared: Vec<Column> = summary
        .get("prompts")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .map(|p| {
                    let provider = p.get("provider").and_then(string);
                    let prompt = p.get("label").and_then(string);
                    Column {
                        label: column_label(provider.clone(), prompt.clone()),
                        prompt,
                        provider,
                        metrics: p.get("metrics").cloned(),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let read_rows: Vec<(String, u32, &Value)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("{path}#results.results[{i}]"), 0, r))
        .collect();
    let (mut run, all_counts) = lower(path, read_rows, declared, &mut diags);
    let meta = top.get("metadata");
    run.tool_version = meta
        .and_then(|m| m.get("promptfooVersion"))
        .and_then(string);
    run.format_version = version;
    run.eval_id = top.get("evalId").and_then(string);
    run.created = summary
        .get("timestamp")
        .and_then(string)
        .or_else(|| meta?.get("evaluationCreatedAt").and_then(string));
    let config = top.get("config");
    run.task = config.and_then(|c| c.get("description")).and_then(string);
    for (section, v) in [
        ("config", config),
        ("metadata", meta),
        ("runtimeOptions", top.get("runtimeOptions")),
        ("stats", summary.get("stats")),
    ] {
        if let Some(v) = v.filter(|v| !v.is_null()) {
            run.config.insert(section.to_string(), compact(v));
        }
    }
    // The whole eval's pass rate, as `results.stats` records it.
    if let Some(stats) = summary.get("stats") {
        let count = |k: &str| stats.get(k).and_then(uint);
        let rate = match (count("successes"), count("failures"), count("errors")) {
            (Some(s), Some(f), Some(e)) => ratio(s, s.saturating_add(f).saturating_add(e)),
            _ => None,
        };
        let key = pass_rate_key(String::new());
        run.recorded.insert(
            0,
            RecordedMetric {
                key: key.clone(),
                value: rate,
                stderr: None,
            },
        );
        if let Some(h) = run.headlines.iter_mut().find(|h| h.key == key) {
            h.recorded = rate;
        }
        // Every other number of `stats`, recomputed from the rows.
        counts::push(
            all_counts.stats_headlines(stats),
            &mut run.recorded,
            &mut run.headlines,
        );
    }
    Ok((run, diags))
}

/// Reads a `promptfoo eval -o x.jsonl` file: rows only (nothing recorded to compare with).
pub fn read_jsonl(file: &InputFile) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = file.path.as_str();
    let mut diags = Vec::new();
    let mut rows: Vec<(u32, Value)> = Vec::new();
    json::each_line(file, &mut diags, |line_no, v, _| rows.push((line_no, v)));
    jsonl_run(path, &rows, diags)
}

/// The run of `.jsonl` file `path` whose lines parsed as `rows` (line number, value), with
/// `diags` (the lines' diagnostics): the whole read's end, for a watched file's lines so far as
/// for a whole file.
pub(crate) fn jsonl_run(
    path: &str,
    rows: &[(u32, Value)],
    mut diags: Vec<Diagnostic>,
) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    if rows.is_empty() {
        diags.push(Diagnostic::error(
            path,
            None,
            "no promptfoo result row could be read",
        ));
        return Err(diags);
    }
    let rows = rows
        .iter()
        .map(|(l, v)| (format!("{path}:{l}"), *l, v))
        .collect();
    let (run, _) = lower(path, rows, Vec::new(), &mut diags);
    Ok((run, diags))
}

/// The run's headline key: the pass rate over every row.
pub(crate) fn pass_rate() -> MetricKey {
    pass_rate_key(String::new())
}

/// Row `line` of a watched `.jsonl` file as its sample, or `None` when it is no row (a
/// diagnostic) or repeats a row already read (`seen`: the (promptIdx, testIdx) pairs read, the
/// first kept as [`read_jsonl`] keeps it; its warning is the full read's to give).
pub(crate) fn live_row(
    path: &str,
    line: u32,
    v: &Value,
    seen: &mut std::collections::BTreeSet<(i64, i64)>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Sample> {
    match read_row(path, format!("{path}:{line}"), line, v) {
        Ok(row) => seen
            .insert((row.prompt_idx, row.test_idx))
            .then_some(row.sample),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

/// `provider: prompt label` (either part alone when the other is empty).
fn column_label(provider: Option<String>, prompt: Option<String>) -> String {
    let provider = provider.filter(|p| !p.is_empty());
    let prompt = prompt.filter(|p| !p.is_empty());
    match (provider, prompt) {
        (Some(a), Some(b)) => format!("{a}: {b}"),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => String::new(),
    }
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

fn pass_rate_key(group: String) -> MetricKey {
    MetricKey {
        group,
        scorer: "pass".into(),
        variant: None,
        metric: "pass_rate".into(),
    }
}

fn sum_key(group: &str, scorer: &str) -> MetricKey {
    MetricKey {
        group: group.to_string(),
        scorer: scorer.to_string(),
        variant: None,
        metric: "sum".into(),
    }
}

/// A test's identity: its description and its vars (keys sorted), as JSON text.
fn test_identity(row: &Value) -> String {
    let case = row.get("testCase");
    let description = case
        .and_then(|c| c.get("description"))
        .or_else(|| row.get("description"))
        .and_then(string);
    let vars = row
        .get("vars")
        .or_else(|| case.and_then(|c| c.get("vars")))
        .and_then(Value::as_object)
        .map(|o| {
            let sorted: BTreeMap<&String, &Value> = o.iter().collect();
            serde_json::to_string(&sorted).unwrap_or_default()
        });
    match (description, vars) {
        (Some(d), Some(v)) => format!("{d} {v}"),
        (Some(d), None) => d,
        (None, Some(v)) => v,
        (None, None) => String::new(),
    }
}

/// One `EvaluateResult` as a sample (its repeat rank set later).
fn read_row(path: &str, source: String, line: u32, r: &Value) -> Result<Row, Diagnostic> {
    let line = (line > 0).then_some(line);
    let bad = |msg: String| Diagnostic::error(path, line, msg).with_record(source.clone());
    if !r.is_object() {
        return Err(bad(format!("result row is not an object ({})", kind(r))));
    }
    let idx = |k: &str| -> Result<i64, Diagnostic> {
        r.get(k)
            .and_then(Value::as_i64)
            .ok_or_else(|| bad(format!("result row without an integer `{k}`")))
    };
    let test_idx = idx("testIdx")?;
    let prompt_idx = idx("promptIdx")?;
    let test = test_identity(r);
    let success = match r.get("success") {
        Some(Value::Bool(b)) => *b,
        other => {
            return Err(bad(format!(
                "result row whose `success` is not a bool ({})",
                other.map(kind).unwrap_or("absent")
            )))
        }
    };
    let failure = r.get("failureReason").and_then(uint);
    let response = r.get("response");
    let grading = r.get("gradingResult").filter(|g| g.is_object());
    // An error is a failed provider call (failureReason 2); `error` also holds the failing
    // assertion's reason for plain failures, which are not errors.
    let is_error = failure == Some(FAILURE_ERROR)
        || failure.is_none()
            && !success
            && grading.is_none()
            && response.and_then(|x| x.get("error")).is_some();
    let error = is_error.then(|| {
        r.get("error")
            .and_then(string)
            .or_else(|| response?.get("error").and_then(string))
            .unwrap_or_else(|| "provider error".into())
    });
    let score_v = r.get("score").cloned().unwrap_or(Value::Null);
    let score = finite(&score_v);
    let reason = grading.and_then(|g| g.get("reason")).and_then(string);
    let mut scores = vec![
        ScoreEntry {
            scorer: "pass".into(),
            key: None,
            value: RecordedValue::Bool(success),
            reading: Some(if success { 1.0 } else { 0.0 }),
            answer: None,
            explanation: reason.clone(),
        },
        ScoreEntry {
            scorer: "score".into(),
            key: None,
            value: json::recorded(&score_v),
            reading: score,
            answer: None,
            explanation: None,
        },
    ];
    let weights = grading.and_then(|g| g.get("namedScoreWeights"));
    let mut named = Vec::new();
    if let Some(ns) = r.get("namedScores").and_then(Value::as_object) {
        for (m, v) in ns {
            let reading = finite(v);
            if let Some(x) = reading {
                let w = weights
                    .and_then(|w| w.get(m))
                    .and_then(finite)
                    .unwrap_or(1.0);
                named.push((m.clone(), x * w));
            }
            scores.push(ScoreEntry {
                scorer: "named".into(),
                key: Some(m.clone()),
                value: json::recorded(v),
                reading,
                answer: None,
                explanation: None,
            });
        }
    }
    let target: Vec<String> = {
        let mut t: Vec<String> = Vec::new();
        let components = grading
            .and_then(|g| g.get("componentResults"))
            .and_then(Value::as_array);
        for c in components.into_iter().flatten() {
            if let Some(v) = c
                .get("metadata")
                .and_then(|m| m.get("renderedAssertionValue"))
                .and_then(string)
            {
                if !t.contains(&v) {
                    t.push(v);
                }
            }
        }
        t
    };
    let output = match response.and_then(|x| x.get("output")) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(compact(other)),
    };
    let usage = r
        .get("tokenUsage")
        .or_else(|| response.and_then(|x| x.get("tokenUsage")));
    let u = |k: &str| usage.and_then(|u| u.get(k)).and_then(uint);
    let detail = |k: &str| {
        usage
            .and_then(|u| u.get("completionDetails"))
            .and_then(|d| d.get(k))
            .and_then(uint)
    };
    // `cached` counts a response promptfoo replayed from its own cache (no request made); the
    // provider's prompt cache is `completionDetails.cacheReadInputTokens` /
    // `cacheCreationInputTokens` (promptfoo's OpenAI-compatible usage, part of `prompt`).
    let tokens = Tokens {
        input: u("prompt"),
        output: u("completion"),
        total: u("total"),
        reasoning: detail("reasoning"),
        cache_read: detail("cacheReadInputTokens"),
        cache_write: detail("cacheCreationInputTokens"),
        replayed: u("cached"),
    };
    let cost = r
        .get("cost")
        .and_then(finite)
        .or_else(|| response?.get("cost").and_then(finite));
    let mut metadata = BTreeMap::new();
    for k in ["testIdx", "promptIdx", "provider", "vars"] {
        if let Some(v) = r.get(k) {
            metadata.insert(k.to_string(), compact(v));
        }
    }
    // `failureReason` in words (promptfoo's `ResultFailureReason`), not its code.
    if let Some(v) = r.get("failureReason") {
        let words = match uint(v) {
            Some(0) => "none".to_string(),
            Some(1) => "assertion failed".to_string(),
            Some(FAILURE_ERROR) => "provider error".to_string(),
            _ => compact(v),
        };
        metadata.insert("failureReason".into(), compact(&Value::String(words)));
    }
    if let Some(d) = r
        .get("testCase")
        .and_then(|c| c.get("description"))
        .filter(|d| !d.is_null())
    {
        metadata.insert("description".into(), compact(d));
    }
    Ok(Row {
        test: test.clone(),
        test_idx,
        prompt_idx,
        success,
        is_error,
        score,
        cost,
        named,
        counts: RowCounts::of(r),
        sample: Sample {
            key: SampleKey::Promptfoo {
                test,
                prompt: prompt_idx.to_string(),
                repeat: 0,
            },
            input: r.get("prompt").and_then(|p| p.get("raw")).and_then(string),
            target,
            output,
            scores,
            tokens,
            cost,
            latency: r
                .get("latencyMs")
                .or_else(|| response?.get("latencyMs"))
                .and_then(finite)
                .map(|ms| ms / 1000.0),
            error,
            metadata,
            source,
            checks: super::checks::read(grading),
        },
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Per-column tallies for the recomputation.
#[derive(Default)]
struct Tally {
    n: u64,
    pass: u64,
    score: f64,
    cost: f64,
    named: BTreeMap<String, f64>,
}

impl Tally {
    fn add(&mut self, r: &Row) {
        self.n += 1;
        self.pass += u64::from(r.success);
        self.score += r.score.unwrap_or(0.0);
        self.cost += r.cost.unwrap_or(0.0);
        for (m, v) in &r.named {
            *self.named.entry(m.clone()).or_default() += v;
        }
    }
}

/// The rows as samples, the columns, and the recomputed headlines beside the recorded ones;
/// with the whole eval's counts for `results.stats`.
fn lower(
    path: &str,
    rows: Vec<(String, u32, &Value)>,
    declared: Vec<Column>,
    diags: &mut Vec<Diagnostic>,
) -> (EvalLogRun, Counts) {
    let mut read: Vec<Row> = Vec::new();
    // Column labels the rows give (v2 exports and JSONL have no `results.prompts`).
    let mut seen_columns: BTreeMap<i64, Column> = BTreeMap::new();
    for (source, line, r) in rows {
        match read_row(path, source, line, r) {
            Ok(row) => {
                seen_columns.entry(row.prompt_idx).or_insert_with(|| {
                    let provider = r.get("provider").and_then(|p| {
                        p.get("label")
                            .and_then(string)
                            .filter(|l| !l.is_empty())
                            .or_else(|| p.get("id").and_then(string))
                    });
                    let prompt = r
                        .get("prompt")
                        .and_then(|p| p.get("label"))
                        .and_then(string);
                    Column {
                        label: column_label(provider.clone(), prompt.clone()),
                        prompt,
                        provider,
                        metrics: None,
                    }
                });
                read.push(row);
            }
            Err(d) => diags.push(d),
        }
    }
    if read.is_empty() {
        diags.push(Diagnostic::warning(
            path,
            None,
            "the export holds no result rows",
        ));
    }
    // Columns: as declared, else as the rows name them; a label two columns share gets `#idx`.
    let mut columns: BTreeMap<i64, Column> = seen_columns;
    for (i, c) in declared.into_iter().enumerate() {
        columns.insert(i64::try_from(i).unwrap_or(i64::MAX), c);
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in columns.values() {
        *counts.entry(c.label.clone()).or_default() += 1;
    }
    for (i, c) in columns.iter_mut() {
        if c.label.is_empty() || counts.get(&c.label).is_some_and(|n| *n > 1) {
            c.label = format!("{} #{i}", c.label).trim_start().to_string();
        }
    }
    // The item key's prompt part per column: its prompt label where no other column has it.
    let mut prompt_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in columns.values() {
        if let Some(p) = c.prompt.as_deref().filter(|p| !p.is_empty()) {
            *prompt_counts.entry(p).or_default() += 1;
        }
    }
    let key_of: BTreeMap<i64, String> = columns
        .iter()
        .map(|(i, c)| {
            let key = match c.prompt.as_deref().filter(|p| !p.is_empty()) {
                Some(p) if prompt_counts.get(p) == Some(&1) => p.to_string(),
                _ if !c.label.is_empty() => c.label.clone(),
                _ => format!("#{i}"),
            };
            (*i, key)
        })
        .collect();
    // Repeats: rank among the rows of the same test and column, in testIdx order.
    read.sort_by_key(|r| (r.prompt_idx, r.test_idx));
    let mut rank: BTreeMap<(String, i64), u32> = BTreeMap::new();
    let mut last: Option<(i64, i64)> = None;
    let mut kept: Vec<Row> = Vec::new();
    for mut r in read {
        if last == Some((r.prompt_idx, r.test_idx)) {
            diags.push(
                Diagnostic::warning(
                    path,
                    None,
                    format!(
                        "testIdx {} appears twice in column {}; the first row is used",
                        r.test_idx, r.prompt_idx
                    ),
                )
                .with_record(r.sample.source.clone()),
            );
            continue;
        }
        last = Some((r.prompt_idx, r.test_idx));
        let slot = rank.entry((r.test.clone(), r.prompt_idx)).or_default();
        if let SampleKey::Promptfoo { repeat, prompt, .. } = &mut r.sample.key {
            *repeat = *slot;
            *prompt = key_of
                .get(&r.prompt_idx)
                .cloned()
                .unwrap_or_else(|| format!("#{}", r.prompt_idx));
        }
        *slot = slot.saturating_add(1);
        if let Some(c) = columns.get(&r.prompt_idx) {
            r.sample
                .metadata
                .insert("column".into(), compact(&Value::String(c.label.clone())));
        }
        kept.push(r);
    }

    let mut all = Tally::default();
    let mut per: BTreeMap<i64, Tally> = BTreeMap::new();
    let mut all_counts = Counts::default();
    let mut per_counts: BTreeMap<i64, Counts> = BTreeMap::new();
    for r in &kept {
        all.add(r);
        per.entry(r.prompt_idx).or_default().add(r);
        all_counts.add(r.success, r.is_error, &r.counts);
        per_counts
            .entry(r.prompt_idx)
            .or_default()
            .add(r.success, r.is_error, &r.counts);
    }
    let mut recorded = Vec::new();
    let mut headlines = vec![Headline {
        key: pass_rate_key(String::new()),
        recorded: None,
        recomputed: ratio(all.pass, all.n),
        n: all.n,
        note: None,
    }];
    let empty = Tally::default();
    for (i, c) in &columns {
        let t = per.get(i).unwrap_or(&empty);
        let m = c.metrics.as_ref();
        let rec = |k: &str| m.and_then(|m| m.get(k));
        let count = |k: &str| rec(k).and_then(uint);
        let rate = match (
            count("testPassCount"),
            count("testFailCount"),
            count("testErrorCount"),
        ) {
            (Some(p), Some(f), Some(e)) => ratio(p, p.saturating_add(f).saturating_add(e)),
            _ => None,
        };
        let mut rows: Vec<(MetricKey, Option<f64>, Option<f64>)> = vec![
            (pass_rate_key(c.label.clone()), rate, ratio(t.pass, t.n)),
            (
                sum_key(&c.label, "score"),
                rec("score").and_then(finite),
                Some(t.score),
            ),
            (
                sum_key(&c.label, "cost"),
                rec("cost").and_then(finite),
                Some(t.cost),
            ),
        ];
        let mut names: Vec<&String> = t.named.keys().collect();
        let rec_named = rec("namedScores").and_then(Value::as_object);
        for k in rec_named.into_iter().flat_map(|o| o.keys()) {
            if !names.contains(&k) {
                names.push(k);
            }
        }
        for name in names {
            rows.push((
                sum_key(&c.label, name),
                rec_named.and_then(|o| o.get(name)).and_then(finite),
                Some(t.named.get(name).copied().unwrap_or(0.0)),
            ));
        }
        for (key, recorded_value, recomputed) in rows {
            if m.is_some() {
                recorded.push(RecordedMetric {
                    key: key.clone(),
                    value: recorded_value,
                    stderr: None,
                });
            }
            // A sum over no row read is not a recomputation of the recorded one.
            let none_read = t.n == 0;
            headlines.push(Headline {
                key,
                recorded: recorded_value,
                recomputed: recomputed.filter(|_| !none_read),
                n: t.n,
                note: none_read.then(|| counts::NO_ROWS.to_string()),
            });
        }
        if let Some(m) = m {
            let none = Counts::default();
            counts::push(
                per_counts
                    .get(i)
                    .unwrap_or(&none)
                    .column_headlines(&c.label, m),
                &mut recorded,
                &mut headlines,
            );
        }
    }
    let n_errors = kept.iter().filter(|r| r.is_error).count();
    let mut providers: Vec<&str> = Vec::new();
    for p in columns.values().filter_map(|c| c.provider.as_deref()) {
        if !p.is_empty() && !providers.contains(&p) {
            providers.push(p);
        }
    }
    let model = (!providers.is_empty()).then(|| providers.join(", "));
    let run = EvalLogRun {
        tool: Tool::Promptfoo,
        tool_version: None,
        format_version: None,
        declared_samples: None,
        files: vec![path.to_string()],
        status: Some(if n_errors > 0 {
            format!("{n_errors} provider errors")
        } else {
            "complete".into()
        }),
        task: None,
        task_version: None,
        model,
        dataset: None,
        eval_id: None,
        run_id: None,
        created: None,
        config: BTreeMap::new(),
        recorded,
        headlines,
        primary: Some(pass_rate_key(String::new())),
        samples: kept.into_iter().map(|r| r.sample).collect(),
    };
    (run, all_counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_sorts_vars_and_keeps_the_description() {
        let a: Value = serde_json::from_str(
            r#"{"testCase": {"description": "d"}, "vars": {"b": 1, "a": "x"}}"#,
        )
        .unwrap();
        assert_eq!(test_identity(&a), r#"d {"a":"x","b":1}"#);
        let b: Value = serde_json::from_str(r#"{"testCase": {"vars": {"q": "?"}}}"#).unwrap();
        assert_eq!(test_identity(&b), r#"{"q":"?"}"#);
    }

    #[test]
    fn columns_name_provider_and_prompt() {
        assert_eq!(
            column_label(Some("toy".into()), Some("terse".into())),
            "toy: terse"
        );
        assert_eq!(column_label(Some(String::new()), Some("p".into())), "p");
        assert_eq!(column_label(None, None), "");
    }
}
