//! Charts of run comparisons, shared by the dashboard's Compare tab (drawn in the worker) and the
//! HTML report: the training loss curves of the compared runs overlaid (step vs loss, one line
//! per run) and each headline metric across a series of runs.

use evalboard_engine::run_meta::{fmt_int, fmt_loss};

use crate::charts::{category_line_chart, escape, line_chart, named, opts, NamedChart, Theme};

/// The training loss curves of `runs` (name, `(step, loss)` in step order) on one chart, key
/// `loss_curve`; `None` when no run has a point. A run with a single logged step is drawn as a
/// marker and says so in the legend ("(1 point)"). The text equivalent is one row per run
/// (points, steps, first, lowest and final loss); the alt text gives each run's final loss.
pub fn loss_curve_chart(runs: &[(&str, &[(u64, f64)])], theme: Theme) -> Option<NamedChart> {
    let with: Vec<&(&str, &[(u64, f64)])> = runs.iter().filter(|r| !r.1.is_empty()).collect();
    if with.is_empty() {
        return None;
    }
    let title = "Training loss by step";
    let series: Vec<(String, Vec<(f64, f64)>)> = with
        .iter()
        .map(|(name, pts)| {
            let label = if pts.len() == 1 {
                format!("{name} (1 point)")
            } else {
                (*name).to_string()
            };
            (label, pts.iter().map(|(s, l)| (*s as f64, *l)).collect())
        })
        .collect();
    let mut chart = line_chart(title, "Step", "Loss", &series, &opts(theme, false));
    let mut table = vec![vec![
        "Run".to_string(),
        "Points".into(),
        "Steps".into(),
        "First loss".into(),
        "Lowest loss (step)".into(),
        "Final loss".into(),
    ]];
    let mut finals = Vec::new();
    for (name, pts) in &with {
        let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
            continue;
        };
        let min = pts
            .iter()
            .fold(*first, |m, p| if p.1 < m.1 { *p } else { m });
        table.push(vec![
            (*name).to_string(),
            pts.len().to_string(),
            if pts.len() == 1 {
                fmt_int(first.0)
            } else {
                format!("{}–{}", fmt_int(first.0), fmt_int(last.0))
            },
            fmt_loss(first.1),
            format!("{} ({})", fmt_loss(min.1), fmt_int(min.0)),
            fmt_loss(last.1),
        ]);
        finals.push(if pts.len() == 1 {
            format!(
                "{name} {} (a single point, at step {})",
                fmt_loss(last.1),
                fmt_int(last.0)
            )
        } else {
            format!(
                "{name} {} at step {} (lowest {} at step {})",
                fmt_loss(last.1),
                fmt_int(last.0),
                fmt_loss(min.1),
                fmt_int(min.0)
            )
        });
    }
    let without: Vec<&str> = runs
        .iter()
        .filter(|r| r.1.is_empty())
        .map(|r| r.0)
        .collect();
    let mut alt = format!(
        "Line chart “{title}”: training loss against step for {} run{}; final loss {}",
        with.len(),
        if with.len() == 1 { "" } else { "s" },
        finals.join("; ")
    );
    if !without.is_empty() {
        alt.push_str(&format!("; no training metrics: {}", without.join(", ")));
    }
    alt.push('.');
    // The SVG describes itself with the same sentence.
    chart.svg = chart.svg.replacen(&escape(&chart.alt), &escape(&alt), 1);
    chart.alt = alt;
    chart.table = table;
    Some(named("loss_curve", title, chart))
}

/// Each headline metric (fractions, shown as percent) across the runs of a series, key
/// `series_metrics`: x = the runs in series order, one line per metric.
pub fn series_metrics_chart(
    runs: &[String],
    metrics: &[(String, Vec<Option<f64>>)],
    theme: Theme,
) -> NamedChart {
    let title = "Headline metrics across the series";
    named(
        "series_metrics",
        title,
        category_line_chart(title, "Run", "Score (%)", runs, metrics, &opts(theme, true)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_point_runs_are_markers_and_named_so() {
        let one = [(138u64, 1.0217112769251284)];
        let two = [(414u64, 0.8573377161210286)];
        let c =
            loss_curve_chart(&[("m43", &one), ("m44", &two), ("none", &[])], Theme::Dark).unwrap();
        assert!(c.svg.contains("m43 (1 point)"), "legend says so");
        assert!(c.svg.contains("<circle"), "a marker is drawn");
        assert!(c.svg.contains("ebc-dark"));
        assert_eq!(
            c.alt,
            "Line chart “Training loss by step”: training loss against step for 2 runs; final \
             loss m43 1.022 (a single point, at step 138); m44 0.8573 (a single point, at step \
             414); no training metrics: none."
        );
        assert!(c.svg.contains(&escape(&c.alt)));
        assert_eq!(c.table.len(), 3);
        assert_eq!(
            c.table[1],
            ["m43", "1", "138", "1.022", "1.022 (138)", "1.022"]
        );
        assert!(loss_curve_chart(&[("x", &[])], Theme::Light).is_none());
    }

    #[test]
    fn series_chart_has_a_row_per_run() {
        let runs = vec!["a".to_string(), "b".into(), "c".into()];
        let c = series_metrics_chart(
            &runs,
            &[
                ("v1".into(), vec![Some(0.0), Some(0.0), Some(0.0)]),
                ("v1-extract".into(), vec![Some(0.13), Some(0.11), None]),
            ],
            Theme::Light,
        );
        assert_eq!(c.table[0], ["Run", "v1", "v1-extract"]);
        assert_eq!(c.table[3], ["c", "0.0%", "n/a"]);
        assert!(c.alt.contains("v1-extract 13.0% → 11.0%"), "{}", c.alt);
        assert!(c.svg.contains(">b<"), "run labels on the x axis");
    }
}
