//! Unit tests for the Python-compatible formatting; expected values are CPython 3.11 outputs.
//! (The bulk cross-check against generated Python vectors is in `crates/engine/tests/fa2.rs`.)

use super::*;

fn check_repr(x: f64, expected: &str) {
    assert_eq!(py_float_repr(x), expected, "repr({x:?})");
}

#[test]
#[allow(clippy::excessive_precision)]
fn float_repr() {
    check_repr(1350.0, "1350.0");
    check_repr(1e-5, "1e-05");
    check_repr(0.0001, "0.0001");
    check_repr(0.9000000000000001, "0.9000000000000001");
    check_repr(0.11105777777073753, "0.11105777777073753");
    check_repr(1e16, "1e+16");
    check_repr(1e15, "1000000000000000.0");
    check_repr(9999999999999998.0, "9999999999999998.0");
    check_repr(1.5e16, "1.5e+16");
    check_repr(1e22, "1e+22");
    check_repr(1e23, "1e+23");
    check_repr(1e100, "1e+100");
    check_repr(5e-324, "5e-324");
    check_repr(1.7976931348623157e308, "1.7976931348623157e+308");
    check_repr(0.1, "0.1");
    check_repr(1.0 / 3.0, "0.3333333333333333");
    check_repr(-60.94, "-60.94");
    check_repr(0.0, "0.0");
    check_repr(-0.0, "-0.0");
    check_repr(f64::INFINITY, "inf");
    check_repr(f64::NEG_INFINITY, "-inf");
    check_repr(f64::NAN, "nan");
    check_repr(-f64::NAN, "nan");
    check_repr(123456789.0, "123456789.0");
    check_repr(1.5e-7, "1.5e-07");
    check_repr(0.00012, "0.00012");
    // Exactly halfway between two shortest candidates: CPython picks the even last digit.
    check_repr(1231789256873381.25, "1231789256873381.2");
    check_repr(-128023537601594.125, "-128023537601594.12");
    check_repr(-34007918631673.5625, "-34007918631673.562");
}

fn check_round(x: f64, n: i32, expected: Option<f64>) {
    let got = py_round(x, n);
    match (got, expected) {
        (Some(g), Some(e)) => assert!(
            g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()),
            "round({x:?}, {n}) = {g:?}, want {e:?}"
        ),
        (g, e) => assert_eq!(g, e, "round({x:?}, {n})"),
    }
}

#[test]
fn round_half_even_on_binary_value() {
    check_round(2.5, 0, Some(2.0));
    check_round(3.5, 0, Some(4.0));
    check_round(0.5, 0, Some(0.0));
    check_round(-0.5, 0, Some(-0.0));
    check_round(-2.5, 0, Some(-2.0));
    check_round(0.125, 2, Some(0.12));
    check_round(0.375, 2, Some(0.38));
    check_round(2.675, 2, Some(2.67)); // 2.675 is 2.67499999... in binary
    check_round(1.005, 2, Some(1.0)); // 1.00499999...
    check_round(4.35, 1, Some(4.3)); // 4.3499999...
    check_round(0.045, 2, Some(0.04)); // 0.04499999...
    check_round(15.686274509803921, 1, Some(15.7));
    check_round(15.686274509803921, 0, Some(16.0));
    check_round(142.403, 0, Some(142.0));
    check_round(-0.001, 2, Some(-0.0));
    check_round(1234.5, -1, Some(1230.0));
    check_round(1235.0, -1, Some(1240.0));
    check_round(1225.0, -1, Some(1220.0));
    check_round(5.0, -1, Some(0.0));
    check_round(15.0, -1, Some(20.0));
    check_round(1.7976931348623157e308, -308, None);
    check_round(1.7976931348623157e308, 0, Some(1.7976931348623157e308));
    check_round(1e300, 300, Some(1e300));
    check_round(5e-324, 323, Some(0.0));
    check_round(5e-324, 324, Some(5e-324));
    check_round(123.456, -400, Some(0.0));
    check_round(-123.456, -400, Some(-0.0));
    check_round(f64::INFINITY, 1, Some(f64::INFINITY));
    check_round(f64::NAN, 1, Some(f64::NAN));
    check_round(0.0, 2, Some(0.0));
    check_round(-0.0, 2, Some(-0.0));
}

fn check_parse(s: &str, expected: Option<f64>) {
    let got = py_float_parse(s);
    match (got, expected) {
        (Some(g), Some(e)) => assert!(
            g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()),
            "float({s:?}) = {g:?}, want {e:?}"
        ),
        (g, e) => assert_eq!(g, e, "float({s:?})"),
    }
}

