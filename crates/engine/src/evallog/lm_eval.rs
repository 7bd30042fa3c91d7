//! lm-evaluation-harness (FORMATS.md §2): one results file with the samples files of its tasks
//! is one run ([`super::lm_eval_pair`] finds them by content: `results_<date>.json` +
//! `samples_<task>_<date>.jsonl`, the v0.4.0–v0.4.2 `results.json` + `<model_args>_<task>.jsonl`,
//! renamed files). A samples file is JSON lines or one JSON array ([`super::rows`]). Rows are
//! keyed `(task, doc_id, filter)` (a task with two filters lists every doc twice); responses are
//! stringified. Recomputed: every `mean`-aggregated metric per task and filter (mean, and its
//! stderr = sample std (ddof 1) / √n as `lm_eval.api.metrics.mean_stderr`), and a group's value
//! as the size-weighted mean of its tasks with the pooled stderr (`pooled_sample_stderr`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::json::{self, compact, finite, finite_lenient, string};
use super::model::{
    EvalLogRun, Headline, MetricKey, RecordedMetric, RecordedValue, Sample, SampleKey, ScoreEntry,
    Tokens, Tool,
};
use crate::diag::Diagnostic;
use crate::input::InputFile;

/// One task's aggregation settings from `configs[task]`.
struct TaskConfig {
    /// Filter names in `filter_list` order (`none` when there is no list).
    filters: Vec<String>,
    /// metric → aggregation (`mean`, `f1`, …) from `metric_list`.
    aggregation: BTreeMap<String, String>,
}

fn task_config(configs: &Value, task: &str) -> TaskConfig {
    let c = configs.get(task).unwrap_or(&Value::Null);
    let mut filters: Vec<String> = c
        .get("filter_list")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|f| f.get("name").and_then(string))
                .collect()
        })
        .unwrap_or_default();
    if filters.is_empty() {
        filters.push("none".into());
    }
    let aggregation = c
        .get("metric_list")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|m| {
                    let name = m.get("metric").and_then(string)?;
                    let agg = m
                        .get("aggregation")
                        .and_then(string)
                        .unwrap_or_else(|| "mean".into());
                    Some((name, agg))
                })
                .collect()
        })
        .unwrap_or_default();
    TaskConfig {
        filters,
        aggregation,
    }
}

