//! View models for the dashboard and the report: pure functions from a scored run to the small
//! DTOs a screen needs (overview readings, a filtered/sorted page of items, one conversation).
//! They run in the dashboard's Web Worker, so the page only ever holds one screenful of data.

use serde::{Deserialize, Serialize};

use crate::numeric_qa::aggregate::doc::{self, Statistics};
use crate::numeric_qa::finqa_program as program;
use crate::numeric_qa::model::{QaConversation, QaTurn, RawValue};
use crate::numeric_qa::score::why::why_wrong;
use crate::numeric_qa::score::{answer_text, Profile, ScoredQaRun, TurnScore};

/// One of the seed document's diagnostic readings, computed from the gap between two variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// `scaling`, `sign` or `rounding`.
    pub key: String,
    pub title: String,
    /// The gap in accuracy points (0–1 scale); `None` when either side is unavailable.
    pub gap: Option<f64>,
    /// Turns that the looser variant accepts and the stricter one rejects.
    pub turns: u64,
    pub text: String,
}

/// A wrong turn for the overview's "first wrong turns" table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrongTurn {
    pub conv: u32,
    pub turn: u32,
    pub conversation_id: String,
    pub turn_idx: u32,
    pub question: String,
    pub expected: String,
    pub predicted: String,
    /// Why the answer is wrong, in words ([`why_wrong`]).
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    pub stats: Statistics,
    pub readings: Vec<Reading>,
    pub first_wrong: Vec<WrongTurn>,
    /// Turns where the original system's numerical verdict differs from the re-scored one.
    pub disagreements: u64,
    /// Turns that carried an original numerical verdict at all.
    pub originally_scored_turns: u64,
    /// The profile the run is scored under, and (for a profile other than doc, whose numbers
    /// are `stats`) that profile's headline metrics as its own statistics.json has them.
    pub profile: Profile,
    pub profile_headline: Vec<ProfileMetric>,
    /// Label and definition of each doc-profile headline metric in the words of the run's
    /// tolerances ("Soft match (±2%)"), computed here so every screen says the same (`value`
    /// unset: the numbers are in `stats`).
    pub words: Vec<ProfileMetric>,
}

/// A headline metric of the selected profile: the engine's label and definition, the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileMetric {
    pub key: String,
    pub label: String,
    pub definition: String,
    pub value: Option<f64>,
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// Builds the overview: statistics, the three readings spelled out, and up to `n_wrong` wrong turns.
pub fn overview(s: &ScoredQaRun, n_wrong: usize) -> Overview {
    overview_with_sizes(s, n_wrong).0
}

