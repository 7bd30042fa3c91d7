//! Numbers in text, two ways.
//!
//! - As Inspect AI's `match(numeric=True)` reads a word (`_common.py`: `_parse_number` — Python's
//!   `float()`, else `unicode_number_to_float` — and `normalize_number`, `format(x, ".5g")`).
//!   [`inspect_number`] covers `float()` exactly (through [`crate::pyrepr::py_float_parse`]) and
//!   this part of `unicode_number_to_float`: ASCII, Unicode and fullwidth signs; decimal digits of
//!   every script and the digit-valued symbols (superscripts, subscripts, circled digits); group
//!   separators and its decimal-mark rule; ASCII `e` exponents; a trailing superscript exponent;
//!   one vulgar fraction (`¼ ½ ¾`, U+2150–U+215E). Not read (Inspect reads them): Chinese
//!   numerals (`十二`, `二〇二五`), other single numeric symbols (`Ⅻ`, `万`) and the fractions of
//!   historic scripts.
//! - As evalboard's `last_number@v1` and `numeric@v1` read a text ([`numbers`]): every number
//!   written the usual way — an optional sign (`-`, `+`, `−`) not glued to a preceding letter or
//!   digit, digits with optional thousands separators (`1,234,567`: groups of exactly three),
//!   an optional decimal part, an optional exponent, an optional trailing `%` (dropped: `45%`
//!   reads 45).
//!
//! Both are one pass over their text; nothing is sized by what the text claims.

use crate::pyrepr::{py_float_parse, py_isspace, unicode_decimal};

// ---------------------------------------------------------------------------------------------
// Inspect's number reading

const MINUS: [char; 4] = ['-', '−', '﹣', '－'];
const PLUS: [char; 3] = ['+', '＋', '﹢'];
/// Inspect's `_GROUP_SEPARATORS`.
const GROUP: [char; 15] = [
    ',', '，', '﹐', '、', '٬', ' ', '\u{a0}', '\u{202f}', '\u{2009}', '\u{2007}', '\u{2008}',
    '\'', '’', 'ʼ', '＇',
];
const SUPERSCRIPT_DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// Characters with a Unicode digit value that are not decimal digits (`unicodedata.digit`
/// without `unicodedata.decimal`): (first code point, its digit, run length), generated from
/// Python 3.11.
const DIGIT_RUNS: [(u32, u8, u32); 21] = [
    (0xB2, 2, 2),
    (0xB9, 1, 1),
    (0x1369, 1, 9),
    (0x19DA, 1, 1),
    (0x2070, 0, 1),
    (0x2074, 4, 6),
    (0x2080, 0, 10),
    (0x2460, 1, 9),
    (0x2474, 1, 9),
    (0x2488, 1, 9),
    (0x24EA, 0, 1),
    (0x24F5, 1, 9),
    (0x24FF, 0, 1),
    (0x2776, 1, 9),
    (0x2780, 1, 9),
    (0x278A, 1, 9),
    (0x10A40, 1, 4),
    (0x10E60, 1, 9),
    (0x11052, 1, 9),
    (0x1F100, 0, 1),
    (0x1F101, 0, 10),
];

/// Inspect's `_char_to_ascii_digit` (without its Chinese digits): a decimal digit of any script,
/// or a digit-valued symbol.
fn digit_value(c: char) -> Option<u8> {
    if c.is_ascii_digit() {
        return Some(c as u8 - b'0');
    }
    if c.is_ascii() {
        return None;
    }
    if let Some(d) = unicode_decimal(c) {
        return Some(d);
    }
    let cp = c as u32;
    DIGIT_RUNS
        .iter()
        .find(|(start, _, len)| (*start..start + len).contains(&cp))
        .and_then(|(start, d, _)| u8::try_from(u32::from(*d) + (cp - start)).ok())
}