#[test]
fn float_parse_like_python() {
    check_parse("1", Some(1.0));
    check_parse(" 1.5 ", Some(1.5));
    check_parse("-1.5", Some(-1.5));
    check_parse("+1.5", Some(1.5));
    check_parse("1e3", Some(1000.0));
    check_parse("1E-5", Some(1e-5));
    check_parse(".5", Some(0.5));
    check_parse("5.", Some(5.0));
    check_parse(".", None);
    check_parse("", None);
    check_parse("   ", None);
    check_parse("e5", None);
    check_parse("1e", None);
    check_parse("inf", Some(f64::INFINITY));
    check_parse("-Infinity", Some(f64::NEG_INFINITY));
    check_parse("infinit", None);
    check_parse("nan", Some(f64::NAN));
    check_parse("-NaN", Some(f64::NAN));
    check_parse("1_000", Some(1000.0));
    check_parse("1__000", None);
    check_parse("_1", None);
    check_parse("1_", None);
    check_parse("1_.5", None);
    check_parse("1e1_0", Some(1e10));
    check_parse("1,000", None);
    check_parse("$5", None);
    check_parse("12%", None);
    check_parse("(3.2)", None);
    check_parse("yes", None);
    check_parse("\u{661}\u{662}", Some(12.0)); // Arabic-Indic digits
    check_parse("\u{ff11}\u{ff12}.5", Some(12.5)); // fullwidth digits
    check_parse("\u{a0}12\u{2003}", Some(12.0));
    check_parse("1\x1c", None); // \x1c is str.isspace() but float() does not strip it
    check_parse("1\0", None);
    check_parse("1e400", Some(f64::INFINITY));
    check_parse("1e-400", Some(0.0));
    check_parse("-0", Some(-0.0));
    check_parse("1 2", None);
    check_parse("\t\n12\r\x0b\x0c", Some(12.0));
    check_parse("1\u{200b}", None); // zero width space is not a space
}

#[test]
fn strip_like_python() {
    assert_eq!(py_strip("\x1c 42 \u{3000}"), "42");
    assert_eq!(py_strip("\u{200b}42"), "\u{200b}42");
}

fn check_str(v: RawValue, expected_str: &str, expected_csv: &str, truthy: bool) {
    assert_eq!(py_str(&v), expected_str, "str({v:?})");
    assert_eq!(py_csv_cell(&v), expected_csv, "csv({v:?})");
    assert_eq!(py_truthy(&v), truthy, "bool({v:?})");
}

#[test]
fn str_of_values() {
    check_str(RawValue::Null, "None", "", false);
    check_str(RawValue::Bool(true), "True", "True", true);
    check_str(RawValue::Bool(false), "False", "False", false);
    check_str(RawValue::Int(0), "0", "0", false);
    check_str(RawValue::Int(-4), "-4", "-4", true);
    check_str(RawValue::Float(0.0), "0.0", "0.0", false);
    check_str(RawValue::Float(-4.0), "-4.0", "-4.0", true);
    check_str(RawValue::Float(f64::NAN), "nan", "nan", true);
    check_str(RawValue::Str(String::new()), "", "", false);
    check_str(RawValue::Str("142.4%".into()), "142.4%", "142.4%", true);
}

#[test]
fn str_repr() {
    let cases = [
        ("", "''"),
        ("it's", "\"it's\""),
        ("say \"hi\"", "'say \"hi\"'"),
        ("both ' and \"", "'both \\' and \"'"),
        ("back\\slash", "'back\\\\slash'"),
        ("tab\tnl\nret\r", "'tab\\tnl\\nret\\r'"),
        ("\0\x07\x1b\x7f", "'\\x00\\x07\\x1b\\x7f'"),
        ("é ñ 中文 €", "'é ñ 中文 €'"),
        ("\u{a0}", "'\\xa0'"),
        ("\u{ad}", "'\\xad'"),
        ("\u{200b}", "'\\u200b'"),
        ("\u{2028}", "'\\u2028'"),
        ("😀", "'😀'"),
        ("\u{e0001}", "'\\U000e0001'"),
        ("\u{e000}", "'\\ue000'"),
    ];
    for (s, want) in cases {
        assert_eq!(py_str_repr(s), want, "repr({s:?})");
    }
}

#[test]
fn csv_rows() {
    assert_eq!(csv_row(&["a", "b"]), "a,b\r\n");
    assert_eq!(csv_row(&["a,b", "c"]), "\"a,b\",c\r\n");
    assert_eq!(csv_row(&["say \"hi\"", ""]), "\"say \"\"hi\"\"\",\r\n");
    assert_eq!(
        csv_row(&["multi\nline", "x\ry"]),
        "\"multi\nline\",\"x\ry\"\r\n"
    );
    assert_eq!(csv_row(&[""]), "\"\"\r\n");
    assert_eq!(csv_row(&["", ""]), ",\r\n");
    assert_eq!(csv_row(&[" lead", "trail "]), " lead,trail \r\n");
    assert_eq!(csv_row(&["'q'", "#", "semi;"]), "'q',#,semi;\r\n");
}

