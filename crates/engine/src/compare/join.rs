//! The one join of two runs: each family judges its run into a [`Judged`] (its items in key
//! order, each key once, with a verdict and texts on demand, and the groups of items that failed
//! as a whole); [`join`] pairs two of them into [`PairedItem`]s and their statistics. No family
//! is named here: what a family decides (which scorer judges, what a key is, what failed) it
//! decides when it judges its run.

use super::{CompareOptions, FailedItem, FlipCounts, PairedComparison, PairedItem, PairedStats};
use crate::run_table::ItemKey;

/// Which run of a comparison a side is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Baseline,
    Candidate,
}

impl Side {
    /// `baseline` or `candidate`: how warnings and failed items name the side.
    pub fn name(self) -> &'static str {
        match self {
            Side::Baseline => "baseline",
            Side::Candidate => "candidate",
        }
    }
}

/// A run's judged items, in key order ([`ItemKey`]'s), each key once; read by position.
pub trait JudgedItems: Send + Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The key of the item at `i` (`i < len`).
    fn key(&self, i: usize) -> ItemKey;
    /// Its verdict: `None` when it is present but not scored.
    fn verdict(&self, i: usize) -> Option<bool>;
    /// What it should have answered, as text.
    fn expected(&self, i: usize) -> Option<String>;
    /// What it answered, as shown beside the other run's answer.
    fn answer(&self, i: usize) -> Option<String>;
    /// Its 0–1 reading, what its verdict is read from (an eval log's score may read 0.5);
    /// by default the verdict as 1 or 0.
    fn reading(&self, i: usize) -> Option<f64> {
        self.verdict(i).map(|v| if v { 1.0 } else { 0.0 })
    }
    /// The run's records its items are, by position, in key order, when the family knows
    /// them: two judgings of one run with equal orders have equal keys at every position (a
    /// numeric QA run under two scorers), so a consumer matches them with no key built.
    fn key_order(&self) -> Option<&[u32]> {
        None
    }
    /// The item's context ([`crate::compare::ItemContext`]: what the family's `item_context`
    /// gives its key), when the family gives it by position: a consumer of every item then
    /// builds no map of them all.
    fn context(&self, _i: usize) -> Option<super::ItemContext> {
        None
    }
}

/// Items that failed as a whole (a numeric QA conversation that timed out, an eval-set item
/// that could not be scored): every item whose key starts with `key` counts wrong, also one the
/// run has no record of while the other run has, which then shows `answer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedGroup {
    pub key: ItemKey,
    pub reason: String,
    pub answer: String,
}

/// One run judged for a comparison.
pub struct Judged<'a> {
    pub items: Box<dyn JudgedItems + 'a>,
    /// Sorted by key; one key length per run, so no group holds another.
    pub failed: Vec<FailedGroup>,
    /// What judging found (a key seen twice: the first is judged), naming the side.
    pub warnings: Vec<String>,
}

impl Judged<'_> {
    /// The counts of its verdicts: `correct` of the scored items.
    pub fn rate(&self) -> crate::stats::Rate {
        let mut r = crate::stats::Rate::default();
        for v in (0..self.items.len()).filter_map(|i| self.items.verdict(i)) {
            r.push(v);
        }
        r
    }

    /// The group that failed as a whole and holds `key`.
    pub(crate) fn failure_of(&self, key: &ItemKey) -> Option<&FailedGroup> {
        // The greatest group key at or before `key`: a prefix of `key` sorts just before it.
        let at = self.failed.partition_point(|f| f.key <= *key);
        self.failed
            .get(at.checked_sub(1)?)
            .filter(|f| key.starts_with(&f.key))
    }
}

/// One side of a key: present at a position, absent but in a failed group, or absent.
enum At<'g> {
    Item(usize),
    Failed(&'g FailedGroup),
    Absent,
}

