//! CSV cells a spreadsheet would run: a cell that starts with `=`, `+`, `-`, `@`, a tab or a
//! carriage return is a formula to Excel, LibreOffice and Google Sheets (`=HYPERLINK(…)`,
//! `-2+3`, `@SUM(…)`), and model answers and ids are untrusted text. Every CSV evalboard writes
//! passes its cells through [`neutralize`]; the financial-agent-2 profile, whose contract is the
//! original system's bytes, keeps them and warns instead ([`is_formula`]).

use std::borrow::Cow;

/// The cell would be read as a formula: it starts with `=`, `+`, `-`, `@`, tab or CR and is not
/// a plain number (`-3.5`, `+2`, `1e-5` stay numbers).
pub fn is_formula(cell: &str) -> bool {
    matches!(
        cell.as_bytes().first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    ) && !is_number(cell)
}

/// The cell as a spreadsheet shows it but never runs it: a formula-like cell gets a leading `'`.
pub fn neutralize(cell: &str) -> Cow<'_, str> {
    if is_formula(cell) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// A number a spreadsheet reads as one: a decimal number ([`is_decimal`]), optionally with a
/// trailing `%` (`-21.1%`).
fn is_number(s: &str) -> bool {
    is_decimal(s.strip_suffix('%').unwrap_or(s))
}

/// `s` is a decimal number as `f64::from_str` reads it: an optional sign, digits with at most
/// one `.` (at least one digit in all), an optional exponent (`e`/`E`, optional sign, digits).
/// `inf` and `nan`, which `from_str` also takes, are not; nor are spaces or thousands separators.
pub fn is_decimal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_get_a_quote_numbers_do_not() {
        for (cell, want) in [
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "'=HYPERLINK(\"http://x\",\"y\")",
            ),
            ("+1+2", "'+1+2"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("-", "'-"),
            ("-$5", "'-$5"),
            ("- 5", "'- 5"),
            ("-inf", "'-inf"),
            ("+", "'+"),
            ("-3.5", "-3.5"),
            ("+2", "+2"),
            ("1e-5", "1e-5"),
            ("-1E+10", "-1E+10"),
            ("-.5", "-.5"),
            ("-5.", "-5."),
            ("plain text", "plain text"),
            ("", ""),
            ("a=b", "a=b"),
            ("12%", "12%"),
            ("-21.1%", "-21.1%"),
            ("-%", "'-%"),
            ("-5%%", "'-5%%"),
        ] {
            assert_eq!(neutralize(cell), want, "{cell:?}");
        }
        assert!(!is_number("-e5"));
        assert!(!is_number("1e"));
        assert!(!is_number("."));
    }
}
