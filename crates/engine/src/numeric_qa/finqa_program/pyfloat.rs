//! Python number semantics the official evaluator relies on: `float()`, `int()`, `str.strip()`,
//! `round(x, n)` and `repr(float)`, reimplemented exactly for the inputs the evaluator sees.
//! `float()`, `strip()`, `round()` and `repr()` are the crate's one implementation in
//! [`crate::pyrepr`]; `int()` (step references) is the program language's own.

pub use crate::pyrepr::{py_float_parse as py_float, py_float_repr, py_strip};

/// Python's `round(x, ndigits)` for the evaluator's non-negative `ndigits`; [`crate::pyrepr::py_round`]
/// can only fail for negative `ndigits`, so `x` is never returned unrounded.
pub fn py_round(x: f64, ndigits: u32) -> f64 {
    crate::pyrepr::py_round(x, i32::try_from(ndigits).unwrap_or(i32::MAX)).unwrap_or(x)
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
        // float() strips only ASCII Py_ISSPACE after mapping non-ASCII spaces: U+001C stays and
        // raises (checked against CPython 3.11), while a trailing NBSP is stripped.
        check_float("\u{1c}7\u{a0}", None);
        check_float("7\u{a0}", Some(7.0));
        // Python maps Unicode decimal digits to ASCII (Arabic-Indic one).
        check_float("١", Some(1.0));
        for bad in [
            "", " ", ".", "e5", "1e", "1e+", "1__0", "_1", "1_", "1_.5", "1._5", "1e_5", "1,000",
            "5%", "const_5", "n/a", "none", "#0", "0x10", "1 2", "--1", "infinit", "nan1",
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
