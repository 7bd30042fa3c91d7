//! Inspect AI logs (FORMATS.md §1): the `.eval` zip (header, samples, summaries, journal) and the
//! `.json` log (one `EvalLog` with samples inline), current and 2024 shapes (v1 `score`, metric
//! `options`, no `completion`, `results.sample_reductions`). Headline numbers are recomputed from
//! the samples as Inspect computes them: each score name's epochs reduced per sample id by the
//! entry's reducer (`mean`, `max`, `median`, `mode`, `at_least_{k}`, `pass_at_{k}`,
//! `pass_k_{k}`: [`crate::repeats::Reduction`]), dict scores key by key, then
//! `accuracy`/`mean` (mean), `stderr` (sample std, ddof 1, over √n; 0 below two values; with a
//! `cluster` parameter, clustered by that sample metadata), `std`, `var` over the reduced values,
//! unscored (NaN) values skipped.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::archive::Index;
use super::json::{self, compact, finite, inspect_value_to_float, message_text, string, uint};
use super::model::{
    EvalLogRun, Headline, MetricKey, RecordedMetric, Sample, SampleId, SampleKey, ScoreEntry,
    Tokens, Tool,
};
use crate::diag::Diagnostic;
use crate::input::InputFile;
use crate::repeats::Reduction;

/// The parts of an `EvalLog` (or `LogStart`) read here; everything else is skipped unparsed.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(super) struct RawLog {
    version: Option<Value>,
    pub(super) status: Option<Value>,
    eval: Option<Value>,
    plan: Option<Value>,
    results: Option<Value>,
    stats: Option<Value>,
    error: Option<Value>,
    samples: Option<Vec<RawSample>>,
}

/// An `EvalSample` (or `EvalSampleSummary`, or a chunked sample's `sample.json` shell): the
/// fields the item table needs; `events`, `messages`, `store`, attachments are skipped.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub(super) struct RawSample {
    id: Value,
    epoch: Value,
    input: Value,
    target: Value,
    output: Value,
    scores: Value,
    /// v1 (2024-05..07): a single `Score`.
    score: Value,
    metadata: Value,
    model_usage: Value,
    total_time: Value,
    error: Value,
}

impl RawSample {
    /// Its (id, epoch) as compact JSON: summaries are de-duplicated by it.
    pub(super) fn id_epoch(&self) -> (String, String) {
        (compact(&self.id), compact(&self.epoch))
    }
}

/// Which members of an Inspect `.eval` archive hold what, in reading order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalPlan {
    /// `header.json` and `_journal/start.json` (a crashed run's header), those present.
    pub header: Vec<String>,
    /// Monolith sample members `samples/<id>_epoch_<n>.json` and chunked samples' shells
    /// `samples/<id>_epoch_<n>/sample.json`, in directory order.
    pub samples: Vec<String>,
    /// Chunk parts of chunked samples (messages, events, calls): not read.
    pub chunk_parts: usize,
    /// `summaries.json`, else the journal's `_journal/summaries/<k>.json` in order of `k`.
    pub summaries: Vec<String>,
}

impl EvalPlan {
    pub fn of(index: &Index) -> EvalPlan {
        let header = ["header.json", "_journal/start.json"]
            .into_iter()
            .filter(|n| index.get(n).is_some())
            .map(String::from)
            .collect();
        let mut samples = Vec::new();
        let mut chunk_parts = 0usize;
        for name in index.names() {
            let Some(rest) = name.strip_prefix("samples/") else {
                continue;
            };
            let is_monolith = !rest.contains('/') && rest.ends_with(".json");
            let is_shell = rest.ends_with("/sample.json") && rest.matches('/').count() == 1;
            if is_monolith || is_shell {
                samples.push(name.to_string());
            } else {
                chunk_parts += 1;
            }
        }
        let summaries = if index.get("summaries.json").is_some() {
            vec!["summaries.json".to_string()]
        } else {
            let mut journal: Vec<(u64, &str)> = index
                .names()
                .into_iter()
                .filter_map(|n| {
                    let k = n
                        .strip_prefix("_journal/summaries/")?
                        .strip_suffix(".json")?;
                    Some((k.parse().ok()?, n))
                })
                .collect();
            journal.sort();
            journal.into_iter().map(|(_, n)| n.to_string()).collect()
        };
        EvalPlan {
            header,
            samples,
            chunk_parts,
            summaries,
        }
    }
}

