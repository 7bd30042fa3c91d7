//! Every other number a promptfoo export records, recomputed from its rows the way promptfoo's
//! evaluator counts them (`src/evaluator.ts`, `src/util/tokenUsageUtils.ts`):
//!
//! - `results.stats` (the whole eval): `successes` (rows with `success`), `errors` (the others
//!   with `failureReason` 2), `failures` (the rest); `tokenUsage`, the sum of each row's token
//!   usage (the row's own `tokenUsage`, written since 0.119, but for its `assertions` part, else
//!   its `response.tokenUsage`; every numeric field, nested ones by their dotted path;
//!   `numRequests` counts 1 for a usage without it), and its `assertions`, Σ the graders'
//!   `gradingResult.tokensUsed` (promptfoo adds it for model-graded assertions; the others
//!   record zero usage). `durationMs` and the other
//!   wall-clock numbers are not recomputed: the rows do not hold them.
//! - `results.prompts[i].metrics` (a column): `testPassCount`, `testFailCount`, `testErrorCount`
//!   as above; `assertPassCount` / `assertFailCount`, the passing / failing component results of
//!   the rows' grading; `totalLatencyMs`, Σ `latencyMs`; `tokenUsage`, Σ `response.tokenUsage`
//!   (`numRequests` 1 for a response without it) with `assertions` = Σ
//!   `gradingResult.tokensUsed`; `namedScoresCount[m]`, per row with the named score, the
//!   component results whose assertion's metric is `m` (1 when none is); `namedScoreWeights[m]`,
//!   Σ the grading's `namedScoreWeights[m]`. (`score`, `cost` and `namedScores` are the reader's
//!   own headlines.)

use std::collections::BTreeMap;

use serde_json::Value;

use super::json::uint;
use super::leaves::{add_leaves, numeric_leaves};
use super::model::{Headline, MetricKey, RecordedMetric};

/// Why a number of a column (or of an eval) none of whose rows was read is not recomputed.
pub(super) const NO_ROWS: &str = "no sample of it (no result row) was read";

/// What one row adds to the counts.
#[derive(Debug, Default, Clone)]
pub(super) struct RowCounts {
    /// The row's token usage as `results.stats` sums it (dotted paths).
    stats_usage: BTreeMap<String, f64>,
    /// The response's token usage as a column's `metrics.tokenUsage` sums it.
    column_usage: BTreeMap<String, f64>,
    assert_pass: u64,
    assert_fail: u64,
    latency_ms: f64,
    /// `namedScoresCount` and `namedScoreWeights` of this row, by dotted path.
    named: BTreeMap<String, f64>,
}

/// Σ of the numeric fields of a token usage, with promptfoo's request count: a usage without
/// `numRequests` is one request, and so is a response without any usage.
fn usage_sums(out: &mut BTreeMap<String, f64>, usage: Option<&Value>, response: bool) {
    match usage.filter(|u| u.is_object()) {
        Some(u) => {
            add_leaves(out, "", u);
            if u.get("numRequests").and_then(uint).is_none() {
                *out.entry("numRequests".into()).or_default() += 1.0;
            }
        }
        None if response => *out.entry("numRequests".into()).or_default() += 1.0,
        None => {}
    }
}

impl RowCounts {
    /// The counts of result row `r`.
    pub(super) fn of(r: &Value) -> RowCounts {
        let mut c = RowCounts::default();
        let response = r.get("response").filter(|x| x.is_object());
        let response_usage = response.and_then(|x| x.get("tokenUsage"));
        let grading = r.get("gradingResult").filter(|g| g.is_object());
        let graded_usage = grading
            .and_then(|g| g.get("tokensUsed"))
            .filter(|u| u.is_object());
        match r.get("tokenUsage").filter(|u| u.is_object()) {
            // Since 0.119 a row carries its own usage; its `assertions` part is not what
            // `stats` sums (that is the graders' `tokensUsed`, below).
            Some(own) => {
                usage_sums(&mut c.stats_usage, Some(own), true);
                c.stats_usage.retain(|k, _| !k.starts_with("assertions."));
            }
            None => usage_sums(&mut c.stats_usage, response_usage, response.is_some()),
        }
        if let Some(g) = graded_usage {
            add_leaves(&mut c.stats_usage, "assertions", g);
        }
        usage_sums(&mut c.column_usage, response_usage, response.is_some());
        if let Some(g) = graded_usage {
            add_leaves(&mut c.column_usage, "assertions", g);
        }
        let components: Vec<&Value> = grading
            .and_then(|g| g.get("componentResults"))
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        for comp in &components {
            match comp.get("pass") {
                Some(Value::Bool(true)) => c.assert_pass += 1,
                _ => c.assert_fail += 1,
            }
        }
        c.latency_ms = r
            .get("latencyMs")
            .and_then(super::json::finite)
            .unwrap_or(0.0);
        if let Some(named) = r.get("namedScores").and_then(Value::as_object) {
            for m in named.keys() {
                let contributing = components
                    .iter()
                    .filter(|comp| {
                        comp.get("assertion")
                            .and_then(|a| a.get("metric"))
                            .and_then(Value::as_str)
                            == Some(m.as_str())
                    })
                    .count();
                *c.named.entry(format!("namedScoresCount.{m}")).or_default() +=
                    contributing.max(1) as f64;
            }
        }
        if let Some(w) = grading.and_then(|g| g.get("namedScoreWeights")) {
            add_leaves(&mut c.named, "namedScoreWeights", w);
        }
        c
    }
}