/// A vulgar fraction's value (Latin-1 and the Number Forms block).
fn fraction_value(c: char) -> Option<f64> {
    Some(match c {
        '¼' => 0.25,
        '½' => 0.5,
        '¾' => 0.75,
        '⅐' => 1.0 / 7.0,
        '⅑' => 1.0 / 9.0,
        '⅒' => 0.1,
        '⅓' => 1.0 / 3.0,
        '⅔' => 2.0 / 3.0,
        '⅕' => 0.2,
        '⅖' => 0.4,
        '⅗' => 0.6,
        '⅘' => 0.8,
        '⅙' => 1.0 / 6.0,
        '⅚' => 5.0 / 6.0,
        '⅛' => 0.125,
        '⅜' => 0.375,
        '⅝' => 0.625,
        '⅞' => 0.875,
        _ => return None,
    })
}

/// `unicodedata.numeric` of one character, as far as [`digit_value`] and [`fraction_value`]
/// know it.
fn single_char_value(c: char) -> Option<f64> {
    digit_value(c).map(f64::from).or_else(|| fraction_value(c))
}

fn py_trim(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// Inspect's `_parse_number`: Python's `float(s)`, else its `unicode_number_to_float(s)`; `None`
/// unless finite.
pub fn inspect_number(s: &str) -> Option<f64> {
    py_float_parse(s)
        .filter(|x| x.is_finite())
        .or_else(|| unicode_number(s).filter(|x| x.is_finite()))
}

/// Inspect's `unicode_number_to_float` (the part [`inspect_number`]'s documentation lists).
fn unicode_number(s: &str) -> Option<f64> {
    let mut text = py_trim(s);
    if text.is_empty() {
        return None;
    }
    let mut negative = false;
    loop {
        text = text.trim_start_matches(py_isspace);
        let mut chars = text.chars();
        match chars.next() {
            Some(c) if MINUS.contains(&c) || c == '负' || c == '負' => negative = !negative,
            Some(c) if PLUS.contains(&c) || c == '正' => {}
            _ => break,
        }
        text = chars.as_str();
    }
    let sign = if negative { -1.0 } else { 1.0 };
    let mut chars = text.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if let Some(v) = single_char_value(c) {
            return Some(sign * v);
        }
    }
    let (base_text, exponent) = split_superscript_exponent(text)?;
    let base = sign * number_with_fraction(base_text)?;
    match exponent {
        None => Some(base),
        Some(e) => {
            if base == 0.0 && e < 0 {
                return None; // ZeroDivisionError in Python
            }
            let v = base.powf(e as f64);
            // Python's float power raises OverflowError where the result overflows.
            v.is_finite().then_some(v)
        }
    }
}

/// Inspect's `_split_superscript_exponent`: `Some((text, None))` without an exponent,
/// `None` when the exponent is malformed (Python raises).
fn split_superscript_exponent(s: &str) -> Option<(&str, Option<i64>)> {
    let body = s.trim_end_matches(|c: char| py_isspace(c) || GROUP.contains(&c));
    let digits_start = body
        .char_indices()
        .rev()
        .take_while(|(_, c)| SUPERSCRIPT_DIGITS.contains(c))
        .last()
        .map(|(i, _)| i);
    let Some(mut start) = digits_start else {
        return Some((py_trim(s), None));
    };
    let exp_digits = body.get(start..).unwrap_or("");
    let mut negative = false;
    if let Some(c) = body.get(..start).and_then(|b| b.chars().next_back()) {
        if c == '⁻' || c == '⁺' {
            negative = c == '⁻';
            start -= c.len_utf8();
        }
    }
    let base = body.get(..start).unwrap_or("").trim_end_matches(py_isspace);
    if base.is_empty() {
        return Some((py_trim(s), None));
    }
    let mut e: i64 = 0;
    for c in exp_digits.chars() {
        let d = SUPERSCRIPT_DIGITS.iter().position(|x| *x == c)? as i64;
        e = e.saturating_mul(10).saturating_add(d);
    }
    Some((base, Some(if negative { -e } else { e })))
}

