//! Run comparison for multi-turn numeric QA runs: judges a scored run turn by turn, keyed
//! (conversation id, turn index), for the one join ([`crate::compare::join`]).
//!
//! Each turn is judged by one answer scorer, the profile's primary scorer ([`default_scorer`])
//! unless the caller picks another ([`QA_COMPARE_SCORERS`]). Turns of a conversation that failed as a whole (e.g. an
//! evaluation timeout) are real, wrong turns here, as in the doc profile's statistics; they are
//! also listed as `failed_items` so a reader can tell them from wrong answers.

use std::collections::BTreeMap;

use crate::compare::join::{sort_unique, FailedGroup, Judged, JudgedItems, Side};
use crate::compare::{ItemContext, ItemContexts, Unit};
use crate::family_run::{FamilyCompare, PairJudge};
use crate::numeric_qa::aggregate::doc as statistics;
use crate::numeric_qa::model::{QaConversation, QaTurn};
use crate::numeric_qa::score::{answer_text, doc, fa2, KeyOrder, Profile, ScoredQaRun, TurnScore};
use crate::run_table::{ItemKey, ItemUsage, MetricValue};
use crate::scorer_table::Scorer;

/// The scorers a comparison can judge turns by, default first: the doc profile's answer
/// scorers, then financial-agent-2's (entries of the scorer table).
pub const QA_COMPARE_SCORERS: [&Scorer; 9] = [
    &doc::NUMERICAL,
    &doc::EXACT,
    &doc::SOFT,
    &doc::UNIT_AGNOSTIC,
    &doc::SIGN_AGNOSTIC,
    &doc::GENERAL,
    &fa2::NUMERICAL,
    &fa2::FINANCIAL,
    &fa2::SOFT,
];

/// The verdict of `scorer` (an id from [`QA_COMPARE_SCORERS`], or a doc-v1 scorer's bare name)
/// on one scored turn; `None` for an unknown scorer.
pub fn turn_verdict(t: &TurnScore, scorer: &str) -> Option<bool> {
    verdict_of(t, canonical_scorer(scorer)?)
}

/// The verdict of one of [`QA_COMPARE_SCORERS`] on one scored turn.
fn verdict_of(t: &TurnScore, s: &Scorer) -> Option<bool> {
    verdict_at(t, flag_at(s)?)
}

/// Where a scorer's flag sits in a turn's scores: found once per scorer, not per turn (by name,
/// as [`doc::AnswerVerdict::flag`] and [`fa2::Fa2Verdict::flag`] find it).
#[derive(Debug, Clone, Copy)]
enum FlagAt {
    Doc(usize),
    Fa2(usize),
}

fn flag_at(s: &Scorer) -> Option<FlagAt> {
    if s.version() == doc::VERSION {
        doc::ANSWER_SCORERS
            .iter()
            .position(|x| x.name() == s.name())
            .map(FlagAt::Doc)
    } else {
        fa2::SCORERS
            .iter()
            .position(|x| x.id == s.id)
            .map(FlagAt::Fa2)
    }
}

fn verdict_at(t: &TurnScore, at: FlagAt) -> Option<bool> {
    match at {
        FlagAt::Doc(i) => t.answer.flags().get(i).copied(),
        FlagAt::Fa2(i) => t.fa2.flags().get(i).copied(),
    }
}

/// The comparison scorer `s` names: its full `name@version`, or a doc-v1 scorer's bare name
/// (`numerical_match` is `numerical_match@doc-v1`); `None` when it is not one of
/// [`QA_COMPARE_SCORERS`].
pub fn canonical_scorer(s: &str) -> Option<&'static Scorer> {
    QA_COMPARE_SCORERS
        .into_iter()
        .find(|full| full.id == s || (full.version() == doc::VERSION && full.name() == s))
}