/// Reads one run: `results` and its samples files, each with the task its rows are samples of
/// ([`super::lm_eval_pair::pair`]). Without a results file (samples files alone, as the Open
/// LLM Leaderboard's details datasets publish them), every metric the rows carry is recomputed
/// per task and filter, and none is recorded.
pub fn read_run(
    results: Option<&InputFile>,
    samples_files: &[(&InputFile, &str)],
) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = match (results, samples_files.first()) {
        (Some(r), _) => r.path.as_str(),
        (None, Some((f, _))) => f.path.as_str(),
        (None, None) => return Err(Vec::new()),
    };
    let mut diags = Vec::new();
    let top: Value = match results {
        Some(results) => {
            json::parse_file(results, "an lm-eval results file", &mut diags).map_err(|d| vec![d])?
        }
        None => Value::Object(Map::new()),
    };
    let empty = Map::new();
    let res = match top.get("results").and_then(Value::as_object) {
        Some(res) => res,
        None if results.is_none() => &empty,
        None => {
            return Err(vec![Diagnostic::error(
                path,
                None,
                "no `results` object: not an lm-eval results file",
            )])
        }
    };
    let configs = top.get("configs").cloned().unwrap_or(Value::Null);
    let groups: Map<String, Value> = top
        .get("groups")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();

    // Recorded: "<metric>,<filter>" and "<metric>_stderr,<filter>" per task or group.
    let mut recorded = Vec::new();
    for (task, entry) in res {
        let Some(o) = entry.as_object() else { continue };
        for (k, v) in o {
            let Some((metric, filter)) = k.split_once(',') else {
                continue;
            };
            if metric.ends_with("_stderr") {
                continue;
            }
            recorded.push(RecordedMetric {
                key: MetricKey {
                    group: task.clone(),
                    scorer: metric.to_string(),
                    variant: Some(filter.to_string()),
                    metric: metric.to_string(),
                },
                value: finite_lenient(v).filter(|_| !v.is_string()),
                stderr: o.get(&format!("{metric}_stderr,{filter}")).and_then(finite),
            });
        }
    }

    // The run's date id: its results file's name, else its samples files' (v0.4.0–v0.4.2 and
    // renamed results files carry none).
    let date = results
        .into_iter()
        .chain(samples_files.iter().map(|(f, _)| *f))
        .find_map(|f| {
            super::lm_eval_pair::date_id(f).or_else(|| super::lm_eval_pair::hub_split(f))
        });
    let task_hashes = top.get("task_hashes");
    let mut samples = Vec::new();
    for (f, task) in samples_files {
        let cfg = task_config(&configs, task);
        let hash = read_samples(f, task, &cfg, &mut samples, &mut diags);
        let recorded_hash = task_hashes
            .and_then(|h| h.get(*task))
            .and_then(Value::as_str)
            .filter(|h| !h.is_empty());
        if let (Some(recorded), Some(hash)) = (recorded_hash, hash) {
            if !recorded.eq_ignore_ascii_case(&hash) {
                diags.push(Diagnostic::warning(
                    f.path.as_str(),
                    None,
                    format!(
                        "its rows do not hash to task_hashes[\"{task}\"] of {path} (the rows of \
                         another run of {task}, or edited?)"
                    ),
                ));
            }
        }
    }
    if results.is_none() {
        recorded = unrecorded_metrics(&samples);
    }
    samples.sort_by(|a, b| a.key.cmp(&b.key));

    // Recompute per task, filter and mean-aggregated metric.
    let mut headlines = Vec::new();
    let mut task_stats: BTreeMap<(String, String, String), TaskStat> = BTreeMap::new();
    for r in &recorded {
        let task = &r.key.group;
        if groups.contains_key(task) || (results.is_some() && !res.contains_key(task)) {
            continue;
        }
        let filter = r.key.variant.clone().unwrap_or_default();
        let cfg = task_config(&configs, task);
        let agg = cfg
            .aggregation
            .get(&r.key.scorer)
            .cloned()
            .unwrap_or_else(|| "mean".into());
        let values: Vec<f64> = samples
            .iter()
            .filter(|s| matches!(&s.key, SampleKey::LmEval { task: t, filter: f, .. } if t == task && *f == filter))
            .filter_map(|s| s.scores.iter().find(|e| e.scorer == r.key.scorer))
            .filter_map(|e| e.reading)
            .collect();
        let n = values.len() as u64;
        let (mean, stderr, note) = if agg != "mean" {
            (
                None,
                None,
                Some(format!("aggregation `{agg}` is not recomputed")),
            )
        } else if values.is_empty() {
            (
                None,
                None,
                Some("no sample rows for this task and filter".to_string()),
            )
        } else {
            let (m, se) = mean_stderr(&values);
            task_stats.insert(
                (task.clone(), r.key.scorer.clone(), filter.clone()),
                (m, se, n),
            );
            (Some(m), se, None)
        };
        headlines.push(Headline {
            key: r.key.clone(),
            recorded: r.value,
            recomputed: mean,
            n,
            note: note.clone(),
        });
        headlines.push(Headline {
            key: MetricKey {
                metric: format!("{}_stderr", r.key.scorer),
                ..r.key.clone()
            },
            recorded: r.stderr,
            recomputed: stderr,
            n,
            note,
        });
    }
    // Groups: the size-weighted mean of their tasks' recomputed values, pooled stderr.
    let subtasks = top.get("group_subtasks").and_then(Value::as_object);
    for r in recorded
        .iter()
        .filter(|r| groups.contains_key(&r.key.group))
    {
        let filter = r.key.variant.clone().unwrap_or_default();
        let members: Vec<TaskStat> = subtasks
            .and_then(|s| s.get(&r.key.group))
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .filter_map(|t| {
                        task_stats.get(&(t.to_string(), r.key.scorer.clone(), filter.clone()))
                    })
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        let (value, stderr, n) = pooled(&members);
        let note = Some(if value.is_some() {
            "group: size-weighted mean of its tasks (weight_by_size), pooled stderr".to_string()
        } else {
            "group: none of its tasks was recomputed under this metric and filter".to_string()
        });
        headlines.push(Headline {
            key: r.key.clone(),
            recorded: r.value,
            recomputed: value,
            n,
            note: note.clone(),
        });
        headlines.push(Headline {
            key: MetricKey {
                metric: format!("{}_stderr", r.key.scorer),
                ..r.key.clone()
            },
            recorded: r.stderr,
            recomputed: stderr,
            n,
            note,
        });
    }

    let mut config = BTreeMap::new();
    for k in [
        "config",
        "versions",
        "n-shot",
        "n-samples",
        "task_hashes",
        "configs",
    ] {
        if let Some(v) = top.get(k) {
            config.insert(k.to_string(), compact(v));
        }
    }
    let cfg = top.get("config");
    let model = top
        .get("model_name")
        .and_then(string)
        .or_else(|| {
            let args = cfg?.get("model_args")?;
            // A dict since v0.4.3; before, the command line's `pretrained=…,dtype=…` string.
            let pairs: BTreeMap<&str, &str> = args
                .as_str()
                .map(|a| a.split(',').filter_map(|kv| kv.split_once('=')).collect())
                .unwrap_or_default();
            ["model", "pretrained", "path", "engine"]
                .iter()
                .find_map(|k| {
                    args.get(*k)
                        .and_then(string)
                        .or_else(|| pairs.get(k).map(|v| v.trim().to_string()))
                })
        })
        .or_else(|| cfg?.get("model").and_then(string))
        .or_else(|| {
            let (f, _) = samples_files.first().filter(|_| results.is_none())?;
            super::lm_eval_pair::hub_model(f)
        });
    let mut tasks: Vec<&str> = res
        .keys()
        .filter(|t| !groups.contains_key(*t))
        .map(String::as_str)
        .collect();
    if results.is_none() {
        tasks = samples_files.iter().map(|(_, t)| *t).collect();
        tasks.sort_unstable();
        tasks.dedup();
    }
    let primary = recorded.first().map(|r| r.key.clone());
    let run = EvalLogRun {
        tool: Tool::LmEvaluationHarness,
        tool_version: top.get("lm_eval_version").and_then(string),
        format_version: None,
        declared_samples: None,
        files: results
            .into_iter()
            .chain(samples_files.iter().map(|(f, _)| *f))
            .map(|f| f.path.clone())
            .collect(),
        status: None,
        task: Some(
            groups
                .keys()
                .next()
                .cloned()
                .unwrap_or_else(|| tasks.join(",")),
        ),
        task_version: None,
        model: model.clone(),
        dataset: None,
        eval_id: Some(format!(
            "{}/{}",
            top.get("model_name_sanitized")
                .and_then(string)
                .or(model)
                .unwrap_or_default(),
            date.unwrap_or_else(|| {
                let name = results.map_or(path, |r| r.file_name());
                name.strip_suffix(".json").unwrap_or(name)
            })
        )),
        run_id: None,
        // `date` is a Unix time (`time.time()`): shown as a UTC date.
        created: top.get("date").and_then(|d| {
            super::json::finite_lenient(d)
                .and_then(crate::run_meta::unix_time_text)
                .or_else(|| string(d))
        }),
        config,
        recorded,
        headlines,
        primary,
        samples,
    };
    Ok((run, diags))
}