/// Pairs two judged runs on their keys in one merge pass, and the paired statistics.
///
/// An item in one run only is paired with nothing, unless the other run's group of it failed
/// as a whole: then it is wrong there. The items of a failed group, on either side, are listed
/// as failed items (pair order, baseline first). Texts are kept for the pairs
/// `opts.texts` keeps.
pub fn join(b: &Judged, c: &Judged, opts: &CompareOptions) -> (PairedComparison, Vec<FailedItem>) {
    let (nb, nc) = (b.items.len(), c.items.len());
    let keep_pairs = opts.texts != super::PairTexts::None;
    let mut pairs = Vec::with_capacity(if keep_pairs { nb.max(nc) } else { 0 });
    let mut failed_items = Vec::new();
    let mut flips = FlipCounts::default();
    let (mut i, mut j) = (0, 0);
    let key_at = |s: &Judged, k: usize, n: usize| (k < n).then(|| s.items.key(k));
    let (mut kb, mut kc) = (key_at(b, 0, nb), key_at(c, 0, nc));
    loop {
        let order = match (&kb, &kc) {
            (None, None) => break,
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
        };
        let (key, bi, ci) = match order {
            std::cmp::Ordering::Equal => {
                let key = kb.take().unwrap_or_default();
                let at = (At::Item(i), At::Item(j));
                (i, j) = (i + 1, j + 1);
                (kb, kc) = (key_at(b, i, nb), key_at(c, j, nc));
                (key, at.0, at.1)
            }
            std::cmp::Ordering::Less => {
                let key = kb.take().unwrap_or_default();
                let other = c.failure_of(&key).map_or(At::Absent, At::Failed);
                let at = At::Item(i);
                i += 1;
                kb = key_at(b, i, nb);
                (key, at, other)
            }
            std::cmp::Ordering::Greater => {
                let key = kc.take().unwrap_or_default();
                let other = b.failure_of(&key).map_or(At::Absent, At::Failed);
                let at = At::Item(j);
                j += 1;
                kc = key_at(c, j, nc);
                (key, other, at)
            }
        };
        for (side, s, at) in [(Side::Baseline, b, &bi), (Side::Candidate, c, &ci)] {
            let group = match at {
                At::Item(_) => s.failure_of(&key),
                At::Failed(g) => Some(*g),
                At::Absent => None,
            };
            if let Some(g) = group {
                failed_items.push(FailedItem {
                    key: key.clone(),
                    run: side.name().into(),
                    reason: g.reason.clone(),
                });
            }
        }
        let verdict = |s: &Judged, at: &At| match at {
            At::Item(k) => s.items.verdict(*k),
            At::Failed(_) => Some(false),
            At::Absent => None,
        };
        let mut item = PairedItem {
            key,
            baseline: verdict(b, &bi),
            candidate: verdict(c, &ci),
            ..PairedItem::default()
        };
        let flip = item.flip();
        flips.count(flip);
        if opts.texts.keeps(flip) {
            let expected = |s: &Judged, at: &At| match at {
                At::Item(k) => s.items.expected(*k),
                _ => None,
            };
            let answer = |s: &Judged, at: &At| match at {
                At::Item(k) => s.items.answer(*k),
                At::Failed(g) => Some(g.answer.clone()),
                At::Absent => None,
            };
            item.expected = expected(b, &bi).or_else(|| expected(c, &ci));
            item.baseline_answer = answer(b, &bi);
            item.candidate_answer = answer(c, &ci);
        }
        if keep_pairs {
            pairs.push(item);
        }
    }
    let mut stats = PairedStats::from_counts(flips.pair_counts(), opts);
    stats.flips = flips;
    (PairedComparison { pairs, stats }, failed_items)
}

/// Sorts `(key, item)` by key, keeping the first item of a key seen more than once; returns
/// each repeated key with how many times it was seen. What a family's judging uses to put its
/// items in join order (keyed by an [`ItemKey`], or by a borrowed key that orders the same way).
pub fn sort_unique<K: Ord + Clone, T>(keyed: &mut Vec<(K, T)>) -> Vec<(K, usize)> {
    // A stable sort keeps a repeated key's items in run order: the first one stays.
    keyed.sort_by(|x, y| x.0.cmp(&y.0));
    let mut repeated: Vec<(K, usize)> = Vec::new();
    keyed.dedup_by(|later, first| {
        let same = first.0 == later.0;
        if same {
            match repeated.last_mut() {
                Some((k, n)) if *k == first.0 => *n += 1,
                _ => repeated.push((first.0.clone(), 2)),
            }
        }
        same
    });
    repeated
}

