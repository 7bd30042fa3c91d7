//! The registry: the one place that answers "which family is this run, and what do I do with
//! it?". Every consumer — `evalboard score`/`diff`/`report`, the dashboard's workers and the
//! report crate — reads, scores, describes and compares runs through these functions, so they
//! give the same numbers for the same runs.
//!
//! detect ([`crate::family::detect_family`]) → [`read`] (files → [`ReadRun`]) →
//! [`score`] (under [`Settings`] → [`ScoredRun`]) → [`RunRef::headline_metrics`], [`RunRef::meta`] →
//! [`compare`] (two runs of one family → [`RunComparison`]). A new family is one folder plus
//! one arm in each `match` of this module.

use serde_json::{json, Value};

use crate::accounting::{InputFileReport, LoadError};
use crate::codegen::{self, CodegenRun};
use crate::compare::join::Side;
use crate::compare::{
    CompareOptions, FailedItem, Flip, ItemContexts, MetricDelta, PairedComparison, Unit,
};
use crate::diag::Diagnostic;
use crate::evallog;
use crate::evalset::{self, EvalItem, EvalRun};
use crate::family::{detect_family, Family};
use crate::family_run::{FamilyCompare, FamilyRun, Joined};
use crate::headline::Metric;
use crate::input::RunInput;
use crate::numeric_qa::formats::convfinqa;
use crate::numeric_qa::model::{QaRun, ReadDetail};
use crate::numeric_qa::score::{Profile, ScoreConfig, ScoredQaRun};
use crate::run_meta::RunMeta;
use crate::run_table::{ItemKey, ItemRow, MetricValue, RunFacts, RunSummary, Verdict, Verdicts};
mod judged_items;
mod judges;
pub mod lists;
pub mod live;
pub mod settings;

pub use judged_items::{ItemAt, ItemsJudged, JudgedRows};
use settings::article;
pub use settings::{profile_names, Settings, UnknownProfile};

/// Reference data given beside the runs (`--dataset`): the items the runs answered.
#[derive(Debug, Clone)]
pub enum Reference {
    /// A ConvFinQA dataset, joined to numeric QA runs on conversation id + turn index.
    ConvFinQa(convfinqa::Dataset),
    /// An eval set, attached to eval-set runs by item id.
    EvalSet(Vec<EvalItem>),
}

/// Reference data that could not be used, with the diagnostics of reading it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnusableReference {
    pub message: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl Reference {
    /// Reads `bytes` as the reference data of `family`'s runs; the diagnostics of a usable
    /// file come back beside it. `Ok(None)`: the family takes no reference data.
    pub fn read(
        family: Family,
        path: &str,
        bytes: &[u8],
    ) -> Result<Option<(Reference, Vec<Diagnostic>)>, UnusableReference> {
        match family {
            Family::NumericQa => match convfinqa::read_dataset(path, bytes) {
                Ok(mut ds) => {
                    let diags = std::mem::take(&mut ds.diagnostics);
                    Ok(Some((Reference::ConvFinQa(ds), diags)))
                }
                Err(diagnostics) => Err(UnusableReference {
                    message: format!("the dataset {path} is unusable"),
                    diagnostics,
                }),
            },
            Family::Evalset => {
                let read = evalset::read_eval_items(path, bytes);
                if read.items.is_empty() {
                    return Err(UnusableReference {
                        message: format!("the eval set {path} has no usable items"),
                        diagnostics: read.diagnostics,
                    });
                }
                Ok(Some((Reference::EvalSet(read.items), read.diagnostics)))
            }
            Family::Codegen | Family::EvalLog => Ok(None),
        }
    }
}

/// How much of a run to read and on how many threads (natively; wasm reads on one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    pub detail: ReadDetail,
    pub threads: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            detail: ReadDetail::Full,
            threads: 1,
        }
    }
}

impl ReadOptions {
    /// What the numeric QA profile needs kept: the doc profile writes no compat-only trace
    /// field, and not keeping them halves a trace folder's model.
    pub fn for_profile(profile: Profile, threads: usize) -> ReadOptions {
        ReadOptions {
            detail: match profile {
                Profile::Doc => ReadDetail::Doc,
                Profile::Fa2 => ReadDetail::Full,
            },
            threads,
        }
    }
}

/// A run read into its family's model, not yet scored.
#[derive(Debug, Clone)]
pub enum ReadRun {
    NumericQa(QaRun),
    /// The run and its files' accounting.
    Codegen(Box<CodegenRun>, Vec<InputFileReport>),
    Evalset(Box<EvalRun>),
    /// An evaluation-tool log (Inspect, lm-eval) with its files' accounting.
    EvalLog(Box<evallog::LoadedLog>),
}

impl ReadRun {
    /// Takes in a part of the same input that could not be read ([`read_parts`]): its files
    /// join this run's accounting as skipped (each with its reason, else the error's message),
    /// its diagnostics this run's.
    pub fn absorb(&mut self, failed: LoadError) {
        let (files, diagnostics) = match self {
            ReadRun::NumericQa(r) => (&mut r.files, &mut r.diagnostics),
            ReadRun::Codegen(r, files) => (files, &mut r.diagnostics),
            ReadRun::Evalset(r) => (&mut r.files, &mut r.diagnostics),
            ReadRun::EvalLog(l) => (&mut l.files, &mut l.diagnostics),
        };
        for mut f in failed.files {
            f.status = crate::accounting::FileStatus::Skipped;
            if f.reason.is_none() {
                f.reason = Some(failed.message.clone());
            }
            files.push(f);
        }
        diagnostics.extend(failed.diagnostics);
    }

    pub fn family(&self) -> Family {
        match self {
            ReadRun::NumericQa(_) => Family::NumericQa,
            ReadRun::Codegen(..) => Family::Codegen,
            ReadRun::Evalset(_) => Family::Evalset,
            ReadRun::EvalLog(_) => Family::EvalLog,
        }
    }
}

/// Reads a run of the family its files say ([`detect_family`]). `reference` is used when it
/// belongs to that family. `Err` only when nothing of the run is usable.
pub fn read(
    input: &RunInput,
    reference: Option<&Reference>,
    opts: ReadOptions,
) -> Result<ReadRun, LoadError> {
    read_as(detect_family(input), input, reference, opts)
}

/// A set of families, as bits ([`Family::bit`]): the families a consumer reads and scores
/// ([`load_in`], [`ScoredRun::rescore_in`]). The other families' readers and scorers are
/// compiled out of that consumer: the dashboard's main worker carries no code-generation scorer
/// (and no Python parser), which the code-generation worker carries alone.
pub type FamilySet = u8;

/// Every family.
pub const ALL_FAMILIES: FamilySet =
    Family::NumericQa.bit() | Family::Codegen.bit() | Family::Evalset.bit() | Family::EvalLog.bit();

/// `family` is in `set`.
pub const fn has(set: FamilySet, family: Family) -> bool {
    set & family.bit() != 0
}

fn not_here(family: Family) -> LoadError {
    let message = match family {
        Family::EvalLog => "eval logs (Inspect AI, lm-evaluation-harness) are not supported in \
                            the dashboard yet: use the CLI (`evalboard score LOG --json`, \
                            `evalboard diff A B`)"
            .to_string(),
        _ => format!("{} runs are not read here", family.label()),
    };
    LoadError {
        message,
        files: Vec::new(),
        diagnostics: Vec::new(),
    }
}