/// The member a sample of an Inspect `.eval` is stored in (`samples/<id>_epoch_<n>.json`, or a
/// chunked sample's shell), when the archive has it.
pub fn sample_member(index: &Index, id: &SampleId, epoch: u32) -> Option<String> {
    let stem = format!("samples/{}_epoch_{epoch}", id.label());
    [format!("{stem}.json"), format!("{stem}/sample.json")]
        .into_iter()
        .find(|n| index.get(n).is_some())
}

/// The warning of a log whose header is its journal's start.
pub(super) const FROM_START: &str = "no usable header.json (run in progress or crashed): header from _journal/start.json, no recorded results";
/// The warning of a log whose samples are its summaries.
pub(super) const FROM_SUMMARIES: &str =
    "no sample members: samples read from the summaries (no model output text)";

/// Why a run's samples come from the log's summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FromSummaries {
    /// The archive has no sample members (`log_samples` off, or none flushed yet).
    NoSampleMembers,
    /// The summaries are read first, so a big log's table shows at once; its samples are read
    /// after (the dashboard, [`EvalMembers`] fed a slice at a time).
    First,
}

/// A member's bytes by name: `None` when the archive has no such member, else its bytes or why
/// they could not be read.
pub type MemberBytes<'a> = dyn Fn(&str) -> Option<Result<Vec<u8>, String>> + 'a;

/// An Inspect `.eval` log read member by member, so that the archive need not be in memory (a
/// big `File` in the browser is read a slice at a time): the header first ([`EvalMembers::start`]),
/// then each sample member, or the summaries, then [`EvalMembers::finish`].
/// [`super::eval_file::read_eval`] reads an
/// archive in memory through it, so both give the same run.
pub struct EvalMembers {
    path: String,
    header: RawLog,
    raw: Vec<(String, RawSample)>,
    summaries: BTreeMap<(String, String), (String, RawSample)>,
    diags: Vec<Diagnostic>,
}

impl EvalMembers {
    /// The archive's own problems and its header: `read` gives a member's bytes (`None` when the
    /// archive has no such member). `Err` when neither `header.json` nor `_journal/start.json`
    /// could be read.
    pub fn start(
        path: &str,
        index: &Index,
        read: &MemberBytes,
    ) -> Result<EvalMembers, Vec<Diagnostic>> {
        let mut diags = Vec::new();
        for w in &index.warnings {
            diags.push(Diagnostic::warning(path, None, w.clone()));
        }
        for name in &index.duplicates {
            diags.push(
                Diagnostic::warning(
                    path,
                    None,
                    "member name appears more than once; the last entry is read (Inspect's rule for re-run samples)",
                )
                .with_record(name.clone()),
            );
        }
        let member = |name: &str, diags: &mut Vec<Diagnostic>| -> Option<Vec<u8>> {
            match read(name)? {
                Ok(b) => Some(b),
                Err(e) => {
                    diags.push(Diagnostic::error(path, None, e).with_record(name.to_string()));
                    None
                }
            }
        };
        let parse_log = |name: &str, bytes: &[u8], diags: &mut Vec<Diagnostic>| -> Option<RawLog> {
            let at = json::At {
                path,
                line: 1,
                member: Some(name),
            };
            match json::parse::<RawLog>(bytes, at, diags) {
                Ok(h) => Some(h),
                Err(e) => {
                    diags.push(
                        Diagnostic::error(
                            path,
                            Some(e.line() as u32),
                            format!("not an Inspect log header: {e}"),
                        )
                        .with_record(name.to_string()),
                    );
                    None
                }
            }
        };
        let header = match member("header.json", &mut diags) {
            Some(b) => parse_log("header.json", &b, &mut diags),
            None => None,
        };
        let header = match header {
            Some(h) => h,
            None => {
                let start = member("_journal/start.json", &mut diags)
                    .and_then(|b| parse_log("_journal/start.json", &b, &mut diags));
                match start {
                    Some(mut s) => {
                        diags.push(Diagnostic::warning(path, None, FROM_START));
                        s.status.get_or_insert(Value::String("started".into()));
                        s
                    }
                    None => {
                        diags.push(Diagnostic::error(
                            path,
                            None,
                            "neither header.json nor _journal/start.json could be read: not a usable Inspect log",
                        ));
                        return Err(diags);
                    }
                }
            }
        };
        Ok(EvalMembers {
            path: path.to_string(),
            header,
            raw: Vec::new(),
            summaries: BTreeMap::new(),
            diags,
        })
    }

