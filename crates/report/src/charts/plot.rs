//! Cartesian charts: bars, grouped bars, lines, dual-axis lines and histograms.
//!
//! Each chart cleans its input (labels, non-finite values), builds the alt text and table, then
//! lays out the plot: label areas are sized from measured tick labels, category labels are drawn
//! horizontally (truncated to their slot) or, when slots are narrow, rotated (truncated to at most
//! 30 % of the chart height). plotters draws axes, ticks, grid lines and axis titles.

use plotters::chart::DualCoordChartContext;
use plotters::prelude::*;
use plotters::style::colors::TRANSPARENT;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{fmt_value, typeset_minus, Format, LinearAxis};
use super::font;
use super::theme::Role;
use super::{
    clean_label, no_data, quoted, render, Area, Chart, ChartOptions, Ctx, DrawResult, LegendItem,
    Mark, Rect, LABEL_PX, TICK_PX, VALUE_PX,
};

/// Above this many points a line series is decimated (min/max per bucket keeps the peaks).
pub(crate) const MAX_LINE_POINTS: usize = 2000;

/// A finite value or nothing.
fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

/// A value for a table cell: "n/a" when missing.
fn cell(v: Option<f64>, format: Format) -> String {
    finite(v).map_or_else(|| "n/a".to_string(), |v| fmt_value(v, format))
}

/// A value for a label in the SVG (typographic minus).
fn label(v: f64, format: Format) -> String {
    typeset_minus(fmt_value(v, format))
}

