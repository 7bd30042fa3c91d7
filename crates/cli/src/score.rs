//! `evalboard score`: load → score → aggregate → write, for one or more run folders, through the
//! engine's one dispatch (`evalboard_engine::run`).

use evalboard_cli::{errln, outln};
use std::cell::OnceCell;
use std::path::Path;

use anyhow::{bail, Context, Result};
use evalboard_engine::family::Family;
use evalboard_engine::lake::Cell;
use evalboard_engine::numeric_qa::score::Profile;
use evalboard_engine::prices::PriceTable;
use evalboard_engine::run::{self, ReadOptions, ReadRun, Reference, RunRef, ScoredRun};
use evalboard_engine::{accounting, RunInput};

use crate::cli::{ScoreArgs, SettingsArgs};
use crate::fsio;

/// What `score` keeps of one scored run once its files are written: its statistics, summary
/// table and where its files went. The run's model and the files' texts are gone by then, so
/// scoring several runs holds one run at a time.
struct Outputs {
    name: String,
    statistics: serde_json::Value,
    /// The output folder and the number of files written there (with `--out`).
    written: Option<(std::path::PathBuf, usize)>,
    /// What writing the files found, printed beside them.
    diagnostics: Vec<evalboard_engine::Diagnostic>,
    table: Vec<(String, String)>,
    /// With `--marks`: the run's content id and its review (`None`: no mark of its id).
    human: Option<(Option<String>, Option<evalboard_engine::marks::Review>)>,
}

/// The scoring settings shared by `score` and `report`: the profile as named, the engine's
/// settings, the `--dataset` file (read as the reference data of the family that uses it), and
/// the bytes of the files they came from (for the report's provenance).
pub(crate) struct Settings {
    pub profile: String,
    pub engine: run::Settings,
    /// (path, bytes) of `--dataset`.
    dataset: Option<(String, Vec<u8>)>,
    /// The dataset as each family read it, once (index: `Family::ALL`).
    references: [OnceCell<Option<Reference>>; Family::ALL.len()],
    /// (path, bytes) of `--dataset` and `--prices`.
    pub setting_files: Vec<(String, Vec<u8>)>,
}

/// How a run is read before its family is known (the profile decides what a numeric QA run
/// keeps).
fn read_options(profile: &str) -> ReadOptions {
    let profile = Profile::parse(profile).unwrap_or(Profile::Doc);
    ReadOptions::for_profile(profile, fsio::threads())
}

/// Reads the scoring settings from parsed arguments.
pub(crate) fn settings(a: &SettingsArgs) -> Result<Settings> {
    let mut engine = run::Settings::default();
    engine.numeric_qa.tolerances.rel = a.rel_tol;
    engine.numeric_qa.tolerances.abs = a.abs_tol;
    // The same flags set the tolerances of the eval-log re-scorer numeric@v1 (same defaults).
    engine.evallog.numeric.rel = a.rel_tol;
    engine.evallog.numeric.abs = a.abs_tol;
    engine.evallog.pass_k = a.pass_k;
    let mut setting_files = Vec::new();
    if let Some(path) = &a.prices {
        let p: &str = &path.display().to_string();
        let bytes = std::fs::read(path).with_context(|| format!("cannot read price table {p}"))?;
        let (prices, diags) =
            PriceTable::from_json(p, &bytes).map_err(|e| anyhow::anyhow!("{e} ({p})"))?;
        for d in &diags {
            errln!("{d}");
        }
        engine.numeric_qa.prices = prices;
        setting_files.push((p.to_string(), bytes));
    }
    let dataset = match &a.dataset {
        None => None,
        Some(path) => {
            let p = path.display().to_string();
            let bytes = std::fs::read(path).with_context(|| format!("cannot read dataset {p}"))?;
            setting_files.push((p.clone(), bytes.clone()));
            Some((p, bytes))
        }
    };
    Ok(Settings {
        profile: a.profile.clone(),
        engine,
        dataset,
        references: Default::default(),
        setting_files,
    })
}

