//! The dual-axis line chart: two series sharing an x axis, each on its own value axis (left and
//! right), with grid lines shared between them.

use plotters::chart::DualCoordChartContext;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{fmt_value, Format, LinearAxis};
use super::frame::{
    cell, draw_categories, draw_mesh, finite, min_max, open, or_default, plural, value_range,
    value_ticks_target, x_ticks_target, Bottom, Layout, Spec, TICK,
};
use super::line::draw_line_series;
use super::theme::Role;
use super::{
    clean_label, no_data, quoted, render, Chart, ChartOptions, Ctx, DrawResult, LegendItem, Mark,
    LABEL_PX, TICK_PX,
};

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
    let mut table = vec![vec![
        or_default(&x_label, "x"),
        or_default(&l_name, "left"),
        or_default(&r_name, "right"),
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
        or_default(&l_name, "left series"),
        or_default(&x_label, "x"),
        range_text(l_range, lf),
        or_default(&r_name, "right series"),
        range_text(r_range, rf),
        n,
        plural(n)
    );
    let legend = vec![
        LegendItem {
            name: format!("{} (left axis)", or_default(&l_name, "left")),
            role: Role::Series(0),
            mark: Mark::LineCircle,
        },
        LegendItem {
            name: format!("{} (right axis)", or_default(&r_name, "right")),
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
            x_desc: x_label.clone(),
            y_desc: l_desc.clone(),
            bottom,
            y2: Some((y2.clone(), r_desc.clone())),
        };
        let Some((chart, l)) = open(ctx, root, body, &spec)? else {
            return Ok(());
        };
        let mut dual = chart.set_secondary_coord(spec.x.clone(), y2);
        draw_mesh(ctx, &mut dual, &spec, &l)?;
        draw_right_axis(ctx, &mut dual, &r_desc, &l)?;
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
