//! OpenAI Evals record files (FORMATS.md §4): one JSONL file per `oaieval` run — a `{"spec": …}`
//! line, a `{"final_report": …}` line (usually *before* the events: the recorder flushes events
//! late), and event lines `{run_id, event_id, sample_id, type, data, …}` whose samples interleave.
//!
//! One run per file; a sample per `sample_id` (`<base>.<split>.<row index>`), its events in
//! `event_id` order: input = the first `sampling` prompt (its user messages), output = the last
//! `sampling`'s `sampled` (a list's first element), target = the `match` event's `expected`; a
//! `match` event is a `match` score (`correct`: 1 / 0), each number of a `metrics` event a score
//! named after its key, `error` events the sample's error, `sampling.data.usage` its tokens.
//!
//! `final_report` recomputed the way the evals compute it: a key the `metrics` events carry is the
//! mean of their values (`np.mean(recorder.get_scores(key))`, e.g. FuzzyMatch's `accuracy`,
//! `f1_score`); else `accuracy` is `evals.metrics.get_accuracy` over every `match` event (correct
//! / events; NaN, read as none, with no events); `usage_<k>` is the sum of `sampling.data.usage[k]`
//! (null counts 0, as `add_token_usage_to_result`). `boostrap_std` (a bootstrap over an unseeded
//! `random`) and eval-specific keys are kept as recorded, not recomputed.

use std::collections::BTreeMap;

use serde_json::Value;

use super::json::{self, compact, finite, string, uint, user_text};
use super::model::{
    EvalLogRun, Headline, MetricKey, RecordedMetric, RecordedValue, Sample, SampleKey, ScoreEntry,
    Tokens, Tool,
};
use crate::diag::{Diagnostic, Severity};
use crate::input::InputFile;

/// One event line.
struct Event {
    id: i64,
    line: u32,
    kind: String,
    data: Value,
}

fn key(scorer: &str, metric: &str) -> MetricKey {
    MetricKey {
        group: String::new(),
        scorer: scorer.to_string(),
        variant: None,
        metric: metric.to_string(),
    }
}

/// The score a watched file's samples are judged by: the `match` events' accuracy (the headline
/// of a match eval, as [`read`] picks it).
pub(crate) fn match_accuracy() -> MetricKey {
    key("match", "accuracy")
}

/// A sample id's sort key: `<base>.<split>` then the row index as a number.
fn id_order(id: &str) -> (String, u64, String) {
    match id.rsplit_once('.') {
        Some((base, idx)) => match idx.parse::<u64>() {
            Ok(n) => (base.to_string(), n, String::new()),
            Err(_) => (base.to_string(), u64::MAX, idx.to_string()),
        },
        None => (id.to_string(), u64::MAX, String::new()),
    }
}

/// The lines of a record file sorted out as they are read: the spec, the last final_report and
/// each sample's events (a watched file's appended lines go through the same, [`super::live`]).
#[derive(Default)]
pub(crate) struct Records {
    spec: Option<Value>,
    report: Option<(u32, Value)>,
    by_sample: BTreeMap<String, Vec<Event>>,
    foreign: usize,
    loose: usize,
}

