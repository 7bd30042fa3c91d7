//! Text measurement from the embedded DejaVu Sans subset, and truncation with "…".
//!
//! Widths come from the font's `hmtx` advances (no kerning, no shaping), so the same string has
//! the same width natively, in a Web Worker and in wasm tests. Characters the subset lacks get a
//! documented fallback: 1 em for wide East Asian characters and emoji, 0 for combining marks,
//! 0.7 em for anything else (wider than any DejaVu Latin letter but `M`, `W`, `Æ`, `Œ`, so layout
//! errs towards leaving room).

use std::sync::OnceLock;

/// The subset font; see `assets/README.md` for how it was made.
const FONT_TTF: &[u8] = include_bytes!("../../assets/DejaVuSans-subset.ttf");

/// The ellipsis appended to truncated labels.
pub(crate) const ELLIPSIS: char = '…';

/// Advance of an unknown narrow character, in em.
const FALLBACK_EM: f64 = 0.7;

struct Metrics {
    face: Option<ttf_parser::Face<'static>>,
    units_per_em: f64,
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let face = ttf_parser::Face::parse(FONT_TTF, 0).ok();
        let units_per_em = face
            .as_ref()
            .map(|f| f64::from(f.units_per_em()))
            .filter(|u| *u > 0.0)
            .unwrap_or(2048.0);
        Metrics { face, units_per_em }
    })
}

/// Wide (two-column) characters: CJK, Hangul, full-width forms, emoji.
fn is_wide(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x115F
        | 0x2E80..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1FAFF
        | 0x20000..=0x3FFFD)
}

fn is_combining(c: char) -> bool {
    matches!(u32::from(c), 0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F)
}

/// Advance of one character in em.
fn advance_em(c: char) -> f64 {
    let m = metrics();
    if let Some(face) = &m.face {
        if let Some(adv) = face.glyph_index(c).and_then(|g| face.glyph_hor_advance(g)) {
            return f64::from(adv) / m.units_per_em;
        }
    }
    if is_combining(c) {
        0.0
    } else if is_wide(c) {
        1.0
    } else {
        FALLBACK_EM
    }
}

/// Width in pixels of `text` set at `size_px` (CSS `font-size`).
pub(crate) fn text_width(text: &str, size_px: f64) -> f64 {
    text.chars().map(advance_em).sum::<f64>() * size_px
}

/// `text` unchanged if it fits in `max_px`, else the longest prefix (trailing spaces trimmed)
/// followed by "…" that fits. Returns `None` when not even "…" fits.
pub(crate) fn truncate(text: &str, size_px: f64, max_px: f64) -> Option<String> {
    if text_width(text, size_px) <= max_px {
        return Some(text.to_string());
    }
    let ell = advance_em(ELLIPSIS) * size_px;
    if ell > max_px {
        return None;
    }
    let budget = max_px - ell;
    let mut used = 0.0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        let w = advance_em(c) * size_px;
        if used + w > budget {
            break;
        }
        used += w;
        end = i + c.len_utf8();
    }
    let mut out = text.get(..end).unwrap_or("").trim_end().to_string();
    out.push(ELLIPSIS);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_width(text: &str, size: f64, expected: f64) {
        let got = text_width(text, size);
        assert!(
            (got - expected).abs() < 0.01,
            "{text:?} at {size}px: got {got}, expected {expected}"
        );
    }

    #[test]
    fn widths_come_from_the_font() {
        assert!(metrics().face.is_some(), "embedded font parses");
        // DejaVu Sans: 'A' advance 1401/2048, digits 1303/2048, space 651/2048.
        check_width("A", 2048.0, 1401.0);
        check_width("0", 2048.0, 1303.0);
        check_width(" ", 2048.0, 651.0);
        check_width("", 12.0, 0.0);
        // Characters outside the subset: wide CJK = 1 em, combining = 0, others = 0.7 em.
        check_width("中", 10.0, 10.0);
        check_width("\u{0301}", 10.0, 0.0);
        check_width("\u{0416}", 10.0, 7.0);
    }

    #[test]
    fn subset_covers_the_symbols_we_print() {
        let face = metrics().face.as_ref().expect("font");
        for c in "0123456789%$€−…×→←↑↓·–—éüß°±".chars() {
            assert!(face.glyph_index(c).is_some(), "missing {c:?}");
        }
    }

    fn check_trunc(text: &str, max_px: f64, expected: Option<&str>) {
        assert_eq!(
            truncate(text, 12.0, max_px).as_deref(),
            expected,
            "{text:?} in {max_px}px"
        );
    }

    #[test]
    fn truncation() {
        check_trunc("short", 200.0, Some("short"));
        check_trunc("", 0.0, Some(""));
        check_trunc("a very long label indeed", 60.0, Some("a very l…"));
        // Trailing spaces before the ellipsis are trimmed.
        check_trunc("abcd efgh", 45.0, Some("abcd…"));
        check_trunc("anything", 3.0, None);
        check_trunc("中文标签很长很长", 40.0, Some("中文…"));
        let got = truncate("a very long label indeed", 12.0, 60.0).unwrap_or_default();
        assert!(text_width(&got, 12.0) <= 60.0);
    }
}
