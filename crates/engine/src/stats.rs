//! Statistics from mergeable counts: every aggregate here is a handful of numbers that add up,
//! so per-shard (or per-file, per-worker, per-tick) aggregates merge into the aggregate of the
//! whole, and nothing keeps a `Vec<f64>` of values to summarise later.
//!
//! - [`Rate`]: `n` and `correct`, with Wilson's interval;
//! - [`Moments`]: `n`, mean and `M2` (the sum of squared deviations), merged by Chan's formula;
//! - [`ClusterSums`]: the sums an item-clustered standard error needs (epochs of one item are a
//!   cluster);
//! - [`holm`]: Holm's step-down adjustment of several p-values;
//! - [`pass_at_k`], [`pass_hat_k`], [`at_least_k`]: what `n` repeats of an item with `c` correct
//!   say about `k` tries (the unbiased pass@k estimator, pass^k, at least `k` correct);
//! - [`MeanDiff`]: a paired mean difference over items with its item-clustered standard error
//!   and normal 95% interval;
//! - [`PairCounts`] and [`paired_bootstrap`]: the paired bootstrap of a difference of two
//!   rates as a function of the four counts alone, one multinomial draw per resample, drawn
//!   with integers and IEEE `+ − × ÷` only, so native and wasm32 give the same bounds bit for
//!   bit.

use serde::{Deserialize, Serialize};

/// SplitMix64 (Steele, Lea & Flood 2014): used to expand a `u64` seed into xoshiro's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xoshiro256** 1.0 (Blackman & Vigna), seeded with four SplitMix64 outputs. Pure integer
/// arithmetic: identical sequences on every target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn seed_from_u64(seed: u64) -> Rng {
        let mut sm = SplitMix64::new(seed);
        Rng {
            s: [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let [s0, s1, s2, s3] = self.s;
        let result = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s1 << 17;
        let mut s = [s0, s1, s2 ^ s0, s3 ^ s1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        self.s = s;
        result
    }

    /// Uniform in `0..n` without modulo bias (Lemire's multiply-and-reject); `0` when `n == 0`.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
}

/// The nearest-rank `p` quantile of sorted `xs` (`None` when empty): the eval-log overview's
/// latency percentiles and a watched run's ([`crate::live`]).
pub fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted.get(rank - 1).copied()
}

/// A proportion as counts: `correct` of `n`. Counts add, so shards merge exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    pub n: u64,
    pub correct: u64,
}

impl Rate {
    pub fn new(correct: u64, n: u64) -> Rate {
        Rate { n, correct }
    }

    /// Counts one verdict.
    pub fn push(&mut self, correct: bool) {
        self.n += 1;
        self.correct += u64::from(correct);
    }

    pub fn merge(&mut self, o: &Rate) {
        self.n += o.n;
        self.correct += o.correct;
    }

    /// `correct / n`; `None` when `n == 0`.
    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.correct as f64 / self.n as f64)
    }

    /// Wilson's score interval at `z` (1.96 for 95%); `None` when `n == 0`. Unlike the normal
    /// approximation it stays inside 0–1 and is not empty at 0% or 100%.
    pub fn wilson(&self, z: f64) -> Option<(f64, f64)> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let p = self.correct as f64 / n;
        let z2 = z * z;
        let denom = 1.0 + z2 / n;
        let centre = (p + z2 / (2.0 * n)) / denom;
        let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
        Some(((centre - half).max(0.0), (centre + half).min(1.0)))
    }
}

/// Count, mean and `M2 = Σ (x − mean)²` of a set of numbers: what a mean, a variance and a
/// standard error need. Two `Moments` merge by Chan et al.'s pairwise formula, so shards of a
/// run give the moments of the whole (to rounding).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    pub n: u64,
    pub mean: f64,
    pub m2: f64,
}