    /// One member's bytes (or why they could not be read) parsed as `T` ([`parse_member`]).
    fn parse_member<T: serde::de::DeserializeOwned>(
        &mut self,
        name: &str,
        bytes: Result<Vec<u8>, String>,
        what: &str,
    ) -> Option<T> {
        parse_member(&self.path, &mut self.diags, name, bytes, what)
    }

    /// One sample member's bytes (or why they could not be read).
    pub fn sample(&mut self, name: &str, bytes: Result<Vec<u8>, String>) {
        if let Some(s) = self.parse_member::<RawSample>(name, bytes, "sample does not parse") {
            self.raw.push((name.to_string(), s));
        }
    }

    /// Diagnostics about the log's members from outside the parse (texts cut as they were
    /// inflated).
    pub fn diagnostics(&mut self, diags: impl IntoIterator<Item = Diagnostic>) {
        self.diags.extend(diags);
    }

    /// Samples read so far.
    pub fn n_samples(&self) -> usize {
        self.raw.len()
    }

    /// Every sample member has been given: `chunk_parts` chunk parts were not read.
    pub fn samples_done(&mut self, chunk_parts: usize) {
        if chunk_parts > 0 {
            self.diags.push(Diagnostic {
                severity: crate::diag::Severity::Info,
                ..Diagnostic::warning(
                    &self.path,
                    None,
                    format!("{chunk_parts} chunked-sample parts (messages, events, calls) not read; each sample's sample.json is"),
                )
            });
        }
    }

    /// One summaries member's bytes (`summaries.json` or a journal part), de-duplicated by
    /// (id, epoch), the last one winning (`_dedupe_summaries`).
    pub fn summaries(&mut self, name: &str, bytes: Result<Vec<u8>, String>) {
        let list = self.parse_member::<Vec<RawSample>>(name, bytes, "summaries do not parse");
        for s in list.into_iter().flatten() {
            self.summaries.insert(s.id_epoch(), (name.to_string(), s));
        }
    }

    /// The run: the sample members read, or (when there were none) the summaries, `why` saying
    /// so.
    pub fn finish(mut self, why: FromSummaries) -> (EvalLogRun, Vec<Diagnostic>) {
        let mut raw = std::mem::take(&mut self.raw);
        if raw.is_empty() && !self.summaries.is_empty() {
            let n = self.summaries.len();
            self.diags.push(match why {
                FromSummaries::NoSampleMembers => {
                    Diagnostic::warning(&self.path, None, FROM_SUMMARIES)
                }
                FromSummaries::First => Diagnostic {
                    severity: crate::diag::Severity::Info,
                    ..Diagnostic::warning(
                        &self.path,
                        None,
                        format!(
                            "{n} samples shown from the log's summaries (scores, inputs, targets;                              no model output yet) while the sample members are read"
                        ),
                    )
                },
            });
            raw.extend(std::mem::take(&mut self.summaries).into_values());
        }
        let run = lower(&self.path, self.header, raw, &mut self.diags);
        (run, self.diags)
    }
}

/// Reads an Inspect `.json` log.
pub fn read_json(file: &InputFile) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = file.path.as_str();
    let mut diags = Vec::new();
    let mut log: RawLog =
        json::parse_file(file, "an Inspect JSON log", &mut diags).map_err(|d| vec![d])?;
    if log.eval.is_none() {
        return Err(vec![Diagnostic::error(
            path,
            None,
            "no `eval` object: not an Inspect log",
        )]);
    }
    let samples = log.samples.take().unwrap_or_default();
    let raw = samples
        .into_iter()
        .enumerate()
        .map(|(i, s)| (format!("samples[{i}]"), s))
        .collect();
    let run = lower(path, log, raw, &mut diags);
    Ok((run, diags))
}

/// One `results.scores[]` entry.
struct ScoreSpec {
    name: String,
    scorer: String,
    reducer: Option<String>,
    metrics: Vec<SpecMetric>,
}

/// One metric of a `results.scores[]` entry: its key in `metrics` (`stderr2` for a second
/// `stderr`), the metric it is (`name`), its `cluster` parameter and the value recorded.
struct SpecMetric {
    key: String,
    name: String,
    cluster: Option<String>,
    value: Option<f64>,
}