/// [`overview`] and the sample size of each by-turn and by-operations bucket, for the charts
/// (drawn where the run is: the page never needs the sizes themselves).
pub fn overview_with_sizes(s: &ScoredQaRun, n_wrong: usize) -> (Overview, doc::BucketSizes) {
    let (stats, bucket_sizes) = doc::statistics_with_sizes(s);
    let total = s.turns.len() as u64;
    let count = |f: &dyn Fn(&TurnScore) -> bool| s.turns.iter().filter(|t| f(t)).count() as u64;
    let scaling = count(&|t| t.answer.unit_agnostic_match && !t.answer.numerical_match);
    let sign = count(&|t| t.answer.sign_agnostic_match && !t.answer.numerical_match);
    let rounding = count(&|t| t.answer.numerical_match && !t.answer.exact_match);
    let gap = |a: Option<f64>, b: Option<f64>| Some(a? - b?);
    let phrase = |n: u64, what: &str, none: &str| {
        if total == 0 {
            "No turns to compare.".to_string()
        } else if n == 0 {
            none.to_string()
        } else {
            format!(
                "{n} of {total} turns ({}%) {what}",
                pct(n as f64 / total as f64)
            )
        }
    };
    let readings = vec![
        Reading {
            key: "scaling".into(),
            title: "Unit-agnostic − numerical → scaling issues".into(),
            gap: gap(stats.unit_agnostic_accuracy, stats.numerical_accuracy),
            turns: scaling,
            text: phrase(
                scaling,
                "are right only up to a factor of 100 (percent vs fraction): the model has the magnitude but the wrong unit or scale.",
                "No scaling issues: no answer is right only up to a factor of 100.",
            ),
        },
        Reading {
            key: "sign".into(),
            title: "Sign-agnostic − numerical → sign confusion".into(),
            gap: gap(stats.sign_agnostic_accuracy, stats.numerical_accuracy),
            turns: sign,
            text: phrase(
                sign,
                "have the right magnitude with the wrong sign: direction confusion (increase vs decrease, A−B vs B−A).",
                "No sign confusion: no answer is right only in absolute value.",
            ),
        },
        Reading {
            key: "rounding".into(),
            title: "Numerical − exact → rounding".into(),
            gap: gap(stats.numerical_accuracy, stats.exact_match_accuracy),
            turns: rounding,
            text: phrase(
                rounding,
                "are accepted within tolerance but not exactly equal: rounding or precision differences, not reasoning errors.",
                "Every numerically correct answer is also exactly equal: no rounding differences.",
            ),
        },
    ];
    let mut first_wrong = Vec::new();
    for t in &s.turns {
        if first_wrong.len() >= n_wrong {
            break;
        }
        if t.correct(s.config.profile) {
            continue;
        }
        let Some((c, turn)) = lookup(s, t) else {
            continue;
        };
        first_wrong.push(WrongTurn {
            conv: t.conv,
            turn: t.turn,
            conversation_id: c.id.clone(),
            turn_idx: turn.turn_idx,
            question: turn.question.clone(),
            expected: turn.expected.display(),
            predicted: answer_text(turn.predicted.as_ref()),
            reason: why_wrong(c, turn, t, s.config.profile, &s.config.tolerances),
        });
    }
    let mut disagreements = 0;
    let mut originally = 0;
    for t in &s.turns {
        if let Some(orig) = lookup(s, t).and_then(|(_, turn)| turn.original.numerical_match) {
            originally += 1;
            if orig != t.correct(s.config.profile) {
                disagreements += 1;
            }
        }
    }
    let profile = s.config.profile;
    let profile_headline = match profile {
        Profile::Doc => Vec::new(),
        Profile::Fa2 => {
            let st = crate::numeric_qa::aggregate::fa2::statistics_value(&s.run);
            crate::numeric_qa::aggregate::headline(profile)
                .iter()
                .map(|m| {
                    let (label, definition) =
                        crate::numeric_qa::aggregate::metric_words(m, &s.config.tolerances);
                    ProfileMetric {
                        key: m.key.to_string(),
                        label,
                        definition,
                        value: st.get(m.key).and_then(serde_json::Value::as_f64),
                    }
                })
                .collect()
        }
    };
    let words = crate::numeric_qa::aggregate::headline(Profile::Doc)
        .iter()
        .map(|m| {
            let (label, definition) =
                crate::numeric_qa::aggregate::metric_words(m, &s.config.tolerances);
            ProfileMetric {
                key: m.key.to_string(),
                label,
                definition,
                value: None,
            }
        })
        .collect();
    let overview = Overview {
        stats,
        readings,
        first_wrong,
        disagreements,
        originally_scored_turns: originally,
        profile,
        profile_headline,
        words,
    };
    (overview, bucket_sizes)
}

fn lookup<'a>(s: &'a ScoredQaRun, t: &TurnScore) -> Option<(&'a QaConversation, &'a QaTurn)> {
    let c = s.run.conversations.get(t.conv as usize)?;
    Some((c, c.turns.get(t.turn as usize)?))
}