/// A dropped folder (or a `score` argument) of `family` as the runs it holds, each scored on
/// its own: a folder of several evaluation-tool logs is one run per log, named `folder/file`
/// ([`evallog::score::split_logs`]); any other folder is one run.
pub fn split(family: Family, input: RunInput) -> Vec<RunInput> {
    match family {
        Family::EvalLog => evallog::score::split_logs(input),
        _ => vec![input],
    }
}

/// [`split`] and read: every part of `input` read as its own run. A part nothing of which is
/// usable (a truncated log beside good ones) does not sink the others: its files join the
/// accounting of the readable run of its own folder (the first when none shares one) as skipped, each with its reason, and its diagnostics that run's
/// ([`ReadRun::absorb`]). `Err` only when no part is readable (the parts' files and diagnostics
/// together, the first part's message).
pub fn read_parts(
    family: Family,
    input: RunInput,
    reference: Option<&Reference>,
    opts: ReadOptions,
) -> Result<Vec<ReadRun>, LoadError> {
    read_parts_in::<ALL_FAMILIES>(family, input, reference, opts)
}

/// [`read_parts`] for the families in `FAMILIES`.
pub fn read_parts_in<const FAMILIES: FamilySet>(
    family: Family,
    input: RunInput,
    reference: Option<&Reference>,
    opts: ReadOptions,
) -> Result<Vec<ReadRun>, LoadError> {
    let mut runs: Vec<ReadRun> = Vec::new();
    // Each readable part's file paths, to give an unreadable part to the run of its folder.
    let mut paths: Vec<Vec<String>> = Vec::new();
    let mut failed: Vec<LoadError> = Vec::new();
    for part in split(family, input) {
        match read_in::<FAMILIES>(family, &part, reference, opts) {
            Ok(r) => {
                runs.push(r);
                paths.push(part.files.iter().map(|f| f.path.clone()).collect());
            }
            Err(e) => failed.push(e),
        }
    }
    if runs.is_empty() {
        let mut all = failed.into_iter();
        let mut e = all.next().unwrap_or_else(|| not_here(family));
        for other in all {
            e.files.extend(other.files);
            e.diagnostics.extend(other.diagnostics);
        }
        return Err(e);
    }
    for e in failed {
        let path = e.files.first().map_or("", |f| f.path.as_str());
        let to =
            crate::input::nearest_group(path, paths.iter().map(|p| p.iter().map(String::as_str)));
        if let Some(run) = runs.get_mut(to) {
            run.absorb(e);
        }
    }
    Ok(runs)
}

/// [`read_parts_in`], each run scored ([`load_in`] for a folder of several logs).
pub fn load_parts_in<const FAMILIES: FamilySet>(
    family: Family,
    input: RunInput,
    (reference, opts): (Option<&Reference>, ReadOptions),
    settings: &Settings,
    threads: usize,
) -> Result<Vec<ScoredRun>, LoadError> {
    read_parts_in::<FAMILIES>(family, input, reference, opts)?
        .into_iter()
        .map(|r| score_in::<FAMILIES>(r, settings, threads).ok_or_else(|| not_here(family)))
        .collect()
}

/// [`read`] for a run whose family is already known.
pub fn read_as(
    family: Family,
    input: &RunInput,
    reference: Option<&Reference>,
    opts: ReadOptions,
) -> Result<ReadRun, LoadError> {
    read_in::<ALL_FAMILIES>(family, input, reference, opts)
}

/// Reads and scores a run of a family in `FAMILIES`; `Err` for another family.
pub fn load_in<const FAMILIES: FamilySet>(
    family: Family,
    input: &RunInput,
    (reference, opts): (Option<&Reference>, ReadOptions),
    settings: &Settings,
    threads: usize,
) -> Result<ScoredRun, LoadError> {
    let read = read_in::<FAMILIES>(family, input, reference, opts)?;
    score_in::<FAMILIES>(read, settings, threads).ok_or_else(|| not_here(family))
}