/// Inspect's `_parse_number_with_optional_vulgar_fraction`.
fn number_with_fraction(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let mut hits = s
        .char_indices()
        .filter_map(|(i, c)| fraction_value(c).map(|v| (i, c, v)));
    let Some((i, c, v)) = hits.next() else {
        return core_number(s);
    };
    if hits.next().is_some() {
        return None;
    }
    let head = py_trim(s.get(..i).unwrap_or(""));
    let tail = s.get(i + c.len_utf8()..).unwrap_or("");
    if tail.chars().any(|c| !(py_isspace(c) || GROUP.contains(&c))) {
        return None;
    }
    let head = if head.is_empty() {
        0.0
    } else {
        core_number(head)?
    };
    Some(head + v)
}

/// Inspect's `_parse_core_number_no_leading_signs` (no Chinese numerals).
fn core_number(s: &str) -> Option<f64> {
    let s = py_trim(s);
    if s.is_empty() {
        return None;
    }
    if let Some(v) = generic_digits(s) {
        return Some(v);
    }
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => single_char_value(c),
        _ => None,
    }
}

/// Inspect's `_parse_generic_unicode_digits`: digits of any script, its decimal-mark rule (the
/// later of `.` and `,`; a lone `,` is decimal when one to three digits follow it), other
/// separators skipped, ASCII `e` exponents.
fn generic_digits(s: &str) -> Option<f64> {
    let last_dot = s.rfind('.');
    let last_comma = s.rfind(',');
    let decimal = match (last_dot, last_comma) {
        (Some(d), Some(c)) => Some(if d > c { '.' } else { ',' }),
        (Some(_), None) => Some('.'),
        (None, Some(c)) => {
            let tail = s.get(c + 1..).unwrap_or("");
            let n = tail.chars().filter(|c| digit_value(*c).is_some()).count();
            ((1..=3).contains(&n)).then_some(',')
        }
        (None, None) => None,
    };
    let mut out = String::with_capacity(s.len());
    let (mut seen_decimal, mut seen_exp) = (false, false);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if (c == 'e' || c == 'E') && !seen_exp {
            if out.is_empty() {
                return None;
            }
            out.push('e');
            seen_exp = true;
            if let Some(&n) = chars.peek() {
                if PLUS.contains(&n) || MINUS.contains(&n) {
                    out.push(if PLUS.contains(&n) { '+' } else { '-' });
                    chars.next();
                }
            }
            continue;
        }
        if c == '٫' || c == '．' || Some(c) == decimal {
            if seen_decimal {
                return None;
            }
            out.push('.');
            seen_decimal = true;
            continue;
        }
        if GROUP.contains(&c) || py_isspace(c) || (decimal.is_some() && (c == ',' || c == '.')) {
            continue;
        }
        match digit_value(c) {
            Some(d) => out.push(char::from(b'0' + d)),
            None => return None,
        }
    }
    if out.chars().all(|c| matches!(c, '.' | 'e' | '+' | '-')) {
        return None;
    }
    py_float_parse(&out)
}

