//! An item's repeats seen together (Inspect AI's epochs, promptfoo's repeats, HELM's train
//! trials), family-free: a family says which part of its item key is the repeat
//! ([`crate::family_run::FamilyCompare::repeats_by`]); [`group`] gathers a run's judged items
//! into [`ItemRepeats`] (the item's key without that part, the 0–1 readings of its scored
//! repeats), and from those:
//!
//! - [`Reduction`]: one value per item, by Inspect's epoch reducers (`mean`, `max`, `median`,
//!   `mode`, `at_least_{k}`, `pass_at_{k}`, `pass_k_{k}`), the reducers Inspect's own
//!   recomputation ([`crate::evallog::inspect`]) and `diff --by-item` use;
//! - [`RepeatSummary`]: pass@k and pass^k for the `k` asked, the flaky items (`0 < c < n`), the
//!   mean over every scored repeat with its standard error clustered by item.
//!
//! A repeat is correct when its reading is at least 1 (Inspect's `value = 1.0` threshold).

use serde::{Deserialize, Serialize};

use crate::run_table::{ItemKey, KeyPart};
use crate::stats::{at_least_k, pass_at_k, pass_hat_k, ClusterSums, Moments};

/// How an item's repeats reduce to one value: Inspect AI's epoch reducers
/// (`inspect_ai/scorer/_reducer/reducer.py`), named as its logs name them
/// (`reducer_log_name`: `pass_at_2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reduction {
    /// The mean reading.
    Mean,
    /// The highest reading.
    Max,
    /// The median reading (the mean of the middle two for an even count).
    Median,
    /// The most common reading (the first one seen among equally common ones).
    Mode,
    /// 1 when at least `k` repeats are correct, else 0.
    AtLeast(u64),
    /// pass@k ([`pass_at_k`]); none when fewer than `k` repeats were scored.
    PassAt(u64),
    /// pass^k ([`pass_hat_k`]); none when fewer than `k` repeats were scored.
    PassHat(u64),
}

impl Reduction {
    /// A reducer by Inspect's name (`mean`, `max`, `median`, `mode`, `at_least_{k}`,
    /// `pass_at_{k}`, `pass_k_{k}`), or `pass@{k}` / `pass^{k}`; `None` for another.
    pub fn parse(name: &str) -> Option<Reduction> {
        let k = |rest: &str| -> Option<u64> {
            let ok = !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
            ok.then(|| rest.parse().ok()).flatten()
        };
        Some(match name.trim() {
            "mean" => Reduction::Mean,
            "max" => Reduction::Max,
            "median" => Reduction::Median,
            "mode" => Reduction::Mode,
            n => {
                if let Some(r) = n.strip_prefix("at_least_") {
                    Reduction::AtLeast(k(r)?)
                } else if let Some(r) = n.strip_prefix("pass_at_").or(n.strip_prefix("pass@")) {
                    Reduction::PassAt(k(r)?)
                } else if let Some(r) = n.strip_prefix("pass_k_").or(n.strip_prefix("pass^")) {
                    Reduction::PassHat(k(r)?)
                } else {
                    return None;
                }
            }
        })
    }

    /// Its name as Inspect's logs write it (`pass_at_2`, `pass_k_3`, `at_least_1`, `mean`).
    pub fn name(&self) -> String {
        match self {
            Reduction::Mean => "mean".into(),
            Reduction::Max => "max".into(),
            Reduction::Median => "median".into(),
            Reduction::Mode => "mode".into(),
            Reduction::AtLeast(k) => format!("at_least_{k}"),
            Reduction::PassAt(k) => format!("pass_at_{k}"),
            Reduction::PassHat(k) => format!("pass_k_{k}"),
        }
    }

    /// The reduced value of one item's scored readings (unscored repeats left out); `None` when
    /// none was scored, or pass@k / pass^k of fewer than `k`.
    pub fn reduce(&self, values: &[f64]) -> Option<f64> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as u64;
        let c = values.iter().filter(|v| **v >= 1.0).count() as u64;
        match *self {
            Reduction::Mean => Some(values.iter().sum::<f64>() / n as f64),
            Reduction::Max => Some(values.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            Reduction::Median => {
                let mut v = values.to_vec();
                v.sort_by(f64::total_cmp);
                let mid = v.len() / 2;
                if v.len() % 2 == 1 {
                    v.get(mid).copied()
                } else {
                    Some((v.get(mid - 1)? + v.get(mid)?) / 2.0)
                }
            }
            Reduction::Mode => {
                // The first most common value (Python's Counter.most_common, statistics.mode).
                let mut best = (0usize, 0.0f64);
                for v in values {
                    let count = values.iter().filter(|w| *w == v).count();
                    if count > best.0 {
                        best = (count, *v);
                    }
                }
                Some(best.1)
            }
            Reduction::AtLeast(k) => Some(at_least_k(c, k)),
            Reduction::PassAt(k) => pass_at_k(n, c, k),
            Reduction::PassHat(k) => pass_hat_k(n, c, k),
        }
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// One item of a run with its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemRepeats {
    /// The item's key without its repeat part.
    pub key: ItemKey,
    /// The 0–1 readings of its scored repeats, in repeat order.
    pub readings: Vec<f64>,
    /// Its repeats, scored or not.
    pub repeats: u64,
    /// The position (among all the run's judged items, in key order) of its first repeat.
    pub first: usize,
}

impl ItemRepeats {
    /// Scored repeats.
    pub fn n(&self) -> u64 {
        self.readings.len() as u64
    }

