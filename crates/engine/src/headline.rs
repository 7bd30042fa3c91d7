//! Headline metrics: the numbers a run is summed up by, one table per family (and profile),
//! each entry naming the key it has in the run's statistics, a label, how it prints and what it
//! means. The CLI's summary table, the report's cards and `docs/scoring.md` read the tables;
//! [`crate::run::RunRef::headline_metrics`] picks a run's.

use serde_json::Value;

/// How a metric prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// A 0–1 rate as a percentage with one decimal (`61.5%`).
    Percent,
    /// A number with this many decimals.
    Decimals(u8),
    /// The statistics value as recorded (counts, verdict words).
    AsRecorded,
}

/// One headline metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// Its key in the run's statistics (statistics.json, scorecard.json, metrics summary).
    pub key: &'static str,
    pub label: &'static str,
    pub shown: Shown,
    /// What it measures, in one sentence.
    pub definition: &'static str,
}

impl Metric {
    /// The metric's value in `statistics` (an object), printed as [`Metric::shown`] says;
    /// `n/a` when absent or null.
    pub fn show(&self, statistics: &Value) -> String {
        let v = statistics.get(self.key).filter(|v| !v.is_null());
        match (self.shown, v) {
            (_, None) => "n/a".into(),
            (Shown::Percent, Some(v)) => v
                .as_f64()
                .map(|x| format!("{:.1}%", x * 100.0))
                .unwrap_or_else(|| v.to_string()),
            (Shown::Decimals(d), Some(v)) => v
                .as_f64()
                .map(|x| format!("{x:.*}", usize::from(d)))
                .unwrap_or_else(|| v.to_string()),
            (Shown::AsRecorded, Some(v)) => v.to_string(),
        }
    }
}