fn min_max(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// The value range an axis must show: bars include 0; percent spans at least 0–100 %.
fn value_range(lo: f64, hi: f64, format: Format, include_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (lo, hi);
    if include_zero || format == Format::Percent {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if format == Format::Percent {
        hi = hi.max(1.0);
    }
    (lo, hi)
}

// ---- layout -----------------------------------------------------------------------------------

/// What the bottom axis shows.
enum Bottom {
    /// Numeric ticks from the x axis.
    Ticks,
    /// One label per unit slot `i..i+1`, centred.
    Categories(Vec<String>),
    /// One label per point at `i` (slots `i-0.5..i+0.5`).
    Points(Vec<String>),
}

struct Spec {
    x: LinearAxis,
    y: LinearAxis,
    y2: Option<LinearAxis>,
    x_desc: String,
    y_desc: String,
    y2_desc: String,
    bottom: Bottom,
}

/// Where things go, in absolute pixels.
struct Layout {
    plot: Rect,
    margin_top: i32,
    margin_right: i32,
    left_w: i32,
    right_w: i32,
    bottom_h: i32,
    /// Category labels as drawn (truncated), and whether they are rotated.
    cats: Vec<String>,
    rotated: bool,
}

const MARGIN_LEFT: i32 = 6;
const MARGIN_BOTTOM: i32 = 4;
const TICK: i32 = 4;
const DESC_W: i32 = 20;

fn axis_label_width(axis: &LinearAxis) -> i32 {
    axis.labels()
        .iter()
        .map(|l| font::text_width(l, TICK_PX).ceil() as i32)
        .max()
        .unwrap_or(0)
}

fn layout(ctx: &Ctx, body: Rect, spec: &Spec) -> Layout {
    let desc = |s: &str| if s.is_empty() { 0 } else { DESC_W };
    let left_w = axis_label_width(&spec.y) + 2 * TICK + 4 + desc(&spec.y_desc);
    let right_w = spec.y2.as_ref().map_or(0, |a| {
        axis_label_width(a) + 2 * TICK + 4 + desc(&spec.y2_desc)
    });
    let last_x_half = spec
        .x
        .labels()
        .last()
        .map_or(0, |l| (font::text_width(l, TICK_PX) / 2.0).ceil() as i32);
    let margin_right = if right_w > 0 {
        6
    } else {
        (last_x_half + 4).max(14)
    };
    let margin_top = 16;
    let x0 = body.x0 + MARGIN_LEFT + left_w;
    let x1 = (body.x1 - margin_right - right_w).max(x0 + 1);
    let line_h = (TICK_PX * 1.2).ceil() as i32;
    let (labels, unit_offset) = match &spec.bottom {
        Bottom::Ticks => (&[][..], 0.0),
        Bottom::Categories(l) => (&l[..], 0.0),
        Bottom::Points(l) => (&l[..], 0.5),
    };
    let _ = unit_offset;
    let slot = if labels.is_empty() {
        0.0
    } else {
        f64::from(x1 - x0) / labels.len() as f64
    };
    let widest = labels
        .iter()
        .map(|l| font::text_width(l, TICK_PX))
        .fold(0.0, f64::max);
    let rotated = !labels.is_empty() && slot < 48.0 && widest > slot - 6.0;
    let (cats, labels_h) = if rotated {
        let max_len = widest.min(f64::from(body.height()) * 0.3).max(12.0);
        let cats = labels
            .iter()
            .map(|l| ctx.fit(l, TICK_PX, max_len))
            .collect();
        (cats, 2 * TICK + max_len.ceil() as i32)
    } else {
        let cats = labels
            .iter()
            .map(|l| ctx.fit(l, TICK_PX, slot - 4.0))
            .collect();
        (cats, 2 * TICK + line_h)
    };
    let bottom_h = labels_h + desc(&spec.x_desc);
    let y0 = body.y0 + margin_top;
    let y1 = (body.y1 - MARGIN_BOTTOM - bottom_h).max(y0 + 1);
    Layout {
        plot: Rect { x0, y0, x1, y1 },
        margin_top,
        margin_right,
        left_w,
        right_w,
        bottom_h,
        cats,
        rotated,
    }
}

/// The plot is too small to draw anything useful in (tiny chart, many legend rows).
fn too_small(l: &Layout) -> bool {
    l.plot.width() < 24 || l.plot.height() < 24
}

type Chart2d<'a, 'b> =
    ChartContext<'a, super::svg::SvgBackend<'b>, Cartesian2d<LinearAxis, LinearAxis>>;

/// Builds the plotters chart for `spec` in `body` (axes are drawn by [`draw_mesh`]).
fn build<'a, 'b>(
    root: &'a Area<'b>,
    body: Rect,
    spec: &Spec,
    l: &Layout,
) -> Result<Chart2d<'a, 'b>, DrawingAreaErrorKind<std::fmt::Error>> {
    let area = root.clone().shrink(
        (body.x0, body.y0),
        (body.width().max(1) as u32, body.height().max(1) as u32),
    );
    let mut builder = ChartBuilder::on(&area);
    builder
        .margin_top(l.margin_top as u32)
        .margin_left(MARGIN_LEFT as u32)
        .margin_right(l.margin_right as u32)
        .margin_bottom(MARGIN_BOTTOM as u32)
        .x_label_area_size(l.bottom_h as u32)
        .y_label_area_size(l.left_w as u32);
    if l.right_w > 0 {
        builder.right_y_label_area_size(l.right_w as u32);
    }
    builder.build_cartesian_2d(spec.x.clone(), spec.y.clone())
}

/// Draws the primary axes, y grid lines, tick labels and axis titles. For a dual-axis chart call
/// it after `set_secondary_coord`, which hands the right label area to the secondary axis.
fn draw_mesh(ctx: &Ctx, chart: &mut Chart2d, spec: &Spec, l: &Layout) -> DrawResult {
    let x_desc = ctx.fit(&spec.x_desc, LABEL_PX, f64::from(l.plot.width()));
    let y_desc = ctx.fit(&spec.y_desc, LABEL_PX, f64::from(l.plot.height()));
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(if matches!(spec.bottom, Bottom::Ticks) {
            12
        } else {
            0
        })
        .y_labels(12)
        .bold_line_style(ctx.color(Role::Grid).stroke_width(1))
        .light_line_style(TRANSPARENT)
        .axis_style(ctx.color(Role::Axis).stroke_width(1))
        .label_style(ctx.font(TICK_PX, Role::Muted, HPos::Center, VPos::Center))
        .axis_desc_style(ctx.font(LABEL_PX, Role::Text, HPos::Center, VPos::Center))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .set_all_tick_mark_size(TICK)
        .draw()
}

/// Draws the secondary (right) axis of a dual-axis chart.
fn draw_right_axis(
    ctx: &Ctx,
    chart: &mut DualCoordChartContext<
        '_,
        super::svg::SvgBackend<'_>,
        Cartesian2d<LinearAxis, LinearAxis>,
        Cartesian2d<LinearAxis, LinearAxis>,
    >,
    desc: &str,
    l: &Layout,
) -> DrawResult {
    let desc = ctx.fit(desc, LABEL_PX, f64::from(l.plot.height()));
    chart
        .configure_secondary_axes()
        .y_labels(12)
        .axis_style(ctx.color(Role::Axis).stroke_width(1))
        .label_style(ctx.font(TICK_PX, Role::Muted, HPos::Center, VPos::Center))
        .axis_desc_style(ctx.font(LABEL_PX, Role::Text, HPos::Center, VPos::Center))
        .y_desc(desc)
        .set_all_tick_mark_size(TICK)
        .draw()
}

/// Draws the category labels under the plot, at `centre(i)` pixels.
fn draw_categories(
    ctx: &Ctx,
    root: &Area,
    l: &Layout,
    centre: impl Fn(usize) -> i32,
) -> DrawResult {
    let y = l.plot.y1 + 2 * TICK;
    for (i, text) in l.cats.iter().enumerate() {
        let x = centre(i);
        root.draw(&PathElement::new(
            vec![(x, l.plot.y1), (x, l.plot.y1 + TICK)],
            ctx.color(Role::Axis).stroke_width(1),
        ))?;
        let style = if l.rotated {
            ctx.font(TICK_PX, Role::Text, HPos::Right, VPos::Center)
                .transform(FontTransform::Rotate270)
        } else {
            ctx.font(TICK_PX, Role::Text, HPos::Center, VPos::Top)
        };
        root.draw(&Text::new(text.clone(), (x, y), style))?;
    }
    Ok(())
}

/// Draws a value label centred above (or below, for negatives) a bar, if it fits in `max_w`.
fn value_label(
    ctx: &Ctx,
    root: &Area,
    text: &str,
    (x, y): (i32, i32),
    negative: bool,
    max_w: f64,
) -> DrawResult {
    if font::text_width(text, VALUE_PX) > max_w {
        return Ok(());
    }
    let (v, dy) = if negative {
        (VPos::Top, 3)
    } else {
        (VPos::Bottom, -3)
    };
    let style = ctx.font(VALUE_PX, Role::Text, HPos::Center, v);
    root.draw(&Text::new(text.to_string(), (x, y + dy), style))
}

fn value_ticks_target(body: Rect) -> usize {
    ((body.height() - 80) / 40).clamp(2, 8) as usize
}

fn x_ticks_target(body: Rect) -> usize {
    (body.width() / 90).clamp(2, 10) as usize
}

// ---- bar charts -------------------------------------------------------------------------------

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
    let mut table = vec![vec![
        "Label".to_string(),
        if y_label.is_empty() {
            "Value".to_string()
        } else {
            y_label.clone()
        },
    ]];
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
            y2: None,
            x_desc: String::new(),
            y_desc: y_label.clone(),
            y2_desc: String::new(),
            bottom: Bottom::Categories(bars.iter().map(|b| b.0.clone()).collect()),
        };
        let l = layout(ctx, body, &spec);
        if too_small(&l) {
            return Ok(());
        }
        let mut chart = build(root, body, &spec, &l)?;
        draw_mesh(ctx, &mut chart, &spec, &l)?;
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

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
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
            y2: None,
            x_desc: String::new(),
            y_desc: y_label.clone(),
            y2_desc: String::new(),
            bottom: Bottom::Categories(groups.clone()),
        };
        let l = layout(ctx, body, &spec);
        if too_small(&l) {
            return Ok(());
        }
        let mut chart = build(root, body, &spec, &l)?;
        draw_mesh(ctx, &mut chart, &spec, &l)?;
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

