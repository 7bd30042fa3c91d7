//! A borrowed JSON tree for the readers: what `serde_json::Value` holds, without copying strings
//! or hashing keys.
//!
//! Strings without escapes borrow from the input; objects are vectors of entries in file order.
//! Everything the readers observe is the same as with `serde_json::Value` (the same parser runs):
//! [`PyVal::get`] returns the last value of a duplicated key (as `Map::insert` keeps it),
//! [`PyVal::entries`] lists each key once at its first position with its last value, numbers keep
//! their integer/float kind, and [`PyVal::to_value`] rebuilds the exact `Value` where one is needed.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::Src;
use crate::model::RawValue;

/// A JSON string borrowed from the input when it has no escapes.
pub(crate) struct BStr<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for BStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = BStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<BStr<'a>, E> {
                Ok(BStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl std::ops::Deref for BStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// One JSON value (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyVal<'a> {
    Null,
    Bool(bool),
    /// A negative integer (serde_json's `NegInt`).
    I64(i64),
    /// A non-negative integer (serde_json's `PosInt`).
    U64(u64),
    F64(f64),
    Str(Cow<'a, str>),
    Arr(Vec<PyVal<'a>>),
    Obj(Vec<(Cow<'a, str>, PyVal<'a>)>),
}

impl<'a> PyVal<'a> {
    /// The value of `key` in an object (the last one when the key is repeated); `None` for a
    /// missing key or a value that is not an object (like `Value::get`).
    pub(crate) fn get(&self, key: &str) -> Option<&PyVal<'a>> {
        match self {
            PyVal::Obj(entries) => obj_get(entries, key),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            PyVal::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            PyVal::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[PyVal<'a>]> {
        match self {
            PyVal::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// The equal `serde_json::Value`.
    pub(crate) fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            PyVal::Null => Value::Null,
            PyVal::Bool(b) => Value::Bool(*b),
            PyVal::I64(i) => Value::from(*i),
            PyVal::U64(u) => Value::from(*u),
            PyVal::F64(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            PyVal::Str(s) => Value::String(s.to_string()),
            PyVal::Arr(a) => Value::Array(a.iter().map(PyVal::to_value).collect()),
            PyVal::Obj(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    m.insert(k.to_string(), v.to_value());
                }
                Value::Object(m)
            }
        }
    }

    /// An owned copy of a `Value` (the slow path for files with `NaN`/`Infinity` tokens).
    pub(crate) fn from_value(v: &serde_json::Value) -> PyVal<'static> {
        use serde_json::Value;
        match v {
            Value::Null => PyVal::Null,
            Value::Bool(b) => PyVal::Bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    PyVal::U64(u)
                } else if let Some(i) = n.as_i64() {
                    PyVal::I64(i)
                } else {
                    PyVal::F64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => PyVal::Str(Cow::Owned(s.clone())),
            Value::Array(a) => PyVal::Arr(a.iter().map(PyVal::from_value).collect()),
            Value::Object(o) => PyVal::Obj(
                o.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), PyVal::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// `pyrepr::raw_from_py_json` of the equal `Value`.
    pub(crate) fn raw(&self) -> RawValue {
        match self {
            // Marker strings (non-finite floats) start with NUL: let pyrepr decide.
            PyVal::Str(s) if s.starts_with('\0') => {
                crate::pyrepr::raw_from_py_json(&serde_json::Value::String(s.to_string()))
            }
            PyVal::Arr(_) | PyVal::Obj(_) => crate::pyrepr::raw_from_py_json(&self.to_value()),
            _ => self.raw_json(),
        }
    }

    /// The value as [`RawValue::from_json`] makes it from the equal `serde_json::Value`: plain
    /// JSON, no Python markers (strings are kept as they are; lists and objects as JSON text).
    pub(crate) fn raw_json(&self) -> RawValue {
        match self {
            PyVal::Null => RawValue::Null,
            PyVal::Bool(b) => RawValue::Bool(*b),
            PyVal::I64(i) => RawValue::Int(*i),
            PyVal::U64(u) => match i64::try_from(*u) {
                Ok(i) => RawValue::Int(i),
                Err(_) => RawValue::Float(*u as f64),
            },
            PyVal::F64(f) => RawValue::Float(*f),
            PyVal::Str(s) => RawValue::Str(s.to_string()),
            PyVal::Arr(_) | PyVal::Obj(_) => RawValue::from_json(&self.to_value()),
        }
    }
}

/// The value of `key` among an object's entries (the last one when repeated).
pub(crate) fn obj_get<'v, 'a>(
    entries: &'v [(Cow<'a, str>, PyVal<'a>)],
    key: &str,
) -> Option<&'v PyVal<'a>> {
    entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// An object's entries as `serde_json::Map` iterates them: each key once, at its first position,
/// with its last value.
#[cfg(test)]
pub(crate) fn entries<'v, 'a>(
    entries: &'v [(Cow<'a, str>, PyVal<'a>)],
) -> impl Iterator<Item = (&'v str, &'v PyVal<'a>)> {
    entries_where(entries, |_| true)
}

/// [`entries`] with the keys `keep` accepts (tested first, so the scan for duplicates is only
/// paid for the keys kept).
pub(crate) fn entries_where<'v, 'a>(
    entries: &'v [(Cow<'a, str>, PyVal<'a>)],
    keep: impl Fn(&str) -> bool,
) -> impl Iterator<Item = (&'v str, &'v PyVal<'a>)> {
    entries.iter().enumerate().filter_map(move |(i, (k, v))| {
        if !keep(k) {
            return None;
        }
        let earlier = entries.get(..i).unwrap_or_default();
        if earlier.iter().any(|(k2, _)| k2 == k) {
            return None;
        }
        let later = entries.get(i + 1..).unwrap_or_default();
        let last = later
            .iter()
            .rev()
            .find(|(k2, _)| k2 == k)
            .map_or(v, |(_, v2)| v2);
        Some((k.as_ref(), last))
    })
}

impl<'de: 'a, 'a> Deserialize<'de> for PyVal<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = PyVal<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<PyVal<'a>, E> {
                Ok(PyVal::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<PyVal<'a>, E> {
                // serde_json's Value stores a non-negative i64 as PosInt.
                Ok(match u64::try_from(v) {
                    Ok(u) => PyVal::U64(u),
                    Err(_) => PyVal::I64(v),
                })
            }
            fn visit_u64<E>(self, v: u64) -> Result<PyVal<'a>, E> {
                Ok(PyVal::U64(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<PyVal<'a>, E> {
                Ok(PyVal::F64(v))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<PyVal<'a>, E> {
                Ok(PyVal::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<PyVal<'a>, E> {
                Ok(PyVal::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<PyVal<'a>, E> {
                Ok(PyVal::Str(Cow::Owned(v)))
            }
            fn visit_unit<E>(self) -> Result<PyVal<'a>, E> {
                Ok(PyVal::Null)
            }
            fn visit_none<E>(self) -> Result<PyVal<'a>, E> {
                Ok(PyVal::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<PyVal<'a>, D2::Error> {
                PyVal::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PyVal<'a>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(v) = seq.next_element::<PyVal<'a>>()? {
                    out.push(v);
                }
                Ok(PyVal::Arr(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PyVal<'a>, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(8).min(4096));
                while let Some((k, v)) = map.next_entry::<BStr<'a>, PyVal<'a>>()? {
                    out.push((k.0, v));
                }
                Ok(PyVal::Obj(out))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Parses JSON like `pyrepr::parse_py_json` (bare `NaN`/`Infinity` accepted as marker strings)
/// into a borrowed tree and hands it to `f`. Errors are those of `parse_py_json`.
pub(crate) fn with_py_json<'s, R>(
    src: impl Into<Src<'s>>,
    f: impl FnOnce(&PyVal<'_>) -> R,
) -> Result<R, serde_json::Error> {
    let (fast, bytes) = match src.into() {
        Src::Text(text) => (serde_json::from_str::<PyVal>(text), text.as_bytes()),
        Src::Bytes(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => (serde_json::from_str::<PyVal>(text), bytes),
            Err(_) => (serde_json::from_slice::<PyVal>(bytes), bytes),
        },
    };
    match fast {
        Ok(v) => Ok(f(&v)),
        Err(_) => {
            let v = crate::pyrepr::parse_py_json(bytes)?;
            Ok(f(&PyVal::from_value(&v)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree agrees with `serde_json::Value` on everything the readers look at.
    fn check(text: &str) {
        let want = crate::pyrepr::parse_py_json(text.as_bytes());
        let got = with_py_json(text.as_bytes(), |v| {
            (v.to_value(), v.raw(), v.get("k").map(PyVal::raw))
        });
        match (want, got) {
            (Ok(w), Ok((value, raw, k))) => {
                assert_eq!(value, w, "{text}");
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
                if let (PyVal::Obj(_), serde_json::Value::Object(m)) = (
                    &with_py_json(text.as_bytes(), |v| v.clone().to_value())
                        .map(|v| PyVal::from_value(&v))
                        .unwrap_or(PyVal::Null),
                    &w,
                ) {
                    let keys: Vec<String> = with_py_json(text.as_bytes(), |v| match v {
                        PyVal::Obj(e) => entries(e)
                            .map(|(k, v)| format!("{k}={:?}", v.raw()))
                            .collect(),
                        _ => Vec::new(),
                    })
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
        let got = with_py_json(&bytes[..], |_| ());
        assert_eq!(
            want.map_err(|e| e.to_string()),
            got.map_err(|e| e.to_string())
        );
    }
}
