//! The doc profile's statistics.json: a typed DTO with stable key order, built from a scored run.
//!
//! Empty aggregates are `null`, never NaN or a made-up 0. Turn indices are 0-based and used as
//! string keys sorted numerically.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::accounting::FileStatus;
use crate::numeric_qa::model::{QaConversation, QaRun, QaTurn, Tokens};
use crate::numeric_qa::score::doc::{DocTolerances, ANSWER_SCORERS};
use crate::numeric_qa::score::{logic, Profile, ScoredQaRun, TurnScore, OPERATIONS_PER_TURN};
use crate::prices::{PriceTable, TokenSplit};

/// A running mean that merges (ripgrep-style mergeable stats).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Mean {
    pub sum: f64,
    pub n: u64,
}

impl Mean {
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }
    pub fn add_bool(&mut self, b: bool) {
        self.add(if b { 1.0 } else { 0.0 });
    }
    pub fn merge(&mut self, o: Mean) {
        self.sum += o.sum;
        self.n += o.n;
    }
    pub fn get(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

/// Accuracy of one slice of the run (a feature value, a model, a conversation type).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Breakdown {
    pub conversations: u64,
    pub turns: u64,
    pub numerical_accuracy: Option<f64>,
    pub exact_match_accuracy: Option<f64>,
    pub soft_match_accuracy: Option<f64>,
    pub conversation_level_accuracy: Option<f64>,
    pub avg_logic_recall: Option<f64>,
    pub error_rate: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileEntry {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InputFiles {
    pub parsed: Vec<String>,
    pub partly_parsed: Vec<FileEntry>,
    pub skipped: Vec<FileEntry>,
    pub diagnostics: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScorerInfo {
    pub name: String,
    pub tolerances: BTreeMap<String, f64>,
}

/// statistics.json of the doc profile. Field order is the file's key order.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Statistics {
    pub run_name: String,
    pub profile: String,
    pub engine_version: String,
    pub total_conversations: u64,
    pub failed_conversations: u64,
    pub total_turns: u64,
    pub numerical_accuracy: Option<f64>,
    pub exact_match_accuracy: Option<f64>,
    pub soft_match_accuracy: Option<f64>,
    pub unit_agnostic_accuracy: Option<f64>,
    pub sign_agnostic_accuracy: Option<f64>,
    pub general_match_accuracy: Option<f64>,
    pub conversation_level_accuracy: Option<f64>,
    pub avg_logic_recall: Option<f64>,
    pub avg_logic_precision: Option<f64>,
    pub avg_logic_f1: Option<f64>,
    pub avg_logic_order_score: Option<f64>,
    pub avg_operations_per_turn: Option<f64>,
    pub total_tokens: Option<u64>,
    pub correct_conversations: u64,
    pub cost_per_correct_answer: Option<f64>,
    pub cost_per_correct_answer_usd: Option<f64>,
    /// Turns numerically correct under the profile.
    pub correct_turns: u64,
    /// Total tokens / correct turns (cost per correct answer counts whole conversations).
    pub cost_per_correct_turn: Option<f64>,
    pub cost_per_correct_turn_usd: Option<f64>,
    pub total_cost_usd: Option<f64>,
    pub unpriced_models: Vec<String>,
    pub error_rate: Option<f64>,
    pub error_types: BTreeMap<String, u64>,
    pub accuracy_by_turn_number: BTreeMap<TurnKey, f64>,
    pub avg_operations_by_turn: BTreeMap<TurnKey, f64>,
    pub logic_recall_by_turn: BTreeMap<TurnKey, f64>,
    pub accuracy_by_operations_per_turn: BTreeMap<TurnKey, f64>,
    pub by_has_type2_question: BTreeMap<String, Breakdown>,
    pub by_has_non_numeric_values: BTreeMap<String, Breakdown>,
    pub by_has_duplicate_columns: BTreeMap<String, Breakdown>,
    pub by_conversation_type: BTreeMap<String, Breakdown>,
    pub by_model: BTreeMap<String, Breakdown>,
    pub input_files: InputFiles,
    pub scorers: Vec<ScorerInfo>,
}

/// How many turns each bucket of the by-turn and by-operations readings holds (the charts'
/// sample sizes; not a statistics.json key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BucketSizes {
    pub by_turn_number: BTreeMap<TurnKey, u64>,
    pub logic_recall_by_turn: BTreeMap<TurnKey, u64>,
    pub by_operations_per_turn: BTreeMap<TurnKey, u64>,
}

/// A map key that is a number but serialises as a string, so `"10"` sorts after `"9"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TurnKey(pub u32);

impl Serialize for TurnKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for TurnKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map(TurnKey).map_err(serde::de::Error::custom)
    }
}

