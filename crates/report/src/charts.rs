//! SVG chart primitives (bars, grouped bars, lines, dual-axis lines, histograms, radar) as strings.
//!
//! Pure: no I/O, no DOM, no clock. The same input gives byte-identical SVG natively, in a Web
//! Worker and in wasm tests, so the dashboard and the offline HTML report share one picture.
//!
//! How (and why not plotters' own text path):
//! - plotters 0.3.7 lays out axes, ticks, grid lines and elements. It draws through our own
//!   `DrawingBackend` (`svg`), not `plotters-svg`: on wasm32 plotters always measures text through
//!   the DOM (`style/font/web.rs`, `window().unwrap()`), and its `ab_glyph` font backend and
//!   `register_font` are compiled out for `target_arch = "wasm32"`, so there is no way to hand it
//!   an embedded font there. Our backend answers plotters' `estimate_text_size` from an embedded
//!   DejaVu Sans subset instead (`font`, ~28 KB), and every other measurement here uses the same
//!   function. Plotters' own legend and multi-line text (which bypass the backend) are not used.
//! - Text in the SVG names the CSS stack `system-ui, 'DejaVu Sans', sans-serif`; the embedded
//!   font is only for measuring. DejaVu Sans is wide, so layout errs towards room to spare.
//! - Colours: every element has a role class (`ebc-fill-s0`, `ebc-stroke-grid`, …) and the colour
//!   of [`ChartStyle::theme`] as a presentation attribute; [`theme_css`] re-themes a drawn chart
//!   from a page's CSS. Series use the Okabe–Ito colour-blind-safe palette.
//! - Labels come from user data: all text is XML-escaped, control characters are dropped, long
//!   labels are truncated with "…" and keep their full text in a `<title>` tooltip.
//! - Every [`Chart`] carries a one-sentence `alt` and a `table` (header row + rows) with the same
//!   data as text. Empty or all-missing data gives a valid "No data" SVG; NaN/±inf are skipped.
//!   A chart set (numeric QA, codegen, comparisons) hands out [`NamedChart`]s: a chart with a
//!   stable key and title.

mod axis;
mod bar;
mod dual_axis;
mod font;
mod frame;
mod histogram;
mod interval;
mod line;
mod radar;
mod scatter;
mod svg;
pub(crate) use svg::escape;
mod theme;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

use axis::Format;
use svg::{SvgBackend, Tooltips};
use theme::{Palette, Role};

pub use bar::{bar_chart, grouped_bar_chart};
pub use dual_axis::{dual_axis_line_chart, XValues, YSeries};
pub use histogram::histogram;
pub use interval::{every_interval_holds_zero, interval_chart, Interval};
pub use line::{category_line_chart, line_chart};
pub use radar::radar_chart;
pub use scatter::{scatter_chart, ScatterPoint};
pub use theme::{theme_css, Theme};

/// Size and theme of a chart, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartStyle {
    /// Width in pixels (clamped to 200..=4000).
    pub width: u32,
    /// Height in pixels (clamped to 150..=3000).
    pub height: u32,
    /// Colours the SVG is drawn with (see [`theme_css`] to switch them from a page).
    pub theme: Theme,
}

impl Default for ChartStyle {
    fn default() -> Self {
        Self {
            width: 640,
            height: 320,
            theme: Theme::Light,
        }
    }
}

/// Options shared by all charts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChartOptions {
    /// Size and theme.
    pub style: ChartStyle,
    /// Values are fractions to show as percent (0.25 → "25%"); a percent value axis spans at
    /// least 0–100%. For [`dual_axis_line_chart`] each axis says so itself ([`YSeries::percent`]).
    pub percent: bool,
}

impl ChartOptions {
    fn format(&self) -> Format {
        if self.percent {
            Format::Percent
        } else {
            Format::Number
        }
    }
}

/// A drawn chart with its text equivalents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chart {
    /// A standalone `<svg>` element (no XML prologue), ready to inline in HTML or save as a file.
    pub svg: String,
    /// One sentence describing the chart, for `alt`/`aria-label`.
    pub alt: String,
    /// The data as a table: a header row, then one row per data point. Plain (unescaped) text.
    pub table: Vec<Vec<String>>,
}

