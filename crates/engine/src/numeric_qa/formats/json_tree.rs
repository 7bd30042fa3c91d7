//! JSON text into a [`PyVal`] tree, in this thread's arena: the fast parser for well-formed text
//! ([`super::fastjson`]), `pyrepr::parse_py_json` for the rest. Apart from both, as each of them
//! is about the tree ([`super::pyval`]) and this one picks between them.

use std::cell::RefCell;

use bumpalo::Bump;

use super::pyval::PyVal;
use super::Src;

/// Parses JSON like `pyrepr::parse_py_json` (bare `NaN`/`Infinity` accepted as marker strings)
/// into a borrowed tree and hands it to `f`; returns what `f` returns and the keys that objects
/// repeat ([`crate::json_keys`]: the tree keeps each repeat, [`PyVal::get`] the last value).
/// Errors are those of `parse_py_json`.
///
/// Well-formed JSON text takes [`super::fastjson`] (which notes repeated keys as it reads, so the
/// text is scanned for them only when there are some); anything else (bytes that are not UTF-8,
/// Python's non-finite tokens, malformed JSON and its error message) goes through
/// `parse_py_json`, and the scan. The tree is built in this thread's arena, emptied again
/// afterwards.
pub(crate) fn with_py_json<'s, R>(
    src: impl Into<Src<'s>>,
    f: impl FnOnce(&PyVal<'_>) -> R,
) -> Result<(R, Vec<crate::json_keys::DuplicateKey>), serde_json::Error> {
    thread_local! {
        static ARENA: RefCell<Bump> = RefCell::new(Bump::new());
    }
    /// A bigger arena is dropped after use rather than kept for the next file.
    const KEEP_ARENA_BYTES: usize = 16 << 20;
    let src = src.into();
    let parse = |bump: &Bump| {
        let bytes = src.as_bytes();
        let text = match src {
            Src::Text(text) => Some(text),
            Src::Bytes(bytes) => std::str::from_utf8(bytes).ok(),
        };
        if let Some((v, repeated_key)) = text.and_then(|t| super::fastjson::parse(t, bump)) {
            let r = f(&v);
            let repeats = if repeated_key {
                crate::json_keys::duplicate_keys(bytes)
            } else {
                Vec::new()
            };
            return Ok((r, repeats));
        }
        let v = crate::pyrepr::parse_py_json(bytes)?;
        Ok((
            f(&PyVal::from_value(&v, bump)),
            crate::json_keys::duplicate_keys(bytes),
        ))
    };
    ARENA.with(|cell| match cell.try_borrow_mut() {
        Ok(mut bump) => {
            let r = parse(&bump);
            if bump.allocated_bytes() > KEEP_ARENA_BYTES {
                *bump = Bump::new();
            } else {
                bump.reset();
            }
            r
        }
        // Called from inside `f`: a fresh arena.
        Err(_) => parse(&Bump::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric_qa::formats::pyval::entries;

    /// The tree agrees with `serde_json::Value` on everything the readers look at.
    fn check(text: &str) {
        let want = crate::pyrepr::parse_py_json(text.as_bytes());
        let got = with_py_json(text.as_bytes(), |v| {
            (v.to_value(), v.raw(), v.get("k").map(PyVal::raw))
        });
        match (want, got) {
            (Ok(w), Ok(((value, raw, k), repeats))) => {
                assert_eq!(value, w, "{text}");
                assert_eq!(
                    repeats,
                    crate::json_keys::duplicate_keys(text.as_bytes()),
                    "{text}"
                );
                assert_eq!(
                    format!("{:?}", raw),
                    format!("{:?}", crate::pyrepr::raw_from_py_json(&w)),
                    "{text}"
                );
                assert_eq!(
                    format!("{:?}", k),
                    format!("{:?}", w.get("k").map(crate::pyrepr::raw_from_py_json)),
                    "{text}"
                );
                let bump = Bump::new();
                if let (PyVal::Obj(_), serde_json::Value::Object(m)) = (
                    &with_py_json(text.as_bytes(), |v| v.to_value())
                        .map(|(v, _)| PyVal::from_value(&v, &bump))
                        .unwrap_or(PyVal::Null),
                    &w,
                ) {
                    let keys: Vec<String> = with_py_json(text.as_bytes(), |v| match v {
                        PyVal::Obj(e) => entries(e)
                            .map(|(k, v)| format!("{k}={:?}", v.raw()))
                            .collect(),
                        _ => Vec::new(),
                    })
                    .map(|(keys, _)| keys)
                    .unwrap_or_default();
                    let want_keys: Vec<String> = m
                        .iter()
                        .map(|(k, v)| format!("{k}={:?}", crate::pyrepr::raw_from_py_json(v)))
                        .collect();
                    assert_eq!(keys, want_keys, "{text}");
                }
            }
            (Err(w), Err(g)) => assert_eq!(w.to_string(), g.to_string(), "{text}"),
            (w, g) => panic!("{text}: {w:?} vs {:?}", g.map(|x| x.0)),
        }
    }

    #[test]
    fn same_as_serde_json_value() {
        for t in [
            "null",
            "true",
            "0",
            "-1",
            "18446744073709551615",
            "-9223372036854775808",
            "9223372036854775808",
            "1e400",
            "1.5",
            "-0.0",
            "123456789012345678901234567890",
            r#""a\"b""#,
            r#""plain""#,
            "[1, \"x\", [2, {\"a\": null}]]",
            r#"{"k": 1, "a": [1, 2], "k": "second", "b": {"z": 1, "y": 2}}"#,
            r#"{"k": NaN, "x": Infinity, "y": -Infinity}"#,
            r#"{"k": [NaN]}"#,
            "{\"k\": 1,}",
            "{\"k\": 1} x",
            "[1, 2",
            "",
            "\u{feff}{}",
            r#"{"k": "\u0000evalboard:py-float:NaN"}"#,
            r#"{"k": "\ud800"}"#,
        ] {
            check(t);
        }
    }

    #[test]
    fn invalid_utf8_errors_like_value() {
        let bytes = b"{\"k\": \"\xff\"}";
        let want = crate::pyrepr::parse_py_json(bytes).map(|_| ());
        let got = with_py_json(&bytes[..], |_| ()).map(|(r, _)| r);
        assert_eq!(
            want.map_err(|e| e.to_string()),
            got.map_err(|e| e.to_string())
        );
    }
}