fn read_in<const FAMILIES: FamilySet>(
    family: Family,
    input: &RunInput,
    reference: Option<&Reference>,
    opts: ReadOptions,
) -> Result<ReadRun, LoadError> {
    match family {
        Family::NumericQa if has(FAMILIES, Family::NumericQa) => {
            let dataset = match reference {
                Some(Reference::ConvFinQa(ds)) => Some(ds),
                _ => None,
            };
            read_qa(input, dataset, opts).map(ReadRun::NumericQa)
        }
        Family::Codegen if has(FAMILIES, Family::Codegen) => {
            let run = codegen::read_codegen_run(&input.name, &input.files);
            let files = codegen::file_reports(&input.files, &run.diagnostics);
            if !run.is_usable() {
                return Err(LoadError {
                    message: "no usable code-generation message: no trace line and no \
                              metrics.json entry could be read (see the diagnostics)"
                        .into(),
                    files,
                    diagnostics: run.diagnostics,
                });
            }
            Ok(ReadRun::Codegen(Box::new(run), files))
        }
        Family::Evalset if has(FAMILIES, Family::Evalset) => {
            let attached = match reference {
                Some(Reference::EvalSet(items)) => Some(items.as_slice()),
                _ => None,
            };
            let mut run = evalset::read_evalset_run(&input.files, attached);
            run.name = input.name.clone();
            if !run.is_usable() {
                return Err(LoadError {
                    message: "no eval set, predictions or eval summary could be read".into(),
                    files: run.files,
                    diagnostics: run.diagnostics,
                });
            }
            run.validation = evalset::views::validation(&input.files);
            Ok(ReadRun::Evalset(Box::new(run)))
        }
        Family::EvalLog if has(FAMILIES, Family::EvalLog) => {
            evallog::read_log(input).map(|l| ReadRun::EvalLog(Box::new(l)))
        }
        other => Err(not_here(other)),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn read_qa(
    input: &RunInput,
    dataset: Option<&convfinqa::Dataset>,
    opts: ReadOptions,
) -> Result<QaRun, LoadError> {
    crate::numeric_qa::read::load_qa_run_parallel(input, dataset, opts.threads.max(1), opts.detail)
}

#[cfg(target_arch = "wasm32")]
fn read_qa(
    input: &RunInput,
    dataset: Option<&convfinqa::Dataset>,
    _opts: ReadOptions,
) -> Result<QaRun, LoadError> {
    crate::numeric_qa::read::load_qa_run(input, dataset)
}

/// A scored run of any family: what every consumer holds.
// One per loaded run: the unboxed numeric QA variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum ScoredRun {
    NumericQa(ScoredQaRun),
    /// The run as read, scored, with its files' accounting and messages.
    Codegen(Box<codegen::Loaded>),
    /// The run as read (items, predictions, summaries, files, diagnostics) and its scoring.
    Evalset(Box<EvalRun>, Box<evalset::ScoredRun>),
    /// An evaluation-tool log, its items judged by its headline score (and by a re-scorer when
    /// one is set).
    EvalLog(Box<evallog::ScoredLog>),
}

/// Scores a read run under `settings` (on `threads` native threads where the family can use
/// them).
pub fn score(read: ReadRun, settings: &Settings, threads: usize) -> ScoredRun {
    let family = read.family();
    match score_in::<ALL_FAMILIES>(read, settings, threads) {
        Some(scored) => scored,
        // Every family is scored here.
        None => unreachable!("{family} is one of every family"),
    }
}

/// [`score`] for the families in `FAMILIES`; `None` for another family's run.
pub fn score_in<const FAMILIES: FamilySet>(
    read: ReadRun,
    settings: &Settings,
    threads: usize,
) -> Option<ScoredRun> {
    Some(match read {
        ReadRun::NumericQa(run) if has(FAMILIES, Family::NumericQa) => {
            ScoredRun::NumericQa(score_qa(run, &settings.numeric_qa, threads))
        }
        ReadRun::Codegen(run, files) if has(FAMILIES, Family::Codegen) => ScoredRun::Codegen(
            Box::new(codegen::Loaded::new(*run, files, &settings.codegen)),
        ),
        ReadRun::Evalset(run) if has(FAMILIES, Family::Evalset) => {
            let mut scored = evalset::score_run(&run, &settings.evalset);
            scored.name = run.name.clone();
            ScoredRun::Evalset(run, Box::new(scored))
        }
        ReadRun::EvalLog(log) if has(FAMILIES, Family::EvalLog) => ScoredRun::EvalLog(Box::new(
            evallog::score_log(*log, &settings.evallog, settings.prices()),
        )),
        _ => return None,
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn score_qa(run: QaRun, cfg: &ScoreConfig, threads: usize) -> ScoredQaRun {
    crate::numeric_qa::score::score_qa_run_parallel(run, cfg, threads.max(1))
}

#[cfg(target_arch = "wasm32")]
fn score_qa(run: QaRun, cfg: &ScoreConfig, _threads: usize) -> ScoredQaRun {
    crate::numeric_qa::score::score_qa_run(run, cfg)
}

impl ScoredRun {
    /// The run as every describing and comparing function takes it.
    pub fn as_ref(&self) -> RunRef<'_> {
        match self {
            ScoredRun::NumericQa(s) => RunRef::NumericQa(s),
            ScoredRun::Codegen(l) => RunRef::Codegen(l),
            ScoredRun::Evalset(r, s) => RunRef::Evalset(r, s),
            ScoredRun::EvalLog(l) => RunRef::EvalLog(l),
        }
    }

    /// Every input file with its status (parsed, partly parsed, skipped with a reason).
    pub fn files(&self) -> &[InputFileReport] {
        match self {
            ScoredRun::NumericQa(s) => &s.run.files,
            ScoredRun::Codegen(l) => &l.files,
            ScoredRun::Evalset(r, _) => &r.files,
            ScoredRun::EvalLog(l) => &l.log.files,
        }
    }

    /// Scores the run again under new settings (the dashboard's Settings).
    pub fn rescore(&mut self, settings: &Settings) {
        self.rescore_in::<ALL_FAMILIES>(settings);
    }

    /// [`ScoredRun::rescore`] for a run of a family in `FAMILIES`; another family's run is
    /// left as it is.
    pub fn rescore_in<const FAMILIES: FamilySet>(&mut self, settings: &Settings) {
        match self {
            ScoredRun::NumericQa(s) if has(FAMILIES, Family::NumericQa) => {
                let run = std::mem::take(&mut s.run);
                *s = crate::numeric_qa::score::score_qa_run(run, &settings.numeric_qa);
            }
            ScoredRun::Codegen(l) if has(FAMILIES, Family::Codegen) => l.rescore(&settings.codegen),
            ScoredRun::Evalset(r, s) if has(FAMILIES, Family::Evalset) => {
                let mut scored = evalset::score_run(r, &settings.evalset);
                scored.name = r.name.clone();
                **s = scored;
            }
            ScoredRun::EvalLog(l) if has(FAMILIES, Family::EvalLog) => {
                l.rescore(&settings.evallog);
                l.reprice(settings.prices());
            }
            _ => {}
        }
    }
}

/// A consumer's code for each family, for what only that consumer does with a run (the
/// report's section of it, a worker's screen of it): [`RunRef::visit_in`] calls the method of the
/// run's family. Every method must be written, so a new family is a compile error in every
/// consumer, and the family-set guard is written once, there.
pub trait RunVisitor<'a> {
    type Out;
    fn numeric_qa(self, run: &'a ScoredQaRun) -> Self::Out;
    fn codegen(self, run: &'a codegen::Loaded) -> Self::Out;
    fn evalset(self, read: &'a EvalRun, scored: &'a evalset::ScoredRun) -> Self::Out;
    fn eval_log(self, run: &'a evallog::ScoredLog) -> Self::Out;
}

/// A scored run of any family, borrowed: what the describing and comparing functions take, so
/// a consumer that keeps a family's scored run in its own state (the dashboard's workers) uses
/// the same functions as one that holds a [`ScoredRun`].
#[derive(Debug, Clone, Copy)]
pub enum RunRef<'a> {
    NumericQa(&'a ScoredQaRun),
    Codegen(&'a codegen::Loaded),
    /// The run as read and its scoring.
    Evalset(&'a EvalRun, &'a evalset::ScoredRun),
    EvalLog(&'a evallog::ScoredLog),
}

impl<'a> RunRef<'a> {
    pub fn family(&self) -> Family {
        match self {
            RunRef::NumericQa(_) => Family::NumericQa,
            RunRef::Codegen(_) => Family::Codegen,
            RunRef::Evalset(..) => Family::Evalset,
            RunRef::EvalLog(_) => Family::EvalLog,
        }
    }

    pub fn name(&self) -> &'a str {
        match self {
            RunRef::NumericQa(s) => &s.run.name,
            RunRef::Codegen(l) => &l.scored.name,
            RunRef::Evalset(_, s) => &s.name,
            RunRef::EvalLog(l) => &l.log.name,
        }
    }

    /// The diagnostics of reading (and, for code generation, scoring) the run.
    pub fn diagnostics(&self) -> &'a [Diagnostic] {
        match self {
            RunRef::NumericQa(s) => &s.run.diagnostics,
            RunRef::Codegen(l) => &l.scored.diagnostics,
            RunRef::Evalset(r, _) => &r.diagnostics,
            RunRef::EvalLog(l) => &l.log.diagnostics,
        }
    }

    /// The family's description of the run ([`FamilyRun`]), looked up once for every
    /// describing method; `None` for a family not in `FAMILIES`, whose code a consumer that
    /// names its families does not link.
    pub fn family_run_in<const FAMILIES: FamilySet>(&self) -> Option<Box<dyn FamilyRun + 'a>> {
        Some(match *self {
            RunRef::NumericQa(s) if has(FAMILIES, Family::NumericQa) => Box::new(s),
            RunRef::Codegen(l) if has(FAMILIES, Family::Codegen) => Box::new(l),
            RunRef::Evalset(run, scored) if has(FAMILIES, Family::Evalset) => {
                Box::new(evalset::RunPair { run, scored })
            }
            RunRef::EvalLog(l) if has(FAMILIES, Family::EvalLog) => Box::new(l),
            _ => return None,
        })
    }

    /// The consumer's code for the run's family ([`RunVisitor`]); `None` for a family not in
    /// `FAMILIES` (that family's method is never called, so the consumer does not link it).
    pub fn visit_in<const FAMILIES: FamilySet, V: RunVisitor<'a>>(self, v: V) -> Option<V::Out> {
        Some(match self {
            RunRef::NumericQa(s) if has(FAMILIES, Family::NumericQa) => v.numeric_qa(s),
            RunRef::Codegen(l) if has(FAMILIES, Family::Codegen) => v.codegen(l),
            RunRef::Evalset(run, scored) if has(FAMILIES, Family::Evalset) => {
                v.evalset(run, scored)
            }
            RunRef::EvalLog(l) if has(FAMILIES, Family::EvalLog) => v.eval_log(l),
            _ => return None,
        })
    }

    /// `f` of the family's [`FamilyRun`], statically dispatched: a consumer that asks a run
    /// only its size links that method of each family, not every method of every family
    /// (a boxed `dyn FamilyRun` would bring each family's whole vtable into every worker).
    fn with_family<T>(&self, f: impl FamilyRunFn<T>) -> T {
        match *self {
            RunRef::NumericQa(s) => f.call(s),
            RunRef::Codegen(l) => f.call(l),
            RunRef::Evalset(run, scored) => f.call(&evalset::RunPair { run, scored }),
            RunRef::EvalLog(l) => f.call(l),
        }
    }

    /// The profile (or scorer) the run was scored under, by name.
    pub fn profile(&self) -> String {
        self.with_family(ProfileOf)
    }

    /// How big the run is, in its family's units (`12 conversations, 38 turns`).
    pub fn size(&self) -> String {
        self.with_family(Size)
    }

    /// Why the run has no per-item results, when it has none.
    pub fn note(&self) -> Option<&'a str> {
        match self {
            RunRef::Evalset(_, s) => s.per_item_unavailable.as_deref(),
            _ => None,
        }
    }

    /// What the run is (model, dataset, config …), for side-by-side tables.
    pub fn meta(&self) -> RunMeta {
        self.with_family(Meta)
    }

    /// The repeats of the run's items summed up ([`FamilyRun::repeats`]): pass@k, pass^k, the
    /// flaky items, the standard error clustered by item; `None` without repeats.
    pub fn repeats(&self) -> Option<crate::repeats::RepeatSummary> {
        self.with_family(Repeats)
    }

    /// The number the run is listed by: [`RunRef::headline`]'s value.
    pub fn headline_value(&self) -> Option<f64> {
        self.headline_value_in::<ALL_FAMILIES>()
    }

    /// The models whose tokens the run records but the settings' price table has no price for
    /// ([`FamilyRun::unpriced_models`]), for a run of a family in `FAMILIES`; empty for another.
    pub fn unpriced_models_in<const FAMILIES: FamilySet>(&self) -> Vec<String> {
        self.family_run_in::<FAMILIES>()
            .map(|d| d.unpriced_models())
            .unwrap_or_default()
    }

    /// [`RunRef::headline_value`] for a run of a family in `FAMILIES`; `None` for another.
    pub fn headline_value_in<const FAMILIES: FamilySet>(&self) -> Option<f64> {
        self.headline_in::<FAMILIES>().and_then(|m| m.value)
    }

    /// The number the run is listed by everywhere (the CLI, the dashboard's run list, the
    /// report's Runs table and series), the first of [`RunRef::metrics`]: numerical accuracy
    /// under the run's profile (numeric QA: under financial-agent-2, that system's own, as its
    /// statistics.json and the Overview's first card have it), the mean overall score (code
    /// generation), the primary score under the run's scorer (eval set), the headline score or,
    /// re-scored, the re-scored value (eval log).
    pub fn headline(&self) -> MetricValue {
        self.headline_in::<ALL_FAMILIES>()
            .unwrap_or_else(|| MetricValue::new("headline", "Headline", Unit::Rate, None))
    }

    /// [`RunRef::headline`] for a run of a family in `FAMILIES`; `None` for another.
    pub fn headline_in<const FAMILIES: FamilySet>(&self) -> Option<MetricValue> {
        Some(self.family_run_in::<FAMILIES>()?.headline())
    }

    /// The run's headline metrics, typed: [`RunRef::headline`] first, then the family's other
    /// rates, counts, costs and times in the order a comparison shows them.
    pub fn metrics(&self) -> Vec<MetricValue> {
        self.metrics_in::<ALL_FAMILIES>()
    }

    /// [`RunRef::metrics`] for a run of a family in `FAMILIES`; empty for another.
    pub fn metrics_in<const FAMILIES: FamilySet>(&self) -> Vec<MetricValue> {
        let Some(d) = self.family_run_in::<FAMILIES>() else {
            return Vec::new();
        };
        let (head, rest) = d.headline_and_metrics();
        let mut out = Vec::with_capacity(rest.len() + 1);
        out.extend(rest.into_iter().filter(|m| m.key != head.key));
        out.insert(0, head);
        out
    }

    /// The family's metrics of the run in the order a comparison shows them
    /// ([`FamilyRun::metrics`]); empty for a family not in `FAMILIES`.
    fn compared_metrics_in<const FAMILIES: FamilySet>(&self) -> Vec<MetricValue> {
        self.family_run_in::<FAMILIES>()
            .map(|d| d.metrics())
            .unwrap_or_default()
    }

    /// What the run is, typed ([`RunFacts`]): model and dataset from [`RunRef::meta`], the task
    /// an evaluation-tool log names, and the total cost and tokens among [`RunRef::metrics`].
    /// The content id is left to the consumer that holds the files' digests
    /// ([`crate::run_table::content_id`]).
    pub fn facts(&self) -> RunFacts {
        self.facts_of(&self.metrics())
    }

    /// The tool that wrote the run, as a run list groups runs: an evaluation-tool log's tool
    /// (`Inspect AI`, `HELM`, …), else the run's family (`numeric QA`, `eval set`, …).
    pub fn tool(&self) -> &'static str {
        match self {
            RunRef::EvalLog(l) => l.log.run.tool.label(),
            _ => self.family().label(),
        }
    }

    /// The task an evaluation-tool log names and the dataset the run's metadata names: what
    /// tells two runs' items apart when their keys look alike ([`RunComparison::not_comparable`]).
    pub fn task_and_dataset(&self) -> (Option<String>, Option<String>) {
        self.task_and_dataset_of(&self.meta())
    }

    /// [`RunRef::task_and_dataset`] from the run's metadata, already read.
    fn task_and_dataset_of(&self, meta: &RunMeta) -> (Option<String>, Option<String>) {
        (
            match self {
                RunRef::EvalLog(l) => l.log.run.task.clone(),
                _ => None,
            },
            meta.get("dataset")
                .or_else(|| meta.get("eval_set"))
                .map(str::to_string),
        )
    }

    /// [`RunRef::facts`] from the run's metrics, already computed ([`RunRef::metrics_in`]): no
    /// second statistics pass.
    pub fn facts_of(&self, metrics: &[MetricValue]) -> RunFacts {
        let meta = self.meta();
        let (task, dataset) = self.task_and_dataset_of(&meta);
        // The first of the metrics named that has a value (an eval log's cost under the price
        // table, else the one its tool recorded).
        let value = |keys: &[&str]| {
            metrics
                .iter()
                .filter(|m| keys.contains(&m.key.as_str()))
                .find_map(|m| m.value)
        };
        RunFacts {
            model: meta.get("model").map(str::to_string),
            task,
            dataset,
            cost_usd: value(&["total_cost_usd", "cost"]),
            tokens: value(&["total_tokens", "tokens"]).map(|t| t as u64),
            content_id: None,
        }
    }

    /// The run's per-item verdicts under `judge` (a `name@version` scorer or an eval log's score;
    /// `None`: the run's own primary judge), sorted by key, each key once, with the groups of
    /// items that failed as a whole. They are what a comparison joins ([`compare`] judges
    /// each run the same way), so a comparison and the verdicts never disagree on a key or a
    /// verdict.
    pub fn verdicts(&self, judge: Option<&str>) -> Result<Verdicts, CompareError> {
        self.verdicts_in::<ALL_FAMILIES>(judge)
    }

    /// [`RunRef::verdicts`] for a run of a family in `FAMILIES`.
    pub fn verdicts_in<const FAMILIES: FamilySet>(
        &self,
        judge: Option<&str>,
    ) -> Result<Verdicts, CompareError> {
        self.judged_in::<FAMILIES, _>(judge, |scorer, mut warnings, j| {
            warnings.extend(j.warnings);
            Verdicts {
                judge: scorer,
                rows: (0..j.items.len())
                    .map(|i| Verdict {
                        key: j.items.key(i),
                        correct: j.items.verdict(i),
                    })
                    .collect(),
                failed: j.failed.into_iter().map(|g| (g.key, g.reason)).collect(),
                warnings,
            }
        })
    }

    /// The counts of [`RunRef::verdicts_in`] (`correct` of the scored items) without its rows:
    /// what a many-runs row needs of a run's verdicts, with no item key built.
    pub fn verdict_rate_in<const FAMILIES: FamilySet>(
        &self,
        judge: Option<&str>,
    ) -> Result<crate::stats::Rate, CompareError> {
        self.judged_in::<FAMILIES, _>(judge, |_, _, j| j.rate())
    }

    /// `f` of the run judged alone (as the baseline of a comparison with itself) under `judge`:
    /// the judge's name, what judging the run warns about, and the judged run.
    fn judged_in<const FAMILIES: FamilySet, T>(
        &self,
        judge: Option<&str>,
        f: impl FnOnce(String, Vec<String>, crate::compare::join::Judged) -> T,
    ) -> Result<T, CompareError> {
        fn go<R: FamilyCompare, T>(
            run: &R,
            judge: Option<&str>,
            f: impl FnOnce(String, Vec<String>, crate::compare::join::Judged) -> T,
        ) -> Result<T, CompareError> {
            let pair = R::judge_pair(run, run, judge).map_err(CompareError::Judge)?;
            let judged = run
                .judged(&pair.judge, Side::Baseline)
                .map_err(CompareError::Judge)?;
            Ok(f(pair.scorer, pair.warnings, judged))
        }
        match *self {
            RunRef::NumericQa(s) if has(FAMILIES, Family::NumericQa) => go(s, judge, f),
            RunRef::Codegen(l) if has(FAMILIES, Family::Codegen) => go(l, judge, f),
            RunRef::Evalset(run, scored) if has(FAMILIES, Family::Evalset) => {
                go(&evalset::RunPair { run, scored }, judge, f)
            }
            RunRef::EvalLog(l) if has(FAMILIES, Family::EvalLog) => go(l, judge, f),
            _ => Err(CompareError::NotHere(self.family())),
        }
    }

    /// Every item of the run as a row: key, verdict under the run's primary judge, the fields
    /// it can be sliced by ([`RunRef::item_context`]) and its texts (question, expected, answer).
    pub fn items(&self) -> Result<Vec<ItemRow>, CompareError> {
        self.items_in::<ALL_FAMILIES>()
    }

    /// [`RunRef::items`] for a run of a family in `FAMILIES`.
    pub fn items_in<const FAMILIES: FamilySet>(&self) -> Result<Vec<ItemRow>, CompareError> {
        let mut rows = Vec::new();
        self.items_judged_in::<FAMILIES>(&[], |row, _| rows.push(row))?;
        Ok(rows)
    }

    /// Every item of the run as a query sees it ([`crate::query::Doc`]), in key order, judged by
    /// `judge` (`None`: the run's own): `key` (the key as text, `a / 3`), `verdict` (`correct`,
    /// `wrong`, `unscored`; `failed` for a group that failed whole with no item of it judged,
    /// which comes after the judged ones with its reason as `error`), `judge`, the slice fields under their names,
    /// the question/expected/answer texts, then the family's own fields
    /// ([`FamilyRun::query_fields`]).
    pub fn query_docs_in<const FAMILIES: FamilySet>(
        &self,
        judge: Option<&str>,
    ) -> Result<Vec<crate::query::Doc>, CompareError> {
        use crate::query::{Doc, Value};
        let mut contexts = ItemContexts::new();
        self.item_context_in::<FAMILIES>(&mut contexts);
        let mut docs = self.judged_in::<FAMILIES, _>(judge, |scorer, _, j| {
            let mut docs = Vec::with_capacity(j.items.len() + j.failed.len());
            for i in 0..j.items.len() {
                let key = j.items.key(i);
                let mut d = Doc::new(key.clone());
                d.push("key", Value::Str(key.to_string()));
                let verdict = match j.items.verdict(i) {
                    Some(true) => "correct",
                    Some(false) => "wrong",
                    None => "unscored",
                };
                d.push("verdict", Value::Str(verdict.into()));
                d.push("judge", Value::Str(scorer.clone()));
                let ctx = contexts.remove(&key).unwrap_or_default();
                for (k, v) in ctx.fields {
                    d.push(k, Value::Str(v));
                }
                if let Some(q) = ctx.question {
                    d.push_text("question", &q);
                }
                for (at, t) in [
                    ("expected", j.items.expected(i)),
                    ("answer", j.items.answer(i)),
                ] {
                    if let Some(t) = t {
                        d.push_text(at, &t);
                    }
                }
                docs.push(d);
            }
            for g in j.failed {
                // A group whose items are judged is in them (they are wrong); one with no item
                // judged is an item of its own.
                let judged = docs.partition_point(|d: &Doc| d.key < g.key);
                if docs.get(judged).is_some_and(|d| d.key.starts_with(&g.key)) {
                    continue;
                }
                let mut d = Doc::new(g.key.clone());
                d.push("key", Value::Str(g.key.to_string()));
                d.push("verdict", Value::Str("failed".into()));
                d.push("judge", Value::Str(scorer.clone()));
                d.push_text("error", &g.reason);
                docs.push(d);
            }
            docs
        })?;
        if let Some(f) = self.family_run_in::<FAMILIES>() {
            f.query_fields(&mut crate::query::Docs::new(&mut docs));
        }
        Ok(docs)
    }

    /// Adds to `docs` (the run's [`RunRef::query_docs_in`]) the texts its files hold apart from
    /// its items, read from `input` (the files the run was read from): an Inspect log's
    /// conversations (messages, tool calls and results). Returns what could not be read, one
    /// line per sample; nothing for a family that keeps no such texts.
    pub fn add_conversations_in<const FAMILIES: FamilySet>(
        &self,
        input: &RunInput,
        docs: &mut [crate::query::Doc],
    ) -> Vec<String> {
        match *self {
            RunRef::EvalLog(l) if has(FAMILIES, Family::EvalLog) => {
                evallog::query::read_conversations(
                    l,
                    &input.files,
                    &mut crate::query::Docs::new(docs),
                )
            }
            _ => Vec::new(),
        }
    }

    /// The row of the item of `key` ([`RunRef::items`]' row), for a run of a family in
    /// `FAMILIES`; `None` when the run has no such item or cannot be judged alone.
    pub fn item_in<const FAMILIES: FamilySet>(&self, key: &ItemKey) -> Option<ItemRow> {
        let mut contexts = ItemContexts::new();
        self.item_context_in::<FAMILIES>(&mut contexts);
        self.judged_in::<FAMILIES, _>(None, |_, _, j| {
            // The judged items are in key order, each key once.
            let n = j.items.len();
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if j.items.key(mid) < *key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            (lo < n && j.items.key(lo) == *key).then(|| {
                let ctx = contexts.remove(key).unwrap_or_default();
                let texts = judged_items::item_texts(ctx.question, &*j.items, lo);
                ItemRow {
                    key: key.clone(),
                    verdict: j.items.verdict(lo),
                    fields: ctx.fields,
                    texts,
                    usage: ctx.usage,
                }
            })
        })
        .ok()
        .flatten()
    }

    /// The run summed up as plain data ([`RunSummary`]): facts, metrics (headline first) and
    /// verdicts under `judge`.
    pub fn summary(&self, judge: Option<&str>) -> Result<RunSummary, CompareError> {
        // The metrics once: an eval set's are scored again under the other answer scorer.
        let metrics = self.metrics();
        Ok(RunSummary {
            name: self.name().to_string(),
            family: self.family(),
            profile: self.profile(),
            facts: self.facts_of(&metrics),
            metrics,
            verdicts: self.verdicts(judge)?,
        })
    }

    /// (groups, items): conversations and turns, sessions and messages, none and items.
    pub fn counts(&self) -> (usize, usize) {
        self.with_family(Counts)
    }

    /// How many items the run says it holds once complete ([`FamilyRun::declared_items`]).
    pub fn declared_items(&self) -> Option<u64> {
        self.with_family(DeclaredItems)
    }

    /// The category and question of each of the run's items, by comparison key.
    pub fn item_context(&self, out: &mut ItemContexts) {
        self.item_context_in::<ALL_FAMILIES>(out)
    }

    /// [`RunRef::item_context`] for a run of a family in `FAMILIES`; nothing for another.
    pub fn item_context_in<const FAMILIES: FamilySet>(&self, out: &mut ItemContexts) {
        if let Some(d) = self.family_run_in::<FAMILIES>() {
            d.item_context(out)
        }
    }

    /// The status the run's log records of its lifecycle ([`FamilyRun::lifecycle_status`]).
    pub fn lifecycle_status(&self) -> Option<String> {
        self.with_family(LifecycleStatus)
    }

    /// The run's headline metrics, in display order (its family's table; their values are
    /// keys of the run's statistics).
    pub fn headline_metrics(&self) -> &'static [Metric] {
        self.with_family(HeadlineMetrics)
    }
}