/// A chart with a stable key (for tabs, anchors and tests) and its title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedChart {
    pub key: String,
    pub title: String,
    pub svg: String,
    pub alt: String,
    pub table: Vec<Vec<String>>,
}

/// `c` under a key and title, as the chart sets hand it to views and reports.
pub(crate) fn named(key: &str, title: &str, c: Chart) -> NamedChart {
    NamedChart {
        key: key.into(),
        title: title.into(),
        svg: c.svg,
        alt: c.alt,
        table: c.table,
    }
}

/// The chart sets' default options: 640 × 320 pixels in `theme`, values as percent or not.
pub(crate) fn opts(theme: Theme, percent: bool) -> ChartOptions {
    ChartOptions {
        style: ChartStyle {
            width: 640,
            height: 320,
            theme,
        },
        percent,
    }
}

// ---- shared drawing context -------------------------------------------------------------------

/// Font sizes in pixels.
pub(crate) const TITLE_PX: f64 = 15.0;
pub(crate) const LABEL_PX: f64 = 12.0;
pub(crate) const TICK_PX: f64 = 11.0;
pub(crate) const VALUE_PX: f64 = 10.0;

/// The drawing area of a whole chart, in pixels from the top left.
pub(crate) type Area<'a> = DrawingArea<SvgBackend<'a>, plotters::coord::Shift>;
pub(crate) type DrawResult = Result<(), DrawingAreaErrorKind<std::fmt::Error>>;

/// A pixel rectangle `x0..x1 × y0..y1`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rect {
    pub(crate) x0: i32,
    pub(crate) y0: i32,
    pub(crate) x1: i32,
    pub(crate) y1: i32,
}

impl Rect {
    pub(crate) fn width(&self) -> i32 {
        self.x1 - self.x0
    }
    pub(crate) fn height(&self) -> i32 {
        self.y1 - self.y0
    }
}

/// Theme colours, fonts and label fitting for chart bodies.
pub(crate) struct Ctx {
    palette: &'static Palette,
    tooltips: Rc<RefCell<Tooltips>>,
}

impl Ctx {
    pub(crate) fn color(&self, role: Role) -> RGBColor {
        let (r, g, b) = self.palette.color(role);
        RGBColor(r, g, b)
    }

    /// A text style of `size_px` in `role`'s colour, anchored at `h`/`v`.
    pub(crate) fn font(&self, size_px: f64, role: Role, h: HPos, v: VPos) -> TextStyle<'static> {
        self.styled(size_px, FontStyle::Normal, role, h, v)
    }

    /// Like [`Ctx::font`] with a weight or slant.
    pub(crate) fn styled(
        &self,
        size_px: f64,
        weight: FontStyle,
        role: Role,
        h: HPos,
        v: VPos,
    ) -> TextStyle<'static> {
        ("sans-serif", size_px, weight)
            .into_font()
            .color(&self.color(role))
            .pos(Pos::new(h, v))
    }

    /// Makes `full` the tooltip of the next text drawn as exactly `shown`.
    pub(crate) fn tooltip(&self, shown: &str, full: &str) {
        self.tooltips.borrow_mut().add(shown, full);
    }

    /// `text` truncated to `max_px` with "…"; the full text becomes the drawn label's tooltip.
    /// Empty when not even "…" fits.
    pub(crate) fn fit(&self, text: &str, size_px: f64, max_px: f64) -> String {
        match font::truncate(text, size_px, max_px) {
            Some(shown) => {
                self.tooltips.borrow_mut().add(&shown, text);
                shown
            }
            None => String::new(),
        }
    }
}

/// A legend entry: name and how its swatch looks.
pub(crate) struct LegendItem {
    pub(crate) name: String,
    pub(crate) role: Role,
    pub(crate) mark: Mark,
}

/// Legend swatch shapes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    Box,
    Line,
    LineCircle,
    LineSquare,
}

