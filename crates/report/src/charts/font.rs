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

/// Bold text is measured as regular text × this factor: DejaVu Sans Bold is on average 12 %
/// wider than Book on Latin text (at most 26 % for single glyphs), and shipping a second font
/// only to measure titles is not worth its bytes.
pub(crate) const BOLD_WIDTH_FACTOR: f64 = 1.2;

/// Advance of an unknown narrow character, in em.
const FALLBACK_EM: f64 = 0.7;

/// Advance widths of every character the font maps, sorted by code point.
struct Metrics {
    advances: Vec<(u32, u16)>,
    units_per_em: f64,
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        load(FONT_TTF).unwrap_or(Metrics {
            advances: Vec::new(),
            units_per_em: 2048.0,
        })
    })
}

/// Reads only `head`, `hhea`, `maxp`, `hmtx` and `cmap` (not a whole `Face`, whose glyph, CFF
/// and layout parsers would add tens of KB to the wasm).
fn load(ttf: &[u8]) -> Option<Metrics> {
    use ttf_parser::{cmap, head, hhea, hmtx, maxp, RawFace, Tag};
    let raw = RawFace::parse(ttf, 0).ok()?;
    let table = |tag: &[u8; 4]| raw.table(Tag::from_bytes(tag));
    let head = head::Table::parse(table(b"head")?)?;
    let hhea = hhea::Table::parse(table(b"hhea")?)?;
    let maxp = maxp::Table::parse(table(b"maxp")?)?;
    let hmtx = hmtx::Table::parse(
        hhea.number_of_metrics,
        maxp.number_of_glyphs,
        table(b"hmtx")?,
    )?;
    let cmap = cmap::Table::parse(table(b"cmap")?)?;
    let mut advances = Vec::new();
    for sub in cmap.subtables.into_iter().filter(|s| s.is_unicode()) {
        sub.codepoints(|cp| {
            if let Some(adv) = sub.glyph_index(cp).and_then(|g| hmtx.advance(g)) {
                advances.push((cp, adv));
            }
        });
    }
    advances.sort_unstable();
    advances.dedup_by_key(|a| a.0);
    let units_per_em = f64::from(head.units_per_em);
    (units_per_em > 0.0 && !advances.is_empty()).then_some(Metrics {
        advances,
        units_per_em,
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
    if let Ok(i) = m.advances.binary_search_by_key(&u32::from(c), |a| a.0) {
        if let Some((_, adv)) = m.advances.get(i) {
            return f64::from(*adv) / m.units_per_em;
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
        assert!(metrics().advances.len() > 200, "embedded font parses");
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
        let m = metrics();
        for c in "0123456789%$€−…×→←↑↓·–—éüß°±".chars() {
            let found = m.advances.binary_search_by_key(&u32::from(c), |a| a.0);
            assert!(found.is_ok(), "missing {c:?}");
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