/// The judges a run offers ([`crate::family_run::FamilyRun::judge_choices`]): each of
/// [`QA_COMPARE_SCORERS`] that read every turn of the run (a financial-agent-2 scorer reads
/// none under the doc profile), the profile's own ([`default_scorer`]) first with the run's
/// headline; the others with the turns they accept of all turns (a turn of a conversation that
/// failed as a whole reads wrong), as a comparison judged by them counts. Empty when only one
/// reads the run.
pub fn judge_choices(run: &ScoredQaRun) -> Vec<crate::run_table::JudgeChoice> {
    use crate::family_run::FamilyRun;
    let own = default_scorer(run.config.profile);
    let mut scorers: Vec<&'static Scorer> = QA_COMPARE_SCORERS
        .into_iter()
        .filter(|s| match flag_at(s) {
            Some(at) => run.turns.iter().all(|t| verdict_at(t, at).is_some()),
            None => run.turns.is_empty(),
        })
        .collect();
    if let Some(i) = scorers.iter().position(|s| s.id == own) {
        let s = scorers.remove(i);
        scorers.insert(0, s);
    }
    if scorers.len() < 2 {
        return Vec::new();
    }
    scorers
        .into_iter()
        .map(|s| {
            let label = format!("{} ({})", s.name(), s.version());
            let headline = if s.id == own {
                run.headline()
            } else {
                let at = flag_at(s);
                let correct = run
                    .turns
                    .iter()
                    .filter(|t| at.and_then(|at| verdict_at(t, at)) == Some(true))
                    .count();
                MetricValue::rate(
                    s.name(),
                    &label,
                    crate::stats::Rate::new(correct as u64, run.turns.len() as u64),
                )
            };
            crate::run_table::JudgeChoice {
                judge: s.id.to_string(),
                label,
                task: None,
                headline,
            }
        })
        .collect()
}

/// The ids of [`QA_COMPARE_SCORERS`], comma-separated.
fn compare_scorer_list() -> String {
    let ids: Vec<&str> = QA_COMPARE_SCORERS.iter().map(|s| s.id).collect();
    ids.join(", ")
}

/// Why a comparison cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QaCompareError {
    #[error("unknown scorer {0:?} (one of {list})", list = compare_scorer_list())]
    UnknownScorer(String),
}

/// The primary scorer of a profile: what a comparison judges turns by unless told otherwise.
pub fn default_scorer(profile: Profile) -> &'static str {
    match profile {
        Profile::Doc => doc::NUMERICAL.id,
        Profile::Fa2 => fa2::NUMERICAL.id,
    }
}

fn shown_answer(conv: &QaConversation, turn: &QaTurn) -> String {
    match (&conv.failure, &turn.predicted) {
        (Some(f), None) => failed_answer(f),
        _ => answer_text(turn.predicted.as_ref()),
    }
}

fn failed_answer(reason: &str) -> String {
    format!("(conversation failed: {reason})")
}

/// One run's turns sorted by (conversation id, turn index), each key once, judged by one
/// scorer. The order is indices into the run's turns: 4 bytes a turn (a 1M-turn side of
/// (key, side) pairs was 64 MB).
struct Sides<'a> {
    run: &'a ScoredQaRun,
    order: &'a [u32],
    /// Each turn's verdict under the scorer, by its index in the run (judged once).
    verdicts: Vec<bool>,
}

/// The conversation and turn of `run.turns[i]`.
fn locate(run: &ScoredQaRun, i: u32) -> Option<(&QaConversation, &QaTurn, &TurnScore)> {
    let t = run.turns.get(i as usize)?;
    let conv = run.run.conversations.get(t.conv as usize)?;
    Some((conv, conv.turns.get(t.turn as usize)?, t))
}

impl Sides<'_> {
    fn turn(&self, at: usize) -> Option<(&QaConversation, &QaTurn)> {
        let (conv, turn, _) = locate(self.run, *self.order.get(at)?)?;
        Some((conv, turn))
    }
}

