//! Python number semantics the official evaluator relies on: `float()`, `int()`, `str.strip()`,
//! `round(x, n)` and `repr(float)`, reimplemented exactly for the inputs the evaluator sees.

/// Python's `str.isspace()`: Unicode White_Space plus the four information separators
/// U+001C..U+001F (bidi class B/S), which Rust's `char::is_whitespace` leaves out.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.strip()` with no arguments.
pub(crate) fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Consumes a Python digit part (`digit ("_"? digit)*`) at the start of `b`; returns its length
/// (0 when `b` does not start with a digit).
fn digit_part(b: &[u8]) -> usize {
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return 0;
    }
    let mut i = 1;
    loop {
        match (b.get(i), b.get(i + 1)) {
            (Some(d), _) if d.is_ascii_digit() => i += 1,
            (Some(b'_'), Some(d)) if d.is_ascii_digit() => i += 2,
            _ => return i,
        }
    }
}

/// Python's `float(text)` for a `str` argument; `None` where Python raises `ValueError`.
///
/// Accepts surrounding whitespace, a sign, `inf`/`infinity`/`nan` in any case, digits with single
/// underscores between them, an optional fraction and exponent. Non-ASCII decimal digits (which
/// Python also accepts, e.g. Arabic-Indic digits) are not supported and give `None`.
pub fn py_float(text: &str) -> Option<f64> {
    let t = py_strip(text);
    let b = t.as_bytes();
    let (negative, body) = match b.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let special = if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        Some(f64::INFINITY)
    } else if body.eq_ignore_ascii_case("nan") {
        Some(f64::NAN)
    } else {
        None
    };
    if let Some(v) = special {
        return Some(if negative { -v } else { v });
    }
    let b = body.as_bytes();
    let int_len = digit_part(b);
    let mut i = int_len;
    let mut frac_len = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_len = digit_part(b.get(i..).unwrap_or_default());
        i += frac_len;
    }
    if int_len == 0 && frac_len == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_len = digit_part(b.get(i..).unwrap_or_default());
        if exp_len == 0 {
            return None;
        }
        i += exp_len;
    }
    if i != b.len() {
        return None;
    }
    let cleaned: String = body.chars().filter(|&c| c != '_').collect();
    let v: f64 = cleaned.parse().ok()?;
    Some(if negative { -v } else { v })
}

/// Python's `int(text)` (base 10) for a `str` argument; `None` where Python raises `ValueError`
/// and also for integers outside i64 (the evaluator only uses them as step indices, where such a
/// value can never match).
pub fn py_int(text: &str) -> Option<i64> {
    let t = py_strip(text);
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if body.is_empty() || digit_part(body.as_bytes()) != body.len() {
        return None;
    }
    let mut v: i64 = 0;
    for d in body.bytes().filter(u8::is_ascii_digit) {
        v = v.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    Some(if negative { -v } else { v })
}

/// Python's `round(x, ndigits)` for a float: rounds the exact binary value half-to-even at
/// `ndigits` decimals, then returns the nearest double to that decimal (as CPython does through
/// `_Py_dg_dtoa` mode 3 and `_Py_dg_strtod`). `round(2.675, 2) == 2.67` because the double
/// nearest 2.675 lies below it. Non-finite values are returned unchanged; the sign of zero is kept.
/// `ndigits` above 22 returns `x` unchanged (no double has that many significant decimals that
/// matter here; CPython's own cut-off is higher but gives the same values).
pub fn py_round(x: f64, ndigits: u32) -> f64 {
    if !x.is_finite() || ndigits > 22 {
        return x;
    }
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    // |x| = mantissa * 2^exp
    let (mantissa, exp) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    if exp >= 0 || mantissa == 0 {
        return x; // an integer (or zero): nothing to round
    }
    let shift = exp.unsigned_abs(); // 1..=1074
    let scaled = u128::from(mantissa) * 10u128.pow(ndigits); // < 2^53 * 10^22 < 2^127
    let quotient = if shift >= 128 {
        0 // scaled < 2^127 <= half of 2^shift: rounds down to zero
    } else {
        let q = scaled >> shift;
        let rem = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q % 2 == 1) {
            q + 1
        } else {
            q
        }
    };
    let text = format!(
        "{}{}e-{}",
        if negative { "-" } else { "" },
        quotient,
        ndigits
    );
    text.parse().unwrap_or(x)
}

