//! Axes with "nice" ticks (1, 2, 2.5, 5 × 10ⁿ) and the number formats of ticks, labels and tables.
//!
//! Tick values are computed with integer mantissas and exact powers of ten, never with
//! `log10`/`powf` (whose last bits differ between the system libm and wasm), so ticks and their
//! labels are identical on every target.

use std::ops::Range;

use plotters::coord::ranged1d::{
    KeyPointHint, KeyPointWeight, NoDefaultFormatting, Ranged, ValueFormatter,
};

/// How values on an axis (and in labels and tables) are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Plain numbers.
    Number,
    /// Fractions shown as percent: 0.25 → "25%".
    Percent,
    /// Non-negative whole counts.
    Count,
    /// Numbers with this many decimals (one chart's values written alike).
    Fixed(u8),
}

impl Format {
    /// For [`Format::Number`], the fixed decimals that suit the largest magnitude in `values`,
    /// so one chart's labels line up ("−3.5", "12.2", "7.0"), and none when every value is whole
    /// (counts: "3", not "3.00"); other formats are kept.
    pub(crate) fn shared(self, values: impl IntoIterator<Item = f64>) -> Format {
        if self != Format::Number {
            return self;
        }
        let (max, whole, n) = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold((0.0, true, 0usize), |(m, w, n): (f64, bool, usize), v| {
                (m.max(v.abs()), w && v.fract() == 0.0, n + 1)
            });
        Format::Fixed(match max {
            _ if whole && n > 0 => 0,
            m if m >= 100.0 => 0,
            m if m >= 10.0 => 1,
            m if m >= 1.0 => 2,
            _ => 3,
        })
    }
}

/// 10ⁿ by repeated multiplication: exact up to 10²², identical on every target beyond.
fn pow10(n: u32) -> f64 {
    (0..n).fold(1.0, |acc, _| acc * 10.0)
}

/// A tick step `mant × 10^exp` with `mant` ∈ {1, 2, 25 (a 2.5 at `exp − 1`), 5}.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    mant: i64,
    exp: i32,
}

impl Step {
    /// The smallest nice step ≥ `raw` (whole for counts). Found without logarithms.
    fn at_least(raw: f64, format: Format) -> Self {
        let raw = if raw.is_finite() && raw > 0.0 {
            raw
        } else {
            1.0
        };
        let mut e: i32 = 0;
        let mut p = 1.0;
        while p * 10.0 <= raw && e < 300 {
            p *= 10.0;
            e += 1;
        }
        while p > raw && e > -300 {
            p /= 10.0;
            e -= 1;
        }
        let m = raw / p;
        let step = match m {
            m if m <= 1.0 => Step { mant: 1, exp: e },
            m if m <= 2.0 => Step { mant: 2, exp: e },
            m if m <= 2.5 => Step {
                mant: 25,
                exp: e - 1,
            },
            m if m <= 5.0 => Step { mant: 5, exp: e },
            _ => Step {
                mant: 1,
                exp: e + 1,
            },
        };
        if format == Format::Count && step.exp < 0 {
            Step { mant: 1, exp: 0 }
        } else {
            step
        }
    }

    /// The next nice step up.
    fn next(self) -> Self {
        match self.mant {
            1 => Step { mant: 2, ..self },
            2 => Step {
                mant: 25,
                exp: self.exp - 1,
            },
            25 => Step {
                mant: 5,
                exp: self.exp + 1,
            },
            _ => Step {
                mant: 1,
                exp: self.exp + 1,
            },
        }
    }

    /// `k` steps, computed as an integer times an exact power of ten.
    fn value(self, k: i64) -> f64 {
        let n = k.saturating_mul(self.mant) as f64;
        if self.exp >= 0 {
            n * pow10(self.exp.unsigned_abs())
        } else {
            n / pow10(self.exp.unsigned_abs())
        }
    }
}