    /// Correct repeats (a reading of at least 1).
    pub fn correct(&self) -> u64 {
        self.readings.iter().filter(|r| **r >= 1.0).count() as u64
    }

    /// Correct in some scored repeats and not in others.
    pub fn is_flaky(&self) -> bool {
        let c = self.correct();
        c > 0 && c < self.n()
    }
}

/// The key of an item without its repeat part (`part`), and that part.
pub fn split_repeat(key: &ItemKey, part: usize) -> (ItemKey, Option<KeyPart>) {
    let mut parts = key.0.clone();
    let repeat = (part < parts.len()).then(|| parts.remove(part));
    (ItemKey(parts), repeat)
}

/// A run's judged items (key, reading: `None` unscored), gathered by item: the key without its
/// repeat part (`part`), readings in repeat order. Items in key order.
pub fn group(rows: impl Iterator<Item = (ItemKey, Option<f64>)>, part: usize) -> Vec<ItemRepeats> {
    let mut keyed: Vec<(ItemKey, Option<KeyPart>, usize, Option<f64>)> = rows
        .enumerate()
        .map(|(i, (key, reading))| {
            let (item, repeat) = split_repeat(&key, part);
            (item, repeat, i, reading)
        })
        .collect();
    keyed.sort_by(|a, b| (&a.0, &a.1, a.2).cmp(&(&b.0, &b.1, b.2)));
    let mut out: Vec<ItemRepeats> = Vec::new();
    for (key, _, i, reading) in keyed {
        let item = match out.last_mut() {
            Some(last) if last.key == key => last,
            _ => {
                out.push(ItemRepeats {
                    key,
                    readings: Vec::new(),
                    repeats: 0,
                    first: i,
                });
                match out.last_mut() {
                    Some(l) => l,
                    None => continue,
                }
            }
        };
        item.repeats += 1;
        item.first = item.first.min(i);
        if let Some(r) = reading.filter(|r| r.is_finite()) {
            item.readings.push(r);
        }
    }
    out
}

/// pass@k and pass^k of a run for one `k`: the mean over the items with at least `k` scored
/// repeats (an item with fewer has neither, as in Inspect).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassAtK {
    pub k: u64,
    /// Items with at least `k` scored repeats.
    pub n_items: u64,
    pub pass_at_k: Option<f64>,
    pub pass_hat_k: Option<f64>,
}

/// A run's repeats summed up: how many, pass@k and pass^k for each `k` asked, the flaky items,
/// and the mean over every scored repeat with its standard error clustered by item (and the
/// standard error as if repeats were independent, which understates it when they are not).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// Items with at least one scored repeat.
    pub n_items: u64,
    /// Scored repeats over all items.
    pub n_values: u64,
    /// Fewest and most scored repeats of an item.
    pub min_repeats: u64,
    pub max_repeats: u64,
    /// The mean reading over every scored repeat.
    pub mean: Option<f64>,
    /// Its standard error clustered by item; `None` below two items.
    pub clustered_stderr: Option<f64>,
    /// Its standard error with every repeat counted as independent (`sd / √n`).
    pub naive_stderr: Option<f64>,
    pub pass: Vec<PassAtK>,
    /// The flaky items' keys (correct in some repeats, not in others), in key order.
    pub flaky: Vec<ItemKey>,
}

/// The `k`s a summary shows unless asked: 1 to the most scored repeats of an item, at most 20.
pub fn default_ks(items: &[ItemRepeats]) -> Vec<u64> {
    let most = items.iter().map(ItemRepeats::n).max().unwrap_or(0);
    (1..=most.min(20)).collect()
}

