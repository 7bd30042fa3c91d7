//! Line charts: several series over a numeric x axis (long series decimated), or over labelled
//! x positions at equal steps; and the polyline drawing the dual-axis chart shares.

use plotters::prelude::*;

use super::axis::{fmt_value, Format, LinearAxis};
use super::frame::{
    cell, draw_categories, finite, min_max, or_default, plot, plural, value_range,
    value_ticks_target, x_ticks_target, Bottom, Spec,
};
use super::theme::Role;
use super::{
    clean_label, no_data, quoted, render, Area, Chart, ChartOptions, Ctx, DrawResult, LegendItem,
    Mark,
};

/// Above this many points a line series is decimated (min/max per bucket keeps the peaks).
pub(crate) const MAX_LINE_POINTS: usize = 2000;

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
pub(super) fn polylines(
    points: impl IntoIterator<Item = Option<(i32, i32)>>,
) -> Vec<Vec<(i32, i32)>> {
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
pub(super) fn draw_line_series(
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
    let mut table = vec![vec![
        "Series".to_string(),
        or_default(&x_label, "x"),
        or_default(&y_label, "y"),
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
            x_desc: x_label.clone(),
            y_desc: y_label.clone(),
            bottom: Bottom::Ticks,
            y2: None,
        };
        let Some((chart, _)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
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
    let mut head = vec![or_default(&x_label, "x")];
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
            x_desc: x_label.clone(),
            y_desc: y_label.clone(),
            bottom: Bottom::Points(labels.clone()),
            y2: None,
        };
        let Some((chart, l)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
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
}
