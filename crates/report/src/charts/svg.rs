//! A plotters `DrawingBackend` that writes SVG into a `String`, plus XML escaping.
//!
//! Why not plotters' own `SVGBackend`: it asks `FontDesc` for text sizes, which on wasm32 is
//! plotters' DOM path (`window().unwrap()`: a panic in a Web Worker or under node), and it cannot
//! write theme classes or `<title>` tooltips. This backend
//! - measures text with the embedded font ([`super::font`]), identically on every target;
//! - tags each element with a role class (see [`super::theme`]) next to its colour;
//! - appends a `<title>` with the full text to labels that were truncated;
//! - escapes all text, and writes integers only, so output is byte-identical everywhere.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::rc::Rc;

use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontStyle,
    FontTransform,
};

use super::font;
use super::theme::{hex, Palette};

/// Escapes text for SVG/XML content and attribute values, and drops characters XML 1.0 forbids
/// (control characters become spaces; U+FFFE/U+FFFF become U+FFFD).
pub(crate) fn escape(text: &str) -> String {
    let text = evalboard_engine::text::neutralize_bidi(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Full texts of truncated labels, keyed by the text actually drawn. A queue per key keeps two
/// different labels that truncate to the same text apart (they are drawn in registration order).
#[derive(Default)]
pub(crate) struct Tooltips {
    by_shown: BTreeMap<String, VecDeque<String>>,
}

impl Tooltips {
    pub(crate) fn add(&mut self, shown: &str, full: &str) {
        if shown != full {
            self.by_shown
                .entry(shown.to_string())
                .or_default()
                .push_back(full.to_string());
        }
    }

    fn take(&mut self, shown: &str) -> Option<String> {
        self.by_shown.get_mut(shown).and_then(VecDeque::pop_front)
    }
}

/// Writes SVG elements for what plotters draws. The caller writes the `<svg>` root around it.
pub(crate) struct SvgBackend<'a> {
    out: &'a mut String,
    size: (u32, u32),
    palette: &'static Palette,
    tooltips: Rc<RefCell<Tooltips>>,
}

impl<'a> SvgBackend<'a> {
    pub(crate) fn new(
        out: &'a mut String,
        size: (u32, u32),
        palette: &'static Palette,
        tooltips: Rc<RefCell<Tooltips>>,
    ) -> Self {
        Self {
            out,
            size,
            palette,
            tooltips,
        }
    }

    /// ` class="ebc-{prop}-{role}" {prop}="#RRGGBB"` plus opacity when translucent.
    fn paint(&self, prop: &str, color: BackendColor) -> String {
        let mut s = String::new();
        if let Some(role) = self.palette.role_of(color.rgb) {
            let _ = write!(s, r#" class="ebc-{prop}-{}""#, role.name());
        }
        let _ = write!(s, r#" {prop}="{}""#, hex(color.rgb));
        if color.alpha < 1.0 {
            let _ = write!(s, r#" {prop}-opacity="{}""#, opacity(color.alpha));
        }
        s
    }

    fn stroke(&self, style: &impl BackendStyle) -> String {
        let mut s = self.paint("stroke", style.color());
        let w = style.stroke_width();
        if w != 1 {
            let _ = write!(s, r#" stroke-width="{w}""#);
        }
        s
    }
}

/// Opacity with at most three decimals, no trailing zeros (`0.25`, `0.5`, `0`).
fn opacity(alpha: f64) -> String {
    let milli = (alpha.clamp(0.0, 1.0) * 1000.0).round() as u32;
    let s = format!("{}.{:03}", milli / 1000, milli % 1000);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn points(path: &[BackendCoord]) -> String {
    let mut s = String::new();
    for (i, (x, y)) in path.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{x},{y}");
    }
    s
}

impl DrawingBackend for SvgBackend<'_> {
    type ErrorType = std::fmt::Error;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        (x, y): BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if color.alpha > 0.0 {
            let paint = self.paint("fill", color);
            let _ = writeln!(
                self.out,
                r#"<rect x="{x}" y="{y}" width="1" height="1"{paint}/>"#
            );
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.draw_path([from, to], style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha <= 0.0 {
            return Ok(());
        }
        let (x, y) = (x0.min(x1), y0.min(y1));
        let (w, h) = (x0.abs_diff(x1), y0.abs_diff(y1));
        let paint = if fill {
            self.paint("fill", style.color())
        } else {
            format!(r#" fill="none"{}"#, self.stroke(style))
        };
        let _ = writeln!(
            self.out,
            r#"<rect x="{x}" y="{y}" width="{w}" height="{h}"{paint}/>"#
        );
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha <= 0.0 {
            return Ok(());
        }
        let path: Vec<BackendCoord> = path.into_iter().collect();
        let stroke = self.stroke(style);
        match path.as_slice() {
            [] | [_] => {}
            [(x1, y1), (x2, y2)] => {
                // Axis-parallel hairlines (grid, axes, ticks) snap to whole device pixels.
                let crisp = if (x1 == x2 || y1 == y2) && style.stroke_width() <= 1 {
                    r#" shape-rendering="crispEdges""#
                } else {
                    ""
                };
                let _ = writeln!(
                    self.out,
                    r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"{stroke}{crisp}/>"#
                );
            }
            _ => {
                let _ = writeln!(
                    self.out,
                    r#"<polyline points="{}" fill="none"{stroke} stroke-linejoin="round" stroke-linecap="round"/>"#,
                    points(&path)
                );
            }
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (cx, cy): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha <= 0.0 {
            return Ok(());
        }
        let paint = if fill {
            self.paint("fill", style.color())
        } else {
            format!(r#" fill="none"{}"#, self.stroke(style))
        };
        let _ = writeln!(
            self.out,
            r#"<circle cx="{cx}" cy="{cy}" r="{radius}"{paint}/>"#
        );
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha <= 0.0 {
            return Ok(());
        }
        let vert: Vec<BackendCoord> = vert.into_iter().collect();
        if vert.len() >= 3 {
            let paint = self.paint("fill", style.color());
            let _ = writeln!(self.out, r#"<polygon points="{}"{paint}/>"#, points(&vert));
        }
        Ok(())
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        (x, y): BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha <= 0.0 || text.is_empty() {
            return Ok(());
        }
        let mut attrs = format!(r#"x="{x}" y="{y}""#);
        // Vertical placement relative to the anchor point, in font units so it survives a
        // different fallback font: the cap height of most sans faces is ≈ 0.7 em.
        match style.anchor().v_pos {
            VPos::Top => attrs.push_str(r#" dy="0.8em""#),
            VPos::Center => attrs.push_str(r#" dy="0.35em""#),
            VPos::Bottom => attrs.push_str(r#" dy="-0.25em""#),
        }
        match style.anchor().h_pos {
            HPos::Left => {}
            HPos::Center => attrs.push_str(r#" text-anchor="middle""#),
            HPos::Right => attrs.push_str(r#" text-anchor="end""#),
        }
        let _ = write!(attrs, r#" font-size="{}""#, font_size(style.size()));
        match style.style() {
            FontStyle::Bold => attrs.push_str(r#" font-weight="bold""#),
            FontStyle::Italic | FontStyle::Oblique => attrs.push_str(r#" font-style="italic""#),
            FontStyle::Normal => {}
        }
        attrs.push_str(&self.paint("fill", color));
        let angle = match style.transform() {
            FontTransform::Rotate90 => Some(90),
            FontTransform::Rotate180 => Some(180),
            FontTransform::Rotate270 => Some(270),
            FontTransform::None => None,
        };
        if let Some(angle) = angle {
            let _ = write!(attrs, r#" transform="rotate({angle},{x},{y})""#);
        }
        let tooltip = self
            .tooltips
            .borrow_mut()
            .take(text)
            .map(|full| format!("<title>{}</title>", escape(&full)))
            .unwrap_or_default();
        let _ = writeln!(self.out, "<text {attrs}>{}{tooltip}</text>", escape(text));
        Ok(())
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let factor = if matches!(style.style(), FontStyle::Bold) {
            font::BOLD_WIDTH_FACTOR
        } else {
            1.0
        };
        let w = (font::text_width(text, style.size()) * factor).ceil();
        let h = (style.size() * 1.2).ceil();
        Ok((w as u32, h as u32))
    }
}

/// Font sizes are whole or half pixels; printed without a trailing `.0`.
fn font_size(size: f64) -> String {
    let halves = (size * 2.0).round() as i64;
    if halves % 2 == 0 {
        format!("{}", halves / 2)
    } else {
        format!("{}.5", halves / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: &str) {
        assert_eq!(escape(input), expected, "escape({input:?})");
    }

    #[test]
    fn escaping() {
        check("a & b", "a &amp; b");
        check(
            "<img src=x onerror=alert(1)>",
            "&lt;img src=x onerror=alert(1)&gt;",
        );
        check(r#"say "hi" it's"#, "say &quot;hi&quot; it&#39;s");
        check("line\nbreak\ttab\u{0}nul", "line break tab nul");
        check("\u{FFFF}", "\u{FFFD}");
        check("100% — ok €", "100% — ok €");
        check("", "");
    }

    #[test]
    fn numbers() {
        assert_eq!(opacity(0.25), "0.25");
        assert_eq!(opacity(1.0), "1");
        assert_eq!(opacity(0.0), "0");
        assert_eq!(opacity(f64::NAN), "0");
        assert_eq!(font_size(12.0), "12");
        assert_eq!(font_size(10.5), "10.5");
    }

    #[test]
    fn tooltips_queue_per_shown_text() {
        let mut t = Tooltips::default();
        t.add("a…", "alpha");
        t.add("a…", "apple");
        t.add("same", "same");
        assert_eq!(t.take("a…").as_deref(), Some("alpha"));
        assert_eq!(t.take("a…").as_deref(), Some("apple"));
        assert_eq!(t.take("a…"), None);
        assert_eq!(t.take("same"), None);
    }
}