/// Python's `format(x, ".5g")` for a finite `x` (Inspect's `normalize_number`).
pub fn format_g5(x: f64) -> String {
    let sci = format!("{x:.4e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..5).contains(&exp) {
        let fixed = if exp >= 0 {
            let point = (exp as usize + 1).min(digits.len());
            let (int, frac) = digits.split_at(point);
            format!("{int}.{frac}")
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{}", trim(&fixed))
    } else {
        format!(
            "{sign}{}e{}{:02}",
            trim(mantissa),
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    }
}

// ---------------------------------------------------------------------------------------------
// evalboard's number reading (last_number, numeric)

/// One number found in a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    pub value: f64,
    /// Byte range in the text (the `%` included).
    pub start: usize,
    pub end: usize,
    pub percent: bool,
}

fn is_sign(c: char) -> bool {
    matches!(c, '-' | '+' | '−')
}

/// The number starting at byte `i` of `s`, when one does (a sign, a digit, or `.` and a digit).
fn number_at(s: &str, i: usize) -> Option<Found> {
    let rest = s.get(i..)?;
    let b = rest.as_bytes();
    let mut text = String::new();
    let mut j = 0;
    let mut chars = rest.chars();
    let first = chars.next()?;
    if is_sign(first) {
        if first != '+' {
            text.push('-');
        }
        j += first.len_utf8();
    }
    let digits_from = |j: usize| {
        b.get(j..)
            .map_or(0, |t| t.iter().take_while(|c| c.is_ascii_digit()).count())
    };
    let int_len = digits_from(j);
    let frac_start = j + int_len;
    let has_frac = b.get(frac_start) == Some(&b'.') && digits_from(frac_start + 1) > 0;
    if int_len == 0 && !has_frac {
        return None;
    }
    text.push_str(rest.get(j..j + int_len)?);
    j += int_len;
    // Thousands separators: `,` and exactly three digits, after a first group of one to three.
    if (1..=3).contains(&int_len) {
        while b.get(j) == Some(&b',') && digits_from(j + 1) == 3 {
            text.push_str(rest.get(j + 1..j + 4)?);
            j += 4;
        }
    }
    if b.get(j) == Some(&b'.') && digits_from(j + 1) > 0 {
        let n = digits_from(j + 1);
        text.push_str(rest.get(j..j + 1 + n)?);
        j += 1 + n;
    }
    // An exponent, when it ends the word (`2e5`, not `3eggs`).
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(j + 1), Some(b'+' | b'-')));
        let n = digits_from(j + 1 + sign);
        let after = rest.get(j + 1 + sign + n..).and_then(|t| t.chars().next());
        if n > 0 && !after.is_some_and(char::is_alphanumeric) {
            text.push_str(rest.get(j..j + 1 + sign + n)?);
            j += 1 + sign + n;
        }
    }
    let percent = b.get(j) == Some(&b'%');
    let value: f64 = text.parse().ok().filter(|v: &f64| v.is_finite())?;
    Some(Found {
        value,
        start: i,
        end: i + j + usize::from(percent),
        percent,
    })
}

/// Every number of `s`, left to right, each read as long as it goes (`1,234.5` is one number,
/// `3-5` two: a sign glued to a letter or digit is a hyphen).
pub fn numbers(s: &str) -> impl Iterator<Item = Found> + '_ {
    let mut i = 0;
    let mut prev: Option<char> = None;
    std::iter::from_fn(move || {
        while let Some(c) = s.get(i..).and_then(|t| t.chars().next()) {
            // Never inside a run of digits (one whose number did not read, e.g. one that
            // overflows): each run is tried once, so the scan stays linear.
            let after_digit = prev.is_some_and(|p| p.is_ascii_digit());
            let starts = if is_sign(c) {
                !prev.is_some_and(|p| p.is_alphanumeric() || p == '.' || p == ',')
            } else {
                (c.is_ascii_digit() || c == '.') && !after_digit
            };
            if starts {
                if let Some(f) = number_at(s, i) {
                    i = f.end;
                    prev = s.get(..i).and_then(|t| t.chars().next_back());
                    return Some(f);
                }
            }
            prev = Some(c);
            i += c.len_utf8();
        }
        None
    })
}

/// The last number of `s` ([`numbers`]).
pub fn last_number(s: &str) -> Option<f64> {
    numbers(s).last().map(|f| f.value)
}