fn score_specs(results: &Value) -> Vec<ScoreSpec> {
    let metrics_of = |m: &Value| -> Vec<SpecMetric> {
        m.as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| {
                        // `params` (0.3.x), `options` (2024 logs).
                        let params = v.get("params").or_else(|| v.get("options"));
                        SpecMetric {
                            key: k.clone(),
                            name: v.get("name").and_then(string).unwrap_or_else(|| k.clone()),
                            cluster: params.and_then(|p| p.get("cluster")).and_then(string),
                            value: v.get("value").and_then(finite),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(scores) = results.get("scores").and_then(Value::as_array) {
        return scores
            .iter()
            .map(|s| {
                let name = s.get("name").and_then(string).unwrap_or_default();
                ScoreSpec {
                    scorer: s
                        .get("scorer")
                        .and_then(string)
                        .unwrap_or_else(|| name.clone()),
                    name,
                    reducer: s.get("reducer").and_then(string),
                    metrics: s.get("metrics").map(metrics_of).unwrap_or_default(),
                }
            })
            .collect();
    }
    // v1: one scorer as `results.scorer` + `results.metrics`.
    match results
        .get("scorer")
        .and_then(|s| s.get("name"))
        .and_then(string)
    {
        Some(name) => vec![ScoreSpec {
            scorer: name.clone(),
            name,
            reducer: None,
            metrics: results.get("metrics").map(metrics_of).unwrap_or_default(),
        }],
        None => Vec::new(),
    }
}

/// The scores `eval.scorers` declares (`[{"name", "metrics": [{"name": "inspect_ai/accuracy"}, …]
/// | {"<score key>": [...]}}]`), with no recorded value: what a log without `results` is
/// recomputed under. A dict scorer's metrics by score key give one score per key, named after
/// it, as Inspect's `results.scores` names them.
fn declared_specs(eval: &Value) -> Vec<ScoreSpec> {
    let metrics = |list: &Value| -> Vec<SpecMetric> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| {
                let full = m.get("name").and_then(string)?;
                let name = full.rsplit('/').next().unwrap_or(&full).to_string();
                Some(SpecMetric {
                    key: name.clone(),
                    name,
                    cluster: m
                        .get("options")
                        .and_then(|p| p.get("cluster"))
                        .and_then(string),
                    value: None,
                })
            })
            .collect()
    };
    let mut out = Vec::new();
    for s in eval
        .get("scorers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(scorer) = s.get("name").and_then(string) else {
            continue;
        };
        match s.get("metrics") {
            Some(Value::Object(by_key)) => {
                for (key, list) in by_key {
                    out.push(ScoreSpec {
                        name: key.clone(),
                        scorer: scorer.clone(),
                        reducer: None,
                        metrics: metrics(list),
                    });
                }
            }
            m => out.push(ScoreSpec {
                name: scorer.clone(),
                scorer,
                reducer: None,
                metrics: m.map(&metrics).unwrap_or_default(),
            }),
        }
    }
    // Two metrics of one name keep apart as `stderr`, `stderr2` (as `results` keys them).
    for spec in &mut out {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for m in &mut spec.metrics {
            let n = seen.entry(m.key.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                m.key = format!("{}{}", m.key, n);
            }
        }
    }
    out
}

fn metric_key(spec: &ScoreSpec, metric: &str) -> MetricKey {
    MetricKey {
        group: String::new(),
        scorer: if spec.name == spec.scorer {
            spec.name.clone()
        } else {
            format!("{}:{}", spec.scorer, spec.name)
        },
        variant: spec.reducer.clone(),
        metric: metric.to_string(),
    }
}

/// What lowering a sample takes from its log's header: the model whose usage is its tokens, and
/// the scorer a v1 sample's single score is named after (the first scorer).
pub(super) struct SampleContext {
    model: Option<String>,
    v1_scorer: String,
}

impl SampleContext {
    pub(super) fn of(log: &RawLog) -> SampleContext {
        let eval = log.eval.as_ref().unwrap_or(&Value::Null);
        let mut specs = score_specs(log.results.as_ref().unwrap_or(&Value::Null));
        if specs.is_empty() {
            specs = declared_specs(eval);
        }
        SampleContext {
            model: eval.get("model").and_then(string),
            // v1 samples put their single score under a placeholder, named after the first
            // scorer on read.
            v1_scorer: specs
                .first()
                .map(|s| s.scorer.clone())
                .unwrap_or_else(|| "88F74D2C".to_string()),
        }
    }

