//! JSON as Python writes it: `json.dumps` (and pydantic with `ser_json_inf_nan="constants"`)
//! writes bare `NaN`, `Infinity` and `-Infinity` tokens, which serde_json rejects. They are read
//! as marker strings by the project's one Python-JSON reader ([`crate::pyrepr::from_py_json`]);
//! [`non_finite`] recognises a marker, so a NaN reads as "unscored", never 0.

use serde_json::Value;

use super::model::RecordedValue;
use crate::diag::Diagnostic;
use crate::input::InputFile;

/// Where parsed text sits, for the warnings about its repeated keys.
pub struct At<'a> {
    /// The input file.
    pub path: &'a str,
    /// The line the text starts on (a JSONL line's number; 1 for a file or an archive member).
    pub line: u32,
    /// The archive member, when the text is one.
    pub member: Option<&'a str>,
}

/// Parses Python-written JSON (bare non-finite tokens allowed;
/// [`crate::json_keys::from_py_json`]): an object's repeated key keeps its last value, and each
/// repeat is a warning in `diags`.
pub fn parse<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    at: At<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Result<T, serde_json::Error> {
    let (text, lone) = crate::pyrepr::without_lone_surrogates(bytes);
    let bytes: &[u8] = &text;
    let (value, repeats) = crate::json_keys::from_py_json(bytes)?;
    let mut warnings = Vec::new();
    if let Some(lone) = lone {
        let line = crate::diag::line_of_offset(bytes, lone.first_at);
        warnings.push(Diagnostic::warning(
            at.path,
            Some(at.line.saturating_add(line.saturating_sub(1))),
            lone_surrogates_words(lone.count),
        ));
    }
    warnings.extend(crate::json_keys::warnings(
        at.path, bytes, at.line, &repeats,
    ));
    diags.extend(warnings.into_iter().map(|d| match at.member {
        Some(m) => d.with_record(m),
        None => d,
    }));
    Ok(value)
}

/// The warning for `count` lone surrogate escapes in one text (its line: the first one's).
fn lone_surrogates_words(count: usize) -> String {
    let (n, them) = if count == 1 {
        ("a lone surrogate escape".to_string(), "it")
    } else {
        (format!("{count} lone surrogate escapes"), "them")
    };
    format!(
        "{n} (like \\ud800, which Python's json writes and strict JSON refuses): read {them} as U+FFFD"
    )
}

/// Parses a whole file ([`parse`]); `Err` is one error naming what the file is not
/// (`not {what}: …`), at the line serde_json stopped on.
pub fn parse_file<T: serde::de::DeserializeOwned>(
    file: &InputFile,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<T, Diagnostic> {
    let at = At {
        path: &file.path,
        line: 1,
        member: None,
    };
    parse(&file.bytes, at, diags).map_err(|e| {
        Diagnostic::error(
            file.path.as_str(),
            Some(u32::try_from(e.line()).unwrap_or(u32::MAX)),
            format!("not {what}: {e}"),
        )
    })
}

/// Each non-blank line of a JSONL file, parsed ([`parse`]), with its 1-based number; a line that
/// does not parse is an error in `diags` and skipped.
pub fn each_line(
    file: &InputFile,
    diags: &mut Vec<Diagnostic>,
    row: impl FnMut(u32, Value, &mut Vec<Diagnostic>),
) {
    each_line_from(&file.path, &file.bytes, 1, diags, row)
}

/// [`each_line`] of `bytes`, lines of `path` numbered from `first_line` (a watched file's lines
/// appended since the last round: [`super::live`]).
pub fn each_line_from(
    path: &str,
    bytes: &[u8],
    first_line: u32,
    diags: &mut Vec<Diagnostic>,
    mut row: impl FnMut(u32, Value, &mut Vec<Diagnostic>),
) {
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = u32::try_from(i)
            .unwrap_or(u32::MAX)
            .saturating_add(first_line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let at = At {
            path,
            line: line_no,
            member: None,
        };
        match parse::<Value>(line, at, diags) {
            Ok(v) => row(line_no, v, diags),
            Err(e) => diags.push(Diagnostic::error(
                path,
                Some(line_no),
                format!("line does not parse: {e}"),
            )),
        }
    }
}

/// The token a marker string stands for (`NaN`, `Infinity`, `-Infinity`).
pub fn non_finite(v: &Value) -> Option<&str> {
    v.as_str().and_then(crate::pyrepr::nonfinite_token)
}

/// A finite number, or `None` (null, NaN, infinite, not a number).
pub fn finite(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

/// A finite number, also from a numeric string (lm-eval writes some numbers as strings).
pub fn finite_lenient(v: &Value) -> Option<f64> {
    finite(v).or_else(|| {
        v.as_str()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|x| x.is_finite())
    })
}

pub fn uint(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|x| *x >= 0.0 && x.fract() == 0.0)
            .map(|x| x as u64)
    })
}