/// Filter for the items table. Every field narrows; `None`/empty means "any".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemFilter {
    /// `correct` or `wrong` (by the profile's numerical verdict).
    pub verdict: Option<String>,
    pub turn_idx: Option<u32>,
    /// A feature name (`has_type2_question`, `has_non_numeric_values`, `has_duplicate_columns`)
    /// that must be true.
    pub feature: Option<String>,
    pub error_type: Option<String>,
    /// Case-insensitive substring of question, expected, predicted or conversation id.
    pub text: Option<String>,
    /// Only turns whose original verdict disagrees with the re-scored one.
    #[serde(default)]
    pub disagreements: bool,
}

/// Sortable columns of the items table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    #[default]
    Position,
    Conversation,
    TurnIdx,
    Verdict,
    LogicRecall,
    Ops,
    Tokens,
    Error,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemQuery {
    #[serde(default)]
    pub filter: ItemFilter,
    #[serde(default)]
    pub sort: SortKey,
    #[serde(default)]
    pub desc: bool,
    #[serde(default)]
    pub offset: usize,
    pub limit: usize,
}

/// One row of the items table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemRow {
    pub conv: u32,
    pub turn: u32,
    pub conversation_id: String,
    pub turn_idx: u32,
    pub question: String,
    pub expected: String,
    pub predicted: String,
    pub exact_match: bool,
    pub numerical_match: bool,
    pub soft_match: bool,
    pub unit_agnostic_match: bool,
    pub sign_agnostic_match: bool,
    pub general_match: bool,
    pub financial_match: bool,
    pub fa2_numerical: bool,
    pub fa2_soft_match: bool,
    /// The verdict of the selected profile's numerical match.
    pub correct: bool,
    pub original_numerical: Option<bool>,
    pub disagrees: bool,
    pub logic_recall: Option<f64>,
    pub operations_per_turn: Option<u32>,
    pub tokens: Option<u64>,
    pub error_type: Option<String>,
    /// Why the answer is wrong, in words ([`why_wrong`]); `None` for a correct one.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemPage {
    /// Rows matching the filter (before paging).
    pub total: usize,
    pub offset: usize,
    pub rows: Vec<ItemRow>,
}

fn row(s: &ScoredQaRun, t: &TurnScore) -> Option<ItemRow> {
    let (c, turn) = lookup(s, t)?;
    let correct = t.correct(s.config.profile);
    let original = turn.original.numerical_match;
    Some(ItemRow {
        conv: t.conv,
        turn: t.turn,
        conversation_id: c.id.clone(),
        turn_idx: turn.turn_idx,
        question: turn.question.clone(),
        expected: turn.expected.display(),
        predicted: answer_text(turn.predicted.as_ref()),
        exact_match: t.answer.exact_match,
        numerical_match: t.answer.numerical_match,
        soft_match: t.answer.soft_match,
        unit_agnostic_match: t.answer.unit_agnostic_match,
        sign_agnostic_match: t.answer.sign_agnostic_match,
        general_match: t.answer.general_match,
        financial_match: t.fa2.financial,
        fa2_numerical: t.fa2.numerical,
        fa2_soft_match: t.fa2.soft_match,
        correct,
        original_numerical: original,
        disagrees: original.is_some_and(|o| o != correct),
        logic_recall: t.logic.recall,
        operations_per_turn: t.operations_per_turn,
        tokens: turn.tokens.total(),
        error_type: turn.error.as_ref().map(|e| e.error_type.clone()),
        reason: why_wrong(c, turn, t, s.config.profile, &s.config.tolerances),
    })
}

