//! The "All runs" tab's comparison as a worker keeps it: computed once per (baselines, runs)
//! ([`crate::many::Many`]), reused by every query until the run store drops it (a run loaded,
//! replaced or removed, new settings).

use evalboard_engine::run::{FamilySet, RunRef};

use crate::many::Many;
use crate::protocol::{RunId, ScreenQuery, ScreenView};

/// A many-runs comparison and the runs it compared.
pub(crate) struct Kept {
    ids: (Vec<RunId>, Vec<RunId>),
    many: Many,
}

impl Kept {
    pub fn view(&self, query: &ScreenQuery) -> ScreenView {
        self.many.view(query)
    }
}

/// The comparison of `runs` against `baselines`: `kept` when it compared the same runs, else
/// computed from the runs `get` finds (a run this worker does not hold is left out; none of
/// the baselines held is an error shown in the view).
pub(crate) fn answer<'a, const FAMILIES: FamilySet>(
    kept: Option<Kept>,
    (baselines, runs): (&[RunId], &[RunId]),
    get: impl Fn(RunId) -> Option<(&'a str, RunRef<'a>)>,
) -> Kept {
    if let Some(k) = kept.filter(|k| k.ids.0 == baselines && k.ids.1 == runs) {
        return k;
    }
    let base: Vec<(&str, RunRef)> = baselines.iter().filter_map(|id| get(*id)).collect();
    let others: Vec<(&str, RunRef)> = runs.iter().filter_map(|id| get(*id)).collect();
    Kept {
        ids: (baselines.to_vec(), runs.to_vec()),
        many: Many::new::<FAMILIES>(&base, &others),
    }
}