pub fn string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if non_finite(v).is_none() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Compact JSON text (markers written back as their tokens' names in strings).
pub fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A recorded score value. Dicts are split by the caller; a nested dict becomes its JSON text.
pub fn recorded(v: &Value) -> RecordedValue {
    // Depth is bounded by serde_json's own recursion limit (128) on the parsed tree.
    match v {
        Value::Null => RecordedValue::Null,
        Value::Bool(b) => RecordedValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => RecordedValue::Int(i),
            None => RecordedValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => match non_finite(v) {
            Some(t) => RecordedValue::NonFinite(t.to_string()),
            None => RecordedValue::Str(s.clone()),
        },
        Value::Array(items) => RecordedValue::List(items.iter().map(recorded).collect()),
        Value::Object(_) => RecordedValue::Str(compact(v)),
    }
}

/// Inspect's `value_to_float()` (`inspect_ai/scorer/_metric.py`): numbers and bools as floats;
/// `C` = 1, `P` = 0.5, `I` = `N` = 0; `yes`/`true` = 1, `no`/`false` = 0 (lower-cased); finite
/// numeric strings as numbers; anything else 0 (the tool warns). Unscored (`NaN`, infinities,
/// null) is `None`, never 0.
pub fn inspect_value_to_float(v: &RecordedValue) -> Option<f64> {
    match v {
        RecordedValue::Null | RecordedValue::NonFinite(_) => None,
        RecordedValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        RecordedValue::Int(i) => Some(*i as f64),
        RecordedValue::Float(f) => f.is_finite().then_some(*f),
        RecordedValue::Str(s) => Some(match s.as_str() {
            "C" => 1.0,
            "P" => 0.5,
            "I" | "N" => 0.0,
            other => {
                let lower = other.to_lowercase();
                match lower.as_str() {
                    "yes" | "true" => 1.0,
                    "no" | "false" => 0.0,
                    _ => lower
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .unwrap_or(0.0),
                }
            }
        }),
        RecordedValue::List(_) => Some(0.0),
    }
}

/// Text of a chat message or content (Inspect `ChatMessageBase.text`): a string, or the `text`
/// items of a content list joined by newlines.
pub fn message_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let texts: Vec<&str> = items
                .iter()
                .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// The text of a prompt: a string, or the user messages of a chat (`[{role, content}]`) joined
/// by blank lines (Inspect's sample input, OpenAI Evals' `sampling.data.prompt`).
pub fn user_text(prompt: &Value) -> Option<String> {
    match prompt {
        Value::String(x) => Some(x.clone()),
        Value::Array(msgs) => {
            let texts: Vec<String> = msgs
                .iter()
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
                .filter_map(|m| m.get("content").and_then(message_text))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n\n"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_tokens_outside_strings_only() {
        let at = At {
            path: "f.json",
            line: 1,
            member: None,
        };
        let text = br#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN \" Infinity", "d": 1}"#;
        let v: Value = parse(text, at, &mut Vec::new()).unwrap();
        assert_eq!(non_finite(&v["a"]), Some("NaN"));
        assert_eq!(non_finite(&v["b"][0]), Some("Infinity"));
        assert_eq!(non_finite(&v["b"][1]), Some("-Infinity"));
        assert_eq!(v["c"], "NaN \" Infinity");
        assert_eq!(v["d"], 1);
    }

    #[test]
    fn value_to_float_like_inspect() {
        let s = |x: &str| inspect_value_to_float(&RecordedValue::Str(x.into()));
        assert_eq!(s("C"), Some(1.0));
        assert_eq!(s("P"), Some(0.5));
        assert_eq!(s("I"), Some(0.0));
        assert_eq!(s("N"), Some(0.0));
        assert_eq!(s("Yes"), Some(1.0));
        assert_eq!(s("FALSE"), Some(0.0));
        assert_eq!(s("0.25"), Some(0.25));
        assert_eq!(s("nan"), Some(0.0));
        assert_eq!(s("whatever"), Some(0.0));
        assert_eq!(
            inspect_value_to_float(&RecordedValue::NonFinite("NaN".into())),
            None
        );
        assert_eq!(
            inspect_value_to_float(&RecordedValue::Bool(true)),
            Some(1.0)
        );
    }
}
