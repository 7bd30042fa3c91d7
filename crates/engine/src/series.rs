//! A series: runs of one family in order (e.g. successive training stages), each compared with
//! the one before it — the many-runs layer with a moving baseline
//! ([`crate::compare::many::series_steps_in`]: each step equals [`run::compare_in`] of its pair;
//! `compare::many::compare_series_in` gives the same steps' rows with Holm's correction). The same value
//! serves `evalboard diff` with three or more runs, the dashboard's Compare tab and the report's
//! series section; what one of them adds (the CLI's warnings, the dashboard's paging of a
//! step's items, the report's markup) stays with it.

use crate::run::{self, CompareError, CompareSettings, FamilySet, RunComparison, RunRef};
use crate::run_meta::{self, MetaRow, RunMeta};
use crate::run_table::Unit;

/// Runs `i` and `i + 1` of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The comparison of run `i + 1` (candidate) with run `i` (baseline); `None` when either run
    /// is not held by the caller (a dashboard worker's run another worker holds).
    pub comparison: Option<Result<RunComparison, CompareError>>,
    /// The two runs' metadata side by side.
    pub meta: Vec<MetaRow>,
}

/// The runs of a series, in order, and every consecutive comparison.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Each run's metadata ([`RunRef::meta`]; empty for a run not held).
    pub metas: Vec<RunMeta>,
    /// Every run's metadata side by side, one value per run.
    pub meta: Vec<MetaRow>,
    /// Run `i` → run `i + 1`; empty for fewer than two runs.
    pub steps: Vec<Step>,
}

/// A run's rates and scores among [`RunRef::metrics_in`], as (label, value).
fn rates_and_scores<const FAMILIES: FamilySet>(r: &RunRef) -> Vec<(String, Option<f64>)> {
    r.metrics_in::<FAMILIES>()
        .into_iter()
        .filter(|m| matches!(m.unit, Unit::Rate | Unit::Score))
        .map(|m| (m.label, m.value))
        .collect()
}

/// [`series_in`] for runs of every family.
pub fn series<'a>(
    runs: &[impl Copy + Into<Option<RunRef<'a>>>],
    settings: &CompareSettings,
) -> Series {
    series_in::<{ run::ALL_FAMILIES }>(runs, settings)
}

/// The series of `runs` in order, compared under `settings` by [`run::compare_in`] for the
/// families in `FAMILIES` (a consumer's family set). `runs` are [`RunRef`]s, or
/// `Option<RunRef>`s where a caller names a run it does not hold (`None`: its steps have no
/// comparison, its metadata is empty). A step whose runs cannot be compared (different
/// families, an unknown scorer) carries the error; the others are computed all the same.
pub fn series_in<'a, const FAMILIES: FamilySet>(
    runs: &[impl Copy + Into<Option<RunRef<'a>>>],
    settings: &CompareSettings,
) -> Series {
    let runs: Vec<Option<RunRef<'a>>> = runs.iter().map(|r| (*r).into()).collect();
    let metas: Vec<RunMeta> = runs
        .iter()
        .map(|r| r.as_ref().map(RunRef::meta).unwrap_or_default())
        .collect();
    // The moving baseline's pairs, through the many-runs layer.
    let compared = crate::compare::many::series_steps_in::<FAMILIES>(&runs, settings);
    let steps = compared
        .into_iter()
        .zip(metas.windows(2))
        .filter_map(|(comparison, meta)| match meta {
            [mb, mc] => Some(Step {
                comparison,
                meta: run_meta::side_by_side(&[mb, mc]),
            }),
            _ => None,
        })
        .collect();
    Series {
        meta: run_meta::side_by_side(&metas.iter().collect::<Vec<_>>()),
        metas,
        steps,
    }
}

/// The metrics a series follows, as (label, one value per run): the first run's rates and
/// scores among [`RunRef::metrics_in`] (its headline first), each run's value at the same
/// position (`None` where a run has fewer, or is not held); fractions. Apart from
/// [`series_in`], which `diff` calls for two runs too: only a consumer that shows them pays for
/// every run's statistics.
pub fn metrics_in<'a, const FAMILIES: FamilySet>(
    runs: &[impl Copy + Into<Option<RunRef<'a>>>],
) -> Vec<(String, Vec<Option<f64>>)> {
    let per_run: Vec<Vec<(String, Option<f64>)>> = runs
        .iter()
        .map(|r| {
            let r: Option<RunRef<'a>> = (*r).into();
            r.as_ref()
                .map(rates_and_scores::<FAMILIES>)
                .unwrap_or_default()
        })
        .collect();
    per_run
        .first()
        .map(|first| {
            first
                .iter()
                .enumerate()
                .map(|(i, (label, _))| {
                    let values = per_run.iter().map(|m| m.get(i).and_then(|x| x.1)).collect();
                    (label.clone(), values)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// [`metrics_in`] for runs of every family.
pub fn metrics<'a>(
    runs: &[impl Copy + Into<Option<RunRef<'a>>>],
) -> Vec<(String, Vec<Option<f64>>)> {
    metrics_in::<{ run::ALL_FAMILIES }>(runs)
}
