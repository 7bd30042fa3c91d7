//! Repeated keys in JSON objects: one rule for every reader, and never silent.
//!
//! **The rule.** When an object repeats a key, its last value is used, as Python's `json`,
//! JavaScript's `JSON.parse` and `serde_json::Value` read it (the tools that write these files
//! read them back that way), and every repeat is reported as a warning naming the file, the line
//! and the object ([`warnings`]): `duplicate key "answer" in the object at turns[2]; the last
//! value is used`.
//!
//! **Finding them.** [`duplicate_keys`] is the one scan: flat (an explicit stack, as deep as the
//! input nests, no recursion), over text that already parsed. How a reader comes to call it
//! depends on what the reader costs without it:
//! - readers that build a `serde_json::Value` (documents, small JSONL files) scan the text after
//!   it parsed: one pass, no allocation when no key repeats;
//! - typed readers (serde derive) hear of a repeated field from serde's own error
//!   ([`is_duplicate_field`]), then read the text again with the last value kept
//!   ([`last_wins_text`]) and scan it for the report: nothing is paid on a well-formed line;
//! - the trace parser (`numeric_qa::formats::fastjson`) notes a repeated key as it builds each
//!   object, and the scan runs only then.
//!
//! **Keys are compared after unescaping**: `"a"` and `"\u0061"` are the same key, as the parsers
//! that apply "last value wins" see them. Keys without a backslash (nearly all) are compared as
//! the bytes of the text, with no copy.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::diag::Diagnostic;

/// One key that repeats an earlier key of the same object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// Byte offset of the repeated key's opening quote in the scanned text.
    pub offset: usize,
    /// The key, unescaped (invalid UTF-8 replaced).
    pub key: String,
    /// Where the object is, as a path from the top-level value (`turns[2].tool_calls[0]`); empty
    /// for the top-level object itself.
    pub object: String,
}

impl DuplicateKey {
    /// The same key, for text that sits at `place` in its file (`[3]`, `plan`): its object's
    /// path is taken from there.
    pub fn within(mut self, place: &str) -> DuplicateKey {
        if !place.is_empty() {
            let sep = if self.object.is_empty() || self.object.starts_with('[') {
                ""
            } else {
                "."
            };
            self.object = format!("{place}{sep}{}", self.object);
        }
        self
    }

    /// `duplicate key "answer" in the object at turns[2]; the last value is used`.
    pub fn message(&self) -> String {
        let key = serde_json::to_string(shortened(&self.key).as_ref()).unwrap_or_default();
        if self.object.is_empty() {
            format!("duplicate key {key} in the top-level object; the last value is used")
        } else {
            format!(
                "duplicate key {key} in the object at {}; the last value is used",
                self.object
            )
        }
    }
}

/// An object with more keys than this gets a hash set (below it, comparing with each earlier key
/// is cheaper than hashing).
const SET_FROM: usize = 16;

/// An open object or array of the scan.
struct Frame<'a> {
    /// Where this container's keys start in the scan's key stack (for an array: the stack's
    /// length when it opened, so the parent's current key is the one just before).
    keys_from: usize,
    kind: Kind<'a>,
}

enum Kind<'a> {
    /// `set` holds the keys once there are more than [`SET_FROM`].
    Object { set: Option<HashSet<Cow<'a, [u8]>>> },
    /// The 0-based index of the current element.
    Array { index: usize },
}

/// Repeated keys listed per text at most (the scan stops at one more, which [`warnings`] turns
/// into a note that there are more): a hostile file of millions of repeats costs no more.
pub const LISTED: usize = 1000;

/// Segments of an object's path shown at most (the innermost; `…` for the rest).
const PATH_SEGMENTS: usize = 16;

/// Characters of a key shown at most in a message (`…` for the rest).
const KEY_CHARS: usize = 80;

/// `key`, cut to [`KEY_CHARS`] characters.
fn shortened(key: &str) -> std::borrow::Cow<'_, str> {
    crate::diag::shortened(key, KEY_CHARS)
}

