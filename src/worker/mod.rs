//! The main Web Worker: owns the engine and every numeric-QA and eval-set run, answers the page's
//! requests ([`start`], then one dispatch per message), and hands code-generation runs to their
//! own worker (`codegen_host`). Reading and scoring happen here so the page never freezes.

pub mod browser_files;
pub(crate) mod intake;
pub(crate) mod runtime;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::aggregate::doc;
use evalboard_engine::pipeline;
use evalboard_engine::scorers::{self, ScoreConfig, ScoredQaRun};
use evalboard_engine::views;

use crate::charts;
use crate::families;
use crate::protocol::{Request, Response, RunId, RunInfo};
use evalboard_report::html::{FileProvenance, ReportRun};
use intake::{all_buffers, provenance, read_buffers, read_files, Taken};
use runtime::{
    decode_or_report, keep_and_announce, listen, no_run, now, post, post_compare, post_export,
    post_load_failed, post_series, report_response, wasm_memory_bytes, Kept, QUIET,
};

struct Run {
    id: RunId,
    name: String,
    demo: bool,
    scored: ScoredQaRun,
    load_ms: f64,
    stage_ms: Vec<(String, f64)>,
    /// Input file names, sizes and SHA-256, for the HTML report's provenance.
    provenance: Vec<evalboard_report::html::FileProvenance>,
}

/// An eval-set run.
type EvalsetEntry = Kept<families::EvalsetState>;

#[derive(Default)]
struct State {
    config: ScoreConfig,
    runs: Vec<Run>,
    evalsets: Vec<EvalsetEntry>,
    /// The eval-set family's headline scorer and pass threshold.
    evalset_opts: evalboard_engine::evalset::ScoringOptions,
}

/// Names of the runs among `ids` that the code-generation worker holds (it answers comparisons
/// of its own runs; here they are known by name only).
fn elsewhere(ids: &[RunId]) -> Vec<(RunId, String)> {
    ids.iter()
        .filter_map(|id| Some((*id, crate::codegen_host::run_name(*id)?)))
        .collect()
}

/// Any loaded run, as one side of a comparison; a code-generation run (from [`elsewhere`]) is a
/// side with its name and family only, so mixing it with another family says "different
/// families" rather than "no run".
fn side<'a>(
    st: &'a State,
    elsewhere: &'a [(RunId, String)],
    id: RunId,
) -> Option<families::Side<'a>> {
    if let Some(r) = st.runs.iter().find(|r| r.id == id) {
        return Some(families::Side::Qa(&r.name, &r.scored));
    }
    if let Some(e) = st.evalsets.iter().find(|r| r.id == id) {
        return Some(families::Side::Evalset(&e.name, &e.state));
    }
    elsewhere
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, n)| families::Side::Elsewhere(n, "codegen"))
}

fn evalset_info(e: &EvalsetEntry) -> RunInfo {
    let run = &e.state.run;
    RunInfo {
        run_id: e.id,
        name: e.name.clone(),
        demo: e.demo,
        family: "evalset".into(),
        n_conversations: 0,
        n_turns: e.state.headline().items.len(),
        files: run.files.clone(),
        diagnostics: run.diagnostics.clone(),
        numerical_accuracy: None,
        load_ms: e.load_ms,
        stage_ms: Vec::new(),
        wasm_memory_bytes: None,
        primary_score: families::primary_score(&e.state),
    }
}

fn info(run: &Run) -> RunInfo {
    let stats = doc::statistics(&run.scored);
    RunInfo {
        run_id: run.id,
        name: run.name.clone(),
        demo: run.demo,
        family: "numeric-qa".into(),
        n_conversations: run.scored.run.conversations.len(),
        n_turns: run.scored.turns.len(),
        files: run.scored.run.files.clone(),
        diagnostics: run.scored.run.diagnostics.clone(),
        numerical_accuracy: stats.numerical_accuracy,
        load_ms: run.load_ms,
        stage_ms: run.stage_ms.clone(),
        wasm_memory_bytes: wasm_memory_bytes(),
        primary_score: None,
    }
}