impl Moments {
    /// The moments of `xs`, two-pass (the sum over `n`, then the squared deviations from it):
    /// the same floating-point steps as numpy's `mean` and `var`, so a recomputed number equals
    /// the one a tool recorded.
    pub fn of(xs: &[f64]) -> Moments {
        if xs.is_empty() {
            return Moments::default();
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let m2 = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>();
        Moments {
            n: xs.len() as u64,
            mean,
            m2,
        }
    }

    /// Adds one value (Welford's update).
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Merges another set's moments into these (Chan, Golub & LeVeque 1979).
    pub fn merge(&mut self, o: &Moments) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *o;
            return;
        }
        let (na, nb) = (self.n as f64, o.n as f64);
        let n = na + nb;
        let d = o.mean - self.mean;
        self.mean += d * nb / n;
        self.m2 += o.m2 + d * d * na * nb / n;
        self.n += o.n;
    }

    /// The mean; `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then_some(self.mean)
    }

    /// The sample variance (ddof 1); `None` below two values.
    pub fn variance(&self) -> Option<f64> {
        (self.n > 1).then(|| self.m2 / (self.n as f64 - 1.0))
    }

    /// The sample standard deviation (ddof 1); `None` below two values.
    pub fn std(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// The standard error of the mean, `√(variance / n)`; `None` below two values.
    pub fn stderr(&self) -> Option<f64> {
        self.variance().map(|v| (v / self.n as f64).sqrt())
    }

    /// `mean ± z · stderr`; `None` below two values.
    pub fn ci(&self, z: f64) -> Option<(f64, f64)> {
        let se = self.stderr()?;
        Some((self.mean - z * se, self.mean + z * se))
    }
}

/// The sums an item-clustered standard error needs, with each item (all its epochs) one
/// cluster: for cluster `c` with `n_c` values summing to `S_c`,
/// `Var(mean) = C/(C−1) · Σ_c (S_c − n_c·mean)² / n²` (the sandwich estimator; Miller 2024,
/// "Adding error bars to evals"). Every field is a sum over clusters, so shards that do not split
/// a cluster merge exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterSums {
    /// Clusters (items).
    pub clusters: u64,
    /// Values (item × epoch).
    pub n: u64,
    /// `Σ x`.
    pub sum: f64,
    /// `Σ_c S_c²`.
    pub sum_sq_cluster: f64,
    /// `Σ_c S_c · n_c`.
    pub sum_cross: f64,
    /// `Σ_c n_c²`.
    pub sum_sq_size: f64,
}

impl ClusterSums {
    /// Adds one cluster: the values of one item over its epochs.
    pub fn push_cluster(&mut self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        let s: f64 = values.iter().sum();
        let k = values.len() as f64;
        self.clusters += 1;
        self.n += values.len() as u64;
        self.sum += s;
        self.sum_sq_cluster += s * s;
        self.sum_cross += s * k;
        self.sum_sq_size += k * k;
    }

    pub fn merge(&mut self, o: &ClusterSums) {
        self.clusters += o.clusters;
        self.n += o.n;
        self.sum += o.sum;
        self.sum_sq_cluster += o.sum_sq_cluster;
        self.sum_cross += o.sum_cross;
        self.sum_sq_size += o.sum_sq_size;
    }

    /// The mean of every value; `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    /// The item-clustered standard error of the mean; `None` below two clusters.
    pub fn stderr(&self) -> Option<f64> {
        if self.clusters < 2 {
            return None;
        }
        let n = self.n as f64;
        let m = self.sum / n;
        let ss =
            (self.sum_sq_cluster - 2.0 * m * self.sum_cross + m * m * self.sum_sq_size).max(0.0);
        let c = self.clusters as f64;
        Some((c / (c - 1.0) * ss).sqrt() / n)
    }
}

/// pass@k, the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models
/// Trained on Code"): the chance that `k` of an item's `n` repeats drawn without replacement hold
/// at least one of its `c` correct ones, `1 − C(n−c, k) / C(n, k)`. Computed as Inspect AI's
/// `pass_at` reducer computes it: 1 when `n − c < k`, else `1 − Π_{i = n−c+1..=n} (1 − k/i)`.
/// `None` when `n < k` (undefined; Inspect's NaN) or `c > n`.
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if n < k || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let kf = k as f64;
    let mut prod = 1.0f64;
    for i in (n - c + 1)..=n {
        prod *= 1.0 - kf / i as f64;
    }
    Some(1.0 - prod)
}

/// pass^k (Yao et al. 2024, "τ-bench"): the chance that `k` of an item's `n` repeats drawn
/// without replacement are all among its `c` correct ones, `C(c, k) / C(n, k) =
/// Π_{i = 0..k} (c − i) / (n − i)`. `None` when `n < k` (Inspect's NaN) or `c > n`.
pub fn pass_hat_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if n < k || c > n {
        return None;
    }
    if c < k {
        return Some(0.0);
    }
    let mut prod = 1.0f64;
    for i in 0..k {
        prod *= (c - i) as f64 / (n - i) as f64;
    }
    Some(prod)
}

