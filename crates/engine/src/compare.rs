//! Run comparison: per-item joins, flips, McNemar exact test, paired bootstrap CI, text diff.
//!
//! Family-agnostic: a reader pairs items of a baseline and a candidate run by key (eval item id,
//! conversation id + turn, task id) into [`PairedItem`]s; everything here works on those.
//! The statistics come from the four counts of the 2×2 table ([`crate::stats`], which also
//! holds the PRNG: xoshiro256** seeded by SplitMix64, so native and wasm draw the same bits).

use serde::{Deserialize, Serialize};

pub mod by_item;
pub mod join;
pub mod many;
pub mod words;

use crate::run_table::ItemKey;
pub use crate::run_table::Unit;
pub use crate::stats::{PairCounts, Rng, SplitMix64};

/// A headline metric in both runs of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricDelta {
    pub key: String,
    pub label: String,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    /// How its values read (a 0–1 rate unless it says otherwise).
    #[serde(default)]
    pub unit: Unit,
}

impl MetricDelta {
    /// A metric of `unit` in both runs.
    pub fn new(
        key: &str,
        label: &str,
        unit: Unit,
        (baseline, candidate): (Option<f64>, Option<f64>),
    ) -> Self {
        MetricDelta {
            key: key.into(),
            label: label.into(),
            baseline,
            candidate,
            unit,
        }
    }
}

impl MetricDelta {
    /// The metrics of two runs side by side, joined on their keys. Both lists follow their
    /// family's one order (a run may lack a metric the other has): the result keeps that order,
    /// a metric only one run has reading `None` in the other.
    pub fn zip(
        baseline: &[crate::run_table::MetricValue],
        candidate: &[crate::run_table::MetricValue],
    ) -> Vec<MetricDelta> {
        let mut out = Vec::with_capacity(baseline.len().max(candidate.len()));
        let (mut i, mut j) = (0, 0);
        let delta = |m: &crate::run_table::MetricValue, b: Option<f64>, c: Option<f64>| {
            MetricDelta::new(&m.key, &m.label, m.unit, (b, c))
        };
        loop {
            match (baseline.get(i), candidate.get(j)) {
                (None, None) => break,
                (Some(b), Some(c)) if b.key == c.key => {
                    out.push(delta(b, b.value, c.value));
                    (i, j) = (i + 1, j + 1);
                }
                (Some(b), _)
                    if !candidate
                        .get(j..)
                        .unwrap_or(&[])
                        .iter()
                        .any(|c| c.key == b.key) =>
                {
                    out.push(delta(b, b.value, None));
                    i += 1;
                }
                (_, Some(c)) => {
                    out.push(delta(c, None, c.value));
                    j += 1;
                }
                (Some(b), None) => {
                    out.push(delta(b, b.value, None));
                    i += 1;
                }
            }
        }
        out
    }
}

/// What a reader sees beside a paired item's verdicts: a group to filter by (category, model),
/// what was asked, and the fields the item can be sliced by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemContext {
    pub category: Option<String>,
    pub question: Option<String>,
    /// The item's breakdown fields as `(field, value)`, in the family's order: the field its
    /// `category` comes from first (numeric QA: category, turn, operations; eval sets: category,
    /// section, difficulty; eval logs: the log's breakdown fields; code generation: model).
    pub fields: Vec<(String, String)>,
    /// What the item spent and what its tool recorded of it.
    pub usage: crate::run_table::ItemUsage,
}

/// Item contexts by join key; the first run to name a key sets its context.
pub type ItemContexts = std::collections::HashMap<ItemKey, ItemContext>;

/// One item present in at least one of two runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairedItem {
    /// The join key (e.g. `[item_id]`, `[conversation_id, turn_idx]`).
    pub key: ItemKey,
    /// Correctness in the baseline run; `None` when absent there or not scored.
    pub baseline: Option<bool>,
    pub candidate: Option<bool>,
    /// Ground truth and both answers as text, for the diff view.
    pub expected: Option<String>,
    pub baseline_answer: Option<String>,
    pub candidate_answer: Option<String>,
    /// Paired by item ([`Pairing::ByItem`]): the item's repeats reduced to one value in each
    /// run (`None` inside: no value there); the verdicts above are then `value ≥ 1`, and the
    /// flip follows the values. `None` when items pair as judged.
    #[serde(default)]
    pub values: Option<(Option<f64>, Option<f64>)>,
}

impl PairedItem {
    /// How the item changed. Paired by item, by its reduced values: regressed when the
    /// candidate's is lower, improved when higher, unchanged correct when both are 1 (or more).
    pub fn flip(&self) -> Flip {
        if let Some(values) = self.values {
            return match values {
                (Some(b), Some(c)) if c < b => Flip::Regressed,
                (Some(b), Some(c)) if c > b => Flip::Improved,
                (Some(b), Some(_)) if b >= 1.0 => Flip::UnchangedCorrect,
                (Some(_), Some(_)) => Flip::UnchangedWrong,
                (Some(_), None) => Flip::OnlyInBaseline,
                (None, Some(_)) => Flip::OnlyInCandidate,
                (None, None) => Flip::Unscored,
            };
        }
        match (self.baseline, self.candidate) {
            (Some(true), Some(false)) => Flip::Regressed,
            (Some(false), Some(true)) => Flip::Improved,
            (Some(true), Some(true)) => Flip::UnchangedCorrect,
            (Some(false), Some(false)) => Flip::UnchangedWrong,
            (Some(_), None) => Flip::OnlyInBaseline,
            (None, Some(_)) => Flip::OnlyInCandidate,
            (None, None) => Flip::Unscored,
        }
    }
}