/// Every key of `text` that repeats an earlier key of the same object, in file order; at most
/// [`LISTED`] + 1 of them (the scan stops there).
///
/// `text` should be JSON that parsed (Python's bare `NaN`/`Infinity` tokens are fine: anything
/// outside strings other than brackets, commas and colons is skipped). On other text the scan
/// still ends and never panics; what it reports there is unspecified.
pub fn duplicate_keys(text: &[u8]) -> Vec<DuplicateKey> {
    let mut out = Vec::new();
    let mut frames: Vec<Frame<'_>> = Vec::new();
    // The keys of every open object, innermost last.
    let mut keys: Vec<Cow<'_, [u8]>> = Vec::new();
    let mut expect_key = false;
    let mut i = 0usize;
    while let Some(&b) = text.get(i) {
        match b {
            b'"' => {
                let start = i + 1;
                let (end, escaped) = string_end(text, start);
                i = end.saturating_add(1);
                if !expect_key {
                    continue;
                }
                expect_key = false;
                let Some(Frame {
                    keys_from,
                    kind: Kind::Object { set },
                }) = frames.last_mut()
                else {
                    continue;
                };
                let raw = text.get(start..end).unwrap_or_default();
                let key = if escaped {
                    // The string with its quotes (`start - 1` is the opening one).
                    text.get(start - 1..end.saturating_add(1))
                        .and_then(unescape)
                        .unwrap_or(Cow::Borrowed(raw))
                } else {
                    Cow::Borrowed(raw)
                };
                let earlier = keys.get(*keys_from..).unwrap_or_default();
                let repeated = match set {
                    Some(set) => !set.insert(key.clone()),
                    None => {
                        let repeated = earlier.contains(&key);
                        if !repeated && earlier.len() >= SET_FROM {
                            let mut s: HashSet<Cow<'_, [u8]>> = earlier.iter().cloned().collect();
                            s.insert(key.clone());
                            *set = Some(s);
                        }
                        repeated
                    }
                };
                if repeated {
                    out.push(DuplicateKey {
                        offset: start - 1,
                        key: String::from_utf8_lossy(&key).into_owned(),
                        object: path_of(&frames, &keys),
                    });
                    if out.len() > LISTED {
                        return out;
                    }
                }
                keys.push(key);
            }
            b'{' | b'[' => {
                let kind = if b == b'{' {
                    Kind::Object { set: None }
                } else {
                    Kind::Array { index: 0 }
                };
                frames.push(Frame {
                    keys_from: keys.len(),
                    kind,
                });
                expect_key = b == b'{';
                i += 1;
            }
            b'}' | b']' => {
                if let Some(f) = frames.pop() {
                    keys.truncate(f.keys_from);
                }
                expect_key = false;
                i += 1;
            }
            b',' => {
                match frames.last_mut().map(|f| &mut f.kind) {
                    Some(Kind::Object { .. }) => expect_key = true,
                    Some(Kind::Array { index }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The index of the `"` closing the string whose text starts at `from` (`text.len()` when
/// unterminated), and whether the string has a backslash.
fn string_end(text: &[u8], from: usize) -> (usize, bool) {
    let mut at = from;
    let mut escaped = false;
    loop {
        let rest = text.get(at..).unwrap_or_default();
        match memchr::memchr2(b'"', b'\\', rest) {
            None => return (text.len(), escaped),
            Some(j) => {
                at += j;
                if text.get(at) == Some(&b'"') {
                    return (at, escaped);
                }
                escaped = true;
                at += 2;
            }
        }
    }
}

/// A quoted JSON string (quotes included) unescaped; `None` when serde_json refuses it (a lone
/// surrogate): the raw bytes are compared then.
fn unescape(quoted: &[u8]) -> Option<Cow<'static, [u8]>> {
    serde_json::from_slice::<String>(quoted)
        .ok()
        .map(|s| Cow::Owned(s.into_bytes()))
}

/// The path of the innermost open object: `turns[2].tool_calls[0]`, a key that is not a plain
/// name as `["a b"]`; its last [`PATH_SEGMENTS`] segments (after `…`) when deeper.
fn path_of(frames: &[Frame<'_>], keys: &[Cow<'_, [u8]>]) -> String {
    let from = frames.len().saturating_sub(PATH_SEGMENTS + 1);
    let mut path = String::new();
    if from > 0 {
        path.push('…');
    }
    for pair in frames.get(from..).unwrap_or_default().windows(2) {
        let [parent, child] = pair else { continue };
        match &parent.kind {
            Kind::Array { index } => path.push_str(&format!("[{index}]")),
            Kind::Object { .. } => {
                let key = child
                    .keys_from
                    .checked_sub(1)
                    .and_then(|k| keys.get(k))
                    .map(|k| shortened(&String::from_utf8_lossy(k)).into_owned())
                    .unwrap_or_default();
                let plain = !key.is_empty()
                    && !key.starts_with(|c: char| c.is_ascii_digit())
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if plain {
                    if !path.is_empty() && !path.ends_with('…') {
                        path.push('.');
                    }
                    path.push_str(&key);
                } else {
                    path.push('[');
                    path.push_str(&serde_json::to_string(&key).unwrap_or_default());
                    path.push(']');
                }
            }
        }
    }
    path
}

/// The warnings for `duplicates` found in `text` of `file`, each on its line: `first_line` is the
/// line `text` starts on (1 for a whole file, the line number for a JSONL line). Past [`LISTED`],
/// one warning says that more are not listed.
pub fn warnings(
    file: &str,
    text: &[u8],
    first_line: u32,
    duplicates: &[DuplicateKey],
) -> Vec<Diagnostic> {
    // The offsets come in file order: lines are counted once, incrementally.
    let mut line = first_line;
    let mut counted_to = 0usize;
    let mut line_of = |offset: usize| {
        let to = offset.clamp(counted_to, text.len());
        let seen = text.get(counted_to..to).unwrap_or_default();
        let newlines = memchr::memchr_iter(b'\n', seen).count();
        line = line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        counted_to = to;
        line
    };
    let mut out: Vec<Diagnostic> = duplicates
        .iter()
        .take(LISTED)
        .map(|d| Diagnostic::warning(file, Some(line_of(d.offset)), d.message()))
        .collect();
    if let Some(d) = duplicates.get(LISTED) {
        out.push(Diagnostic::warning(
            file,
            Some(line_of(d.offset)),
            format!(
                "more than {LISTED} duplicate keys: the others, from here on, are not listed \
                 (the last value of each is used)"
            ),
        ));
    }
    out
}

/// [`duplicate_keys`] of `text` pushed onto `diags` as [`warnings`].
pub fn warn_duplicates(diags: &mut Vec<Diagnostic>, file: &str, text: &[u8], first_line: u32) {
    let found = duplicate_keys(text);
    if !found.is_empty() {
        diags.extend(warnings(file, text, first_line, &found));
    }
}

/// Whether a typed read failed on a repeated field (serde's `duplicate field` error).
pub fn is_duplicate_field(e: &serde_json::Error) -> bool {
    e.is_data() && e.to_string().starts_with("duplicate field")
}

/// JSON `text` written again (compact) with each object's repeated keys merged, the last value
/// kept at the key's first position: what a typed reader that borrows from its text parses after
/// [`is_duplicate_field`].
pub fn last_wins_text(text: &[u8]) -> Result<String, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_slice(text)?;
    serde_json::to_string(&value)
}

/// [`crate::pyrepr::from_py_json`] (Python-written JSON into a typed value) with the rule for
/// repeated keys: the value, and the repeats found. A repeated field of `T` costs a second parse
/// (into a `Value`, which keeps the last value; `T` is then read from it, so an error after that
/// has no position); the text is scanned once after parsing either way, since `T` may hold
/// `Value`s, which merge their repeats silently.
pub fn from_py_json<T: serde::de::DeserializeOwned>(
    text: &[u8],
) -> Result<(T, Vec<DuplicateKey>), serde_json::Error> {
    let value = match crate::pyrepr::from_py_json::<T>(text) {
        Err(e) if is_duplicate_field(&e) => {
            let merged: serde_json::Value = crate::pyrepr::from_py_json(text)?;
            T::deserialize(merged)?
        }
        other => other?,
    };
    Ok((value, duplicate_keys(text)))
}

/// A `serde_json::Value` read inside a typed record (a field of any shape) that refuses a
/// repeated key with serde's `duplicate field` error, as a derived field does, so that the
/// reader's error path ([`is_duplicate_field`]) sees repeats at any depth. Nesting is bounded by
/// serde_json's recursion limit, as for `Value`.
pub struct Checked(pub serde_json::Value);

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Deserialize, Error, MapAccess, SeqAccess, Visitor};
        use serde_json::Value;
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Checked;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Checked, E> {
                Ok(Checked(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Checked, E> {
                Ok(Checked(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Checked, E> {
                Ok(Checked(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Checked, E> {
                Ok(Checked(
                    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
                ))
            }
            fn visit_str<E>(self, v: &str) -> Result<Checked, E> {
                Ok(Checked(Value::String(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Checked, E> {
                Ok(Checked(Value::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Checked, E> {
                Ok(Checked(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Checked, E> {
                Ok(Checked(Value::Null))
            }
            fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Checked, D2::Error> {
                Checked::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
                let mut items = Vec::new();
                while let Some(Checked(v)) = seq.next_element()? {
                    items.push(v);
                }
                Ok(Checked(Value::Array(items)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
                let mut m = serde_json::Map::new();
                while let Some(k) = map.next_key::<String>()? {
                    let Checked(v) = map.next_value()?;
                    if m.contains_key(&k) {
                        return Err(A::Error::custom(format_args!("duplicate field `{k}`")));
                    }
                    m.insert(k, v);
                }
                Ok(Checked(Value::Object(m)))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(usize, String, String)> {
        duplicate_keys(text.as_bytes())
            .into_iter()
            .map(|d| (d.offset, d.key, d.object))
            .collect()
    }

    #[test]
    fn repeats_are_found_per_object_with_their_path() {
        assert!(found(r#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#).is_empty());
        let text =
            r#"{"a": 1, "t": [{"x": 1}, {"x": 2, "y": "x", "x": 3}], "a": {"k": 1, "k": 2}}"#;
        let x3 = text.find(r#""x": 3"#).unwrap();
        let a2 = text.rfind(r#""a""#).unwrap();
        let k2 = text.rfind(r#""k""#).unwrap();
        assert_eq!(
            found(text),
            vec![
                (x3, "x".into(), "t[1]".into()),
                (a2, "a".into(), String::new()),
                (k2, "k".into(), "a".into()),
            ]
        );
    }

    #[test]
    fn keys_are_compared_unescaped_and_strings_are_not_keys() {
        let text =
            r#"{"a\"b": "\"a", "\u0061": ["a", "a"], "a": "{\"a\": 1, \"a\": 2}", "a\"b": 0}"#;
        let got: Vec<String> = found(text).into_iter().map(|(_, k, _)| k).collect();
        assert_eq!(got, vec!["a", "a\"b"]);
    }

    #[test]
    fn paths_quote_keys_that_are_not_names() {
        let got = found(r#"{"a b": [0, {"2x": {"k": 1, "k": 1}}]}"#);
        assert_eq!(got[0].2, r#"["a b"][1]["2x"]"#);
    }

    #[test]
    fn big_objects_switch_to_a_set() {
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{i}\": {i}, "));
        }
        text.push_str("\"k3\": 0, \"k99\": 1, \"new\": 2}");
        let got: Vec<String> = found(&text).into_iter().map(|(_, k, _)| k).collect();
        assert_eq!(got, vec!["k3", "k99"]);
    }

    #[test]
    fn python_tokens_and_broken_text_end_cleanly() {
        assert_eq!(found(r#"{"a": NaN, "a": -Infinity}"#).len(), 1);
        for text in ["{\"a", "}}]]{", "{\"a\\", "[,,,{\"a\":1,\"a\"", "\"\\"] {
            let _ = found(text);
        }
        let deep = "[".repeat(1_000_000) + "{\"a\":1,\"a\":2}";
        assert_eq!(duplicate_keys(deep.as_bytes()).len(), 1);
    }

    #[test]
    fn hostile_repeats_are_bounded() {
        // A million repeats: the scan stops after LISTED + 1, and one warning says so.
        let text = format!("{{{}\"a\": 0}}", "\"a\": 0,\n".repeat(1_000_000));
        let found = duplicate_keys(text.as_bytes());
        assert_eq!(found.len(), LISTED + 1);
        let d = warnings("f.json", text.as_bytes(), 1, &found);
        assert_eq!(d.len(), LISTED + 1);
        assert_eq!(d[LISTED].line, Some(LISTED as u32 + 2));
        assert!(d[LISTED]
            .message
            .starts_with("more than 1000 duplicate keys"));
        // Deep nesting with a repeat at every level: paths keep their innermost segments.
        let deep = "{\"k\": 1, \"k\": 1, \"b\": ".repeat(100_000) + "0" + &"}".repeat(100_000);
        let found = duplicate_keys(deep.as_bytes());
        assert_eq!(found.len(), LISTED + 1);
        assert_eq!(
            found[LISTED].object,
            format!("…{}", vec!["b"; 16].join("."))
        );
        // A long key is cut in messages.
        let long = "x".repeat(10_000);
        let text = format!("{{\"{long}\": 1, \"{long}\": 2}}");
        let m = duplicate_keys(text.as_bytes())[0].message();
        assert!(m.len() < 200 && m.contains("x…\""), "{m}");
    }

    #[test]
    fn warnings_name_the_line() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3,\n  \"b\": 4\n}";
        let d = warnings(
            "f.json",
            text.as_bytes(),
            1,
            &duplicate_keys(text.as_bytes()),
        );
        let shown: Vec<String> = d.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "f.json:4: warning: duplicate key \"a\" in the top-level object; the last value is used",
                "f.json:5: warning: duplicate key \"b\" in the top-level object; the last value is used",
            ]
        );
    }

    #[test]
    fn typed_reads_keep_the_last_value() {
        #[derive(serde::Deserialize)]
        struct T {
            a: i64,
            b: serde_json::Value,
        }
        let (t, dups) = from_py_json::<T>(br#"{"a": 1, "b": {"c": 1, "c": NaN}, "a": 2}"#).unwrap();
        assert_eq!(t.a, 2);
        assert_eq!(
            crate::pyrepr::nonfinite_token(t.b["c"].as_str().unwrap()),
            Some("NaN")
        );
        assert_eq!(dups.len(), 2);
        // No repeated field of `T`: one parse, and the scan still finds the one inside a Value.
        let (t, dups) = from_py_json::<T>(br#"{"a": 1, "b": {"c": 1, "c": 2}}"#).unwrap();
        assert_eq!((t.a, &t.b["c"]), (1, &serde_json::json!(2)));
        assert_eq!(dups.len(), 1);
        assert_eq!(
            serde_json::from_str::<T>(r#"{"a": 1, "b": 0, "a": 2}"#)
                .map_err(|e| is_duplicate_field(&e))
                .err(),
            Some(true)
        );
        assert_eq!(
            last_wins_text(br#"{"a": 1, "b": 0, "a": 2}"#).unwrap(),
            r#"{"a":2,"b":0}"#
        );
    }

    #[test]
    fn checked_values_refuse_repeats_at_any_depth() {
        let text = r#"[1, -2, 2.5, "s", null, true, {"a": [{"b": 1}], "c": {}}]"#;
        let Checked(v) = serde_json::from_str(text).unwrap();
        assert_eq!(v, serde_json::from_str::<serde_json::Value>(text).unwrap());
        let e = serde_json::from_str::<Checked>(r#"[{"a": [{"b": 1, "b": 2}]}]"#)
            .err()
            .unwrap();
        assert!(is_duplicate_field(&e), "{e}");
    }
}