/// Entry point of the worker binary.
pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
    let on_message = state.clone();
    let scope = listen(move |scope, e| handle(scope, &on_message, e));
    warm_up(&scope, &state);
    post(&scope, &Response::Ready);
}

/// Loads the warm-up run (src/warmup.rs) through the Load path, silently, and forgets it.
fn warm_up(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>) {
    const WARM_UP_ID: RunId = RunId::MAX;
    let bytes = crate::warmup::warm_up_jsonl(crate::warmup::WARM_UP_TURNS);
    let load = Request::Load {
        run_id: WARM_UP_ID,
        name: "warm-up".into(),
        paths: vec!["warm-up/run.jsonl".into()],
        demo: false,
    };
    let buffers = Array::of1(&Uint8Array::from(bytes.as_slice()).buffer());
    QUIET.with(|q| q.set(true));
    handle_request(scope, state, load, buffers, &JsValue::UNDEFINED);
    QUIET.with(|q| q.set(false));
    state.borrow_mut().runs.retain(|r| r.id != WARM_UP_ID);
}

fn handle(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, e: MessageEvent) {
    let data = e.data();
    let Some((req, buffers)) = decode_or_report(scope, &data) else {
        return;
    };
    handle_request(scope, state, req, buffers, &data);
}

fn handle_request(
    scope: &DedicatedWorkerGlobalScope,
    state: &Rc<RefCell<State>>,
    req: Request,
    buffers: Array,
    data: &JsValue,
) {
    // Code-generation runs live in their own worker (it carries the Python parser).
    if crate::codegen_host::route(&req, data) {
        return;
    }
    match req {
        Request::Load {
            run_id,
            name,
            paths,
            demo,
        } => {
            if all_buffers(&buffers) {
                let taken = read_buffers(scope, run_id, paths, &buffers);
                load(scope, &mut state.borrow_mut(), (run_id, name, demo), taken);
            } else {
                // Files are read asynchronously (the browser reads them in its own process while
                // this worker parses): other requests are answered meanwhile, and the state is
                // borrowed only once every file is in.
                let (scope, state) = (scope.clone(), state.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let taken = read_files(&scope, run_id, &name, paths, &buffers).await;
                    load(&scope, &mut state.borrow_mut(), (run_id, name, demo), taken);
                });
            }
        }
        req => answer(scope, &mut state.borrow_mut(), req),
    }
}

