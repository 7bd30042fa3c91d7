//! The run table's types: what the registry ([`crate::run::RunRef`]) answers about any run of
//! any family, so that cross-run consumers (many-runs comparison, the lake, queries, live
//! watch) hold plain values and link no family. Imports no family.

use serde::{Deserialize, Serialize};

use crate::stats::Rate;

/// How a compared metric's values read: a 0–1 rate (shown as a percentage, its change in
/// points), a score on its own scale, a count (tokens), dollars or seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    #[default]
    Rate,
    Score,
    Count,
    Usd,
    Seconds,
}

/// One of a run's headline metrics, typed: [`crate::run::RunRef::metrics`] lists them, the
/// first being the number the run is listed by everywhere (the CLI, the dashboard's run list,
/// the report's Runs table and series).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricValue {
    /// Its key in the run's statistics (`numerical_accuracy`, `primary_score`, …).
    pub key: String,
    pub label: String,
    pub unit: Unit,
    pub value: Option<f64>,
    /// The counts behind a rate, when the value is one (`correct` of `n`), so rates of shards
    /// merge and a CI can be computed from them.
    pub counts: Option<Rate>,
}

impl MetricValue {
    /// A metric of `unit` with no counts behind it.
    pub fn new(key: &str, label: &str, unit: Unit, value: Option<f64>) -> MetricValue {
        MetricValue {
            key: key.into(),
            label: label.into(),
            unit,
            value,
            counts: None,
        }
    }

    /// A rate with the counts behind it.
    pub fn rate(key: &str, label: &str, counts: Rate) -> MetricValue {
        MetricValue {
            key: key.into(),
            label: label.into(),
            unit: Unit::Rate,
            value: counts.value(),
            counts: Some(counts),
        }
    }
}
