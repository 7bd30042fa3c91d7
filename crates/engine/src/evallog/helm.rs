//! HELM run folders (FORMATS.md §5): `benchmark_output/runs/<suite>/<run spec name>/` with
//! `run_spec.json`, `scenario.json`, `scenario_state.json`, `per_instance_stats.json`,
//! `stats.json` (and, after `helm-summarize`, `instances.json`, `display_predictions.json`,
//! `display_requests.json`). One folder is one run.
//!
//! Samples are keyed `(instance id, perturbation name, train trial)` ([`SampleKey::Helm`]): the
//! request states of `scenario_state.json` (prompt, correct references, the first completion —
//! mapped through `output_mapping` for multiple-choice-joint — request time, a failed request's
//! error) joined with their `per_instance_stats.json` entry, whose every stat is a score (its
//! `mean`).
//!
//! Headlines: every stat of `stats.json` (unperturbed) that is also a per-instance stat (and each
//! per-instance stat `stats.json` lacks, with nothing recorded), recomputed
//! as HELM aggregates it (`metrics/metric.py`: per train trial the merged per-instance stats'
//! mean, then the mean over trials). Stats HELM computes over a whole trial (perplexity,
//! calibration, `num_instances`) and the perturbation stats (`robustness`, `fairness`: the worst
//! case) are kept as recorded. The main metric, which HELM takes from its schema (not written in
//! the run folder), is the first of [`MAIN_METRICS`] the run has, on the `test` split (else
//! `valid`, else the first split); a run with none has no headline score and its items no verdict.

use std::collections::BTreeMap;

use serde_json::Value;

use super::json::{self, compact, finite, string, uint};
use super::model::{
    EvalLogRun, Headline, MetricKey, RecordedMetric, RecordedValue, Sample, SampleKey, ScoreEntry,
    Tokens, Tool,
};
use crate::diag::Diagnostic;
use crate::input::InputFile;

/// The stats HELM's schemas name as a run group's main metric, in the order one is picked.
pub const MAIN_METRICS: [&str; 10] = [
    "exact_match",
    "quasi_exact_match",
    "prefix_exact_match",
    "quasi_prefix_exact_match",
    "exact_match_indicator",
    "final_number_exact_match",
    "math_equiv",
    "math_equiv_chain_of_thought",
    "f1_score",
    "rouge_l",
];

/// The files of a run folder, by name.
pub const RUN_FILES: [&str; 5] = [
    "run_spec.json",
    "scenario.json",
    "scenario_state.json",
    "per_instance_stats.json",
    "stats.json",
];

/// `helm-summarize` outputs: the same instances and predictions as `scenario_state.json`.
pub const SUMMARY_FILES: [&str; 3] = [
    "instances.json",
    "display_predictions.json",
    "display_requests.json",
];

/// Why a summary file is not read.
pub const SUMMARY_SKIP: &str =
    "helm-summarize output: the same instances and predictions as scenario_state.json, which is read";

pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Whether `f` belongs to the HELM run folder `dir` (one of its run or summary files).
pub fn in_run_folder(f: &InputFile, dir: &str) -> bool {
    let name = f.file_name();
    dir_of(&f.path) == dir && (RUN_FILES.contains(&name) || SUMMARY_FILES.contains(&name))
}

/// A stat's identity: name, split, sub split, perturbation name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct StatName {
    name: String,
    split: String,
    sub_split: Option<String>,
    perturbation: Option<String>,
}

/// A `Stat`: its name and `(sum, count, mean)`.
struct Stat {
    name: StatName,
    sum: Option<f64>,
    count: u64,
    mean: Option<f64>,
}

fn perturbation_name(v: Option<&Value>) -> Option<String> {
    let p = v.filter(|p| !p.is_null())?;
    p.get("name").and_then(string).or_else(|| Some(compact(p)))
}