impl Records {
    /// Sorts out line `line_no` (parsed as `v`); the sample id whose events it adds to, if any.
    pub(crate) fn line(
        &mut self,
        path: &str,
        line_no: u32,
        mut v: Value,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        if let Some(s) = v.get_mut("spec") {
            if self.spec.is_some() {
                diags.push(Diagnostic::warning(
                    path,
                    Some(line_no),
                    "a second spec line; the first is used",
                ));
            } else {
                self.spec = Some(s.take());
            }
            return None;
        }
        if let Some(r) = v.get_mut("final_report") {
            if self.report.is_some() {
                diags.push(Diagnostic::warning(
                    path,
                    Some(line_no),
                    "a second final_report line; the last is used",
                ));
            }
            self.report = Some((line_no, r.take()));
            return None;
        }
        let run_id = v.get("run_id").and_then(string);
        let spec_run = self
            .spec
            .as_ref()
            .and_then(|s| s.get("run_id"))
            .and_then(string);
        if let (Some(a), Some(b)) = (&run_id, &spec_run) {
            if a != b {
                self.foreign += 1;
                return None;
            }
        }
        let Some(kind) = v.get("type").and_then(string) else {
            diags.push(Diagnostic::error(
                path,
                Some(line_no),
                "line is neither the spec, the final_report nor an event with a `type`",
            ));
            return None;
        };
        let Some(sample_id) = v.get("sample_id").and_then(string) else {
            self.loose += 1;
            return None;
        };
        let Some(id) = v.get("event_id").and_then(Value::as_i64) else {
            diags.push(Diagnostic::error(
                path,
                Some(line_no),
                "event without an integer event_id",
            ));
            return None;
        };
        let event = Event {
            id,
            line: line_no,
            kind,
            data: v.get_mut("data").map(Value::take).unwrap_or(Value::Null),
        };
        let events = self.by_sample.entry(sample_id.clone()).or_default();
        // Kept in event_id order as they come (a sample's events are almost always appended in
        // order; one out of order is put in its place).
        let at = events.partition_point(|e| e.id <= event.id);
        events.insert(at, event);
        Some(sample_id)
    }

    /// Sample `sample_id` lowered from its events so far (`None`: no event of it was read).
    pub(crate) fn sample(&self, path: &str, sample_id: &str) -> Option<Sample> {
        let events = self.by_sample.get(sample_id)?;
        // Its diagnostics are the whole read's to give, once (`read`): not repeated each round.
        let (mut model, mut diags) = (None, Vec::new());
        Some(lower_sample(
            path,
            sample_id.to_string(),
            events,
            &mut model,
            &mut diags,
        ))
    }
}

/// Reads an OpenAI Evals record file.
pub fn read(file: &InputFile) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = file.path.as_str();
    let mut diags = Vec::new();
    let mut records = Records::default();
    json::each_line(file, &mut diags, |line_no, v, diags| {
        records.line(path, line_no, v, diags);
    });
    run_of(path, &records, diags)
}