impl RepeatSummary {
    /// The summary of `items` for each of `ks` (in the order given, repeats dropped).
    pub fn of(items: &[ItemRepeats], ks: &[u64]) -> RepeatSummary {
        let scored: Vec<&ItemRepeats> = items.iter().filter(|i| i.n() > 0).collect();
        let mut clusters = ClusterSums::default();
        let mut moments = Moments::default();
        for it in &scored {
            clusters.push_cluster(&it.readings);
            for r in &it.readings {
                moments.push(*r);
            }
        }
        let mut seen: Vec<u64> = Vec::new();
        let pass = ks
            .iter()
            .filter(|k| {
                let new = !seen.contains(k);
                seen.push(**k);
                new
            })
            .map(|&k| {
                let mean = |f: fn(u64, u64, u64) -> Option<f64>| {
                    let v: Vec<f64> = scored
                        .iter()
                        .filter_map(|i| f(i.n(), i.correct(), k))
                        .collect();
                    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
                };
                PassAtK {
                    k,
                    n_items: scored.iter().filter(|i| i.n() >= k).count() as u64,
                    pass_at_k: mean(pass_at_k),
                    pass_hat_k: mean(pass_hat_k),
                }
            })
            .collect();
        RepeatSummary {
            n_items: scored.len() as u64,
            n_values: clusters.n,
            min_repeats: scored.iter().map(|i| i.n()).min().unwrap_or(0),
            max_repeats: scored.iter().map(|i| i.n()).max().unwrap_or(0),
            mean: clusters.mean(),
            clustered_stderr: clusters.stderr(),
            naive_stderr: moments.stderr(),
            pass,
            flaky: scored
                .iter()
                .filter(|i| i.is_flaky())
                .map(|i| i.key.clone())
                .collect(),
        }
    }

    /// Whether any item was scored more than once.
    pub fn has_repeats(&self) -> bool {
        self.max_repeats > 1
    }

    /// The summary as labelled lines, the one wording the CLI's `score`, the dashboard's
    /// overview and the report show: the repeats, the mean with both standard errors, pass@k
    /// and pass^k for each `k`, the flaky items (the first 20 keys).
    pub fn rows(&self) -> Vec<(String, String)> {
        let num = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.4}"));
        let repeats = if self.min_repeats == self.max_repeats {
            format!("{}", self.max_repeats)
        } else {
            format!("{} to {}", self.min_repeats, self.max_repeats)
        };
        let mut rows = vec![
            (
                "repeats".to_string(),
                format!(
                    "{} items × {repeats} scored repeats ({} in all)",
                    self.n_items, self.n_values
                ),
            ),
            (
                "mean over repeats".to_string(),
                format!(
                    "{} ± {} (standard error clustered by item; {} counting repeats as independent)",
                    num(self.mean),
                    num(self.clustered_stderr),
                    num(self.naive_stderr)
                ),
            ),
        ];
        for p in &self.pass {
            rows.push((
                format!("pass@{0} · pass^{0}", p.k),
                format!(
                    "{} · {} over {} items with {} or more scored repeats",
                    num(p.pass_at_k),
                    num(p.pass_hat_k),
                    p.n_items,
                    p.k
                ),
            ));
        }
        let shown: Vec<String> = self.flaky.iter().take(20).map(ItemKey::to_string).collect();
        let more = self.flaky.len().saturating_sub(shown.len());
        rows.push((
            "flaky items".to_string(),
            format!(
                "{} of {} (right in some repeats, wrong in others){}{}{}",
                self.flaky.len(),
                self.n_items,
                if shown.is_empty() { "" } else { ": " },
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ),
        ));
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "mean",
            "max",
            "median",
            "mode",
            "at_least_3",
            "pass_at_2",
            "pass_k_5",
        ] {
            assert_eq!(
                Reduction::parse(name).map(|r| r.name()).as_deref(),
                Some(name)
            );
        }
        assert_eq!(Reduction::parse("pass@2"), Some(Reduction::PassAt(2)));
        assert_eq!(Reduction::parse("pass^3"), Some(Reduction::PassHat(3)));
        for bad in [
            "pass_at_",
            "pass_at_x",
            "at_least_-1",
            "collect",
            "majority",
            "",
        ] {
            assert_eq!(Reduction::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn groups_repeats_by_item_in_repeat_order() {
        let k = |id: &str, e: u64| ItemKey::text_index(id, e);
        let rows = vec![
            (k("b", 2), Some(1.0)),
            (k("a", 10), Some(0.0)),
            (k("a", 2), Some(1.0)),
            (k("b", 1), None),
        ];
        let g = group(rows.into_iter(), 1);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].key, ItemKey::text("a"));
        assert_eq!(g[0].readings, [1.0, 0.0]);
        assert_eq!((g[0].repeats, g[0].first), (2, 1));
        assert_eq!(g[1].readings, [1.0]);
        assert_eq!(g[1].repeats, 2);
        assert!(g[0].is_flaky() && !g[1].is_flaky());
    }
}
