//! Run comparison for multi-turn numeric QA runs: pairs two scored runs turn by turn on
//! (conversation id, turn index) and hands the pairs to [`crate::compare`].
//!
//! Each turn is judged by one answer scorer, the profile's primary scorer ([`default_scorer`])
//! unless the caller picks another ([`QA_COMPARE_SCORERS`]). Turns of a conversation that failed as a whole (e.g. an
//! evaluation timeout) are real, wrong turns here, as in the doc profile's statistics; they are
//! also listed as `failed_items` so a reader can tell them from wrong answers.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::{
    compare_pairs, CompareOptions, FlipCounts, ItemContext, ItemContexts, PairedComparison,
    PairedItem, Unit,
};
use crate::numeric_qa::aggregate::doc as statistics;
use crate::numeric_qa::model::{QaConversation, QaTurn};
use crate::numeric_qa::score::{answer_text, doc, fa2, Profile, ScoredQaRun, TurnScore};
use crate::run_table::MetricValue;
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
    if s.version() == doc::VERSION {
        t.answer.flag(s.name())
    } else {
        t.fa2.flag(s.id)
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

/// The ids of [`QA_COMPARE_SCORERS`], comma-separated.
fn compare_scorer_list() -> String {
    let ids: Vec<&str> = QA_COMPARE_SCORERS.iter().map(|s| s.id).collect();
    ids.join(", ")
}

/// Flip counts and accuracies of one group of paired turns (e.g. turn 2, or
/// `has_type2_question = true`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupComparison {
    /// `turn_idx`, `has_type2_question`, `has_non_numeric_values`, `has_duplicate_columns`,
    /// `conversation_type`.
    pub dimension: String,
    pub group: String,
    pub flips: FlipCounts,
    pub n_paired: u64,
    pub baseline_accuracy: Option<f64>,
    pub candidate_accuracy: Option<f64>,
}

/// A baseline-vs-candidate comparison of two numeric QA runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QaRunComparison {
    pub baseline: String,
    pub candidate: String,
    pub scorer: String,
    /// Pairs keyed `[conversation_id, turn_idx]`, sorted by conversation id then turn index.
    pub stats: PairedComparison,
    /// Keys of turns that belong to a conversation that failed as a whole in either run, with
    /// the failure reason.
    pub failed_items: Vec<FailedItem>,
    pub by_group: Vec<GroupComparison>,
    /// Keys seen more than once in one run (the first turn is compared).
    pub warnings: Vec<String>,
    /// Why the numbers need a second look (the runs were scored under different profiles).
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedItem {
    pub key: Vec<String>,
    /// `baseline` or `candidate` (or both, as two entries).
    pub run: String,
    pub reason: String,
}

/// Why a comparison cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QaCompareError {
    #[error("unknown scorer {0:?} (one of {list})", list = compare_scorer_list())]
    UnknownScorer(String),
}

/// One run's side of a paired turn. It borrows the run: the texts a pair shows are made once,
/// when the pair is built (a 1M-turn comparison used to hold every text three times).
#[derive(Clone, Copy)]
struct Side<'a> {
    verdict: bool,
    conv: &'a QaConversation,
    /// The turn; `None` for a turn of a conversation that failed as a whole in this run and has
    /// no record of the turn (counted wrong).
    turn: Option<&'a QaTurn>,
    failure: Option<&'a str>,
}

impl Side<'_> {
    fn answer(&self) -> String {
        match (self.turn, self.failure) {
            (Some(turn), _) => shown_answer(self.conv, turn),
            (None, Some(reason)) => failed_answer(reason),
            (None, None) => String::new(),
        }
    }
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

/// The conversation-level groups a turn belongs to: (dimension, group).
fn groups_of(conv: &QaConversation) -> [(&'static str, &str); 4] {
    let flag = |b: Option<bool>| match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "unknown",
    };
    [
        ("has_type2_question", flag(conv.features.has_type2_question)),
        (
            "has_non_numeric_values",
            flag(conv.features.has_non_numeric_values),
        ),
        (
            "has_duplicate_columns",
            flag(conv.features.has_duplicate_columns),
        ),
        (
            "conversation_type",
            conv.conversation_type.as_deref().unwrap_or("unknown"),
        ),
    ]
}