fn matches(s: &ScoredQaRun, t: &TurnScore, f: &ItemFilter, needle: &str) -> bool {
    let Some((c, turn)) = lookup(s, t) else {
        return false;
    };
    let correct = t.correct(s.config.profile);
    match f.verdict.as_deref() {
        Some("correct") if !correct => return false,
        Some("wrong") if correct => return false,
        _ => {}
    }
    if f.turn_idx.is_some_and(|i| i != turn.turn_idx) {
        return false;
    }
    if let Some(feat) = f.feature.as_deref() {
        let v = match feat {
            "has_type2_question" => c.features.has_type2_question,
            "has_non_numeric_values" => c.features.has_non_numeric_values,
            "has_duplicate_columns" => c.features.has_duplicate_columns,
            _ => None,
        };
        if v != Some(true) {
            return false;
        }
    }
    if let Some(et) = f.error_type.as_deref().filter(|s| !s.is_empty()) {
        if turn.error.as_ref().map(|e| e.error_type.as_str()) != Some(et) {
            return false;
        }
    }
    if f.disagreements && turn.original.numerical_match.is_none_or(|o| o == correct) {
        return false;
    }
    if !needle.is_empty() {
        let hit = |x: &str| x.to_lowercase().contains(needle);
        let pred = answer_text(turn.predicted.as_ref());
        if !(hit(&turn.question) || hit(&c.id) || hit(&turn.expected.display()) || hit(&pred)) {
            return false;
        }
    }
    true
}

/// A page of the items table: filter, then sort (stable, by position on ties), then slice.
pub fn items(s: &ScoredQaRun, q: &ItemQuery) -> ItemPage {
    let idx = item_order(s, q);
    let total = idx.len();
    let rows = idx
        .iter()
        .skip(q.offset)
        .take(q.limit.min(1000))
        .filter_map(|&i| item_row(s, i))
        .collect();
    ItemPage {
        total,
        offset: q.offset.min(total),
        rows,
    }
}

/// The row of turn `i` (an index into `s.turns`, as [`item_order`] gives them).
pub fn item_row(s: &ScoredQaRun, i: usize) -> Option<ItemRow> {
    row(s, s.turns.get(i)?)
}

/// The turns (indices into `s.turns`) matching `q`'s filter, in `q`'s order (stable, by
/// position on ties); `q.offset` and `q.limit` are not applied.
pub fn item_order(s: &ScoredQaRun, q: &ItemQuery) -> Vec<usize> {
    let needle = q
        .filter
        .text
        .as_deref()
        .map(|t| t.trim().to_lowercase())
        .unwrap_or_default();
    let mut idx: Vec<usize> = (0..s.turns.len())
        .filter(|&i| matches(s, &s.turns[i], &q.filter, &needle))
        .collect();
    if q.sort != SortKey::Position {
        let key = |i: &usize| -> (i64, String) {
            let t = &s.turns[*i];
            let turn = lookup(s, t).map(|(_, x)| x);
            match q.sort {
                SortKey::Position => (*i as i64, String::new()),
                SortKey::Conversation => (
                    0,
                    s.run
                        .conversations
                        .get(t.conv as usize)
                        .map(|c| c.id.clone())
                        .unwrap_or_default(),
                ),
                SortKey::TurnIdx => (turn.map(|x| x.turn_idx as i64).unwrap_or(-1), String::new()),
                SortKey::Verdict => (t.correct(s.config.profile) as i64, String::new()),
                SortKey::LogicRecall => (
                    t.logic.recall.map(|r| (r * 1e6) as i64).unwrap_or(-1),
                    String::new(),
                ),
                SortKey::Ops => (
                    t.operations_per_turn.map(i64::from).unwrap_or(-1),
                    String::new(),
                ),
                SortKey::Tokens => (
                    turn.and_then(|x| x.tokens.total())
                        .map(|x| x as i64)
                        .unwrap_or(-1),
                    String::new(),
                ),
                SortKey::Error => (
                    0,
                    turn.and_then(|x| x.error.as_ref())
                        .map(|e| e.error_type.clone())
                        .unwrap_or_default(),
                ),
            }
        };
        idx.sort_by_cached_key(key);
    }
    if q.desc {
        idx.reverse();
    }
    idx
}

