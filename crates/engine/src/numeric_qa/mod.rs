//! Multi-turn numeric QA runs (ConvFinQA conversations; the financial-agent-2 system's trace
//! folders and batch `results.json`; the documented QA JSONL).
//!
//! The family's pipeline, one module per stage:
//! [`sniff`] (what each file is) → [`read`] (files → [`model::QaRun`], the ConvFinQA dataset
//! join, file accounting; per-format readers in [`formats`]) → [`score`] (named, versioned
//! scorers over [`answer`] parsing and the [`finqa_program`] language) → [`aggregate`]
//! (`doc::Statistics`; the financial-agent-2 writer) → [`views`] (what the dashboard and the
//! report show) → [`compare`] (the one pairing of two runs); output files are written by the report
//! crate (`evalboard_report::outputs`). [`validate`] checks a
//! ConvFinQA dataset; [`meta`] describes a run for comparisons.

pub mod aggregate;
pub mod answer;
pub mod compare;
pub mod finqa_program;
pub mod formats;
pub mod live;
pub mod meta;
pub mod model;
pub mod query;
pub mod read;
pub mod score;
pub mod sniff;
pub mod validate;
pub mod views;

impl crate::family_run::FamilyRun for score::ScoredQaRun {
    fn profile(&self) -> String {
        self.config.profile.name().to_string()
    }

    fn size(&self) -> String {
        use crate::family_run::count_of;
        format!(
            "{}, {}",
            count_of(
                self.run.conversations.len(),
                "conversation",
                "conversations"
            ),
            count_of(self.turns.len(), "turn", "turns")
        )
    }

    fn meta(&self) -> crate::run_meta::RunMeta {
        // A run is not changed once scored: read once.
        self.meta.get_or_init(|| meta::qa_meta(self)).clone()
    }

    fn counts(&self) -> (usize, usize) {
        (self.run.conversations.len(), self.turns.len())
    }

    fn headline_metrics(&self) -> &'static [crate::headline::Metric] {
        aggregate::headline(self.config.profile)
    }

    /// Numerical accuracy under the run's profile: under financial-agent-2, that system's own,
    /// as its statistics.json and the Overview's first card have it.
    fn headline(&self) -> crate::run_table::MetricValue {
        match self.config.profile {
            score::Profile::Doc => doc_headline(&aggregate::doc::statistics(self)),
            score::Profile::Fa2 => fa2_headline(self),
        }
    }

    fn metrics(&self) -> Vec<crate::run_table::MetricValue> {
        compare::metrics_of(&aggregate::doc::statistics(self))
    }

    /// One statistics pass for both.
    fn headline_and_metrics(
        &self,
    ) -> (
        crate::run_table::MetricValue,
        Vec<crate::run_table::MetricValue>,
    ) {
        let st = aggregate::doc::statistics(self);
        let head = match self.config.profile {
            score::Profile::Doc => doc_headline(&st),
            score::Profile::Fa2 => fa2_headline(self),
        };
        (head, compare::metrics_of(&st))
    }

    fn item_context(&self, out: &mut crate::compare::ItemContexts) {
        compare::item_context(self, out)
    }

    fn unpriced_models(&self) -> Vec<String> {
        aggregate::doc::unpriced_models(&self.run, &self.config.prices)
    }

    /// The turns in key order (`compare::key_order`), kept by the run.
    fn index_for_comparison(&self) {
        compare::index(self);
    }

    /// The comparison scorers that read every turn, the profile's own first
    /// ([`compare::judge_choices`]).
    fn judge_choices(&self) -> Vec<crate::run_table::JudgeChoice> {
        compare::judge_choices(self)
    }

    fn query_fields(&self, docs: &mut crate::query::Docs<'_>) {
        query::query_fields(self, docs)
    }
}

/// The doc profile's headline: numerical accuracy, with the counts behind it.
fn doc_headline(st: &aggregate::doc::Statistics) -> crate::run_table::MetricValue {
    use crate::run_table::{MetricValue, Unit};
    let mut m = MetricValue::new(
        "numerical_accuracy",
        "Numerical accuracy",
        Unit::Rate,
        st.numerical_accuracy,
    );
    m.counts =
        (st.total_turns > 0).then(|| crate::stats::Rate::new(st.correct_turns, st.total_turns));
    m
}

/// The financial-agent-2 profile's headline: that system's own numerical accuracy, as its
/// statistics.json and the Overview's first card have it.
fn fa2_headline(s: &score::ScoredQaRun) -> crate::run_table::MetricValue {
    crate::run_table::MetricValue::new(
        "numerical_accuracy",
        "Numerical accuracy",
        crate::run_table::Unit::Rate,
        aggregate::fa2::statistics_value(&s.run)
            .get("numerical_accuracy")
            .and_then(serde_json::Value::as_f64),
    )
}
