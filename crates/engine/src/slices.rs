//! Slices of a comparison by a breakdown field: for each value of one of the items' fields
//! ([`RunRef::item_context`]'s `fields`), the items judged in both runs, each run's accuracy on
//! them, the change, and the regressions and improvements (issue 17.2's deltas per slice). Any
//! family: the fields are whatever the family's items carry. The dashboard's Compare tab shows
//! them; the CLI and the report reach them here.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::compare::{Flip, ItemContexts, PairedItem};
use crate::run::{FamilySet, RunComparison, RunRef};

/// Most values a field may have to slice the paired items by (as a log's breakdowns).
pub const MAX_SLICES: usize = 50;

/// The items with one value of the field, judged in both runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SliceRow {
    pub value: String,
    /// Items judged in both runs.
    pub paired: u64,
    /// Of those, correct in the baseline, in the candidate.
    pub baseline_correct: u64,
    pub candidate_correct: u64,
    pub regressed: u64,
    pub improved: u64,
}

impl SliceRow {
    fn rate(&self, k: u64) -> Option<f64> {
        (self.paired > 0).then(|| k as f64 / self.paired as f64)
    }

    /// The baseline's accuracy on the slice (0–1).
    pub fn baseline_rate(&self) -> Option<f64> {
        self.rate(self.baseline_correct)
    }

    pub fn candidate_rate(&self) -> Option<f64> {
        self.rate(self.candidate_correct)
    }

    /// Candidate minus baseline accuracy.
    pub fn delta(&self) -> Option<f64> {
        self.candidate_rate()
            .zip(self.baseline_rate())
            .map(|(c, b)| c - b)
    }
}

/// A comparison's items sliced by one field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slices {
    /// The fields the items can be sliced by (2 to [`MAX_SLICES`] values over the items judged
    /// in both runs), in the family's order: the first is the default.
    pub fields: Vec<String>,
    /// The field the rows are by: the one asked for when offered, else the first; `None` when
    /// no field is offered.
    pub by: Option<String>,
    /// One row per value: whole numbers by value (turns, operations, epochs), then the rest as
    /// text.
    pub rows: Vec<SliceRow>,
}

/// The order of a slice's value: whole numbers by value, then the rest as text.
fn slice_order(v: &str) -> (bool, i64, &str) {
    match v.parse::<i64>() {
        Ok(n) => (false, n, v),
        Err(_) => (true, 0, v),
    }
}

/// A field's name as a column label: `_` as spaces, the first letter upper case (ASCII only:
/// `to_uppercase` would link Unicode's case tables into a dashboard worker).
pub fn field_label(field: &str) -> String {
    let mut head = field.replace('_', " ");
    if let Some(first) = head.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    head
}

/// Both runs' item contexts by comparison key, the baseline's first (the first run to name a
/// key sets its context): what [`slices`] reads the fields from.
pub fn item_contexts_in<const FAMILIES: FamilySet>(
    baseline: RunRef,
    candidate: RunRef,
) -> ItemContexts {
    let mut context = ItemContexts::new();
    baseline.item_context_in::<FAMILIES>(&mut context);
    candidate.item_context_in::<FAMILIES>(&mut context);
    context
}

/// [`item_contexts_in`] keyed as `cmp`'s pairs are: paired by item, each context also under
/// its item's key (the repeat part dropped; the first repeat's context).
pub fn comparison_contexts_in<const FAMILIES: FamilySet>(
    cmp: &RunComparison,
    baseline: RunRef,
    candidate: RunRef,
) -> ItemContexts {
    let context = item_contexts_in::<FAMILIES>(baseline, candidate);
    let Some(part) = cmp.item_part else {
        return context;
    };
    let mut keyed: Vec<_> = context.into_iter().collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = ItemContexts::new();
    for (k, v) in keyed {
        let (item, _) = crate::repeats::split_repeat(&k, part);
        out.entry(item).or_insert(v);
    }
    out
}

/// The items of `cmp` judged in both runs, by the value of the field `by` (when offered, else
/// the first field offered), their fields from `context` ([`item_contexts_in`]).
pub fn slices(cmp: &RunComparison, context: &ItemContexts, by: Option<&str>) -> Slices {
    let judged: Vec<(&PairedItem, &[(String, String)])> = cmp
        .stats
        .pairs
        .iter()
        .filter(|p| p.baseline.is_some() && p.candidate.is_some())
        .filter_map(|p| Some((p, context.get(&p.key)?.fields.as_slice())))
        .collect();
    // Each field's distinct values (one past the cap is enough to rule it out), fields in the
    // order they first appear.
    let mut fields: Vec<(&str, HashSet<&str>)> = Vec::new();
    for (_, fs) in &judged {
        for (k, v) in fs.iter() {
            let i = match fields.iter().position(|(f, _)| f == k) {
                Some(i) => i,
                None => {
                    fields.push((k, HashSet::new()));
                    fields.len() - 1
                }
            };
            if let Some((_, seen)) = fields.get_mut(i).filter(|(_, s)| s.len() <= MAX_SLICES) {
                seen.insert(v);
            }
        }
    }
    let offered: Vec<String> = fields
        .iter()
        .filter(|(_, seen)| (2..=MAX_SLICES).contains(&seen.len()))
        .map(|(f, _)| f.to_string())
        .collect();
    let Some(field) = by
        .and_then(|b| offered.iter().find(|f| *f == b))
        .or(offered.first())
        .cloned()
    else {
        return Slices {
            fields: offered,
            by: None,
            rows: Vec::new(),
        };
    };
    let mut rows: BTreeMap<(bool, i64, &str), SliceRow> = BTreeMap::new();
    for (p, fs) in &judged {
        let (Some(b), Some(c)) = (p.baseline, p.candidate) else {
            continue;
        };
        let Some((_, value)) = fs.iter().find(|(k, _)| *k == field) else {
            continue;
        };
        let e = rows.entry(slice_order(value)).or_insert_with(|| SliceRow {
            value: value.clone(),
            paired: 0,
            baseline_correct: 0,
            candidate_correct: 0,
            regressed: 0,
            improved: 0,
        });
        e.paired += 1;
        e.baseline_correct += u64::from(b);
        e.candidate_correct += u64::from(c);
        match p.flip() {
            Flip::Regressed => e.regressed += 1,
            Flip::Improved => e.improved += 1,
            _ => {}
        }
    }
    Slices {
        fields: offered,
        by: Some(field),
        rows: rows.into_values().collect(),
    }
}