fn stat(v: &Value) -> Option<Stat> {
    let n = v.get("name")?;
    let count = v.get("count").and_then(uint).unwrap_or(0);
    let sum = v.get("sum").and_then(finite);
    // A recorded mean that is not a number (NaN, which HELM drops before writing) is unscored.
    let mean = match v.get("mean") {
        Some(m) => finite(m),
        None => sum.filter(|_| count > 0).map(|s| s / count as f64),
    };
    Some(Stat {
        name: StatName {
            name: n.get("name").and_then(string)?,
            split: n.get("split").and_then(string).unwrap_or_default(),
            sub_split: n.get("sub_split").and_then(string),
            perturbation: perturbation_name(n.get("perturbation")),
        },
        sum,
        count,
        mean,
    })
}

/// One folder's files, parsed.
struct Parsed<'a> {
    file: &'a InputFile,
    value: Value,
}

fn parse_file<'a>(f: &'a InputFile, diags: &mut Vec<Diagnostic>) -> Option<Parsed<'a>> {
    match json::parse_file(f, "JSON", diags) {
        Ok(value) => Some(Parsed { file: f, value }),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

/// A warning that the item `k` comes twice in `file` (at `record`): the first is used.
fn twice(file: &str, k: &Key, what: &str, record: String) -> Diagnostic {
    Diagnostic::warning(
        file,
        None,
        format!(
            "instance {} (train trial {}) {what}; the first is used",
            k.0, k.2
        ),
    )
    .with_record(record)
}

type Key = (String, Option<String>, u32);

fn key_of(v: &Value, instance: Option<&Value>) -> Option<Key> {
    let inst = instance.unwrap_or(v);
    let id = inst
        .get("id")
        .or_else(|| v.get("instance_id"))
        .and_then(string)?;
    let pert = perturbation_name(inst.get("perturbation").or_else(|| v.get("perturbation")));
    let trial = v
        .get("train_trial_index")
        .and_then(uint)
        .and_then(|t| u32::try_from(t).ok())
        .unwrap_or(0);
    Some((id, pert, trial))
}

/// Reads one HELM run folder (`files`: its run and summary files).
pub fn read_run(files: &[&InputFile]) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let by_name = |name: &str| files.iter().copied().find(|f| f.file_name() == name);
    let first = files.first().map(|f| f.path.clone()).unwrap_or_default();
    let dir = dir_of(&first).to_string();
    let mut parse = |name: &str| by_name(name).and_then(|f| parse_file(f, &mut diags));
    let run_spec = parse("run_spec.json");
    let scenario = parse("scenario.json");
    let state = parse("scenario_state.json");
    let per_instance = parse("per_instance_stats.json");
    let stats = parse("stats.json");
    let shape =
        |p: &Option<Parsed>, want_list: bool, field: Option<&str>, diags: &mut Vec<Diagnostic>| {
            if let Some(p) = p {
                let v = match field {
                    Some(k) => p.value.get(k).unwrap_or(&Value::Null),
                    None => &p.value,
                };
                let ok = if want_list {
                    v.is_array()
                } else {
                    v.is_object()
                };
                if !ok {
                    diags.push(Diagnostic::error(
                        p.file.path.as_str(),
                        None,
                        format!(
                            "{} is not a {}",
                            field.map(|f| format!("`{f}`")).unwrap_or("the file".into()),
                            if want_list { "list" } else { "JSON object" }
                        ),
                    ));
                }
            }
        };
    shape(&run_spec, false, None, &mut diags);
    shape(&state, true, Some("request_states"), &mut diags);
    shape(&per_instance, true, None, &mut diags);
    shape(&stats, true, None, &mut diags);
    let states: &[Value] = state
        .as_ref()
        .and_then(|p| p.value.get("request_states"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let instances: &[Value] = per_instance
        .as_ref()
        .and_then(|p| p.value.as_array())
        .map(Vec::as_slice)
        .unwrap_or_default();
    if states.is_empty() && instances.is_empty() {
        let mut out = diags;
        out.push(Diagnostic::error(
            first.as_str(),
            None,
            "a HELM run folder without request states or per-instance stats: nothing to read",
        ));
        return Err(out);
    }
    for (name, have) in [
        ("run_spec.json", run_spec.is_some()),
        ("scenario_state.json", state.is_some()),
        ("per_instance_stats.json", per_instance.is_some()),
        ("stats.json", stats.is_some()),
    ] {
        if !have && by_name(name).is_none() {
            diags.push(Diagnostic::warning(
                first.as_str(),
                None,
                format!("the run folder has no {name} (an unfinished run?)"),
            ));
        }
    }

    // Per-instance stats by key; a key given twice keeps its first entry.
    let pis_path = per_instance
        .as_ref()
        .map(|p| p.file.path.clone())
        .unwrap_or_default();
    let mut stats_of: BTreeMap<Key, (usize, Vec<Stat>)> = BTreeMap::new();
    for (i, e) in instances.iter().enumerate() {
        let Some(k) = key_of(e, None) else {
            diags.push(
                Diagnostic::error(pis_path.as_str(), None, "entry without an instance_id")
                    .with_record(format!("[{i}]")),
            );
            continue;
        };
        if stats_of.contains_key(&k) {
            diags.push(twice(&pis_path, &k, "appears twice", format!("[{i}]")));
            continue;
        }
        let list: Vec<Stat> = e
            .get("stats")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(stat).collect())
            .unwrap_or_default();
        stats_of.insert(k, (i, list));
    }

    // Samples: each request state joined with its stats; stats without a state alone.
    let state_path = state
        .as_ref()
        .map(|p| p.file.path.clone())
        .unwrap_or_default();
    let mut samples: BTreeMap<Key, Sample> = BTreeMap::new();
    for (i, rs) in states.iter().enumerate() {
        let Some(k) = key_of(rs, rs.get("instance")) else {
            diags.push(
                Diagnostic::error(
                    state_path.as_str(),
                    None,
                    "request state without an instance id",
                )
                .with_record(format!("request_states[{i}]")),
            );
            continue;
        };
        if samples.contains_key(&k) {
            diags.push(twice(
                &state_path,
                &k,
                "has two request states",
                format!("request_states[{i}]"),
            ));
            continue;
        }
        let source = format!("{state_path}#request_states[{i}]");
        samples.insert(k.clone(), from_state(rs, &k, source));
    }
    for (k, (i, _)) in &stats_of {
        if !samples.contains_key(k) {
            if !states.is_empty() {
                diags.push(
                    Diagnostic::warning(
                        pis_path.as_str(),
                        None,
                        format!(
                            "instance {} (train trial {}) has stats but no request state",
                            k.0, k.2
                        ),
                    )
                    .with_record(format!("[{i}]")),
                );
            }
            samples.insert(k.clone(), empty_sample(k, format!("{pis_path}#[{i}]")));
        }
    }
    let mut unscored = 0usize;
    for (k, s) in samples.iter_mut() {
        match stats_of.get(k) {
            Some((_, list)) => {
                for st in list {
                    let Some(m) = st.mean else { continue };
                    match st.name.name.as_str() {
                        "num_prompt_tokens" => s.tokens.input = whole(m),
                        "num_output_tokens" => s.tokens.output = whole(m),
                        _ => {}
                    }
                    s.scores.push(ScoreEntry {
                        scorer: st.name.name.clone(),
                        key: None,
                        value: RecordedValue::Float(m),
                        reading: Some(m),
                        answer: None,
                        explanation: None,
                    });
                }
            }
            None => unscored += 1,
        }
    }
    if unscored > 0 && per_instance.is_some() {
        diags.push(Diagnostic::warning(
            pis_path.as_str(),
            None,
            format!("{unscored} request states have no per-instance stats (no scores)"),
        ));
    }

    // Recorded stats and the headlines recomputed from the per-instance ones.
    let stats_path = stats
        .as_ref()
        .map(|p| p.file.path.clone())
        .unwrap_or_default();
    let recorded_stats: Vec<Stat> = stats
        .as_ref()
        .and_then(|p| p.value.as_array())
        .map(|l| l.iter().filter_map(stat).collect())
        .unwrap_or_default();
    // name → trial → (sum, count), over unperturbed instances.
    let mut merged: BTreeMap<&StatName, BTreeMap<u32, (f64, u64, u64)>> = BTreeMap::new();
    for (k, (_, list)) in &stats_of {
        if k.1.is_some() {
            continue;
        }
        for st in list.iter().filter(|s| s.name.perturbation.is_none()) {
            let slot = merged.entry(&st.name).or_default().entry(k.2).or_default();
            if st.count > 0 {
                slot.0 += st.sum.unwrap_or(0.0);
                slot.1 = slot.1.saturating_add(st.count);
            }
            slot.2 += 1;
        }
    }
    let key_of_stat = |n: &StatName| MetricKey {
        group: n.split.clone(),
        scorer: n.name.clone(),
        variant: match (&n.sub_split, &n.perturbation) {
            (None, None) => None,
            (a, b) => Some(
                [a.as_deref(), b.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        },
        metric: "mean".into(),
    };
    let mut recorded = Vec::new();
    let mut headlines = Vec::new();
    let recomputed_only: Vec<Stat> = merged
        .keys()
        .filter(|n| !recorded_stats.iter().any(|r| &r.name == **n))
        .map(|n| Stat {
            name: (*n).clone(),
            sum: None,
            count: 0,
            mean: None,
        })
        .collect();
    for (st, is_recorded) in recorded_stats
        .iter()
        .map(|s| (s, true))
        .chain(recomputed_only.iter().map(|s| (s, false)))
    {
        let key = key_of_stat(&st.name);
        if is_recorded {
            recorded.push(RecordedMetric {
                key: key.clone(),
                value: st.mean,
                stderr: None,
            });
        }
        if st.name.perturbation.is_some() {
            continue;
        }
        let Some(trials) = merged.get(&st.name) else {
            continue;
        };
        let means: Vec<f64> = trials
            .values()
            .filter(|(_, c, _)| *c > 0)
            .map(|(s, c, _)| s / *c as f64)
            .collect();
        let recomputed =
            (!means.is_empty()).then(|| means.iter().sum::<f64>() / means.len() as f64);
        headlines.push(Headline {
            key,
            recorded: st.mean,
            recomputed,
            n: trials.values().map(|t| t.2).sum(),
            note: (trials.len() > 1).then(|| {
                format!(
                    "mean over {} train trials of each trial's mean",
                    trials.len()
                )
            }),
        });
    }
    if stats.is_some() && recorded_stats.is_empty() {
        diags.push(Diagnostic::warning(
            stats_path.as_str(),
            None,
            "stats.json holds no stats",
        ));
    }
    let splits: Vec<&str> = headlines.iter().map(|h| h.key.group.as_str()).collect();
    let split = ["test", "valid"]
        .into_iter()
        .find(|s| splits.contains(s))
        .or_else(|| splits.first().copied())
        .map(str::to_string);
    let primary = split.and_then(|split| {
        MAIN_METRICS.iter().find_map(|m| {
            headlines
                .iter()
                .find(|h| h.key.group == split && h.key.scorer == *m && h.key.variant.is_none())
                .map(|h| h.key.clone())
        })
    });
    if primary.is_none() && !headlines.is_empty() {
        diags.push(Diagnostic::warning(
            first.as_str(),
            None,
            format!(
                "no main metric ({}, …) among the run's stats: its items have no verdict",
                MAIN_METRICS
                    .iter()
                    .take(3)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }

    let spec = run_spec.as_ref().map(|p| &p.value);
    let adapter = spec
        .and_then(|s| s.get("adapter_spec"))
        .or_else(|| state.as_ref().and_then(|p| p.value.get("adapter_spec")));
    let mut config = BTreeMap::new();
    for (section, v) in [
        ("adapter_spec", adapter),
        ("scenario_spec", spec.and_then(|s| s.get("scenario_spec"))),
        ("metric_specs", spec.and_then(|s| s.get("metric_specs"))),
        (
            "data_augmenter_spec",
            spec.and_then(|s| s.get("data_augmenter_spec")),
        ),
        ("scenario", scenario.as_ref().map(|p| &p.value)),
    ] {
        if let Some(v) = v.filter(|v| !v.is_null()) {
            config.insert(section.to_string(), compact(v));
        }
    }
    let name = spec.and_then(|s| s.get("name")).and_then(string);
    let mut run_files: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    run_files.sort();
    let run = EvalLogRun {
        tool: Tool::Helm,
        tool_version: None,
        format_version: None,
        declared_samples: None,
        files: run_files,
        status: Some(if stats.is_some() && per_instance.is_some() {
            "complete".into()
        } else {
            "incomplete".into()
        }),
        task: scenario
            .as_ref()
            .and_then(|p| p.value.get("name"))
            .and_then(string)
            .or_else(|| {
                name.as_ref()
                    .map(|n| n.split(':').next().unwrap_or(n).to_string())
            }),
        task_version: None,
        model: adapter
            .and_then(|a| a.get("model"))
            .or_else(|| adapter.and_then(|a| a.get("model_deployment")))
            .and_then(string),
        dataset: spec
            .and_then(|s| s.get("scenario_spec"))
            .and_then(|s| s.get("class_name"))
            .and_then(string),
        eval_id: name.or_else(|| (!dir.is_empty()).then(|| dir.clone())),
        run_id: None,
        created: None,
        config,
        recorded,
        headlines,
        primary,
        samples: samples.into_values().collect(),
    };
    Ok((run, diags))
}

fn whole(x: f64) -> Option<u64> {
    (x >= 0.0 && x.fract() == 0.0 && x < 9.0e15).then_some(x as u64)
}

fn empty_sample(k: &Key, source: String) -> Sample {
    Sample {
        checks: Default::default(),
        key: SampleKey::Helm {
            instance: k.0.clone(),
            perturbation: k.1.clone(),
            trial: k.2,
        },
        input: None,
        target: Vec::new(),
        output: None,
        scores: Vec::new(),
        tokens: Tokens::default(),
        cost: None,
        latency: None,
        error: None,
        metadata: BTreeMap::new(),
        source,
    }
}

/// A request state as a sample (scores added by the caller).
fn from_state(rs: &Value, k: &Key, source: String) -> Sample {
    let mut s = empty_sample(k, source);
    let inst = rs.get("instance");
    let request = rs.get("request");
    let result = rs.get("result");
    s.input = request
        .and_then(|r| r.get("prompt"))
        .and_then(string)
        .or_else(|| request?.get("messages").and_then(json::user_text))
        .or_else(|| inst?.get("input")?.get("text").and_then(string));
    s.target = inst
        .and_then(|i| i.get("references"))
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .filter(|r| {
                    r.get("tags")
                        .and_then(Value::as_array)
                        .is_some_and(|t| t.iter().any(|t| t.as_str() == Some("correct")))
                })
                .filter_map(|r| r.get("output")?.get("text").and_then(string))
                .collect()
        })
        .unwrap_or_default();
    let completions: Vec<String> = result
        .and_then(|r| r.get("completions"))
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .filter_map(|c| c.get("text").and_then(string))
                .collect()
        })
        .unwrap_or_default();
    let mapping = rs.get("output_mapping").and_then(Value::as_object);
    s.output = completions.first().map(|t| {
        mapping
            .and_then(|m| m.get(t.trim()))
            .and_then(string)
            .unwrap_or_else(|| t.clone())
    });
    s.latency = result.and_then(|r| r.get("request_time")).and_then(finite);
    if result
        .and_then(|r| r.get("success"))
        .and_then(Value::as_bool)
        == Some(false)
    {
        s.error = Some(
            result
                .and_then(|r| r.get("error"))
                .and_then(string)
                .unwrap_or_else(|| "request failed".into()),
        );
    }
    for (k, v) in [
        ("split", inst.and_then(|i| i.get("split"))),
        ("sub_split", inst.and_then(|i| i.get("sub_split"))),
        (
            "instance_input",
            inst.and_then(|i| i.get("input")?.get("text")),
        ),
        ("output_mapping", rs.get("output_mapping")),
    ] {
        if let Some(v) = v.filter(|v| !v.is_null()) {
            s.metadata.insert(k.to_string(), compact(v));
        }
    }
    if completions.len() > 1 {
        s.metadata.insert(
            "completions".into(),
            compact(&Value::from(completions.clone())),
        );
    }
    s
}