impl JudgedItems for Sides<'_> {
    fn len(&self) -> usize {
        self.order.len()
    }
    fn key(&self, at: usize) -> ItemKey {
        self.turn(at)
            .map(|(conv, turn)| ItemKey::text_index(&conv.id, turn.turn_idx.into()))
            .unwrap_or_default()
    }
    fn verdict(&self, at: usize) -> Option<bool> {
        let i = *self.order.get(at)?;
        Some(self.verdicts.get(i as usize).copied().unwrap_or(false))
    }
    fn expected(&self, at: usize) -> Option<String> {
        self.turn(at).map(|(_, turn)| turn.expected.display())
    }
    fn answer(&self, at: usize) -> Option<String> {
        self.turn(at).map(|(conv, turn)| shown_answer(conv, turn))
    }
    fn key_order(&self) -> Option<&[u32]> {
        Some(self.order)
    }
    fn context(&self, at: usize) -> Option<ItemContext> {
        let (conv, turn, t) = locate(self.run, *self.order.get(at)?)?;
        Some(turn_context(self.run, conv, turn, t))
    }
}

/// How two numeric QA runs compare (docs/scoring.md, "Comparing two runs"): turns pair on
/// (conversation id, turn index), in conversation-id then numeric turn order; each turn is
/// judged by the asked scorer, or by the baseline's profile's primary scorer
/// ([`default_scorer`]); a (conversation, turn) key seen twice in one run is a warning and its
/// first turn is compared; a turn of a conversation that failed as a whole is a wrong turn, also
/// when the failed run has no record of that turn while the other run has one, and it is listed
/// as a failed item.
impl FamilyCompare for ScoredQaRun {
    type Judge = &'static Scorer;

    fn judge_pair(
        baseline: &Self,
        candidate: &Self,
        asked: Option<&str>,
    ) -> Result<PairJudge<&'static Scorer>, String> {
        let asked = asked.unwrap_or(default_scorer(baseline.config.profile));
        let scorer = canonical_scorer(asked)
            .ok_or_else(|| QaCompareError::UnknownScorer(asked.into()).to_string())?;
        let note = (baseline.config.profile != candidate.config.profile).then(|| {
            format!(
                "The runs were scored under different profiles ({} vs {}); both are judged by {}.",
                baseline.config.profile.name(),
                candidate.config.profile.name(),
                scorer.id
            )
        });
        Ok(PairJudge {
            judge: scorer,
            scorer: scorer.id.to_string(),
            judged_by: judged_by(scorer.id),
            warnings: note.into_iter().collect(),
            note: None,
        })
    }

    fn judged(&self, scorer: &&'static Scorer, side: Side) -> Result<Judged<'_>, String> {
        let unknown = || QaCompareError::UnknownScorer(scorer.id.into()).to_string();
        let at = flag_at(scorer);
        let mut verdicts = Vec::with_capacity(self.turns.len());
        for t in &self.turns {
            verdicts.push(at.and_then(|at| verdict_at(t, at)).ok_or_else(unknown)?);
        }
        let keys = self.key_order.get_or_init(|| key_order(self));
        let warnings = keys
            .repeated
            .iter()
            .map(|((conv, turn), n)| {
                format!(
                    "{} {}: conversation {conv:?} turn {turn} appears {n} times; the first is \
                     compared",
                    side.name(),
                    self.run.name
                )
            })
            .collect();
        let failed: BTreeMap<&str, &str> = self
            .run
            .conversations
            .iter()
            .filter_map(|c| Some((c.id.as_str(), c.failure.as_deref()?)))
            .collect();
        Ok(Judged {
            items: Box::new(Sides {
                run: self,
                order: &keys.order,
                verdicts,
            }),
            failed: failed
                .into_iter()
                .map(|(id, reason)| FailedGroup {
                    key: ItemKey::text(id),
                    reason: reason.to_string(),
                    answer: failed_answer(reason),
                })
                .collect(),
            warnings,
        })
    }
}

/// Builds the run's key order now, if not yet ([`key_order`]).
pub(crate) fn index(run: &ScoredQaRun) {
    run.key_order.get_or_init(|| key_order(run));
}

