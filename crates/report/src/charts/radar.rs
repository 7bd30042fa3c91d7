//! Radar (spider) chart of scores in 0..1, drawn with plotters elements in pixel coordinates.
//!
//! Angles use `libm` so the same vertices come out natively and in wasm. Fewer than three axes
//! make no polygon, so such input is drawn as a percent bar chart instead.

use std::f64::consts::PI;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{fmt_value, Format};
use super::theme::Role;
use super::{bar_chart, clean_label, font, no_data, quoted, render, Chart, ChartOptions, LABEL_PX};

/// Rings drawn at these fractions of the full score.
const RINGS: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

/// A radar chart of component scores (fractions 0..1, drawn clamped to that range, written in
/// percent). Non-finite scores are drawn at 0 and labelled "n/a". With fewer than three axes
/// the scores are drawn as a bar chart.
pub fn radar_chart(title: &str, axes: &[(String, f64)], opts: &ChartOptions) -> Chart {
    let title = clean_label(title);
    let axes: Vec<(String, Option<f64>)> = axes
        .iter()
        .map(|(name, v)| (clean_label(name), Some(*v).filter(|v| v.is_finite())))
        .collect();
    let pct =
        |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| fmt_value(v, Format::Percent));
    let mut table = vec![vec!["Component".to_string(), "Score".to_string()]];
    table.extend(axes.iter().map(|(n, v)| vec![n.clone(), pct(*v)]));
    if axes.iter().all(|a| a.1.is_none()) {
        return no_data(&title, opts, table);
    }
    if axes.len() < 3 {
        let bar_opts = ChartOptions {
            percent: true,
            ..*opts
        };
        let mut chart = bar_chart(&title, "Score (%)", &axes, &bar_opts);
        chart.table = table;
        return chart;
    }
    let present: Vec<(&String, f64)> = axes.iter().filter_map(|(n, v)| v.map(|v| (n, v))).collect();
    let best = present
        .iter()
        .fold(None, |b: Option<(&String, f64)>, &(n, v)| match b {
            Some((_, bv)) if bv >= v => b,
            _ => Some((n, v)),
        });
    let worst = present
        .iter()
        .fold(None, |b: Option<(&String, f64)>, &(n, v)| match b {
            Some((_, bv)) if bv <= v => b,
            _ => Some((n, v)),
        });
    let mut alt = format!("Radar chart {} of {} scores", quoted(&title), axes.len());
    if let (Some((bn, bv)), Some((wn, wv))) = (best, worst) {
        alt.push_str(&format!(
            ": highest {bn} ({}), lowest {wn} ({})",
            pct(Some(bv)),
            pct(Some(wv))
        ));
    }
    let missing = axes.len() - present.len();
    if missing > 0 {
        alt.push_str(&format!("; {missing} n/a"));
    }
    alt.push('.');

    let svg = render(opts, &title, &alt, &[], |ctx, root, body| {
        let n = axes.len();
        // Side labels get up to 30 % of the width each; the radius takes what is left.
        let label_room = (f64::from(body.width()) * 0.3).min(180.0);
        let r = (f64::from(body.height()) / 2.0 - 26.0)
            .min(f64::from(body.width()) / 2.0 - label_room - 10.0)
            .max(10.0);
        let cx = f64::from(body.x0 + body.x1) / 2.0;
        let cy = f64::from(body.y0 + body.y1) / 2.0 + 4.0;
        let angle = |i: usize| -PI / 2.0 + 2.0 * PI * i as f64 / n as f64;
        let at = |i: usize, f: f64| -> (i32, i32) {
            let a = angle(i);
            (
                (cx + r * f * libm::cos(a)).round() as i32,
                (cy + r * f * libm::sin(a)).round() as i32,
            )
        };
        let grid = ctx.color(Role::Grid);
        for ring in RINGS {
            let mut pts: Vec<(i32, i32)> = (0..n).map(|i| at(i, ring)).collect();
            pts.extend(pts.first().copied());
            root.draw(&PathElement::new(pts, grid.stroke_width(1)))?;
        }
        for i in 0..n {
            root.draw(&PathElement::new(
                vec![at(i, 0.0), at(i, 1.0)],
                grid.stroke_width(1),
            ))?;
        }
        // Ring values along the first spoke (straight up), just right of it.
        for ring in RINGS {
            let (x, y) = at(0, ring);
            let style = ctx.font(9.0, Role::Muted, HPos::Left, VPos::Center);
            root.draw(&Text::new(
                fmt_value(ring, Format::Percent).replace(".0", ""),
                (x + 3, y),
                style,
            ))?;
        }
        let colour = ctx.color(Role::Series(0));
        let vertex = |i: usize, v: Option<f64>| at(i, v.unwrap_or(0.0).clamp(0.0, 1.0));
        let pts: Vec<(i32, i32)> = axes
            .iter()
            .enumerate()
            .map(|(i, a)| vertex(i, a.1))
            .collect();
        root.draw(&Polygon::new(pts.clone(), colour.mix(0.22).filled()))?;
        let mut outline = pts.clone();
        outline.extend(pts.first().copied());
        root.draw(&PathElement::new(outline, colour.stroke_width(2)))?;
        for (p, a) in pts.iter().zip(&axes) {
            if a.1.is_some() {
                root.draw(&Circle::new(*p, 3, colour.filled()))?;
            }
        }
        // Axis labels: "name 85.0%", anchored away from the centre.
        for (i, (name, v)) in axes.iter().enumerate() {
            let a = angle(i);
            let (dx, dy) = (libm::cos(a), libm::sin(a));
            let (x, y) = at(i, 1.0);
            let x = x + (dx * 8.0).round() as i32;
            let y = y + (dy * 8.0).round() as i32;
            let (h, max_w) = if dx > 0.25 {
                (HPos::Left, f64::from(body.x1 - x - 6))
            } else if dx < -0.25 {
                (HPos::Right, f64::from(x - body.x0 - 6))
            } else {
                (HPos::Center, label_room * 2.0)
            };
            let vpos = if dy < -0.5 {
                VPos::Bottom
            } else if dy > 0.5 {
                VPos::Top
            } else {
                VPos::Center
            };
            let value = pct(*v);
            let value_w = font::text_width(&format!(" {value}"), LABEL_PX);
            let shown =
                font::truncate(name, LABEL_PX, (max_w - value_w).max(0.0)).unwrap_or_default();
            let text = if shown.is_empty() {
                value.clone()
            } else {
                format!("{shown} {value}")
            };
            if shown != *name {
                ctx.tooltip(&text, &format!("{name} {value}"));
            }
            root.draw(&Text::new(
                text,
                (x, y),
                ctx.font(LABEL_PX, Role::Text, h, vpos),
            ))?;
        }
        Ok(())
    });
    Chart { svg, alt, table }
}
