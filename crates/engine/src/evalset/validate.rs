//! Eval set validation (the seed system's `validate_evalset.py`, M35): schema, unique ids,
//! minimum size, known sections/difficulties, composition counts.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::pyfloat::{py_json_key, py_str, py_truthy};
use super::read::jsonl_objects;

/// The seed validator's default minimum item count.
pub const DEFAULT_MIN_ITEMS: usize = 50;
pub const VALID_SECTIONS: [&str; 3] = ["core", "edge_case", "trace_sensitive"];
pub const VALID_DIFFICULTIES: [&str; 3] = ["easy", "hard", "medium"];
const REQUIRED: [&str; 3] = ["id", "prompt", "expected_answer"];

/// One finding, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvalsetFinding {
    pub file: String,
    /// 1-based line; `null` for whole-file findings (too few items, no items).
    pub line: Option<u32>,
    pub message: String,
}

/// Counts by label (sorted by label).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Composition {
    pub section: BTreeMap<String, u64>,
    pub category: BTreeMap<String, u64>,
    pub difficulty: BTreeMap<String, u64>,
}

/// `{"items", "errors", "warnings", "composition"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EvalsetValidateReport {
    /// Lines that parsed as JSON objects (what the seed validator counts as items).
    pub items: u64,
    pub errors: Vec<EvalsetFinding>,
    pub warnings: Vec<EvalsetFinding>,
    pub composition: Composition,
}

impl EvalsetValidateReport {
    /// 0 clean (warnings allowed), 1 invalid, 2 unusable (no item could be read at all).
    pub fn exit_code(&self) -> i32 {
        if self.items == 0 {
            2
        } else if self.errors.is_empty() {
            0
        } else {
            1
        }
    }
}