/// The run's turns in key order: each turn's key looked up once, borrowed (it orders as its
/// `ItemKey` does), then sorted with the first turn of a repeated key kept. Computed once per
/// run ([`ScoredQaRun::key_order`]): the sort is most of judging a run.
fn key_order(run: &ScoredQaRun) -> KeyOrder {
    let mut keyed: Vec<((&str, u32), u32)> = (0..run.turns.len())
        .map_while(|i| u32::try_from(i).ok())
        .filter_map(|i| {
            let (conv, turn, _) = locate(run, i)?;
            Some(((conv.id.as_str(), turn.turn_idx), i))
        })
        .collect();
    // (key, turn) pairs are unique: an unstable sort puts them in the stable order, and
    // `sort_unique`'s stable sort then meets sorted input (one linear pass).
    keyed.sort_unstable();
    let repeated = sort_unique(&mut keyed)
        .into_iter()
        .map(|((conv, turn), n)| ((conv.to_string(), turn), n))
        .collect();
    KeyOrder {
        order: keyed.into_iter().map(|(_, i)| i).collect(),
        repeated,
    }
}

/// How two numeric QA runs' turns are joined and judged, in a sentence.
pub fn judged_by(scorer: &str) -> String {
    format!(
        "turns joined on conversation id + turn index, judged by {scorer}; turns of failed \
         conversations (e.g. evaluation timeouts) count as wrong"
    )
}

/// The run's rates, tokens and cost, in the order a comparison shows them.
pub fn metrics(s: &ScoredQaRun) -> Vec<MetricValue> {
    metrics_of(&statistics::statistics(s))
}

/// [`metrics`] from the run's statistics, already computed.
pub fn metrics_of(st: &statistics::Statistics) -> Vec<MetricValue> {
    let m = |key: &str, label: &str, v: Option<f64>| MetricValue::new(key, label, Unit::Rate, v);
    vec![
        m(
            "numerical_accuracy",
            "Numerical accuracy",
            st.numerical_accuracy,
        ),
        m(
            "exact_match_accuracy",
            "Exact match",
            st.exact_match_accuracy,
        ),
        m(
            "conversation_level_accuracy",
            "Conversation-level accuracy",
            st.conversation_level_accuracy,
        ),
        m("error_rate", "Error rate", st.error_rate),
        MetricValue::new(
            "total_tokens",
            "Tokens",
            Unit::Count,
            st.total_tokens.map(|t| t as f64),
        ),
        MetricValue::new("total_cost_usd", "Cost", Unit::Usd, st.total_cost_usd),
        MetricValue::new(
            "cost_per_correct_answer_usd",
            "Cost per correct conversation",
            Unit::Usd,
            st.cost_per_correct_answer_usd,
        ),
    ]
}

/// The conversation type (category) and question of every turn, by `[conversation id, turn]`;
/// its fields: category, turn (index) and operations (the plan's, per turn).
pub fn item_context(s: &ScoredQaRun, out: &mut ItemContexts) {
    for i in (0..s.turns.len()).map_while(|i| u32::try_from(i).ok()) {
        let Some((conv, turn, t)) = locate(s, i) else {
            continue;
        };
        out.entry(ItemKey::text_index(&conv.id, turn.turn_idx.into()))
            .or_insert_with(|| turn_context(s, conv, turn, t));
    }
}

/// One turn's context ([`item_context`]), with its usage ([`turn_usage`]).
fn turn_context(
    s: &ScoredQaRun,
    conv: &QaConversation,
    turn: &QaTurn,
    t: &TurnScore,
) -> ItemContext {
    let mut fields = Vec::with_capacity(3);
    if let Some(c) = &conv.conversation_type {
        fields.push(("category".to_string(), c.clone()));
    }
    fields.push(("turn".to_string(), turn.turn_idx.to_string()));
    if let Some(o) = t.operations_per_turn {
        fields.push(("operations".to_string(), o.to_string()));
    }
    ItemContext {
        category: conv.conversation_type.clone(),
        question: Some(turn.question.clone()),
        fields,
        usage: turn_usage(s, conv, turn),
    }
}