/// One [`FamilyRun`] method, called on any family's run by [`RunRef::with_family`] (generic, so
/// each call site links only that method).
trait FamilyRunFn<T> {
    fn call<R: FamilyRun>(&self, run: &R) -> T;
}

struct ProfileOf;
impl FamilyRunFn<String> for ProfileOf {
    fn call<R: FamilyRun>(&self, run: &R) -> String {
        run.profile()
    }
}
struct Size;
impl FamilyRunFn<String> for Size {
    fn call<R: FamilyRun>(&self, run: &R) -> String {
        run.size()
    }
}
struct Meta;
impl FamilyRunFn<RunMeta> for Meta {
    fn call<R: FamilyRun>(&self, run: &R) -> RunMeta {
        run.meta()
    }
}
struct Repeats;
impl FamilyRunFn<Option<crate::repeats::RepeatSummary>> for Repeats {
    fn call<R: FamilyRun>(&self, run: &R) -> Option<crate::repeats::RepeatSummary> {
        run.repeats()
    }
}
struct Counts;
impl FamilyRunFn<(usize, usize)> for Counts {
    fn call<R: FamilyRun>(&self, run: &R) -> (usize, usize) {
        run.counts()
    }
}
struct DeclaredItems;
impl FamilyRunFn<Option<u64>> for DeclaredItems {
    fn call<R: FamilyRun>(&self, run: &R) -> Option<u64> {
        run.declared_items()
    }
}
struct LifecycleStatus;
impl FamilyRunFn<Option<String>> for LifecycleStatus {
    fn call<R: FamilyRun>(&self, run: &R) -> Option<String> {
        run.lifecycle_status()
    }
}
struct HeadlineMetrics;
impl FamilyRunFn<&'static [Metric]> for HeadlineMetrics {
    fn call<R: FamilyRun>(&self, run: &R) -> &'static [Metric] {
        run.headline_metrics()
    }
}

