//! Failure cohorts: a run's failing items grouped deterministically by cause
//! ([docs/query.md#failure-cohorts]). Family-free: it reads the items as queries see them
//! ([`crate::query::Doc`], from [`crate::run::RunRef::query_docs_in`]), so every family and every
//! consumer (the CLI's `cohorts`, the report, the dashboard's worker) gets the same cohorts.
//!
//! A failing item is one its judge does not mark correct (`verdict` other than `correct`:
//! wrong, unscored — errored or unanswered — or failed as part of a group). Each is in exactly one
//! cohort, keyed by (judge, verdict class, the why reason masked, the error message masked, the
//! error class). Masking ([`mask`]) replaces what varies between items of one cause by a
//! placeholder: quoted values `<q>`, paths and URLs `<path>`, ids `<id>` (UUIDs, hex strings,
//! prefixed request/org ids, random-looking tokens — always as whole tokens, never digit by
//! digit), numbers `<n>`. Cohorts are sorted by size, then by label: the same run gives the same
//! cohorts in the same order.
//!
//! [docs/query.md#failure-cohorts]: https://example.invalid/evalboard/docs/query.md#failure-cohorts

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::query::{Doc, Value};
use crate::run_table::ItemKey;

/// Longest masked text kept in a cohort key (the rest is cut with `…`): two messages that
/// differ only after this many characters are one cause.
pub const MAX_KEY_CHARS: usize = 200;

/// Longest example text kept (the rest cut, its length said).
pub const MAX_EXAMPLE_CHARS: usize = 500;

/// How a cohort of a run stands against the baseline's cohort of the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    /// No baseline cohort has its key.
    New,
    Grown,
    Shrunk,
    Same,
    /// The baseline has it; the run has no item in it.
    Gone,
}

impl Trend {
    /// As the JSON, the CLI and the report say it.
    pub fn word(self) -> &'static str {
        match self {
            Trend::New => "new",
            Trend::Grown => "grown",
            Trend::Shrunk => "shrunk",
            Trend::Same => "same",
            Trend::Gone => "gone",
        }
    }
}

/// A cohort against the baseline: its trend and the baseline's count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VsBaseline {
    pub status: Trend,
    pub baseline_n: usize,
}

/// One item of a cohort shown as its example: its key and its message as written (unmasked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    pub item: ItemKey,
    pub text: String,
}

/// One cause of failure and its items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cohort {
    /// The key in words: `wrong · error: Request timed out after <n>s · class Timeout`.
    pub label: String,
    pub n: usize,
    /// `n` over the run's failing items.
    pub share: f64,
    pub example: Option<Example>,
    /// Its items in the run's key order.
    pub items: Vec<ItemKey>,
    pub vs_baseline: Option<VsBaseline>,
}

/// A run's failing items by cohort.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cohorts {
    /// The judge the verdicts come from (`name@version`).
    pub judge: String,
    pub n_items: usize,
    pub n_failed: usize,
    /// Largest first; a baseline's cohort the run no longer has comes last, with no items.
    pub cohorts: Vec<Cohort>,
}

/// The parts of a failing item's cause.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    judge: String,
    verdict: String,
    why: String,
    error: String,
    class: String,
}

impl Key {
    fn label(&self) -> String {
        let mut parts = vec![self.verdict.clone()];
        if !self.why.is_empty() {
            parts.push(format!("why: {}", self.why));
        }
        if !self.error.is_empty() {
            parts.push(format!("error: {}", self.error));
        }
        if !self.class.is_empty() {
            parts.push(format!("class {}", self.class));
        }
        parts.join(" · ")
    }
}

fn first_text<'a>(d: &'a Doc, name: &str) -> Option<&'a str> {
    d.texts
        .iter()
        .find(|t| t.at == name)
        .map(|t| t.text.as_str())
        .or_else(|| {
            d.fields.iter().find_map(|(k, v)| match v {
                Value::Str(s) if k == name && !s.is_empty() => Some(s.as_str()),
                _ => None,
            })
        })
}

fn verdict(d: &Doc) -> &str {
    // `rescored` is a mark beside the verdict, not one.
    d.fields
        .iter()
        .find_map(|(k, v)| match v {
            Value::Str(s) if k == "verdict" && s != "rescored" => Some(s.as_str()),
            _ => None,
        })
        .unwrap_or("unscored")
}