/// The tick indices `start..=end` covering `lo..=hi` with `step`, or `None` if absurd.
fn span(lo: f64, hi: f64, step: Step) -> Option<(i64, i64)> {
    let s = step.value(1);
    let start = ((lo / s) + 1e-9).floor();
    let end = ((hi / s) - 1e-9).ceil();
    (start.is_finite() && end.is_finite() && end - start <= 1000.0)
        .then(|| (start as i64, (end as i64).max(start as i64 + 1)))
}

/// A linear axis over `lo..hi` with precomputed ticks and their labels.
#[derive(Clone, Debug)]
pub(crate) struct LinearAxis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    labels: Vec<String>,
}

/// Maximum number of ticks on one axis, whatever the caller asks.
const MAX_TICKS: usize = 40;

impl LinearAxis {
    /// A nice axis covering `lo..=hi` with about `target` intervals. Degenerate or non-finite
    /// ranges are widened to something drawable.
    pub(crate) fn nice(lo: f64, hi: f64, target: usize, format: Format) -> Self {
        let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() {
            (lo.min(hi), lo.max(hi))
        } else {
            (0.0, 1.0)
        };
        if hi - lo <= 0.0 || !(hi - lo).is_finite() {
            let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
            lo -= if lo == 0.0 { 0.0 } else { pad };
            hi += pad;
        }
        let raw = (hi - lo) / target.clamp(1, MAX_TICKS) as f64;
        let mut step = Step::at_least(raw, format);
        let (start, end) = span(lo, hi, step).unwrap_or((0, 1));
        if end == 1 && start == 0 && step.value(1) == 0.0 {
            step = Step { mant: 1, exp: 0 };
        }
        Self::from_step(start, end, step, format)
    }

    /// Like [`LinearAxis::nice`] but with exactly `intervals` intervals, so a secondary axis
    /// shares the primary axis's grid lines. The step grows until the range fits.
    pub(crate) fn aligned(lo: f64, hi: f64, intervals: usize, format: Format) -> Self {
        let n = intervals.clamp(1, MAX_TICKS) as i64;
        let first = Self::nice(lo, hi, intervals, format);
        let (lo, hi) = (first.lo, first.hi);
        let mut step = Step::at_least((hi - lo) / n as f64, format);
        for _ in 0..40 {
            let start = ((lo / step.value(1)) + 1e-9).floor();
            if start.is_finite() && step.value(start as i64 + n) >= hi - 1e-9 * hi.abs() {
                return Self::from_step(start as i64, start as i64 + n, step, format);
            }
            step = step.next();
        }
        first
    }

    fn from_step(start: i64, end: i64, step: Step, format: Format) -> Self {
        let decimals = step.exp.min(0).unsigned_abs() as usize;
        let ticks: Vec<f64> = (start..=end).map(|k| step.value(k)).collect();
        let labels = ticks
            .iter()
            .map(|t| fmt_tick(*t, decimals, format))
            .collect();
        Self {
            lo: step.value(start),
            hi: step.value(end),
            ticks,
            labels,
        }
    }

    /// An axis over `lo..hi` with no ticks (categories are labelled by the chart itself).
    pub(crate) fn bare(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            ticks: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// Number of intervals between ticks (0 for a bare axis).
    pub(crate) fn intervals(&self) -> usize {
        self.ticks.len().saturating_sub(1)
    }

    pub(crate) fn labels(&self) -> &[String] {
        &self.labels
    }
}

impl Ranged for LinearAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.hi - self.lo;
        if span <= 0.0 || !value.is_finite() {
            return limit.0;
        }
        let t = ((value - self.lo) / span).clamp(-10.0, 10.0);
        (f64::from(limit.0) + t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if matches!(hint.weight(), KeyPointWeight::Any) {
            return Vec::new();
        }
        let max = hint.max_num_points().max(2);
        let stride = self.ticks.len().div_ceil(max).max(1);
        self.ticks.iter().step_by(stride).copied().collect()
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for LinearAxis {
    fn format_ext(&self, value: &f64) -> String {
        self.ticks
            .iter()
            .position(|t| t == value)
            .and_then(|i| self.labels.get(i))
            .cloned()
            .unwrap_or_else(|| fmt_value(*value, Format::Number))
    }
}

/// Replaces a leading ASCII minus with U+2212 for typeset labels.
pub(crate) fn typeset_minus(s: String) -> String {
    match s.strip_prefix('-') {
        Some(rest) => format!("−{rest}"),
        None => s,
    }
}

/// Drops the sign of a negative zero ("-0", "-0.00" → "0", "0.00").
fn unsigned_zero(s: String) -> String {
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| matches!(c, '0' | '.' | '%')) => rest.to_string(),
        _ => s,
    }
}