/// How two runs are compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompareSettings {
    /// The numeric QA scorer that judges turns (`None`: the baseline profile's primary scorer);
    /// for eval logs, the score that judges items (`None`: the baseline's headline score).
    pub qa_scorer: Option<String>,
    pub opts: CompareOptions,
    /// How items pair: as judged (the default), or per item with its repeats reduced
    /// (`diff --by-item`, the dashboard's Compare toggle).
    pub pairing: crate::compare::Pairing,
}

impl CompareSettings {
    /// Whether `qa_scorer` can judge runs of `family`, checked before any run is read: a
    /// numeric QA scorer must be one of its pairing scorers; other families take any name
    /// (an eval log's score names are known only once it is read).
    pub fn check(&self, family: Family) -> Result<(), CompareError> {
        match (family, &self.qa_scorer) {
            (Family::NumericQa, Some(s))
                if crate::numeric_qa::compare::canonical_scorer(s).is_none() =>
            {
                Err(CompareError::Judge(
                    crate::numeric_qa::compare::QaCompareError::UnknownScorer(s.clone())
                        .to_string(),
                ))
            }
            _ => Ok(()),
        }
    }

    /// The settings profile a comparison scores runs of `family` under: `profile` when given,
    /// else for an eval set the answer scorer `qa_scorer` names (`doc` without one), else `doc`.
    pub fn profile(&self, family: Family, profile: Option<&str>) -> String {
        match (profile, family) {
            (Some(p), _) => p.to_string(),
            (None, Family::Evalset) => self.qa_scorer.clone().unwrap_or_else(|| "doc".into()),
            (None, _) => "doc".into(),
        }
    }
}