impl Settings {
    /// The engine settings for a run of `family`, with the named profile applied.
    pub(crate) fn for_family(&self, family: Family) -> Result<run::Settings> {
        let mut s = self.engine.clone();
        s.set_profile(family, &self.profile)?;
        Ok(s)
    }

    fn read_options(&self) -> ReadOptions {
        read_options(&self.profile)
    }

    /// `--dataset` as `family`'s reference data, read on first use (its diagnostics printed
    /// once); `None` without `--dataset` or for a family that takes none.
    pub(crate) fn reference(&self, family: Family) -> Result<Option<&Reference>> {
        let Some((path, bytes)) = &self.dataset else {
            return Ok(None);
        };
        let slot = Family::ALL.iter().position(|f| *f == family).unwrap_or(0);
        if let Some(r) = self.references[slot].get() {
            return Ok(r.as_ref());
        }
        let read = match Reference::read(family, path, bytes) {
            Ok(r) => r,
            Err(e) => {
                for d in &e.diagnostics {
                    errln!("{d}");
                }
                anyhow::bail!("{}", e.message);
            }
        };
        let reference = read.map(|(r, diags)| {
            for d in &diags {
                errln!("{d}");
            }
            r
        });
        Ok(self.references[slot].get_or_init(|| reference).as_ref())
    }
}

/// Reads and scores one run folder already in memory, printing its diagnostics and skipped
/// files to stderr. `Ok(None)` when the run is unusable (already reported; exit code 2).
pub(crate) fn load_scored(dir: &str, input: &RunInput, s: &Settings) -> Result<Option<ScoredRun>> {
    let family = evalboard_engine::family::detect_family(input);
    let settings = s.for_family(family)?;
    let read = run::read_as(family, input, s.reference(family)?, s.read_options());
    Ok(score_read(dir, read, &settings))
}

/// A run on disk, read for scoring (streamed when it is a numeric QA run), with its family.
pub(crate) struct LoadedRun {
    dir: String,
    pub family: Family,
    loaded: fsio::Loaded,
}

/// Reads the run at `path` ([`fsio::load_run`]); `profile` (as named by `--profile`) decides
/// what a numeric QA reader keeps.
pub(crate) fn load_path(path: &Path, profile: &str) -> Result<LoadedRun> {
    let detail = read_options(profile).detail;
    let loaded = fsio::load_run(path, detail)?;
    let family = match &loaded {
        fsio::Loaded::Qa { .. } => Family::NumericQa,
        fsio::Loaded::Other(input) => evalboard_engine::family::detect_family(input),
        // A lake's runs are evalboard's run rows (read as logs: `lake_runs` gives one or more).
        fsio::Loaded::Lake(lake) => match lake.runs.first() {
            Some(run) => evalboard_engine::family::detect_family(run),
            None => bail!("{}: the lake holds no run", path.display()),
        },
    };
    Ok(LoadedRun {
        dir: path.display().to_string(),
        family,
        loaded,
    })
}

impl LoadedRun {
    /// Each file's size and SHA-256 (for the run's content id, `--marks`): from the bytes read,
    /// or from disk for a streamed numeric QA run.
    pub(crate) fn digests(&self) -> Result<crate::marks::Digests> {
        match &self.loaded {
            fsio::Loaded::Qa { reads, .. } => crate::marks::digests_on_disk(
                Path::new(&self.dir),
                reads.iter().map(|r| r.report.path.as_str()),
            ),
            fsio::Loaded::Other(input) => Ok(crate::marks::digests_of_input(input)),
            fsio::Loaded::Lake(_) => anyhow::bail!(
                "{}: a lake's runs take no review marks (their verdicts are as exported)",
                self.dir
            ),
        }
    }

