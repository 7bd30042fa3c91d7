//! Scorers: named and versioned (`name@version`), pure functions over the canonical model.
//!
//! [`score_qa_run`] applies the selected profile to every turn of a [`QaRun`]; aggregates and
//! output DTOs are built from the resulting [`ScoredQaRun`].

pub mod doc;
pub mod fa2;
pub mod known;
pub mod logic;
pub mod why;

use serde::{Deserialize, Serialize};

use crate::family::Family;
use crate::numeric_qa::finqa_program as program;
use crate::numeric_qa::model::{QaRun, QaTurn, RawValue};
use crate::prices::PriceTable;
use crate::scorer_table::Scorer;

/// A numeric QA entry of the scorer table; `example` is expected, predicted, verdict.
const fn qa_scorer(id: &'static str, measures: &'static str, example: [&'static str; 3]) -> Scorer {
    Scorer::new(id, Family::NumericQa, measures, example)
}

/// The size of a turn's plan, listed with the doc profile's scorers in statistics.json.
pub const OPERATIONS_PER_TURN: Scorer = qa_scorer(
    "operations_per_turn@doc-v1",
    "Compute steps in the turn's plan (as recorded when the plan itself is not in the source).",
    ["(none)", "subtract, divide", "2"],
);

/// Every numeric QA scorer: the doc profile's ([`doc::ANSWER_SCORERS`], [`logic::SCORERS`],
/// [`OPERATIONS_PER_TURN`], in statistics.json's order), then financial-agent-2's
/// ([`fa2::SCORERS`]).
pub const SCORERS: &[Scorer] = &[
    doc::EXACT,
    doc::NUMERICAL,
    doc::SOFT,
    doc::UNIT_AGNOSTIC,
    doc::SIGN_AGNOSTIC,
    doc::GENERAL,
    logic::RECALL,
    logic::PRECISION,
    logic::F1,
    logic::ORDER,
    OPERATIONS_PER_TURN,
    fa2::NUMERICAL,
    fa2::FINANCIAL,
    fa2::SOFT,
];

/// Which family of rules scores the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Profile {
    /// The seed documents' definitions (`*@doc-v1`). The default everywhere.
    #[default]
    #[serde(rename = "doc")]
    Doc,
    /// Exactly what the financial-agent-2 code computes (its statistics.json and CSVs).
    #[serde(rename = "financial-agent-2")]
    Fa2,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Doc => "doc",
            Profile::Fa2 => "financial-agent-2",
        }
    }
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "doc" | "doc-v1" => Some(Profile::Doc),
            "financial-agent-2" | "fa2" => Some(Profile::Fa2),
            _ => None,
        }
    }
}

/// Everything that decides how a run is scored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScoreConfig {
    pub profile: Profile,
    pub tolerances: doc::DocTolerances,
    pub prices: PriceTable,
}

/// The verdicts of one turn under the selected profile.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnScore {
    /// Index of the conversation in `QaRun::conversations`.
    pub conv: u32,
    /// Index of the turn in that conversation's `turns`.
    pub turn: u32,
    pub answer: doc::AnswerVerdict,
    /// The financial-agent-2 verdicts (always computed: the dashboard shows both).
    pub fa2: fa2::Fa2Verdict,
    pub logic: logic::LogicScores,
    /// Compute steps in the plan (or as recorded when the plan itself is not in the source).
    pub operations_per_turn: Option<u32>,
    /// The turn belongs to a conversation that failed as a whole (no real turn record).
    pub from_failed_conversation: bool,
}

impl TurnScore {
    /// The primary verdict: numerical match under the selected profile.
    pub fn correct(&self, profile: Profile) -> bool {
        verdict(profile, &self.answer, &self.fa2)
    }
}

/// A scored run: the run itself plus one [`TurnScore`] per turn (same order as the turns).
#[derive(Debug, Clone)]
pub struct ScoredQaRun {
    pub run: QaRun,
    pub config: ScoreConfig,
    pub turns: Vec<TurnScore>,
    /// The turns in key order, computed on first use and kept: what every comparison and the
    /// verdicts join on ([`crate::numeric_qa::compare`]); a run is not changed once scored.
    pub(crate) key_order: std::sync::OnceLock<KeyOrder>,
    /// Its statistics under the doc definitions, computed on first use and kept by the
    /// statistics module (`aggregate::doc::statistics_with_sizes`), which alone knows their type
    /// (so this module names no module that names it).
    pub(crate) statistics: std::sync::OnceLock<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
    /// What the run is (`FamilyRun::meta`), read once.
    pub(crate) meta: std::sync::OnceLock<crate::run_meta::RunMeta>,
}

