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
        }
    }
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
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes`, for [`content_id`].
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).into()
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
}
