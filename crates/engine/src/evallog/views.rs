//! What the dashboard and the report show of a scored log, computed once here: every score's
//! mean with its standard error and 95% interval, token / cost / latency totals, errors grouped
//! by message, breakdowns of the verdict by any metadata field, and the sample's fields as text.
//! Every loop is bounded by the number of samples (and their scores) read.

use std::collections::{BTreeMap, HashMap};

use super::model::{EvalLogRun, RecordedValue, Sample, SampleKey};
use super::score::ScoredLog;

/// One score (a scorer, or a key of a dict-valued scorer) over the samples.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSummary {
    pub name: String,
    /// Samples carrying this score.
    pub n: u64,
    /// Of those, samples with a reading (not errored, not unscored).
    pub n_scored: u64,
    pub mean: Option<f64>,
    /// Sample standard deviation / √n (Inspect's `stderr()` without clustering).
    pub stderr: Option<f64>,
    /// `mean ± 1.96 × stderr` (normal approximation), kept within the range of the readings
    /// (a 0/1 score's interval never leaves 0–1).
    pub ci95: Option<(f64, f64)>,
    /// Share of the readings that are 1.
    pub share_one: Option<f64>,
}

/// Mean, standard error and 95% interval of `xs` (normal approximation, clamped to the range of
/// `xs`).
pub fn mean_stderr(xs: &[f64]) -> (Option<f64>, Option<f64>, Option<(f64, f64)>) {
    let m = crate::stats::Moments::of(xs);
    let (Some(mean), Some(se)) = (m.mean(), m.stderr()) else {
        return (m.mean(), None, None);
    };
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ci = ((mean - 1.96 * se).max(lo), (mean + 1.96 * se).min(hi));
    (Some(mean), Some(se), Some(ci))
}

/// The name a score is summarised under: per slice where the tool reports it per slice, so no
/// summary pools what the tool keeps apart — lm-eval `task/metric[filter]` (its rows are per
/// task, document and filter), promptfoo `column/score` (a column is a prompt × provider);
/// else the score's own name.
fn summary_name(s: &Sample, score: &str) -> String {
    match &s.key {
        SampleKey::LmEval { task, filter, .. } => format!("{task}/{score}[{filter}]"),
        SampleKey::Promptfoo { .. } => match s
            .metadata
            .get("column")
            .and_then(|c| serde_json::from_str::<String>(c).ok())
        {
            Some(column) => format!("{column}/{score}"),
            None => score.to_string(),
        },
        _ => score.to_string(),
    }
}

/// Every score's summary, in the order the scores first appear; per slice where the tool reports
/// per slice (lm-eval `task/metric[filter]`, promptfoo `column/score`).
pub fn score_summaries(run: &EvalLogRun) -> Vec<ScoreSummary> {
    let mut order: Vec<String> = Vec::new();
    let mut by: HashMap<String, (u64, Vec<f64>)> = HashMap::new();
    for s in &run.samples {
        for e in &s.scores {
            let name = summary_name(s, e.score_name());
            let slot = by.entry(name.clone()).or_insert_with(|| {
                order.push(name);
                (0, Vec::new())
            });
            slot.0 += 1;
            if s.error.is_none() {
                if let Some(r) = e.reading.filter(|r| r.is_finite()) {
                    slot.1.push(r);
                }
            }
        }
    }
    order
        .into_iter()
        .filter_map(|name| {
            let (n, xs) = by.remove(&name)?;
            let (mean, stderr, ci95) = mean_stderr(&xs);
            let ones = xs.iter().filter(|x| **x == 1.0).count();
            Some(ScoreSummary {
                share_one: (!xs.is_empty()).then(|| ones as f64 / xs.len() as f64),
                name,
                n,
                n_scored: xs.len() as u64,
                mean,
                stderr,
                ci95,
            })
        })
        .collect()
}