/// A run's turns sorted by (conversation id, turn index), the first turn of a key seen more than
/// once kept, and each such key with how many times it was seen.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyOrder {
    pub order: Vec<u32>,
    pub repeated: Vec<((String, u32), usize)>,
}

impl ScoredQaRun {
    /// `run` scored under `cfg`: `turns`, one per turn in the run's order.
    fn of_turns(run: QaRun, cfg: &ScoreConfig, turns: Vec<TurnScore>) -> ScoredQaRun {
        ScoredQaRun {
            run,
            config: cfg.clone(),
            turns,
            key_order: Default::default(),
            statistics: Default::default(),
            meta: Default::default(),
        }
    }
}

/// The primary verdict of a turn's scores under `profile` ([`TurnScore::correct`]).
pub fn verdict(profile: Profile, answer: &doc::AnswerVerdict, fa2: &fa2::Fa2Verdict) -> bool {
    match profile {
        Profile::Doc => answer.numerical_match,
        Profile::Fa2 => fa2.numerical,
    }
}

/// Scores one turn under every scorer (cheap enough to do all of them at once).
/// What [`score_turn`] gives of a turn: its answer's verdicts under the doc and
/// financial-agent-2 rules, its program's scores, and its compute steps.
pub type TurnParts = (
    doc::AnswerVerdict,
    fa2::Fa2Verdict,
    logic::LogicScores,
    Option<u32>,
);

pub fn score_turn(turn: &QaTurn, cfg: &ScoreConfig) -> TurnParts {
    score_turn_with(turn, cfg, &mut logic::Scratch::default())
}

/// [`score_turn`] with reusable buffers, so scoring a run allocates nothing per turn (besides a
/// verdict's reason).
fn score_turn_with<'a>(
    turn: &'a QaTurn,
    cfg: &ScoreConfig,
    scratch: &mut logic::Scratch<'a>,
) -> TurnParts {
    let answer = doc::score_answer(&turn.expected, turn.predicted.as_ref(), &cfg.tolerances);
    let fa2v = fa2::calculate_accuracy(&turn.expected, turn.predicted.as_ref());
    // The plan's compute operations in plan order (as `Plan::compute_operations`).
    let plan = turn.plan.as_ref().map(|p| {
        p.steps
            .iter()
            .filter(|s| s.is_compute())
            .filter_map(|s| s.operation.as_deref())
            .filter(|op| !op.is_empty())
    });
    let gt_ops = turn
        .ground_truth_program
        .as_deref()
        .map(|p| program::operations_iter(p).map(|op| op.name()));
    let logic = logic::score_with(scratch, gt_ops, plan);
    let ops = turn
        .plan
        .as_ref()
        .map(|p| p.n_compute_steps())
        .or(turn.original.operations_per_turn);
    (answer, fa2v, logic, ops)
}

/// Scores every turn of a run. Pure and deterministic; the run is moved into the result.
pub fn score_qa_run(run: QaRun, cfg: &ScoreConfig) -> ScoredQaRun {
    score_qa_run_with_progress(run, cfg, usize::MAX, &mut |_, _| {})
}

