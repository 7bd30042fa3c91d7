//! The run store both workers keep: every loaded run as the engine's scored run
//! ([`evalboard_engine::run::ScoredRun`]) with what the dashboard adds (the name the page knows
//! it by, load time and stages, its files' provenance), and the answers that are the same for
//! every family: re-scoring under new settings, removing, comparing, series, exports and the
//! HTML report. A family's own screens (a conversation, a code-generation message) are answered
//! by the worker that holds it.

use web_sys::DedicatedWorkerGlobalScope;

use evalboard_engine::family::Family;
use evalboard_engine::run::{FamilySet, RunRef, RunVisitor, ScoredRun, Settings};
use evalboard_report::html::FileProvenance;

use evalboard_engine::lake::{rows::RunRows, view, LakeRun};

use crate::families::Side;
use crate::protocol::{
    ReqId, Request, Response, RunId, RunInfo, ScreenFilter, ScreenQuery, ScreenView,
};
use crate::worker::runtime::{
    file_stem, no_run, post, post_compare, post_export, post_series, report_response,
    wasm_memory_bytes,
};

/// A loaded run as a worker keeps it.
pub(crate) struct Kept {
    pub id: RunId,
    pub name: String,
    pub demo: bool,
    pub scored: ScoredRun,
    /// Milliseconds from the request to the scored run, and where they went.
    pub load_ms: f64,
    pub stage_ms: Vec<(String, f64)>,
    /// Input file names, sizes and SHA-256, for the HTML report's provenance.
    pub provenance: Vec<FileProvenance>,
    /// The `Load` this run is one log of, when it held several ([`RunInfo::part_of`]).
    pub part_of: Option<RunId>,
}

impl Kept {
    pub fn run(&self) -> RunRef<'_> {
        self.scored.as_ref()
    }

    /// The screen (`query`) a worker of `FAMILIES` lays out for the run: code generation, eval
    /// sets and evaluation-tool logs, and numeric QA's Items and one turn (its Overview and
    /// conversation have their own page components); `None` for a screen the family does not
    /// lay out or a family this worker does not hold.
    pub fn screen<const FAMILIES: FamilySet>(&self, query: &ScreenQuery) -> Option<ScreenView> {
        let id = self.content_id();
        crate::review::screen::<FAMILIES>(self.run(), id.as_deref(), query, |q| {
            crate::query_view::screen::<FAMILIES>(self.id, self.run(), q, |q| {
                self.run().visit_in::<FAMILIES, _>(ScreenOf(q)).flatten()
            })
        })
    }

    /// The run's content id, from its files' SHA-256s (`None` while or when it has none: it
    /// gets no marks): what its human review marks are kept by.
    pub fn content_id(&self) -> Option<String> {
        crate::review::content_id(self.scored.files(), &self.provenance)
    }

    /// `view`'s item (a screen made apart from [`Kept::screen`]: an eval-log sample with its
    /// conversation read from its file) with its human review section.
    pub fn with_review<const FAMILIES: FamilySet>(&self, view: &mut ScreenView) {
        let id = self.content_id();
        crate::review::add_item_section::<FAMILIES>(self.run(), id.as_deref(), view);
    }

    /// The run as the lake builder takes it ([`LakeRun`]): its content id and files from its
    /// provenance (hashed after it loaded; until then its id is its name's hash), with its
    /// statistics as `score --json` prints them when given.
    pub fn lake_run<'a>(
        &'a self,
        settings: &'a Settings,
        statistics: Option<String>,
    ) -> LakeRun<'a> {
        let mut files: Vec<(String, u64, String)> = self
            .provenance
            .iter()
            .map(|p| (p.path.clone(), p.bytes, p.sha256.clone()))
            .collect();
        files.sort();
        let content_id = self.content_id().unwrap_or_else(|| {
            use evalboard_engine::run_table::{hex, sha256};
            hex(&sha256(self.name.as_bytes()))
        });
        LakeRun {
            run: self.run(),
            content_id,
            files,
            settings,
            statistics_json: statistics,
            marks: None,
        }
    }

    /// What the page lists about the run (of a family in `FAMILIES`), scored under `settings`.
    pub fn info<const FAMILIES: FamilySet>(&self, settings: &Settings) -> RunInfo {
        let run = self.run();
        let (n_conversations, n_turns) = run.counts();
        let (label, facets) = crate::run_label::label(run);
        RunInfo {
            run_id: self.id,
            name: self.name.clone(),
            demo: self.demo,
            family: run.family(),
            n_conversations,
            n_turns,
            size: run.size(),
            profile: run.profile(),
            files: self.scored.files().to_vec(),
            diagnostics: run.diagnostics().to_vec(),
            headline: run.headline_value_in::<FAMILIES>(),
            load_ms: self.load_ms,
            wasm_memory_bytes: wasm_memory_bytes(),
            stage_ms: self.stage_ms.clone(),
            custom_settings: settings.non_default(run.family()),
            part_of: self.part_of,
            unpriced_models: run.unpriced_models_in::<FAMILIES>(),
            label,
            facets,
        }
    }
}