/// Tokens, cost and latency over the samples, as the tool recorded them (`cost`: the dollars
/// the tool priced; the price table's are [`ScoredLog::billing`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub total: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// Samples with any token count.
    pub n_with_tokens: u64,
    /// Dollars over the priced samples; `None` when none is priced.
    pub cost: Option<f64>,
    pub n_priced: u64,
    pub n_unpriced: u64,
    /// Seconds: mean, median, 95th percentile (nearest rank) and slowest over samples with a
    /// latency.
    pub latency_mean: Option<f64>,
    pub latency_p50: Option<f64>,
    pub latency_p95: Option<f64>,
    pub latency_max: Option<f64>,
    pub n_latency: u64,
}

pub fn usage(run: &EvalLogRun) -> Usage {
    let mut u = Usage::default();
    let mut lat: Vec<f64> = Vec::new();
    for s in &run.samples {
        let t = &s.tokens;
        let add = |acc: &mut u64, x: Option<u64>| *acc = acc.saturating_add(x.unwrap_or(0));
        add(&mut u.input, t.input);
        add(&mut u.output, t.output);
        add(&mut u.reasoning, t.reasoning);
        add(&mut u.cache_read, t.cache_read);
        add(&mut u.cache_write, t.cache_write);
        let total = t.total.or(match (t.input, t.output) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        });
        add(&mut u.total, total);
        if total.is_some() {
            u.n_with_tokens += 1;
        }
        match s.cost.filter(|c| c.is_finite()) {
            Some(c) => {
                u.cost = Some(u.cost.unwrap_or(0.0) + c);
                u.n_priced += 1;
            }
            None => u.n_unpriced += 1,
        }
        if let Some(l) = s.latency.filter(|l| l.is_finite() && *l >= 0.0) {
            lat.push(l);
        }
    }
    lat.sort_by(f64::total_cmp);
    u.n_latency = lat.len() as u64;
    u.latency_mean = (!lat.is_empty()).then(|| lat.iter().sum::<f64>() / lat.len() as f64);
    u.latency_p50 = crate::stats::quantile(&lat, 0.5);
    u.latency_p95 = crate::stats::quantile(&lat, 0.95);
    u.latency_max = lat.last().copied();
    u
}

/// Errors grouped by their first line (cut to 160 characters), most frequent first: (message,
/// samples, an example sample's index).
pub fn errors(run: &EvalLogRun) -> Vec<(String, u64, usize)> {
    let mut by: BTreeMap<String, (u64, usize)> = BTreeMap::new();
    for (i, s) in run.samples.iter().enumerate() {
        if let Some(e) = &s.error {
            let first = e.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let key = crate::diag::shortened(first.trim(), 160).into_owned();
            by.entry(key).or_insert((0, i)).0 += 1;
        }
    }
    let mut out: Vec<(String, u64, usize)> = by.into_iter().map(|(k, (n, i))| (k, n, i)).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// A metadata value as text: a JSON string as its content, anything else as compact JSON.
pub fn meta_text(v: &str) -> String {
    if v.starts_with('"') {
        if let Ok(s) = serde_json::from_str::<String>(v) {
            return s;
        }
    }
    v.to_string()
}

/// The fields a sample can be grouped by: the key's parts that vary (epoch, task, filter,
/// prompt, perturbation) and each metadata field; `(field, value as text)`.
pub fn fields_of(s: &Sample) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = match &s.key {
        SampleKey::Inspect { epoch, .. } => vec![("epoch".into(), epoch.to_string())],
        SampleKey::LmEval { task, filter, .. } => {
            vec![
                ("task".into(), task.clone()),
                ("filter".into(), filter.clone()),
            ]
        }
        SampleKey::Promptfoo { prompt, repeat, .. } => {
            vec![
                ("prompt".into(), prompt.clone()),
                ("repeat".into(), repeat.to_string()),
            ]
        }
        SampleKey::OpenaiEvals { .. } | SampleKey::Evalboard { .. } => Vec::new(),
        SampleKey::Helm {
            perturbation,
            trial,
            ..
        } => vec![
            (
                "perturbation".into(),
                perturbation.clone().unwrap_or_else(|| "none".into()),
            ),
            ("trial".into(), trial.to_string()),
        ],
    };
    out.extend(s.metadata.iter().map(|(k, v)| (k.clone(), meta_text(v))));
    out
}