    /// Scores the run ([`load_scored`]); the bytes read are gone when it returns.
    pub(crate) fn score(self, s: &Settings) -> Result<Option<ScoredRun>> {
        let dir: &str = &self.dir;
        match self.loaded {
            fsio::Loaded::Qa { name, reads } => {
                let settings = s.for_family(self.family)?;
                let dataset = match s.reference(self.family)? {
                    Some(Reference::ConvFinQa(ds)) => Some(ds),
                    _ => None,
                };
                let read =
                    evalboard_engine::numeric_qa::read::assemble_qa_run(&name, reads, dataset)
                        .map(ReadRun::NumericQa);
                Ok(score_read(dir, read, &settings))
            }
            fsio::Loaded::Other(input) => load_scored(dir, &input, s),
            fsio::Loaded::Lake(fsio::LakeRuns { runs: inputs, .. }) => {
                // One run is asked for: the lake's first, the others named.
                if inputs.len() > 1 {
                    let others: Vec<&str> =
                        inputs.iter().skip(1).map(|i| i.name.as_str()).collect();
                    errln!(
                        "evalboard: warning: {dir}: the lake holds {} runs: only {} is read here \
                         (not {})",
                        inputs.len(),
                        inputs[0].name,
                        others.join(", ")
                    );
                }
                match inputs.first() {
                    Some(input) => load_scored(dir, input, s),
                    None => Ok(None),
                }
            }
        }
    }

    /// A lake given as a baseline, split in two: the runs its `comparisons` name as a baseline,
    /// and the others, compared with them. When they name none, the lake is the baseline as a
    /// folder would be when other runs are `given` (each run then meets the baseline of its
    /// task), else its first run is the baseline of the others. Any other run is itself and
    /// nothing.
    pub(crate) fn split_lake_baseline(self, given: bool) -> (LoadedRun, Option<LoadedRun>) {
        let fsio::Loaded::Lake(lake) = self.loaded else {
            return (self, None);
        };
        let named = lake.baseline.iter().any(|b| *b);
        let (mut base, mut rest) = (Vec::new(), Vec::new());
        for (i, (run, b)) in lake.runs.into_iter().zip(lake.baseline).enumerate() {
            if b || (!named && (given || i == 0)) {
                base.push(run);
            } else {
                rest.push(run);
            }
        }
        let part = |runs: Vec<RunInput>| LoadedRun {
            dir: self.dir.clone(),
            family: self.family,
            loaded: fsio::Loaded::Lake(fsio::LakeRuns {
                baseline: vec![false; runs.len()],
                runs,
            }),
        };
        let rest = (!rest.is_empty()).then(|| part(rest));
        (part(base), rest)
    }

    /// [`LoadedRun::score`], keeping the bytes of a run read whole (not a streamed numeric QA
    /// run) for what is read from them later: `query` reads a log's conversations from them.
    pub(crate) fn score_keeping_input(
        self,
        s: &Settings,
    ) -> Result<Option<(ScoredRun, Option<RunInput>)>> {
        match self.loaded {
            fsio::Loaded::Other(input) => {
                Ok(load_scored(&self.dir, &input, s)?.map(|run| (run, Some(input))))
            }
            fsio::Loaded::Qa { .. } | fsio::Loaded::Lake(_) => {
                Ok(self.score(s)?.map(|run| (run, None)))
            }
        }
    }

    /// [`LoadedRun::score`], with a folder of several evaluation-tool logs scored as one run
    /// per log (`folder/file`, [`run::read_parts`]): a log that cannot be read is named as
    /// skipped (in the first readable run's files) and the others are scored; `Ok(None)` when
    /// none of them is usable (already reported).
    pub(crate) fn score_logs(self, s: &Settings) -> Result<Option<Vec<ScoredRun>>> {
        let input = match self.loaded {
            fsio::Loaded::Other(input) => input,
            fsio::Loaded::Qa { .. } => return Ok(self.score(s)?.map(|r| vec![r])),
            // A lake: each run on its own, named as `score` printed it.
            fsio::Loaded::Lake(fsio::LakeRuns { runs: inputs, .. }) => {
                let runs: Vec<ScoredRun> = inputs
                    .iter()
                    .map(|input| load_scored(&self.dir, input, s))
                    .collect::<Result<Vec<_>>>()?
                    .into_iter()
                    .flatten()
                    .collect();
                return Ok((!runs.is_empty()).then_some(runs));
            }
        };
        let settings = s.for_family(self.family)?;
        let reads = run::read_parts(
            self.family,
            input,
            s.reference(self.family)?,
            s.read_options(),
        );
        let reads = match reads {
            Ok(r) => r,
            Err(e) => {
                score_read(&self.dir, Err(e), &settings);
                return Ok(None);
            }
        };
        Ok(Some(
            reads
                .into_iter()
                .filter_map(|r| score_read(&self.dir, Ok(r), &settings))
                .collect(),
        ))
    }
}