#[test]
fn dict_repr_and_json_dump() {
    let v = parse_py_json(
        br#"{"turn_idx": 2, "question": "what was, then?", "ok": true, "none": null,
            "xs": [1, 2.5, NaN, -Infinity, Infinity, 1e16], "nested": {"s": "it's"}, "empty": {}}"#,
    )
    .unwrap();
    let obj = PyObj::from_json(&v);
    assert_eq!(
        obj.repr(),
        "{'turn_idx': 2, 'question': 'what was, then?', 'ok': True, 'none': None, \
         'xs': [1, 2.5, nan, -inf, inf, 1e+16], 'nested': {'s': \"it's\"}, 'empty': {}}"
    );
    assert_eq!(
        obj.json_dump(None),
        "{\"turn_idx\": 2, \"question\": \"what was, then?\", \"ok\": true, \"none\": null, \
         \"xs\": [1, 2.5, NaN, -Infinity, Infinity, 1e+16], \"nested\": {\"s\": \"it's\"}, \"empty\": {}}"
    );
    let dict = PyObj::Dict(vec![
        (PyObj::Int(0), PyObj::Float(1.0)),
        (PyObj::Str("é😀\n".into()), PyObj::List(vec![])),
        (
            PyObj::None,
            PyObj::Dict(vec![(PyObj::Bool(true), PyObj::Int(2))]),
        ),
    ]);
    assert_eq!(
        dict.json_dump(Some(2)),
        "{\n  \"0\": 1.0,\n  \"\\u00e9\\ud83d\\ude00\\n\": [],\n  \"null\": {\n    \"true\": 2\n  }\n}"
    );
}

#[test]
fn py_json_markers_only_outside_strings() {
    let v = parse_py_json(br#"{"a": "NaN", "b": NaN, "c": "say \"Infinity\"", "d": -Infinity}"#)
        .unwrap();
    assert_eq!(raw_from_py_json(&v["a"]), RawValue::Str("NaN".into()));
    assert!(matches!(raw_from_py_json(&v["b"]), RawValue::Float(f) if f.is_nan()));
    assert_eq!(
        raw_from_py_json(&v["c"]),
        RawValue::Str("say \"Infinity\"".into())
    );
    assert_eq!(
        raw_from_py_json(&v["d"]),
        RawValue::Float(f64::NEG_INFINITY)
    );
    assert!(parse_py_json(b"{\"a\": nan}").is_err());
    let err = parse_py_json(b"{\n\"a\": NaN,\n\"b\": }").unwrap_err();
    assert_eq!(err.line(), 3);
}

#[test]
fn lone_surrogate_escapes_become_u_fffd_exactly() {
    let fix = |s: &str| {
        let (text, found) = without_lone_surrogates(s.as_bytes());
        (
            String::from_utf8(text.into_owned()).unwrap(),
            found.map(|f| (f.count, f.first_at)),
        )
    };
    // A lone high, a lone low, two highs: each one replaced; the length is kept.
    assert_eq!(
        fix(r#"["a\ud800b"]"#),
        (r#"["a\ufffdb"]"#.into(), Some((1, 3)))
    );
    assert_eq!(fix(r#"["\uDC00"]"#), (r#"["\ufffd"]"#.into(), Some((1, 2))));
    assert_eq!(
        fix(r#"["\ud800\ud800\udc00"]"#),
        (r#"["\ufffd\ud800\udc00"]"#.into(), Some((1, 2)))
    );
    // A pair, an escaped backslash before `ud800`, other escapes: untouched, not copied.
    for ok in [
        r#"["\ud83d\ude00"]"#,
        r#"["\\ud800"]"#,
        r#"["\"\n\u00e9\\"]"#,
        r#"["\ud8"]"#,
        "\\",
    ] {
        let (text, found) = without_lone_surrogates(ok.as_bytes());
        assert!(
            matches!(text, std::borrow::Cow::Borrowed(_)) && found.is_none(),
            "{ok}"
        );
    }
    // An escaped backslash, then an escape of a surrogate; a high before an escaped backslash.
    assert_eq!(fix(r#"["\\\ud800"]"#).0, r#"["\\\ufffd"]"#);
    assert_eq!(
        fix(r#"["\ud800\\udc00"]"#),
        (r#"["\ufffd\\udc00"]"#.into(), Some((1, 2)))
    );
    let v: serde_json::Value = serde_json::from_str(&fix(r#"{"a": "x\udbff"}"#).0).unwrap();
    assert_eq!(v["a"], "x\u{fffd}");
}
