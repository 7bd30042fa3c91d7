//! What an eval-set run is, for comparisons: its manifest, the eval-summary entry that scored it,
//! its eval set, predictions and training metrics, and the training loss curve.

use serde_json::Value;

use crate::evalset::{EvalRun, TrainingMetricPoint};
use crate::run_meta::{base_name, fmt_duration, fmt_int, fmt_loss, plural, str_at, RunMeta};

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

/// Metadata of an eval-set run: its manifest, the eval-summary entry that scored it, its eval
/// set, predictions and training metrics, and the id of the `scorer` that scores it
/// ([`crate::evalset::AnswerScorer::id`]).
pub fn evalset_meta(run: &EvalRun, scorer: &str) -> RunMeta {
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
    // The items' own file; not a predictions file that carried them (each run has its own,
    // so two runs of one eval set would read as two datasets).
    let folder_set = run
        .items
        .first()
        .map(|i| &*i.source.file)
        .filter(|f| !run.predictions.iter().any(|p| &*p.source.file == *f));
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
    m.put("scorer", Some(scorer.to_string()));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evalset::read_evalset_run;
    use crate::InputFile;

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
        let m = evalset_meta(&run, crate::evalset::AnswerScorer::V1.id());
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
}