/// A turn's tokens (prompt as input, completion as output, as the run's cost reads them), its
/// latency, its cost under the run's price table, and the verdicts the original system wrote
/// (as JSON under their names in the source).
fn turn_usage(s: &ScoredQaRun, conv: &QaConversation, turn: &QaTurn) -> ItemUsage {
    let o = &turn.original;
    let mut scores = serde_json::Map::new();
    for (name, v) in o.flags() {
        if let Some(v) = v {
            scores.insert(name.into(), v.into());
        }
    }
    if let Some(r) = o.logic_recall.and_then(serde_json::Number::from_f64) {
        scores.insert("logic_recall".into(), r.into());
    }
    if let Some(n) = o.operations_per_turn {
        scores.insert("operations_per_turn".into(), n.into());
    }
    ItemUsage {
        tokens: statistics::token_split(&turn.tokens),
        latency_ms: turn.latency_ms.filter(|x| x.is_finite()),
        cost_usd: statistics::turn_cost(&s.config.prices, conv, turn),
        source_scores: (!scores.is_empty()).then(|| serde_json::Value::Object(scores).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{CompareOptions, Flip};
    use crate::family_run::{judge_and_join, Joined};

    fn compare_qa_runs(
        b: &ScoredQaRun,
        c: &ScoredQaRun,
        scorer: Option<&str>,
        opts: &CompareOptions,
    ) -> Result<Joined, String> {
        judge_and_join(b, c, scorer, opts)
    }
    use crate::numeric_qa::model::{QaConversation, QaRun, QaTurn, RawValue};
    use crate::numeric_qa::score::{score_qa_run, ScoreConfig};

    /// (conversation id, failure, [(expected, predicted)]).
    type Conv<'a> = (&'a str, Option<&'a str>, &'a [(&'a str, Option<&'a str>)]);

    fn run(name: &str, convs: &[Conv]) -> ScoredQaRun {
        let conversations = convs
            .iter()
            .map(|(id, failure, turns)| QaConversation {
                id: (*id).into(),
                failure: failure.map(Into::into),
                turns: turns
                    .iter()
                    .enumerate()
                    .map(|(i, (e, a))| QaTurn {
                        turn_idx: i as u32,
                        expected: RawValue::Str((*e).into()),
                        predicted: a.map(|a| RawValue::Str(a.into())),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        score_qa_run(
            QaRun {
                name: name.into(),
                conversations,
                ..Default::default()
            },
            &ScoreConfig::default(),
        )
    }

    #[test]
    fn pairs_flips_and_failed_conversations() {
        let base = run(
            "base",
            &[
                ("c1", None, &[("10", Some("10")), ("5%", Some("0.05"))]),
                ("c2", None, &[("3", Some("4"))]),
                ("c3", None, &[("1", Some("1"))]),
            ],
        );
        let cand = run(
            "cand",
            &[
                ("c1", None, &[("10", Some("11")), ("5%", Some("5%"))]),
                ("c2", None, &[("3", Some("3.001"))]),
                ("c3", Some("evaluation timeout"), &[("1", None)]),
                ("c4", None, &[("2", Some("2"))]),
            ],
        );
        let cmp = compare_qa_runs(
            &base,
            &cand,
            Some("numerical_match@doc-v1"),
            &Default::default(),
        )
        .unwrap();
        let f = cmp.stats.flips;
        assert_eq!(
            (
                f.regressed,
                f.improved,
                f.unchanged_correct,
                f.unchanged_wrong,
                f.only_in_candidate
            ),
            (2, 1, 1, 0, 1)
        );
        let keys: Vec<_> = cmp.stats.pairs.iter().map(|p| p.key.to_string()).collect();
        assert_eq!(keys, ["c1 / 0", "c1 / 1", "c2 / 0", "c3 / 0", "c4 / 0"]);
        assert_eq!(cmp.failed_items.len(), 1);
        assert_eq!(cmp.failed_items[0].key, ItemKey::text_index("c3", 0));
        assert_eq!(cmp.failed_items[0].reason, "evaluation timeout");
    }

    #[test]
    fn changed_texts_only_keeps_every_number_and_the_changed_items_texts() {
        let base = run(
            "base",
            &[
                ("c1", None, &[("10", Some("10")), ("5", Some("5"))]),
                ("c2", None, &[("3", Some("4"))]),
                ("c0", None, &[("7", Some("7")), ("7", Some("7"))]),
            ],
        );
        let cand = run(
            "cand",
            &[
                ("c2", None, &[("3", Some("3"))]),
                ("c1", None, &[("10", Some("11")), ("5", Some("5"))]),
                ("c9", None, &[("1", Some("1"))]),
            ],
        );
        let scorer = Some("numerical_match@doc-v1");
        let all = compare_qa_runs(&base, &cand, scorer, &Default::default()).unwrap();
        let lean = CompareOptions {
            texts: crate::compare::PairTexts::Changed,
            ..Default::default()
        };
        let changed = compare_qa_runs(&base, &cand, scorer, &lean).unwrap();
        assert_eq!(all.stats.flips, changed.stats.flips);
        assert_eq!(all.stats.bootstrap, changed.stats.bootstrap);
        let keys = |c: &Joined| -> Vec<String> {
            c.stats.pairs.iter().map(|p| p.key.to_string()).collect()
        };
        // Merged in key order whatever order the runs list them in.
        assert_eq!(
            keys(&all),
            ["c0 / 0", "c0 / 1", "c1 / 0", "c1 / 1", "c2 / 0", "c9 / 0"]
        );
        assert_eq!(keys(&all), keys(&changed));
        for (a, c) in all.stats.pairs.iter().zip(&changed.stats.pairs) {
            assert_eq!((a.baseline, a.candidate), (c.baseline, c.candidate));
            if matches!(a.flip(), Flip::UnchangedCorrect | Flip::UnchangedWrong) {
                assert!(a.expected.is_some() && a.baseline_answer.is_some());
                assert_eq!((&c.expected, &c.baseline_answer), (&None, &None));
            } else {
                assert_eq!(a, c, "a changed item keeps its texts");
            }
        }
        let regressed = changed
            .stats
            .pairs
            .iter()
            .find(|p| p.flip() == Flip::Regressed);
        assert_eq!(
            regressed.map(|p| (p.key.to_string(), p.candidate_answer.clone())),
            Some(("c1 / 0".into(), Some("11".into())))
        );
    }

    #[test]
    fn scorer_choice_and_unknown_scorer() {
        let base = run("b", &[("c", None, &[("10%", Some("10"))])]);
        let cand = run("c", &[("c", None, &[("10%", Some("0.1"))])]);
        let by = |s| {
            compare_qa_runs(&base, &cand, Some(s), &Default::default())
                .unwrap()
                .stats
                .flips
        };
        assert_eq!(by("numerical_match@doc-v1").improved, 1);
        assert_eq!(by("general_match").unchanged_correct, 1);
        assert!(matches!(
            compare_qa_runs(&base, &cand, Some("nope"), &Default::default()),
            Err(e) if e.starts_with("unknown scorer \"nope\"")
        ));
    }

    #[test]
    fn compare_scorers_resolve_by_id_and_by_doc_name() {
        for s in QA_COMPARE_SCORERS {
            assert_eq!(canonical_scorer(s.id), Some(s));
        }
        let id = |s: &str| canonical_scorer(s).map(|s| s.id);
        assert_eq!(id("numerical_match"), Some("numerical_match@doc-v1"));
        assert_eq!(id("financial_match"), None);
        assert_eq!(id("logic_recall@doc-v1"), None);
        assert_eq!(default_scorer(Profile::Doc), "numerical_match@doc-v1");
        assert_eq!(
            default_scorer(Profile::Fa2),
            "numerical_match@financial-agent-2"
        );
        assert_eq!(
            QaCompareError::UnknownScorer("x".into()).to_string(),
            "unknown scorer \"x\" (one of numerical_match@doc-v1, exact_match@doc-v1, \
             soft_match@doc-v1, unit_agnostic_match@doc-v1, sign_agnostic_match@doc-v1, \
             general_match@doc-v1, numerical_match@financial-agent-2, \
             financial_match@financial-agent-2, soft_match@financial-agent-2)"
        );
    }
}