/// Groups the integer digits in threes with commas: "12345.6" → "12,345.6".
fn group_thousands(s: &str) -> String {
    let (sign, body) = match s.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", s),
    };
    let (int, frac) = match body.find('.') {
        Some(i) => body.split_at(i),
        None => (body, ""),
    };
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}{frac}")
}

fn fmt_tick(v: f64, decimals: usize, format: Format) -> String {
    let s = match format {
        Format::Percent => format!("{:.*}%", decimals.saturating_sub(2), v * 100.0),
        Format::Number | Format::Count | Format::Fixed(_) => {
            let s = format!("{v:.decimals$}");
            if v.abs() >= 10_000.0 {
                group_thousands(&s)
            } else {
                s
            }
        }
    };
    typeset_minus(unsigned_zero(s))
}

/// A value for a label or table cell: percent with one decimal, counts whole, other numbers with
/// about three significant digits (at least the whole part, grouped in thousands).
pub(crate) fn fmt_value(v: f64, format: Format) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    let s = match format {
        Format::Percent => format!("{:.1}%", v * 100.0),
        Format::Count => group_thousands(&format!("{v:.0}")),
        Format::Fixed(d) => group_thousands(&format!("{v:.*}", usize::from(d))),
        Format::Number => {
            let a = v.abs();
            if a > 0.0 && a < 1e-5 {
                return format!("{v:.2e}");
            }
            let decimals = if a >= 100.0 || a == 0.0 {
                0
            } else if a >= 10.0 {
                1
            } else if a >= 1.0 {
                2
            } else {
                // Three significant digits (0.0123 → 4 decimals), at most 8 decimals.
                let mut d = 3;
                let mut x = a * 10.0;
                while x < 1.0 && d < 8 {
                    x *= 10.0;
                    d += 1;
                }
                d
            };
            group_thousands(&format!("{v:.decimals$}"))
        }
    };
    unsigned_zero(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_axis(lo: f64, hi: f64, target: usize, format: Format, expected: &[&str]) {
        let axis = LinearAxis::nice(lo, hi, target, format);
        assert_eq!(
            axis.labels(),
            expected,
            "nice({lo}, {hi}, {target}, {format:?})"
        );
        assert!(axis.range().start <= lo.min(hi) || !lo.is_finite());
        assert!(axis.range().end >= hi.max(lo) || !hi.is_finite());
    }

    #[test]
    fn nice_ticks() {
        check_axis(
            0.0,
            1.0,
            5,
            Format::Percent,
            &["0%", "20%", "40%", "60%", "80%", "100%"],
        );
        check_axis(
            0.0,
            1.0,
            4,
            Format::Percent,
            &["0%", "25%", "50%", "75%", "100%"],
        );
        check_axis(
            0.0,
            0.012,
            4,
            Format::Percent,
            &["0.0%", "0.5%", "1.0%", "1.5%"],
        );
        check_axis(
            0.0,
            0.8,
            4,
            Format::Number,
            &["0.0", "0.2", "0.4", "0.6", "0.8"],
        );
        check_axis(
            -3.0,
            7.0,
            5,
            Format::Number,
            &["−4", "−2", "0", "2", "4", "6", "8"],
        );
        check_axis(
            0.0,
            48_000.0,
            4,
            Format::Number,
            &["0", "20,000", "40,000", "60,000"],
        );
        check_axis(0.0, 3.0, 5, Format::Count, &["0", "1", "2", "3"]);
        check_axis(
            1.37,
            2.91,
            4,
            Format::Number,
            &["1.0", "1.5", "2.0", "2.5", "3.0"],
        );
        check_axis(0.0, 6.0, 4, Format::Number, &["0", "2", "4", "6"]);
    }

    fn check_aligned(lo: f64, hi: f64, n: usize, expected: &[&str]) {
        let axis = LinearAxis::aligned(lo, hi, n, Format::Number);
        assert_eq!(axis.labels(), expected, "aligned({lo}, {hi}, {n})");
    }

    #[test]
    fn aligned_axes_have_the_asked_number_of_intervals() {
        check_aligned(0.0, 6.0, 4, &["0", "2", "4", "6", "8"]);
        check_aligned(0.0, 6.0, 3, &["0", "2", "4", "6"]);
        check_aligned(-521.0, 1000.0, 4, &["−1000", "−500", "0", "500", "1000"]);
        check_aligned(0.0, 0.0, 5, &["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    }

    #[test]
    fn degenerate_ranges_still_draw() {
        check_axis(
            0.0,
            0.0,
            5,
            Format::Number,
            &["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"],
        );
        check_axis(
            5.0,
            5.0,
            5,
            Format::Number,
            &["4.4", "4.6", "4.8", "5.0", "5.2", "5.4", "5.6"],
        );
        let a = LinearAxis::nice(f64::NAN, f64::INFINITY, 5, Format::Number);
        assert_eq!(a.range(), 0.0..1.0);
        let a = LinearAxis::nice(-1e308, 1e308, 5, Format::Number);
        assert!(a.labels().len() <= 1002);
        let a = LinearAxis::nice(0.0, 1e-300, 5, Format::Number);
        assert!(!a.labels().is_empty());
    }

    #[test]
    fn mapping() {
        let a = LinearAxis::nice(0.0, 1.0, 5, Format::Percent);
        assert_eq!(a.map(&0.0, (100, 0)), 100);
        assert_eq!(a.map(&1.0, (100, 0)), 0);
        assert_eq!(a.map(&0.5, (0, 101)), 51);
        assert_eq!(a.map(&f64::NAN, (7, 9)), 7);
        assert_eq!(a.format_ext(&a.range().end), "100%");
    }

    fn check_value(v: f64, format: Format, expected: &str) {
        assert_eq!(fmt_value(v, format), expected, "fmt_value({v}, {format:?})");
    }

    #[test]
    fn values() {
        check_value(0.8512, Format::Percent, "85.1%");
        check_value(1.0, Format::Percent, "100.0%");
        check_value(-0.0001, Format::Percent, "0.0%");
        check_value(1234567.0, Format::Number, "1,234,567");
        check_value(-1234.5, Format::Number, "-1,234");
        check_value(42.25, Format::Number, "42.2");
        check_value(4.56789, Format::Number, "4.57");
        check_value(0.5, Format::Number, "0.500");
        check_value(0.001234, Format::Number, "0.00123");
        check_value(0.0, Format::Number, "0");
        check_value(1e-12, Format::Number, "1.00e-12");
        check_value(f64::NAN, Format::Number, "n/a");
        check_value(12.0, Format::Count, "12");
        check_value(-3.5, Format::Fixed(1), "-3.5");
        check_value(12345.678, Format::Fixed(2), "12,345.68");
        assert_eq!(
            Format::Number.shared([-3.5, 12.25, f64::NAN]),
            Format::Fixed(1)
        );
        assert_eq!(Format::Number.shared([0.5]), Format::Fixed(3));
        assert_eq!(Format::Number.shared([1.0, 2.0, 0.0]), Format::Fixed(0));
        assert_eq!(Format::Number.shared([]), Format::Fixed(3));
        assert_eq!(Format::Percent.shared([5.0]), Format::Percent);
        assert_eq!(typeset_minus("-3".into()), "−3");
    }
}