// ---- line charts ------------------------------------------------------------------------------

/// Keeps at most about `max` points: per bucket of consecutive points, the lowest and highest
/// (in their original order), so spikes survive. The first and last points are always kept.
pub(crate) fn decimate(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 4 {
        return points.to_vec();
    }
    let buckets = (max - 2) / 2;
    let size = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(max);
    for chunk in points.chunks(size) {
        let mut lo = 0;
        let mut hi = 0;
        for (i, p) in chunk.iter().enumerate() {
            if chunk.get(lo).is_some_and(|q| p.1 < q.1) {
                lo = i;
            }
            if chunk.get(hi).is_some_and(|q| p.1 > q.1) {
                hi = i;
            }
        }
        let (a, b) = (lo.min(hi), lo.max(hi));
        out.extend(chunk.get(a).copied());
        if b != a {
            out.extend(chunk.get(b).copied());
        }
    }
    if let (Some(first), Some(out_first)) = (points.first(), out.first()) {
        if first != out_first {
            out.insert(0, *first);
        }
    }
    if let (Some(last), Some(out_last)) = (points.last(), out.last()) {
        if last != out_last {
            out.push(*last);
        }
    }
    out
}

/// Pixel polylines through `points`, split where a point is missing, with repeated pixels dropped.
fn polylines(points: impl IntoIterator<Item = Option<(i32, i32)>>) -> Vec<Vec<(i32, i32)>> {
    let mut lines = vec![Vec::new()];
    for p in points {
        match p {
            Some(p) => {
                if let Some(line) = lines.last_mut() {
                    if line.last() != Some(&p) {
                        line.push(p);
                    }
                }
            }
            None => {
                if lines.last().is_some_and(|l: &Vec<_>| !l.is_empty()) {
                    lines.push(Vec::new());
                }
            }
        }
    }
    lines.retain(|l| !l.is_empty());
    lines
}