/// Python's `repr(float)`: shortest round-trip digits, positional for decimal exponents in
/// -4..16, scientific otherwise (`1e-05`, `1e+16`), `.0` on integral values, `nan`/`inf`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-5", "5e0".
    let sci = format!("{x:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mant) = match mant.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mant),
    };
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let n_digits = digits.len() as i32;
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            format!(
                "{sign}0.{}{digits}",
                "0".repeat(point.unsigned_abs() as usize)
            )
        } else if point >= n_digits {
            format!(
                "{sign}{digits}{}.0",
                "0".repeat((point - n_digits) as usize)
            )
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{sign}{int}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let mant = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_float(input: &str, expected: Option<f64>) {
        let got = py_float(input);
        match (got, expected) {
            (Some(g), Some(e)) if e.is_nan() => assert!(g.is_nan(), "{input:?} -> {g}"),
            _ => assert_eq!(got, expected, "float({input:?})"),
        }
    }

    #[test]
    fn float_parsing_matches_python() {
        check_float("60.94", Some(60.94));
        check_float("  -25.14\n", Some(-25.14));
        check_float("+5", Some(5.0));
        check_float("1.", Some(1.0));
        check_float(".5", Some(0.5));
        check_float("1e5", Some(1e5));
        check_float("1E-5", Some(1e-5));
        check_float("1_000.5", Some(1000.5));
        check_float("1e1_0", Some(1e10));
        check_float("inf", Some(f64::INFINITY));
        check_float("-Infinity", Some(f64::NEG_INFINITY));
        check_float("NaN", Some(f64::NAN));
        check_float("\u{1c}7\u{a0}", Some(7.0));
        for bad in [
            "", " ", ".", "e5", "1e", "1e+", "1__0", "_1", "1_", "1_.5", "1._5", "1e_5", "1,000",
            "5%", "const_5", "n/a", "none", "#0", "0x10", "1 2", "--1", "infinit", "nan1", "١",
        ] {
            check_float(bad, None);
        }
    }

    #[test]
    fn int_parsing_matches_python() {
        let check =
            |input: &str, expected: Option<i64>| assert_eq!(py_int(input), expected, "{input:?}");
        check("0", Some(0));
        check(" 12 ", Some(12));
        check("-1", Some(-1));
        check("+3", Some(3));
        check("007", Some(7));
        check("1_0", Some(10));
        check("", None);
        check("1.0", None);
        check("1__0", None);
        check("#1", None);
        check("99999999999999999999", None);
    }

    fn check_round(x: f64, nd: u32, expected: f64) {
        let got = py_round(x, nd);
        assert_eq!(
            got.to_bits(),
            expected.to_bits(),
            "round({x:?}, {nd}) = {got:?}, want {expected:?}"
        );
    }

    #[test]
    fn round_is_half_even_on_the_binary_value() {
        check_round(2.675, 2, 2.67); // binary value is below 2.675
        check_round(0.125, 2, 0.12); // exact tie: to even
        check_round(0.375, 2, 0.38);
        check_round(2.5, 0, 2.0);
        check_round(3.5, 0, 4.0);
        check_round(1.424034, 5, 1.42403);
        check_round(35.80000000000001, 5, 35.8);
        check_round(2.0 / 3.0, 5, 0.66667);
        check_round(0.7 / 3.0, 5, 0.23333);
        check_round(-0.000001, 5, -0.0);
        check_round(1e-300, 5, 0.0);
        check_round(5e-324, 5, 0.0);
        check_round(-2.5e-6, 5, -0.0); // -0.0000025 is just below the tie in binary
        check_round(0.000015, 5, 0.00002);
        check_round(123456789012345678.0, 5, 123456789012345678.0);
        check_round(1.5, 5, 1.5);
        assert!(py_round(f64::NAN, 5).is_nan());
        check_round(f64::INFINITY, 5, f64::INFINITY);
        check_round(-0.0, 5, -0.0);
    }

    #[test]
    fn float_repr_matches_python() {
        let check = |x: f64, expected: &str| assert_eq!(py_float_repr(x), expected, "{x:?}");
        check(5.0, "5.0");
        check(60.94, "60.94");
        check(-27.0, "-27.0");
        check(0.0001, "0.0001");
        check(0.00001, "1e-05");
        check(1e16, "1e+16");
        check(1234567890123456.0, "1234567890123456.0");
        check(1.5e300, "1.5e+300");
        check(0.9000000000000001, "0.9000000000000001");
        check(-0.0, "-0.0");
        check(f64::NAN, "nan");
        check(f64::NEG_INFINITY, "-inf");
    }
}