/// Scores a read run, printing what reading it found (diagnostics, skipped files) to stderr;
/// `None` when nothing of it was usable.
fn score_read(
    dir: &str,
    read: Result<ReadRun, accounting::LoadError>,
    settings: &run::Settings,
) -> Option<ScoredRun> {
    let read = match read {
        Ok(r) => r,
        Err(e) => {
            for f in &e.files {
                if let Some(r) = &f.reason {
                    errln!("{dir}/{}: skipped: {r}", f.path);
                }
            }
            for d in &e.diagnostics {
                errln!("{dir}/{d}");
            }
            errln!("evalboard: error: {dir}: {}", e.message);
            return None;
        }
    };
    let scored = run::score(read, settings, fsio::threads());
    let r = scored.as_ref();
    for d in r.diagnostics() {
        errln!("{dir}/{d}");
    }
    print_skipped(dir, scored.files());
    if let Some(why) = r.note() {
        errln!("{dir}: {why}");
    }
    if let ScoredRun::EvalLog(l) = &scored {
        warn_mismatches(dir, l);
        // Unpriced stays unpriced: said when a price table is given but misses a model.
        let b = &l.billing;
        if b.n_unpriced > 0 && !settings.prices().models.is_empty() {
            errln!(
                "note: {dir}: no price for {} ({} of {} samples with tokens): no cost in dollars",
                b.unpriced_models.join(", "),
                b.n_unpriced,
                b.n_with_tokens
            );
        }
    }
    Some(scored)
}

/// A warning for every headline number an eval log recorded that its samples give otherwise
/// (both numbers present, more than 1e-9 apart): the score, both values and the file. A number
/// that was not recomputed is no disagreement: one note per reason names those metrics, and a
/// log of which no sample was read says so.
fn warn_mismatches(dir: &str, l: &evalboard_engine::evallog::ScoredLog) {
    use evalboard_engine::evallog::score;
    let show = |v: Option<f64>| v.map_or("nothing".to_string(), |x| x.to_string());
    // A run given as one file is that file.
    let single = Path::new(dir).is_file();
    let run = &l.log.run;
    let file_of = |f: &str| {
        if single {
            dir.to_string()
        } else {
            format!("{dir}/{f}")
        }
    };
    for m in score::mismatches(run) {
        errln!(
            "warning: {}: {} recorded {} but recomputed {} from the samples",
            file_of(&m.file),
            m.metric,
            show(m.recorded),
            show(m.recomputed)
        );
    }
    let first = file_of(run.files.first().map(String::as_str).unwrap_or_default());
    if run.samples.is_empty() {
        errln!(
            "note: {first}: 0 samples read: no recorded number is recomputed; the headline is \
             only the log's own"
        );
    }
    for words in [l.accuracy_words(), l.rescored_words()]
        .into_iter()
        .flatten()
    {
        errln!("note: {first}: {words}");
    }
    let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
    for n in score::not_recomputed(run) {
        match reasons.iter_mut().find(|(r, _)| *r == n.reason) {
            Some((_, metrics)) => metrics.push(n.metric),
            None => reasons.push((n.reason, vec![n.metric])),
        }
    }
    for (reason, metrics) in reasons {
        let shown: Vec<&str> = metrics.iter().take(3).map(String::as_str).collect();
        let more = match metrics.len().saturating_sub(3) {
            0 => String::new(),
            k => format!(" and {k} more"),
        };
        errln!(
            "note: {first}: not recomputed ({reason}): {}{more}",
            shown.join(", ")
        );
    }
}

