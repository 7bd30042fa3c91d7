//! A run's items and its verdicts under several judges in one pass
//! ([`RunRef::items_judged_in`]): each item row handed on as it is built (its texts not kept),
//! each judge's verdicts naming their items by position. A judge that orders the run's items
//! as the run's own judge does (a numeric QA run's scorers) is matched with no key built; the
//! others' keys are matched against the items' keys, built once. What the lake exports a run
//! by; [`RunRef::items_in`] is the rows collected.

use std::collections::HashMap;

use super::{CompareError, FamilySet, RunRef};
use crate::compare::ItemContexts;
use crate::run_table::{ItemKey, ItemRow};

/// Where a verdict's item is: the run's item at this position (in [`RunRef::items_in`]'s
/// order), or a key the items do not have (at this position of [`ItemsJudged::others`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemAt {
    Item(u32),
    Other(u32),
}

/// A run's verdicts under one judge, in key order, each key once ([`RunRef::verdicts_in`]'s
/// rows, the key given by position).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedRows {
    /// The judge's name (`name@version`, a score's label).
    pub judge: String,
    /// Each verdict's item; `None` when verdict `i` is item `i`'s, for every item.
    pub at: Option<Vec<ItemAt>>,
    /// Each verdict: `None` for an item present but not scored.
    pub correct: Vec<Option<bool>>,
    /// The groups of items that failed as a whole, with why.
    pub failed: Vec<(ItemKey, String)>,
    pub warnings: Vec<String>,
}

impl JudgedRows {
    /// Verdict `i`'s item.
    pub fn item(&self, i: usize) -> ItemAt {
        match &self.at {
            Some(at) => at.get(i).copied().unwrap_or(ItemAt::Other(u32::MAX)),
            None => ItemAt::Item(u32::try_from(i).unwrap_or(u32::MAX)),
        }
    }
}

/// [`RunRef::items_judged_in`]'s verdicts.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemsJudged {
    /// How many item rows were handed on.
    pub items: usize,
    /// Under the run's own judge (the items' verdicts): its name and failed groups.
    pub own: JudgedRows,
    /// Under each judge asked, in the order asked.
    pub judges: Vec<Result<JudgedRows, CompareError>>,
    /// The keys verdicts name that no item has ([`ItemAt::Other`]).
    pub others: Vec<ItemKey>,
}

/// Finds judged keys among the items' keys: verdicts come in key order as the items do, so a
/// cursor finds most keys, a map the rest.
struct Finder<'k> {
    keys: &'k [ItemKey],
    cursor: usize,
    index: Option<HashMap<&'k ItemKey, usize>>,
}

impl<'k> Finder<'k> {
    fn at(&mut self, key: &ItemKey, others: &mut Vec<ItemKey>) -> ItemAt {
        let keys = self.keys;
        while keys.get(self.cursor).is_some_and(|k| k < key) {
            self.cursor += 1;
        }
        let item = |i: usize| ItemAt::Item(u32::try_from(i).unwrap_or(u32::MAX));
        if keys.get(self.cursor) == Some(key) {
            return item(self.cursor);
        }
        let index = self
            .index
            .get_or_insert_with(|| keys.iter().enumerate().map(|(i, k)| (k, i)).collect());
        match index.get(key) {
            Some(&i) => item(i),
            None => {
                others.push(key.clone());
                ItemAt::Other(u32::try_from(others.len() - 1).unwrap_or(u32::MAX))
            }
        }
    }
}

/// An item's texts as [`ItemRow::texts`] holds them: its question (from its context), what it
/// should have answered and what it answered, those it has.
pub(super) fn item_texts(
    question: Option<String>,
    items: &dyn crate::compare::join::JudgedItems,
    i: usize,
) -> Vec<(String, String)> {
    [
        ("question", question),
        ("expected", items.expected(i)),
        ("answer", items.answer(i)),
    ]
    .into_iter()
    .filter_map(|(k, t)| Some((k.to_string(), t?)))
    .collect()
}