    /// Sample member `record`'s parsed sample lowered (`None`, with a diagnostic, when it has no
    /// usable id).
    pub(super) fn lower(
        &self,
        path: &str,
        record: &str,
        s: RawSample,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Sample> {
        lower_sample(
            path,
            record,
            s,
            self.model.as_deref(),
            &self.v1_scorer,
            diags,
        )
    }
}

/// A log's header and its parsed samples (sample members or summaries, by member name) as the
/// run: what a full read gives of the same members.
pub(super) fn lower(
    path: &str,
    log: RawLog,
    raw: Vec<(String, RawSample)>,
    diags: &mut Vec<Diagnostic>,
) -> EvalLogRun {
    let context = SampleContext::of(&log);
    let eval = log.eval.unwrap_or(Value::Null);
    let get = |k: &str| eval.get(k).and_then(string);
    let model = get("model");
    let results = log.results.unwrap_or(Value::Null);
    let mut specs = score_specs(&results);
    if specs.is_empty() {
        // No results (a run cancelled, crashed or still going): the scorers the task declared,
        // so the samples scored so far are recomputed under them.
        specs = declared_specs(&eval);
    }
    let mut config = BTreeMap::new();
    for (section, v) in [
        ("eval.config", eval.get("config")),
        (
            "eval.model_generate_config",
            eval.get("model_generate_config"),
        ),
        ("eval.task_args", eval.get("task_args")),
        ("eval.revision", eval.get("revision")),
        ("plan", log.plan.as_ref()),
        ("stats", log.stats.as_ref()),
        ("error", log.error.as_ref()),
    ] {
        if let Some(v) = v.filter(|v| !v.is_null()) {
            config.insert(section.to_string(), compact(v));
        }
    }
    let mut recorded = Vec::new();
    for spec in &specs {
        let stderr = spec
            .metrics
            .iter()
            .find(|m| m.key == "stderr")
            .and_then(|m| m.value);
        for m in &spec.metrics {
            recorded.push(RecordedMetric {
                key: metric_key(spec, &m.key),
                value: m.value,
                stderr: if m.key == "stderr" { None } else { stderr },
            });
        }
    }
    let primary = match results.get("headline") {
        Some(h) if h.is_object() => {
            let s = |k: &str| h.get(k).and_then(string);
            let score = s("score").unwrap_or_default();
            let scorer = s("scorer").unwrap_or_else(|| score.clone());
            Some(MetricKey {
                group: String::new(),
                scorer: if score == scorer {
                    score
                } else {
                    format!("{scorer}:{score}")
                },
                variant: s("reducer"),
                metric: s("metric").unwrap_or_default(),
            })
        }
        _ => specs
            .first()
            .and_then(|s| s.metrics.first().map(|m| metric_key(s, &m.key))),
    };
    let mut samples: Vec<Sample> = raw
        .into_iter()
        .filter_map(|(record, s)| context.lower(path, &record, s, diags))
        .collect();
    samples.sort_by_key(|s| sort_key(&s.key));
    let epochs = eval
        .get("config")
        .and_then(|c| c.get("epochs"))
        .and_then(uint)
        .unwrap_or(1);
    let headlines = recompute(&specs, &samples, epochs);
    EvalLogRun {
        tool: Tool::InspectAi,
        tool_version: eval
            .get("packages")
            .and_then(|p| p.get("inspect_ai"))
            .and_then(string),
        format_version: log.version.as_ref().and_then(Value::as_i64),
        declared_samples: results.get("total_samples").and_then(uint).or_else(|| {
            // A log still running (`started`) has no results yet: its dataset's samples (the
            // ids it runs, when listed) × epochs.
            if log.status.as_ref().and_then(Value::as_str) != Some("started") {
                return None;
            }
            let dataset = eval.get("dataset")?;
            let n = match dataset.get("sample_ids").and_then(Value::as_array) {
                Some(ids) => ids.len() as u64,
                None => dataset.get("samples").and_then(uint)?,
            };
            Some(n.saturating_mul(epochs))
        }),
        files: vec![path.to_string()],
        status: log.status.as_ref().and_then(string),
        task: get("task"),
        task_version: eval.get("task_version").and_then(|v| match v {
            Value::Null => None,
            v => string(v).or_else(|| Some(compact(v))),
        }),
        model,
        dataset: eval
            .get("dataset")
            .and_then(|d| d.get("name"))
            .and_then(string),
        eval_id: get("eval_id"),
        run_id: get("run_id"),
        created: get("created"),
        config,
        recorded,
        headlines,
        primary,
        samples,
    }
}

fn sort_key(k: &SampleKey) -> (u32, String) {
    match k {
        SampleKey::Inspect { id, epoch } => (*epoch, id.sort_key()),
        _ => (0, String::new()),
    }
}

/// A sample's `id` (`int | str`; `1` and `"1"` are different ids); `None` for another shape.
pub(crate) fn sample_id(v: &Value) -> Option<SampleId> {
    match v {
        Value::Number(n) => Some(match n.as_i64() {
            Some(i) => SampleId::Int(i),
            None => SampleId::Str(n.to_string()),
        }),
        Value::String(x) => Some(SampleId::Str(x.clone())),
        _ => None,
    }
}

/// A sample's `epoch`; 1 when absent or unusable (logs before epochs).
pub(crate) fn sample_epoch(v: &Value) -> u32 {
    uint(v).and_then(|e| u32::try_from(e).ok()).unwrap_or(1)
}

fn lower_sample(
    path: &str,
    record: &str,
    s: RawSample,
    model: Option<&str>,
    v1_scorer: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Sample> {
    let Some(id) = sample_id(&s.id) else {
        diags.push(
            Diagnostic::error(
                path,
                None,
                format!("sample without a usable id ({})", compact(&s.id)),
            )
            .with_record(record.to_string()),
        );
        return None;
    };
    let epoch = sample_epoch(&s.epoch);
    let input = json::user_text(&s.input);
    let target = match &s.target {
        Value::Array(items) => items.iter().filter_map(string).collect(),
        v => string(v).into_iter().collect(),
    };
    let output = match s.output.get("completion").and_then(Value::as_str) {
        Some(c) => Some(c.to_string()),
        // Old logs omit `completion`: the text of the first choice's message.
        None => s
            .output
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .and_then(|m| m.get("content"))
            .and_then(message_text),
    };
    let mut scores = Vec::new();
    let mut push_score = |scorer: &str, score: &Value| {
        let answer = score.get("answer").and_then(string);
        let explanation = score.get("explanation").and_then(string);
        let value = score.get("value").unwrap_or(&Value::Null);
        match value.as_object() {
            Some(dict) => {
                for (k, v) in dict {
                    let value = json::recorded(v);
                    scores.push(ScoreEntry {
                        scorer: scorer.to_string(),
                        key: Some(k.clone()),
                        reading: inspect_value_to_float(&value),
                        value,
                        answer: answer.clone(),
                        explanation: explanation.clone(),
                    });
                }
            }
            None => {
                let value = json::recorded(value);
                scores.push(ScoreEntry {
                    scorer: scorer.to_string(),
                    key: None,
                    reading: inspect_value_to_float(&value),
                    value,
                    answer,
                    explanation,
                });
            }
        }
    };
    if let Some(map) = s.scores.as_object() {
        for (name, score) in map {
            push_score(name, score);
        }
    } else if s.score.is_object() {
        push_score(v1_scorer, &s.score);
    }
    let usage = s.model_usage.as_object();
    let pick = |field: &str| -> Option<u64> {
        let usage = usage?;
        match model.and_then(|m| usage.get(m)) {
            Some(u) => u.get(field).and_then(uint),
            None => {
                let vals: Vec<u64> = usage
                    .values()
                    .filter_map(|u| u.get(field).and_then(uint))
                    .collect();
                (!vals.is_empty()).then(|| vals.iter().sum())
            }
        }
    };
    let tokens = Tokens {
        input: pick("input_tokens"),
        output: pick("output_tokens"),
        total: pick("total_tokens"),
        reasoning: pick("reasoning_tokens"),
        cache_read: pick("input_tokens_cache_read"),
        cache_write: pick("input_tokens_cache_write"),
        replayed: None,
    };
    let costs: Vec<f64> = usage
        .map(|u| {
            u.values()
                .filter_map(|u| u.get("total_cost").and_then(finite))
                .collect()
        })
        .unwrap_or_default();
    let error = match &s.error {
        Value::String(e) => Some(e.clone()),
        Value::Object(e) => e
            .get("message")
            .and_then(string)
            .or(Some(compact(&s.error))),
        _ => None,
    };
    let metadata = s
        .metadata
        .as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), compact(v))).collect())
        .unwrap_or_default();
    Some(Sample {
        checks: Default::default(),
        key: SampleKey::Inspect { id, epoch },
        input,
        target,
        output,
        scores,
        tokens,
        cost: (!costs.is_empty()).then(|| costs.iter().sum()),
        latency: finite(&s.total_time),
        error,
        metadata,
        source: format!("{path}#{record}"),
    })
}

