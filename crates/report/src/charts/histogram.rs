//! Histograms: counts of values in equal-width bins, scores (0..1) on a fixed 0..1 range.

use plotters::prelude::*;

use super::axis::{Format, LinearAxis};
use super::frame::{
    min_max, or_default, plot, plural, value_label, value_ticks_target, x_ticks_target, Bottom,
    Spec,
};
use super::theme::Role;
use super::{clean_label, no_data, quoted, render, Chart, ChartOptions};

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
    let x_head = or_default(&x_label, "Bin");
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
            x_desc: x_label.clone(),
            y_desc: "Count".to_string(),
            bottom: Bottom::Ticks,
            y2: None,
        };
        let Some((chart, _)) = plot(ctx, root, body, &spec)? else {
            return Ok(());
        };
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