/// Why two runs cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("{baseline} is {} {} run but {candidate} is {} {} run: only runs of one family compare",
        article(*baseline_family), baseline_family.label(), article(*candidate_family), candidate_family.label())]
    FamilyMismatch {
        baseline: String,
        baseline_family: Family,
        candidate: String,
        candidate_family: Family,
    },
    /// Why the scorer asked for cannot judge the runs (an unknown numeric QA scorer, an eval-log
    /// score the baseline does not record).
    #[error("{0}")]
    Judge(String),
    /// The runs' family is not among those this consumer compares.
    #[error("{} runs are not compared here", .0.label())]
    NotHere(Family),
}

/// A baseline-vs-candidate comparison of two runs of one family: the same value in
/// `evalboard diff --json`, the dashboard's Compare tab and the HTML report.
#[derive(Debug, Clone, PartialEq)]
pub struct RunComparison {
    pub family: Family,
    pub baseline: String,
    pub candidate: String,
    /// What judged each item (`name@version`).
    pub scorer: String,
    /// How items are joined and judged, in a sentence.
    pub judged_by: String,
    /// How items were paired, when it needs saying ([`crate::family_run::Joined::pairing`]):
    /// by item with their repeats reduced, or per repeat.
    pub pairing: Option<String>,
    /// Paired by item: the part of the runs' item keys (the repeat) the pairs' keys are
    /// without ([`crate::slices::comparison_contexts_in`] keys item contexts so).
    pub item_part: Option<usize>,
    /// The family's headline rates in both runs.
    pub metrics: Vec<MetricDelta>,
    pub stats: PairedComparison,
    /// Items that failed as a whole in either run (counted wrong), with the reason.
    pub failed_items: Vec<FailedItem>,
    /// Why the item-level numbers need a second look (no per-item data, different profiles).
    pub note: Option<String>,
    /// Problems found while pairing (a key seen twice in one run).
    pub warnings: Vec<String>,
    /// Why the runs' items should not be paired at all (different tasks or datasets,
    /// [`crate::compare::not_comparable`]): the comparison then reads no verdict.
    pub not_comparable: Option<String>,
}