/// Inspect's epoch reducers (`inspect_ai/scorer/_reducer/reducer.py`, named as
/// `reducer_log_name` writes them: [`crate::repeats::Reduction`]) over the readings of one
/// sample's epochs; `None` when every epoch is unscored (or, for `pass_at_{k}`/`pass_k_{k}`,
/// fewer than `k` were scored: Inspect's NaN); `Err` for a reducer not reproduced.
fn reduce(reducer: &str, values: &[f64]) -> Result<Option<f64>, String> {
    match Reduction::parse(reducer) {
        Some(r) => Ok(r.reduce(values)),
        None => Err(format!("reducer `{reducer}` is not recomputed")),
    }
}

/// Inspect's metrics over reduced values (`inspect_ai/scorer/_metrics/`), each value with its
/// sample's cluster (the compact JSON of its `cluster` metadata) when the metric clusters.
fn metric(m: &SpecMetric, values: &[(f64, Option<&str>)]) -> Result<Option<f64>, String> {
    let plain: Vec<f64> = values.iter().map(|(v, _)| *v).collect();
    let moments = crate::stats::Moments::of(&plain);
    let (Some(mean), n) = (moments.mean(), plain.len() as f64) else {
        return Ok(None);
    };
    // np.std(ddof=1): Inspect returns 0 below two values.
    let (var, std) = (
        moments.variance().unwrap_or(0.0),
        moments.std().unwrap_or(0.0),
    );
    Ok(Some(match (m.name.as_str(), &m.cluster) {
        ("stderr", Some(cluster)) => clustered_stderr(cluster, values)?,
        (_, Some(_)) => {
            return Err(format!(
                "metric `{}` with a cluster is not recomputed",
                m.name
            ))
        }
        ("accuracy" | "mean", None) => mean,
        // np.std(ddof=1) / sqrt(n), in that order, as Inspect computes it.
        ("stderr", None) => std / n.sqrt(),
        ("std", None) => std,
        ("var", None) => var,
        (other, None) => return Err(format!("metric `{other}` is not recomputed")),
    }))
}

