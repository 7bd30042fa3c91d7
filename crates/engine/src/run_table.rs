//! The run table's types: what the registry ([`crate::run::RunRef`]) answers about any run of
//! any family, so that cross-run consumers (many-runs comparison, the lake, queries, live
//! watch) hold plain values and link no family. Imports no family.

use serde::{Deserialize, Serialize};

use crate::stats::Rate;

/// How a compared metric's values read: a 0–1 rate (shown as a percentage, its change in
/// points), a score on its own scale, a count (tokens), dollars or seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    #[default]
    Rate,
    Score,
    Count,
    Usd,
    Seconds,
}

/// One of a run's headline metrics, typed: [`crate::run::RunRef::metrics`] lists them, the
/// first being the number the run is listed by everywhere (the CLI, the dashboard's run list,
/// the report's Runs table and series).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricValue {
    /// Its key in the run's statistics (`numerical_accuracy`, `primary_score`, …).
    pub key: String,
    pub label: String,
    pub unit: Unit,
    pub value: Option<f64>,
    /// The counts behind a rate, when the value is one (`correct` of `n`), so rates of shards
    /// merge and a CI can be computed from them.
    pub counts: Option<Rate>,
    /// The standard error behind a mean, when the family computes one (a rate with
    /// [`MetricValue::counts`] needs none): what a many-runs CI is computed from.
    #[serde(default)]
    pub stderr: Option<Stderr>,
}

/// A mean's standard error, and whether it is clustered by item (items judged more than once,
/// each item one cluster: [`crate::stats::ClusterSums`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stderr {
    pub value: f64,
    pub clustered_by_item: bool,
}

impl MetricValue {
    /// A metric of `unit` with no counts behind it.
    pub fn new(key: &str, label: &str, unit: Unit, value: Option<f64>) -> MetricValue {
        MetricValue {
            key: key.into(),
            label: label.into(),
            unit,
            value,
            counts: None,
            stderr: None,
        }
    }

    /// A rate with the counts behind it.
    pub fn rate(key: &str, label: &str, counts: Rate) -> MetricValue {
        MetricValue {
            key: key.into(),
            label: label.into(),
            unit: Unit::Rate,
            value: counts.value(),
            counts: Some(counts),
            stderr: None,
        }
    }
}

/// One task of a run that holds several (an lm-eval suite): the task, the score that judges its
/// items (a `--scorer` name) and that score as the task's headline. A many-runs comparison
/// compares such runs task by task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskJudge {
    pub task: String,
    pub judge: String,
    pub headline: MetricValue,
}

/// A judge a run's items may be judged by, as a consumer offers it (the dashboard's "Judged
/// by"): `judge` is the name `--scorer` accepts (`CompareSettings::qa_scorer`: an eval log's
/// score label, a numeric QA or eval-set scorer id), `label` says it in words, `task` is the
/// task it scores (an lm-eval suite's), `headline` is the run's headline under it (value, and
/// the counts or standard error its CI is computed from).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeChoice {
    pub judge: String,
    pub label: String,
    pub task: Option<String>,
    pub headline: MetricValue,
}

/// What a run is, typed: the axes many runs are laid out on (model × task), what it cost, and
/// the content id its marks and lake rows are keyed by. [`crate::run_meta::RunMeta`] is the
/// display of the wider set of fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFacts {
    pub model: Option<String>,
    pub task: Option<String>,
    pub dataset: Option<String>,
    pub cost_usd: Option<f64>,
    pub tokens: Option<u64>,
    /// [`content_id`] of the run's files, when the consumer has their digests (the CLI hashes
    /// what it reads; the dashboard's worker hashes a run after its numbers are on screen).
    pub content_id: Option<String>,
}

/// A run's content id: the SHA-256 (hex) of its files' `(path, size, SHA-256)` in path order,
/// each field length-prefixed. It is the same for the same files whatever order they were
/// read in, whoever hashed them, and whether a file was hashed whole or in blocks.
pub fn content_id(files: &[(&str, u64, [u8; 32])]) -> String {
    use sha2::{Digest, Sha256};
    let mut sorted: Vec<&(&str, u64, [u8; 32])> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut h = Sha256::new();
    h.update(b"evalboard-content-id-v1\n");
    for (path, size, digest) in sorted {
        h.update((path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(size.to_le_bytes());
        h.update(digest);
    }
    hex(&h.finalize())
}

/// `bytes` in lower-case hex (a digest as the content ids, the lake's manifest and its file
/// lists write it).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// The SHA-256 of `bytes`, for [`content_id`].
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).into()
}