/// [`score_qa_run`] that calls `progress(turns_done, turns_total)` every `every` turns and once
/// at the end (the worker posts progress while a big run is scored). Same result.
pub fn score_qa_run_with_progress(
    run: QaRun,
    cfg: &ScoreConfig,
    every: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> ScoredQaRun {
    let total = run.n_turns();
    let mut turns = Vec::with_capacity(total);
    let all = 0..run.conversations.len();
    score_conversations(&run, all, cfg, None, &mut turns, every, &mut |done| {
        progress(done as u64, total as u64)
    });
    progress(turns.len() as u64, total as u64);
    ScoredQaRun::of_turns(run, cfg, turns)
}

/// [`score_qa_run`] of a run whose turns `known` may hold already (a watched run rebuilt as it
/// grows; one [`known::KnownTurns`] a reader): a turn read at the place one of `known` has it, under the same tolerances, takes its kept
/// scores; only the others are scored. The same result as [`score_qa_run`] as long as `known`
/// holds each place's own turn's scores ([`known::KnownTurns`]); with how many turns were scored.
pub fn score_qa_run_known(
    run: QaRun,
    cfg: &ScoreConfig,
    known: &[std::sync::Arc<known::KnownTurns>],
) -> (ScoredQaRun, usize) {
    let mut turns = Vec::with_capacity(run.n_turns());
    let all = 0..run.conversations.len();
    let scored = score_conversations(
        &run,
        all,
        cfg,
        Some(known),
        &mut turns,
        usize::MAX,
        &mut |_| {},
    );
    (ScoredQaRun::of_turns(run, cfg, turns), scored)
}

/// [`score_qa_run`] on `threads` threads (native only; the CLI scores on every core). The
/// conversations are cut into one contiguous part per thread, of about as many turns each; each
/// part is scored with its own buffers, and the parts are joined in order, so the result is
/// exactly [`score_qa_run`]'s. Falls back to one thread when a thread fails.
#[cfg(not(target_arch = "wasm32"))]
pub fn score_qa_run_parallel(run: QaRun, cfg: &ScoreConfig, threads: usize) -> ScoredQaRun {
    let total = run.n_turns();
    let threads = threads.clamp(1, 64);
    // Below this, starting threads costs more than it saves.
    if threads == 1 || total < 4096 {
        return score_qa_run(run, cfg);
    }
    let parts = split_by_turns(&run.conversations, total, threads);
    let scored = crate::parallel::map_on_threads(&parts, threads, |(range, turns_in_part)| {
        // The first part's vector is the result: sized for every turn, so the other parts are
        // appended to it without growing (fresh memory is slow to touch on the machines this
        // runs on; one copy of the later parts is all the join costs).
        let capacity = if range.start == 0 {
            total
        } else {
            *turns_in_part
        };
        let mut turns = Vec::with_capacity(capacity);
        score_conversations(
            &run,
            range.clone(),
            cfg,
            None,
            &mut turns,
            usize::MAX,
            &mut |_| {},
        );
        turns
    });
    let Some(scored) = scored else {
        return score_qa_run(run, cfg);
    };
    let mut parts = scored.into_iter();
    let mut turns = parts.next().unwrap_or_default();
    for mut part in parts {
        turns.append(&mut part);
    }
    ScoredQaRun::of_turns(run, cfg, turns)
}

/// `convs` (of `total` turns) cut into at most `parts` contiguous, non-empty ranges of about as
/// many turns each, with the turns in each.
#[cfg(not(target_arch = "wasm32"))]
fn split_by_turns(
    convs: &[crate::numeric_qa::model::QaConversation],
    total: usize,
    parts: usize,
) -> Vec<(std::ops::Range<usize>, usize)> {
    let per_part = total.div_ceil(parts.max(1)).max(1);
    let mut out = Vec::with_capacity(parts);
    let (mut start, mut in_part) = (0, 0);
    for (i, c) in convs.iter().enumerate() {
        in_part += c.turns.len();
        if in_part >= per_part {
            out.push((start..i + 1, in_part));
            (start, in_part) = (i + 1, 0);
        }
    }
    if start < convs.len() {
        out.push((start..convs.len(), in_part));
    }
    out
}

/// Scores the turns of the conversations in `range` onto `turns` (a turn `known` holds under
/// `cfg` taken from it, not scored again), calling `progress(turns.len())` every `every` turns.
/// How many turns were scored.
fn score_conversations(
    run: &QaRun,
    range: std::ops::Range<usize>,
    cfg: &ScoreConfig,
    known: Option<&[std::sync::Arc<known::KnownTurns>]>,
    turns: &mut Vec<TurnScore>,
    every: usize,
    progress: &mut dyn FnMut(usize),
) -> usize {
    let every = every.max(1);
    let mut scratch = logic::Scratch::default();
    let mut scored = 0;
    let convs = run.conversations.get(range.clone()).unwrap_or_default();
    // The file looked up last: a file's turns come together.
    let mut file: Option<(&std::sync::Arc<str>, Option<known::KnownFile>)> = None;
    for (ci, conv) in (range.start..).zip(convs) {
        let failed = conv.failure.is_some();
        for (ti, turn) in conv.turns.iter().enumerate() {
            let kept = known.and_then(|k| {
                let of = &turn.source.file;
                let in_file = match file {
                    Some((f, in_file)) if std::sync::Arc::ptr_eq(f, of) => in_file,
                    _ => {
                        let in_file = k.iter().find_map(|k| k.of_file(of, &cfg.tolerances));
                        file = Some((of, in_file));
                        in_file
                    }
                };
                in_file?.get(turn)
            });
            let (answer, fa2v, logic, ops) = match kept {
                Some(parts) => parts.clone(),
                None => {
                    scored += 1;
                    score_turn_with(turn, cfg, &mut scratch)
                }
            };
            turns.push(TurnScore {
                conv: ci as u32,
                turn: ti as u32,
                answer,
                fa2: fa2v,
                logic,
                operations_per_turn: ops,
                from_failed_conversation: failed,
            });
            if turns.len().is_multiple_of(every) {
                progress(turns.len());
            }
        }
    }
    scored
}

/// Display text of an answer for tables and CSVs (empty for a missing prediction).
pub fn answer_text(v: Option<&RawValue>) -> String {
    v.map(RawValue::display).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric_qa::read as pipeline;
    use crate::{InputFile, RunInput};

    fn run(text: &str) -> QaRun {
        let input = RunInput::new(
            "r".to_string(),
            vec![InputFile::new(
                "r/a.jsonl".to_string(),
                text.as_bytes().to_vec(),
            )],
        );
        pipeline::load_qa_run(&input, None).expect("readable")
    }

    /// Scores of a run turn by turn with [`score_turn`] (no shared buffers): the reference.
    fn turn_by_turn(run: &QaRun, cfg: &ScoreConfig) -> Vec<TurnScore> {
        let mut out = Vec::new();
        for (ci, conv) in run.conversations.iter().enumerate() {
            for (ti, turn) in conv.turns.iter().enumerate() {
                let (answer, fa2, logic, ops) = score_turn(turn, cfg);
                out.push(TurnScore {
                    conv: ci as u32,
                    turn: ti as u32,
                    answer,
                    fa2,
                    logic,
                    operations_per_turn: ops,
                    from_failed_conversation: conv.failure.is_some(),
                });
            }
        }
        out
    }

    #[test]
    fn the_table_lists_every_group_once_in_order() {
        let groups: Vec<Scorer> = doc::ANSWER_SCORERS
            .into_iter()
            .chain(logic::SCORERS)
            .chain([OPERATIONS_PER_TURN])
            .chain(fa2::SCORERS)
            .collect();
        assert_eq!(SCORERS, &groups[..]);
    }

    /// Every scorer's example, scored: the verdict the table gives.
    #[test]
    fn examples_in_the_table_are_what_the_scorers_give() {
        let answer =
            |text: &str| RawValue::from_json(&serde_json::from_str(text).expect("a JSON answer"));
        fn ops(text: &str) -> Vec<&str> {
            text.split(',')
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .collect()
        }
        for s in SCORERS {
            let e = &s.example;
            let got = if let Some(i) = logic::SCORERS.iter().position(|x| x == s) {
                let l = logic::score(Some(&ops(e.expected)), Some(&ops(e.predicted)));
                let v = [l.recall, l.precision, l.f1, l.order][i].expect("computable");
                format!("{}", (v * 1000.0).round() / 1000.0)
            } else if *s == OPERATIONS_PER_TURN {
                ops(e.predicted).len().to_string()
            } else if let Some(v) =
                fa2::calculate_accuracy(&answer(e.expected), Some(&answer(e.predicted))).flag(s.id)
            {
                v.to_string()
            } else {
                let v = doc::score_answer(
                    &answer(e.expected),
                    Some(&answer(e.predicted)),
                    &doc::DocTolerances::default(),
                );
                v.flag(s.name()).expect("an answer scorer").to_string()
            };
            assert_eq!(got, e.verdict, "{}: {e:?}", s.id);
        }
    }

    fn check(text: &str, every: usize, calls: usize) {
        let cfg = ScoreConfig::default();
        let want = turn_by_turn(&run(text), &cfg);
        assert_eq!(score_qa_run(run(text), &cfg).turns, want);
        let mut seen = Vec::new();
        let got = score_qa_run_with_progress(run(text), &cfg, every, &mut |d, t| seen.push((d, t)));
        assert_eq!(got.turns, want);
        assert_eq!(seen.len(), calls, "{seen:?}");
        assert_eq!(seen.last().map(|s| s.0), Some(want.len() as u64));
    }

    #[test]
    fn progress_and_shared_buffers_change_no_score() {
        let lines = [
            r#"{"conversation_id":"a","turn_idx":0,"question":"q","expected":"5%","predicted":0.05,"plan_operations":["add","divide"],"ground_truth_program":"add(1, 2), divide(#0, 3)"}"#,
            r#"{"conversation_id":"a","turn_idx":1,"question":"q","expected":"1,200","predicted":"-1200","plan_operations":["subtract"],"ground_truth_program":"subtract(5, 3)"}"#,
            r#"{"conversation_id":"b","turn_idx":0,"question":"q","expected":"NaN","predicted":null}"#,
            r#"{"conversation_id":"c","conversation_error":"timeout"}"#,
        ]
        .join("\n");
        check(&lines, 2, 2);
        check(&lines, 1, 4);
        check(&lines, 0, 4);
        check(&lines, 100, 1);
    }

    /// A JSONL run of at least `min_turns` turns: conversation `c` has `len(c)` turns, and a
    /// failed conversation follows every `failed_every`-th one. Returns the text and its turns.
    fn jsonl_run(
        min_turns: usize,
        len: impl Fn(usize) -> usize,
        failed_every: usize,
    ) -> (String, usize) {
        let mut lines = Vec::new();
        let (mut n, mut c) = (0, 0);
        while n < min_turns {
            for t in 0..len(c) {
                lines.push(format!(
                    r#"{{"conversation_id":"c{c}","turn_idx":{t},"question":"q","expected":"{n}","predicted":{},"plan_operations":["add"],"ground_truth_program":"add(1, {n})"}}"#,
                    if n % 3 == 0 { n + 1 } else { n }
                ));
                n += 1;
            }
            if c % failed_every == 0 {
                lines.push(format!(
                    r#"{{"conversation_id":"f{c}","conversation_error":"timeout"}}"#
                ));
            }
            c += 1;
        }
        (lines.join("\n"), n)
    }

    #[test]
    fn scoring_on_threads_is_scoring_in_order() {
        // 9 000+ turns (past the one-thread cut-off) in conversations of 1–9 turns, with failed
        // (empty) conversations between and one long conversation in the middle.
        let (text, _) = jsonl_run(9000, |c| if c == 700 { 3000 } else { 1 + c % 9 }, 5);
        let cfg = ScoreConfig::default();
        let want = turn_by_turn(&run(&text), &cfg);
        for threads in [0, 1, 2, 3, 7, 1000] {
            let got = score_qa_run_parallel(run(&text), &cfg, threads);
            assert_eq!(got.turns.len(), want.len(), "{threads} threads");
            assert!(got.turns == want, "{threads} threads");
            assert_eq!(got.run, run(&text));
        }
    }

    #[test]
    fn conversations_split_into_contiguous_parts_of_about_as_many_turns() {
        // The ranges of conversations of `lens` turns cut into `parts`; the turns counted in
        // each part must be the turns in its range.
        let split = |lens: &[usize], parts: usize| -> Vec<std::ops::Range<usize>> {
            let convs: Vec<crate::numeric_qa::model::QaConversation> = lens
                .iter()
                .map(|&n| crate::numeric_qa::model::QaConversation {
                    turns: vec![QaTurn::default(); n],
                    ..Default::default()
                })
                .collect();
            let cut = split_by_turns(&convs, lens.iter().sum(), parts);
            for (range, turns) in &cut {
                assert_eq!(
                    *turns,
                    lens[range.clone()].iter().sum::<usize>(),
                    "{lens:?}"
                );
            }
            cut.into_iter().map(|(range, _)| range).collect()
        };
        assert_eq!(split(&[], 2), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(split(&[0, 0], 2), vec![0..2]);
        assert_eq!(split(&[2, 2, 2, 2], 2), vec![0..2, 2..4]);
        assert_eq!(split(&[2, 2, 2, 2, 0], 2), vec![0..2, 2..4, 4..5]);
        assert_eq!(split(&[1, 1, 1], 5), vec![0..1, 1..2, 2..3]);
        assert_eq!(split(&[1, 10, 1], 2), vec![0..2, 2..3]);
        assert_eq!(split(&[3, 3, 3], 0), vec![0..3]);
    }

    #[test]
    fn progress_across_conversations() {
        // 2 600 turns in conversations of 1–5 turns, with empty (failed) conversations between:
        // progress points fall inside conversations.
        let (text, n) = jsonl_run(2600, |c| 1 + c % 5, 7);
        check(&text, 1000, 3 + usize::from(n % 1000 == 0));
        check(&text, 1024, 3 + usize::from(n % 1024 == 0));
        check(&text, 100_000, 1);
    }
}