/// An item that failed as a whole in one run (counted wrong there), with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedItem {
    pub key: ItemKey,
    /// `baseline` or `candidate` (or both, as two entries).
    pub run: String,
    pub reason: String,
}

/// How an item changed from baseline to candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flip {
    /// Correct in the baseline, wrong in the candidate (McNemar's b).
    Regressed,
    /// Wrong in the baseline, correct in the candidate (McNemar's c).
    Improved,
    UnchangedCorrect,
    UnchangedWrong,
    /// Scored only in the baseline (missing or unscored in the candidate).
    OnlyInBaseline,
    OnlyInCandidate,
    /// Present but scored in neither run.
    Unscored,
}

impl Flip {
    /// The class's name as it is serialised (`unchanged_correct`): the value of a flip filter
    /// and of the dashboard's `data-flip` attribute.
    pub fn slug(&self) -> &'static str {
        match self {
            Flip::Regressed => "regressed",
            Flip::Improved => "improved",
            Flip::UnchangedCorrect => "unchanged_correct",
            Flip::UnchangedWrong => "unchanged_wrong",
            Flip::OnlyInBaseline => "only_in_baseline",
            Flip::OnlyInCandidate => "only_in_candidate",
            Flip::Unscored => "unscored",
        }
    }
}

/// Counts per flip class. Counts add, so per-shard counts merge into the whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlipCounts {
    pub regressed: u64,
    pub improved: u64,
    pub unchanged_correct: u64,
    pub unchanged_wrong: u64,
    pub only_in_baseline: u64,
    pub only_in_candidate: u64,
    pub unscored: u64,
}

impl FlipCounts {
    pub fn of(pairs: &[PairedItem]) -> FlipCounts {
        let mut c = FlipCounts::default();
        for p in pairs {
            c.count(p.flip());
        }
        c
    }
    pub fn count(&mut self, f: Flip) {
        match f {
            Flip::Regressed => self.regressed += 1,
            Flip::Improved => self.improved += 1,
            Flip::UnchangedCorrect => self.unchanged_correct += 1,
            Flip::UnchangedWrong => self.unchanged_wrong += 1,
            Flip::OnlyInBaseline => self.only_in_baseline += 1,
            Flip::OnlyInCandidate => self.only_in_candidate += 1,
            Flip::Unscored => self.unscored += 1,
        }
    }
    pub fn merge(&mut self, o: &FlipCounts) {
        self.regressed += o.regressed;
        self.improved += o.improved;
        self.unchanged_correct += o.unchanged_correct;
        self.unchanged_wrong += o.unchanged_wrong;
        self.only_in_baseline += o.only_in_baseline;
        self.only_in_candidate += o.only_in_candidate;
        self.unscored += o.unscored;
    }
    /// Items scored in both runs.
    pub fn n_paired(&self) -> u64 {
        self.regressed + self.improved + self.unchanged_correct + self.unchanged_wrong
    }
}

/// Exact two-sided McNemar test on the discordant pairs: `b` regressed, `c` improved.
///
/// Under H0 each discordant pair is equally likely to go either way, so with `n = b + c` and
/// `k = min(b, c)`: `p = min(1, 2 · Σ_{i=0..k} C(n, i) / 2^n)`; `p = 1` when `n = 0`. Terms are
/// summed in log space (`ln C(n, i+1) = ln C(n, i) + ln(n − i) − ln(i + 1)`, then log-sum-exp
/// against the largest term), so large `n` neither overflows nor underflows to a wrong 0; for
/// `n <= 120` the sum is computed exactly in integers instead.
pub fn mcnemar_exact_p(b: u64, c: u64) -> f64 {
    let n = b.saturating_add(c);
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    if 2 * k >= n {
        return 1.0;
    }
    if let Some(p) = mcnemar_exact_small(n, k) {
        return p;
    }
    mcnemar_log_space(n, k)
}

/// `2 · Σ_{i≤k} C(n, i) / 2^n` in log space with O(1) memory. The terms increase with `i`
/// (`k < n/2`), so each new term is the running maximum: `S ← S · e^{t_{i−1} − t_i} + 1` keeps
/// `S = Σ e^{t_j − t_i}`.
fn mcnemar_log_space(n: u64, k: u64) -> f64 {
    let nf = n as f64;
    let mut ln_c = 0.0f64; // ln C(n, 0)
    let mut sum = 1.0f64;
    for i in 0..k {
        let fi = i as f64;
        let step = (nf - fi).ln() - (fi + 1.0).ln();
        ln_c += step;
        sum = sum * (-step).exp() + 1.0;
    }
    let ln_p = std::f64::consts::LN_2 + ln_c + sum.ln() - nf * std::f64::consts::LN_2;
    ln_p.exp().min(1.0)
}

/// For `n <= 120` the tail sum is an exact integer (it fits in u128), so
/// `2 · Σ / 2^n` is correctly rounded: one rounding of the integer to f64, then exact scaling
/// by powers of two. `None` if an intermediate would overflow.
fn mcnemar_exact_small(n: u64, k: u64) -> Option<f64> {
    if n > 120 {
        return None;
    }
    let mut coef: u128 = 1;
    let mut total: u128 = 0;
    for i in 0..=k {
        total = total.checked_add(coef)?;
        coef = coef.checked_mul(u128::from(n - i))? / u128::from(i + 1);
    }
    let p = (total as f64) * 2.0 / 2f64.powi(i32::try_from(n).ok()?);
    Some(p.min(1.0))
}