/// The run of file `path` whose lines were sorted out into `records` (with `diags`, the lines'
/// diagnostics): the whole read's end, for a watched file's lines so far as for a whole file.
pub(crate) fn run_of(
    path: &str,
    records: &Records,
    mut diags: Vec<Diagnostic>,
) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let Records {
        spec,
        report,
        by_sample,
        foreign,
        loose,
    } = records;
    let (foreign, loose) = (*foreign, *loose);
    if foreign > 0 {
        diags.push(Diagnostic::warning(
            path,
            None,
            format!("{foreign} events of another run_id than the spec's were skipped"),
        ));
    }
    if loose > 0 {
        diags.push(Diagnostic {
            severity: Severity::Info,
            ..Diagnostic::warning(
                path,
                None,
                format!("{loose} events without a sample_id (not part of any sample) not read"),
            )
        });
    }
    if spec.is_none() && report.is_none() && by_sample.is_empty() {
        diags.push(Diagnostic::error(
            path,
            None,
            "no spec, final_report or event line could be read: not an OpenAI Evals record file",
        ));
        return Err(diags);
    }
    if spec.is_none() {
        diags.push(Diagnostic::warning(
            path,
            None,
            "no spec line: the run's name, model and id are unknown",
        ));
    }
    if report.is_none() {
        diags.push(Diagnostic::warning(
            path,
            None,
            "no final_report line (the run did not finish?): nothing recorded to compare with",
        ));
    }

    let spec = spec.as_ref().unwrap_or(&Value::Null);
    let mut samples = Vec::new();
    let mut model: Option<String> = None;
    let mut usages: Vec<&Value> = Vec::new();
    for events in by_sample.values() {
        usages.extend(
            events
                .iter()
                .filter(|e| e.kind == "sampling")
                .filter_map(|e| e.data.get("usage"))
                .filter(|u| u.is_object()),
        );
    }
    let usage_sums: Vec<(String, UsageSum)> = report
        .as_ref()
        .and_then(|(_, r)| r.as_object())
        .into_iter()
        .flatten()
        .filter_map(|(k, _)| {
            let field = k.strip_prefix("usage_")?;
            Some((k.clone(), usage_sum(&usages, field)))
        })
        .collect();
    // Each sample's events are kept in event_id order as they come ([`Records::line`]).
    for (sample_id, events) in by_sample {
        samples.push(lower_sample(
            path,
            sample_id.clone(),
            events,
            &mut model,
            &mut diags,
        ));
    }
    samples.sort_by_cached_key(|s| match &s.key {
        SampleKey::OpenaiEvals { sample_id } => id_order(sample_id),
        _ => (String::new(), 0, String::new()),
    });

    // final_report, recomputed from the events.
    let metrics_scores = |name: &str| -> Vec<f64> {
        samples
            .iter()
            .flat_map(|s| &s.scores)
            .filter(|e| e.scorer == "metrics" && e.key.as_deref() == Some(name))
            .filter_map(|e| e.reading)
            .collect()
    };
    let matches: Vec<f64> = samples
        .iter()
        .flat_map(|s| &s.scores)
        .filter(|e| e.scorer == "match")
        .filter_map(|e| e.reading)
        .collect();
    let mut recorded = Vec::new();
    let mut headlines = Vec::new();
    // Every number of the report, nested ones by their dotted path (`a.b`).
    let report_numbers = report
        .as_ref()
        .map(|(_, r)| super::leaves::numeric_leaves(r))
        .unwrap_or_default();
    for (k, value) in &report_numbers {
        let (k, value) = (k.as_str(), *value);
        let from_metrics = metrics_scores(k);
        let (key, recomputed, n) = if !from_metrics.is_empty() {
            let n = from_metrics.len();
            (
                key(k, "mean"),
                Some(from_metrics.iter().sum::<f64>() / n as f64),
                n,
            )
        } else if k == "accuracy" {
            let n = matches.len();
            (
                key("match", "accuracy"),
                (n > 0).then(|| matches.iter().sum::<f64>() / n as f64),
                n,
            )
        } else if let Some((_, sum)) = usage_sums.iter().find(|(u, _)| u == k) {
            match sum {
                Ok((sum, n)) => (key("sampling", k), Some(*sum), *n),
                Err(note) => {
                    recorded.push(RecordedMetric {
                        key: key("sampling", k),
                        value,
                        stderr: None,
                    });
                    headlines.push(Headline {
                        key: key("sampling", k),
                        recorded: value,
                        recomputed: None,
                        n: 0,
                        note: Some(note.clone()),
                    });
                    continue;
                }
            }
        } else {
            // boostrap_std (random), eval-specific numbers: shown, not recomputed.
            let key = key("final_report", k);
            recorded.push(RecordedMetric {
                key: key.clone(),
                value,
                stderr: None,
            });
            headlines.push(Headline {
                key,
                recorded: value,
                recomputed: None,
                n: 0,
                note: Some(if k == "boostrap_std" {
                    "a bootstrap over an unseeded random resampling (evals' Match): it cannot be \
                     reproduced"
                        .into()
                } else {
                    "an eval-specific number: the eval's own code defines it".into()
                }),
            });
            continue;
        };
        recorded.push(RecordedMetric {
            key: key.clone(),
            value,
            stderr: None,
        });
        headlines.push(Headline {
            key,
            recorded: value,
            recomputed,
            n: n as u64,
            note: None,
        });
    }
    if !matches.is_empty() && !headlines.iter().any(|h| h.key.metric == "accuracy") {
        headlines.push(Headline {
            key: key("match", "accuracy"),
            recorded: None,
            recomputed: Some(matches.iter().sum::<f64>() / matches.len() as f64),
            n: matches.len() as u64,
            note: Some("not in the final_report: get_accuracy over the match events".into()),
        });
    }
    let primary = headlines
        .iter()
        .find(|h| h.key.scorer == "accuracy" || h.key.metric == "accuracy")
        .or_else(|| headlines.iter().find(|h| h.key.scorer != "sampling"))
        .map(|h| h.key.clone());

    let s = |k: &str| spec.get(k).and_then(string);
    let run_config = spec.get("run_config");
    let mut config = BTreeMap::new();
    for (section, v) in [
        ("run_config", run_config),
        ("completion_fns", spec.get("completion_fns")),
    ] {
        if let Some(v) = v.filter(|v| !v.is_null()) {
            config.insert(section.to_string(), compact(v));
        }
    }
    let model = model.or_else(|| {
        spec.get("completion_fns")
            .and_then(|c| c.get(0))
            .and_then(string)
    });
    let run = EvalLogRun {
        tool: Tool::OpenaiEvals,
        tool_version: None,
        format_version: None,
        declared_samples: None,
        files: vec![path.to_string()],
        status: Some(if report.is_some() {
            "complete".into()
        } else {
            "no final_report".into()
        }),
        task: s("eval_name").or_else(|| s("base_eval")),
        task_version: None,
        model,
        dataset: run_config
            .and_then(|c| c.get("eval_spec"))
            .and_then(|e| e.get("args"))
            .and_then(|a| a.get("samples_jsonl"))
            .and_then(string),
        eval_id: s("run_id"),
        run_id: None,
        created: s("created_at"),
        config,
        recorded,
        headlines,
        primary,
        samples,
    };
    Ok((run, diags))
}