/// 1 when at least `k` of an item's repeats are correct, else 0 (Inspect AI's `at_least`
/// reducer: never undefined, whatever `n`).
pub fn at_least_k(c: u64, k: u64) -> f64 {
    if c >= k {
        1.0
    } else {
        0.0
    }
}

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A paired mean difference over items: each item's value in a baseline and a candidate run
/// (one value per item, its repeats already reduced), `candidate − baseline`, with the standard
/// error clustered by item ([`ClusterSums`], each item one cluster; with one value per item,
/// `C/(C−1) · Σ (d − d̄)² / n²` is the paired-differences standard error `sd(d) / √n`) and the
/// normal 95% interval `Δ ± 1.96·se` (Miller 2024, "Adding error bars to evals"). Sums over
/// items, so shards of items merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MeanDiff {
    /// `Σ baseline` over the items.
    pub baseline_sum: f64,
    /// `Σ candidate`.
    pub candidate_sum: f64,
    /// The differences, one cluster per item.
    pub diff: ClusterSums,
}

impl MeanDiff {
    /// Adds one item's pair of values.
    pub fn push(&mut self, baseline: f64, candidate: f64) {
        self.baseline_sum += baseline;
        self.candidate_sum += candidate;
        self.diff.push_cluster(&[candidate - baseline]);
    }

    pub fn merge(&mut self, o: &MeanDiff) {
        self.baseline_sum += o.baseline_sum;
        self.candidate_sum += o.candidate_sum;
        self.diff.merge(&o.diff);
    }

    /// Items paired (one difference each).
    pub fn n(&self) -> u64 {
        self.diff.n
    }

    /// The baseline's mean over the paired items; `None` without items.
    pub fn baseline_mean(&self) -> Option<f64> {
        (self.n() > 0).then(|| self.baseline_sum / self.n() as f64)
    }

    /// The candidate's mean over the paired items.
    pub fn candidate_mean(&self) -> Option<f64> {
        (self.n() > 0).then(|| self.candidate_sum / self.n() as f64)
    }

    /// `candidate − baseline`, the mean of the differences.
    pub fn delta(&self) -> Option<f64> {
        self.diff.mean()
    }

    /// The item-clustered standard error of the difference; `None` below two items.
    pub fn stderr(&self) -> Option<f64> {
        self.diff.stderr()
    }

    /// The normal 95% interval of the difference; `None` below two items.
    pub fn ci95(&self) -> Option<(f64, f64)> {
        let (d, se) = (self.delta()?, self.stderr()?);
        Some((d - Z95 * se, d + Z95 * se))
    }
}

/// Holm's step-down adjustment of `p` (Holm 1979), in the input's order: sort ascending,
/// `p'_(i) = max_{j ≤ i} min(1, (m − j + 1) · p_(j))`. A NaN stays NaN and is not counted
/// among the `m` tests.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let m = order.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        let adjusted = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(adjusted);
        out[i] = running;
    }
    out
}

/// The 2×2 table of two runs' verdicts on the items scored in both: `n11` right in both, `n10`
/// right in the baseline only (regressed), `n01` right in the candidate only (improved), `n00`
/// wrong in both. Counts add, so shards merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairCounts {
    pub n11: u64,
    pub n10: u64,
    pub n01: u64,
    pub n00: u64,
}

impl PairCounts {
    /// Counts one item's pair of verdicts.
    pub fn push(&mut self, baseline: bool, candidate: bool) {
        match (baseline, candidate) {
            (true, true) => self.n11 += 1,
            (true, false) => self.n10 += 1,
            (false, true) => self.n01 += 1,
            (false, false) => self.n00 += 1,
        }
    }

    pub fn merge(&mut self, o: &PairCounts) {
        self.n11 += o.n11;
        self.n10 += o.n10;
        self.n01 += o.n01;
        self.n00 += o.n00;
    }

    /// Items scored in both runs.
    pub fn n(&self) -> u64 {
        self.n11 + self.n10 + self.n01 + self.n00
    }
}

/// How the paired bootstrap interval is computed, as `bootstrap_ci.method` names it.
pub const BOOTSTRAP_METHOD: &str = "paired-multinomial-percentile";

/// A 95% paired bootstrap interval of `candidate − baseline` accuracy: `(low, high)` as
/// integer numerators over `n` (`None` without pairs or resamples), and the observed
/// difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedBootstrap {
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub observed: Option<f64>,
}