impl RunRef<'_> {
    /// Every item of the run as a row ([`RunRef::items_in`]'s rows, in its order), each
    /// handed to `each` as it is built and not kept, with why its group failed as a whole (if
    /// it did), then the run's verdicts under each judge
    /// of `judges` (as [`RunRef::verdicts_in`] gives them) naming their items by position. A
    /// judge whose items come in the own judge's order (the same records in the same order:
    /// a numeric QA run's scorers) builds no key; the items' keys are built once for the
    /// others. `Err` when the run's own judge cannot judge it (no rows are handed on).
    pub fn items_judged_in<const FAMILIES: FamilySet>(
        &self,
        judges: &[Option<&str>],
        mut each: impl FnMut(ItemRow, Option<&str>),
    ) -> Result<ItemsJudged, CompareError> {
        let (own, order, n) = self.judged_in::<FAMILIES, _>(None, |scorer, mut warnings, j| {
            let n = j.items.len();
            // The items' contexts by position when the family gives them so, else by key.
            let mut contexts = ItemContexts::new();
            if n > 0 && j.items.context(0).is_none() {
                self.item_context_in::<FAMILIES>(&mut contexts);
            }
            let mut correct = Vec::with_capacity(n);
            for i in 0..n {
                let key = j.items.key(i);
                // Each context is its item's only: its texts move into the row.
                let ctx = match j.items.context(i) {
                    Some(c) => c,
                    None => contexts.remove(&key).unwrap_or_default(),
                };
                let verdict = j.items.verdict(i);
                correct.push(verdict);
                let texts = item_texts(ctx.question, &*j.items, i);
                let failed = j.failure_of(&key).map(|g| g.reason.as_str());
                each(
                    ItemRow {
                        verdict,
                        fields: ctx.fields,
                        key,
                        texts,
                        usage: ctx.usage,
                    },
                    failed,
                );
            }
            warnings.extend(j.warnings);
            let order = j.items.key_order().map(<[u32]>::to_vec);
            let own = JudgedRows {
                judge: scorer,
                at: None,
                correct,
                failed: j.failed.into_iter().map(|g| (g.key, g.reason)).collect(),
                warnings,
            };
            (own, order, n)
        })?;
        // The items' keys, built again only for a judge of another order.
        let mut keys: Option<Vec<ItemKey>> = None;
        let mut others = Vec::new();
        let mut out = Vec::with_capacity(judges.len());
        for &judge in judges {
            let rows = self.judged_in::<FAMILIES, _>(judge, |scorer, mut warnings, j| {
                warnings.extend(j.warnings);
                let len = j.items.len();
                let correct = (0..len).map(|i| j.items.verdict(i)).collect();
                let same = order.is_some() && j.items.key_order() == order.as_deref();
                let at = (!same).then(|| {
                    let keys = keys.get_or_insert_with(|| self.item_keys_in::<FAMILIES>());
                    let mut find = Finder {
                        keys,
                        cursor: 0,
                        index: None,
                    };
                    (0..len)
                        .map(|i| find.at(&j.items.key(i), &mut others))
                        .collect()
                });
                JudgedRows {
                    judge: scorer,
                    at,
                    correct,
                    failed: j.failed.into_iter().map(|g| (g.key, g.reason)).collect(),
                    warnings,
                }
            });
            out.push(rows);
        }
        Ok(ItemsJudged {
            items: n,
            own,
            judges: out,
            others,
        })
    }

    /// The keys of the run's items in [`RunRef::items_in`]'s order (empty when its own judge
    /// cannot judge it).
    fn item_keys_in<const FAMILIES: FamilySet>(&self) -> Vec<ItemKey> {
        self.judged_in::<FAMILIES, _>(None, |_, _, j| {
            (0..j.items.len()).map(|i| j.items.key(i)).collect()
        })
        .unwrap_or_default()
    }
}