const PAD: i32 = 8;
const LEGEND_ROW: i32 = 18;
const LEGEND_MAX_ROWS: usize = 3;

/// Draws the frame (background, title, legend) and `body` into a complete `<svg>` string.
pub(crate) fn render(
    opts: &ChartOptions,
    title: &str,
    alt: &str,
    legend: &[LegendItem],
    body: impl FnOnce(&Ctx, &Area, Rect) -> DrawResult,
) -> String {
    let w = opts.style.width.clamp(200, 4000);
    let h = opts.style.height.clamp(150, 3000);
    let theme = opts.style.theme;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="ebc ebc-{}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="system-ui, 'DejaVu Sans', sans-serif">"#,
        theme.name()
    );
    let _ = write!(
        out,
        "\n<title>{}</title>\n<desc>{}</desc>\n",
        escape(title),
        escape(alt)
    );
    let ctx = Ctx {
        palette: Palette::of(theme),
        tooltips: Rc::new(RefCell::new(Tooltips::default())),
    };
    {
        let backend = SvgBackend::new(&mut out, (w, h), ctx.palette, Rc::clone(&ctx.tooltips));
        let root = backend.into_drawing_area();
        // A drawing error cannot come from our backend; whatever was drawn stays a valid SVG.
        let _ = draw_frame(&ctx, &root, (w as i32, h as i32), title, legend, body);
    }
    out.push_str("</svg>\n");
    out
}

fn draw_frame(
    ctx: &Ctx,
    root: &Area,
    (w, h): (i32, i32),
    title: &str,
    legend: &[LegendItem],
    body: impl FnOnce(&Ctx, &Area, Rect) -> DrawResult,
) -> DrawResult {
    root.fill(&ctx.color(Role::Bg))?;
    // The title is bold: measure it as regular text at a proportionally larger size.
    let title = ctx.fit(
        title,
        TITLE_PX * font::BOLD_WIDTH_FACTOR,
        f64::from(w - 2 * PAD),
    );
    let style = ctx.styled(
        TITLE_PX,
        FontStyle::Bold,
        Role::Text,
        HPos::Center,
        VPos::Top,
    );
    root.draw(&Text::new(title, (w / 2, PAD), style))?;
    let legend_top = PAD + 24;
    let rows = draw_legend(ctx, root, legend, legend_top, w)?;
    let top = legend_top + rows * LEGEND_ROW + if rows > 0 { 2 } else { 0 };
    body(
        ctx,
        root,
        Rect {
            x0: 0,
            y0: top,
            x1: w,
            y1: h,
        },
    )
}

/// One laid-out legend cell.
enum Cell<'i> {
    Item(&'i LegendItem, String, i32),
    More(String, i32),
}

impl Cell<'_> {
    fn width(&self) -> i32 {
        match self {
            Cell::Item(_, _, w) | Cell::More(_, w) => *w,
        }
    }
}

