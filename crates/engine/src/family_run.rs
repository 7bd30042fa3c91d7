//! The one trait a family implements for the registry ([`crate::run::RunRef`]) to describe a
//! scored run of it: its profile, size, metadata, counts, headline and metrics, and each item's
//! context. Each family implements it in its `mod.rs`; `RunRef` looks the implementation up once
//! (`RunRef::family_run_in`, guarded by the consumer's family set, so a worker links only its
//! own families' implementations) and every describing method goes through it. Imports no
//! family.

use crate::compare::join::{Judged, JudgedItems, Side};
use crate::compare::{CompareOptions, FailedItem, ItemContexts, PairedComparison, Pairing};
use crate::headline::Metric;
use crate::repeats::Reduction;
use crate::run_meta::RunMeta;
use crate::run_table::MetricValue;
use crate::stats::Rate;

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
    /// The models whose tokens the run records but the price table has no price for: the
    /// names the dashboard's Settings offer to price ("Add unpriced models").
    fn unpriced_models(&self) -> Vec<String> {
        Vec::new()
    }
    /// The repeats of the run's items summed up (pass@k, pass^k, flaky items, the standard
    /// error clustered by item); `None` when no item was judged more than once.
    fn repeats(&self) -> Option<crate::repeats::RepeatSummary> {
        None
    }
    /// The run's tasks with the score each is judged by, when it holds several (an lm-eval
    /// suite); empty for a run of one task.
    fn task_judges(&self) -> Vec<crate::run_table::TaskJudge> {
        Vec::new()
    }
    /// Every judge the run's items may be judged by (what `--scorer` accepts), the run's own
    /// headline first, each with the run's headline under it; empty when the family offers no
    /// choice.
    fn judge_choices(&self) -> Vec<crate::run_table::JudgeChoice> {
        Vec::new()
    }
    /// Adds each item's query fields to its doc ([`crate::query`]): the normalised `latency_s`,
    /// `tokens.*`, `cost_usd`, `model`, `error`, the format's own fields under their own names,
    /// the tools called and the texts a text query searches. The registry has already put each
    /// item's key, verdict, slice fields and question/expected/answer texts in
    /// ([`crate::run::RunRef::query_docs_in`]).
    fn query_fields(&self, _docs: &mut crate::query::Docs<'_>) {}
    /// Builds now what every comparison of the run reads and the run keeps once built (a
    /// numeric QA run's turns in key order): a consumer that holds runs for comparisons (the
    /// dashboard's worker) pays it while the run loads, not when a comparison is asked for.
    /// Nothing for a family that keeps nothing.
    fn index_for_comparison(&self) {}
    /// How many items the run says it holds once complete (an Inspect log's
    /// `results.total_samples`, or while it runs its dataset's samples × epochs), when it says:
    /// what a watched run's "N items (of M)" counts towards.
    fn declared_items(&self) -> Option<u64> {
        None
    }
    /// The status the run's log records of its lifecycle, when it records one: an Inspect
    /// log's `started`, `success`, `error` or `cancelled`; an OpenAI Evals record file's
    /// `complete` once its final report is written. What a watched run's panel shows as the
    /// log's status; `None` for a run whose status says something else (a numeric QA run's
    /// "no failed conversations") or that records none.
    fn lifecycle_status(&self) -> Option<String> {
        None
    }
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
    fn unpriced_models(&self) -> Vec<String> {
        (**self).unpriced_models()
    }
    fn repeats(&self) -> Option<crate::repeats::RepeatSummary> {
        (**self).repeats()
    }
    fn task_judges(&self) -> Vec<crate::run_table::TaskJudge> {
        (**self).task_judges()
    }
    fn judge_choices(&self) -> Vec<crate::run_table::JudgeChoice> {
        (**self).judge_choices()
    }
    fn index_for_comparison(&self) {
        (**self).index_for_comparison()
    }
    fn query_fields(&self, docs: &mut crate::query::Docs<'_>) {
        (**self).query_fields(docs)
    }
    fn declared_items(&self) -> Option<u64> {
        (**self).declared_items()
    }
    fn lifecycle_status(&self) -> Option<String> {
        (**self).lifecycle_status()
    }
}