fn key_of(d: &Doc) -> Key {
    let masked = |name: &str| first_text(d, name).map(mask).unwrap_or_default();
    // The error class: the first the item records (numeric QA's error_type, code generation's
    // error_class), as written (a class is a name, not a message).
    let class = ["error_class", "error_type"]
        .into_iter()
        .find_map(|n| first_text(d, n))
        .map(|c| clip(c.trim()))
        .unwrap_or_default();
    Key {
        judge: first_text(d, "judge").unwrap_or_default().to_string(),
        verdict: verdict(d).to_string(),
        why: ["why", "reason"]
            .into_iter()
            .find_map(|n| first_text(d, n))
            .map(mask)
            .unwrap_or_default(),
        error: masked("error"),
        class,
    }
}

/// What an item answered and what was expected, for a cohort with no message: `answered "5",
/// expected "4"`.
fn answered(d: &Doc) -> String {
    let of = |names: &[&str]| names.iter().find_map(|n| first_text(d, n));
    match (
        of(&["output", "predicted", "answer", "code"]),
        of(&["target", "expected"]),
    ) {
        (Some(a), Some(e)) => format!("answered {a:?}, expected {e:?}"),
        (Some(a), None) => format!("answered {a:?}"),
        (None, Some(e)) => format!("no answer, expected {e:?}"),
        (None, None) => verdict(d).to_string(),
    }
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_KEY_CHARS) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The failing items of `docs` by cohort, against `baseline`'s cohorts when given (computed by
/// this same function).
pub fn cohorts(docs: &[Doc], baseline: Option<&Cohorts>) -> Cohorts {
    let mut by: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    let mut judge = String::new();
    for (i, d) in docs.iter().enumerate() {
        if judge.is_empty() {
            judge = first_text(d, "judge").unwrap_or_default().to_string();
        }
        if verdict(d) == "correct" {
            continue;
        }
        by.entry(key_of(d)).or_default().push(i);
    }
    let n_failed: usize = by.values().map(Vec::len).sum();
    let base: BTreeMap<&str, usize> = baseline
        .map(|b| {
            b.cohorts
                .iter()
                .filter(|c| c.n > 0)
                .map(|c| (c.label.as_str(), c.n))
                .collect()
        })
        .unwrap_or_default();
    let mut out: Vec<Cohort> = by
        .into_iter()
        .map(|(key, members)| {
            let label = key.label();
            let example = members.first().and_then(|&i| docs.get(i)).map(|d| Example {
                item: d.key.clone(),
                text: crate::text::clip_at(
                    &["error", "why", "reason"]
                        .into_iter()
                        .find_map(|n| first_text(d, n))
                        .map(str::to_string)
                        .unwrap_or_else(|| answered(d)),
                    MAX_EXAMPLE_CHARS,
                )
                .into_owned(),
            });
            let n = members.len();
            let vs_baseline = baseline.map(|_| {
                let baseline_n = base.get(label.as_str()).copied().unwrap_or(0);
                VsBaseline {
                    status: match baseline_n {
                        0 => Trend::New,
                        b if n > b => Trend::Grown,
                        b if n < b => Trend::Shrunk,
                        _ => Trend::Same,
                    },
                    baseline_n,
                }
            });
            Cohort {
                share: n as f64 / n_failed.max(1) as f64,
                items: members
                    .iter()
                    .filter_map(|&i| docs.get(i))
                    .map(|d| d.key.clone())
                    .collect(),
                label,
                n,
                example,
                vs_baseline,
            }
        })
        .collect();
    out.sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.label.cmp(&b.label)));
    if let Some(b) = baseline {
        let mut gone: Vec<Cohort> = b
            .cohorts
            .iter()
            .filter(|c| c.n > 0 && !out.iter().any(|o| o.label == c.label))
            .map(|c| Cohort {
                label: c.label.clone(),
                n: 0,
                share: 0.0,
                example: c.example.clone(),
                items: Vec::new(),
                vs_baseline: Some(VsBaseline {
                    status: Trend::Gone,
                    baseline_n: c.n,
                }),
            })
            .collect();
        gone.sort_by(|a, b| {
            let n = |c: &Cohort| c.vs_baseline.as_ref().map_or(0, |v| v.baseline_n);
            n(b).cmp(&n(a)).then_with(|| a.label.cmp(&b.label))
        });
        out.extend(gone);
    }
    Cohorts {
        judge,
        n_items: docs.len(),
        n_failed,
        cohorts: out,
    }
}

impl Cohorts {
    /// As `evalboard cohorts --json` prints it: `{"judge", "n_items", "n_failed", "cohorts":
    /// [{"label", "n", "share", "example": {"item", "text"}, "items": [KEY, …], "query",
    /// "vs_baseline"}]}`, each key as `diff --json` writes it.
    pub fn to_json(&self) -> serde_json::Value {
        self.to_json_with(true)
    }