/// The conversation type used for breakdowns: the source's own label, else `Single`/`Double`
/// from a ConvFinQA id, else `unknown`.
pub fn conversation_type(c: &QaConversation) -> String {
    conversation_type_ref(c).to_string()
}

/// [`conversation_type`] without allocating.
pub fn conversation_type_ref(c: &QaConversation) -> &str {
    if let Some(t) = c.conversation_type.as_deref().filter(|t| !t.is_empty()) {
        return t;
    }
    match c.id.split('_').next() {
        Some("Single") => "Single",
        Some("Double") => "Double",
        _ => "unknown",
    }
}

fn bool_key(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "unknown",
    }
}

#[derive(Default, Clone)]
struct Acc {
    convs: u64,
    turns: u64,
    numerical: Mean,
    exact: Mean,
    soft: Mean,
    conv_correct: Mean,
    logic: Mean,
    errors: Mean,
}

impl Acc {
    fn finish(&self) -> Breakdown {
        Breakdown {
            conversations: self.convs,
            turns: self.turns,
            numerical_accuracy: self.numerical.get(),
            exact_match_accuracy: self.exact.get(),
            soft_match_accuracy: self.soft.get(),
            conversation_level_accuracy: self.conv_correct.get(),
            avg_logic_recall: self.logic.get(),
            error_rate: self.errors.get(),
        }
    }
}

/// Engine version, written into every output for provenance.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

impl Statistics {
    /// The answer scorers' tolerances the run was scored with (read back from the scorers'
    /// version label); the defaults when the label names none.
    pub fn tolerances(&self) -> DocTolerances {
        self.scorers
            .iter()
            .find_map(|sc| {
                let (_, label) = sc.name.split_once('@')?;
                DocTolerances::from_version_label(label)
            })
            .unwrap_or_default()
    }
}

/// The doc profile's scorers as statistics.json lists them: the answer scorers under the
/// tolerances' version label (with the tolerances), then the reasoning scorers and the plan size.
pub fn scorer_infos(tol: &DocTolerances) -> Vec<ScorerInfo> {
    let label = tol.version_label();
    let mut t = BTreeMap::new();
    t.insert("rel".to_string(), tol.rel);
    t.insert("abs".to_string(), tol.abs);
    t.insert("exact_rel".to_string(), tol.exact_rel);
    let mut out: Vec<ScorerInfo> = ANSWER_SCORERS
        .iter()
        .map(|s| ScorerInfo {
            name: format!("{}@{label}", s.name()),
            tolerances: t.clone(),
        })
        .collect();
    for s in logic::SCORERS.iter().chain([&OPERATIONS_PER_TURN]) {
        out.push(ScorerInfo {
            name: s.id.to_string(),
            tolerances: BTreeMap::new(),
        });
    }
    out
}

/// A turn's tokens by price class: prompt as input, completion as output; a turn that records
/// only a total is priced all as input (docs/scoring.md § Cost). `None` without tokens.
pub(crate) fn token_split(t: &Tokens) -> Option<TokenSplit> {
    let total = t.total()?;
    let (input, output) = match (t.prompt, t.completion) {
        (None, None) => (total, 0),
        (p, c) => (p.unwrap_or(0), c.unwrap_or(0)),
    };
    Some(TokenSplit {
        uncached_input: input,
        output,
        ..TokenSplit::default()
    })
}