/// A `Load`: reads, hashes and scores the run's files and keeps the run.
///
/// Kept out of line, as is [`answer`] (`#[inline(never)]` for LLVM; for wasm-opt, which inlines
/// every function that has one caller, index.html caps that at 1 000 instructions). V8 optimises
/// a WebAssembly function as a whole, in the background, once it has run for a while. Merged
/// with every other request's code into one dispatcher, the Load path was a 141 KB function
/// whose optimising compile (0.36–0.57 s) was set off by the first big drop and ran beside it
/// on a 2-core machine (docs/performance.md, session 5).
#[inline(never)]
fn load(
    scope: &DedicatedWorkerGlobalScope,
    st: &mut State,
    (run_id, name, demo): (RunId, String, bool),
    taken: Taken,
) {
    let t0 = taken.started;
    let mut stage_ms = vec![("read".to_string(), taken.read_ms)];
    let (hash_streamed_ms, parse_streamed_ms) = (taken.hash_ms, taken.parse_ms);
    let family = taken.family();
    let (input, indexes, streamed) = taken.into_input(name.clone());
    if family == pipeline::Family::Codegen {
        crate::codegen_host::load(scope, (run_id, name, demo), &input.files);
        return;
    }
    let streamed_bytes: u64 = streamed.iter().map(|s| s.provenance.bytes).sum();
    let total_bytes = input
        .files
        .iter()
        .map(|f| f.bytes.len() as u64)
        .sum::<u64>()
        + streamed_bytes;
    let n_files = input.files.len() as u64;
    let t_hash = now();
    let mut provenance: Vec<(usize, FileProvenance)> = indexes
        .into_iter()
        .zip(provenance(scope, run_id, &input))
        .collect();
    stage_ms.push(("hash".into(), now() - t_hash + hash_streamed_ms));
    // Streamed files were read apart: their provenance goes back to its place in the drop.
    let mut streamed_reads = Vec::with_capacity(streamed.len());
    for s in streamed {
        provenance.push((s.index, s.provenance));
        streamed_reads.push(s.read.read);
    }
    provenance.sort_by_key(|(i, _)| *i);
    let provenance: Vec<FileProvenance> = provenance.into_iter().map(|(_, p)| p).collect();
    post(
        scope,
        &Response::Progress {
            run_id,
            stage: "parsing".into(),
            done: streamed_bytes,
            total: total_bytes.max(1),
        },
    );
    let t_parse = now();
    if family == pipeline::Family::Evalset {
        match families::load_evalset_with(&input, &st.evalset_opts) {
            Ok(state) => keep_and_announce(
                scope,
                &mut st.evalsets,
                (run_id, name, demo),
                state,
                t0,
                provenance,
                evalset_info,
            ),
            Err(error) => {
                let run = evalboard_engine::evalset::read_evalset_run(&input.files, None);
                let err = pipeline::LoadError {
                    message: error,
                    files: run.files,
                    diagnostics: run.diagnostics,
                };
                post_load_failed(scope, run_id, name, err)
            }
        }
        return;
    }
    let mut last = now();
    let mut progress = |done_files: u64, done_bytes: u64| {
        let t = now();
        if t - last > 100.0 || done_files == n_files {
            last = t;
            post(
                scope,
                &Response::Progress {
                    run_id,
                    stage: "parsing".into(),
                    done: streamed_bytes + done_bytes,
                    total: total_bytes.max(1),
                },
            );
        }
    };
    match pipeline::load_qa_run_with_reads(&input, streamed_reads, None, &mut progress) {
        Ok(run) => {
            stage_ms.push(("parse".into(), now() - t_parse + parse_streamed_ms));
            let t_score = now();
            post(
                scope,
                &Response::Progress {
                    run_id,
                    stage: "scoring".into(),
                    done: 0,
                    total: 1,
                },
            );
            let mut last = now();
            let scored =
                scorers::score_qa_run_with_progress(run, &st.config, 2048, &mut |done, total| {
                    let t = now();
                    if t - last > 100.0 {
                        last = t;
                        post(
                            scope,
                            &Response::Progress {
                                run_id,
                                stage: "scoring".into(),
                                done,
                                total: total.max(1),
                            },
                        );
                    }
                });
            stage_ms.push(("score".into(), now() - t_score));
            let run = Run {
                id: run_id,
                name,
                demo,
                scored,
                load_ms: now() - t0,
                stage_ms,
                provenance,
            };
            let i = info(&run);
            st.runs.retain(|r| r.id != run_id);
            st.runs.push(run);
            post(scope, &Response::Loaded { info: i });
        }
        Err(err) => post_load_failed(scope, run_id, name, err),
    }
}