/// Every file the run's reader skipped, with the reason, so that nothing is left out silently.
fn print_skipped(run: &str, files: &[accounting::InputFileReport]) {
    for f in files {
        if let (accounting::FileStatus::Skipped, Some(r)) = (f.status, &f.reason) {
            errln!("{run}/{}: skipped: {r}", f.path);
        }
    }
}

/// The summary table of a scored run (family, profile, size and its headline metrics).
fn table(run: RunRef, statistics: &serde_json::Value) -> Vec<(String, String)> {
    let mut table = vec![
        ("family".to_string(), run.family().label().to_string()),
        ("profile".to_string(), run.profile()),
        ("size".to_string(), run.size()),
    ];
    for m in run.headline_metrics() {
        if statistics.get(m.key).is_some_and(|v| !v.is_null())
            || m.shown == evalboard_engine::headline::Shown::Percent
        {
            table.push((m.key.to_string(), m.show(statistics)));
        }
    }
    // Items judged more than once (an eval log's epochs or repeats): the engine's summary.
    table.extend(run.repeats().map(|r| r.rows()).unwrap_or_default());
    table
}

/// Scores the runs one at a time; with `--out`, each run's files are made one at a time and
/// written (under temporary names) as they are made. Peak memory is then one run's model and
/// its largest file, not every run and every text at once.
fn score_each(
    a: &ScoreArgs,
    settings: &Settings,
    sidecar: Option<&crate::marks::Sidecar>,
    set: &mut fsio::OutputSet,
    partly: &mut Vec<String>,
) -> Result<Option<Vec<Outputs>>> {
    let mut outputs: Vec<Outputs> = Vec::new();
    // (run name, its folder) of every run written under --out, and whether a folder name had
    // to be shortened (then the index file lists them all).
    let mut index: Vec<(String, String)> = Vec::new();
    let mut shortened = false;
    for dir in &a.runs {
        if dir.join(evalboard_lake::MANIFEST_FILE).is_file() {
            if sidecar.is_some() {
                bail!(
                    "{}: a lake is read for --json, --out and the summary (no --marks)",
                    dir.display()
                );
            }
            let runs = lake_outputs(dir)?;
            let several = a.runs.len() > 1 || runs.len() > 1;
            for mut o in runs {
                // `--out`: each run's statistics.json as `score RUN --out` wrote it (the other
                // files need the run's items, which a lake's tables do not all keep).
                if let Some(out) = &a.out {
                    let folder =
                        run_folder(out, several, &outputs, &o.name, &mut index, &mut shortened);
                    let text = serde_json::to_string_pretty(&o.statistics)? + "\n";
                    set.add_with(&folder, "statistics.json", |w| w.write_all(text.as_bytes()))?;
                    o.written = Some((folder, 1));
                }
                outputs.push(o);
            }
            continue;
        }
        let loaded = load_path(dir, &settings.profile)?;
        let digests = match sidecar {
            Some(_) => Some(loaded.digests()?),
            None => None,
        };
        let Some(runs) = loaded.score_logs(settings)? else {
            return Ok(None);
        };
        for r in &runs {
            if let Some(f) = r
                .files()
                .iter()
                .find(|f| f.status != accounting::FileStatus::Parsed)
            {
                partly.push(format!("{}/{}", dir.display(), f.path));
            }
        }
        let several = a.runs.len() > 1 || runs.len() > 1;
        for scored in runs {
            let run = scored.as_ref();
            let plan = evalboard_report::run_output_plan(run);
            let mut table = table(run, &plan.statistics);
            let human = match (sidecar, &digests) {
                (Some(s), Some(d)) => {
                    let id = crate::marks::content_id(&scored, d);
                    let review = crate::marks::review(run, id.as_deref(), s);
                    table.extend(crate::marks::rows(review.as_ref(), id.as_deref(), &s.file));
                    Some((id, review))
                }
                _ => None,
            };
            let name = run.name().to_string();
            let written = match &a.out {
                Some(out) => {
                    let folder =
                        run_folder(out, several, &outputs, &name, &mut index, &mut shortened);
                    let n = plan.files.len();
                    for (file, write) in plan.files {
                        set.add_with(&folder, &file, write)?;
                    }
                    Some((folder, n))
                }
                None => None,
            };
            outputs.push(Outputs {
                name,
                statistics: plan.statistics,
                written,
                diagnostics: plan.diagnostics,
                table,
                human,
            });
        }
    }
    if let (Some(out), true) = (&a.out, shortened) {
        let list: Vec<serde_json::Value> = index
            .iter()
            .map(|(run, folder)| serde_json::json!({"run": run, "folder": folder}))
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::json!({ "runs": list }))? + "\n";
        set.add_with(out, fsio::RUN_INDEX_FILE, |w| w.write_all(text.as_bytes()))?;
        errln!(
            "a run's name is too long for a folder name: {} lists each run's folder",
            out.join(fsio::RUN_INDEX_FILE).display()
        );
    }
    Ok(Some(outputs))
}

