//! The eval-log chart set: every score's mean reading, and the accuracy by the log's first
//! breakdown field (epoch, task, subject…). One function, so the dashboard's worker and any
//! report draw the same SVG for the same log.

use evalboard_engine::evallog::views::{breakdown, breakdown_fields, score_summaries};
use evalboard_engine::evallog::ScoredLog;

use crate::charts::{bar_chart, named, opts, NamedChart, Theme};

/// The charts of a scored log: `scores` (each score's mean 0–1 reading, n in the label) when it
/// has two or more, and `by_field` (the accuracy of the items with a verdict per value of its first
/// breakdown field, n in the label) when it has one.
pub fn evallog_charts(s: &ScoredLog, theme: Theme) -> Vec<NamedChart> {
    let mut out = Vec::new();
    let scores: Vec<(String, Option<f64>)> = score_summaries(&s.log.run)
        .into_iter()
        .filter(|x| x.n_scored > 0)
        .map(|x| (format!("{} (n={})", x.name, x.n_scored), x.mean))
        .collect();
    // One score is its card and its table row already: a chart of one bar says nothing more.
    if scores.len() >= 2 {
        out.push(named(
            "scores",
            "Mean of each score",
            bar_chart(
                "Mean of each score",
                "Mean reading",
                &scores,
                &opts(theme, false),
            ),
        ));
    }
    if let Some(field) = breakdown_fields(&s.log.run).into_iter().next() {
        let bars: Vec<(String, Option<f64>)> = breakdown(s, &field)
            .into_iter()
            .filter(|g| g.n_verdict > 0)
            .map(|g| (format!("{} (n={})", g.value, g.n_verdict), g.accuracy))
            .collect();
        if !bars.is_empty() {
            let title = format!("Accuracy by {field}");
            out.push(named(
                "by_field",
                &title,
                bar_chart(&title, "Accuracy (%)", &bars, &opts(theme, true)),
            ));
        }
    }
    out
}