/// One part of an item key: an index (a turn, a message, an epoch) or a text (an id).
/// Indices order numerically and before texts, so `2` comes before `10`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum KeyPart {
    Index(u64),
    Text(String),
}

/// An item's key in its run, typed (`[conversation id, turn]`, `[item id]`, `[session id,
/// message]`, an eval log's sample id and epoch): the key items join on across runs and marks
/// are kept by. Orders naturally, part by part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ItemKey(pub Vec<KeyPart>);

impl ItemKey {
    /// A key from its parts as text: the first part is always a text (an id, whatever it looks
    /// like); a later part written as a plain decimal number (no sign, no leading zero) is an
    /// index. This is the one rule `diff --json` prints keys by.
    pub fn from_parts(parts: &[String]) -> ItemKey {
        ItemKey(
            parts
                .iter()
                .enumerate()
                .map(|(i, p)| match index_part(p).filter(|_| i > 0) {
                    Some(n) => KeyPart::Index(n),
                    None => KeyPart::Text(p.clone()),
                })
                .collect(),
        )
    }

    /// A key of a text (an id) and an index (a turn, a message).
    pub fn text_index(text: &str, index: u64) -> ItemKey {
        ItemKey(vec![KeyPart::Text(text.to_string()), KeyPart::Index(index)])
    }

    /// A key of one text (an item id, a conversation id).
    pub fn text(text: &str) -> ItemKey {
        ItemKey(vec![KeyPart::Text(text.to_string())])
    }

    /// The key's first part, when it is a text (an id).
    pub fn first_text(&self) -> Option<&str> {
        match self.0.first()? {
            KeyPart::Text(t) => Some(t),
            KeyPart::Index(_) => None,
        }
    }

    /// A key of a text and an index, as its two parts.
    pub fn as_text_index(&self) -> Option<(&str, u64)> {
        match self.0.as_slice() {
            [KeyPart::Text(t), KeyPart::Index(i)] => Some((t, *i)),
            _ => None,
        }
    }

    /// Whether `prefix`'s parts begin this key (a conversation's key begins its turns').
    pub fn starts_with(&self, prefix: &ItemKey) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// The key as JSON: an array of strings and numbers.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.0
                .iter()
                .map(|p| match p {
                    KeyPart::Index(n) => serde_json::Value::from(*n),
                    KeyPart::Text(t) => serde_json::Value::from(t.as_str()),
                })
                .collect(),
        )
    }

    /// A key written by [`ItemKey::to_json`]: a non-empty array of strings and non-negative
    /// integers; `None` for anything else.
    pub fn from_json(v: &serde_json::Value) -> Option<ItemKey> {
        let parts = v.as_array()?;
        if parts.is_empty() {
            return None;
        }
        parts
            .iter()
            .map(|p| match p {
                serde_json::Value::String(s) => Some(KeyPart::Text(s.clone())),
                serde_json::Value::Number(n) => n.as_u64().map(KeyPart::Index),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(ItemKey)
    }

    /// The key's parts as text (what [`crate::compare::PairedItem::key`] holds).
    pub fn parts(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|p| match p {
                KeyPart::Index(n) => n.to_string(),
                KeyPart::Text(t) => t.clone(),
            })
            .collect()
    }
}

/// A key part written as a plain decimal number (no sign, no leading zero) that fits a `u64`:
/// the index it is.
fn index_part(p: &str) -> Option<u64> {
    let canonical =
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && (p == "0" || !p.starts_with('0'));
    canonical.then(|| p.parse().ok()).flatten()
}

impl std::fmt::Display for ItemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.parts().join(" / "))
    }
}

/// One item's verdict under a judge; `None`: present but not scored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub key: ItemKey,
    pub correct: Option<bool>,
}

/// A run's per-item verdicts under one judge (`name@version`), sorted by key, each key once:
/// what comparisons, cohorts and marks are computed from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdicts {
    pub judge: String,
    pub rows: Vec<Verdict>,
    /// Items that failed as a whole (a conversation that timed out): counted wrong, with why.
    pub failed: Vec<(ItemKey, String)>,
    /// What judging found (a key seen twice: the first is judged).
    pub warnings: Vec<String>,
}