/// Draws a line series (lines of width 2; markers when `marker` is set, and always for points
/// with no neighbour, which a line alone would not show).
fn draw_line_series(
    ctx: &Ctx,
    root: &Area,
    role: Role,
    points: &[Option<(i32, i32)>],
    marker: Option<Mark>,
) -> DrawResult {
    let colour = ctx.color(role);
    for line in polylines(points.iter().copied()) {
        if line.len() >= 2 {
            root.draw(&PathElement::new(line.clone(), colour.stroke_width(2)))?;
        }
        let mark = match (marker, line.len()) {
            (Some(m), _) => Some(m),
            (None, 1) => Some(Mark::LineCircle),
            (None, _) => None,
        };
        // A point with no neighbour is the whole line there: a bigger marker.
        let r = if line.len() == 1 { 4 } else { 3 };
        for &(x, y) in line.iter().filter(|_| mark.is_some()) {
            if mark == Some(Mark::LineSquare) {
                root.draw(&Rectangle::new(
                    [(x - r, y - r), (x + r, y + r)],
                    colour.filled(),
                ))?;
            } else {
                root.draw(&Circle::new((x, y), r as u32, colour.filled()))?;
            }
        }
    }
    Ok(())
}

/// Several lines over a numeric x axis, with a legend. Points with a non-finite coordinate are
/// skipped; each series is sorted by x; series above `MAX_LINE_POINTS` points are decimated
/// (min/max per bucket). The table lists the points as drawn.
pub fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    opts: &ChartOptions,
) -> Chart {
    let format = opts.format();
    let title = clean_label(title);
    let x_label = clean_label(x_label);
    let y_label = clean_label(y_label);
    let mut decimated = false;
    let series: Vec<(String, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(name, pts)| {
            let mut pts: Vec<(f64, f64)> = pts
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            if pts.len() > MAX_LINE_POINTS {
                decimated = true;
                pts = decimate(&pts, MAX_LINE_POINTS);
            }
            (clean_label(name), pts)
        })
        .collect();
    let or = |s: &str, d: &str| {
        if s.is_empty() {
            d.to_string()
        } else {
            s.to_string()
        }
    };
    let mut table = vec![vec![
        "Series".to_string(),
        or(&x_label, "x"),
        or(&y_label, "y"),
    ]];
    for (name, pts) in &series {
        for (x, y) in pts {
            table.push(vec![
                name.clone(),
                fmt_value(*x, Format::Number),
                fmt_value(*y, format),
            ]);
        }
    }
    let all = || series.iter().flat_map(|s| s.1.iter());
    let (Some((x_lo, x_hi)), Some((y_lo, y_hi))) =
        (min_max(all().map(|p| p.0)), min_max(all().map(|p| p.1)))
    else {
        return no_data(&title, opts, table);
    };
    let alt = line_alt(&title, &x_label, &series, (x_lo, x_hi), format, decimated);
    let legend: Vec<LegendItem> = series
        .iter()
        .enumerate()
        .map(|(i, s)| LegendItem {
            name: s.0.clone(),
            role: Role::Series(i),
            // A one-point series is drawn as a marker: its swatch shows one.
            mark: if s.1.len() == 1 {
                Mark::LineCircle
            } else {
                Mark::Line
            },
        })
        .collect();
    let svg = render(opts, &title, &alt, &legend, |ctx, root, body| {
        let (y_lo, y_hi) = value_range(y_lo, y_hi, format, false);
        let spec = Spec {
            x: LinearAxis::nice(x_lo, x_hi, x_ticks_target(body), Format::Number),
            y: LinearAxis::nice(y_lo, y_hi, value_ticks_target(body), format),
            y2: None,
            x_desc: x_label.clone(),
            y_desc: y_label.clone(),
            y2_desc: String::new(),
            bottom: Bottom::Ticks,
        };
        let l = layout(ctx, body, &spec);
        if too_small(&l) {
            return Ok(());
        }
        let mut chart = build(root, body, &spec, &l)?;
        draw_mesh(ctx, &mut chart, &spec, &l)?;
        for (i, (_, pts)) in series.iter().enumerate() {
            let px: Vec<Option<(i32, i32)>> =
                pts.iter().map(|p| Some(chart.backend_coord(p))).collect();
            let marker = (pts.len() <= 40).then_some(Mark::LineCircle);
            draw_line_series(ctx, root, Role::Series(i), &px, marker)?;
        }
        Ok(())
    });
    Chart { svg, alt, table }
}

