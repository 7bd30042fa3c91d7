//! Bar charts: one bar per label, or bars in groups with one colour per series. Value labels
//! sit on the bars when they fit; a baseline marks 0 when values go below it.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{fmt_value, Format, LinearAxis};
use super::font;
use super::frame::{
    cell, draw_categories, finite, label, min_max, or_default, plot, plural, value_label,
    value_range, value_ticks_target, Bottom, Chart2d, Layout, Spec,
};
use super::theme::Role;
use super::{
    clean_label, no_data, quoted, render, Area, Chart, ChartOptions, Ctx, DrawResult, LegendItem,
    Mark, VALUE_PX,
};

/// Vertical bars, one per `(label, value)`; `None` (or a non-finite value) is shown as "n/a".
/// Value labels sit on the bars when they fit; with [`ChartOptions::percent`] values are
/// fractions and the axis reads 0–100 %.
pub fn bar_chart(
    title: &str,
    y_label: &str,
    bars: &[(String, Option<f64>)],
    opts: &ChartOptions,
) -> Chart {
    let title = clean_label(title);
    let y_label = clean_label(y_label);
    let bars: Vec<(String, Option<f64>)> = bars
        .iter()
        .map(|(l, v)| (clean_label(l), finite(*v)))
        .collect();
    let format = opts.format().shared(bars.iter().filter_map(|b| b.1));
    let mut table = vec![vec!["Label".to_string(), or_default(&y_label, "Value")]];
    table.extend(bars.iter().map(|(l, v)| vec![l.clone(), cell(*v, format)]));
    let Some((lo, hi)) = min_max(bars.iter().filter_map(|b| b.1)) else {
        return no_data(&title, opts, table);
    };
    let alt = bar_alt(&title, &bars, format);
    let svg = render(opts, &title, &alt, &[], |ctx, root, body| {
        let (lo, hi) = value_range(lo, hi, format, true);
        let spec = Spec {
            x: LinearAxis::bare(0.0, bars.len() as f64),
            y: LinearAxis::nice(lo, hi, value_ticks_target(body), format),
            x_desc: String::new(),
            y_desc: y_label.clone(),
            bottom: Bottom::Categories(bars.iter().map(|b| b.0.clone()).collect()),
            y2: None,
        };
        let Some((chart, l)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
        let slot = f64::from(l.plot.width()) / bars.len() as f64;
        // Bars fill 70 % of their slot, at most 72 px.
        let pad = ((1.0 - (slot * 0.7).min(72.0) / slot) / 2.0).clamp(0.0, 0.5);
        let colour = ctx.color(Role::Series(0));
        for (i, (_, v)) in bars.iter().enumerate() {
            let i = i as f64;
            let (_, base) = chart.backend_coord(&(i, 0.0));
            let (cx, _) = chart.backend_coord(&(i + 0.5, 0.0));
            let Some(v) = v else {
                let style = ctx.font(VALUE_PX, Role::Muted, HPos::Center, VPos::Bottom);
                root.draw(&Text::new("n/a".to_string(), (cx, base - 3), style))?;
                continue;
            };
            let (x0, top) = chart.backend_coord(&(i + pad, *v));
            let (x1, _) = chart.backend_coord(&(i + 1.0 - pad, *v));
            let (y0, y1) = if top == base {
                (base - 1, base)
            } else {
                (top.min(base), top.max(base))
            };
            root.draw(&Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))?;
            value_label(
                ctx,
                root,
                &label(*v, format),
                (cx, top),
                *v < 0.0,
                slot - 2.0,
            )?;
        }
        zero_line(ctx, root, &chart, &l, lo)?;
        draw_categories(ctx, root, &l, |i| {
            chart.backend_coord(&(i as f64 + 0.5, 0.0)).0
        })
    });
    Chart { svg, alt, table }
}

/// A baseline at 0 when the value axis goes below zero.
fn zero_line(ctx: &Ctx, root: &Area, chart: &Chart2d, l: &Layout, lo: f64) -> DrawResult {
    if lo < 0.0 {
        let (_, y) = chart.backend_coord(&(0.0, 0.0));
        root.draw(&PathElement::new(
            vec![(l.plot.x0, y), (l.plot.x1, y)],
            ctx.color(Role::Axis).stroke_width(1),
        ))?;
    }
    Ok(())
}

fn bar_alt(title: &str, bars: &[(String, Option<f64>)], format: Format) -> String {
    let present: Vec<(&String, f64)> = bars.iter().filter_map(|(l, v)| v.map(|v| (l, v))).collect();
    let mut best = present.first().copied();
    let mut worst = best;
    for &(l, v) in &present {
        if best.is_some_and(|(_, b)| v > b) {
            best = Some((l, v));
        }
        if worst.is_some_and(|(_, w)| v < w) {
            worst = Some((l, v));
        }
    }
    let mut s = format!(
        "Bar chart {}: {} bar{}",
        quoted(title),
        bars.len(),
        plural(bars.len())
    );
    if let (Some((bl, bv)), Some((wl, wv))) = (best, worst) {
        if present.len() == 1 {
            s.push_str(&format!(", {bl} at {}", fmt_value(bv, format)));
        } else {
            s.push_str(&format!(
                "; highest {bl} ({}), lowest {wl} ({})",
                fmt_value(bv, format),
                fmt_value(wv, format)
            ));
        }
    }
    let missing = bars.len() - present.len();
    if missing > 0 {
        s.push_str(&format!("; {missing} n/a"));
    }
    s.push('.');
    s
}