/// One run's turns sorted by (conversation id, turn index), each key once (the first turn of
/// a key seen twice, with a warning), and the conversations that failed as a whole. The order
/// is indices into the run's turns: 4 bytes a turn (a 1M-turn side of (key, side) pairs was
/// 64 MB).
struct Sides<'a> {
    run: &'a ScoredQaRun,
    order: Vec<u32>,
    /// Each turn's verdict under the scorer, by its index in the run (judged once).
    verdicts: Vec<bool>,
    failed: BTreeMap<&'a str, (&'a str, &'a QaConversation)>,
}

/// The conversation and turn of `run.turns[i]`.
fn locate(run: &ScoredQaRun, i: u32) -> Option<(&QaConversation, &QaTurn, &TurnScore)> {
    let t = run.turns.get(i as usize)?;
    let conv = run.run.conversations.get(t.conv as usize)?;
    Some((conv, conv.turns.get(t.turn as usize)?, t))
}

impl<'a> Sides<'a> {
    /// The key and side at position `at` of the order.
    fn at(&self, at: usize) -> Option<((&'a str, u32), Side<'a>)> {
        let i = *self.order.get(at)?;
        let (conv, turn, _) = locate(self.run, i)?;
        let side = Side {
            verdict: self.verdicts.get(i as usize).copied().unwrap_or(false),
            conv,
            turn: Some(turn),
            failure: conv.failure.as_deref(),
        };
        Some(((conv.id.as_str(), turn.turn_idx), side))
    }
}

fn sides<'a>(
    run: &'a ScoredQaRun,
    which: &str,
    scorer: &'a Scorer,
    warnings: &mut Vec<String>,
) -> Result<Sides<'a>, QaCompareError> {
    let mut s = Sides {
        run,
        order: Vec::with_capacity(run.turns.len()),
        verdicts: Vec::with_capacity(run.turns.len()),
        failed: BTreeMap::new(),
    };
    for (i, t) in run.turns.iter().enumerate() {
        let v =
            verdict_of(t, scorer).ok_or_else(|| QaCompareError::UnknownScorer(scorer.id.into()))?;
        s.verdicts.push(v);
        let Ok(i) = u32::try_from(i) else { break };
        if locate(run, i).is_some() {
            s.order.push(i);
        }
    }
    let key = |i: u32| locate(run, i).map(|(conv, turn, _)| (conv.id.as_str(), turn.turn_idx));
    // Each turn's key looked up once, then sorted; a stable sort keeps a repeated key's turns in
    // run order: the first one stays.
    let mut keyed: Vec<((&'a str, u32), u32)> = std::mem::take(&mut s.order)
        .into_iter()
        .filter_map(|i| Some((key(i)?, i)))
        .collect();
    keyed.sort_by(|x, y| x.0.cmp(&y.0));
    let mut dup: BTreeMap<(&'a str, u32), u32> = BTreeMap::new();
    keyed.dedup_by(|later, first| {
        let same = first.0 == later.0;
        if same {
            *dup.entry(first.0).or_insert(1) += 1;
        }
        same
    });
    let order: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
    for ((conv, turn), n) in dup {
        warnings.push(format!(
            "{which} {}: conversation {conv:?} turn {turn} appears {n} times; the first is compared",
            run.run.name
        ));
    }
    s.order = order;
    s.failed = run
        .run
        .conversations
        .iter()
        .filter_map(|c| Some((c.id.as_str(), (c.failure.as_deref()?, c))))
        .collect();
    Ok(s)
}

/// The side of a key a run has no turn for: a wrong turn when the run's conversation failed as
/// a whole (every turn of it failed), else absent.
fn missing_side<'a>(s: &Sides<'a>, conv: &str) -> Option<Side<'a>> {
    let (reason, c) = s.failed.get(conv)?;
    Some(Side {
        verdict: false,
        conv: c,
        turn: None,
        failure: Some(reason),
    })
}

