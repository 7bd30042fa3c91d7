//! Two judged runs paired per item rather than per repeat (`diff --by-item`, the dashboard's
//! Compare toggle): each run's judged items gathered by item ([`crate::repeats::group`], the key
//! without its repeat part), each item's scored repeats reduced to one value
//! ([`crate::repeats::Reduction`]), and the two runs' values paired on the item key. The
//! statistics are the mean difference with its item-clustered CI ([`ItemMeans`]), plus — when
//! every reduced value is 0 or 1 — the flips, McNemar's exact test and the paired bootstrap of
//! the usual join. No family is named here: the family says which key part is the repeat.

use super::join::Judged;
use super::{CompareOptions, FlipCounts, ItemMeans, PairedComparison, PairedItem, PairedStats};
use crate::repeats::{group, ItemRepeats, Reduction};
use crate::stats::MeanDiff;

/// One run's items with their repeats (`part`: the key part that counts them).
fn items(j: &Judged, part: usize) -> Vec<ItemRepeats> {
    group(
        (0..j.items.len()).map(|i| (j.items.key(i), j.items.reading(i))),
        part,
    )
}

/// An item's reduced value in words, with the repeats it comes from.
fn described(red: Reduction, it: &ItemRepeats, value: Option<f64>) -> String {
    let (n, c) = (it.n(), it.correct());
    match value {
        Some(v) => format!("{red} {v:.4} ({c} of {n} scored repeats correct)"),
        None if n == 0 => format!("no scored repeat ({} in all)", it.repeats),
        None => format!("{red} undefined: {n} scored repeats"),
    }
}