/// Every request but `Load`.
#[inline(never)]
fn answer(scope: &DedicatedWorkerGlobalScope, st: &mut State, req: Request) {
    match req {
        // Answered by [`load`].
        Request::Load { .. } => {}
        Request::Configure { config } => {
            st.config = config.clone();
            let mut infos = Vec::new();
            for r in st.runs.iter_mut() {
                let run = std::mem::take(&mut r.scored.run);
                r.scored = scorers::score_qa_run(run, &config);
                infos.push(info(r));
            }
            post(scope, &Response::Rescored { runs: infos });
        }
        Request::Remove { run_id } => {
            st.runs.retain(|r| r.id != run_id);
            st.evalsets.retain(|r| r.id != run_id);
        }
        Request::Evalset { req, run_id } => match st.evalsets.iter().find(|r| r.id == run_id) {
            Some(e) => post(
                scope,
                &Response::Evalset {
                    req,
                    run_id,
                    view: Box::new(families::evalset_view(&e.state)),
                },
            ),
            None => no_run(scope, req, run_id),
        },
        Request::Compare {
            req,
            baseline,
            candidate,
            query,
        } => {
            let other = elsewhere(&[baseline, candidate]);
            post_compare(
                scope,
                req,
                (baseline, candidate),
                (side(st, &other, baseline), side(st, &other, candidate)),
                &query,
            );
        }
        Request::Series {
            req,
            runs,
            step,
            query,
            dark,
        } => {
            let other = elsewhere(&runs);
            let sides: Result<Vec<_>, RunId> = runs
                .iter()
                .map(|id| side(st, &other, *id).ok_or(*id))
                .collect();
            post_series(scope, req, sides, step, &query, dark);
        }
        Request::ConfigureEvalset {
            scorer,
            pass_threshold,
        } => {
            st.evalset_opts = evalboard_engine::evalset::ScoringOptions {
                scorer,
                pass_threshold,
            };
            let opts = st.evalset_opts.clone();
            let mut infos = Vec::new();
            for e in st.evalsets.iter_mut() {
                e.state.rescore(&opts);
                infos.push(evalset_info(e));
            }
            post(scope, &Response::Rescored { runs: infos });
        }
        Request::Overview { req, run_id, dark } => match st.runs.iter().find(|r| r.id == run_id) {
            Some(r) => {
                let overview = views::overview(&r.scored, 10);
                let charts = charts::qa_charts(&overview.stats, dark);
                post(
                    scope,
                    &Response::Overview {
                        req,
                        run_id,
                        overview: Box::new(overview),
                        charts,
                    },
                );
            }
            None => post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message: format!("no run {run_id}"),
                },
            ),
        },
        Request::Items { req, run_id, query } => match st.runs.iter().find(|r| r.id == run_id) {
            Some(r) => post(
                scope,
                &Response::Items {
                    req,
                    run_id,
                    page: views::items(&r.scored, &query),
                },
            ),
            None => post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message: format!("no run {run_id}"),
                },
            ),
        },
        Request::Conversation { req, run_id, conv } => {
            match st.runs.iter().find(|r| r.id == run_id) {
                Some(r) => post(
                    scope,
                    &Response::Conversation {
                        req,
                        run_id,
                        view: views::conversation(&r.scored, conv),
                    },
                ),
                None => post(
                    scope,
                    &Response::Error {
                        req: Some(req),
                        message: format!("no run {run_id}"),
                    },
                ),
            }
        }
        Request::Report {
            req,
            run_id,
            baseline,
            generated_at,
        } => post(scope, &report(st, req, run_id, baseline, generated_at)),
        // Answered by the code-generation worker when it holds the run.
        Request::Codegen { req, run_id, .. } => no_run(scope, req, run_id),
        Request::Export { req, run_id, file } => match crate::exports::export_run(
            st.runs.iter().find(|r| r.id == run_id).map(|r| &r.scored),
            st.evalsets
                .iter()
                .find(|e| e.id == run_id)
                .map(|e| e.state.headline()),
            &file,
        ) {
            Some(made) => post_export(scope, req, run_id, made.map(|text| (file, text))),
            None => no_run(scope, req, run_id),
        },
    }
}

/// The HTML report of run `run_id` (vs `baseline`), as an `Export` response.
fn report(
    st: &State,
    req: crate::protocol::ReqId,
    run_id: RunId,
    baseline: Option<RunId>,
    generated_at: String,
) -> Response {
    // Any loaded run as (report run, its name, its files' provenance).
    let find = |id: RunId| -> Option<(ReportRun<'_>, &str, &[FileProvenance])> {
        if let Some(r) = st.runs.iter().find(|r| r.id == id) {
            return Some((ReportRun::NumericQa(&r.scored), &r.name, &r.provenance));
        }
        st.evalsets.iter().find(|e| e.id == id).map(|e| {
            (
                ReportRun::Evalset(e.state.headline(), &e.state.run.diagnostics),
                e.name.as_str(),
                e.provenance.as_slice(),
            )
        })
    };
    let Some((run, name, prov)) = find(run_id) else {
        return Response::Error {
            req: Some(req),
            message: format!("no run {run_id}"),
        };
    };
    let base = baseline.filter(|b| *b != run_id).and_then(find);
    report_response(
        req,
        run_id,
        name,
        (run, prov),
        base.map(|(r, _, p)| (r, p)),
        generated_at,
    )
}