fn line_alt(
    title: &str,
    x_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    (x_lo, x_hi): (f64, f64),
    format: Format,
    decimated: bool,
) -> String {
    let x_name = if x_label.is_empty() { "x" } else { x_label };
    let mut s = format!(
        "Line chart {}: {} series over {x_name} from {} to {}",
        quoted(title),
        series.len(),
        fmt_value(x_lo, Format::Number),
        fmt_value(x_hi, Format::Number)
    );
    let lasts: Vec<String> = series
        .iter()
        .filter_map(|(n, p)| {
            p.last()
                .map(|(_, y)| format!("{n} {}", fmt_value(*y, format)))
        })
        .collect();
    if !lasts.is_empty() {
        s.push_str(&format!("; last values: {}", lasts.join(", ")));
    }
    if decimated {
        s.push_str(&format!(
            " (long series thinned to about {MAX_LINE_POINTS} points)"
        ));
    }
    s.push('.');
    s
}

/// The x positions of a dual-axis chart: numbers, or labels placed at equal steps.
#[derive(Clone, Copy, Debug)]
pub enum XValues<'a> {
    /// Numeric positions (e.g. turn numbers); non-finite positions drop their points.
    Numbers(&'a [f64]),
    /// Category labels, one per point, equally spaced.
    Labels(&'a [String]),
}

impl XValues<'_> {
    fn len(&self) -> usize {
        match self {
            XValues::Numbers(v) => v.len(),
            XValues::Labels(v) => v.len(),
        }
    }

    /// Plot position of point `i`.
    fn pos(&self, i: usize) -> Option<f64> {
        match self {
            XValues::Numbers(v) => v.get(i).copied().filter(|x| x.is_finite()),
            XValues::Labels(v) => (i < v.len()).then_some(i as f64),
        }
    }

    fn text(&self, i: usize) -> String {
        match self {
            XValues::Numbers(v) => v
                .get(i)
                .map_or_else(String::new, |x| fmt_value(*x, Format::Number)),
            XValues::Labels(v) => v.get(i).map_or_else(String::new, |l| clean_label(l)),
        }
    }
}

/// One side of a dual-axis chart.
#[derive(Clone, Copy, Debug)]
pub struct YSeries<'a> {
    /// Series name for the legend and table.
    pub name: &'a str,
    /// Axis title, with units (e.g. "Accuracy (%)").
    pub y_label: &'a str,
    /// One value per x position; `None`/non-finite values break the line.
    pub values: &'a [Option<f64>],
    /// Values are fractions shown as percent.
    pub percent: bool,
}

impl YSeries<'_> {
    fn format(&self) -> Format {
        if self.percent {
            Format::Percent
        } else {
            Format::Number
        }
    }
}