/// Most distinct values a field may have to be offered as a breakdown.
pub const MAX_GROUPS: usize = 50;

/// Whether a field is the verdict itself, or derived from it (promptfoo's `failureReason`: no
/// failure, a failed assertion, a provider error): grouping the verdict by it is circular, so it
/// is never a breakdown (nor Compare's slice).
fn is_verdict_field(field: &str) -> bool {
    matches!(
        field.to_ascii_lowercase().as_str(),
        "failurereason"
            | "success"
            | "pass"
            | "passed"
            | "correct"
            | "is_correct"
            | "verdict"
            | "score"
            | "grade"
    )
}

/// Whether a field is an identity, not a grouping: named an id or a hash.
fn is_identity(field: &str) -> bool {
    let f = field.to_ascii_lowercase();
    f == "id" || f.ends_with("_id") || f.ends_with("hash") || f.ends_with("_ids")
}

/// Whether a value can name a group: short text, not a JSON object or list.
fn is_group_value(v: &str) -> bool {
    v.chars().count() <= 80 && !v.starts_with('{') && !v.starts_with('[')
}

/// The fields worth a breakdown: at least two distinct values, at most [`MAX_GROUPS`], not one
/// value per sample, not an id or a hash, every value short text (no JSON objects or lists); in
/// the order they first appear.
pub fn breakdown_fields(run: &EvalLogRun) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    let mut values: HashMap<String, std::collections::HashSet<String>> = HashMap::new();
    let mut ruled_out: std::collections::HashSet<String> = Default::default();
    for s in &run.samples {
        for (k, v) in fields_of(s) {
            let k_name = k.clone();
            let set = values.entry(k.clone()).or_insert_with(|| {
                order.push(k);
                Default::default()
            });
            if !is_group_value(&v) {
                ruled_out.insert(k_name);
            } else if set.len() <= MAX_GROUPS {
                // One more than the cap is enough to rule a field out.
                set.insert(v);
            }
        }
    }
    let n = run.samples.len();
    order
        .into_iter()
        .filter(|k| !is_identity(k) && !is_verdict_field(k) && !ruled_out.contains(k))
        .filter(|k| {
            values.get(k).is_some_and(|set| {
                (2..=MAX_GROUPS).contains(&set.len()) && (set.len() < n || n <= 3)
            })
        })
        .collect()
}

/// One value of a breakdown field.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRow {
    pub value: String,
    pub n: u64,
    /// Samples with a verdict, and of them, correct.
    pub n_verdict: u64,
    pub n_correct: u64,
    pub accuracy: Option<f64>,
    pub n_errors: u64,
}

/// The verdict (correct or not) of each sample that has one, by sample index: re-scored under
/// a re-scorer ([`ScoredLog::judged`]), else as recorded.
pub fn verdict_by_sample(s: &ScoredLog) -> HashMap<usize, bool> {
    s.judged()
        .iter()
        .filter_map(|v| Some((v.sample, v.correct?)))
        .collect()
}

