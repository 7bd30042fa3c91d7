//! Number and text formatting for the dashboard: one place decides how a rate, a count, a cost
//! or a missing value looks, so every view agrees (the page's views and the workers' view
//! models both use it). Pure (tested natively).

/// Shown for an aggregate that does not exist (`None`), never a fake 0.
pub const NONE: &str = "—";

/// A 0–1 rate as a percentage with one decimal: `0.6667` → `66.7%`.
pub fn pct(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{:.1}%", v * 100.0),
        _ => NONE.to_string(),
    }
}

/// A gap between two rates in percentage points with a sign: `0.05` → `+5.0 pp`.
pub fn pp(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => {
            let p = v * 100.0;
            // Avoid "-0.0 pp" for tiny negative rounding noise.
            let p = if p.abs() < 0.05 { 0.0 } else { p };
            format!("{}{:.1} pp", if p > 0.0 { "+" } else { "" }, p)
        }
        _ => NONE.to_string(),
    }
}

/// A change of a rate in points, always signed (`+4.2 pp`, `+0.0 pp`): Compare's cards and steps.
pub fn signed_pp(x: Option<f64>) -> String {
    x.map(|d| format!("{:+.1} pp", d * 100.0))
        .unwrap_or_else(|| NONE.into())
}

/// An integer with thousands separators: `1234567` → `1,234,567`.
pub fn int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    // A separator goes before every digit whose distance from the end is a multiple of 3.
    let lead = s.len() % 3;
    for (i, c) in s.chars().enumerate() {
        if i > 0 && i % 3 == lead {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn opt_int(n: Option<u64>) -> String {
    n.map(int).unwrap_or_else(|| NONE.to_string())
}

/// A float with a fixed number of decimals, `—` when missing or not finite.
pub fn dec(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => NONE.to_string(),
    }
}

/// A token count that may be fractional (an average): thousands separators, no decimals.
pub fn tokens(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() && v >= 0.0 => int(v.round() as u64),
        _ => NONE.to_string(),
    }
}

/// US dollars: 2 decimals from $1, 4 significant-ish decimals below (`$0.0123`).
pub fn usd(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => {
            if v.abs() >= 1.0 {
                format!("${v:.2}")
            } else {
                format!("${v:.4}")
            }
        }
        _ => NONE.to_string(),
    }
}

/// Bytes as B / KB / MB / GB (powers of 1024, one decimal above bytes).
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in UNITS.iter().skip(1) {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

/// Milliseconds as `850 ms` or `1.2 s`.
pub fn ms(x: f64) -> String {
    if !x.is_finite() || x < 0.0 {
        NONE.to_string()
    } else if x < 1000.0 {
        format!("{x:.0} ms")
    } else {
        format!("{:.1} s", x / 1000.0)
    }
}

/// A yes/no/unknown flag.
pub fn flag(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => NONE,
    }
}