/// Posts the screen `query` of run `run_id` ([`post_view`]) when a worker of `FAMILIES` holds
/// the run and lays its screens out ([`Kept::screen`]); `false` when it does not (the caller
/// says so).
pub(crate) fn post_screen<const FAMILIES: FamilySet>(
    scope: &DedicatedWorkerGlobalScope,
    kept: Option<&Kept>,
    (req, run_id): (ReqId, RunId),
    query: &ScreenQuery,
) -> bool {
    let Some(view) = kept.and_then(|r| r.screen::<FAMILIES>(query)) else {
        return false;
    };
    post_view(scope, (req, run_id), view);
    true
}

/// Posts `view`, a screen of run `run_id`: every screen a worker posts goes out here, with
/// every bidi control in its texts shown as a visible escape ([`crate::screen::neutralize_bidi`],
/// the report's rule), so no log text can reorder the text around it on the page.
pub(crate) fn post_view(
    scope: &DedicatedWorkerGlobalScope,
    (req, run_id): (ReqId, RunId),
    mut view: ScreenView,
) {
    crate::screen::neutralize_bidi(&mut view);
    post(
        scope,
        &Response::Screen {
            req,
            run_id,
            view: Box::new(view),
        },
    );
}

/// A worker's screen of a run ([`Kept::screen`]).
struct ScreenOf<'q>(&'q ScreenQuery);

impl<'a> RunVisitor<'a> for ScreenOf<'_> {
    type Out = Option<ScreenView>;
    /// A numeric QA run has its own page components for its Overview and conversation drawer,
    /// but its Items are the generic grid ([`crate::qa_items`]) and one turn is blocks: its
    /// side of a Compare pair ([`crate::pair::qa_blocks`]).
    fn numeric_qa(self, run: &'a evalboard_engine::numeric_qa::score::ScoredQaRun) -> Self::Out {
        if let ScreenQuery::Items {
            filter,
            offset,
            limit,
        } = self.0
        {
            return Some(crate::qa_items::view(run, filter, *offset, *limit));
        }
        let ScreenQuery::Item { key } = self.0 else {
            return None;
        };
        let mut v = crate::screen::empty(&run.run.name);
        v.item = crate::pair::qa_blocks(run, key).map(|blocks| crate::protocol::ScreenItem {
            key: key.clone(),
            title: crate::format::item_key(key),
            blocks,
        });
        Some(v)
    }
    fn codegen(self, run: &'a evalboard_engine::codegen::Loaded) -> Self::Out {
        Some(crate::codegen::view(run, self.0))
    }
    fn evalset(
        self,
        read: &'a evalboard_engine::evalset::EvalRun,
        scored: &'a evalboard_engine::evalset::ScoredRun,
    ) -> Self::Out {
        Some(crate::evalset::view(read, scored, self.0))
    }
    fn eval_log(self, run: &'a evalboard_engine::evallog::ScoredLog) -> Self::Out {
        Some(crate::evallog::view(run, self.0))
    }
}

/// Every run a worker holds, of the families in `FAMILIES` (the others' scorers are not
/// compiled into the worker), and the settings they are scored under.
#[derive(Default)]
pub(crate) struct RunStore<const FAMILIES: FamilySet> {
    pub settings: Settings,
    runs: Vec<Kept>,
    /// The last many-runs comparison, by (baselines, runs): kept until a run or the settings
    /// change, so a filter or a page of its matrix does not compare the runs again.
    many: Option<crate::many::Kept>,
}