/// Two lines sharing an x axis, `left` on the left value axis (circles, first colour) and
/// `right` on the right one (squares, second colour); e.g. accuracy and average operations by
/// turn. [`ChartOptions::percent`] is not used: each [`YSeries`] says its own format.
pub fn dual_axis_line_chart(
    title: &str,
    x_label: &str,
    x: XValues<'_>,
    left: YSeries<'_>,
    right: YSeries<'_>,
    opts: &ChartOptions,
) -> Chart {
    let title = clean_label(title);
    let x_label = clean_label(x_label);
    let (lf, rf) = (left.format(), right.format());
    let (l_name, r_name) = (clean_label(left.name), clean_label(right.name));
    let (l_desc, r_desc) = (clean_label(left.y_label), clean_label(right.y_label));
    let n = x.len();
    let at = |s: &YSeries, i: usize| finite(s.values.get(i).copied().flatten());
    let or = |s: &str, d: &str| {
        if s.is_empty() {
            d.to_string()
        } else {
            s.to_string()
        }
    };
    let mut table = vec![vec![
        or(&x_label, "x"),
        or(&l_name, "left"),
        or(&r_name, "right"),
    ]];
    for i in 0..n {
        table.push(vec![
            x.text(i),
            cell(at(&left, i), lf),
            cell(at(&right, i), rf),
        ]);
    }
    let points = |s: &YSeries| -> Vec<Option<(f64, f64)>> {
        (0..n).map(|i| x.pos(i).zip(at(s, i))).collect()
    };
    let (lp, rp) = (points(&left), points(&right));
    let x_range = min_max((0..n).filter_map(|i| x.pos(i)));
    let l_range = min_max(lp.iter().flatten().map(|p| p.1));
    let r_range = min_max(rp.iter().flatten().map(|p| p.1));
    let Some((x_lo, x_hi)) = x_range.filter(|_| l_range.is_some() || r_range.is_some()) else {
        return no_data(&title, opts, table);
    };
    let range_text = |r: Option<(f64, f64)>, f| {
        r.map_or_else(
            || "no data".to_string(),
            |(a, b)| format!("{} to {}", fmt_value(a, f), fmt_value(b, f)),
        )
    };
    let alt = format!(
        "Dual-axis line chart {}: {} by {} on the left ({}) and {} on the right ({}), {} point{}.",
        quoted(&title),
        or(&l_name, "left series"),
        or(&x_label, "x"),
        range_text(l_range, lf),
        or(&r_name, "right series"),
        range_text(r_range, rf),
        n,
        plural(n)
    );
    let legend = vec![
        LegendItem {
            name: format!("{} (left axis)", or(&l_name, "left")),
            role: Role::Series(0),
            mark: Mark::LineCircle,
        },
        LegendItem {
            name: format!("{} (right axis)", or(&r_name, "right")),
            role: Role::Series(1),
            mark: Mark::LineSquare,
        },
    ];
    let svg = render(opts, &title, &alt, &legend, |ctx, root, body| {
        let range_for = |r: Option<(f64, f64)>, f| {
            let (lo, hi) = r.unwrap_or((0.0, 1.0));
            value_range(lo, hi, f, f == Format::Number)
        };
        let (ll, lh) = range_for(l_range, lf);
        let (rl, rh) = range_for(r_range, rf);
        let y = LinearAxis::nice(ll, lh, value_ticks_target(body), lf);
        // The right axis gets as many intervals as the left, so both share the grid lines.
        let y2 = LinearAxis::aligned(rl, rh, y.intervals(), rf);
        let (x_axis, bottom) = match x {
            XValues::Numbers(_) => (
                LinearAxis::nice(x_lo, x_hi, x_ticks_target(body), Format::Number),
                Bottom::Ticks,
            ),
            XValues::Labels(labels) => (
                LinearAxis::bare(-0.5, labels.len() as f64 - 0.5),
                Bottom::Points(labels.iter().map(|l| clean_label(l)).collect()),
            ),
        };
        let spec = Spec {
            x: x_axis,
            y,
            y2: Some(y2),
            x_desc: x_label.clone(),
            y_desc: l_desc.clone(),
            y2_desc: r_desc.clone(),
            bottom,
        };
        let l = layout(ctx, body, &spec);
        if too_small(&l) {
            return Ok(());
        }
        let chart = build(root, body, &spec, &l)?;
        let y2 = spec
            .y2
            .clone()
            .unwrap_or_else(|| LinearAxis::bare(0.0, 1.0));
        let mut dual = chart.set_secondary_coord(spec.x.clone(), y2);
        draw_mesh(ctx, &mut dual, &spec, &l)?;
        draw_right_axis(ctx, &mut dual, &spec.y2_desc, &l)?;
        let lpx: Vec<_> = lp
            .iter()
            .map(|p| p.map(|p| dual.backend_coord(&p)))
            .collect();
        let rpx: Vec<_> = rp
            .iter()
            .map(|p| p.map(|p| dual.borrow_secondary().backend_coord(&p)))
            .collect();
        draw_line_series(ctx, root, Role::Series(0), &lpx, Some(Mark::LineCircle))?;
        draw_line_series(ctx, root, Role::Series(1), &rpx, Some(Mark::LineSquare))?;
        if matches!(spec.bottom, Bottom::Points(_)) {
            draw_categories(ctx, root, &l, |i| dual.backend_coord(&(i as f64, 0.0)).0)?;
        }
        Ok(())
    });
    Chart { svg, alt, table }
}