/// `n thing` / `n things`.
/// `text` with every whole number in it grouped by thousands (`1234567 turns` →
/// `1,234,567 turns`), as [`int`] writes one.
pub fn group_numbers(text: &str) -> String {
    text.split(' ')
        .map(|w| match w.parse::<u64>() {
            Ok(n) if w.bytes().all(|b| b.is_ascii_digit()) => int(n),
            _ => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", int(n), if n == 1 { one } else { many })
}

/// Display label of a breakdown key or a feature name (`has_type2_question` → `Type-2 question`).
pub fn feature_label(key: &str) -> &str {
    match key {
        "has_type2_question" => "Type-2 question",
        "has_non_numeric_values" => "Non-numeric values",
        "has_duplicate_columns" => "Duplicate columns",
        other => other,
    }
}

/// A decimal number written with more than `places` decimals (`15.686274509803921`), rounded
/// half up to `places` on its digits (`15.6863`), so a table cell shows it whole; anything else
/// (text, a percentage, an exponent, few decimals) is returned as it is. Works on the text: the
/// page links no float parser (docs/dashboard.md § Size).
pub fn round_decimals(s: &str, places: usize) -> String {
    let t = s.trim();
    let (sign, body) = match t.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", t),
    };
    let Some((int, frac)) = body.split_once('.') else {
        return s.to_string();
    };
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || !digits(frac) || frac.len() <= places {
        return s.to_string();
    }
    let mut kept: Vec<u8> = int.bytes().chain(frac.bytes().take(places)).collect();
    if frac.as_bytes()[places] >= b'5' {
        // Carry from the last kept digit leftwards.
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, b'1');
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let n_int = kept.len() - places;
    let (a, b) = kept.split_at(n_int);
    let a = String::from_utf8_lossy(a);
    if places == 0 {
        format!("{sign}{a}")
    } else {
        format!("{sign}{a}.{}", String::from_utf8_lossy(b))
    }
}

/// An item key as a row shows it: its parts joined by ` · ` (`c1 · 0`).
pub fn item_key(key: &evalboard_engine::run_table::ItemKey) -> String {
    key.parts().join(" · ")
}

/// Shortens text to `max` characters (on a char boundary) with an ellipsis.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// `s` is a decimal number as `f64::from_str` reads it (no `inf`, no `nan`). The page checks
/// the grammar here and lets the browser parse (`browser::parse_number`), so it links no float
/// parser.
pub use evalboard_engine::csv_cell::is_decimal;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_numbers_groups_whole_numbers_only() {
        assert_eq!(group_numbers("1234567 turns"), "1,234,567 turns");
        assert_eq!(group_numbers("12 conversations"), "12 conversations");
        assert_eq!(group_numbers("1.5e3 x-1000 1000"), "1.5e3 x-1000 1,000");
    }

    fn check(got: String, expected: &str) {
        assert_eq!(got, expected);
    }

    #[test]
    fn percentages() {
        check(pct(Some(2.0 / 3.0)), "66.7%");
        check(pct(Some(0.0)), "0.0%");
        check(pct(Some(1.0)), "100.0%");
        check(pct(None), "—");
        check(pct(Some(f64::NAN)), "—");
        check(pct(Some(f64::INFINITY)), "—");
        check(pp(Some(0.05)), "+5.0 pp");
        check(pp(Some(-0.125)), "-12.5 pp");
        check(pp(Some(-0.0001)), "0.0 pp");
        check(pp(None), "—");
    }

    #[test]
    fn integers_and_money() {
        check(int(0), "0");
        check(int(999), "999");
        check(int(1000), "1,000");
        check(int(1234567), "1,234,567");
        check(opt_int(None), "—");
        check(tokens(Some(12500.5)), "12,501");
        check(tokens(Some(-1.0)), "—");
        check(usd(Some(0.01234)), "$0.0123");
        check(usd(Some(12.345)), "$12.35");
        check(usd(None), "—");
        check(dec(Some(1.23456), 2), "1.23");
        check(dec(Some(f64::NAN), 2), "—");
    }

    #[test]
    fn sizes_and_times() {
        check(bytes(12), "12 B");
        check(bytes(2048), "2.0 KB");
        check(bytes(5 * 1024 * 1024 + 1024 * 512), "5.5 MB");
        check(ms(850.4), "850 ms");
        check(ms(1234.0), "1.2 s");
        check(ms(f64::NAN), "—");
    }

    #[test]
    fn long_decimals_are_rounded_on_their_digits() {
        assert_eq!(round_decimals("15.686274509803921", 4), "15.6863");
        assert_eq!(round_decimals("-24.049999999", 4), "-24.0500");
        assert_eq!(round_decimals("9.99996", 4), "10.0000");
        assert_eq!(round_decimals("0.4245723172", 4), "0.4246");
        for same in [
            "3205.8", "14.1%", "1e-9", "abc", "", "1.2.3", "12", "-", ".5", "5.",
        ] {
            assert_eq!(round_decimals(same, 4), same);
        }
    }

    #[test]
    fn text() {
        check(clip("hello", 10), "hello");
        check(clip("héllo wörld", 6), "héllo…");
        check(plural(1, "file", "files"), "1 file");
        check(plural(2000, "file", "files"), "2,000 files");
        check(flag(None).to_string(), "—");
        check(
            feature_label("has_type2_question").to_string(),
            "Type-2 question",
        );
    }

    #[test]
    fn decimal_grammar_is_from_str_without_inf_and_nan() {
        for s in [
            "0",
            "1",
            "+1",
            "-1",
            "1.",
            ".5",
            "-.5",
            "1.5",
            "007",
            "1e5",
            "1E5",
            "1e+5",
            "1e-5",
            "2.5e-3",
            "1e400",
            "0.0000000001",
            "123456789012345678901234567890",
            "",
            ".",
            "+",
            "-",
            "e5",
            ".e5",
            "1e",
            "1e+",
            "1.2.3",
            "1..2",
            " 1",
            "1 ",
            "1_000",
            "0x10",
            "1,5",
            "inf",
            "-inf",
            "infinity",
            "NaN",
            "nan",
            "1f",
            "١",
            "--1",
            "+-1",
            "1e5.0",
            "1.e5",
        ] {
            let rust = s.parse::<f64>().is_ok() && !s.to_ascii_lowercase().contains(['i', 'n']);
            assert_eq!(is_decimal(s), rust, "{s:?}");
        }
    }
}