/// The paired bootstrap (percentile method) of the accuracy difference, from the four counts.
///
/// Resampling `n` pairs with replacement and summing `candidate − baseline` depends only on how
/// many regressed (`n10`) and improved (`n01`) pairs are drawn, so each resample is one
/// multinomial draw: the discordant count `D ~ Binomial(n, (n10 + n01) / n)`, then the improved
/// count `I ~ Binomial(D, n01 / (n10 + n01))`, giving the sum `2I − D`. Cost O(R log R + √n ·
/// distinct D), not O(R·n): each distinct `D`'s table is built once. The draws come from one
/// [`Rng::seed_from_u64`]`(seed)` stream, `D` then `I` per resample, by inversion of a binomial
/// table built with `+ − × ÷` only ([`BinomialTable`]).
/// The sorted sums give the bounds by the inverse empirical CDF (Hyndman & Fan type 1):
/// `low = s_(⌈0.025·R⌉) / n`, `high = s_(⌈0.975·R⌉) / n`.
pub fn paired_bootstrap(counts: PairCounts, resamples: u32, seed: u64) -> PairedBootstrap {
    let n = counts.n();
    let mut out = PairedBootstrap {
        low: None,
        high: None,
        observed: None,
    };
    if n == 0 {
        return out;
    }
    let nf = n as f64;
    out.observed = Some((counts.n01 as f64 - counts.n10 as f64) / nf);
    if resamples == 0 {
        return out;
    }
    let discordant = counts.n10 + counts.n01;
    let d_table = BinomialTable::new(n, discordant, n);
    let mut rng = Rng::seed_from_u64(seed);
    let mut sums: Vec<i64> = Vec::with_capacity(resamples as usize);
    // The improved count's table for each D drawn, built once: a table depends on D alone, so
    // the cache changes no draw. Bounded (a few MB of entries), then started afresh.
    let mut tables: std::collections::HashMap<u64, BinomialTable> =
        std::collections::HashMap::new();
    let mut cached = 0usize;
    for _ in 0..resamples {
        let d = d_table.draw(&mut rng);
        if !tables.contains_key(&d) {
            let t = BinomialTable::new(d, counts.n01, discordant);
            if cached + t.cdf.len() > TABLE_CACHE_ENTRIES {
                tables.clear();
                cached = 0;
            }
            cached += t.cdf.len();
            tables.insert(d, t);
        }
        let improved = match tables.get(&d) {
            Some(t) => t.draw(&mut rng),
            None => BinomialTable::new(d, counts.n01, discordant).draw(&mut rng),
        };
        sums.push(2 * improved as i64 - d as i64);
    }
    sums.sort_unstable();
    let r = u64::from(resamples);
    let k_low = (r * 25).div_ceil(1000).max(1);
    let k_high = (r * 975).div_ceil(1000).max(1);
    let at = |k: u64| sums.get((k - 1) as usize).map(|s| *s as f64 / nf);
    out.low = at(k_low);
    out.high = at(k_high);
    out
}

/// The distribution of `Binomial(trials, num / den)` as a cumulative table over the values
/// whose probability is not negligible (relative to the mode's, above 2⁻⁷⁰), built outward from
/// the mode by the ratio `P(k+1)/P(k) = (t − k)/(k + 1) · p/q`, so no `ln`, `exp` or `powf` (whose
/// last bit differs between libms) is used. A draw inverts it with a uniform of 53 bits.
pub struct BinomialTable {
    /// The value of the table's first entry.
    first: u64,
    /// Cumulative relative weights (unnormalised: the last entry is the total).
    cdf: Vec<f64>,
}

/// How many table entries [`paired_bootstrap`] keeps cached (32 MB of `f64`).
const TABLE_CACHE_ENTRIES: usize = 1 << 22;

/// Weights below this share of the mode's are left out of a table (2⁻⁷⁰ ≈ 8.5e−22).
const NEGLIGIBLE: f64 = 8.470_329_472_543_003e-22;

impl BinomialTable {
    /// `Binomial(trials, num / den)`; `num ≥ den` is certain success, `num == 0` certain failure.
    pub fn new(trials: u64, num: u64, den: u64) -> BinomialTable {
        let certain = |k: u64| BinomialTable {
            first: k,
            cdf: vec![1.0],
        };
        if trials == 0 || num == 0 || den == 0 {
            return certain(0);
        }
        if num >= den {
            return certain(trials);
        }
        let ratio = num as f64 / (den - num) as f64; // p / q
        let t = trials as f64;
        // The mode: ⌊(t + 1)·p⌋, in integers.
        let mode = ((u128::from(trials) + 1) * u128::from(num) / u128::from(den)) as u64;
        let mode = mode.min(trials);
        // Down from the mode: P(k−1) = P(k) · k / ((t − k + 1) · r).
        let mut below: Vec<f64> = Vec::new();
        let mut w = 1.0f64;
        let mut k = mode;
        while k > 0 {
            w = w * k as f64 / ((t - k as f64 + 1.0) * ratio);
            if w < NEGLIGIBLE {
                break;
            }
            below.push(w);
            k -= 1;
        }
        let first = mode - below.len() as u64;
        let mut weights: Vec<f64> = below.into_iter().rev().collect();
        weights.push(1.0);
        // Up from the mode: P(k+1) = P(k) · (t − k) / (k + 1) · r.
        let mut w = 1.0f64;
        let mut k = mode;
        while k < trials {
            w = w * (t - k as f64) / (k as f64 + 1.0) * ratio;
            if w < NEGLIGIBLE {
                break;
            }
            weights.push(w);
            k += 1;
        }
        let mut total = 0.0f64;
        for w in weights.iter_mut() {
            total += *w;
            *w = total;
        }
        BinomialTable {
            first,
            cdf: weights,
        }
    }