/// The default number of bootstrap resamples.
pub const DEFAULT_RESAMPLES: u32 = 10_000;
/// The default bootstrap seed (any fixed value, so reports are reproducible; kept below 2^53 so
/// it survives a round trip through JavaScript numbers).
pub const DEFAULT_SEED: u64 = 42;

/// A 95% paired bootstrap confidence interval for accuracy(candidate) − accuracy(baseline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapCi {
    /// 2.5th percentile; `None` without pairs or resamples.
    pub low: Option<f64>,
    /// 97.5th percentile.
    pub high: Option<f64>,
    /// The observed difference on the pairs themselves.
    pub observed: Option<f64>,
    pub n_pairs: u64,
    pub resamples: u32,
    pub seed: u64,
}

/// Paired bootstrap, percentile method, over `(baseline_correct, candidate_correct)` pairs:
/// [`crate::stats::paired_bootstrap`] of their four counts.
pub fn paired_bootstrap_ci(pairs: &[(bool, bool)], resamples: u32, seed: u64) -> BootstrapCi {
    let mut counts = PairCounts::default();
    for (b, c) in pairs {
        counts.push(*b, *c);
    }
    bootstrap_ci(counts, resamples, seed)
}

/// The paired bootstrap CI of the four counts ([`crate::stats::paired_bootstrap`]).
pub fn bootstrap_ci(counts: PairCounts, resamples: u32, seed: u64) -> BootstrapCi {
    let b = crate::stats::paired_bootstrap(counts, resamples, seed);
    BootstrapCi {
        low: b.low,
        high: b.high,
        observed: b.observed,
        n_pairs: counts.n(),
        resamples,
        seed,
    }
}

/// A p-value as every consumer shows it (the dashboard, the report, the CLI): four decimals,
/// and "< 0.0001" below that, so one comparison never reads 0.062 in one place and 0.0625 in
/// another.
pub fn p_value_text(p: f64) -> String {
    if p.is_nan() {
        "n/a".into()
    } else if p < 0.0001 {
        "< 0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// Which way a comparison reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    /// The candidate is worse, significantly by at least one test.
    Worse,
    /// The candidate is better, significantly by at least one test.
    Better,
    /// Flips both ways (or a net change) that neither test calls significant.
    Undecided,
    /// No item changed its verdict.
    Same,
    /// Nothing to compare (no paired items).
    Empty,
}

/// Why two runs' items should not be paired at all, from each run's (task, dataset)
/// ([`crate::run::RunRef::task_and_dataset`]): they are of different tasks or datasets. `None`
/// when nothing says so (a side that names none counts as the same).
pub fn not_comparable(
    baseline: &(Option<String>, Option<String>),
    run: &(Option<String>, Option<String>),
) -> Option<String> {
    let differ = |a: &Option<String>, b: &Option<String>| match (a, b) {
        (Some(a), Some(b)) if a != b => Some((a.clone(), b.clone())),
        _ => None,
    };
    if let Some((a, b)) = differ(&baseline.0, &run.0) {
        return Some(format!(
            "different tasks ({a} and {b}); their items share keys only by chance"
        ));
    }
    differ(&baseline.1, &run.1).map(|(a, b)| {
        format!("different datasets ({a} and {b}); their items share keys only by chance")
    })
}

/// A comparison read in one sentence, and which way it reads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reading {
    pub tone: Tone,
    pub text: String,
}

