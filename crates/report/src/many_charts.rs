//! The many-runs charts ([`evalboard_engine::compare::many`]): every run's change against its
//! baseline with the bootstrap 95% CI, and the cost–quality frontier of the priced runs. The
//! report's many-runs section and the dashboard's many-runs view draw the same charts.

use evalboard_engine::compare::many::{ManyComparison, RunRow};
use evalboard_engine::run_table::Unit;

use crate::charts::{
    every_interval_holds_zero, interval_chart, named, opts, scatter_chart, Interval, NamedChart,
    ScatterPoint, Theme,
};

/// The intervals of [`delta_chart`]: each compared run's accuracy change over its paired
/// items with its paired-bootstrap 95% CI (runs with no paired numbers are left out).
pub fn delta_intervals(c: &ManyComparison) -> Vec<Interval> {
    c.runs
        .iter()
        .filter(|r| !r.is_baseline && r.delta.is_some())
        .map(|r| Interval {
            label: r.label.clone(),
            value: r.delta,
            low: r.bootstrap_ci.as_ref().and_then(|b| b.low),
            high: r.bootstrap_ci.as_ref().and_then(|b| b.high),
        })
        .collect()
}

/// Whether every run's CI includes zero: no run differs from its baseline beyond noise by the
/// bootstrap (`false` when no interval is drawn).
pub fn every_ci_holds_zero(c: &ManyComparison) -> bool {
    every_interval_holds_zero(&delta_intervals(c))
}

/// Key `many_delta`: every compared run's change in accuracy against its baseline, points, with
/// the paired-bootstrap 95% CI; `None` when no run has paired numbers.
pub fn delta_chart(c: &ManyComparison, theme: Theme) -> Option<NamedChart> {
    let rows = delta_intervals(c);
    if rows.is_empty() {
        return None;
    }
    let title = "Change against the baseline (95% bootstrap CI)";
    Some(named(
        "many_delta",
        title,
        interval_chart(
            title,
            "Accuracy change (paired items)",
            &rows,
            &opts(theme, true),
        ),
    ))
}

/// Key `many_frontier[_TASK]`: one chart per baseline (task) with a priced run
/// ([`frontier_chart`]), in the baselines' order.
pub fn frontier_charts(c: &ManyComparison, theme: Theme) -> Vec<NamedChart> {
    c.baseline
        .iter()
        .filter_map(|b| frontier_chart(c, b, theme))
        .collect()
}

/// The cost–quality chart of baseline `baseline` (a [`ManyComparison::baseline`] label) and
/// the runs compared with it: each priced run at (cost per correct item, headline), the
/// frontier's runs joined, the dominated ones faded; `None` without a priced run. Unpriced runs
/// are not drawn (the caller lists them beside).
pub fn frontier_chart(c: &ManyComparison, baseline: &str, theme: Theme) -> Option<NamedChart> {
    let several = c.baseline.len() > 1;
    let rows: Vec<&RunRow> = c
        .runs
        .iter()
        .filter(|r| {
            (r.is_baseline && r.label == baseline) || r.baseline.as_deref() == Some(baseline)
        })
        .collect();
    let points: Vec<ScatterPoint> = rows
        .iter()
        .filter_map(|r| {
            Some(ScatterPoint {
                label: r.label.clone(),
                x: r.cost_per_correct_usd?,
                y: r.headline?,
                highlighted: r.on_frontier == Some(true),
            })
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let task = rows.iter().find_map(|r| r.task.clone());
    let (title, key) = match (&task, several) {
        (Some(t), true) => (
            format!("Cost and quality: {t}"),
            format!("many_frontier_{t}"),
        ),
        _ => ("Cost and quality".to_string(), "many_frontier".to_string()),
    };
    let percent = rows.first().is_some_and(|r| r.headline_unit == Unit::Rate);
    let label = rows
        .first()
        .map(|r| r.headline_label.clone())
        .unwrap_or_default();
    Some(named(
        &key,
        &title,
        scatter_chart(
            &title,
            "Cost per correct item (USD)",
            &label,
            ("On the frontier", "Dominated"),
            &points,
            &opts(theme, percent),
        ),
    ))
}