    /// One draw: the first value whose cumulative weight exceeds a uniform share of the total.
    pub fn draw(&self, rng: &mut Rng) -> u64 {
        let total = self.cdf.last().copied().unwrap_or(1.0);
        let u = (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0) * total;
        let i = self.cdf.partition_point(|&c| c <= u);
        self.first + (i.min(self.cdf.len().saturating_sub(1))) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_merge_like_the_whole() {
        let xs = [0.5, 1.0, 0.0, 0.25, 1.0, 1.0, 0.75];
        let whole = Moments::of(&xs);
        let mut a = Moments::of(&xs[..3]);
        a.merge(&Moments::of(&xs[3..]));
        assert_eq!(a.n, whole.n);
        assert!((a.mean - whole.mean).abs() < 1e-15);
        assert!((a.m2 - whole.m2).abs() < 1e-12);
        let mut w = Moments::default();
        xs.iter().for_each(|x| w.push(*x));
        assert!((w.m2 - whole.m2).abs() < 1e-12);
    }

    #[test]
    fn holm_steps_down_and_keeps_order() {
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        assert_eq!(adj, vec![0.03, 0.06, 0.06, 0.02]);
        assert!(holm(&[f64::NAN, 0.2])[0].is_nan());
        assert_eq!(holm(&[f64::NAN, 0.2])[1], 0.2);
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert_eq!(holm(&[0.3, 0.2]), vec![0.4, 0.4]);
    }

    #[test]
    fn wilson_stays_inside_zero_one() {
        let (lo, hi) = Rate::new(0, 10)
            .wilson(1.96)
            .unwrap_or((f64::NAN, f64::NAN));
        assert_eq!(lo, 0.0);
        assert!(hi > 0.2 && hi < 0.35, "{hi}");
        assert_eq!(Rate::default().wilson(1.96), None);
    }

    #[test]
    fn clustered_stderr_equals_plain_with_one_value_per_item() {
        let xs = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let mut c = ClusterSums::default();
        xs.iter().for_each(|x| c.push_cluster(&[*x]));
        let plain = Moments::of(&xs).stderr().unwrap_or(f64::NAN);
        let clustered = c.stderr().unwrap_or(f64::NAN);
        assert!((plain - clustered).abs() < 1e-12, "{plain} {clustered}");
    }

    #[test]
    fn binomial_table_draws_match_the_distribution() {
        let t = BinomialTable::new(1000, 1, 10);
        let mut rng = Rng::seed_from_u64(7);
        let mut m = Moments::default();
        for _ in 0..20_000 {
            m.push(t.draw(&mut rng) as f64);
        }
        assert!((m.mean - 100.0).abs() < 0.5, "{}", m.mean);
        let var = m.variance().unwrap_or(0.0);
        assert!((var - 90.0).abs() < 5.0, "{var}");
        assert_eq!(BinomialTable::new(5, 0, 3).draw(&mut rng), 0);
        assert_eq!(BinomialTable::new(5, 3, 3).draw(&mut rng), 5);
        assert_eq!(BinomialTable::new(0, 1, 3).draw(&mut rng), 0);
    }

    #[test]
    fn bootstrap_bounds_hold_the_observed_difference() {
        let c = PairCounts {
            n11: 30,
            n10: 5,
            n01: 0,
            n00: 13,
        };
        let b = paired_bootstrap(c, 10_000, 42);
        let (lo, hi) = (b.low.unwrap_or(0.0), b.high.unwrap_or(0.0));
        assert!(lo < -0.10 && (-0.05..0.0).contains(&hi), "{lo} {hi}");
        assert_eq!(b.observed, Some(-5.0 / 48.0));
        assert_eq!(paired_bootstrap(c, 10_000, 42), b);
        assert_eq!(paired_bootstrap(PairCounts::default(), 10, 1).low, None);
    }
}