/// One turn in the conversation view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationTurn {
    pub row: ItemRow,
    pub ground_truth_program: Option<String>,
    /// The program executed by the engine against the document table (when a dataset was
    /// joined), else the dataset's recorded executed answer.
    pub program_value: Option<String>,
    pub executed_answer: Option<String>,
    pub plan_operations: Option<Vec<String>>,
    pub plan_steps: Option<u32>,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub latency_ms: Option<f64>,
    pub error_message: Option<String>,
    pub logic_precision: Option<f64>,
    pub logic_f1: Option<f64>,
    pub logic_order: Option<f64>,
    pub original_financial: Option<bool>,
    pub original_soft: Option<bool>,
    /// What the trace holds of the model's work on this turn.
    pub work: TurnWork,
}

/// What a trace holds of the model's work on one turn: every plan step, tool calls and their
/// outcome, validator verdicts, call counts. Empty for sources that record none (turns.csv).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnWork {
    /// Every plan step in order, as `tool` or `tool: operation`, with its query and result
    /// where the source records them (`step_words`).
    pub plan: Vec<String>,
    pub plan_type: Option<String>,
    pub plan_complexity: Option<String>,
    pub tool_calls: Vec<ToolCallView>,
    /// The turn's LLM calls as the trace records them.
    pub llm_calls: Vec<crate::numeric_qa::model::Fa2LlmCall>,
    pub validator: Vec<ValidatorView>,
}

