//! A labelled scatter of points, some highlighted and joined in x order (e.g. a cost–quality
//! frontier: runs by cost per correct item and accuracy, the frontier's runs joined, the
//! dominated ones faded).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{fmt_value, Format, LinearAxis};
use super::frame::{
    min_max, or_default, plot, plural, value_range, value_ticks_target, x_ticks_target, Bottom,
    Spec,
};
use super::theme::Role;
use super::{
    clean_label, no_data, quoted, render, Chart, ChartOptions, LegendItem, Mark, VALUE_PX,
};

/// One point: its label, position, and whether it is highlighted (on the joined line).
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPoint {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub highlighted: bool,
}

/// The points over `x_label` × `y_label` (the y values as percent with
/// [`ChartOptions::percent`]); highlighted points drawn full and joined in x order under
/// `highlight_name` in the legend, the others faded under `other_name`.
pub fn scatter_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    (highlight_name, other_name): (&str, &str),
    points: &[ScatterPoint],
    opts: &ChartOptions,
) -> Chart {
    let title = clean_label(title);
    let (x_label, y_label) = (clean_label(x_label), clean_label(y_label));
    let points: Vec<ScatterPoint> = points
        .iter()
        .filter(|p| p.x.is_finite() && p.y.is_finite())
        .map(|p| ScatterPoint {
            label: clean_label(&p.label),
            ..p.clone()
        })
        .collect();
    let y_format = opts.format();
    let x_format = Format::Number.shared(points.iter().map(|p| p.x));
    let mut table = vec![vec![
        "Label".to_string(),
        or_default(&x_label, "x"),
        or_default(&y_label, "y"),
        highlight_name.to_string(),
    ]];
    table.extend(points.iter().map(|p| {
        vec![
            p.label.clone(),
            fmt_value(p.x, x_format),
            fmt_value(p.y, y_format),
            if p.highlighted { "yes" } else { "no" }.to_string(),
        ]
    }));
    let (Some((x_lo, x_hi)), Some((y_lo, y_hi))) = (
        min_max(points.iter().map(|p| p.x)),
        min_max(points.iter().map(|p| p.y)),
    ) else {
        return no_data(&title, opts, table);
    };
    let alt = scatter_alt(&title, highlight_name, &points, (x_format, y_format));
    let legend = [
        LegendItem {
            name: highlight_name.to_string(),
            role: Role::Series(0),
            mark: Mark::LineCircle,
        },
        LegendItem {
            name: other_name.to_string(),
            role: Role::Muted,
            mark: Mark::Box,
        },
    ];
    let svg = render(opts, &title, &alt, &legend, |ctx, root, body| {
        let (y_lo, y_hi) = value_range(y_lo, y_hi, y_format, false);
        let pad = |lo: f64, hi: f64| ((hi - lo) * 0.08).max(hi.abs() * 0.05).max(1e-12);
        let (xp, yp) = (pad(x_lo, x_hi), pad(y_lo, y_hi));
        let spec = Spec {
            x: LinearAxis::nice(
                (x_lo - xp).max(0.0),
                x_hi + xp,
                x_ticks_target(body),
                x_format,
            ),
            y: LinearAxis::nice(y_lo - yp, y_hi + yp, value_ticks_target(body), y_format),
            x_desc: x_label.clone(),
            y_desc: y_label.clone(),
            bottom: Bottom::Ticks,
            y2: None,
        };
        let Some((chart, _)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
        let mut line: Vec<&ScatterPoint> = points.iter().filter(|p| p.highlighted).collect();
        line.sort_by(|a, b| a.x.total_cmp(&b.x));
        let colour = ctx.color(Role::Series(0));
        if line.len() > 1 {
            let px: Vec<(i32, i32)> = line
                .iter()
                .map(|p| chart.backend_coord(&(p.x, p.y)))
                .collect();
            root.draw(&PathElement::new(px, colour.stroke_width(2)))?;
        }
        for p in &points {
            let (x, y) = chart.backend_coord(&(p.x, p.y));
            let role = if p.highlighted {
                Role::Series(0)
            } else {
                Role::Muted
            };
            let c = ctx.color(role);
            if p.highlighted {
                root.draw(&Circle::new((x, y), 5, c.filled()))?;
            } else {
                root.draw(&Circle::new((x, y), 4, c.stroke_width(2)))?;
            }
            let text = ctx.fit(&p.label, VALUE_PX, 140.0);
            let style = ctx.font(VALUE_PX, role, HPos::Left, VPos::Center);
            root.draw(&Text::new(text, (x + 7, y), style))?;
        }
        Ok(())
    });
    Chart { svg, alt, table }
}

fn scatter_alt(
    title: &str,
    highlight_name: &str,
    points: &[ScatterPoint],
    (xf, yf): (Format, Format),
) -> String {
    let on: Vec<String> = points
        .iter()
        .filter(|p| p.highlighted)
        .map(|p| {
            format!(
                "{} ({}, {})",
                p.label,
                fmt_value(p.x, xf),
                fmt_value(p.y, yf)
            )
        })
        .collect();
    let mut s = format!(
        "Scatter chart {}: {} point{}",
        quoted(title),
        points.len(),
        plural(points.len())
    );
    if !on.is_empty() {
        s.push_str(&format!(
            "; {}: {}",
            highlight_name.to_lowercase(),
            on.join(", ")
        ));
    }
    s.push('.');
    s
}