/// The samples grouped by `field`'s value (samples without it under "(none)"), by value.
pub fn breakdown(s: &ScoredLog, field: &str) -> Vec<GroupRow> {
    let verdict = verdict_by_sample(s);
    let mut by: BTreeMap<String, GroupRow> = BTreeMap::new();
    for (i, sample) in s.log.run.samples.iter().enumerate() {
        let value = fields_of(sample)
            .into_iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v)
            .unwrap_or_else(|| "(none)".into());
        let g = by.entry(value.clone()).or_insert_with(|| GroupRow {
            value,
            n: 0,
            n_verdict: 0,
            n_correct: 0,
            accuracy: None,
            n_errors: 0,
        });
        g.n += 1;
        if sample.error.is_some() {
            g.n_errors += 1;
        }
        if let Some(c) = verdict.get(&i) {
            g.n_verdict += 1;
            g.n_correct += u64::from(*c);
        }
    }
    by.into_values()
        .map(|mut g| {
            g.accuracy = (g.n_verdict > 0).then(|| g.n_correct as f64 / g.n_verdict as f64);
            g
        })
        .collect()
}

/// Most breakdown tables shown (the dashboard's overview, the report): the first fields of
/// [`breakdown_fields`].
pub const MAX_BREAKDOWNS: usize = 12;

/// The breakdowns the dashboard's overview and the report show: the first [`MAX_BREAKDOWNS`]
/// fields of [`breakdown_fields`], each with its groups ([`breakdown`]).
pub fn breakdowns(s: &ScoredLog) -> Vec<(String, Vec<GroupRow>)> {
    breakdown_fields(&s.log.run)
        .into_iter()
        .take(MAX_BREAKDOWNS)
        .map(|field| {
            let groups = breakdown(s, &field);
            (field, groups)
        })
        .collect()
}

/// A recorded score value as text (`C`, `true`, `0.5`, `NaN`, `[1, 2]`).
pub fn value_text(v: &RecordedValue) -> String {
    match v {
        RecordedValue::Null => "null".into(),
        RecordedValue::Bool(b) => b.to_string(),
        RecordedValue::Int(i) => i.to_string(),
        RecordedValue::Float(f) => crate::pyrepr::py_float_repr(*f),
        RecordedValue::Str(s) => s.clone(),
        RecordedValue::NonFinite(s) => s.clone(),
        RecordedValue::List(xs) => {
            let parts: Vec<String> = xs.iter().take(50).map(value_text).collect();
            let more = if xs.len() > 50 { ", …" } else { "" };
            format!("[{}{more}]", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_stderr_match_inspect() {
        // Inspect's accuracy + stderr on [1, 0, 1, 1]: mean 0.75, stderr sqrt(0.25/4) = 0.25.
        let (m, se, ci) = mean_stderr(&[1.0, 0.0, 1.0, 1.0]);
        assert_eq!(m, Some(0.75));
        assert!((se.unwrap_or(0.0) - 0.25).abs() < 1e-12);
        // 0.75 ± 0.49, kept within the readings' range 0–1.
        let (lo, hi) = ci.unwrap_or((0.0, 0.0));
        assert!((lo - (0.75 - 0.49)).abs() < 1e-12 && hi == 1.0);
        assert_eq!(mean_stderr(&[]), (None, None, None));
        assert_eq!(mean_stderr(&[0.5]), (Some(0.5), None, None));
    }

    #[test]
    fn ids_hashes_and_json_values_are_no_breakdown() {
        assert!(is_identity("doc_hash") && is_identity("id") && is_identity("sample_id"));
        assert!(!is_identity("subject") && !is_identity("idiom"));
        assert!(
            is_group_value("physics") && !is_group_value("{\"a\":1}") && !is_group_value("[1]")
        );
        assert!(!is_group_value(&"x".repeat(81)));
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(crate::stats::quantile(&xs, 0.5), Some(2.0));
        assert_eq!(crate::stats::quantile(&xs, 0.95), Some(4.0));
        assert_eq!(crate::stats::quantile(&[], 0.5), None);
    }

    #[test]
    fn metadata_text_unquotes_strings_only() {
        assert_eq!(meta_text("\"physics\""), "physics");
        assert_eq!(meta_text("3"), "3");
        assert_eq!(meta_text("{\"a\":1}"), "{\"a\":1}");
        assert_eq!(meta_text("\"broken"), "\"broken");
    }
}