impl Verdicts {
    /// The counts of the verdicts: `correct` of the scored items.
    pub fn rate(&self) -> Rate {
        let mut r = Rate::default();
        for v in &self.rows {
            if let Some(c) = v.correct {
                r.push(c);
            }
        }
        r
    }
}

/// One item of a run as every cross-run feature sees it: its key, its verdict, the fields it
/// can be sliced by and its texts (question, expected, answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemRow {
    pub key: ItemKey,
    pub verdict: Option<bool>,
    /// `(field, value)` in the family's order (the category's own field first).
    pub fields: Vec<(String, String)>,
    /// `(name, text)`: `question`, `expected`, `answer`, those the item has.
    pub texts: Vec<(String, String)>,
    /// Its tokens, latency, cost and the tool's own scores, those its run records.
    #[serde(default)]
    pub usage: ItemUsage,
}

/// What one item spent, as its run records it: its tokens by price class (as the run's cost
/// reads them, [`crate::prices::TokenSplit`]), its latency, its cost in dollars (under the
/// run's price table, as the run's cost sums it, else the tool's own) and the tool's own scores
/// of it.
/// What the lake's `samples` table carries per item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemUsage {
    pub tokens: Option<crate::prices::TokenSplit>,
    pub latency_ms: Option<f64>,
    pub cost_usd: Option<f64>,
    /// The writing tool's own scores as compact JSON text (an object), when it recorded any.
    pub source_scores: Option<String>,
}

impl ItemUsage {
    /// All input tokens: uncached, read from and written to a cache.
    pub fn input_tokens(&self) -> Option<u64> {
        self.tokens
            .map(|t| t.uncached_input + t.cache_read + t.cache_write)
    }
}

/// A run summed up as plain data (no family type): what workers, the lake and the many-runs
/// comparison exchange. A consumer that holds summaries links no family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub name: String,
    pub family: crate::family::Family,
    /// The profile or scorer the run was scored under.
    pub profile: String,
    pub facts: RunFacts,
    /// The headline first.
    pub metrics: Vec<MetricValue>,
    pub verdicts: Verdicts,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_id_is_order_free_and_separates_fields() {
        let a = ("a.json", 3, sha256(b"abc"));
        let b = ("b.json", 0, sha256(b""));
        assert_eq!(content_id(&[a, b]), content_id(&[b, a]));
        assert_eq!(content_id(&[a, b]).len(), 64);
        // A path/size boundary cannot be moved: "ab" + 1 differs from "a" + "b…".
        assert_ne!(
            content_id(&[("ab", 1, sha256(b"x"))]),
            content_id(&[("a", 1, sha256(b"x"))])
        );
        assert_ne!(content_id(&[a]), content_id(&[a, b]));
    }

    #[test]
    fn item_keys_order_naturally_and_print_as_diff_does() {
        let k = |parts: &[&str]| {
            let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
            ItemKey::from_parts(&parts)
        };
        assert!(k(&["c", "2"]) < k(&["c", "10"]));
        // The first part is an id: text, whatever it looks like.
        assert!(k(&["2"]) > k(&["10"]));
        assert_eq!(k(&["7"]).to_json(), serde_json::json!(["7"]));
        assert_eq!(k(&["12", "3"]).to_json(), serde_json::json!(["12", 3]));
        // Not a plain number: kept as written, so it prints back the same.
        assert_eq!(
            k(&["c", "03", "-1", ""]).to_json(),
            serde_json::json!(["c", "03", "-1", ""])
        );
        assert_eq!(k(&["c", "0"]).to_json(), serde_json::json!(["c", 0]));
        assert_eq!(k(&["c", "7"]).parts(), vec!["c", "7"]);
        assert_eq!(k(&["c", "7"]).to_string(), "c / 7");
        // Ids order as text, indices as numbers and before texts.
        let mut typed: Vec<ItemKey> = [
            ["b", "10"],
            ["a", "x"],
            ["b", "2"],
            ["a", "9"],
            ["10", "1"],
            ["9", "1"],
        ]
        .iter()
        .map(|p| k(p))
        .collect();
        typed.sort();
        let keys: Vec<String> = typed.iter().map(ItemKey::to_string).collect();
        assert_eq!(
            keys,
            ["10 / 1", "9 / 1", "a / 9", "a / x", "b / 2", "b / 10"]
        );
    }
}