/// How a family compares two of its runs: the judge both are judged by, and each run judged
/// into its items in key order ([`Judged`]), which the one join pairs
/// ([`crate::compare::join::join`]). Each family implements it in its `compare.rs`.
pub trait FamilyCompare: Sized {
    /// What judges an item (a scorer, a recorded score, a re-scorer).
    type Judge;
    /// The judge `asked` names (`None`: the family's default for the pair, decided by the
    /// baseline) and what a reader should know about judging the pair; `Err`: why `asked`
    /// cannot judge these runs. Judging a run alone is judging it against itself.
    fn judge_pair(
        baseline: &Self,
        candidate: &Self,
        asked: Option<&str>,
    ) -> Result<PairJudge<Self::Judge>, String>;
    /// The run's items judged by `judge`, as the `side` of a comparison (warnings name it).
    fn judged(&self, judge: &Self::Judge, side: Side) -> Result<Judged<'_>, String>;
    /// Which part of the run's item keys counts repeats of one item (an eval log's epoch), and
    /// the reducer an item's repeats are reduced by when pairing by item names none (an
    /// Inspect headline's own); `None`: the run's items are not repeated, so pairing by item is
    /// refused.
    fn repeats_by(&self, _judge: &Self::Judge) -> Option<(usize, Reduction)> {
        None
    }
}

/// The judge of a pair of runs, named, and what a reader of the comparison should know.
pub struct PairJudge<J> {
    pub judge: J,
    /// Its name (`name@version`, a score's label).
    pub scorer: String,
    /// How items are joined and judged, in a sentence.
    pub judged_by: String,
    /// Shown before the sides' warnings (the runs were scored under different profiles).
    pub warnings: Vec<String>,
    /// Why there are no per-item results.
    pub note: Option<String>,
}

/// Two runs of a family judged and joined: what a comparison holds besides the runs' names
/// and metrics.
pub struct Joined {
    pub scorer: String,
    pub judged_by: String,
    /// How items were paired, when it needs saying: by item (repeats reduced), or per repeat
    /// when the runs' items have repeats.
    pub pairing: Option<String>,
    /// Paired by item: the key part (the repeat) the pairs' keys are without.
    pub item_part: Option<usize>,
    pub stats: PairedComparison,
    pub failed_items: Vec<FailedItem>,
    /// The pair's warnings, then the baseline's, then the candidate's.
    pub warnings: Vec<String>,
    pub note: Option<String>,
}

/// `baseline` and `candidate` judged by the judge `asked` names ([`FamilyCompare`]) and
/// joined on their keys ([`crate::compare::join::join`]).
pub fn judge_and_join<F: FamilyCompare>(
    baseline: &F,
    candidate: &F,
    asked: Option<&str>,
    opts: &CompareOptions,
) -> Result<Joined, String> {
    judge_and_pair(baseline, candidate, asked, opts, Pairing::AsJudged)
}

/// [`judge_and_join`], the items paired as `pairing` says: on their keys as judged, or per item
/// with its repeats reduced ([`crate::compare::by_item::join`]; `Err` for runs whose items
/// have no repeats).
pub fn judge_and_pair<F: FamilyCompare>(
    baseline: &F,
    candidate: &F,
    asked: Option<&str>,
    opts: &CompareOptions,
    pairing: Pairing,
) -> Result<Joined, String> {
    let pair = F::judge_pair(baseline, candidate, asked)?;
    let b = baseline.judged(&pair.judge, Side::Baseline)?;
    let c = candidate.judged(&pair.judge, Side::Candidate)?;
    join_judged(baseline, candidate, &pair, &b, &c, opts, pairing)
}

/// Each pair's join and each run's own verdict counts ([`judge_once_and_pair`]).
pub type PairsAndCounts = (Vec<Result<Joined, String>>, Vec<Result<Rate, String>>);