/// `b` and `c` paired per item: the key part `parts.0` (`parts.1`) counts the baseline's
/// (candidate's) repeats, each item's readings reduced by `red`. Texts for the pairs
/// `opts.texts` keeps: the first repeat's expected answer, each side's reduced value in words.
pub fn join(
    b: &Judged,
    c: &Judged,
    parts: (usize, usize),
    red: Reduction,
    opts: &CompareOptions,
) -> PairedComparison {
    let (gb, gc) = (items(b, parts.0), items(c, parts.1));
    let mut pairs = Vec::with_capacity(gb.len().max(gc.len()));
    let mut means = MeanDiff::default();
    let mut binary = true;
    let (mut i, mut j) = (0, 0);
    loop {
        let (bi, ci) = match (gb.get(i), gc.get(j)) {
            (None, None) => break,
            (Some(x), Some(y)) if x.key == y.key => {
                (i, j) = (i + 1, j + 1);
                (Some(x), Some(y))
            }
            (Some(x), Some(y)) if x.key < y.key => {
                i += 1;
                (Some(x), None)
            }
            (Some(x), None) => {
                i += 1;
                (Some(x), None)
            }
            (_, Some(y)) => {
                j += 1;
                (None, Some(y))
            }
        };
        let value = |it: Option<&ItemRepeats>| it.and_then(|it| red.reduce(&it.readings));
        let (bv, cv) = (value(bi), value(ci));
        binary &= [bv, cv].into_iter().flatten().all(|v| v == 0.0 || v == 1.0);
        if let (Some(x), Some(y)) = (bv, cv) {
            means.push(x, y);
        }
        let key = bi.or(ci).map(|it| it.key.clone()).unwrap_or_default();
        let mut item = PairedItem {
            key,
            baseline: bv.map(|v| v >= 1.0),
            candidate: cv.map(|v| v >= 1.0),
            values: Some((bv, cv)),
            ..PairedItem::default()
        };
        if opts.texts.keeps(item.flip()) {
            item.expected = bi
                .and_then(|it| b.items.expected(it.first))
                .or_else(|| ci.and_then(|it| c.items.expected(it.first)));
            item.baseline_answer = bi.map(|it| described(red, it, bv));
            item.candidate_answer = ci.map(|it| described(red, it, cv));
        }
        pairs.push(item);
    }
    let flips = FlipCounts::of(&pairs);
    let item_means = ItemMeans::of(&red.name(), binary, &means);
    let mut stats = if binary {
        let mut s = PairedStats::from_counts(flips.pair_counts(), opts);
        s.by_item = Some(item_means);
        s
    } else {
        PairedStats::from_means(item_means, flips, opts)
    };
    stats.flips = flips;
    PairedComparison { pairs, stats }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::join::JudgedRow;
    use crate::compare::{Flip, PairTexts};
    use crate::run_table::ItemKey;

    struct Row(Option<f64>);

    impl JudgedRow for Row {
        fn verdict(&self) -> Option<bool> {
            self.0.map(|r| r == 1.0)
        }
        fn expected(&self) -> Option<String> {
            Some("e".into())
        }
        fn answer(&self) -> Option<String> {
            None
        }
        fn reading(&self) -> Option<f64> {
            self.0
        }
    }

    fn judged(rows: &[(&str, u64, Option<f64>)]) -> Judged<'static> {
        let rows: Vec<(ItemKey, Row)> = rows
            .iter()
            .map(|(id, e, r)| (ItemKey::text_index(id, *e), Row(*r)))
            .collect();
        Judged {
            items: Box::new(rows),
            failed: Vec::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn items_pair_with_their_repeats_reduced() {
        let b = judged(&[
            ("a", 1, Some(1.0)),
            ("a", 2, Some(0.0)),
            ("b", 1, Some(0.0)),
            ("b", 2, Some(0.0)),
            ("c", 1, Some(1.0)),
        ]);
        let c = judged(&[
            ("a", 1, Some(1.0)),
            ("a", 2, Some(1.0)),
            ("b", 1, Some(1.0)),
            ("b", 2, None),
            ("d", 1, Some(1.0)),
        ]);
        let opts = CompareOptions {
            resamples: 0,
            texts: PairTexts::All,
            ..Default::default()
        };
        let cmp = join(&b, &c, (1, 1), Reduction::Mean, &opts);
        let got: Vec<(String, Flip)> = cmp
            .pairs
            .iter()
            .map(|p| (p.key.to_string(), p.flip()))
            .collect();
        assert_eq!(
            got,
            [
                ("a".to_string(), Flip::Improved),
                ("b".to_string(), Flip::Improved),
                ("c".to_string(), Flip::OnlyInBaseline),
                ("d".to_string(), Flip::OnlyInCandidate),
            ]
        );
        let m = cmp.by_item.as_ref().unwrap();
        assert!(!m.binary);
        assert_eq!(
            (m.n_items, m.baseline_mean, m.candidate_mean),
            (2, Some(0.25), Some(1.0))
        );
        assert_eq!(cmp.n_paired, 2);
        assert!(cmp.mcnemar_p.is_nan());
        assert_eq!(cmp.accuracy_delta, Some(0.75));
        assert_eq!(
            cmp.pairs[0].baseline_answer.as_deref(),
            Some("mean 0.5000 (1 of 2 scored repeats correct)")
        );
        // at_least_1 is 0 or 1 for every item: McNemar and the bootstrap apply.
        let cmp = join(&b, &c, (1, 1), Reduction::AtLeast(1), &opts);
        let m = cmp.by_item.as_ref().unwrap();
        assert!(m.binary);
        assert_eq!(cmp.flips.improved, 1);
        assert_eq!(cmp.flips.unchanged_correct, 1);
        assert_eq!(cmp.mcnemar_p, 1.0);
        // pass@2 of an item with one scored repeat is undefined: it pairs with nothing.
        let cmp = join(&b, &c, (1, 1), Reduction::PassAt(2), &opts);
        assert_eq!(cmp.pairs[1].flip(), Flip::OnlyInBaseline);
        assert_eq!(
            cmp.pairs[1].candidate_answer.as_deref(),
            Some("pass_at_2 undefined: 1 scored repeats")
        );
    }
}
