//! Intervals: one point per label with its interval as a whisker, and a line at zero, e.g. each
//! run's change against a baseline with its 95% CI. The alt text says when every interval holds
//! zero.

use plotters::prelude::*;

use super::axis::{fmt_value, Format, LinearAxis};
use super::frame::{
    cell, draw_categories, finite, min_max, or_default, plot, plural, value_range,
    value_ticks_target, Bottom, Spec,
};
use super::theme::Role;
use super::{clean_label, no_data, quoted, render, Chart, ChartOptions};

/// One label's point and interval (`None`: not shown, "n/a" in the table).
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    pub label: String,
    pub value: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// Points with their intervals, one per label, over a value axis that always shows zero; with
/// [`ChartOptions::percent`] values are fractions shown as percent (a change in points).
pub fn interval_chart(title: &str, y_label: &str, rows: &[Interval], opts: &ChartOptions) -> Chart {
    let title = clean_label(title);
    let y_label = clean_label(y_label);
    let rows: Vec<Interval> = rows
        .iter()
        .map(|r| Interval {
            label: clean_label(&r.label),
            value: finite(r.value),
            low: finite(r.low),
            high: finite(r.high),
        })
        .collect();
    let format = if opts.percent {
        Format::Percent
    } else {
        Format::Number.shared(rows.iter().filter_map(|r| r.value))
    };
    let mut table = vec![vec![
        "Label".to_string(),
        or_default(&y_label, "Value"),
        "Low".into(),
        "High".into(),
    ]];
    table.extend(rows.iter().map(|r| {
        vec![
            r.label.clone(),
            cell(r.value, format),
            cell(r.low, format),
            cell(r.high, format),
        ]
    }));
    let all = rows.iter().flat_map(|r| [r.value, r.low, r.high]).flatten();
    let Some((lo, hi)) = min_max(all) else {
        return no_data(&title, opts, table);
    };
    let alt = interval_alt(&title, &rows, format);
    let svg = render(opts, &title, &alt, &[], |ctx, root, body| {
        // Zero is always on the axis; a percent change need not span 0–100 %.
        let (lo, hi) = value_range(lo, hi, Format::Number, true);
        // Every value and bound exactly zero (runs that tie their baseline): a fixed span of
        // ±0.01 (±1 point in percent) instead of ticks at 0.0000001 %.
        let pad = if hi - lo > 0.0 {
            (hi - lo) * 0.05
        } else {
            0.01
        };
        let spec = Spec {
            x: LinearAxis::bare(0.0, rows.len() as f64),
            y: LinearAxis::nice(lo - pad, hi + pad, value_ticks_target(body), format),
            x_desc: String::new(),
            y_desc: y_label.clone(),
            bottom: Bottom::Categories(rows.iter().map(|r| r.label.clone()).collect()),
            y2: None,
        };
        let Some((chart, l)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
        let (_, zero) = chart.backend_coord(&(0.0, 0.0));
        root.draw(&PathElement::new(
            vec![(l.plot.x0, zero), (l.plot.x1, zero)],
            ctx.color(Role::Axis).stroke_width(1),
        ))?;
        let colour = ctx.color(Role::Series(0));
        for (i, r) in rows.iter().enumerate() {
            let x = i as f64 + 0.5;
            if let (Some(a), Some(b)) = (r.low, r.high) {
                let (cx, ya) = chart.backend_coord(&(x, a));
                let (_, yb) = chart.backend_coord(&(x, b));
                root.draw(&PathElement::new(
                    vec![(cx, ya), (cx, yb)],
                    colour.stroke_width(2),
                ))?;
                for y in [ya, yb] {
                    root.draw(&PathElement::new(
                        vec![(cx - 5, y), (cx + 5, y)],
                        colour.stroke_width(2),
                    ))?;
                }
            }
            if let Some(v) = r.value {
                let p = chart.backend_coord(&(x, v));
                root.draw(&Circle::new(p, 4, colour.filled()))?;
            }
        }
        draw_categories(ctx, root, &l, |i| {
            chart.backend_coord(&(i as f64 + 0.5, 0.0)).0
        })
    });
    Chart { svg, alt, table }
}

/// Whether every drawn interval holds zero (none drawn: `false`).
pub fn every_interval_holds_zero(rows: &[Interval]) -> bool {
    let drawn: Vec<(f64, f64)> = rows.iter().filter_map(|r| r.low.zip(r.high)).collect();
    !drawn.is_empty() && drawn.iter().all(|(a, b)| *a <= 0.0 && *b >= 0.0)
}

fn interval_alt(title: &str, rows: &[Interval], format: Format) -> String {
    let shown = rows.iter().filter(|r| r.value.is_some()).count();
    let mut s = format!(
        "Interval chart {}: {shown} point{} with {} interval{}",
        quoted(title),
        plural(shown),
        rows.iter()
            .filter(|r| r.low.is_some() && r.high.is_some())
            .count(),
        plural(
            rows.iter()
                .filter(|r| r.low.is_some() && r.high.is_some())
                .count()
        ),
    );
    let parts: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let v = r.value?;
            Some(match (r.low, r.high) {
                (Some(a), Some(b)) => format!(
                    "{} {} [{}, {}]",
                    r.label,
                    fmt_value(v, format),
                    fmt_value(a, format),
                    fmt_value(b, format)
                ),
                _ => format!("{} {}", r.label, fmt_value(v, format)),
            })
        })
        .collect();
    if !parts.is_empty() {
        s.push_str(": ");
        s.push_str(&parts.join("; "));
    }
    if every_interval_holds_zero(rows) {
        s.push_str("; every interval includes zero");
    }
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ties with the baseline everywhere: the axis spans ±1 point (ticks −1.0 % … 1.0 %), not
    /// ticks at 0.0000001 %.
    #[test]
    fn an_all_zero_chart_has_a_readable_axis() {
        let rows: Vec<Interval> = ["a", "b"]
            .iter()
            .map(|l| Interval {
                label: (*l).into(),
                value: Some(0.0),
                low: Some(0.0),
                high: Some(0.0),
            })
            .collect();
        let opts = ChartOptions {
            percent: true,
            ..ChartOptions::default()
        };
        let svg = interval_chart("Change", "Accuracy change", &rows, &opts).svg;
        assert!(!svg.contains("0.0000"), "{svg}");
        assert!(svg.contains(">−1.0%<") && svg.contains(">1.0%<"), "{svg}");
    }
}