impl TurnWork {
    pub fn is_empty(&self) -> bool {
        *self == TurnWork::default()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallView {
    pub tool: String,
    /// The recorded outcome (`true`, `false` or as written); `None` when not recorded.
    pub success: Option<String>,
    pub latency_ms: Option<f64>,
    /// Params, result and error as compact JSON text (cut when long).
    pub params: Option<String>,
    pub result: Option<String>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidatorView {
    pub retry: Option<String>,
    pub valid: Option<String>,
    pub confidence: Option<String>,
    pub failed_steps: Vec<String>,
    pub issues: Vec<String>,
}

/// A recorded value as text; `None` for a missing (null) one.
fn recorded(v: &RawValue) -> Option<String> {
    (!v.is_null()).then(|| v.display())
}

/// A plan step in words: `tool`, `tool: operation`, with its query and `→ result` where the
/// source records them (`compute: subtract(#1, #2) → 42.5`, `extract_value text {…} → 1563`).
fn step_words(st: &crate::numeric_qa::model::PlanStep) -> String {
    let op = st.operation.as_deref().filter(|o| !o.is_empty());
    let detail = st.detail.as_deref();
    let query = detail.and_then(|d| d.query.as_deref());
    let mut w = match (op, query) {
        (Some(op), Some(q)) if q.starts_with(op) => format!("{}: {q}", st.tool),
        (Some(op), Some(q)) => format!("{}: {op} {q}", st.tool),
        (Some(op), None) => format!("{}: {op}", st.tool),
        (None, Some(q)) => format!("{} {q}", st.tool),
        (None, None) => st.tool.to_string(),
    };
    if let Some(r) = detail.and_then(|d| d.result.as_deref()) {
        w.push_str(" → ");
        w.push_str(r);
    }
    w
}

fn turn_work(turn: &crate::numeric_qa::model::QaTurn) -> TurnWork {
    let plan = turn
        .plan
        .as_ref()
        .map_or_else(Vec::new, |p| p.steps.iter().map(step_words).collect());
    let validator = turn
        .validator_logs
        .iter()
        .map(|v| ValidatorView {
            retry: recorded(&v.retry_number),
            valid: recorded(&v.valid),
            confidence: recorded(&v.confidence),
            failed_steps: v.failed_steps.iter().map(RawValue::display).collect(),
            issues: v.issues.iter().map(RawValue::display).collect(),
        })
        .collect();
    let mut work = TurnWork {
        plan,
        validator,
        ..TurnWork::default()
    };
    if let Some(x) = &turn.fa2 {
        work.plan_type = recorded(&x.plan_type);
        work.plan_complexity = recorded(&x.plan_complexity);
        work.tool_calls = x
            .tool_calls
            .iter()
            .map(|c| ToolCallView {
                tool: c.tool_name.clone(),
                success: recorded(&c.success),
                latency_ms: c.latency_ms.as_f64(),
                params: c.params.clone(),
                result: c.result.clone(),
                error: c.error.clone(),
            })
            .collect();
        work.llm_calls = x.llm_calls.clone();
    }
    work
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationView {
    pub conv: u32,
    pub id: String,
    pub model: Option<String>,
    pub conversation_type: String,
    pub has_type2_question: Option<bool>,
    pub has_non_numeric_values: Option<bool>,
    pub has_duplicate_columns: Option<bool>,
    pub failure: Option<String>,
    pub source_file: String,
    /// The tolerances the run was scored with (the verdict chips' labels say them).
    pub tolerances: crate::numeric_qa::score::doc::DocTolerances,
    pub turns: Vec<ConversationTurn>,
}

/// The conversation of a turn's key (`[conversation id, turn index]`: its id; the first
/// conversation of an id seen twice, as a comparison pairs it), for the detail view.
pub fn conversation_of(
    s: &ScoredQaRun,
    key: &crate::run_table::ItemKey,
) -> Option<ConversationView> {
    let id = key.first_text()?;
    let conv = s.run.conversations.iter().position(|c| c.id == id)?;
    conversation(s, u32::try_from(conv).ok()?)
}

/// Everything about one conversation, for the detail view.
pub fn conversation(s: &ScoredQaRun, conv: u32) -> Option<ConversationView> {
    let c = s.run.conversations.get(conv as usize)?;
    let turns = s
        .turns
        .iter()
        .filter(|t| t.conv == conv)
        .filter_map(|t| {
            let turn = c.turns.get(t.turn as usize)?;
            Some(ConversationTurn {
                row: row(s, t)?,
                ground_truth_program: turn.ground_truth_program.clone(),
                program_value: turn.ground_truth_program.as_deref().and_then(|p| {
                    match program::execute(p, &[], program::Dialect::ConvFinQa) {
                        program::ExecOutcome::Number(x) => Some(format!("{x}")),
                        program::ExecOutcome::YesNo(b) => Some(if b { "yes" } else { "no" }.into()),
                        program::ExecOutcome::Invalid(_) => None,
                    }
                }),
                executed_answer: turn.executed_answer.as_ref().map(RawValue::display),
                plan_operations: turn.plan.as_ref().map(|p| {
                    p.compute_operations()
                        .into_iter()
                        .map(str::to_string)
                        .collect()
                }),
                plan_steps: turn.plan_steps,
                prompt_tokens: turn.tokens.prompt,
                completion_tokens: turn.tokens.completion,
                latency_ms: turn.latency_ms,
                error_message: turn.error.as_ref().map(|e| e.message.clone()),
                logic_precision: t.logic.precision,
                logic_f1: t.logic.f1,
                logic_order: t.logic.order,
                original_financial: turn.original.financial_match,
                original_soft: turn.original.soft_match,
                work: turn_work(turn),
            })
        })
        .collect();
    Some(ConversationView {
        conv,
        id: c.id.clone(),
        model: c.model.clone(),
        conversation_type: doc::conversation_type(c),
        has_type2_question: c.features.has_type2_question,
        has_non_numeric_values: c.features.has_non_numeric_values,
        has_duplicate_columns: c.features.has_duplicate_columns,
        failure: c.failure.clone(),
        source_file: c.source.file.to_string(),
        tolerances: s.config.tolerances,
        turns,
    })
}

/// Keeps `Profile` reachable for callers that only import views.
pub fn profile_of(s: &ScoredQaRun) -> Profile {
    s.config.profile
}
