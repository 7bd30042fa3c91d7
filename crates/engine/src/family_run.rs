//! The one trait a family implements for the registry ([`crate::run::RunRef`]) to describe a
//! scored run of it: its profile, size, metadata, counts, headline and metrics, and each item's
//! context. Each family implements it in its `mod.rs`; `RunRef` looks the implementation up once
//! (`RunRef::family_run_in`, guarded by the consumer's family set, so a worker links only its
//! own families' implementations) and every describing method goes through it. Imports no
//! family.

use crate::compare::ItemContexts;
use crate::headline::Metric;
use crate::run_meta::RunMeta;
use crate::run_table::MetricValue;

/// A scored run of one family, described for the registry.
pub trait FamilyRun {
    /// The profile (or scorer) the run was scored under, by name.
    fn profile(&self) -> String;
    /// How big the run is, in its family's units (`12 conversations, 38 turns`).
    fn size(&self) -> String;
    /// What the run is (model, dataset, config …), for side-by-side tables.
    fn meta(&self) -> RunMeta;
    /// (groups, items): conversations and turns, sessions and messages, none and items.
    fn counts(&self) -> (usize, usize);
    /// The family's headline table under the run's profile.
    fn headline_metrics(&self) -> &'static [Metric];
    /// The number the run is listed by.
    fn headline(&self) -> MetricValue;
    /// The family's metrics of the run, in the order a comparison shows them.
    fn metrics(&self) -> Vec<MetricValue>;
    /// [`FamilyRun::headline`] and [`FamilyRun::metrics`] together: a family whose both come
    /// from one statistics pass overrides it to make that pass once.
    fn headline_and_metrics(&self) -> (MetricValue, Vec<MetricValue>) {
        (self.headline(), self.metrics())
    }
    /// The category, question and slice fields of each item, by comparison key.
    fn item_context(&self, out: &mut ItemContexts);
}

/// A family's run behind a reference is described as the run: what the registry boxes.
impl<T: FamilyRun + ?Sized> FamilyRun for &T {
    fn profile(&self) -> String {
        (**self).profile()
    }
    fn size(&self) -> String {
        (**self).size()
    }
    fn meta(&self) -> RunMeta {
        (**self).meta()
    }
    fn counts(&self) -> (usize, usize) {
        (**self).counts()
    }
    fn headline_metrics(&self) -> &'static [Metric] {
        (**self).headline_metrics()
    }
    fn headline(&self) -> MetricValue {
        (**self).headline()
    }
    fn metrics(&self) -> Vec<MetricValue> {
        (**self).metrics()
    }
    fn headline_and_metrics(&self) -> (MetricValue, Vec<MetricValue>) {
        (**self).headline_and_metrics()
    }
    fn item_context(&self, out: &mut ItemContexts) {
        (**self).item_context(out)
    }
}

/// `n` things, singular or plural (`1 turn`, `38 turns`).
pub fn count_of(k: usize, one: &str, many: &str) -> String {
    format!("{k} {}", if k == 1 { one } else { many })
}
