//! Headline metrics: the numbers a run is summed up by, one table per family (and profile),
//! each entry naming the key it has in the run's statistics, a label, how it prints and what it
//! means. The CLI's summary table, the report's cards and `docs/scoring.md` read the tables;
//! [`crate::run::RunRef::headline_metrics`] picks a run's, [`crate::run::lists::headline_tables`]
//! lists every family's (here only the types and the rendering, so that the families can name
//! [`Metric`] without this module naming the families back).

use serde_json::Value;

use crate::family::Family;
use crate::scorer_table::md_cell;

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

/// One family's headline table: under a profile when the family's tables differ by profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub family: Family,
    /// The profile the table belongs to (`doc`, `financial-agent-2`); `None` when the family has
    /// one table for every profile.
    pub profile: Option<&'static str>,
    pub metrics: &'static [Metric],
}

/// The headline tables of docs/scoring.md: one `###` heading and key | label | definition table
/// per family (and profile) of `tables` ([`crate::run::lists::headline_tables`]).
pub fn markdown(tables: &[Table]) -> String {
    let mut out = String::new();
    for t in tables {
        if !out.is_empty() {
            out.push('\n');
        }
        match t.profile {
            Some(p) => out.push_str(&format!("### {} (`{p}` profile)\n\n", t.family.label())),
            None => out.push_str(&format!("### {}\n\n", t.family.label())),
        }
        out.push_str("| key | label | definition |\n|---|---|---|\n");
        for m in t.metrics {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                m.key,
                md_cell(m.label),
                md_cell(m.definition)
            ));
        }
    }
    out
}