pub fn run(a: ScoreArgs) -> Result<u8> {
    let gates = a.fail_under.clone();
    let settings = settings(&a.settings)?;
    // Every run's files are written under temporary names, then moved into place together.
    let mut set = fsio::OutputSet::new(&a.runs, a.force);
    // Runs read only in part (a file skipped or partly parsed): `--strict` exits 2 for them.
    let mut partly: Vec<String> = Vec::new();
    let sidecar = a.marks.as_deref().map(crate::marks::read).transpose()?;
    let Some(mut outputs) = score_each(&a, &settings, sidecar.as_ref(), &mut set, &mut partly)?
    else {
        return Ok(2);
    };
    if let Some(s) = &sidecar {
        human_outputs(s, &mut outputs, &mut set)?;
    }

    if a.json {
        let v = if outputs.len() == 1 {
            outputs[0].statistics.clone()
        } else {
            serde_json::Value::Array(outputs.iter().map(|o| o.statistics.clone()).collect())
        };
        evalboard_cli::term::emit_line(&serde_json::to_string_pretty(&v)?);
    }
    if a.out.is_some() {
        set.commit()?;
        for o in &outputs {
            let Some((dir, n)) = &o.written else { continue };
            for d in &o.diagnostics {
                errln!("{}/{d}", dir.display());
            }
            errln!("wrote {n} files to {}", dir.display());
        }
    }
    if !a.json && a.out.is_none() {
        for o in &outputs {
            outln!("{}", o.name);
            let w = o.table.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (k, v) in &o.table {
                outln!("  {k:<w$}  {v}");
            }
        }
    }

    let mut failed = false;
    for o in &outputs {
        for (metric, min) in &gates {
            match o.statistics.get(metric) {
                None => bail!("--fail-under: unknown metric {metric:?} (a statistics.json key)"),
                Some(serde_json::Value::Null) => {
                    errln!("FAIL {}: {metric} is null (< {min})", o.name);
                    failed = true;
                }
                Some(v) => match v.as_f64() {
                    None => bail!("--fail-under: metric {metric:?} is not a number"),
                    Some(x) if x < *min => {
                        errln!("FAIL {}: {metric} = {x} < {min}", o.name);
                        failed = true;
                    }
                    Some(x) => errln!("ok   {}: {metric} = {x} >= {min}", o.name),
                },
            }
        }
    }
    if a.strict {
        if let Some(first) = partly.first() {
            errln!(
                "evalboard: error: --strict: {} input{} read only in part (first: {first})",
                partly.len(),
                if partly.len() == 1 { "" } else { "s" }
            );
            return Ok(2);
        }
    }
    Ok(if failed { 1 } else { 0 })
}

