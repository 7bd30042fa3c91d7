//! The numbers of a JSON object, however the tool nests them: every numeric leaf as a dotted
//! path (`tokenUsage.completionDetails.reasoning`), depth-bounded and without recursion. Used to
//! show every number a log records (promptfoo's `stats` and `metrics.tokenUsage`, an OpenAI Evals
//! `final_report`) and to sum the same paths over the rows that recompute them.

use std::collections::BTreeMap;

use serde_json::Value;

/// Deepest object nesting followed (a deeper object is not a number of the log's own).
pub const MAX_DEPTH: usize = 4;

/// Every numeric leaf of `v` (an object) in the log's order, as `(path, value)`: a finite number as
/// `Some`, a `null` / `NaN` / infinite one as `None`. Strings, bools and lists are not numbers;
/// objects nested deeper than [`MAX_DEPTH`] are left out.
pub fn numeric_leaves(v: &Value) -> Vec<(String, Option<f64>)> {
    let mut out = Vec::new();
    walk(v, |path, leaf| {
        if leaf.is_number() || leaf.is_null() || super::json::non_finite(leaf).is_some() {
            out.push((path.to_string(), super::json::finite(leaf)));
        }
    });
    out
}

/// Adds every finite numeric leaf of `v` to `sums`, under `prefix` (`prefix.path`).
pub fn add_leaves(sums: &mut BTreeMap<String, f64>, prefix: &str, v: &Value) {
    walk(v, |path, leaf| {
        if let Some(x) = super::json::finite(leaf) {
            let key = if prefix.is_empty() {
                path.to_string()
            } else {
                format!("{prefix}.{path}")
            };
            *sums.entry(key).or_default() += x;
        }
    });
}

/// Calls `f(path, leaf)` for every non-object value under the object `v`, depth-first in the
/// log's order, with an explicit stack bounded by [`MAX_DEPTH`].
fn walk(v: &Value, mut f: impl FnMut(&str, &Value)) {
    let Some(top) = v.as_object() else {
        return;
    };
    // (path prefix, remaining entries of that object, depth)
    let mut stack: Vec<(String, serde_json::map::Iter<'_>, usize)> =
        vec![(String::new(), top.iter(), 1)];
    while let Some((prefix, iter, depth)) = stack.last_mut() {
        let Some((k, child)) = iter.next() else {
            stack.pop();
            continue;
        };
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match child.as_object() {
            Some(o) if *depth < MAX_DEPTH => {
                let d = *depth + 1;
                stack.push((path, o.iter(), d));
            }
            Some(_) => {}
            None => f(&path, child),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_are_dotted_paths_in_the_logs_order() {
        let v: Value = serde_json::from_str(
            r#"{"b": 2, "a": {"y": null, "x": 1.5, "s": "text", "t": true, "l": [1]},
                "c": "text", "d": {"e": {"f": {"g": {"h": 1}}}}}"#,
        )
        .unwrap();
        assert_eq!(
            numeric_leaves(&v),
            vec![
                ("b".to_string(), Some(2.0)),
                ("a.y".to_string(), None),
                ("a.x".to_string(), Some(1.5)),
            ]
        );
        let mut sums = BTreeMap::new();
        add_leaves(&mut sums, "p", &v);
        add_leaves(&mut sums, "p", &v);
        assert_eq!(sums.get("p.a.x"), Some(&3.0));
        assert_eq!(sums.get("p.b"), Some(&4.0));
        assert_eq!(sums.len(), 2);
        assert!(numeric_leaves(&Value::from(3)).is_empty());
    }
}