/// A `usage_*` sum and the sampling events it covers, or why it cannot be summed.
type UsageSum = Result<(f64, usize), String>;

/// Σ `usage[field]` as `add_token_usage_to_result` sums it (null = 0); `Err` when a value is not
/// a number (the tool then writes no `usage_*` keys at all).
fn usage_sum(usages: &[&Value], field: &str) -> UsageSum {
    if usages.is_empty() {
        return Err("no sampling event records its usage".into());
    }
    let mut sum = 0.0;
    for u in usages {
        match u.get(field) {
            None | Some(Value::Null) => {}
            Some(v) => match finite(v) {
                Some(x) => sum += x,
                None => {
                    return Err(format!(
                        "usage `{field}` is not a number in every sampling event"
                    ))
                }
            },
        }
    }
    Ok((sum, usages.len()))
}

fn lower_sample(
    path: &str,
    sample_id: String,
    events: &[Event],
    model: &mut Option<String>,
    diags: &mut Vec<Diagnostic>,
) -> Sample {
    fn of<'e>(events: &'e [Event], k: &'static str) -> impl Iterator<Item = &'e Event> {
        events.iter().filter(move |e| e.kind == k)
    }
    let sampled = |e: &Event| -> Option<String> {
        match e.data.get("sampled")? {
            Value::Array(a) => a.first().and_then(string),
            v => string(v),
        }
    };
    let input = of(events, "sampling").find_map(|e| e.data.get("prompt").and_then(user_text));
    let mut output = of(events, "sampling").filter_map(sampled).last();
    let mut target = Vec::new();
    let mut scores = Vec::new();
    let mut n_match = 0usize;
    for e in events {
        match e.kind.as_str() {
            "match" => {
                n_match += 1;
                if target.is_empty() {
                    target = match e.data.get("expected") {
                        Some(Value::Array(a)) => a.iter().filter_map(string).collect(),
                        Some(v) => string(v).into_iter().collect(),
                        None => Vec::new(),
                    };
                }
                if output.is_none() {
                    output = sampled(e);
                }
                let correct = e.data.get("correct").unwrap_or(&Value::Null);
                let reading = match correct {
                    Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
                    other => {
                        diags.push(
                            Diagnostic::error(
                                path,
                                Some(e.line),
                                format!(
                                    "match event whose `correct` is not a bool ({})",
                                    compact(other)
                                ),
                            )
                            .with_record(sample_id.clone()),
                        );
                        None
                    }
                };
                scores.push(ScoreEntry {
                    scorer: "match".into(),
                    key: None,
                    value: json::recorded(correct),
                    reading,
                    answer: e
                        .data
                        .get("picked")
                        .filter(|p| !p.is_null())
                        .map(|p| string(p).unwrap_or_else(|| compact(p))),
                    explanation: None,
                });
            }
            "metrics" => {
                for (k, v) in e.data.as_object().into_iter().flatten() {
                    let value = json::recorded(v);
                    let reading = match &value {
                        RecordedValue::Bool(b) => Some(f64::from(u8::from(*b))),
                        _ => finite(v),
                    };
                    scores.push(ScoreEntry {
                        scorer: "metrics".into(),
                        key: Some(k.clone()),
                        value,
                        reading,
                        answer: None,
                        explanation: None,
                    });
                }
            }
            _ => {}
        }
    }
    if n_match > 1 {
        diags.push(
            Diagnostic::warning(
                path,
                events.first().map(|e| e.line),
                format!(
                    "{n_match} match events for one sample id; the first is its verdict, all count in the accuracy"
                ),
            )
            .with_record(sample_id.clone()),
        );
    }
    let usages: Vec<&Value> = of(events, "sampling")
        .filter_map(|e| e.data.get("usage"))
        .filter(|u| u.is_object())
        .collect();
    // `[key]` or `[details, key]` summed over the sample's sampling events.
    let total = |path: &[&str]| -> Option<u64> {
        let vals: Vec<u64> = usages
            .iter()
            .filter_map(|u| path.iter().try_fold(*u, |v, k| v.get(*k)))
            .filter_map(uint)
            .collect();
        (!vals.is_empty()).then(|| vals.iter().fold(0u64, |a, b| a.saturating_add(*b)))
    };
    let tokens = Tokens {
        input: total(&["prompt_tokens"]),
        output: total(&["completion_tokens"]),
        total: total(&["total_tokens"]),
        // OpenAI's usage details (objects in real responses; the generated files write 0).
        cache_read: total(&["prompt_tokens_details", "cached_tokens"]),
        reasoning: total(&["completion_tokens_details", "reasoning_tokens"]),
        ..Tokens::default()
    };
    if model.is_none() {
        *model = of(events, "sampling").find_map(|e| e.data.get("model").and_then(string));
    }
    let errors: Vec<String> = of(events, "error")
        .map(|e| {
            let t = e.data.get("type").and_then(string);
            let m = e
                .data
                .get("message")
                .and_then(string)
                .unwrap_or_else(|| compact(&e.data));
            match t {
                Some(t) => format!("{t}: {m}"),
                None => m,
            }
        })
        .collect();
    let mut metadata = BTreeMap::new();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    metadata.insert("events".to_string(), compact(&Value::from(kinds.join(","))));
    Sample {
        checks: Default::default(),
        key: SampleKey::OpenaiEvals {
            sample_id: sample_id.clone(),
        },
        input,
        target,
        output,
        scores,
        tokens,
        cost: None,
        latency: None,
        error: (!errors.is_empty()).then(|| errors.join("; ")),
        metadata,
        source: format!(
            "{path}:{}",
            events.first().map(|e| e.line).unwrap_or_default()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_ids_sort_by_row_index() {
        let mut ids = vec!["a.dev.10", "a.dev.2", "a.dev.x", "a.dev.0"];
        ids.sort_by_key(|i| id_order(i));
        assert_eq!(ids, ["a.dev.0", "a.dev.2", "a.dev.10", "a.dev.x"]);
    }

    #[test]
    fn usage_sums_nulls_as_zero_and_refuses_objects() {
        let u: Vec<Value> = serde_json::from_str(
            r#"[{"prompt_tokens": 3, "d": null}, {"prompt_tokens": 4, "d": null}]"#,
        )
        .unwrap();
        let u: Vec<&Value> = u.iter().collect();
        assert_eq!(usage_sum(&u, "prompt_tokens"), Ok((7.0, 2)));
        assert_eq!(usage_sum(&u, "d"), Ok((0.0, 2)));
        let o: Vec<Value> = serde_json::from_str(r#"[{"d": {"x": 1}}]"#).unwrap();
        assert!(usage_sum(&o.iter().collect::<Vec<_>>(), "d").is_err());
    }
}