    /// [`Cohorts::to_json`], with each cohort's `items` left out when `items` is false (the
    /// report's data block: a big run's keys would be most of the report; `query` finds them).
    pub fn to_json_with(&self, items: bool) -> serde_json::Value {
        serde_json::json!({
            "judge": self.judge,
            "n_items": self.n_items,
            "n_failed": self.n_failed,
            "cohorts": self.cohorts.iter().map(|c| serde_json::json!({
                "label": c.label,
                "n": c.n,
                "share": c.share,
                "example": c.example.as_ref().map(|e| serde_json::json!({
                    "item": e.item.to_json(),
                    "text": e.text,
                })),
                "items": items.then(|| c.items.iter().map(ItemKey::to_json).collect::<Vec<_>>()),
                "query": query_of(&c.label),
                "vs_baseline": c.vs_baseline,
            })).collect::<Vec<_>>(),
        })
    }

    /// Adds each failing item's cohort to its doc as the field `cohort` (its label), so the
    /// query [`query_of`] of a cohort selects exactly its items.
    pub fn tag(&self, docs: &mut [Doc]) {
        self.tag_as(docs, FIELD);
    }

    /// [`Cohorts::tag`] under another field: cohorts of another judge than the one `docs` were
    /// judged by (the field [`judged_field`] names, the query [`query_in`] selects by), so one
    /// doc holds the cohort of each judge.
    pub fn tag_as(&self, docs: &mut [Doc], field: &str) {
        let mut at: std::collections::HashMap<&ItemKey, &str> = std::collections::HashMap::new();
        for c in &self.cohorts {
            for k in &c.items {
                at.insert(k, &c.label);
            }
        }
        for d in docs.iter_mut() {
            if let Some(label) = at.get(&d.key) {
                d.push(field, Value::Str(label.to_string()));
            }
        }
    }
}

/// The field [`Cohorts::tag`] tags the items with.
pub const FIELD: &str = "cohort";

/// The query that selects a cohort's items once its docs are tagged ([`Cohorts::tag`]):
/// `cohort == "<label>"`.
pub fn query_of(label: &str) -> String {
    query_in(FIELD, label)
}

/// The query that selects the items tagged `label` under `field` ([`Cohorts::tag_as`]).
pub fn query_in(field: &str, label: &str) -> String {
    format!(
        "{field} == \"{}\"",
        label.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

/// The field the cohorts of `judge` (`name@version`) are tagged under when the docs are judged
/// by another: `cohort.<judge>`, every character a field name cannot hold (docs/query.md) as `_`.
pub fn judged_field(judge: &str) -> String {
    let name: String = judge
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | ':') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{FIELD}.{name}")
}

/// A message with what varies between items of one cause replaced, as whole tokens: quoted
/// values (`'…'`, `"…"`, `` `…` `` up to 200 characters) `<q>`, paths and URLs `<path>`, ids
/// `<id>`, numbers `<n>`; runs of white space become one space; at most [`MAX_KEY_CHARS`]
/// characters are kept.
pub fn mask(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            i += 1;
            continue;
        }
        if matches!(c, '\'' | '"' | '`') {
            // A quote that opens a value: at a token's start, closed within 200 characters on
            // the same line.
            let starts = i == 0 || !chars[i - 1].is_alphanumeric();
            let close = chars[i + 1..]
                .iter()
                .take(200)
                .position(|&x| x == c || x == '\n')
                .filter(|&p| chars[i + 1 + p] == c);
            if let (true, Some(p)) = (starts, close) {
                out.push_str("<q>");
                i += p + 2;
                continue;
            }
            out.push(c);
            i += 1;
            continue;
        }
        if is_token_char(c) {
            let start = i;
            while i < chars.len() && is_token_char(chars[i]) {
                i += 1;
            }
            // A token's trailing dots and dashes are punctuation (the end of a sentence).
            let mut end = i;
            while end > start && matches!(chars[end - 1], '.' | '-') {
                end -= 1;
            }
            let token: String = chars[start..end].iter().collect();
            out.push_str(&mask_token(&token));
            out.extend(&chars[end..i]);
            continue;
        }
        out.push(c);
        i += 1;
    }
    clip(out.trim_end())
}

fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '\\' | '~')
}

fn mask_token(t: &str) -> String {
    if t.is_empty() {
        return String::new();
    }
    let has_digit = t.chars().any(|c| c.is_ascii_digit());
    let has_alpha = t.chars().any(|c| c.is_alphabetic());
    if is_path(t) {
        return "<path>".into();
    }
    if is_uuid(t) || is_hex_id(t) || is_prefixed_id(t) || is_random(t) {
        return "<id>".into();
    }
    if !has_digit {
        return t.to_string();
    }
    if !has_alpha
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'))
    {
        return "<n>".into();
    }
    // A word with numbers in it (`47s`, `v2`, `HTTP2`, `1.5x`): each number is `<n>`.
    let mut out = String::new();
    let mut in_num = false;
    for c in t.chars() {
        if c.is_ascii_digit() || (in_num && c == '.') {
            if !in_num {
                out.push_str("<n>");
                in_num = true;
            }
        } else {
            in_num = false;
            out.push(c);
        }
    }
    out
}