/// `stderr(cluster=...)` (`_clustered_stderr`): the values partitioned by their sample's
/// `cluster` metadata, each partition one cluster of [`crate::stats::ClusterSums`]; 0 with one
/// cluster (Inspect's guard). `Err` when a sample has no such metadata (Inspect raises).
fn clustered_stderr(cluster: &str, values: &[(f64, Option<&str>)]) -> Result<f64, String> {
    let mut parts: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (v, c) in values {
        let c = c.filter(|c| *c != "null").ok_or_else(|| {
            format!("a sample has no `{cluster}` metadata: the clustered stderr is not recomputed")
        })?;
        parts.entry(c).or_default().push(*v);
    }
    let mut sums = crate::stats::ClusterSums::default();
    for p in parts.values() {
        sums.push_cluster(p);
    }
    Ok(sums.stderr().unwrap_or(0.0))
}

fn recompute(specs: &[ScoreSpec], samples: &[Sample], epochs: u64) -> Vec<Headline> {
    let mut out = Vec::new();
    for spec in specs {
        // Readings per sample id, in epoch order, with the first epoch's sample (its metadata
        // clusters it); samples without this score (errors) are skipped.
        let mut by_id: BTreeMap<&SampleId, (Vec<f64>, &Sample)> = BTreeMap::new();
        for s in samples {
            let SampleKey::Inspect { id, .. } = &s.key else {
                continue;
            };
            let entry = s.scores.iter().find(|e| {
                e.scorer == spec.scorer && e.score_name() == spec.name
                    || (spec.scorer == spec.name && e.scorer == spec.name && e.key.is_none())
            });
            if let Some(e) = entry {
                let slot = by_id.entry(id).or_insert_with(|| (Vec::new(), s));
                if let Some(r) = e.reading {
                    slot.0.push(r);
                }
            }
        }
        // No reducer recorded (old logs): Inspect's default, `mean` (identity for one epoch).
        let reducer = spec.reducer.clone().unwrap_or_else(|| "mean".to_string());
        let reduced: Result<Vec<(f64, &Sample)>, String> = by_id
            .values()
            .filter_map(|(v, s)| reduce(&reducer, v).map(|r| r.map(|r| (r, *s))).transpose())
            .collect();
        for m in &spec.metrics {
            let (recomputed, note, n) = match &reduced {
                Ok(vals) => {
                    let with_cluster: Vec<(f64, Option<&str>)> = vals
                        .iter()
                        .map(|(v, s)| {
                            let c = m.cluster.as_ref().and_then(|c| s.metadata.get(c));
                            (*v, c.map(String::as_str))
                        })
                        .collect();
                    match metric(m, &with_cluster) {
                        Ok(v) => (v, None, vals.len() as u64),
                        Err(e) => (None, Some(e), vals.len() as u64),
                    }
                }
                Err(e) => (None, Some(e.clone()), 0),
            };
            let note = note.or_else(|| {
                (epochs > 1 && spec.reducer.is_none()).then(|| {
                    "no reducer recorded: epochs reduced by mean (Inspect's default)".to_string()
                })
            });
            out.push(Headline {
                key: metric_key(spec, &m.key),
                recorded: m.value,
                recomputed,
                n,
                note,
            });
        }
    }
    out
}