/// Lays legend items out in centred rows (at most three; the rest become "+N more").
/// Returns the number of rows drawn.
fn draw_legend(
    ctx: &Ctx,
    root: &Area,
    items: &[LegendItem],
    top: i32,
    w: i32,
) -> Result<i32, DrawingAreaErrorKind<std::fmt::Error>> {
    const SWATCH: i32 = 14;
    const GAP: i32 = 16;
    if items.is_empty() {
        return Ok(0);
    }
    let max_row = w - 2 * PAD;
    let name_max = f64::from(max_row.min(260) - SWATCH - 5);
    let mut rows: Vec<Vec<Cell>> = vec![Vec::new()];
    let mut row_w = 0;
    let mut hidden = 0;
    for item in items {
        let shown = font::truncate(&item.name, LABEL_PX, name_max).unwrap_or_default();
        let iw = SWATCH + 5 + font::text_width(&shown, LABEL_PX).ceil() as i32;
        let needs = if row_w == 0 { iw } else { row_w + GAP + iw };
        if needs > max_row && row_w > 0 {
            if rows.len() == LEGEND_MAX_ROWS {
                hidden += 1;
                continue;
            }
            rows.push(Vec::new());
            row_w = iw;
        } else {
            row_w = needs;
        }
        if let Some(row) = rows.last_mut() {
            row.push(Cell::Item(item, shown, iw));
        }
    }
    if hidden > 0 {
        if let Some(row) = rows.last_mut() {
            // Make room for the "+N more" note at the end of the last row.
            let more_w = |n: usize| font::text_width(&format!("+{n} more"), LABEL_PX).ceil() as i32;
            let mut total: i32 = row.iter().map(|c| c.width() + GAP).sum::<i32>();
            while total + more_w(hidden) > max_row && row.len() > 1 {
                if let Some(c) = row.pop() {
                    total -= c.width() + GAP;
                    hidden += 1;
                }
            }
            row.push(Cell::More(format!("+{hidden} more"), more_w(hidden)));
        }
    }
    for (r, row) in rows.iter().enumerate() {
        let total: i32 =
            row.iter().map(Cell::width).sum::<i32>() + GAP * (row.len() as i32 - 1).max(0);
        let mut x = (w - total) / 2;
        let cy = top + r as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        for cell in row {
            let (item, shown, iw) = match cell {
                Cell::More(text, _) => {
                    let style = ctx.font(LABEL_PX, Role::Muted, HPos::Left, VPos::Center);
                    root.draw(&Text::new(text.clone(), (x, cy), style))?;
                    continue;
                }
                Cell::Item(item, shown, iw) => (item, shown, iw),
            };
            let c = ctx.color(item.role);
            match item.mark {
                Mark::Box => {
                    root.draw(&Rectangle::new(
                        [(x + 2, cy - 5), (x + 12, cy + 5)],
                        c.filled(),
                    ))?;
                }
                Mark::Line | Mark::LineCircle | Mark::LineSquare => {
                    root.draw(&PathElement::new(
                        vec![(x, cy), (x + SWATCH, cy)],
                        c.stroke_width(2),
                    ))?;
                    let m = x + SWATCH / 2;
                    if item.mark == Mark::LineCircle {
                        root.draw(&Circle::new((m, cy), 3, c.filled()))?;
                    } else if item.mark == Mark::LineSquare {
                        root.draw(&Rectangle::new(
                            [(m - 3, cy - 3), (m + 3, cy + 3)],
                            c.filled(),
                        ))?;
                    }
                }
            }
            ctx.tooltips.borrow_mut().add(shown, &item.name);
            let style = ctx.font(LABEL_PX, Role::Text, HPos::Left, VPos::Center);
            root.draw(&Text::new(shown.clone(), (x + SWATCH + 5, cy), style))?;
            x += iw + GAP;
        }
    }
    Ok(rows.len() as i32)
}

/// A chart that says "No data" (empty input, or every value missing or not finite).
pub(crate) fn no_data(title: &str, opts: &ChartOptions, table: Vec<Vec<String>>) -> Chart {
    let title = clean_label(title);
    let alt = format!("{}: no data.", quoted(&title));
    let svg = render(opts, &title, &alt, &[], |ctx, root, r| {
        let style = ctx.font(13.0, Role::Muted, HPos::Center, VPos::Center);
        root.draw(&Text::new(
            "No data".to_string(),
            ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2),
            style,
        ))
    });
    Chart { svg, alt, table }
}

/// User text made safe to lay out: control characters become spaces, runs of whitespace one space.
pub(crate) fn clean_label(text: &str) -> String {
    let replaced: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    replaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A title in quotes for alt text, or "Chart" when empty.
pub(crate) fn quoted(title: &str) -> String {
    if title.is_empty() {
        "Chart".to_string()
    } else {
        format!("“{title}”")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_clean(input: &str, expected: &str) {
        assert_eq!(clean_label(input), expected, "clean_label({input:?})");
    }

    #[test]
    fn labels_are_cleaned() {
        check_clean("  a\n\tb  ", "a b");
        check_clean("x\u{0}y", "x y");
        check_clean("", "");
        check_clean("<b>&</b>", "<b>&</b>");
    }
}
