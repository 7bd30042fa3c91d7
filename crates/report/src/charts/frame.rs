//! The Cartesian frame every chart kind draws in, written once: a [`Spec`] of axes and titles
//! is laid out (label areas sized from measured tick labels; category labels drawn
//! horizontally, truncated to their slot, or, when slots are narrow, rotated and truncated to at
//! most 30 % of the chart height), built into a plotters chart and given its axes, ticks, grid
//! lines and axis titles. A chart kind calls [`plot`] (or [`open`] then [`draw_mesh`] for a
//! second value axis) and draws its data. Also the value helpers the chart kinds share (missing
//! and non-finite values, ranges, table cells, default titles).

use plotters::prelude::*;
use plotters::style::colors::TRANSPARENT;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{fmt_value, typeset_minus, Format, LinearAxis};
use super::font;
use super::theme::Role;
use super::{Area, Ctx, DrawResult, Rect, LABEL_PX, TICK_PX, VALUE_PX};

// ---- values -----------------------------------------------------------------------------------

/// A `title`, or `default` when it is empty (table headers, alt text).
pub(super) fn or_default(title: &str, default: &str) -> String {
    if title.is_empty() {
        default.to_string()
    } else {
        title.to_string()
    }
}

/// A finite value or nothing.
pub(super) fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

/// A value for a table cell: "n/a" when missing.
pub(super) fn cell(v: Option<f64>, format: Format) -> String {
    finite(v).map_or_else(|| "n/a".to_string(), |v| fmt_value(v, format))
}

/// A value for a label in the SVG (typographic minus).
pub(super) fn label(v: f64, format: Format) -> String {
    typeset_minus(fmt_value(v, format))
}

/// The smallest and largest finite value, or `None` when there is none.
pub(super) fn min_max(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// The value range an axis must show: bars include 0; percent spans at least 0–100 %.
pub(super) fn value_range(lo: f64, hi: f64, format: Format, include_zero: bool) -> (f64, f64) {
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

/// "s" unless `n` is 1.
pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

// ---- layout -----------------------------------------------------------------------------------

/// What the bottom axis shows.
pub(super) enum Bottom {
    /// Numeric ticks from the x axis.
    Ticks,
    /// One label per unit slot `i..i+1`, centred.
    Categories(Vec<String>),
    /// One label per point at `i` (slots `i-0.5..i+0.5`).
    Points(Vec<String>),
}

/// A plot's axes and axis titles (an empty title is not drawn).
pub(super) struct Spec {
    pub(super) x: LinearAxis,
    pub(super) y: LinearAxis,
    pub(super) x_desc: String,
    pub(super) y_desc: String,
    pub(super) bottom: Bottom,
    /// The right value axis and its title, for a dual-axis chart.
    pub(super) y2: Option<(LinearAxis, String)>,
}

/// Where things go, in absolute pixels.
pub(super) struct Layout {
    pub(super) plot: Rect,
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
pub(super) const TICK: i32 = 4;
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
    let right_w = spec
        .y2
        .as_ref()
        .map_or(0, |(a, d)| axis_label_width(a) + 2 * TICK + 4 + desc(d));
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

/// A built chart and where its parts went, or `None` when the plot is too small to draw in.
pub(super) type Opened<'a, 'b> =
    Result<Option<(Chart2d<'a, 'b>, Layout)>, DrawingAreaErrorKind<std::fmt::Error>>;

/// Lays `spec` out in `body` and builds its plotters chart, axes not drawn yet (a dual-axis chart
/// sets its secondary coordinates first, then calls [`draw_mesh`]).
pub(super) fn open<'a, 'b>(
    ctx: &Ctx,
    root: &'a Area<'b>,
    body: Rect,
    spec: &Spec,
) -> Opened<'a, 'b> {
    let l = layout(ctx, body, spec);
    if too_small(&l) {
        return Ok(None);
    }
    let chart = build(root, body, spec, &l)?;
    Ok(Some((chart, l)))
}

/// The frame of a chart with one value axis: [`open`], then the axes, grid lines, tick labels
/// and axis titles drawn ([`draw_mesh`]), ready for the data.
pub(super) fn plot<'a, 'b>(
    ctx: &Ctx,
    root: &'a Area<'b>,
    body: Rect,
    spec: &Spec,
) -> Opened<'a, 'b> {
    let Some((mut chart, l)) = open(ctx, root, body, spec)? else {
        return Ok(None);
    };
    draw_mesh(ctx, &mut chart, spec, &l)?;
    Ok(Some((chart, l)))
}

pub(super) type Chart2d<'a, 'b> =
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
pub(super) fn draw_mesh(ctx: &Ctx, chart: &mut Chart2d, spec: &Spec, l: &Layout) -> DrawResult {
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

/// Draws the category labels under the plot, at `centre(i)` pixels.
pub(super) fn draw_categories(
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
pub(super) fn value_label(
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

pub(super) fn value_ticks_target(body: Rect) -> usize {
    ((body.height() - 80) / 40).clamp(2, 8) as usize
}

pub(super) fn x_ticks_target(body: Rect) -> usize {
    (body.width() / 90).clamp(2, 10) as usize
}
