//! Run metadata for comparisons: what each run is (model, checkpoint, dataset, eval set, config,
//! command, status, durations) as text fields, side by side with differences flagged, and the
//! training loss curve (step, loss) a run folder's `metrics.jsonl` carries.
//!
//! Every family fills the same keys where it can ([`evalset_meta`], [`qa_meta`]); a row of
//! [`side_by_side`] exists when at least one run has the field. Values are display text, already
//! formatted (durations as `1 min 26.3 s`, losses with 4 significant digits), so every view shows
//! the same words.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::evalset::{AnswerScorer, EvalRun, TrainingMetricPoint};
use crate::scorers::ScoredQaRun;

/// The fields, in display order: (key, label).
pub const FIELDS: &[(&str, &str)] = &[
    ("model", "Model"),
    ("checkpoint", "Checkpoint"),
    ("dataset", "Dataset"),
    ("eval_set", "Eval set"),
    ("items", "Items"),
    ("config", "Config"),
    ("command", "Command"),
    ("hardware", "Hardware"),
    ("status", "Status"),
    ("started", "Started"),
    ("eval_duration", "Eval duration"),
    ("train_duration", "Training duration"),
    ("training_steps", "Training steps logged"),
    ("final_loss", "Final training loss"),
    ("tokens", "Tokens"),
    ("scorer", "Scorer"),
];

/// One metadata value of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaField {
    /// One of [`FIELDS`]' keys.
    pub key: String,
    pub value: String,
}

/// What a run is, and its training loss curve.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// In [`FIELDS`] order; absent fields are left out.
    pub fields: Vec<MetaField>,
    /// `(step, loss)` in step order; empty when the run carries no training metrics.
    pub loss_curve: Vec<(u64, f64)>,
}

impl RunMeta {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.key == key)
            .map(|f| f.value.as_str())
    }

    /// Sets `key` when `value` is non-blank (trimmed); fields stay in [`FIELDS`] order.
    fn put(&mut self, key: &str, value: Option<String>) {
        let Some(v) = value
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
        else {
            return;
        };
        self.fields.retain(|f| f.key != key);
        self.fields.push(MetaField {
            key: key.to_string(),
            value: v,
        });
        self.fields.sort_by_key(|f| field_rank(&f.key));
    }
}

fn field_rank(key: &str) -> usize {
    FIELDS
        .iter()
        .position(|(k, _)| *k == key)
        .unwrap_or(FIELDS.len())
}

/// The label of a field key (the key itself when unknown).
pub fn label(key: &str) -> &str {
    FIELDS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, l)| l)
}

/// One row of the side-by-side table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaRow {
    pub key: String,
    pub label: String,
    /// One value per run, in the runs' order; `None` where the run does not record it.
    pub values: Vec<Option<String>>,
    /// Not every run has the same value (a missing value differs from a present one).
    pub differs: bool,
}

/// Rows for every field at least one run has, in [`FIELDS`] order.
pub fn side_by_side(runs: &[&RunMeta]) -> Vec<MetaRow> {
    FIELDS
        .iter()
        .filter_map(|(key, label)| {
            let values: Vec<Option<String>> = runs
                .iter()
                .map(|m| m.get(key).map(str::to_string))
                .collect();
            if values.iter().all(Option::is_none) {
                return None;
            }
            let differs = values.windows(2).any(|w| w.first() != w.get(1));
            Some(MetaRow {
                key: (*key).to_string(),
                label: (*label).to_string(),
                values,
                differs,
            })
        })
        .collect()
}

/// A duration for people: `42.0 s`, `1 min 26.3 s`, `2 h 05 min`.
pub fn fmt_duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "n/a".into();
    }
    if secs < 60.0 {
        return format!("{secs:.1} s");
    }
    if secs < 3600.0 {
        let m = (secs / 60.0).floor();
        return format!("{m:.0} min {:.1} s", secs - m * 60.0);
    }
    let total_min = (secs / 60.0).round();
    let h = (total_min / 60.0).floor();
    format!("{h:.0} h {:02.0} min", total_min - h * 60.0)
}

/// A loss with four significant digits (`1.022`, `0.8573`, `0.0001235`).
pub fn fmt_loss(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    // Decimals for 4 significant digits, found by exact scaling (no log10: its last bits
    // differ between libms, and this text must be the same natively and in wasm).
    let (mut t, mut digits) = (x.abs(), 3usize);
    while t >= 10.0 && digits > 0 {
        t /= 10.0;
        digits -= 1;
    }
    while t < 1.0 && digits < 12 {
        t *= 10.0;
        digits += 1;
    }
    format!("{x:.digits$}")
}