/// The model a conversation's tokens are priced by: its `model`, else `unknown`.
/// A turn's cost in dollars under the run's price table, as the run's cost sums it; `None` when
/// it records no tokens or its model has no price.
pub fn turn_cost(prices: &PriceTable, conv: &QaConversation, turn: &QaTurn) -> Option<f64> {
    let split = token_split(&turn.tokens)?;
    Some(prices.get(model_of(conv))?.bill(&split))
}

fn model_of(conv: &QaConversation) -> &str {
    conv.model.as_deref().unwrap_or("unknown")
}

/// The models (sorted, each once) of the turns that record tokens but whose model `prices` has
/// no price for: their tokens are unpriced, and the run has no total cost in dollars.
pub fn unpriced_models(run: &QaRun, prices: &PriceTable) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for conv in &run.conversations {
        let model = model_of(conv);
        let has_tokens = conv.turns.iter().any(|t| t.tokens.total().is_some());
        if has_tokens && prices.get(model).is_none() && !out.iter().any(|m| m == model) {
            out.push(model.to_string());
        }
    }
    out.sort();
    out
}

/// Builds the doc profile's statistics from a scored run.
pub fn statistics(s: &ScoredQaRun) -> Statistics {
    statistics_with_sizes(s).0
}

/// [`statistics`] and the sample size of each by-turn and by-operations bucket.
pub fn statistics_with_sizes(s: &ScoredQaRun) -> (Statistics, BucketSizes) {
    // A run is not changed once scored: its statistics are computed once and kept.
    let kept = s
        .statistics
        .get_or_init(|| std::sync::Arc::new(compute_statistics(s)));
    match kept.downcast_ref::<(Statistics, BucketSizes)>() {
        Some(st) => st.clone(),
        None => compute_statistics(s),
    }
}