impl<const FAMILIES: FamilySet> RunStore<FAMILIES> {
    /// The content ids of the runs held (those with digests): what marks apply to.
    pub fn content_ids(&self) -> Vec<String> {
        self.runs.iter().filter_map(Kept::content_id).collect()
    }

    pub fn get(&self, id: RunId) -> Option<&Kept> {
        self.runs.iter().find(|r| r.id == id)
    }

    pub fn get_mut(&mut self, id: RunId) -> Option<&mut Kept> {
        self.runs.iter_mut().find(|r| r.id == id)
    }

    /// Keeps `run` in place of any run with its id and tells the page it loaded (a run held
    /// already, a watched folder's loaded again, as re-scored: the page asks its screens again).
    pub fn keep(&mut self, scope: &DedicatedWorkerGlobalScope, run: Kept) {
        let again = self.get(run.id).is_some();
        let info = self.put(run);
        match again {
            true => post(scope, &Response::Rescored { runs: vec![info] }),
            false => post(scope, &Response::Loaded { info }),
        }
    }

    /// Keeps `run` in place of the run with its id (a big log's full read after its
    /// summaries) and tells the page as a re-scoring does, so it asks its screens again.
    pub fn replace(&mut self, scope: &DedicatedWorkerGlobalScope, run: Kept) {
        let info = self.put(run);
        post(scope, &Response::Rescored { runs: vec![info] });
    }

    /// Keeps `run` in place of any run with its id: what the page lists about it.
    fn put(&mut self, run: Kept) -> RunInfo {
        // What every comparison of it reads, built while it loads (before the page hears of
        // it): the All runs tab and Compare then find it ready.
        if let Some(f) = run.run().family_run_in::<FAMILIES>() {
            f.index_for_comparison();
        }
        let info = run.info::<FAMILIES>(&self.settings);
        crate::query_view::forget(run.id);
        self.runs.retain(|r| r.id != run.id);
        self.runs.push(run);
        self.many = None;
        info
    }

    /// "Export this view" of the All runs tab (`Request::ExportMany`; `None` for another
    /// request): the request's id, the pinned baseline's id and the matrix of its `runs`
    /// against its `baselines` as its `filter` shows it, from the kept comparison (compared and
    /// laid out now if it is not kept), in its `format`.
    pub fn many_export(
        &mut self,
        req: &Request,
    ) -> Option<(ReqId, RunId, Result<crate::many::ManyExport, String>)> {
        let Request::ExportMany {
            req,
            baselines,
            runs,
            filter,
            format,
        } = req
        else {
            return None;
        };
        let query = ScreenQuery::Items {
            filter: filter.clone(),
            offset: 0,
            limit: 0,
        };
        let kept =
            crate::many::answer::<FAMILIES>(self.many.take(), (baselines, runs), &query, |id| {
                self.get(id).map(|r| (r.name.as_str(), r.run()))
            });
        let pin = baselines.first().copied().unwrap_or_default();
        let stem = self
            .get(pin)
            .map_or("runs".to_string(), |r| file_stem(&r.name));
        let out = kept.export(filter, format, (&stem, VERSION));
        self.many = Some(kept);
        Some((*req, pin, out))
    }

    /// "Export the workspace as a lake" of the runs held here (`Request::ExportLake`): each as
    /// scored now, with its statistics as `score --json` prints them (as `export --lake` keeps
    /// them), as the lake worker's job of writing `file`.
    pub fn lake_job(&self, req: ReqId, file: String) -> crate::lake_job::LakeJob {
        let stats: Vec<Option<String>> = self
            .runs
            .iter()
            .map(|k| {
                let plan = evalboard_report::run_output_plan_in::<FAMILIES>(k.run());
                plan.and_then(|p| serde_json::to_string(&p.statistics).ok())
            })
            .collect();
        let runs: Vec<_> = self
            .runs
            .iter()
            .zip(stats)
            .map(|(k, s)| k.lake_run(&self.settings, s))
            .collect();
        crate::lake_job::job(req, file, &runs, VERSION)
    }