/// Several lines over labelled x positions at equal steps (e.g. the runs of a series), one
/// value per label and series; `None`/non-finite values break a line. Every point has a marker
/// (series are short). The table has one row per label and a column per series.
pub fn category_line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    labels: &[String],
    series: &[(String, Vec<Option<f64>>)],
    opts: &ChartOptions,
) -> Chart {
    let format = opts.format();
    let title = clean_label(title);
    let x_label = clean_label(x_label);
    let y_label = clean_label(y_label);
    let labels: Vec<String> = labels.iter().map(|l| clean_label(l)).collect();
    let names: Vec<String> = series.iter().map(|s| clean_label(&s.0)).collect();
    let n = labels.len();
    let at = |s: usize, i: usize| finite(series.get(s).and_then(|x| x.1.get(i).copied().flatten()));
    let mut head = vec![if x_label.is_empty() {
        "x".to_string()
    } else {
        x_label.clone()
    }];
    head.extend(names.iter().cloned());
    let mut table = vec![head];
    for (i, l) in labels.iter().enumerate() {
        let mut row = vec![l.clone()];
        row.extend((0..series.len()).map(|s| cell(at(s, i), format)));
        table.push(row);
    }
    let values = || (0..series.len()).flat_map(move |s| (0..n).filter_map(move |i| at(s, i)));
    let Some((y_lo, y_hi)) = min_max(values()) else {
        return no_data(&title, opts, table);
    };
    let changes: Vec<String> = names
        .iter()
        .enumerate()
        .filter_map(|(s, name)| {
            let first = (0..n).find_map(|i| at(s, i))?;
            let last = (0..n).rev().find_map(|i| at(s, i))?;
            Some(format!(
                "{name} {} → {}",
                fmt_value(first, format),
                fmt_value(last, format)
            ))
        })
        .collect();
    let alt = format!(
        "Line chart {}: {} series, {} point{} along {} ({}){}.",
        quoted(&title),
        series.len(),
        n,
        plural(n),
        if x_label.is_empty() { "x" } else { &x_label },
        labels.join(", "),
        if changes.is_empty() {
            String::new()
        } else {
            format!("; first to last: {}", changes.join(", "))
        }
    );
    let legend: Vec<LegendItem> = names
        .iter()
        .enumerate()
        .map(|(i, name)| LegendItem {
            name: name.clone(),
            role: Role::Series(i),
            mark: Mark::LineCircle,
        })
        .collect();
    let svg = render(opts, &title, &alt, &legend, |ctx, root, body| {
        let (lo, hi) = value_range(y_lo, y_hi, format, false);
        let spec = Spec {
            x: LinearAxis::bare(-0.5, n as f64 - 0.5),
            y: LinearAxis::nice(lo, hi, value_ticks_target(body), format),
            y2: None,
            x_desc: x_label.clone(),
            y_desc: y_label.clone(),
            y2_desc: String::new(),
            bottom: Bottom::Points(labels.clone()),
        };
        let l = layout(ctx, body, &spec);
        if too_small(&l) {
            return Ok(());
        }
        let mut chart = build(root, body, &spec, &l)?;
        draw_mesh(ctx, &mut chart, &spec, &l)?;
        for s in 0..series.len() {
            let px: Vec<Option<(i32, i32)>> = (0..n)
                .map(|i| at(s, i).map(|v| chart.backend_coord(&(i as f64, v))))
                .collect();
            draw_line_series(ctx, root, Role::Series(s), &px, Some(Mark::LineCircle))?;
        }
        draw_categories(ctx, root, &l, |i| chart.backend_coord(&(i as f64, 0.0)).0)
    });
    Chart { svg, alt, table }
}

// ---- histogram --------------------------------------------------------------------------------