/// With `--marks`: marks of other bytes said, and each run's `human` object put in its
/// statistics (`--json`) and, with `--out`, written beside its files as `human_review.json`.
fn human_outputs(
    sidecar: &crate::marks::Sidecar,
    outputs: &mut [Outputs],
    set: &mut fsio::OutputSet,
) -> Result<()> {
    let ids: Vec<&str> = outputs
        .iter()
        .filter_map(|o| o.human.as_ref()?.0.as_deref())
        .collect();
    let not_applied = crate::marks::say_not_applied(sidecar, &ids);
    for o in outputs.iter_mut() {
        let Some((id, review)) = &o.human else {
            continue;
        };
        let human = crate::marks::json(review.as_ref(), id.as_deref(), &sidecar.file, not_applied);
        if let Some((dir, n)) = &mut o.written {
            let text = serde_json::to_string_pretty(&human)? + "\n";
            set.add(dir, "human_review.json", text.as_bytes())?;
            *n += 1;
        }
        if let Some(stats) = o.statistics.as_object_mut() {
            stats.insert("human".into(), human);
        }
    }
    Ok(())
}

/// The runs of the lake at `dir` as `score` prints them: each run's statistics as they were
/// exported (`runs.statistics_json`), in the order the manifest lists them (shard by shard, each
/// in its command-line order), so `score LAKE --json` prints what `score RUN... --json` printed.
fn lake_outputs(dir: &Path) -> Result<Vec<Outputs>> {
    let lake = evalboard_lake::open(dir)?;
    let runs = match lake.tables.iter().find(|(t, _)| t.name == "runs") {
        Some((_, Ok(t))) => t,
        Some((_, Err(e))) => bail!("{e}"),
        None => bail!("{}: the lake has no runs table", dir.display()),
    };
    let (Some(id_col), Some(stats_col)) = (
        runs.schema.index_of("run_id"),
        runs.schema.index_of("statistics_json"),
    ) else {
        bail!(
            "{}: the runs table lacks run_id or statistics_json",
            dir.display()
        );
    };
    let mut out = Vec::new();
    let by_id: std::collections::HashMap<&str, &Vec<Cell>> = runs
        .rows
        .iter()
        .filter_map(|row| match row.get(id_col) {
            Some(Cell::Str(id)) => Some((id.as_str(), row)),
            _ => None,
        })
        .collect();
    for r in lake.manifest.runs() {
        let row = by_id.get(r.run_id.as_str());
        let Some(Cell::Str(text)) = row.and_then(|row| row.get(stats_col)) else {
            bail!(
                "{}: run {} ({}) has no statistics in the lake",
                dir.display(),
                r.run_id,
                r.name
            );
        };
        let statistics: serde_json::Value = serde_json::from_str(text)
            .with_context(|| format!("{}: run {}: statistics_json", dir.display(), r.run_id))?;
        let headline = |k: &str| statistics.get(k).map(|v| v.to_string());
        let table = [
            ("from lake", Some(dir.display().to_string())),
            (
                "headline",
                headline("headline_score").or_else(|| headline("headline")),
            ),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_string(), v?)))
        .collect();
        out.push(Outputs {
            name: r.name.clone(),
            statistics,
            written: None,
            diagnostics: Vec::new(),
            table,
            human: None,
        });
    }
    Ok(out)
}

/// Where `--out` writes run `name`'s files: `out` itself for one run; with `several`, its own
/// subfolder (named apart from the runs before it, listed in `index`; `shortened` set when the
/// name had to be cut for a folder name).
fn run_folder(
    out: &Path,
    several: bool,
    before: &[Outputs],
    name: &str,
    index: &mut Vec<(String, String)>,
    shortened: &mut bool,
) -> std::path::PathBuf {
    if !several {
        return out.to_path_buf();
    }
    let folder = unique_name(before.iter().map(|o| o.name.as_str()), name);
    *shortened |= fsio::folder_name_is_shortened(name);
    index.push((name.to_string(), folder.clone()));
    out.join(folder)
}

/// Subfolder name for a run: its folder name, de-duplicated with a numeric suffix against the
/// runs before it.
fn unique_name<'a>(before: impl Iterator<Item = &'a str>, name: &str) -> String {
    let folder = fsio::output_folder_name(name);
    let same_before = before
        .filter(|o| fsio::output_folder_name(o) == folder)
        .count();
    if same_before == 0 {
        folder
    } else {
        format!("{folder}-{}", same_before + 1)
    }
}