/// `s` as one number: surrounding whitespace, a currency sign (`$`, `€`, `£`) before the number
/// (or after its sign) and a final `.` allowed, nothing else (`$1,234`, `-45%`, `3.5.`).
pub fn whole_number(s: &str) -> Option<f64> {
    let t = py_trim(s);
    let t = t.strip_suffix('.').unwrap_or(t);
    let (neg, t) = match t.chars().next() {
        Some(c) if is_sign(c) && t.len() > c.len_utf8() => {
            let r = t.get(c.len_utf8()..).unwrap_or("");
            if r.starts_with(['$', '€', '£']) {
                (c != '+', r)
            } else {
                (false, t)
            }
        }
        _ => (false, t),
    };
    let t = t.strip_prefix(['$', '€', '£']).unwrap_or(t);
    let f = number_at(t, 0)?;
    (f.end == t.len()).then_some(if neg { -f.value } else { f.value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_g5_is_pythons() {
        // format(x, ".5g") in Python 3.11.
        for (x, want) in [
            (4.0, "4"),
            (0.0, "0"),
            (-0.0, "-0"),
            (123425.0, "1.2342e+05"),
            (12345.5, "12346"),
            (99999.5, "1e+05"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (0.125, "0.125"),
            (1.23456789, "1.2346"),
            (-42.0, "-42"),
            (1e300, "1e+300"),
            (1.5e-300, "1.5e-300"),
            (100000.0, "1e+05"),
            (99999.0, "99999"),
        ] {
            assert_eq!(format_g5(x), want, "{x}");
        }
    }

    #[test]
    fn inspect_numbers() {
        let n = inspect_number;
        assert_eq!(n("42"), Some(42.0));
        assert_eq!(n(" -1.5e3 "), Some(-1500.0));
        assert_eq!(n("1_000"), Some(1000.0));
        assert_eq!(n("nan"), None);
        assert_eq!(n("inf"), None);
        assert_eq!(n("1e400"), None);
        assert_eq!(n("60%"), None);
        assert_eq!(n("−5"), Some(-5.0));
        assert_eq!(n("－５"), Some(-5.0));
        assert_eq!(n("١٢٣"), Some(123.0));
        assert_eq!(n("2½"), Some(2.5));
        assert_eq!(n("-½"), Some(-0.5));
        assert_eq!(n("½½"), None);
        assert_eq!(n("3²"), Some(9.0));
        assert_eq!(n("-2²"), Some(4.0));
        assert_eq!(n("2⁻¹"), Some(0.5));
        assert_eq!(n("0⁻¹"), None);
        assert_eq!(n("10⁹⁹⁹"), None);
        assert_eq!(n("²"), Some(2.0));
        assert_eq!(n("①"), Some(1.0));
        assert_eq!(n("1'000"), Some(1000.0));
        assert_eq!(n("'5'"), Some(5.0));
        assert_eq!(n("1.234,5"), Some(1234.5));
        assert_eq!(n("1,5"), Some(1.5));
        assert_eq!(n("1,2345"), Some(12345.0));
        assert_eq!(n("1.2.3"), None);
        assert_eq!(n("e5"), None);
        assert_eq!(n("abc"), None);
        assert_eq!(n(""), None);
        assert_eq!(n("-"), None);
        assert_eq!(n("十二"), None, "Chinese numerals are not read");
    }

    #[test]
    fn numbers_in_text() {
        let all = |s: &str| numbers(s).map(|f| f.value).collect::<Vec<_>>();
        assert_eq!(all("1,234,567.89 and 3-5"), [1234567.89, 3.0, 5.0]);
        assert_eq!(all("-5, +6, −7 and x-8"), [-5.0, 6.0, -7.0, 8.0]);
        assert_eq!(all("1,23 and 1234,567"), [1.0, 23.0, 1234.0, 567.0]);
        assert_eq!(all("45% of 2e3 eggs, 3eggs"), [45.0, 2000.0, 3.0]);
        assert_eq!(all("The answer is 42."), [42.0]);
        assert_eq!(all(".5 and 0.25"), [0.5, 0.25]);
        assert_eq!(all("1.2.3"), [1.2, 3.0]);
        assert_eq!(all("NaN inf"), Vec::<f64>::new());
        assert_eq!(all("COVID-19"), [19.0]);
        assert_eq!(
            all("9".repeat(400).as_str()),
            Vec::<f64>::new(),
            "overflows: not a number"
        );
        assert!(numbers("45%").next().is_some_and(|f| f.percent));
        assert_eq!(last_number("from 3 to 4."), Some(4.0));
        assert_eq!(last_number("none"), None);
    }

    #[test]
    fn whole_numbers() {
        assert_eq!(whole_number(" $1,234 "), Some(1234.0));
        assert_eq!(whole_number("-$5"), Some(-5.0));
        assert_eq!(whole_number("$-5"), Some(-5.0));
        assert_eq!(whole_number("45%"), Some(45.0));
        assert_eq!(whole_number("3.5."), Some(3.5));
        assert_eq!(whole_number("3 apples"), None);
        assert_eq!(whole_number("NaN"), None);
        assert_eq!(whole_number(""), None);
        assert_eq!(whole_number("-"), None);
    }
}
