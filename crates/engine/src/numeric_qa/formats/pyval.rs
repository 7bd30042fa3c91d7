//! A borrowed JSON tree for the readers: what `serde_json::Value` holds, without copying strings
//! or hashing keys, and without an allocation per object.
//!
//! The tree lives in a bump arena that [`super::json_tree::with_py_json`] reuses from file to file (each thread
//! has its own): objects and arrays are slices in it, strings borrow from the input (or from the
//! arena when they had escapes), and dropping a tree is free. Objects keep their entries in file
//! order. Everything the readers observe is the same as with `serde_json::Value`:
//! [`PyVal::get`] returns the last value of a duplicated key (as `Map::insert` keeps it),
//! [`PyVal::entries`] lists each key once at its first position with its last value, numbers keep
//! their integer/float kind, and [`PyVal::to_value`] rebuilds the exact `Value` where one is needed.

use std::borrow::Cow;
use std::fmt;

use bumpalo::Bump;
use serde::de::{Deserialize, Deserializer, Visitor};

use crate::numeric_qa::model::RawValue;

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum PyVal<'a> {
    Null,
    Bool(bool),
    /// A negative integer (serde_json's `NegInt`).
    I64(i64),
    /// A non-negative integer (serde_json's `PosInt`).
    U64(u64),
    F64(f64),
    Str(&'a str),
    Arr(&'a [PyVal<'a>]),
    Obj(&'a [(&'a str, PyVal<'a>)]),
}

/// An object's entries, in file order (a repeated key appears each time).
pub(crate) type Obj<'a> = [(&'a str, PyVal<'a>)];

impl<'a> PyVal<'a> {
    /// The value of `key` in an object (the last one when the key is repeated); `None` for a
    /// missing key or a value that is not an object (like `Value::get`).
    pub(crate) fn get(&self, key: &str) -> Option<&'a PyVal<'a>> {
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

    pub(crate) fn as_str(&self) -> Option<&'a str> {
        match self {
            PyVal::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&'a [PyVal<'a>]> {
        match self {
            PyVal::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// The equal `serde_json::Value`.
    pub(crate) fn to_value(self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            PyVal::Null => Value::Null,
            PyVal::Bool(b) => Value::Bool(b),
            PyVal::I64(i) => Value::from(i),
            PyVal::U64(u) => Value::from(u),
            PyVal::F64(f) => serde_json::Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            PyVal::Str(s) => Value::String(s.to_string()),
            PyVal::Arr(a) => Value::Array(a.iter().map(|v| v.to_value()).collect()),
            PyVal::Obj(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries.iter() {
                    m.insert(k.to_string(), v.to_value());
                }
                Value::Object(m)
            }
        }
    }

    /// A copy of a `Value` in `bump` (the slow path: files the fast parser leaves to serde_json,
    /// like those with `NaN`/`Infinity` tokens).
    pub(crate) fn from_value(v: &serde_json::Value, bump: &'a Bump) -> PyVal<'a> {
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
            Value::String(s) => PyVal::Str(bump.alloc_str(s)),
            Value::Array(a) => {
                PyVal::Arr(bump.alloc_slice_fill_iter(a.iter().map(|v| PyVal::from_value(v, bump))))
            }
            Value::Object(o) => PyVal::Obj(
                bump.alloc_slice_fill_iter(
                    o.iter()
                        .map(|(k, v)| (&*bump.alloc_str(k), PyVal::from_value(v, bump))),
                ),
            ),
        }
    }

    /// A string that reads as text: `None` for anything else, and for the marker strings that
    /// stand for Python's `NaN` / `Infinity` (they start with NUL; [`Self::raw`] reads them as
    /// floats).
    pub(crate) fn as_text(&self) -> Option<&'a str> {
        self.as_str().filter(|s| !s.starts_with('\0'))
    }

    /// `pyrepr::raw_from_py_json` of the equal `Value`.
    pub(crate) fn raw(&self) -> RawValue {
        match self {
            PyVal::Null => RawValue::Null,
            PyVal::Bool(b) => RawValue::Bool(*b),
            PyVal::I64(i) => RawValue::Int(*i),
            PyVal::U64(u) => RawValue::from_u64(*u),
            PyVal::F64(f) => RawValue::Float(*f),
            PyVal::Str(_) => match self.as_text() {
                Some(text) => RawValue::Str(text.to_string()),
                // A marker string (a non-finite float): let pyrepr decide.
                None => crate::pyrepr::raw_from_py_json(&self.to_value()),
            },
            PyVal::Arr(_) | PyVal::Obj(_) => crate::pyrepr::raw_from_py_json(&self.to_value()),
        }
    }
}

/// `a == b`, with the lengths and the last bytes compared first: an object's keys are short and
/// many share a length, and this spares a `memcmp` call for nearly every key that differs.
#[inline(always)]
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.last() == b.last() && a == b
}

/// The value of `key` among an object's entries (the last one when repeated).
pub(crate) fn obj_get<'v, 'a>(entries: &'v Obj<'a>, key: &str) -> Option<&'v PyVal<'a>> {
    entries
        .iter()
        .rev()
        .find(|(k, _)| same_key(k, key))
        .map(|(_, v)| v)
}

/// An object's entries as `serde_json::Map` iterates them: each key once, at its first position,
/// with its last value.
#[cfg(test)]
pub(crate) fn entries<'v, 'a>(
    entries: &'v Obj<'a>,
) -> impl Iterator<Item = (&'v str, &'v PyVal<'a>)> {
    entries_where(entries, |_| true)
}

/// [`entries`] with the keys `keep` accepts (tested first, so the scan for duplicates is only
/// paid for the keys kept).
pub(crate) fn entries_where<'v, 'a>(
    entries: &'v Obj<'a>,
    keep: impl Fn(&str) -> bool,
) -> impl Iterator<Item = (&'v str, &'v PyVal<'a>)> {
    entries.iter().enumerate().filter_map(move |(i, (k, v))| {
        if !keep(k) {
            return None;
        }
        let earlier = entries.get(..i).unwrap_or_default();
        if earlier.iter().any(|(k2, _)| same_key(k2, k)) {
            return None;
        }
        let later = entries.get(i + 1..).unwrap_or_default();
        let last = later
            .iter()
            .rev()
            .find(|(k2, _)| same_key(k2, k))
            .map_or(v, |(_, v2)| v2);
        Some((*k, last))
    })
}