/// A count with thousands separators: `1,234,567`.
pub fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", fmt_int(n as u64), if n == 1 { one } else { many })
}

/// The file name of a recorded path (`/` or `\` separated).
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or(path)
}

/// `(step, loss)` of every metrics line with a step and a loss (`loss`, else `metrics.loss`,
/// else `metrics.train_loss`), in step order.
pub fn loss_curve(points: &[TrainingMetricPoint]) -> Vec<(u64, f64)> {
    let mut out: Vec<(u64, f64)> = points
        .iter()
        .filter_map(|p| {
            let loss = p.loss.or_else(|| {
                ["loss", "train_loss"]
                    .iter()
                    .find_map(|k| p.metrics.iter().find(|(m, _)| m == k).map(|(_, v)| *v))
            })?;
            Some((p.step?, loss)).filter(|(_, l)| l.is_finite())
        })
        .collect();
    out.sort_by_key(|p| p.0);
    out
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_str)
}

/// Metadata of an eval-set run: its manifest, the eval-summary entry that scored it, its eval
/// set, predictions and training metrics.
pub fn evalset_meta(run: &EvalRun, scorer: AnswerScorer) -> RunMeta {
    let mut m = RunMeta::default();
    let man = run.manifest.as_ref();
    let entry = run.original_entry();
    // The entry's JSON in its summary (checkpoint path, start time), when it has one.
    let entry_json: Option<&Value> = entry.and_then(|e| {
        run.summaries.iter().find_map(|s| {
            s.original
                .get("results")
                .and_then(|r| r.get(&e.name))
                .or_else(|| s.entries.iter().any(|x| x == e).then_some(&s.original))
        })
    });
    m.put("model", run.model.clone());
    m.put(
        "checkpoint",
        entry_json
            .and_then(|j| str_at(j, &["checkpoint_path"]).or(str_at(j, &["checkpoint_name"])))
            .map(str::to_string),
    );
    m.put("dataset", man.and_then(|x| x.dataset.clone()));
    let recorded_set = man
        .and_then(|x| x.eval_set.as_deref())
        .or_else(|| entry_json.and_then(|j| str_at(j, &["eval_set"])))
        .or_else(|| {
            run.summaries
                .iter()
                .find(|s| s.entries.iter().any(|x| Some(x) == entry))
                .and_then(|s| s.eval_set.as_deref())
        });
    let folder_set = run.items.first().map(|i| &*i.source.file);
    m.put(
        "eval_set",
        recorded_set
            .or(folder_set.filter(|f| !f.is_empty()))
            .map(|p| base_name(p).to_string()),
    );
    if !run.items.is_empty() || !run.predictions.is_empty() {
        m.put(
            "items",
            Some(format!(
                "{} · {}",
                plural(run.items.len(), "item", "items"),
                plural(run.predictions.len(), "prediction", "predictions")
            )),
        );
    }
    m.put("config", man.and_then(|x| x.config_path.clone()));
    m.put("command", man.and_then(|x| x.command.clone()));
    m.put(
        "hardware",
        man.and_then(|x| {
            let h = x.original.get("hardware")?;
            ["accelerator", "device", "gpu_model"]
                .iter()
                .find_map(|k| h.get(k).and_then(Value::as_str))
                .map(str::to_string)
        }),
    );
    let status = man.and_then(|x| x.status.clone()).or_else(|| {
        entry
            .and_then(|e| e.error.as_ref())
            .map(|e| format!("error: {e}"))
    });
    m.put("status", status);
    m.put(
        "started",
        entry_json
            .and_then(|j| str_at(j, &["start_time"]))
            .map(str::to_string),
    );
    let item_ms: Vec<u64> = run
        .predictions
        .iter()
        .filter_map(|p| p.eval_time_ms)
        .collect();
    let eval_secs = entry
        .and_then(|e| e.runtime_seconds)
        .map(fmt_duration)
        .or_else(|| {
            (!item_ms.is_empty()).then(|| {
                let total: u64 = item_ms.iter().sum();
                format!(
                    "{} (sum of item times)",
                    fmt_duration(total as f64 / 1000.0)
                )
            })
        });
    m.put("eval_duration", eval_secs);
    let last_metric = |key: &str| {
        run.training_metrics
            .iter()
            .rev()
            .find_map(|p| p.metrics.iter().find(|(k, _)| k == key).map(|(_, v)| *v))
    };
    m.put(
        "train_duration",
        last_metric("train_runtime").map(fmt_duration),
    );
    m.loss_curve = loss_curve(&run.training_metrics);
    if let (Some(&first), Some(&last)) = (m.loss_curve.first(), m.loss_curve.last()) {
        let n = m.loss_curve.len() as u64;
        let steps = if n == 1 {
            format!("1 point (step {})", fmt_int(last.0))
        } else {
            format!(
                "{} points (steps {}–{})",
                fmt_int(n),
                fmt_int(first.0),
                fmt_int(last.0)
            )
        };
        let epoch = last_metric("epoch").map(|e| format!(", epoch {e}"));
        m.put("training_steps", Some(steps + &epoch.unwrap_or_default()));
        m.put("final_loss", Some(fmt_loss(last.1)));
    }
    m.put("scorer", Some(scorer.id().to_string()));
    m
}

