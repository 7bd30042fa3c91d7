//! promptfoo's per-assertion results (`gradingResult.componentResults`: each assertion's type,
//! value, pass, score and reason; an `assert-set`'s own results nested in its entry) read into
//! [`Checks`]: in the tool's order, an assertion set's results right after it one level deeper,
//! at most [`MAX_CHECKS`] kept and the rest counted, each text cut at [`MAX_CHECK_TEXT`]
//! characters. Walked with an explicit stack (no recursion); anything of the wrong type is left
//! out of its field (a `pass` that is not a bool is `None`), an entry that is not an object is
//! counted as not kept.

use serde_json::Value;

use super::json::{compact, finite};
use super::model::{Check, Checks};

/// Most assertion results kept per sample.
pub const MAX_CHECKS: usize = 200;
/// Most characters of an assertion's value or reason kept.
pub const MAX_CHECK_TEXT: usize = 2_000;

fn cut(s: &str) -> String {
    crate::text::clip_at(s, MAX_CHECK_TEXT).into_owned()
}

/// A value as one text: a string as written, anything else as compact JSON; `None` for null.
fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(cut(s)),
        other => Some(cut(&compact(other))),
    }
}

fn check_of(depth: u32, c: &serde_json::Map<String, Value>) -> Check {
    let assertion = c.get("assertion").and_then(Value::as_object);
    let field = |k: &str| assertion.and_then(|a| a.get(k));
    let value = field("value").and_then(value_text).or_else(|| {
        field("threshold")
            .and_then(value_text)
            .map(|t| format!("threshold {t}"))
    });
    Check {
        depth,
        kind: field("type")
            .and_then(Value::as_str)
            .map(cut)
            .unwrap_or_else(|| "(none)".into()),
        value,
        pass: c.get("pass").and_then(Value::as_bool),
        score: c.get("score").and_then(finite),
        reason: c.get("reason").and_then(Value::as_str).map(cut),
    }
}

/// The checks of one result row's `gradingResult` (none when it has no `componentResults`
/// list).
pub fn read(grading: Option<&Value>) -> Checks {
    let mut out = Checks::default();
    let Some(top) = grading
        .and_then(|g| g.get("componentResults"))
        .and_then(Value::as_array)
    else {
        return out;
    };
    // Pending entries, the next one last; each with its depth.
    let mut stack: Vec<(u32, &Value)> = top.iter().rev().map(|c| (0, c)).collect();
    while let Some((depth, c)) = stack.pop() {
        let Some(obj) = c.as_object() else {
            out.more += 1;
            continue;
        };
        if out.list.len() < MAX_CHECKS {
            out.list.push(check_of(depth, obj));
        } else {
            out.more += 1;
        }
        if let Some(inner) = obj.get("componentResults").and_then(Value::as_array) {
            stack.extend(inner.iter().rev().map(|x| (depth.saturating_add(1), x)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_sets_follow_their_set_one_level_deeper() {
        let g = json!({"componentResults": [
            {"pass": false, "score": 0.5, "reason": "1 of 2 passed",
             "assertion": {"type": "assert-set"},
             "componentResults": [
                {"pass": true, "score": 1, "reason": "ok", "assertion": {"type": "contains", "value": "x"}},
                {"pass": false, "score": 0, "reason": "too slow", "assertion": {"type": "latency", "threshold": 3000}}
             ]},
            {"pass": true, "assertion": {"type": "javascript", "value": {"a": 1}}}
        ]});
        let c = read(Some(&g));
        let got: Vec<_> = c
            .list
            .iter()
            .map(|c| (c.depth, c.kind.as_str(), c.value.as_deref(), c.pass))
            .collect();
        assert_eq!(
            got,
            [
                (0, "assert-set", None, Some(false)),
                (1, "contains", Some("x"), Some(true)),
                (1, "latency", Some("threshold 3000"), Some(false)),
                (0, "javascript", Some("{\"a\":1}"), Some(true)),
            ]
        );
        assert_eq!(c.list[2].reason.as_deref(), Some("too slow"));
        assert_eq!(c.list[0].score, Some(0.5));
        assert_eq!(c.more, 0);
    }

    #[test]
    fn wrong_types_are_left_out_and_huge_lists_are_bounded() {
        let g = json!({"componentResults": [
            7, "x", null,
            {"pass": "yes", "score": "1", "reason": 3, "assertion": {"type": 5, "value": null}},
            {"assertion": "contains"}
        ]});
        let c = read(Some(&g));
        assert_eq!(c.more, 3);
        assert_eq!(c.list.len(), 2);
        assert_eq!(
            c.list[0],
            Check {
                depth: 0,
                kind: "(none)".into(),
                value: None,
                pass: None,
                score: None,
                reason: None,
            }
        );
        assert!(read(Some(&json!({"componentResults": {"a": 1}})))
            .list
            .is_empty());
        assert_eq!(read(None), Checks::default());

        let many: Vec<Value> = (0..5_000)
            .map(|i| json!({"pass": i % 2 == 0, "reason": "r".repeat(10_000), "assertion": {"type": "equals", "value": i}}))
            .collect();
        let c = read(Some(&json!({ "componentResults": many })));
        assert_eq!(
            (c.list.len(), c.more),
            (MAX_CHECKS, 5_000 - MAX_CHECKS as u64)
        );
        let r = c.list[0].reason.as_deref().unwrap_or_default();
        assert!(r.chars().count() < MAX_CHECK_TEXT + 60, "{}", r.len());
        assert!(r.ends_with("characters)"), "{}", &r[r.len() - 40..]);
    }
}