/// One member `name` of the log at `path`: its bytes (or why they could not be read) parsed
/// as `T`; a failure is a diagnostic on the member (`what`, then the parser's reason), and
/// `None`. The whole read's and the live read's ([`super::live_archive`]).
pub(crate) fn parse_member<T: serde::de::DeserializeOwned>(
    path: &str,
    diags: &mut Vec<Diagnostic>,
    name: &str,
    bytes: Result<Vec<u8>, String>,
    what: &str,
) -> Option<T> {
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => {
            diags.push(Diagnostic::error(path, None, e).with_record(name.to_string()));
            return None;
        }
    };
    let at = json::At {
        path,
        line: 1,
        member: Some(name),
    };
    match json::parse::<T>(&bytes, at, diags) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.push(
                Diagnostic::error(path, Some(e.line() as u32), format!("{what}: {e}"))
                    .with_record(name.to_string()),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(name: &str) -> SpecMetric {
        SpecMetric {
            key: name.into(),
            name: name.into(),
            cluster: None,
            value: None,
        }
    }

    #[test]
    fn stderr_like_inspect() {
        // reduced values 0.5, 0, 0.5 (the generated arith log): 1/3 ± 1/6.
        let v = [(0.5, None), (0.0, None), (0.5, None)];
        let m = |name: &str, v: &[(f64, Option<&str>)]| metric(&plain(name), v);
        assert!((m("accuracy", &v).unwrap().unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!((m("stderr", &v).unwrap().unwrap() - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(m("stderr", &[(1.0, None)]).unwrap(), Some(0.0));
        assert_eq!(m("accuracy", &[]).unwrap(), None);
        assert!(m("f1", &v).is_err());
        // Clustered: one cluster is 0 (Inspect's guard); a sample without the key is not
        // recomputed.
        let clustered = SpecMetric {
            cluster: Some("group".into()),
            ..plain("stderr")
        };
        let one = [(1.0, Some("\"a\"")), (0.0, Some("\"a\""))];
        assert_eq!(metric(&clustered, &one).unwrap(), Some(0.0));
        assert!(metric(&clustered, &[(1.0, None), (0.0, Some("1"))]).is_err());
    }

    #[test]
    fn reducers() {
        assert_eq!(reduce("max", &[0.0, 1.0]).unwrap(), Some(1.0));
        assert_eq!(reduce("median", &[0.0, 1.0, 0.5]).unwrap(), Some(0.5));
        assert_eq!(reduce("mode", &[0.0, 1.0, 1.0]).unwrap(), Some(1.0));
        assert_eq!(reduce("mean", &[]).unwrap(), None);
        assert_eq!(reduce("pass_at_2", &[1.0]).unwrap(), None);
        let near = |r: &str, v: &[f64], x: f64| {
            let got = reduce(r, v).unwrap().unwrap();
            assert!((got - x).abs() < 1e-15, "{r} {v:?}: {got}");
        };
        near("pass_at_2", &[1.0, 0.0, 0.0], 2.0 / 3.0);
        near("pass_k_2", &[1.0, 1.0, 0.0], 1.0 / 3.0);
        assert_eq!(reduce("at_least_2", &[1.0]).unwrap(), Some(0.0));
        assert!(reduce("majority", &[1.0]).is_err());
    }
}