/// The comparison of `candidate` with `baseline` in words: how many items got worse and
/// better, the largest shared cause of the regressions (`causes`: a regressed item's key to why
/// the candidate failed it, e.g. the conversation's timeout), and whether the change is
/// significant at 5% by the bootstrap CI and by McNemar's exact test, e.g. "o3 is worse on 5
/// items (4 of them: Evaluation timeout (300s)) and better on 1, net −4.0 points over 100
/// paired items; significant at 5% by the bootstrap CI [−0.080, −0.010] but not by McNemar's
/// p = 0.2188".
pub fn reading(
    baseline: &str,
    candidate: &str,
    s: &PairedComparison,
    causes: &dyn Fn(&ItemKey) -> Option<String>,
) -> Reading {
    let f = &s.flips;
    let n = s.n_paired;
    if n == 0 {
        return Reading {
            tone: Tone::Empty,
            text: format!(
                "{candidate} and {baseline} have no item scored in both: nothing to compare \
                 (the runs share no item keys, or one has no per-item data)."
            ),
        };
    }
    if f.regressed == 0 && f.improved == 0 {
        return Reading {
            tone: Tone::Same,
            text: format!(
                "{candidate} and {baseline} agree on every one of the {n} paired items \
                 ({} correct in both, {} wrong in both).",
                f.unchanged_correct, f.unchanged_wrong
            ),
        };
    }
    let items = |k: u64| if k == 1 { "item" } else { "items" };
    let mut cause_counts: Vec<(String, u64)> = Vec::new();
    for p in s.pairs.iter().filter(|p| p.flip() == Flip::Regressed) {
        if let Some(c) = causes(&p.key) {
            match cause_counts.iter_mut().find(|(k, _)| *k == c) {
                Some((_, k)) => *k += 1,
                None => cause_counts.push((c, 1)),
            }
        }
    }
    cause_counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let cause = match cause_counts.first() {
        Some((c, k)) if f.regressed > 0 => {
            let cut: String = c.chars().take(60).collect();
            if *k == f.regressed {
                format!(" (all of them: {cut})")
            } else {
                format!(" ({k} of them: {cut})")
            }
        }
        _ => String::new(),
    };
    let delta = s.accuracy_delta.unwrap_or(0.0);
    let (worse_first, tone_if_sig) = if delta < 0.0 || (delta == 0.0 && f.regressed > f.improved) {
        (true, Tone::Worse)
    } else {
        (false, Tone::Better)
    };
    let moves = if worse_first {
        format!(
            "{candidate} is worse on {} {}{cause} and better on {}",
            f.regressed,
            items(f.regressed),
            f.improved
        )
    } else {
        format!(
            "{candidate} is better on {} {} and worse on {}{cause}",
            f.improved,
            items(f.improved),
            f.regressed
        )
    };
    let net = format!(
        "net {}{:.1} points over {n} paired items",
        if delta < 0.0 { "−" } else { "+" },
        (delta * 100.0).abs()
    );
    // Paired by item with values other than 0 and 1: the item-clustered CI alone (no McNemar,
    // no bootstrap of two rates).
    if let Some(m) = s.by_item.as_ref().filter(|m| !m.binary) {
        let (sig, text) = match (m.ci_low, m.ci_high) {
            (Some(l), Some(h)) => (
                l > 0.0 || h < 0.0,
                format!("the item-clustered CI [{}, {}]", signed(l), signed(h)),
            ),
            _ => (
                false,
                "the item-clustered CI (not computed: fewer than two items)".into(),
            ),
        };
        let significance = if sig {
            format!("significant at 5% by {text}")
        } else {
            format!("not significant at 5%: {text} includes 0 (likely noise)")
        };
        return Reading {
            tone: if sig { tone_if_sig } else { Tone::Undecided },
            text: format!(
                "{moves}, net {}{:.1} points of mean {} over {n} paired items; {significance}.",
                if delta < 0.0 { "−" } else { "+" },
                (delta * 100.0).abs(),
                m.reducer
            ),
        };
    }
    let ci = &s.bootstrap;
    let ci_sig = match (ci.low, ci.high) {
        (Some(l), Some(h)) => Some(l > 0.0 || h < 0.0),
        _ => None,
    };
    let ci_text = match (ci.low, ci.high) {
        (Some(l), Some(h)) => format!("the bootstrap CI [{}, {}]", signed(l), signed(h)),
        _ => "the bootstrap CI (not computed)".to_string(),
    };
    let p = p_value_text(s.mcnemar_p);
    let p_sig = s.mcnemar_p < 0.05;
    let significance = match (ci_sig, p_sig) {
        (Some(true), true) => format!("significant at 5% by {ci_text} and by McNemar's p = {p}"),
        (Some(true), false) => {
            format!("significant at 5% by {ci_text} but not by McNemar's p = {p}")
        }
        (_, true) => format!("significant at 5% by McNemar's p = {p} but not by {ci_text}"),
        (_, false) => format!(
            "not significant at 5%: {ci_text} includes 0 and McNemar's p = {p} (likely noise)"
        ),
    };
    let tone = if ci_sig == Some(true) || p_sig {
        tone_if_sig
    } else {
        Tone::Undecided
    };
    Reading {
        tone,
        text: format!("{moves}, {net}; {significance}."),
    }
}

/// A difference of rates with its sign (`−0.080`, `+0.010`).
fn signed(x: f64) -> String {
    if x < 0.0 {
        format!("−{:.3}", -x)
    } else {
        format!("+{x:.3}")
    }
}

/// Resampling settings for [`compare_pairs`], and which pairs keep their texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareOptions {
    pub resamples: u32,
    pub seed: u64,
    pub texts: PairTexts,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
            texts: PairTexts::All,
        }
    }
}

/// Which pairs carry their texts (expected value, both answers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PairTexts {
    /// Every pair: the dashboard lists and filters all of them.
    #[default]
    All,
    /// Only the pairs whose verdict changed or that one run lacks: the CLI prints no others,
    /// and two 1M-turn runs' unchanged texts were ~half of `diff`'s memory.
    Changed,
    /// No pair is kept, only the counts (the many-runs comparison reads nothing else).
    None,
}

impl PairTexts {
    /// Whether a pair that flipped this way keeps its texts.
    pub fn keeps(self, flip: Flip) -> bool {
        match self {
            PairTexts::All => true,
            PairTexts::Changed => !matches!(
                flip,
                Flip::UnchangedCorrect | Flip::UnchangedWrong | Flip::Unscored
            ),
            PairTexts::None => false,
        }
    }
}

/// The paired statistics of two runs' verdicts on the items scored in both: what the four
/// counts of the 2×2 table alone determine ([`PairedStats::from_counts`]), so per-shard counts
/// merge into the statistics of the whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedStats {
    pub flips: FlipCounts,
    /// Items scored in both runs.
    pub n_paired: u64,
    /// Accuracy over the paired items only; `None` when nothing is paired.
    pub baseline_accuracy: Option<f64>,
    pub candidate_accuracy: Option<f64>,
    /// `candidate_accuracy − baseline_accuracy` as `(Σc − Σb) / n_paired`.
    pub accuracy_delta: Option<f64>,
    /// [`mcnemar_exact_p`]`(regressed, improved)`; NaN when items pair by item and a reduced
    /// value is neither 0 nor 1 (the test does not apply).
    pub mcnemar_p: f64,
    pub bootstrap: BootstrapCi,
    /// Paired by item ([`Pairing::ByItem`]): the mean difference of the reduced values with its
    /// item-clustered CI; the accuracies above are then the mean reduced values.
    #[serde(default)]
    pub by_item: Option<ItemMeans>,
}