/// [`statistics_with_sizes`] computed: one pass over the run's turns.
fn compute_statistics(s: &ScoredQaRun) -> (Statistics, BucketSizes) {
    let run = &s.run;
    let profile = Profile::Doc;
    let mut numerical = Mean::default();
    let mut exact = Mean::default();
    let mut soft = Mean::default();
    let mut unit = Mean::default();
    let mut sign = Mean::default();
    let mut general = Mean::default();
    let mut recall = Mean::default();
    let mut precision = Mean::default();
    let mut f1 = Mean::default();
    let mut order = Mean::default();
    let mut ops = Mean::default();
    let mut errors = Mean::default();
    let mut error_types: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_turn: BTreeMap<TurnKey, Mean> = BTreeMap::new();
    let mut ops_by_turn: BTreeMap<TurnKey, Mean> = BTreeMap::new();
    let mut recall_by_turn: BTreeMap<TurnKey, Mean> = BTreeMap::new();
    let mut acc_by_ops: BTreeMap<TurnKey, Mean> = BTreeMap::new();
    let mut total_tokens: Option<u64> = None;
    let mut cost_usd = 0.0f64;

    // Per-conversation: all turns numerically correct?
    let mut conv_all_correct: Vec<bool> = run
        .conversations
        .iter()
        .map(|c| c.failure.is_none() && !c.turns.is_empty())
        .collect();

    for ts in &s.turns {
        let Some(conv) = run.conversations.get(ts.conv as usize) else {
            continue;
        };
        let Some(turn) = conv.turns.get(ts.turn as usize) else {
            continue;
        };
        let a = &ts.answer;
        let correct = ts.correct(profile);
        numerical.add_bool(correct);
        exact.add_bool(a.exact_match);
        soft.add_bool(a.soft_match);
        unit.add_bool(a.unit_agnostic_match);
        sign.add_bool(a.sign_agnostic_match);
        general.add_bool(a.general_match);
        if !correct {
            if let Some(x) = conv_all_correct.get_mut(ts.conv as usize) {
                *x = false;
            }
        }
        let k = TurnKey(turn.turn_idx);
        by_turn.entry(k).or_default().add_bool(correct);
        if let Some(r) = ts.logic.recall {
            recall.add(r);
            recall_by_turn.entry(k).or_default().add(r);
        }
        if let Some(p) = ts.logic.precision {
            precision.add(p);
        }
        if let Some(x) = ts.logic.f1 {
            f1.add(x);
        }
        if let Some(x) = ts.logic.order {
            order.add(x);
        }
        if let Some(o) = ts.operations_per_turn {
            ops.add(o as f64);
            ops_by_turn.entry(k).or_default().add(o as f64);
            acc_by_ops.entry(TurnKey(o)).or_default().add_bool(correct);
        }
        errors.add_bool(turn.error.is_some());
        if let Some(e) = &turn.error {
            match error_types.get_mut(e.error_type.as_str()) {
                Some(n) => *n += 1,
                None => {
                    error_types.insert(e.error_type.clone(), 1);
                }
            }
        }
        if let Some(t) = turn.tokens.total() {
            *total_tokens.get_or_insert(0) += t;
            let price = s.config.prices.get(model_of(conv));
            if let (Some(p), Some(split)) = (price, token_split(&turn.tokens)) {
                cost_usd += p.bill(&split);
            }
        }
    }
    let unpriced = unpriced_models(run, &s.config.prices);
    let correct_conversations = conv_all_correct.iter().filter(|b| **b).count() as u64;
    let n_convs = run.conversations.len() as u64;
    let cost_per_correct = match (total_tokens, correct_conversations) {
        (Some(t), n) if n > 0 => Some(t as f64 / n as f64),
        _ => None,
    };
    let total_cost_usd = (total_tokens.is_some() && unpriced.is_empty()).then_some(cost_usd);
    let cost_per_correct_usd = match (total_cost_usd, correct_conversations) {
        (Some(c), n) if n > 0 => Some(c / n as f64),
        _ => None,
    };
    let correct_turns = numerical.sum.round() as u64;
    let per_correct_turn = |x: Option<f64>| {
        x.filter(|_| correct_turns > 0)
            .map(|x| x / correct_turns as f64)
    };
    let cost_per_correct_turn = per_correct_turn(total_tokens.map(|t| t as f64));
    let cost_per_correct_turn_usd = per_correct_turn(total_cost_usd);

    // Breakdowns over conversations.
    let mut groups: [BTreeMap<&str, Acc>; 5] = Default::default();
    let mut per_conv: Vec<Acc> = vec![Acc::default(); run.conversations.len()];
    for ts in &s.turns {
        let Some(acc) = per_conv.get_mut(ts.conv as usize) else {
            continue;
        };
        let Some(turn) = run
            .conversations
            .get(ts.conv as usize)
            .and_then(|c| c.turns.get(ts.turn as usize))
        else {
            continue;
        };
        acc.turns += 1;
        acc.numerical.add_bool(ts.correct(profile));
        acc.exact.add_bool(ts.answer.exact_match);
        acc.soft.add_bool(ts.answer.soft_match);
        if let Some(r) = ts.logic.recall {
            acc.logic.add(r);
        }
        acc.errors.add_bool(turn.error.is_some());
    }
    for (ci, conv) in run.conversations.iter().enumerate() {
        let Some(acc) = per_conv.get(ci) else {
            continue;
        };
        let mut acc = acc.clone();
        acc.convs = 1;
        acc.conv_correct
            .add_bool(conv_all_correct.get(ci).copied().unwrap_or(false));
        let keys = [
            bool_key(conv.features.has_type2_question),
            bool_key(conv.features.has_non_numeric_values),
            bool_key(conv.features.has_duplicate_columns),
            conversation_type_ref(conv),
            conv.model.as_deref().unwrap_or("unknown"),
        ];
        for (g, key) in groups.iter_mut().zip(keys) {
            let e = match g.get_mut(key) {
                Some(e) => e,
                None => g.entry(key).or_default(),
            };
            e.convs += acc.convs;
            e.turns += acc.turns;
            e.numerical.merge(acc.numerical);
            e.exact.merge(acc.exact);
            e.soft.merge(acc.soft);
            e.conv_correct.merge(acc.conv_correct);
            e.logic.merge(acc.logic);
            e.errors.merge(acc.errors);
        }
    }
    let [g_type2, g_nonnum, g_dup, g_ctype, g_model] = groups;
    let fin = |g: BTreeMap<&str, Acc>| -> BTreeMap<String, Breakdown> {
        g.into_iter()
            .map(|(k, v)| (k.to_string(), v.finish()))
            .collect()
    };
    let sizes = |m: &BTreeMap<TurnKey, Mean>| -> BTreeMap<TurnKey, u64> {
        m.iter().map(|(k, v)| (*k, v.n)).collect()
    };
    let bucket_sizes = BucketSizes {
        by_turn_number: sizes(&by_turn),
        logic_recall_by_turn: sizes(&recall_by_turn),
        by_operations_per_turn: sizes(&acc_by_ops),
    };
    let means = |m: BTreeMap<TurnKey, Mean>| -> BTreeMap<TurnKey, f64> {
        m.into_iter()
            .filter_map(|(k, v)| v.get().map(|x| (k, x)))
            .collect()
    };

    let mut input_files = InputFiles {
        parsed: Vec::new(),
        partly_parsed: Vec::new(),
        skipped: Vec::new(),
        diagnostics: run.diagnostics.len() as u64,
    };
    for f in &run.files {
        let reason = f.reason.clone().unwrap_or_default();
        match f.status {
            FileStatus::Parsed => input_files.parsed.push(f.path.clone()),
            FileStatus::PartlyParsed => input_files.partly_parsed.push(FileEntry {
                path: f.path.clone(),
                reason,
            }),
            FileStatus::Skipped => input_files.skipped.push(FileEntry {
                path: f.path.clone(),
                reason,
            }),
        }
    }

    let stats = Statistics {
        run_name: run.name.clone(),
        profile: profile.name().to_string(),
        engine_version: ENGINE_VERSION.to_string(),
        total_conversations: n_convs,
        failed_conversations: run
            .conversations
            .iter()
            .filter(|c| c.failure.is_some())
            .count() as u64,
        total_turns: s.turns.len() as u64,
        numerical_accuracy: numerical.get(),
        exact_match_accuracy: exact.get(),
        soft_match_accuracy: soft.get(),
        unit_agnostic_accuracy: unit.get(),
        sign_agnostic_accuracy: sign.get(),
        general_match_accuracy: general.get(),
        conversation_level_accuracy: (n_convs > 0)
            .then(|| correct_conversations as f64 / n_convs as f64),
        avg_logic_recall: recall.get(),
        avg_logic_precision: precision.get(),
        avg_logic_f1: f1.get(),
        avg_logic_order_score: order.get(),
        avg_operations_per_turn: ops.get(),
        total_tokens,
        correct_conversations,
        cost_per_correct_answer: cost_per_correct,
        cost_per_correct_answer_usd: cost_per_correct_usd,
        correct_turns,
        cost_per_correct_turn,
        cost_per_correct_turn_usd,
        total_cost_usd,
        unpriced_models: unpriced,
        error_rate: errors.get(),
        error_types,
        accuracy_by_turn_number: means(by_turn),
        avg_operations_by_turn: means(ops_by_turn),
        logic_recall_by_turn: means(recall_by_turn),
        accuracy_by_operations_per_turn: means(acc_by_ops),
        by_has_type2_question: fin(g_type2),
        by_has_non_numeric_values: fin(g_nonnum),
        by_has_duplicate_columns: fin(g_dup),
        by_conversation_type: fin(g_ctype),
        by_model: fin(g_model),
        input_files,
        scorers: scorer_infos(&s.config.tolerances),
    };
    (stats, bucket_sizes)
}

/// Looks a metric up by its statistics.json key, for `--fail-under METRIC=VALUE`.
pub fn metric(stats: &Statistics, key: &str) -> Result<Option<f64>, String> {
    let v = serde_json::to_value(stats).map_err(|e| e.to_string())?;
    match v.get(key) {
        None => Err(format!("unknown metric {key:?}")),
        Some(serde_json::Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("metric {key:?} is not a number")),
    }
}

/// The turn's score, for callers that hold the index.
pub fn turn_score(s: &ScoredQaRun, conv: u32, turn: u32) -> Option<&TurnScore> {
    s.turns.iter().find(|t| t.conv == conv && t.turn == turn)
}