    /// "Export this view" of run `run_id` (`Request::ExportView`): the run rows of the items
    /// its Items screen shows under `filter` (the same rows, by [`Kept::screen`]), the optional
    /// `columns` kept, each item's flip against `baseline` (held here) among its slice fields;
    /// with the file name's stem.
    pub fn view_rows(
        &self,
        run_id: RunId,
        (filter, columns, baseline): (&ScreenFilter, &[String], Option<RunId>),
    ) -> Result<(String, RunRows), String> {
        let r = self.get(run_id).ok_or_else(|| format!("no run {run_id}"))?;
        let filtered = !filter.choices.is_empty() || filter.text.is_some();
        let keys = match filtered {
            true => {
                let items = r
                    .screen::<FAMILIES>(&ScreenQuery::Items {
                        filter: filter.clone(),
                        offset: 0,
                        limit: crate::screen::ALL_ROWS,
                    })
                    .ok_or("this run has no Items to export")?;
                Some(items.rows.into_iter().map(|row| row.key).collect())
            }
            false => None,
        };
        let flips = baseline
            .filter(|b| *b != run_id)
            .and_then(|b| self.get(b))
            .and_then(|b| {
                let settings = evalboard_engine::run::CompareSettings::default();
                evalboard_engine::run::compare_in::<FAMILIES>(b.run(), r.run(), &settings).ok()
            })
            .map(|c| {
                c.stats
                    .pairs
                    .iter()
                    .map(|p| (p.key.clone(), p.flip().slug().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let mut words: Vec<String> = filter
            .choices
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        words.extend(filter.text.iter().map(|t| format!("search: {t}")));
        let spec = view::ViewSpec {
            keys,
            flips,
            columns: columns.to_vec(),
            filter: words.join(", "),
        };
        let rows = view::view_rows(&r.lake_run(&self.settings, None), &spec, VERSION);
        Ok((file_stem(&r.name), rows))
    }

    /// Run `id` and the runs of its `Load` when it held several logs.
    pub fn runs_of(&self, id: RunId) -> impl Iterator<Item = &Kept> {
        self.runs
            .iter()
            .filter(move |r| r.id == id || r.part_of == Some(id))
    }

    /// Run `id` as one log of a `Load` of several: that `Load`'s id, the run's name as its log
    /// is named (`folder/file`), and how many of the `Load`'s other runs are still here.
    pub fn part(&self, id: RunId) -> Option<(RunId, String, usize)> {
        let r = self.get(id)?;
        let parent = r.part_of?;
        let others = self
            .runs
            .iter()
            .filter(|x| x.id != id && x.part_of == Some(parent))
            .count();
        Some((parent, r.run().name().to_string(), others))
    }

    pub fn remove(&mut self, id: RunId) {
        crate::query_view::forget(id);
        self.runs.retain(|r| r.id != id);
        self.many = None;
    }

    /// Run `id`'s side of the paired item of `key` ([`crate::pair::PairSide`]): its item's row
    /// and blocks; `None` when this worker does not hold the run.
    fn pair_side(
        &self,
        id: RunId,
        key: &evalboard_engine::run_table::ItemKey,
    ) -> Option<crate::pair::PairSide> {
        let r = self.get(id)?;
        let query = ScreenQuery::Item { key: key.clone() };
        Some(crate::pair::PairSide {
            name: r.name.clone(),
            row: r.run().item_in::<FAMILIES>(key),
            blocks: r
                .screen::<FAMILIES>(&query)
                .and_then(|v| v.item)
                .map(|i| crate::review::without_section(i.blocks)),
        })
    }

    /// Run `id` as one side of a comparison: held here, else known by name to another worker
    /// (`elsewhere`, with that worker's family).
    fn side<'a>(&'a self, elsewhere: &'a [(RunId, String, Family)], id: RunId) -> Option<Side<'a>> {
        if let Some(r) = self.get(id) {
            return Some(Side::Run(&r.name, r.run()));
        }
        elsewhere
            .iter()
            .find(|(i, ..)| *i == id)
            .map(|(_, n, f)| Side::Elsewhere(n, *f))
    }

    /// Answers what every family answers alike; gives any other request back.
    pub fn answer(
        &mut self,
        scope: &DedicatedWorkerGlobalScope,
        req: Request,
        elsewhere: &[(RunId, String, Family)],
    ) -> Option<Request> {
        match req {
            Request::Configure { settings } => {
                self.settings = settings;
                self.many = None;
                crate::query_view::forget_all();
                for r in &mut self.runs {
                    r.scored.rescore_in::<FAMILIES>(&self.settings);
                }
                let runs: Vec<RunInfo> = self
                    .runs
                    .iter()
                    .map(|r| r.info::<FAMILIES>(&self.settings))
                    .collect();
                post(scope, &Response::Rescored { runs });
            }
            Request::Remove { run_id } => self.remove(run_id),
            // A Compare row side by side: both runs are of one family, so held by one worker.
            Request::Screen {
                req,
                run_id,
                query: ScreenQuery::Pair { baseline, key },
            } => match (self.pair_side(baseline, &key), self.pair_side(run_id, &key)) {
                (Some(b), Some(c)) => {
                    post_view(scope, (req, run_id), crate::pair::view(&key, b, c))
                }
                _ => no_run(scope, req, run_id),
            },
            Request::Compare {
                req,
                baseline,
                candidate,
                query,
            } => post_compare::<FAMILIES>(
                scope,
                req,
                (baseline, candidate),
                (
                    self.side(elsewhere, baseline),
                    self.side(elsewhere, candidate),
                ),
                &query,
            ),
            Request::Series {
                req,
                runs,
                step,
                query,
                dark,
            } => {
                let sides: Result<Vec<_>, RunId> = runs
                    .iter()
                    .map(|id| self.side(elsewhere, *id).ok_or(*id))
                    .collect();
                // The chosen step's candidate's failure cohorts against its baseline.
                let at = |i: usize| {
                    let r = self.get(*runs.get(i)?)?;
                    Some((r.id, r.name.as_str(), r.run()))
                };
                let s = step as usize;
                let cohorts = at(s).zip(at(s + 1)).map(|(b, c)| {
                    crate::query_view::compare_block::<FAMILIES>(c, b, query.scorer.as_deref())
                });
                post_series::<FAMILIES>(scope, req, sides, (step, cohorts), &query, dark);
            }
            Request::Many {
                req,
                baselines,
                runs,
                query,
            } => {
                let kept = crate::many::answer::<FAMILIES>(
                    self.many.take(),
                    (&baselines, &runs),
                    &query,
                    |id| self.get(id).map(|r| (r.name.as_str(), r.run())),
                );
                let mut view = kept.view(&query);
                if matches!(query, ScreenQuery::Overview { .. }) {
                    let picked = crate::many::judge_of(&query);
                    view.blocks
                        .push(self.many_cohorts(&baselines, &runs, picked.as_deref()));
                    view.blocks.extend(self.many_review(&baselines, &runs));
                }
                post_view(scope, (req, baselines.first().copied().unwrap_or(0)), view);
                self.many = Some(kept);
            }
            Request::Export { req, run_id, file } => match self.get(run_id) {
                Some(r) => post_export(
                    scope,
                    req,
                    run_id,
                    crate::exports::export_in::<FAMILIES>(r.run(), &file),
                ),
                None => no_run(scope, req, run_id),
            },
            // JSONL and CSV here; Parquet by the main worker, which hands it to the lake worker.
            Request::ExportView {
                req,
                run_id,
                filter,
                format,
                columns,
                baseline,
            } if format != "parquet" => {
                let file =
                    self.view_rows(run_id, (&filter, &columns, baseline))
                        .map(|(stem, rows)| match format.as_str() {
                            "csv" => {
                                let (head, body) = view::csv_table(&rows.bytes);
                                let text = evalboard_report::csvs::table_csv(&head, &body);
                                (format!("{stem}.view.csv"), text)
                            }
                            _ => (
                                format!("{stem}.evalboard-rows.jsonl"),
                                String::from_utf8_lossy(&rows.bytes).into_owned(),
                            ),
                        });
                post_export(scope, req, run_id, file)
            }
            // JSONL and CSV here; Parquet by the main worker (the lake worker writes it).
            many @ Request::ExportMany { .. } if !many.is_parquet() => {
                if let Some((req, pin, out)) = self.many_export(&many) {
                    let file = out.and_then(|e| match e {
                        crate::many::ManyExport::Text { file, text } => Ok((file, text)),
                        crate::many::ManyExport::Table { .. } => Err("not a text".into()),
                    });
                    post_export(scope, req, pin, file)
                }
            }
            Request::Report {
                req,
                run_id,
                baseline,
                generated_at,
                many,
            } => post(
                scope,
                &self.report(req, run_id, (baseline, many), generated_at),
            ),
            other => return Some(other),
        }
        None
    }

    /// The All runs tab's human review against the pinned baseline (`None`: no run is marked).
    fn many_review(&self, baselines: &[RunId], runs: &[RunId]) -> Option<crate::protocol::Block> {
        let first = baselines.first().copied();
        let ids: Vec<RunId> = first
            .into_iter()
            .chain(runs.iter().copied().filter(|id| Some(*id) != first))
            .collect();
        let kept: Vec<_> = ids
            .iter()
            .filter_map(|id| self.get(*id))
            .map(|k| (k.name.as_str(), k.run(), k.content_id()))
            .collect();
        crate::review::many_section::<FAMILIES>(&kept)
    }

    /// The All runs tab's failure cohorts: each run against its baseline (the one of its task
    /// when the baselines are a folder's logs, else the pinned one).
    fn many_cohorts(
        &self,
        baselines: &[RunId],
        runs: &[RunId],
        picked: Option<&str>,
    ) -> crate::protocol::Block {
        let side = |id: &RunId| self.get(*id).map(|r| (r.id, r.name.as_str(), r.run()));
        let bases: Vec<_> = baselines.iter().filter_map(side).collect();
        let pairs: Vec<_> = runs
            .iter()
            .filter(|id| !baselines.contains(id))
            .filter_map(side)
            .filter_map(|c| {
                let task = c.2.facts().task;
                let b = bases
                    .iter()
                    .find(|b| task.is_some() && b.2.facts().task == task)
                    .or(bases.first())?;
                Some((c, *b))
            })
            .collect();
        crate::query_view::many_block::<FAMILIES>(&pairs, picked)
    }

    /// The HTML report of run `run_id` (vs `baseline`), or of the All runs tab's runs against
    /// its baselines (`many`, `run_id` the pinned one: `report --baseline B RUN...`), as an
    /// `Export` response.
    fn report(
        &self,
        req: ReqId,
        run_id: RunId,
        (baseline, many): (Option<RunId>, Option<crate::protocol::ManyRuns>),
        generated_at: String,
    ) -> Response {
        let Some(run) = self.get(run_id) else {
            return Response::Error {
                req: Some(req),
                message: format!("no run {run_id}"),
            };
        };
        fn side(k: &Kept) -> (RunRef<'_>, &[FileProvenance]) {
            (k.run(), k.provenance.as_slice())
        }
        let scorer = many.as_ref().and_then(|m| m.2.clone());
        let mut reported: Vec<&Kept> = Vec::new();
        let (runs, baselines) = match many {
            Some((bases, runs, _)) => {
                let held = |ids: &[RunId]| -> Option<Vec<&Kept>> {
                    ids.iter().map(|id| self.get(*id)).collect()
                };
                match (held(&bases), held(&runs)) {
                    (Some(b), Some(r)) if b.first().is_some_and(|b| b.id == run_id) => (
                        r.into_iter()
                            .inspect(|k| reported.push(k))
                            .map(side)
                            .collect(),
                        b.into_iter().map(side).collect(),
                    ),
                    _ => {
                        return Response::Error {
                            req: Some(req),
                            message: "a run of the comparison is no longer loaded".into(),
                        }
                    }
                }
            }
            None => (
                {
                    reported.push(run);
                    vec![side(run)]
                },
                baseline
                    .filter(|b| *b != run_id)
                    .and_then(|b| self.get(b))
                    .map(side)
                    .into_iter()
                    .collect(),
            ),
        };
        report_response::<FAMILIES>(
            req,
            run_id,
            &run.name,
            runs,
            baselines,
            (generated_at, scorer),
            crate::review::report_marks(reported.iter().map(|k| k.content_id()).collect()),
        )
    }
}

/// The evalboard version exports say wrote them.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");