/// Adds one conversation's flips to each of its groups.
fn add_groups<'a>(
    groups: &mut BTreeMap<(&'static str, &'a str), FlipCounts>,
    conv: &'a QaConversation,
    flips: &FlipCounts,
) {
    for g in groups_of(conv) {
        groups.entry(g).or_default().merge(flips);
    }
}

/// Pairs `baseline` and `candidate` turn by turn and computes flips, McNemar's exact p and the
/// paired bootstrap CI of the accuracy difference, overall and per turn index and feature.
///
/// The rules (docs/scoring.md, "Comparing two runs"): turns pair on (conversation id, turn
/// index), in conversation-id then numeric turn order; each turn is judged by `scorer`, or by
/// the baseline's profile's primary scorer when `None` ([`default_scorer`]); a (conversation,
/// turn) key seen twice in one run is a warning and its first turn is compared; a turn of a
/// conversation that failed as a whole is a wrong turn, also when the failed run has no record
/// of that turn while the other run has one, and it is listed in `failed_items`.
pub fn compare_qa_runs(
    baseline: &ScoredQaRun,
    candidate: &ScoredQaRun,
    scorer: Option<&str>,
    opts: &CompareOptions,
) -> Result<QaRunComparison, QaCompareError> {
    let asked = scorer.unwrap_or(default_scorer(baseline.config.profile));
    let scorer =
        canonical_scorer(asked).ok_or_else(|| QaCompareError::UnknownScorer(asked.into()))?;
    let mut warnings = Vec::new();
    let b = sides(baseline, "baseline", scorer, &mut warnings)?;
    let c = sides(candidate, "candidate", scorer, &mut warnings)?;
    let mut pairs = Vec::with_capacity(b.order.len().max(c.order.len()));
    let mut failed_items = Vec::new();
    // Flip counts per group, counted as the pairs are made (no pair is held twice).
    let mut groups: BTreeMap<(&'static str, &str), FlipCounts> = BTreeMap::new();
    let mut by_turn: BTreeMap<u32, FlipCounts> = BTreeMap::new();
    let mut conv_flips: Option<(&QaConversation, FlipCounts)> = None;
    // Both sides are sorted by key: one merge pass pairs them.
    let (mut i, mut j) = (0, 0);
    loop {
        let (k, bs, cs) = match (b.at(i), c.at(j)) {
            (None, None) => break,
            (Some((kb, x)), Some((kc, y))) if kb == kc => {
                (i, j) = (i + 1, j + 1);
                (kb, Some(x), Some(y))
            }
            (Some((kb, x)), Some((kc, _))) if kb < kc => {
                i += 1;
                (kb, Some(x), missing_side(&c, kb.0))
            }
            (Some((kb, x)), None) => {
                i += 1;
                (kb, Some(x), missing_side(&c, kb.0))
            }
            (_, Some((kc, y))) => {
                j += 1;
                (kc, missing_side(&b, kc.0), Some(y))
            }
        };
        let key = vec![k.0.to_string(), k.1.to_string()];
        for (name, s) in [("baseline", &bs), ("candidate", &cs)] {
            if let Some(reason) = s.as_ref().and_then(|s| s.failure) {
                failed_items.push(FailedItem {
                    key: key.clone(),
                    run: name.into(),
                    reason: reason.into(),
                });
            }
        }
        let mut item = PairedItem {
            key,
            baseline: bs.as_ref().map(|s| s.verdict),
            candidate: cs.as_ref().map(|s| s.verdict),
            expected: None,
            baseline_answer: None,
            candidate_answer: None,
        };
        let flip = item.flip();
        if opts.texts.keeps(flip) {
            item.expected = [bs, cs]
                .iter()
                .flatten()
                .find_map(|s| s.turn)
                .map(|t| t.expected.display());
            item.baseline_answer = bs.as_ref().map(Side::answer);
            item.candidate_answer = cs.as_ref().map(Side::answer);
        }
        by_turn.entry(k.1).or_default().count(flip);
        if let Some(s) = bs.as_ref().or(cs.as_ref()) {
            // A conversation's turns come together: its flips are counted into its groups once.
            match &mut conv_flips {
                Some((c, f)) if std::ptr::eq(*c, s.conv) => f.count(flip),
                _ => {
                    if let Some((c, f)) = conv_flips.take() {
                        add_groups(&mut groups, c, &f);
                    }
                    let mut f = FlipCounts::default();
                    f.count(flip);
                    conv_flips = Some((s.conv, f));
                }
            }
        }
        pairs.push(item);
    }
    if let Some((c, f)) = conv_flips.take() {
        add_groups(&mut groups, c, &f);
    }
    // Ordered by dimension, then group: `turn_idx` sorts after the conversation features, its
    // groups in numeric order.
    let by_group = groups
        .into_iter()
        .map(|((dimension, group), flips)| (dimension, group.to_string(), flips))
        .chain(
            by_turn
                .into_iter()
                .map(|(turn, flips)| ("turn_idx", turn.to_string(), flips)),
        )
        .map(|(dimension, group, flips)| {
            let n = flips.n_paired();
            let acc = |x: u64| (n > 0).then(|| x as f64 / n as f64);
            GroupComparison {
                group,
                dimension: dimension.to_string(),
                baseline_accuracy: acc(flips.regressed + flips.unchanged_correct),
                candidate_accuracy: acc(flips.improved + flips.unchanged_correct),
                n_paired: n,
                flips,
            }
        })
        .collect();
    // Pairs are made in (conversation id, numeric turn) order: compare_pairs keeps it.
    let stats = compare_pairs(pairs, opts);
    let note = (baseline.config.profile != candidate.config.profile).then(|| {
        format!(
            "The runs were scored under different profiles ({} vs {}); both are judged by {}.",
            baseline.config.profile.name(),
            candidate.config.profile.name(),
            scorer.id
        )
    });
    Ok(QaRunComparison {
        baseline: baseline.run.name.clone(),
        candidate: candidate.run.name.clone(),
        scorer: scorer.id.to_string(),
        stats,
        failed_items,
        by_group,
        warnings,
        note,
    })
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
    for t in &s.turns {
        let Some(conv) = s.run.conversations.get(t.conv as usize) else {
            continue;
        };
        let Some(turn) = conv.turns.get(t.turn as usize) else {
            continue;
        };
        out.entry(vec![conv.id.clone(), turn.turn_idx.to_string()])
            .or_insert_with(|| {
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
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Flip;
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
        let keys: Vec<_> = cmp.stats.pairs.iter().map(|p| p.key.join("/")).collect();
        assert_eq!(keys, ["c1/0", "c1/1", "c2/0", "c3/0", "c4/0"]);
        assert_eq!(cmp.failed_items.len(), 1);
        assert_eq!(cmp.failed_items[0].key, ["c3", "0"]);
        assert_eq!(cmp.failed_items[0].reason, "evaluation timeout");
        let t0 = cmp
            .by_group
            .iter()
            .find(|g| g.dimension == "turn_idx" && g.group == "0")
            .unwrap();
        assert_eq!(t0.n_paired, 3);
        assert_eq!(t0.baseline_accuracy, Some(2.0 / 3.0));
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
        assert_eq!(all.by_group, changed.by_group);
        assert_eq!(all.stats.flips, changed.stats.flips);
        assert_eq!(all.stats.bootstrap, changed.stats.bootstrap);
        let keys = |c: &QaRunComparison| -> Vec<String> {
            c.stats.pairs.iter().map(|p| p.key.join("/")).collect()
        };
        // Merged in key order whatever order the runs list them in.
        assert_eq!(keys(&all), ["c0/0", "c0/1", "c1/0", "c1/1", "c2/0", "c9/0"]);
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
            regressed.map(|p| (p.key.join("/"), p.candidate_answer.clone())),
            Some(("c1/0".into(), Some("11".into())))
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
            Err(QaCompareError::UnknownScorer(_))
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
