//! The few Python built-ins the seed system's scoring leans on: `str.strip()`, `float(x)`,
//! truthiness and `str(x)` of JSON scalars, reimplemented so results match bit for bit.

use serde_json::Value;

pub(crate) use crate::pyrepr::{py_float_parse as py_float_str, py_float_repr, py_strip};

/// Python's `float(x)` for a JSON value; `None` where Python raises (`TypeError` for
/// null/list/dict, `ValueError` for a non-numeric string).
pub(crate) fn py_float(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n.as_f64(),
        Value::String(s) => py_float_str(s),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Python truthiness of a JSON value.
pub(crate) fn py_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `str(x)` for a JSON scalar as the seed code would see it after `json.loads`
/// (`True`, `None`, `1.0`, `1e+20`); lists and objects give their JSON text.
pub(crate) fn py_str(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                py_float_repr(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A dict key as `json.dumps` writes it: strings as is, `true`/`false`/`null`, float repr.
pub(crate) fn py_json_key(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(_) => Some(py_str(v)),
        // Lists and dicts are unhashable: Python would raise; we leave the item ungrouped.
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check_float(input: &str, expected: Option<f64>) {
        let got = py_float_str(input);
        match (got, expected) {
            (Some(g), Some(e)) if e.is_nan() => assert!(g.is_nan(), "{input:?}: {g}"),
            (g, e) => assert_eq!(g, e, "float({input:?})"),
        }
    }

    #[test]
    fn float_of_strings_matches_python() {
        // Expected values checked against CPython 3.11 `float()`.
        check_float("1_000", Some(1000.0));
        check_float("1__0", None);
        check_float("_1", None);
        check_float("1_", None);
        check_float("1_.5", None);
        check_float("1._5", None);
        check_float("0x10", None);
        check_float(" 1.5 ", Some(1.5));
        check_float("\u{a0}1.5\u{2003}", Some(1.5));
        check_float("+.5", Some(0.5));
        check_float("5.", Some(5.0));
        check_float(".", None);
        check_float("inf", Some(f64::INFINITY));
        check_float("-Infinity", Some(f64::NEG_INFINITY));
        check_float("nAn", Some(f64::NAN));
        check_float("+nan", Some(f64::NAN));
        check_float("1e5", Some(1e5));
        check_float("1E+05", Some(1e5));
        check_float("1e", None);
        check_float("1_0e1_0", Some(1e11));
        check_float("infinity_", None);
        check_float("", None);
        check_float("   ", None);
        check_float("50%", None);
        check_float("1,000", None);
        check_float("-0", Some(-0.0));
        check_float("abc", None);
        // str.strip() removes U+001C..U+001F but float() does not (CPython 3.11 raises).
        check_float("\u{1c}2\u{1f}", None);
    }

    #[test]
    fn float_of_json_values() {
        assert_eq!(py_float(&json!(true)), Some(1.0));
        assert_eq!(py_float(&json!(false)), Some(0.0));
        assert_eq!(py_float(&json!(60)), Some(60.0));
        assert_eq!(py_float(&json!(0.25)), Some(0.25));
        assert_eq!(py_float(&json!("0.5")), Some(0.5));
        assert_eq!(py_float(&json!(null)), None);
        assert_eq!(py_float(&json!([1])), None);
        assert_eq!(py_float(&json!({"a": 1})), None);
    }

    #[test]
    fn strip_matches_python_isspace() {
        assert_eq!(py_strip("\u{a0}42\u{2003}"), "42");
        assert_eq!(py_strip("\u{1c}\u{1d}x\u{1e}\u{1f}"), "x");
        assert_eq!(py_strip("\u{85}x\u{2028}\u{3000}"), "x");
        // Zero-width space and U+180E are not whitespace in Python 3.
        assert_eq!(py_strip("\u{200b}x"), "\u{200b}x");
        assert_eq!(py_strip("\u{180e}x"), "\u{180e}x");
        assert_eq!(py_strip(""), "");
    }

    #[test]
    fn truthiness() {
        for (v, t) in [
            (json!(null), false),
            (json!(0), false),
            (json!(0.0), false),
            (json!(""), false),
            (json!([]), false),
            (json!({}), false),
            (json!(false), false),
            (json!("x"), true),
            (json!(-1), true),
            (json!([0]), true),
        ] {
            assert_eq!(py_truthy(&v), t, "{v}");
        }
    }

    #[test]
    fn repr_and_str_match_python() {
        for (f, s) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456.789, "123456.789"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1.5e300, "1.5e+300"),
            (0.7999999999999999, "0.7999999999999999"),
            (-0.0, "-0.0"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(py_float_repr(f), s, "{f}");
        }
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(7)), "7");
        assert_eq!(py_str(&json!(1e20)), "1e+20");
        assert_eq!(py_json_key(&json!(false)).as_deref(), Some("false"));
        assert_eq!(py_json_key(&json!([1])), None);
    }
}