/// What samples files alone record: each (task, filter, metric) their rows score, in the order
/// of first appearance (files in order, rows in file order: lm-eval writes a task's filters in
/// its `filter_list` order, so the first is the task's first filter), with no value (no results
/// file recorded one).
fn unrecorded_metrics(samples: &[Sample]) -> Vec<RecordedMetric> {
    let mut seen: std::collections::BTreeSet<(&str, &str, &str)> = Default::default();
    let mut out = Vec::new();
    for s in samples {
        let SampleKey::LmEval { task, filter, .. } = &s.key else {
            continue;
        };
        for e in &s.scores {
            if seen.insert((task, filter, &e.scorer)) {
                out.push(RecordedMetric {
                    key: MetricKey {
                        group: task.clone(),
                        scorer: e.scorer.clone(),
                        variant: Some(filter.clone()),
                        metric: e.scorer.clone(),
                    },
                    value: None,
                    stderr: None,
                });
            }
        }
    }
    out
}

/// A task's recomputed (mean, stderr, n) for one metric and filter.
type TaskStat = (f64, Option<f64>, u64);

/// Mean and `mean_stderr` (sample std with ddof 1 over √n; `None` below two values).
fn mean_stderr(values: &[f64]) -> (f64, Option<f64>) {
    let m = crate::stats::Moments::of(values);
    (m.mean().unwrap_or(f64::NAN), m.stderr())
}

/// lm-eval's group aggregation with `weight_by_size`: Σ nᵢ·mᵢ / Σ nᵢ, and
/// `pooled_sample_stderr`: √(Σ (nᵢ−1)·seᵢ²·nᵢ / (Σ nᵢ − k) / Σ nᵢ).
fn pooled(members: &[TaskStat]) -> (Option<f64>, Option<f64>, u64) {
    let total: u64 = members.iter().map(|m| m.2).sum();
    if members.is_empty() || total == 0 {
        return (None, None, 0);
    }
    let t = total as f64;
    let mean = members.iter().map(|(m, _, n)| m * *n as f64).sum::<f64>() / t;
    let denom = t - members.len() as f64;
    let se = members
        .iter()
        .map(|(_, se, n)| se.map(|se| (*n as f64 - 1.0) * se * se * *n as f64))
        .sum::<Option<f64>>()
        .filter(|_| denom > 0.0)
        .map(|s| (s / denom / t).sqrt());
    (Some(mean), se, total)
}