/// Bars in groups: one slot per group, one bar per series inside it, a legend for the series.
/// Missing values (`None`, non-finite, or a series shorter than `groups`) are left out of the
/// drawing and written "n/a" in the table.
pub fn grouped_bar_chart(
    title: &str,
    y_label: &str,
    groups: &[String],
    series: &[(String, Vec<Option<f64>>)],
    opts: &ChartOptions,
) -> Chart {
    let title = clean_label(title);
    let y_label = clean_label(y_label);
    let groups: Vec<String> = groups.iter().map(|g| clean_label(g)).collect();
    let series: Vec<(String, Vec<Option<f64>>)> = series
        .iter()
        .map(|(n, vs)| {
            let vs = (0..groups.len())
                .map(|g| finite(vs.get(g).copied().flatten()))
                .collect();
            (clean_label(n), vs)
        })
        .collect();
    let format = opts
        .format()
        .shared(series.iter().flat_map(|s| s.1.iter().flatten().copied()));
    let mut header = vec!["Group".to_string()];
    header.extend(series.iter().map(|s| s.0.clone()));
    let mut table = vec![header];
    for (g, name) in groups.iter().enumerate() {
        let mut row = vec![name.clone()];
        row.extend(
            series
                .iter()
                .map(|s| cell(s.1.get(g).copied().flatten(), format)),
        );
        table.push(row);
    }
    let Some((lo, hi)) = min_max(series.iter().flat_map(|s| s.1.iter().flatten().copied())) else {
        return no_data(&title, opts, table);
    };
    let alt = grouped_alt(&title, &groups, &series, &y_label, format);
    let legend: Vec<LegendItem> = series
        .iter()
        .enumerate()
        .map(|(i, s)| LegendItem {
            name: s.0.clone(),
            role: Role::Series(i),
            mark: Mark::Box,
        })
        .collect();
    let svg = render(opts, &title, &alt, &legend, |ctx, root, body| {
        let (lo, hi) = value_range(lo, hi, format, true);
        let spec = Spec {
            x: LinearAxis::bare(0.0, groups.len() as f64),
            y: LinearAxis::nice(lo, hi, value_ticks_target(body), format),
            x_desc: String::new(),
            y_desc: y_label.clone(),
            bottom: Bottom::Categories(groups.clone()),
            y2: None,
        };
        let Some((chart, l)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
        let slot = f64::from(l.plot.width()) / groups.len() as f64;
        let n = series.len().max(1) as f64;
        // The group's bars fill 80 % of the slot; each bar at most 40 px.
        let group_w = (slot * 0.8).min(40.0 * n);
        let bar_w = group_w / n;
        for (s, (_, values)) in series.iter().enumerate() {
            let colour = ctx.color(Role::Series(s));
            for (g, v) in values.iter().enumerate() {
                let (left, base) = chart.backend_coord(&(g as f64, 0.0));
                let x0 = f64::from(left) + (slot - group_w) / 2.0 + bar_w * s as f64;
                let x1 = x0 + bar_w - if bar_w > 6.0 { 1.0 } else { 0.0 };
                let Some(v) = v else {
                    let cx = ((x0 + x1) / 2.0).round() as i32;
                    if font::text_width("n/a", VALUE_PX) <= bar_w + 2.0 {
                        let style = ctx.font(VALUE_PX, Role::Muted, HPos::Center, VPos::Bottom);
                        root.draw(&Text::new("n/a".to_string(), (cx, base - 3), style))?;
                    }
                    continue;
                };
                let (_, top) = chart.backend_coord(&(0.0, *v));
                let (y0, y1) = if top == base {
                    (base - 1, base)
                } else {
                    (top.min(base), top.max(base))
                };
                root.draw(&Rectangle::new(
                    [(x0.round() as i32, y0), (x1.round() as i32, y1)],
                    colour.filled(),
                ))?;
                let cx = ((x0 + x1) / 2.0).round() as i32;
                value_label(
                    ctx,
                    root,
                    &label(*v, format),
                    (cx, top),
                    *v < 0.0,
                    bar_w + 2.0,
                )?;
            }
        }
        zero_line(ctx, root, &chart, &l, lo)?;
        draw_categories(ctx, root, &l, |i| {
            chart.backend_coord(&(i as f64 + 0.5, 0.0)).0
        })
    });
    Chart { svg, alt, table }
}

fn grouped_alt(
    title: &str,
    groups: &[String],
    series: &[(String, Vec<Option<f64>>)],
    y_label: &str,
    format: Format,
) -> String {
    let names: Vec<&str> = series.iter().map(|s| s.0.as_str()).collect();
    let mut best: Option<(usize, usize, f64)> = None;
    for (s, (_, vs)) in series.iter().enumerate() {
        for (g, v) in vs.iter().enumerate() {
            if let Some(v) = v {
                if best.is_none_or(|b| *v > b.2) {
                    best = Some((s, g, *v));
                }
            }
        }
    }
    let mut s = format!(
        "Grouped bar chart {}: {} group{} × {} series ({})",
        quoted(title),
        groups.len(),
        plural(groups.len()),
        series.len(),
        names.join(", ")
    );
    if !y_label.is_empty() {
        s.push_str(&format!(" showing {y_label}"));
    }
    if let Some((si, gi, v)) = best {
        let sn = series.get(si).map_or("", |x| x.0.as_str());
        let gn = groups.get(gi).map_or("", String::as_str);
        s.push_str(&format!(
            "; highest {sn} in {gn} ({})",
            fmt_value(v, format)
        ));
    }
    s.push('.');
    s
}