/// Many pairs of `runs` — `jobs`, each (baseline, candidate, the judge asked) by index — and
/// the own verdict counts of `own` (run, judge asked), with every run judged once per judge
/// and side it is needed under (a judge known by its name: `name@version`, a score's label),
/// on `threads` threads natively. Each pair's result is what [`judge_and_pair`] gives for it,
/// each count what the run's verdicts alone under that judge count ([`Judged`]'s verdicts).
/// Only the counts are read from a judged run: no pair keeps its texts when `opts` says so.
pub fn judge_once_and_pair<F>(
    runs: &[&F],
    jobs: &[(usize, usize, Option<&str>)],
    own: &[(usize, Option<&str>)],
    opts: &CompareOptions,
    pairing: Pairing,
    threads: usize,
) -> PairsAndCounts
where
    F: FamilyCompare + Sync,
    F::Judge: Sync,
{
    let run = |i: usize| runs.get(i).copied().ok_or("no such run".to_string());
    let pair_judges: Vec<Result<PairJudge<F::Judge>, String>> = jobs
        .iter()
        .map(|&(b, c, asked)| F::judge_pair(run(b)?, run(c)?, asked))
        .collect();
    let own_judges: Vec<Result<PairJudge<F::Judge>, String>> = own
        .iter()
        .map(|&(r, asked)| F::judge_pair(run(r)?, run(r)?, asked))
        .collect();
    // What to judge: (run, judge's name, side), each once.
    let mut needed: Vec<(usize, &str, &F::Judge, Side)> = Vec::new();
    for (&(b, c, _), p) in jobs.iter().zip(&pair_judges) {
        if let Ok(p) = p {
            for (r, side) in [(b, Side::Baseline), (c, Side::Candidate)] {
                if !needed
                    .iter()
                    .any(|n| n.0 == r && n.1 == p.scorer && n.3 == side)
                {
                    needed.push((r, &p.scorer, &p.judge, side));
                }
            }
        }
    }
    for (&(r, _), p) in own.iter().zip(&own_judges) {
        if let Ok(p) = p {
            // Either side's verdicts count the same.
            if !needed.iter().any(|n| n.0 == r && n.1 == p.scorer) {
                needed.push((r, &p.scorer, &p.judge, Side::Baseline));
            }
        }
    }
    let uses = |n: &(usize, &str, &F::Judge, Side)| {
        jobs.iter()
            .zip(&pair_judges)
            .filter(|((b, c, _), p)| {
                p.as_ref().is_ok_and(|p| p.scorer == n.1)
                    && match n.3 {
                        Side::Baseline => *b == n.0,
                        Side::Candidate => *c == n.0,
                    }
            })
            .count()
    };
    let judged: Vec<Result<Judged, String>> = crate::par::map_items(&needed, threads, |n| {
        let j = run(n.0)?.judged(n.2, n.3)?;
        // Joined more than once: its keys built once.
        Ok(if uses(n) > 1 { KeyedItems::of(j) } else { j })
    });
    let find = |r: usize, scorer: &str, side: Option<Side>| {
        needed
            .iter()
            .zip(&judged)
            .find(|(n, _)| n.0 == r && n.1 == scorer && side.is_none_or(|s| s == n.3))
            .map(|(_, j)| j)
    };
    let at: Vec<usize> = (0..jobs.len()).collect();
    let joined = crate::par::map_items(&at, threads, |&k| {
        let (b, c, _) = jobs[k];
        let p = pair_judges[k].as_ref().map_err(Clone::clone)?;
        let bj = find(b, &p.scorer, Some(Side::Baseline))
            .ok_or("the baseline was not judged".to_string())?
            .as_ref()
            .map_err(Clone::clone)?;
        let cj = find(c, &p.scorer, Some(Side::Candidate))
            .ok_or("the candidate was not judged".to_string())?
            .as_ref()
            .map_err(Clone::clone)?;
        join_judged(run(b)?, run(c)?, p, bj, cj, opts, pairing)
    });
    let rates = own
        .iter()
        .zip(&own_judges)
        .map(|(&(r, _), p)| {
            let p = p.as_ref().map_err(Clone::clone)?;
            let j = find(r, &p.scorer, None)
                .ok_or("the run was not judged".to_string())?
                .as_ref()
                .map_err(Clone::clone)?;
            Ok(j.rate())
        })
        .collect();
    (joined, rates)
}