/// Validates an eval set JSONL. Checks, in the seed validator's order: JSON per line; then per
/// item, the required fields `id`, `prompt`, `expected_answer` (present and truthy), duplicate
/// ids, sections outside `core | trace_sensitive | edge_case` and difficulties outside
/// `easy | medium | hard` (warnings); then the minimum item count.
pub fn validate_evalset(path: &str, bytes: &[u8], min_items: usize) -> EvalsetValidateReport {
    let mut rep = EvalsetValidateReport::default();
    let mut diags = Vec::new();
    let lines = jsonl_objects(path, bytes, &mut diags);
    for d in diags {
        rep.errors.push(EvalsetFinding {
            file: d.file,
            line: d.line,
            message: d.message,
        });
    }
    rep.items = lines.objects.len() as u64;
    if lines.objects.is_empty() {
        rep.errors.push(EvalsetFinding {
            file: path.to_string(),
            line: None,
            message: "no valid items found in file".into(),
        });
        return rep;
    }
    let mut seen: HashSet<String> = HashSet::new();
    for (idx, (line, obj)) in lines.objects.iter().enumerate() {
        let at = |message: String| EvalsetFinding {
            file: path.to_string(),
            line: Some(*line),
            message,
        };
        let item_id = obj
            .get("id")
            .map(py_str)
            .unwrap_or_else(|| format!("item-{idx}"));
        for field in REQUIRED {
            match obj.get(field) {
                None => rep.errors.push(at(format!(
                    "item '{item_id}': missing required field '{field}'"
                ))),
                Some(v) if !py_truthy(v) => rep.errors.push(at(format!(
                    "item '{item_id}': empty value for required field '{field}'"
                ))),
                Some(_) => {}
            }
        }
        if let Some(id) = obj.get("id") {
            // Python compares ids by value: 7 and "7" are different ids.
            let key = match id {
                Value::String(s) => format!("s:{s}"),
                other => format!("v:{other}"),
            };
            if !seen.insert(key) {
                rep.errors
                    .push(at(format!("duplicate id: '{}'", py_str(id))));
            }
        }
        let label = |k: &str| obj.get(k).filter(|v| py_truthy(v)).and_then(py_json_key);
        if let Some(section) = label("section") {
            if !VALID_SECTIONS.contains(&section.as_str()) {
                rep.warnings.push(at(format!(
                    "item '{item_id}': unknown section '{section}' (expected one of: {})",
                    VALID_SECTIONS.join(", ")
                )));
            }
            *rep.composition.section.entry(section).or_default() += 1;
        }
        if let Some(difficulty) = label("difficulty") {
            if !VALID_DIFFICULTIES.contains(&difficulty.as_str()) {
                rep.warnings.push(at(format!(
                    "item '{item_id}': unknown difficulty '{difficulty}' (expected one of: {})",
                    VALID_DIFFICULTIES.join(", ")
                )));
            }
            *rep.composition.difficulty.entry(difficulty).or_default() += 1;
        }
        if let Some(category) = label("category") {
            *rep.composition.category.entry(category).or_default() += 1;
        }
    }
    if lines.objects.len() < min_items {
        rep.errors.push(EvalsetFinding {
            file: path.to_string(),
            line: None,
            message: format!(
                "insufficient items: {} < {min_items} required",
                lines.objects.len()
            ),
        });
    }
    rep
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, min_items: usize, expected: serde_json::Value, exit: i32) {
        let rep = validate_evalset("set.jsonl", input.as_bytes(), min_items);
        assert_eq!(serde_json::to_value(&rep).unwrap(), expected, "{input}");
        assert_eq!(rep.exit_code(), exit);
    }

    #[test]
    fn clean_set_with_composition() {
        check(
            concat!(
                "{\"id\": \"a\", \"prompt\": \"p\", \"expected_answer\": \"1\", \"section\": \"core\", \"category\": \"x\", \"difficulty\": \"easy\"}\n",
                "\n",
                "{\"id\": \"b\", \"prompt\": \"p\", \"expected_answer\": \"0\", \"section\": \"core\", \"category\": \"y\", \"difficulty\": \"hard\"}\n",
            ),
            2,
            serde_json::json!({"items": 2, "errors": [], "warnings": [],
                "composition": {"section": {"core": 2}, "category": {"x": 1, "y": 1},
                                "difficulty": {"easy": 1, "hard": 1}}}),
            0,
        );
    }

    #[test]
    fn every_rule() {
        check(
            concat!(
                "{\"id\": \"a\", \"prompt\": \"\", \"expected_answer\": \"1\", \"section\": \"extra\", \"difficulty\": \"insane\"}\n",
                "not json\n",
                "{\"id\": \"a\", \"expected_answer\": 0}\n",
                "{\"prompt\": \"p\", \"expected_answer\": \"2\", \"section\": \"\"}\n",
                "{\"id\": 7, \"prompt\": \"p\", \"expected_answer\": \"2\"}\n",
                "{\"id\": \"7\", \"prompt\": \"p\", \"expected_answer\": \"2\"}\n",
            ),
            50,
            serde_json::json!({"items": 5,
                "errors": [
                    {"file": "set.jsonl", "line": 2, "message": "invalid JSON: expected ident at column 2; line skipped"},
                    {"file": "set.jsonl", "line": 1, "message": "item 'a': empty value for required field 'prompt'"},
                    {"file": "set.jsonl", "line": 3, "message": "item 'a': missing required field 'prompt'"},
                    {"file": "set.jsonl", "line": 3, "message": "item 'a': empty value for required field 'expected_answer'"},
                    {"file": "set.jsonl", "line": 3, "message": "duplicate id: 'a'"},
                    {"file": "set.jsonl", "line": 4, "message": "item 'item-2': missing required field 'id'"},
                    {"file": "set.jsonl", "line": null, "message": "insufficient items: 5 < 50 required"}
                ],
                "warnings": [
                    {"file": "set.jsonl", "line": 1, "message": "item 'a': unknown section 'extra' (expected one of: core, edge_case, trace_sensitive)"},
                    {"file": "set.jsonl", "line": 1, "message": "item 'a': unknown difficulty 'insane' (expected one of: easy, hard, medium)"}
                ],
                "composition": {"section": {"extra": 1}, "category": {}, "difficulty": {"insane": 1}}}),
            1,
        );
    }

    #[test]
    fn unusable_files() {
        for input in ["", "\n\n", "garbage\n[1]\n"] {
            let rep = validate_evalset("set.jsonl", input.as_bytes(), 50);
            assert_eq!(rep.exit_code(), 2, "{input:?}");
            assert_eq!(
                rep.errors.last().map(|e| e.message.as_str()),
                Some("no valid items found in file")
            );
        }
    }
}