/// Counts of `values` in `bins` equal-width bins (1..=200). Values all within 0..1 use 0..1 as
/// the range (scores); otherwise the data's own range. Non-finite values are skipped (and said
/// so in the alt text). With [`ChartOptions::percent`] the x axis reads in percent.
pub fn histogram(
    title: &str,
    x_label: &str,
    values: &[f64],
    bins: usize,
    opts: &ChartOptions,
) -> Chart {
    let format = opts.format();
    let title = clean_label(title);
    let x_label = clean_label(x_label);
    let bins = bins.clamp(1, 200);
    let finite_values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let skipped = values.len() - finite_values.len();
    let x_head = if x_label.is_empty() {
        "Bin".to_string()
    } else {
        x_label.clone()
    };
    let Some((lo, hi)) = min_max(finite_values.iter().copied()) else {
        return no_data(&title, opts, vec![vec![x_head, "Count".to_string()]]);
    };
    let (lo, hi) = if lo >= 0.0 && hi <= 1.0 {
        (0.0, 1.0)
    } else if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let width = (hi - lo) / bins as f64;
    let mut counts = vec![0usize; bins];
    for v in &finite_values {
        let b = (((v - lo) / width).floor().max(0.0) as usize).min(bins - 1);
        if let Some(c) = counts.get_mut(b) {
            *c += 1;
        }
    }
    let edge = |i: usize| lo + width * i as f64;
    let edge_text = |v: f64| fmt_edge(v, width, format);
    let mut table = vec![vec![x_head, "Count".to_string()]];
    for (i, c) in counts.iter().enumerate() {
        table.push(vec![
            format!("{}–{}", edge_text(edge(i)), edge_text(edge(i + 1))),
            c.to_string(),
        ]);
    }
    let mode = counts.iter().enumerate().fold(
        (0, 0),
        |best, (i, &c)| if c > best.1 { (i, c) } else { best },
    );
    let mut alt = format!(
        "Histogram {}: {} value{} in {} bin{} from {} to {}; most in {}–{} ({})",
        quoted(&title),
        finite_values.len(),
        plural(finite_values.len()),
        bins,
        plural(bins),
        edge_text(lo),
        edge_text(hi),
        edge_text(edge(mode.0)),
        edge_text(edge(mode.0 + 1)),
        mode.1
    );
    if skipped > 0 {
        alt.push_str(&format!(
            "; {skipped} non-finite value{} skipped",
            plural(skipped)
        ));
    }
    alt.push('.');
    let max_count = mode.1 as f64;
    let svg = render(opts, &title, &alt, &[], |ctx, root, body| {
        let spec = Spec {
            x: LinearAxis::nice(lo, hi, x_ticks_target(body), format),
            y: LinearAxis::nice(0.0, max_count, value_ticks_target(body), Format::Count),
            y2: None,
            x_desc: x_label.clone(),
            y_desc: "Count".to_string(),
            y2_desc: String::new(),
            bottom: Bottom::Ticks,
        };
        let l = layout(ctx, body, &spec);
        if too_small(&l) {
            return Ok(());
        }
        let mut chart = build(root, body, &spec, &l)?;
        draw_mesh(ctx, &mut chart, &spec, &l)?;
        let colour = ctx.color(Role::Series(0));
        for (i, &c) in counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let (x0, top) = chart.backend_coord(&(edge(i), c as f64));
            let (x1, base) = chart.backend_coord(&(edge(i + 1), 0.0));
            let x1 = if x1 - x0 > 3 { x1 - 1 } else { x1 };
            root.draw(&Rectangle::new(
                [(x0, top), (x1.max(x0 + 1), base)],
                colour.filled(),
            ))?;
            let cx = (x0 + x1) / 2;
            value_label(
                ctx,
                root,
                &c.to_string(),
                (cx, top),
                false,
                f64::from(x1 - x0 + 2),
            )?;
        }
        Ok(())
    });
    Chart { svg, alt, table }
}

/// A bin edge with as many decimals as the bin width needs.
fn fmt_edge(v: f64, width: f64, format: Format) -> String {
    let scale = if format == Format::Percent {
        100.0
    } else {
        1.0
    };
    let mut decimals = 0;
    let mut w = width * scale;
    while w < 1.0 && w > 0.0 && decimals < 6 {
        w *= 10.0;
        decimals += 1;
    }
    // A width like 0.25 needs two decimals, not one.
    let mut probe = width * scale;
    for _ in 0..decimals {
        probe *= 10.0;
    }
    if (probe - probe.round()).abs() > 1e-6 && decimals < 6 {
        decimals += 1;
    }
    let s = format!("{:.decimals$}", v * scale);
    let s = if s.starts_with('-')
        && s.trim_start_matches('-')
            .chars()
            .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    };
    if format == Format::Percent {
        format!("{s}%")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_extremes_and_ends() {
        let pts: Vec<(f64, f64)> = (0..10_000)
            .map(|i| {
                (
                    f64::from(i),
                    if i == 5_001 { 100.0 } else { f64::from(i % 7) },
                )
            })
            .collect();
        let d = decimate(&pts, 2000);
        assert!(d.len() <= 2002, "{}", d.len());
        assert_eq!(d.first(), pts.first());
        assert_eq!(d.last(), pts.last());
        assert!(d.contains(&(5001.0, 100.0)), "spike kept");
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0), "order kept");
        assert_eq!(decimate(&pts[..10], 2000).len(), 10);
    }

    #[test]
    fn polylines_split_on_gaps_and_drop_repeats() {
        let got = polylines([
            Some((0, 0)),
            Some((0, 0)),
            Some((1, 1)),
            None,
            None,
            Some((3, 3)),
        ]);
        assert_eq!(got, vec![vec![(0, 0), (1, 1)], vec![(3, 3)]]);
        assert!(polylines([None]).is_empty());
    }

    fn check_edge(v: f64, width: f64, format: Format, expected: &str) {
        assert_eq!(
            fmt_edge(v, width, format),
            expected,
            "fmt_edge({v}, {width}, {format:?})"
        );
    }

    #[test]
    fn bin_edges() {
        check_edge(0.1, 0.1, Format::Number, "0.1");
        check_edge(0.25, 0.25, Format::Number, "0.25");
        check_edge(0.2, 0.1, Format::Percent, "20%");
        check_edge(0.05, 0.05, Format::Percent, "5%");
        check_edge(12.0, 5.0, Format::Number, "12");
        check_edge(-0.0, 0.1, Format::Number, "0.0");
    }
}