/// A path or URL: it begins with `/`, `\\`, `~/` or `./` (and is more than that), has two
/// separators or more, or one with a file name after it (`src/main.rs`); `and/or` is a word.
fn is_path(t: &str) -> bool {
    let seps = t.matches(['/', '\\']).count();
    if seps == 0 || t.len() < 2 {
        return false;
    }
    let rooted = t.starts_with(['/', '\\']) || t.starts_with("~/") || t.starts_with("./");
    let last = t.rsplit(['/', '\\']).next().unwrap_or("");
    rooted || seps >= 2 || last.contains('.')
}

fn is_hex(c: char) -> bool {
    c.is_ascii_hexdigit()
}

fn is_uuid(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.chars().all(is_hex))
}

/// A hex string: 8 or more hex digits with a digit in them, or 12 or more (`deadbeefcafe`).
fn is_hex_id(t: &str) -> bool {
    let t = t.strip_prefix("0x").unwrap_or(t);
    t.chars().all(is_hex)
        && !t.chars().all(|c| c.is_ascii_digit())
        && (t.len() >= 12 || (t.len() >= 8 && t.chars().any(|c| c.is_ascii_digit())))
}

/// A prefixed id (`org-4f3a9c`, `req_AbCdEf`, `chatcmpl-8xYz`, `call_99`): a short lowercase or
/// capitalised word, `-` or `_`, then a suffix that looks random (a digit, or upper and lower
/// case mixed, or 16 characters and more).
fn is_prefixed_id(t: &str) -> bool {
    let Some(at) = t.find(['-', '_']) else {
        return false;
    };
    let (prefix, suffix) = (&t[..at], &t[at + 1..]);
    let suffix_ok = suffix.len() >= 4
        && suffix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && (suffix.chars().any(|c| c.is_ascii_digit())
            || (suffix.chars().any(|c| c.is_ascii_uppercase())
                && suffix.chars().any(|c| c.is_ascii_lowercase()))
            || suffix.len() >= 16);
    (2..=12).contains(&prefix.len()) && prefix.chars().all(|c| c.is_ascii_alphabetic()) && suffix_ok
}

/// A random-looking token: 10 or more letters and digits, both present, mixed (an Inspect eval
/// id, a base62 request id).
fn is_random(t: &str) -> bool {
    t.len() >= 10
        && t.chars().all(|c| c.is_ascii_alphanumeric())
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().any(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_whole_tokens() {
        let cases = [
            (
                "Request timed out after 600s",
                "Request timed out after <n>s",
            ),
            (
                "RateLimitError: rate limit exceeded (org-4f3a9c)",
                "RateLimitError: rate limit exceeded (<id>)",
            ),
            (
                "id 550e8400-e29b-41d4-a716-446655440000 failed",
                "id <id> failed",
            ),
            ("commit deadbeefcafe and 3f2a9b1c", "commit <id> and <id>"),
            ("req_AbCdEfGh and req_abcdefghijklmnopq", "<id> and <id>"),
            ("KeyError: 'revenue_2019'", "KeyError: <q>"),
            ("No such file /tmp/run-123/out.csv.", "No such file <path>."),
            (
                "see C:\\runs\\x.json or src/main.rs",
                "see C:<path> or <path>",
            ),
            (
                "value -3.5 and 1,000 and 12.5%",
                "value <n> and <n>,<n> and <n>%",
            ),
            (
                "rate-limit and non_numeric are words",
                "rate-limit and non_numeric are words",
            ),
            ("input/output and/or", "input/output and/or"),
            ("at https://api.x.com/v1/chat", "at https:<path>"),
            ("eval mj7khqpMM4GBCfVQozKgzB", "eval <id>"),
            ("  many   spaces\n", "many spaces"),
            ("It's fine, don't", "It's fine, don't"),
            ("HTTP2 v3 gpt-4o", "HTTP<n> v<n> gpt-<n>o"),
        ];
        for (a, b) in cases {
            assert_eq!(mask(a), b, "{a}");
        }
        // No panic, bounded, on hostile text.
        let long = "x".repeat(10_000);
        assert!(mask(&long).chars().count() <= MAX_KEY_CHARS + 1);
        for s in [
            "'",
            "\"\"",
            "\u{202e}'a",
            "\u{0}",
            "é'ü'",
            "/",
            "\\",
            "0x",
            "-",
            "_a",
        ] {
            let _ = mask(s);
        }
    }
}