/// Reads one samples file's rows (JSON lines or one JSON array) into `out`; gives the hash of
/// its rows as `task_hashes` records it, when every row carries the three hashes.
fn read_samples(
    f: &InputFile,
    task: &str,
    cfg: &TaskConfig,
    out: &mut Vec<Sample>,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let path = f.path.as_str();
    // Before v0.4.7 rows carry no `filter`: they come in filter_list order, each block in doc order.
    let mut block = 0usize;
    let mut last_doc: Option<i64> = None;
    let mut hash = super::lm_eval_pair::RowsHash::default();
    super::rows::each_row(f, diags, |at, row, diags| {
        let line_no = at.line;
        hash.add(&row);
        let Some(doc_id) = row.get("doc_id").and_then(Value::as_i64) else {
            diags.push(at.error(path, "row without an integer doc_id"));
            return;
        };
        let filter = match row.get("filter").and_then(string) {
            Some(f) => f,
            None => {
                if last_doc.is_some_and(|d| doc_id <= d) {
                    block += 1;
                }
                cfg.filters
                    .get(block)
                    .cloned()
                    .unwrap_or_else(|| format!("filter#{block}"))
            }
        };
        last_doc = Some(doc_id);
        let args = row.get("arguments");
        let arg = |i: usize, j: usize| -> Option<&Value> {
            match args? {
                Value::Object(o) => o.get(&format!("gen_args_{i}"))?.get(format!("arg_{j}")),
                Value::Array(a) => a.get(i)?.get(j),
                _ => None,
            }
        };
        let input = arg(0, 0).and_then(string);
        let target_raw = row.get("target").and_then(string);
        let filtered = row.get("filtered_resps");
        let is_mc = filtered
            .and_then(|f| f.get(0))
            .is_some_and(|first| first.is_array());
        let output = if is_mc {
            // Multiple choice: the choice with the highest log-likelihood.
            let lls: Vec<Option<f64>> = filtered
                .and_then(Value::as_array)
                .map(|l| {
                    l.iter()
                        .map(|c| c.get(0).and_then(finite_lenient))
                        .collect()
                })
                .unwrap_or_default();
            let best = lls
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i, v)))
                .fold(None::<(usize, f64)>, |acc, (i, v)| match acc {
                    Some((_, b)) if b >= v => acc,
                    _ => Some((i, v)),
                });
            best.and_then(|(i, _)| arg(i, 1).and_then(string).map(|s| s.trim().to_string()))
        } else {
            filtered
                .and_then(|f| f.get(0))
                .and_then(string)
                .or_else(|| {
                    row.get("resps")
                        .and_then(|r| r.get(0))
                        .and_then(|r| r.get(0))
                        .and_then(string)
                })
        };
        let mut target: Vec<String> = target_raw.clone().into_iter().collect();
        if is_mc {
            if let Some(choice) = target_raw
                .as_deref()
                .and_then(|t| t.trim().parse::<usize>().ok())
                .and_then(|i| arg(i, 1))
                .and_then(string)
            {
                target = vec![choice.trim().to_string()];
            }
        }
        let metric_names: Vec<String> = match row.get("metrics").and_then(Value::as_array) {
            Some(l) => l.iter().filter_map(string).collect(),
            None => cfg.aggregation.keys().cloned().collect(),
        };
        let scores = metric_names
            .iter()
            .filter_map(|m| {
                let v = row.get(m)?;
                let value = json::recorded(v);
                let reading = match &value {
                    RecordedValue::Int(i) => Some(*i as f64),
                    RecordedValue::Float(x) if x.is_finite() => Some(*x),
                    RecordedValue::Bool(b) => Some(f64::from(u8::from(*b))),
                    _ => None,
                };
                Some(ScoreEntry {
                    scorer: m.clone(),
                    key: None,
                    value,
                    reading,
                    answer: None,
                    explanation: None,
                })
            })
            .collect();
        let mut metadata = BTreeMap::new();
        for k in ["doc", "doc_hash", "prompt_hash", "target_hash"] {
            if let Some(v) = row.get(k) {
                metadata.insert(k.to_string(), compact(v));
            }
        }
        out.push(Sample {
            checks: Default::default(),
            key: SampleKey::LmEval {
                task: task.to_string(),
                doc_id,
                filter,
            },
            input,
            target,
            output,
            scores,
            tokens: Tokens::default(),
            cost: None,
            latency: None,
            error: None,
            metadata,
            source: format!("{path}:{line_no}"),
        });
    });
    hash.hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_and_pooling() {
        let (m, se) = mean_stderr(&[1.0, 0.0, 1.0, 1.0, 0.0]);
        assert!((m - 0.6).abs() < 1e-12);
        assert!((se.unwrap() - 0.244_948_974_278_317_83).abs() < 1e-12);
        let (gm, gse, n) = pooled(&[(m, se, 5)]);
        assert_eq!(n, 5);
        assert!((gm.unwrap() - 0.6).abs() < 1e-12);
        assert!((gse.unwrap() - se.unwrap()).abs() < 1e-12);
    }
}