/// Metadata of a numeric-QA run: its models, dataset, size, failed conversations, model time
/// and tokens, and what the original `metadata.json` / `aggregate_metrics.json` record.
pub fn qa_meta(s: &ScoredQaRun) -> RunMeta {
    let mut m = RunMeta::default();
    let run = &s.run;
    let original = |name: &str| -> Option<&Value> {
        run.original
            .json
            .iter()
            .find(|(p, _)| p.ends_with(name))
            .map(|(_, v)| v)
    };
    let meta_json = original("metadata.json");
    let agg_json = original("aggregate_metrics.json");
    let mut models: Vec<&str> = run
        .conversations
        .iter()
        .filter_map(|c| c.model.as_deref())
        .collect();
    models.sort_unstable();
    models.dedup();
    let model = if models.is_empty() {
        meta_json
            .or(agg_json)
            .and_then(|j| str_at(j, &["model"]))
            .map(str::to_string)
    } else {
        Some(models.join(", "))
    };
    m.put("model", model);
    let dataset_file = run
        .files
        .iter()
        .find(|f| f.format.as_deref() == Some("convfinqa-dataset"))
        .map(|f| base_name(&f.path).to_string());
    m.put(
        "dataset",
        meta_json
            .and_then(|j| str_at(j, &["dataset_path"]))
            .map(|p| base_name(p).to_string())
            .or(dataset_file),
    );
    let n_turns: usize = run.conversations.iter().map(|c| c.turns.len()).sum();
    m.put(
        "items",
        Some(format!(
            "{} · {}",
            plural(run.conversations.len(), "conversation", "conversations"),
            plural(n_turns, "turn", "turns")
        )),
    );
    let failed: Vec<&str> = run
        .conversations
        .iter()
        .filter_map(|c| c.failure.as_deref())
        .collect();
    let status = match failed.as_slice() {
        [] => "no failed conversations".to_string(),
        [first, ..] => format!(
            "{} of {} conversations failed: {first}",
            failed.len(),
            run.conversations.len()
        ),
    };
    m.put("status", Some(status));
    m.put(
        "started",
        meta_json
            .and_then(|j| str_at(j, &["timestamp"]))
            .map(str::to_string),
    );
    let latencies: Vec<f64> = run
        .conversations
        .iter()
        .flat_map(|c| c.turns.iter().filter_map(|t| t.latency_ms))
        .filter(|x| x.is_finite() && *x >= 0.0)
        .collect();
    if !latencies.is_empty() {
        let total: f64 = latencies.iter().sum();
        m.put(
            "eval_duration",
            Some(format!(
                "{} (model time, summed over turns)",
                fmt_duration(total / 1000.0)
            )),
        );
    }
    let tokens: u64 = run
        .conversations
        .iter()
        .flat_map(|c| c.turns.iter().filter_map(|t| t.tokens.total()))
        .sum();
    if tokens > 0 {
        m.put("tokens", Some(fmt_int(tokens)));
    }
    m.put(
        "scorer",
        Some(format!("profile {}", s.config.profile.name())),
    );
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evalset::read_evalset_run;
    use crate::InputFile;

    #[test]
    fn durations_and_losses_read_well() {
        assert_eq!(fmt_duration(42.0), "42.0 s");
        assert_eq!(fmt_duration(86.299579), "1 min 26.3 s");
        assert_eq!(fmt_duration(7500.0), "2 h 05 min");
        assert_eq!(fmt_duration(f64::NAN), "n/a");
        assert_eq!(fmt_loss(1.0217112769251284), "1.022");
        assert_eq!(fmt_loss(0.8573377161210286), "0.8573");
        assert_eq!(fmt_loss(12.5), "12.50");
        assert_eq!(fmt_loss(0.0), "0");
        assert_eq!(fmt_int(1234567), "1,234,567");
        assert_eq!(base_name("C:\\a\\b\\eval_v2.jsonl"), "eval_v2.jsonl");
        assert_eq!(base_name("x/y/"), "y");
    }

    #[test]
    fn loss_curve_falls_back_to_metrics_and_skips_stepless_lines() {
        let p =
            |step: Option<u64>, loss: Option<f64>, metrics: &[(&str, f64)]| TrainingMetricPoint {
                step,
                loss,
                metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                ..Default::default()
            };
        let pts = [
            p(Some(20), Some(0.5), &[]),
            p(Some(10), None, &[("train_loss", 0.9)]),
            p(None, Some(0.1), &[]),
            p(Some(30), None, &[("epoch", 1.0)]),
        ];
        assert_eq!(loss_curve(&pts), [(10, 0.9), (20, 0.5)]);
    }

    fn files(list: &[(&str, &str)]) -> Vec<InputFile> {
        list.iter().map(|(p, t)| InputFile::new(*p, *t)).collect()
    }

    #[test]
    fn evalset_meta_reads_manifest_summary_and_metrics() {
        let run = read_evalset_run(
            &files(&[
                (
                    "r/eval_v2.jsonl",
                    r#"{"id":"a","prompt":"p","expected_answer":"1"}"#,
                ),
                ("r/x_predictions.jsonl", r#"{"id":"a","prediction":"1"}"#),
                (
                    "r/manifest.json",
                    r#"{"run_version":"v1","model_id":"google/gemma-2b","dataset":"dev-reasoning-v2","eval_set":"training/evalsets/eval_v2.jsonl","config_path":"c.yaml","command":"python train.py","status":"completed","hardware":{"accelerator":"TPU v5e-8"}}"#,
                ),
                (
                    "r/metrics.jsonl",
                    "{\"step\": 1, \"loss\": 2.0}\n{\"step\": 2, \"loss\": 1.5, \"metrics\": {\"train_runtime\": 73.222, \"epoch\": 1.0}}\n",
                ),
            ]),
            None,
        );
        let m = evalset_meta(&run, AnswerScorer::V1);
        let got: Vec<(&str, &str)> = m
            .fields
            .iter()
            .map(|f| (f.key.as_str(), f.value.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("model", "google/gemma-2b"),
                ("dataset", "dev-reasoning-v2"),
                ("eval_set", "eval_v2.jsonl"),
                ("items", "1 item · 1 prediction"),
                ("config", "c.yaml"),
                ("command", "python train.py"),
                ("hardware", "TPU v5e-8"),
                ("status", "completed"),
                ("train_duration", "1 min 13.2 s"),
                ("training_steps", "2 points (steps 1–2), epoch 1"),
                ("final_loss", "1.500"),
                ("scorer", "answer_correctness@v1"),
            ]
        );
        assert_eq!(m.loss_curve, [(1, 2.0), (2, 1.5)]);
    }

    #[test]
    fn side_by_side_flags_differences_and_missing_values() {
        let meta = |kv: &[(&str, &str)]| {
            let mut m = RunMeta::default();
            for (k, v) in kv {
                m.put(k, Some(v.to_string()));
            }
            m
        };
        let a = meta(&[("status", "completed"), ("model", "gemma")]);
        let b = meta(&[("model", "gemma"), ("status", "failed")]);
        let c = meta(&[("model", "gemma"), ("status", "completed"), ("config", "x")]);
        let rows = side_by_side(&[&a, &b, &c]);
        let got: Vec<(&str, bool)> = rows.iter().map(|r| (r.key.as_str(), r.differs)).collect();
        assert_eq!(got, [("model", false), ("config", true), ("status", true)]);
        assert_eq!(rows[1].values, [None, None, Some("x".to_string())]);
        assert_eq!(rows[0].label, "Model");
        assert!(side_by_side(&[]).is_empty());
    }
}