impl RunComparison {
    /// The comparison in one sentence ([`crate::compare::reading`]); a regression's cause is
    /// the candidate's failure of the item (or of its conversation) when it failed as a whole.
    pub fn reading(&self) -> crate::compare::Reading {
        if let Some(why) = &self.not_comparable {
            return crate::compare::Reading {
                tone: crate::compare::Tone::Empty,
                text: format!(
                    "No verdict: {} and {} are of {why}, so the pairing is not read.",
                    self.candidate, self.baseline
                ),
            };
        }
        let causes = |key: &ItemKey| {
            self.failed_items
                .iter()
                .find(|f| f.run == "candidate" && key.starts_with(&f.key))
                .map(|f| f.reason.clone())
        };
        crate::compare::reading(&self.baseline, &self.candidate, &self.stats, &causes)
    }
}

/// Compares `candidate` with `baseline` item by item under the family's one set of rules
/// (docs/scoring.md, "Comparing two runs").
pub fn compare(
    baseline: RunRef,
    candidate: RunRef,
    settings: &CompareSettings,
) -> Result<RunComparison, CompareError> {
    compare_in::<ALL_FAMILIES>(baseline, candidate, settings)
}

/// [`compare`] for runs of the families in `FAMILIES`; two runs of another family are
/// [`CompareError::NotHere`].
pub fn compare_in<const FAMILIES: FamilySet>(
    baseline: RunRef,
    candidate: RunRef,
    settings: &CompareSettings,
) -> Result<RunComparison, CompareError> {
    compare_pair_in::<FAMILIES>(baseline, candidate, settings, true)
}

/// [`compare_in`], with both runs' metrics (a statistics pass over each run) and
/// `not_comparable` (a metadata pass) only when `with_metrics`: the many-runs comparison, which
/// knows each run's own numbers, task and dataset already, pairs without them (`metrics` empty,
/// `not_comparable` its own), by the same join.
pub(crate) fn compare_pair_in<const FAMILIES: FamilySet>(
    baseline: RunRef,
    candidate: RunRef,
    settings: &CompareSettings,
    with_metrics: bool,
) -> Result<RunComparison, CompareError> {
    let joined = match (baseline, candidate) {
        (RunRef::NumericQa(b), RunRef::NumericQa(c)) if has(FAMILIES, Family::NumericQa) => {
            judge_and_join(b, c, settings)
        }
        (RunRef::Evalset(br, b), RunRef::Evalset(cr, c)) if has(FAMILIES, Family::Evalset) => {
            let b = evalset::RunPair { run: br, scored: b };
            let c = evalset::RunPair { run: cr, scored: c };
            judge_and_join(&b, &c, settings)
        }
        (RunRef::Codegen(b), RunRef::Codegen(c)) if has(FAMILIES, Family::Codegen) => {
            judge_and_join(b, c, settings)
        }
        (RunRef::EvalLog(b), RunRef::EvalLog(c)) if has(FAMILIES, Family::EvalLog) => {
            judge_and_join(b, c, settings)
        }
        (b, c) if b.family() == c.family() => Err(CompareError::NotHere(b.family())),
        (b, c) => Err(CompareError::FamilyMismatch {
            baseline: b.name().to_string(),
            baseline_family: b.family(),
            candidate: c.name().to_string(),
            candidate_family: c.family(),
        }),
    }?;
    Ok(comparison_of::<FAMILIES>(
        baseline,
        candidate,
        joined,
        with_metrics,
    ))
}

/// A pair's comparison from its judged and joined runs ([`compare_pair_in`]).
fn comparison_of<const FAMILIES: FamilySet>(
    baseline: RunRef,
    candidate: RunRef,
    joined: Joined,
    with_metrics: bool,
) -> RunComparison {
    RunComparison {
        family: baseline.family(),
        baseline: baseline.name().to_string(),
        candidate: candidate.name().to_string(),
        scorer: joined.scorer,
        judged_by: joined.judged_by,
        pairing: joined.pairing,
        item_part: joined.item_part,
        metrics: if with_metrics {
            MetricDelta::zip(
                &baseline.compared_metrics_in::<FAMILIES>(),
                &candidate.compared_metrics_in::<FAMILIES>(),
            )
        } else {
            Vec::new()
        },
        stats: joined.stats,
        failed_items: joined.failed_items,
        note: joined.note,
        warnings: joined.warnings,
        // The many-runs comparison reads it from what it knows of each run (no metadata pass).
        not_comparable: with_metrics
            .then(|| {
                crate::compare::not_comparable(
                    &baseline.task_and_dataset(),
                    &candidate.task_and_dataset(),
                )
            })
            .flatten(),
    }
}

/// Each pair's comparison and each run's own verdict counts ([`compare_jobs_in`]).
pub(crate) type ComparedJobs = (
    Vec<Result<RunComparison, CompareError>>,
    Vec<Result<crate::stats::Rate, CompareError>>,
);