/// A judged run whose keys are built once (each [`JudgedItems::key`] a clone): a baseline
/// joined with many runs.
struct KeyedItems<'a> {
    inner: Box<dyn JudgedItems + 'a>,
    keys: Vec<crate::run_table::ItemKey>,
}

impl<'a> KeyedItems<'a> {
    fn of(j: Judged<'a>) -> Judged<'a> {
        let keys = (0..j.items.len()).map(|i| j.items.key(i)).collect();
        Judged {
            items: Box::new(KeyedItems {
                inner: j.items,
                keys,
            }),
            failed: j.failed,
            warnings: j.warnings,
        }
    }
}

impl JudgedItems for KeyedItems<'_> {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn key(&self, i: usize) -> crate::run_table::ItemKey {
        self.keys.get(i).cloned().unwrap_or_default()
    }
    fn verdict(&self, i: usize) -> Option<bool> {
        self.inner.verdict(i)
    }
    fn expected(&self, i: usize) -> Option<String> {
        self.inner.expected(i)
    }
    fn answer(&self, i: usize) -> Option<String> {
        self.inner.answer(i)
    }
    fn reading(&self, i: usize) -> Option<f64> {
        self.inner.reading(i)
    }
    fn key_order(&self) -> Option<&[u32]> {
        self.inner.key_order()
    }
    fn context(&self, i: usize) -> Option<crate::compare::ItemContext> {
        self.inner.context(i)
    }
}

/// The judged `b` and `c` joined as `pairing` says, with `pair`'s words.
fn join_judged<F: FamilyCompare>(
    baseline: &F,
    candidate: &F,
    pair: &PairJudge<F::Judge>,
    b: &Judged,
    c: &Judged,
    opts: &CompareOptions,
    pairing: Pairing,
) -> Result<Joined, String> {
    let repeats = baseline.repeats_by(&pair.judge);
    let mut item_part = None;
    let (stats, failed_items, pairing) = match pairing {
        Pairing::AsJudged => {
            let (stats, failed) = crate::compare::join::join(b, c, opts);
            let repeated = repeats.is_some_and(|(part, _)| has_repeats(b, part));
            let said = repeated.then(|| {
                "per repeat: each repeat (epoch) of an item is its own pair; pairing by item \
                 (diff --by-item) reduces an item's repeats first"
                    .to_string()
            });
            (stats, failed, said)
        }
        Pairing::ByItem(asked_reducer) => {
            let (part, default) = repeats.ok_or_else(|| {
                "pairing by item needs items judged more than once (an eval log's epochs or \
                 repeats); these runs' items are not"
                    .to_string()
            })?;
            let other = candidate.repeats_by(&pair.judge).map_or(part, |r| r.0);
            let red = asked_reducer.unwrap_or(default);
            item_part = Some(part);
            let stats = crate::compare::by_item::join(b, c, (part, other), red, opts);
            let said = format!(
                "by item: each item's repeats (epochs) reduced by {red}, then paired on the \
                 item ({} items paired)",
                stats.n_paired
            );
            (stats, Vec::new(), Some(said))
        }
    };
    let mut warnings = pair.warnings.clone();
    warnings.extend(b.warnings.iter().cloned());
    warnings.extend(c.warnings.iter().cloned());
    Ok(Joined {
        scorer: pair.scorer.clone(),
        judged_by: pair.judged_by.clone(),
        pairing,
        item_part,
        stats,
        failed_items,
        warnings,
        note: pair.note.clone(),
    })
}

/// Whether some item of `j` has two repeats (keys equal but for `part`).
fn has_repeats(j: &Judged, part: usize) -> bool {
    let mut seen = std::collections::HashSet::new();
    (0..j.items.len()).any(|i| !seen.insert(crate::repeats::split_repeat(&j.items.key(i), part).0))
}

/// `n` things, singular or plural (`1 turn`, `38 turns`).
pub fn count_of(k: usize, one: &str, many: &str) -> String {
    format!("{k} {}", if k == 1 { one } else { many })
}