/// The warnings of [`sort_unique`]'s repeated keys: `<side> <run>: <what> <key> appears <n>
/// times; the first is compared`.
pub fn repeated_warnings(
    side: Side,
    run: &str,
    what: &str,
    repeated: Vec<(ItemKey, usize)>,
) -> Vec<String> {
    repeated
        .into_iter()
        .map(|(key, n)| {
            format!(
                "{} {run}: {what} {key} appears {n} times; the first is compared",
                side.name()
            )
        })
        .collect()
}

/// One judged item of a family whose items are plain values: a list of `(key, row)` in key
/// order is then its [`JudgedItems`].
pub trait JudgedRow {
    fn verdict(&self) -> Option<bool>;
    fn expected(&self) -> Option<String>;
    fn answer(&self) -> Option<String>;
    /// [`JudgedItems::reading`].
    fn reading(&self) -> Option<f64> {
        self.verdict().map(|v| if v { 1.0 } else { 0.0 })
    }
}

impl<T: JudgedRow + Send + Sync> JudgedItems for Vec<(ItemKey, T)> {
    fn len(&self) -> usize {
        <[(ItemKey, T)]>::len(self)
    }
    fn key(&self, i: usize) -> ItemKey {
        self.get(i).map(|r| r.0.clone()).unwrap_or_default()
    }
    fn verdict(&self, i: usize) -> Option<bool> {
        self.get(i).and_then(|r| r.1.verdict())
    }
    fn expected(&self, i: usize) -> Option<String> {
        self.get(i).and_then(|r| r.1.expected())
    }
    fn answer(&self, i: usize) -> Option<String> {
        self.get(i).and_then(|r| r.1.answer())
    }
    fn reading(&self, i: usize) -> Option<f64> {
        self.get(i).and_then(|r| r.1.reading())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Flip, PairTexts};

    struct Row(Option<bool>, &'static str);

    impl JudgedRow for Row {
        fn verdict(&self) -> Option<bool> {
            self.0
        }
        fn expected(&self) -> Option<String> {
            Some("e".into())
        }
        fn answer(&self) -> Option<String> {
            Some(self.1.into())
        }
    }

    fn judged(
        rows: &[(&str, u64, Option<bool>, &'static str)],
        failed: &[&str],
    ) -> Judged<'static> {
        let mut rows: Vec<(ItemKey, Row)> = rows
            .iter()
            .map(|(id, i, v, a)| (ItemKey::text_index(id, *i), Row(*v, a)))
            .collect();
        let repeated = sort_unique(&mut rows);
        Judged {
            items: Box::new(rows),
            failed: failed
                .iter()
                .map(|id| FailedGroup {
                    key: ItemKey::text(id),
                    reason: "timeout".into(),
                    answer: "(failed)".into(),
                })
                .collect(),
            warnings: repeated_warnings(Side::Candidate, "c", "turn", repeated),
        }
    }

    #[test]
    fn joins_in_key_order_with_failed_groups_and_repeated_keys() {
        let b = judged(
            &[
                ("a", 10, Some(true), "x"),
                ("a", 2, Some(true), "y"),
                ("b", 0, Some(true), "z"),
            ],
            &[],
        );
        // `b` failed as a whole in the candidate, which has no record of its turn; `a/2` twice.
        let c = judged(
            &[
                ("a", 2, Some(false), "first"),
                ("a", 2, Some(true), "second"),
                ("c", 0, None, "w"),
            ],
            &["b"],
        );
        assert_eq!(
            c.warnings,
            ["candidate c: turn a / 2 appears 2 times; the first is compared"]
        );
        let opts = CompareOptions {
            resamples: 0,
            texts: PairTexts::Changed,
            ..Default::default()
        };
        let (cmp, failed) = join(&b, &c, &opts);
        let got: Vec<(String, Flip, Option<String>)> = cmp
            .pairs
            .iter()
            .map(|p| (p.key.to_string(), p.flip(), p.candidate_answer.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("a / 2".into(), Flip::Regressed, Some("first".into())),
                ("a / 10".into(), Flip::OnlyInBaseline, None),
                ("b / 0".into(), Flip::Regressed, Some("(failed)".into())),
                ("c / 0".into(), Flip::Unscored, None),
            ]
        );
        assert_eq!(cmp.n_paired, 2);
        assert_eq!(
            failed,
            [FailedItem {
                key: ItemKey::text_index("b", 0),
                run: "candidate".into(),
                reason: "timeout".into(),
            }]
        );
    }
}