/// The pairs and counts a many-runs comparison reads: each of `jobs` (baseline, candidate, the
/// judge asked; indices into `runs`) compared as [`compare_pair_in`] without metrics, and each
/// of `own` (run, judge asked) its verdicts' counts as [`RunRef::verdict_rate_in`], with every
/// run judged once per judge and side it is needed under
/// ([`crate::family_run::judge_once_and_pair`]), on `threads` threads natively. Runs of two
/// families (or of a family not in `FAMILIES`) go pair by pair, each with its error.
pub(crate) fn compare_jobs_in<const FAMILIES: FamilySet>(
    runs: &[RunRef],
    jobs: &[(usize, usize, Option<String>)],
    own: &[(usize, Option<String>)],
    settings: &CompareSettings,
    (threads, with_metrics): (usize, bool),
) -> ComparedJobs {
    type Out = ComparedJobs;
    /// Every run as the family's own type (`pick`); `None` when one is of another family.
    fn batch<'r, const FAMILIES: FamilySet, F, P>(
        runs: &[RunRef<'r>],
        pick: impl Fn(RunRef<'r>) -> Option<P>,
        jobs: &[(usize, usize, Option<String>)],
        own: &[(usize, Option<String>)],
        settings: &CompareSettings,
        (threads, with_metrics): (usize, bool),
    ) -> Option<Out>
    where
        F: FamilyCompare + Sync,
        F::Judge: Sync,
        P: std::borrow::Borrow<F>,
    {
        let typed: Vec<P> = runs.iter().map(|r| pick(*r)).collect::<Option<_>>()?;
        let refs: Vec<&F> = typed.iter().map(|p| p.borrow()).collect();
        let job_refs: Vec<(usize, usize, Option<&str>)> = jobs
            .iter()
            .map(|(b, c, a)| (*b, *c, a.as_deref()))
            .collect();
        let own_refs: Vec<(usize, Option<&str>)> =
            own.iter().map(|(r, a)| (*r, a.as_deref())).collect();
        let (joined, rates) = crate::family_run::judge_once_and_pair(
            &refs,
            &job_refs,
            &own_refs,
            &settings.opts,
            settings.pairing,
            threads,
        );
        let comparisons = jobs
            .iter()
            .zip(joined)
            .map(|(&(b, c, _), j)| {
                let j = j.map_err(CompareError::Judge)?;
                match (runs.get(b), runs.get(c)) {
                    (Some(b), Some(c)) => Ok(comparison_of::<FAMILIES>(*b, *c, j, with_metrics)),
                    _ => Err(CompareError::Judge("no such run".to_string())),
                }
            })
            .collect();
        Some((
            comparisons,
            rates
                .into_iter()
                .map(|r| r.map_err(CompareError::Judge))
                .collect(),
        ))
    }
    let typed: Option<Out> = match runs.first() {
        Some(RunRef::NumericQa(_)) if has(FAMILIES, Family::NumericQa) => {
            batch::<FAMILIES, ScoredQaRun, _>(
                runs,
                |r| match r {
                    RunRef::NumericQa(r) => Some(r),
                    _ => None,
                },
                jobs,
                own,
                settings,
                (threads, with_metrics),
            )
        }
        Some(RunRef::Evalset(..)) if has(FAMILIES, Family::Evalset) => {
            batch::<FAMILIES, evalset::RunPair, _>(
                runs,
                |r| match r {
                    RunRef::Evalset(run, scored) => Some(evalset::RunPair { run, scored }),
                    _ => None,
                },
                jobs,
                own,
                settings,
                (threads, with_metrics),
            )
        }
        Some(RunRef::Codegen(_)) if has(FAMILIES, Family::Codegen) => {
            batch::<FAMILIES, codegen::Loaded, _>(
                runs,
                |r| match r {
                    RunRef::Codegen(r) => Some(r),
                    _ => None,
                },
                jobs,
                own,
                settings,
                (threads, with_metrics),
            )
        }
        Some(RunRef::EvalLog(_)) if has(FAMILIES, Family::EvalLog) => {
            batch::<FAMILIES, evallog::ScoredLog, _>(
                runs,
                |r| match r {
                    RunRef::EvalLog(r) => Some(r),
                    _ => None,
                },
                jobs,
                own,
                settings,
                (threads, with_metrics),
            )
        }
        _ => None,
    };
    typed.unwrap_or_else(|| {
        let missing = || CompareError::Judge("no such run".to_string());
        (
            jobs.iter()
                .map(|(b, c, asked)| {
                    let (b, c) = (
                        runs.get(*b).ok_or_else(missing)?,
                        runs.get(*c).ok_or_else(missing)?,
                    );
                    let s = CompareSettings {
                        qa_scorer: asked.clone(),
                        ..settings.clone()
                    };
                    compare_pair_in::<FAMILIES>(*b, *c, &s, with_metrics)
                })
                .collect(),
            own.iter()
                .map(|(r, asked)| {
                    runs.get(*r)
                        .ok_or_else(missing)?
                        .verdict_rate_in::<FAMILIES>(asked.as_deref())
                })
                .collect(),
        )
    })
}

/// Two runs of one family judged and joined ([`crate::family_run::judge_and_join`]).
fn judge_and_join<F: FamilyCompare>(
    baseline: &F,
    candidate: &F,
    settings: &CompareSettings,
) -> Result<Joined, CompareError> {
    crate::family_run::judge_and_pair(
        baseline,
        candidate,
        settings.qa_scorer.as_deref(),
        &settings.opts,
        settings.pairing,
    )
    .map_err(CompareError::Judge)
}

impl RunComparison {
    /// Everything a reader of the numbers should see beside them — why per-item results are
    /// missing, then the pairing's warnings — as one text; `None` when there is nothing to say.
    pub fn notes(&self) -> Option<String> {
        let notes: Vec<&str> = self
            .note
            .iter()
            .chain(&self.warnings)
            .map(String::as_str)
            .collect();
        (!notes.is_empty()).then(|| notes.join(" "))
    }

    /// The comparison as `evalboard diff --json` prints it and the HTML report embeds it
    /// (README: the keys of `diff --json`).
    pub fn to_json(&self) -> Value {
        let keys = |f: &dyn Fn(Flip) -> bool| -> Vec<Value> {
            self.stats
                .pairs
                .iter()
                .filter(|p| f(p.flip()))
                .map(|p| p.key.to_json())
                .collect()
        };
        let failed: Vec<Value> = self
            .failed_items
            .iter()
            .map(|f| json!({"key": f.key.to_json(), "run": f.run, "reason": f.reason}))
            .collect();
        let s = &self.stats;
        let reading = self.reading();
        let mut out = json!({
            "baseline": self.baseline,
            "candidate": self.candidate,
            "family": self.family,
            "scorer": self.scorer,
            "reading": {"tone": reading.tone, "text": reading.text},
            "n_items": s.n_paired,
            "baseline_accuracy": s.baseline_accuracy,
            "candidate_accuracy": s.candidate_accuracy,
            "accuracy_delta": s.accuracy_delta,
            "mcnemar_exact_p": s.mcnemar_p,
            "bootstrap_ci": {
                "low": s.bootstrap.low,
                "high": s.bootstrap.high,
                "resamples": s.bootstrap.resamples,
                "seed": s.bootstrap.seed,
                "method": crate::stats::BOOTSTRAP_METHOD,
            },
            "regressed": keys(&|f| f == Flip::Regressed),
            "improved": keys(&|f| f == Flip::Improved),
            "both_correct": s.flips.unchanged_correct,
            "both_wrong": s.flips.unchanged_wrong,
            "only_in_one": keys(&|f| matches!(f, Flip::OnlyInBaseline | Flip::OnlyInCandidate)),
            "failed_items": failed,
            "per_item_unavailable": self.note,
        });
        if let (Some(obj), Some(why)) = (out.as_object_mut(), &self.not_comparable) {
            obj.insert("not_comparable".into(), json!(why));
        }
        // How items paired, when it needs saying (by item; per repeat when items have repeats),
        // and the by-item statistics: added only then, so other comparisons print as before.
        if let (Some(obj), Some(pairing)) = (out.as_object_mut(), &self.pairing) {
            let by_item = s.by_item.as_ref();
            obj.insert(
                "pairing".into(),
                json!({
                    "by": if by_item.is_some() { "item" } else { "repeat" },
                    "reducer": by_item.map(|m| m.reducer.clone()),
                    "text": pairing,
                }),
            );
            if let Some(m) = by_item {
                obj.insert(
                    "by_item".into(),
                    json!({
                        "reducer": m.reducer,
                        "binary": m.binary,
                        "n_items": m.n_items,
                        "baseline_mean": m.baseline_mean,
                        "candidate_mean": m.candidate_mean,
                        "mean_delta": m.delta,
                        "stderr_clustered": m.stderr,
                        "ci95": {"low": m.ci_low, "high": m.ci_high, "method": "normal, item-clustered"},
                    }),
                );
            }
        }
        out
    }
}
