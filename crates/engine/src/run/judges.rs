//! What may judge a run's items, for a consumer to offer (`RunRef::judge_choices_in`): the
//! family's [`crate::family_run::FamilyRun::judge_choices`], each a name `--scorer` accepts
//! (`CompareSettings::qa_scorer`) with that judge's headline. The dashboard's "Judged by"
//! picker lists them; a many-runs comparison judged by one takes each run's headline from it.

use super::{FamilySet, RunRef};
use crate::run_table::JudgeChoice;

impl RunRef<'_> {
    /// The judges the run offers, the run's own headline first ([`JudgeChoice`]); empty for a
    /// family that offers none, or not in `FAMILIES`.
    pub fn judge_choices_in<const FAMILIES: FamilySet>(&self) -> Vec<JudgeChoice> {
        self.family_run_in::<FAMILIES>()
            .map(|f| f.judge_choices())
            .unwrap_or_default()
    }
}