/// Rows counted the way promptfoo counts them, for the whole eval or one column.
#[derive(Debug, Default, Clone)]
pub(super) struct Counts {
    n: u64,
    successes: u64,
    failures: u64,
    errors: u64,
    /// The rows' counts, summed.
    sums: RowCounts,
}

impl Counts {
    /// Adds a row: `success`, `is_error` (a provider error) and its counts.
    pub(super) fn add(&mut self, success: bool, is_error: bool, r: &RowCounts) {
        self.n += 1;
        if success {
            self.successes += 1;
        } else if is_error {
            self.errors += 1;
        } else {
            self.failures += 1;
        }
        let add = |to: &mut BTreeMap<String, f64>, from: &BTreeMap<String, f64>| {
            for (k, v) in from {
                *to.entry(k.clone()).or_default() += v;
            }
        };
        let sums = &mut self.sums;
        add(&mut sums.stats_usage, &r.stats_usage);
        add(&mut sums.column_usage, &r.column_usage);
        add(&mut sums.named, &r.named);
        sums.assert_pass += r.assert_pass;
        sums.assert_fail += r.assert_fail;
        sums.latency_ms += r.latency_ms;
    }

    /// The whole eval's `results.stats` numbers beside their recomputation (the pass rate is
    /// the reader's headline).
    pub(super) fn stats_headlines(&self, stats: &Value) -> Vec<(MetricKey, Headline)> {
        self.headlines(stats, "", "stats", |path| match path {
            "successes" => Some(self.successes as f64),
            "failures" => Some(self.failures as f64),
            "errors" => Some(self.errors as f64),
            p => p
                .strip_prefix("tokenUsage.")
                .map(|u| self.sums.stats_usage.get(u).copied().unwrap_or(0.0)),
        })
    }

    /// A column's `metrics` numbers beside their recomputation, but for the ones the reader
    /// already heads (`score`, `cost`, `namedScores`).
    pub(super) fn column_headlines(
        &self,
        label: &str,
        metrics: &Value,
    ) -> Vec<(MetricKey, Headline)> {
        self.headlines(metrics, label, "metrics", |path| match path {
            "testPassCount" => Some(self.successes as f64),
            "testFailCount" => Some(self.failures as f64),
            "testErrorCount" => Some(self.errors as f64),
            "assertPassCount" => Some(self.sums.assert_pass as f64),
            "assertFailCount" => Some(self.sums.assert_fail as f64),
            "totalLatencyMs" => Some(self.sums.latency_ms),
            p if p.starts_with("namedScoresCount.") || p.starts_with("namedScoreWeights.") => {
                Some(self.sums.named.get(p).copied().unwrap_or(0.0))
            }
            p => p
                .strip_prefix("tokenUsage.")
                .map(|u| self.sums.column_usage.get(u).copied().unwrap_or(0.0)),
        })
    }

    fn headlines(
        &self,
        recorded: &Value,
        group: &str,
        scorer: &str,
        recompute: impl Fn(&str) -> Option<f64>,
    ) -> Vec<(MetricKey, Headline)> {
        numeric_leaves(recorded)
            .into_iter()
            .filter(|(path, _)| {
                !(path == "score" || path == "cost" || path.starts_with("namedScores."))
            })
            .map(|(path, value)| {
                let recomputed = if self.n == 0 { None } else { recompute(&path) };
                let note = recomputed.is_none().then(|| {
                    if self.n == 0 {
                        NO_ROWS.to_string()
                    } else if path.ends_with("DurationMs") || path == "durationMs" {
                        "wall-clock time of the whole eval, which the rows do not \
                         hold"
                            .to_string()
                    } else {
                        "promptfoo computes it outside the result rows".to_string()
                    }
                });
                let key = MetricKey {
                    group: group.to_string(),
                    scorer: scorer.to_string(),
                    variant: None,
                    metric: path,
                };
                (
                    key.clone(),
                    Headline {
                        key,
                        recorded: value,
                        recomputed,
                        n: self.n,
                        note,
                    },
                )
            })
            .collect()
    }
}

/// Appends `rows` as recorded metrics and headlines.
pub(super) fn push(
    rows: Vec<(MetricKey, Headline)>,
    recorded: &mut Vec<RecordedMetric>,
    headlines: &mut Vec<Headline>,
) {
    for (key, h) in rows {
        recorded.push(RecordedMetric {
            key,
            value: h.recorded,
            stderr: None,
        });
        headlines.push(h);
    }
}