/// How two runs' items pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pairing {
    /// On the item keys as each run judges them (an eval log's `[id, epoch]`: each repeat its
    /// own pair).
    #[default]
    AsJudged,
    /// Per item: each item's repeats (epochs) reduced to one value by the reducer (`None`: the
    /// family's default for the judge, an Inspect headline's own reducer, else `mean`), then
    /// paired ([`by_item::join`]).
    ByItem(Option<crate::repeats::Reduction>),
}

/// Two runs paired by item: the mean of each item's reduced value in both, their difference
/// with its standard error clustered by item and the normal 95% interval
/// ([`crate::stats::MeanDiff`]), over the items with a value in both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemMeans {
    /// The reducer (`pass_at_2`, `mean`).
    pub reducer: String,
    /// Every reduced value is 0 or 1: McNemar's test and the bootstrap apply.
    pub binary: bool,
    pub n_items: u64,
    pub baseline_mean: Option<f64>,
    pub candidate_mean: Option<f64>,
    pub delta: Option<f64>,
    pub stderr: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
}

impl ItemMeans {
    /// The means of `d` reduced by `reducer`.
    pub fn of(reducer: &str, binary: bool, d: &crate::stats::MeanDiff) -> ItemMeans {
        let ci = d.ci95();
        ItemMeans {
            reducer: reducer.to_string(),
            binary,
            n_items: d.n(),
            baseline_mean: d.baseline_mean(),
            candidate_mean: d.candidate_mean(),
            delta: d.delta(),
            stderr: d.stderr(),
            ci_low: ci.map(|c| c.0),
            ci_high: ci.map(|c| c.1),
        }
    }
}

impl PairedStats {
    /// The statistics of the four counts: accuracies, their difference, McNemar's exact p and
    /// the seeded paired bootstrap CI (`opts.resamples`, `opts.seed`). `flips` holds the four
    /// counts (no item only in one run).
    pub fn from_counts(counts: PairCounts, opts: &CompareOptions) -> PairedStats {
        let n = counts.n();
        let acc = |k: u64| (n > 0).then(|| k as f64 / n as f64);
        let bootstrap = bootstrap_ci(counts, opts.resamples, opts.seed);
        PairedStats {
            flips: FlipCounts {
                regressed: counts.n10,
                improved: counts.n01,
                unchanged_correct: counts.n11,
                unchanged_wrong: counts.n00,
                ..FlipCounts::default()
            },
            n_paired: n,
            baseline_accuracy: acc(counts.n11 + counts.n10),
            candidate_accuracy: acc(counts.n11 + counts.n01),
            accuracy_delta: bootstrap.observed,
            mcnemar_p: mcnemar_exact_p(counts.n10, counts.n01),
            bootstrap,
            by_item: None,
        }
    }

    /// Paired by item with reduced values that are not all 0 or 1: the means and their
    /// difference stand for the accuracies; no McNemar test (NaN) and no bootstrap interval
    /// (the item-clustered one is in `by_item`).
    pub fn from_means(means: ItemMeans, flips: FlipCounts, opts: &CompareOptions) -> PairedStats {
        PairedStats {
            flips,
            n_paired: means.n_items,
            baseline_accuracy: means.baseline_mean,
            candidate_accuracy: means.candidate_mean,
            accuracy_delta: means.delta,
            mcnemar_p: f64::NAN,
            bootstrap: BootstrapCi {
                low: None,
                high: None,
                observed: means.delta,
                n_pairs: means.n_items,
                resamples: 0,
                seed: opts.seed,
            },
            by_item: Some(means),
        }
    }
}

/// One baseline-vs-candidate comparison: the paired items and their statistics (read through
/// `Deref` as `comparison.mcnemar_p`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedComparison {
    /// Sorted by key.
    pub pairs: Vec<PairedItem>,
    pub stats: PairedStats,
}

impl std::ops::Deref for PairedComparison {
    type Target = PairedStats;
    fn deref(&self) -> &PairedStats {
        &self.stats
    }
}

impl std::ops::DerefMut for PairedComparison {
    fn deref_mut(&mut self) -> &mut PairedStats {
        &mut self.stats
    }
}

impl FlipCounts {
    /// The 2×2 table of the items scored in both runs.
    pub fn pair_counts(&self) -> PairCounts {
        PairCounts {
            n11: self.unchanged_correct,
            n10: self.regressed,
            n01: self.improved,
            n00: self.unchanged_wrong,
        }
    }
}

/// Flips, McNemar and the bootstrap CI over the items scored in both runs.
pub fn compare_pairs(mut pairs: Vec<PairedItem>, opts: &CompareOptions) -> PairedComparison {
    if opts.texts != PairTexts::All {
        for p in pairs.iter_mut().filter(|p| !opts.texts.keeps(p.flip())) {
            (p.expected, p.baseline_answer, p.candidate_answer) = (None, None, None);
        }
    }
    // Natural key order (`2` before `10`), as the join makes them.
    pairs.sort_by(|a, b| a.key.cmp(&b.key));
    let flips = FlipCounts::of(&pairs);
    let mut stats = PairedStats::from_counts(flips.pair_counts(), opts);
    stats.flips = flips;
    PairedComparison { pairs, stats }
}

// ---------------------------------------------------------------------------------------------
// Text diff
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    Equal,
    /// Only in `b` (the candidate / prediction).
    Insert,
    /// Only in `a` (the baseline / expected).
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffSpan {
    pub kind: DiffKind,
    pub text: String,
    /// An Equal span of two numbers written differently but equal as numbers (`4.5` / `4.50`,
    /// `1,000` / `1000`; [`words::EQUAL_AS_NUMBERS`]): the candidate's spelling, `text` being
    /// the baseline's. `None` everywhere else.
    pub other: Option<String>,
}

/// Word-level diff of `a` → `b` (Myers): [`words::word_diff`]'s spans. Tokens are runs of
/// alphanumeric characters, runs of whitespace, single other characters and numbers (one token
/// each, equal when equal as numbers), so `42.` vs `42` differs only in the `.`. Adjacent spans
/// of the same kind are merged; concatenating Equal+Delete spans gives `a`, Equal (its
/// [`DiffSpan::other`] where set)+Insert gives `b`. Texts that share little come back as one
/// Delete and one Insert ([`words::WordDiff::whole`] says so).
pub fn diff_text(a: &str, b: &str) -> Vec<DiffSpan> {
    words::word_diff(a, b).spans
}

/// Character-level diff of `a` → `b` (Myers, on Unicode scalar values).
pub fn diff_chars(a: &str, b: &str) -> Vec<DiffSpan> {
    diff_tokens(&char_tokens(a), &char_tokens(b))
}

fn char_tokens(s: &str) -> Vec<&str> {
    s.char_indices()
        .map(|(i, c)| s.get(i..i + c.len_utf8()).unwrap_or(""))
        .collect()
}

fn diff_tokens(a: &[&str], b: &[&str]) -> Vec<DiffSpan> {
    let part = |v: &[&str], at: usize, len: usize| -> String {
        v.get(at..at + len).unwrap_or(&[]).concat()
    };
    words::myers_spans(
        a,
        b,
        (&|at, len| part(a, at, len), &|at, len| part(b, at, len)),
        |old_index, _, len, out| out.push(DiffKind::Equal, part(a, old_index, len), None),
    )
    .0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` paired items from (baseline, candidate) verdict counts.
    fn paired(counts: &[((bool, bool), usize)]) -> PairedComparison {
        let mut pairs = Vec::new();
        for &((b, c), k) in counts {
            for _ in 0..k {
                pairs.push(PairedItem {
                    key: ItemKey::text(&format!("{:04}", pairs.len())),
                    baseline: Some(b),
                    candidate: Some(c),
                    ..Default::default()
                });
            }
        }
        compare_pairs(pairs, &CompareOptions::default())
    }

    #[test]
    fn a_comparison_reads_in_one_sentence() {
        let none = |_: &ItemKey| None;
        // Worse on 5, 4 of them for one cause; significant by the CI only.
        let s = paired(&[((true, false), 5), ((true, true), 16), ((false, false), 27)]);
        let timeouts = |k: &ItemKey| {
            (k.to_string().as_str() < "0004").then(|| "Evaluation timeout (300s)".to_string())
        };
        let r = reading("gpt-4o", "o3", &s, &timeouts);
        assert_eq!(r.tone, Tone::Worse);
        assert_eq!(
            r.text,
            "o3 is worse on 5 items (4 of them: Evaluation timeout (300s)) and better on 0, net \
             −10.4 points over 48 paired items; significant at 5% by the bootstrap CI [−0.188, \
             −0.021] but not by McNemar's p = 0.0625."
        );
        // Better, significant by both.
        let s = paired(&[((false, true), 12), ((true, true), 30)]);
        let r = reading("a", "b", &s, &none);
        assert_eq!(r.tone, Tone::Better);
        assert!(
            r.text
                .starts_with("b is better on 12 items and worse on 0, net +28.6 points"),
            "{}",
            r.text
        );
        assert!(r.text.contains("and by McNemar's p = 0.0005"), "{}", r.text);
        // Both ways, not significant.
        let s = paired(&[((false, true), 3), ((true, false), 2), ((true, true), 40)]);
        let r = reading("a", "b", &s, &none);
        assert_eq!(r.tone, Tone::Undecided);
        assert!(r.text.contains("not significant at 5%"), "{}", r.text);
        assert!(r.text.contains("(likely noise)"), "{}", r.text);
        // No change; nothing paired.
        let r = reading(
            "a",
            "a",
            &paired(&[((true, true), 3), ((false, false), 1)]),
            &none,
        );
        assert_eq!(r.tone, Tone::Same);
        assert_eq!(r.text, "a and a agree on every one of the 4 paired items (3 correct in both, 1 wrong in both).");
        let r = reading("a", "b", &paired(&[]), &none);
        assert_eq!(r.tone, Tone::Empty);
    }

    /// Exact two-sided binomial p, by hand: 2 · Σ_{i≤k} C(n,i) / 2^n, capped at 1.
    fn exact_p(b: u64, c: u64) -> f64 {
        let n = b + c;
        if n == 0 {
            return 1.0;
        }
        let k = b.min(c);
        let mut coef: u128 = 1;
        let mut total: u128 = 0;
        for i in 0..=k {
            total += coef;
            coef = coef * u128::from(n - i) / u128::from(i + 1);
        }
        (2.0 * total as f64 / 2f64.powi(n as i32)).min(1.0)
    }

    fn check_p(b: u64, c: u64, expected: f64) {
        let got = mcnemar_exact_p(b, c);
        let tol = 1e-12 * expected.max(1e-300);
        assert!(
            (got - expected).abs() <= tol,
            "b={b} c={c}: got {got:e}, expected {expected:e}"
        );
    }

    #[test]
    fn mcnemar_hand_values() {
        check_p(0, 0, 1.0);
        check_p(1, 5, 14.0 / 64.0); // 2·(1 + 6)/64 = 0.21875
        check_p(5, 1, 14.0 / 64.0);
        check_p(0, 1, 1.0);
        check_p(0, 5, 2.0 / 32.0); // 0.0625
        check_p(0, 6, 2.0 / 64.0);
        check_p(2, 10, 2.0 * (1.0 + 12.0 + 66.0) / 4096.0);
        check_p(3, 3, 1.0);
        check_p(4, 5, 1.0);
        check_p(0, 20, 2.0 / 1_048_576.0);
        for (b, c) in [
            (3, 17),
            (10, 30),
            (25, 40),
            (7, 90),
            (50, 50),
            (31, 64),
            (40, 80),
        ] {
            check_p(b, c, exact_p(b, c));
            // The log-space path (used above n = 120) agrees with the exact one.
            let (n, k) = (b + c, b.min(c));
            if 2 * k < n {
                let l = mcnemar_log_space(n, k);
                let e = exact_p(b, c);
                assert!((l - e).abs() <= 1e-12 * e, "b={b} c={c}: {l:e} vs {e:e}");
            }
        }
        // Exact path: correctly rounded, so equal to the hand value to the bit.
        assert_eq!(mcnemar_exact_p(2, 17), 382.0 / 524_288.0);
    }

    #[test]
    fn mcnemar_large_counts_stay_finite_and_ordered() {
        // 2·P(X ≤ 0) for n = 2000 is 2^-1999: below f64's normal range but not zero in log space.
        let p = mcnemar_exact_p(0, 2000);
        assert!(p == 0.0 || p < 1e-300);
        let p1 = mcnemar_exact_p(4_900, 5_100);
        let p2 = mcnemar_exact_p(4_800, 5_200);
        assert!(p1 > p2 && p1 < 1.0 && p2 > 0.0, "{p1} {p2}");
        // Normal approximation check: z = (5100 − 4900)/√10000 = 2 → p ≈ 0.0455 (continuity
        // corrected ≈ 0.0466); the exact value lies close by.
        assert!((p1 - 0.0466).abs() < 0.002, "{p1}");
        assert_eq!(mcnemar_exact_p(u64::MAX, 0), 0.0);
        assert_eq!(mcnemar_exact_p(1_000_000, 1_000_000), 1.0);
    }

    #[test]
    fn splitmix_and_xoshiro_reference_vectors() {
        // SplitMix64 with seed 0 (reference C implementation).
        let mut sm = SplitMix64::new(0);
        assert_eq!(sm.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(sm.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(sm.next_u64(), 0x06c4_5d18_8009_454f);
        // xoshiro256** seeded from SplitMix64(0), against the reference C implementation.
        let mut r = Rng::seed_from_u64(0);
        let got: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(got, XOSHIRO_SEED0);
        let mut r = Rng::seed_from_u64(42);
        assert_eq!(r.next_u64(), 0x1578_0b2e_0c2e_c716);
        assert_eq!(r.next_u64(), 0x6104_d986_6d11_3a7e);
    }

    /// First outputs of the reference `xoshiro256starstar.c` with s = SplitMix64(0) × 4.
    const XOSHIRO_SEED0: [u64; 4] = [
        0x99ec_5f36_cb75_f2b4,
        0xbf6e_1f78_4956_452a,
        0x1a5f_849d_4933_e6e0,
        0x6aa5_94f1_262d_2d2c,
    ];

    #[test]
    fn below_is_in_range_and_deterministic() {
        let mut a = Rng::seed_from_u64(42);
        let mut b = Rng::seed_from_u64(42);
        for n in [1u64, 2, 3, 7, 100, 1 << 40, u64::MAX] {
            for _ in 0..100 {
                let x = a.below(n);
                assert!(x < n);
                assert_eq!(x, b.below(n));
            }
        }
        assert_eq!(a.below(0), 0);
    }

    /// The same resample indices, the obvious way: floats, a naive loop, a float sort.
    fn reference_ci(pairs: &[(bool, bool)], resamples: u32, seed: u64) -> (f64, f64) {
        let n = pairs.len();
        let mut rng = Rng::seed_from_u64(seed);
        let mut diffs = Vec::new();
        for _ in 0..resamples {
            let mut base = 0.0;
            let mut cand = 0.0;
            for _ in 0..n {
                let i = rng.below(n as u64) as usize;
                if pairs[i].0 {
                    base += 1.0;
                }
                if pairs[i].1 {
                    cand += 1.0;
                }
            }
            diffs.push((cand - base) / n as f64);
        }
        diffs.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let r = resamples as f64;
        let lo = (0.025 * r).ceil() as usize;
        let hi = (0.975 * r).ceil() as usize;
        (diffs[lo - 1], diffs[hi - 1])
    }

    fn sample_pairs() -> Vec<(bool, bool)> {
        // 40 items: 12 both right, 15 both wrong, 4 regressed, 9 improved.
        let mut v = Vec::new();
        v.extend(std::iter::repeat_n((true, true), 12));
        v.extend(std::iter::repeat_n((false, false), 15));
        v.extend(std::iter::repeat_n((true, false), 4));
        v.extend(std::iter::repeat_n((false, true), 9));
        v
    }

    #[test]
    fn bootstrap_matches_naive_reference() {
        let pairs = sample_pairs();
        // The multinomial draw resamples the same distribution as drawing n indices: the
        // bounds agree with the naive bootstrap's to one item (1/40) at R ≥ 1000.
        for (resamples, seed) in [(10_000, DEFAULT_SEED), (1_000, 7), (40, 1), (1, 3)] {
            let ci = paired_bootstrap_ci(&pairs, resamples, seed);
            let (lo, hi) = reference_ci(&pairs, resamples, seed);
            let (l, h) = (ci.low.unwrap_or(f64::NAN), ci.high.unwrap_or(f64::NAN));
            if resamples >= 1_000 {
                assert!(
                    (l - lo).abs() <= 0.025 + 1e-12,
                    "R={resamples}: {l} vs {lo}"
                );
                assert!(
                    (h - hi).abs() <= 0.025 + 1e-12,
                    "R={resamples}: {h} vs {hi}"
                );
                assert!(l <= 0.125 && 0.125 <= h);
            }
            assert!(l <= h && (-1.0..=1.0).contains(&l) && (-1.0..=1.0).contains(&h));
            assert_eq!(ci.observed, Some(5.0 / 40.0));
        }
    }

    #[test]
    fn bootstrap_is_deterministic_and_seed_sensitive() {
        let pairs = sample_pairs();
        let a = paired_bootstrap_ci(&pairs, 2_000, 99);
        let b = paired_bootstrap_ci(&pairs, 2_000, 99);
        assert_eq!(a, b);
        let c = paired_bootstrap_ci(&pairs, 2_000, 100);
        assert_eq!(c.seed, 100);
        assert_eq!(c.resamples, 2_000);
    }

    #[test]
    fn bootstrap_edge_cases() {
        let empty = paired_bootstrap_ci(&[], 100, 1);
        assert_eq!((empty.low, empty.high, empty.observed), (None, None, None));
        let none = paired_bootstrap_ci(&[(true, false)], 0, 1);
        assert_eq!(
            (none.low, none.high, none.observed),
            (None, None, Some(-1.0))
        );
        let same = paired_bootstrap_ci(&[(true, true), (false, false)], 500, 1);
        assert_eq!((same.low, same.high), (Some(0.0), Some(0.0)));
    }

    fn item(key: &str, b: Option<bool>, c: Option<bool>) -> PairedItem {
        PairedItem {
            key: ItemKey::text(key),
            baseline: b,
            candidate: c,
            ..PairedItem::default()
        }
    }

    #[test]
    fn flips_and_comparison() {
        let pairs = vec![
            item("e", Some(true), Some(false)),
            item("a", Some(false), Some(true)),
            item("b", Some(true), Some(true)),
            item("c", Some(false), Some(false)),
            item("d", Some(true), None),
            item("f", None, Some(false)),
            item("g", None, None),
        ];
        let flips: Vec<Flip> = pairs.iter().map(PairedItem::flip).collect();
        assert_eq!(
            flips,
            [
                Flip::Regressed,
                Flip::Improved,
                Flip::UnchangedCorrect,
                Flip::UnchangedWrong,
                Flip::OnlyInBaseline,
                Flip::OnlyInCandidate,
                Flip::Unscored
            ]
        );
        let cmp = compare_pairs(pairs.clone(), &CompareOptions::default());
        let keys: Vec<String> = cmp.pairs.iter().map(|p| p.key.to_string()).collect();
        assert_eq!(keys, ["a", "b", "c", "d", "e", "f", "g"]);
        assert_eq!(cmp.n_paired, 4);
        assert_eq!(cmp.flips.n_paired(), 4);
        assert_eq!(cmp.baseline_accuracy, Some(0.5));
        assert_eq!(cmp.candidate_accuracy, Some(0.5));
        assert_eq!(cmp.accuracy_delta, Some(0.0));
        assert_eq!(cmp.mcnemar_p, 1.0);
        let mut merged = FlipCounts::of(&pairs[..3]);
        merged.merge(&FlipCounts::of(&pairs[3..]));
        assert_eq!(merged, cmp.flips);
        let none = compare_pairs(vec![], &CompareOptions::default());
        assert_eq!((none.baseline_accuracy, none.accuracy_delta), (None, None));
    }

    fn spans(v: &[DiffSpan]) -> Vec<(char, &str)> {
        v.iter()
            .map(|s| {
                let k = match s.kind {
                    DiffKind::Equal => '=',
                    DiffKind::Insert => '+',
                    DiffKind::Delete => '-',
                };
                (k, s.text.as_str())
            })
            .collect()
    }

    fn rebuild(v: &[DiffSpan], skip: DiffKind) -> String {
        v.iter()
            .filter(|s| s.kind != skip)
            .map(|s| s.text.as_str())
            .collect()
    }

    #[test]
    fn word_diff() {
        let d = diff_text("The answer is 42.", "The answer is 43");
        assert_eq!(
            spans(&d),
            [('=', "The answer is "), ('-', "42."), ('+', "43")]
        );
        let d = diff_text("Paris", "Paris\nParis");
        assert_eq!(spans(&d), [('=', "Paris"), ('+', "\nParis")]);
        assert!(diff_text("", "").is_empty());
        assert_eq!(spans(&diff_text("", "x y")), [('+', "x y")]);
        // Numbers equal as numbers are equal (compare::words has the rules).
        assert_eq!(spans(&diff_text("1,000", "1000")), [('=', "1,000")]);
        for (a, b) in [
            ("15 + 27 = 42\n42\n42", "42"),
            ("naïve café ß", "naive cafe SS"),
            ("a  b\tc", "a b c"),
            ("x", ""),
        ] {
            let d = diff_text(a, b);
            assert_eq!(rebuild(&d, DiffKind::Insert), a);
            assert_eq!(rebuild(&d, DiffKind::Delete), b);
        }
    }

    #[test]
    fn char_diff() {
        let d = diff_chars("colour", "color");
        assert_eq!(spans(&d), [('=', "colo"), ('-', "u"), ('=', "r")]);
        let d = diff_chars("ß", "SS");
        assert_eq!(spans(&d), [('-', "ß"), ('+', "SS")]);
    }
}
