//! The Web Worker: owns the engine and every scored run, answers the page's requests.
//! Reading and scoring happen here so the page never freezes.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::aggregate::doc;
use evalboard_engine::pipeline;
use evalboard_engine::scorers::{self, ScoreConfig, ScoredQaRun};
use evalboard_engine::views;
use evalboard_engine::{InputFile, RunInput};

use crate::charts;
use crate::families;
use crate::protocol::{self, Request, Response, RunId, RunInfo};

struct Run {
    id: RunId,
    name: String,
    demo: bool,
    scored: ScoredQaRun,
    load_ms: f64,
    /// Input file names, sizes and SHA-256, for the HTML report's provenance.
    provenance: Vec<evalboard_report::html::FileProvenance>,
}

/// An eval-set run (seed 004).
struct EvalsetEntry {
    id: RunId,
    name: String,
    demo: bool,
    state: families::EvalsetState,
    load_ms: f64,
    provenance: Vec<evalboard_report::html::FileProvenance>,
}

#[derive(Default)]
struct State {
    config: ScoreConfig,
    runs: Vec<Run>,
    evalsets: Vec<EvalsetEntry>,
    /// The eval-set family's headline scorer and pass threshold.
    evalset_opts: evalboard_engine::evalset::ScoringOptions,
}

/// Any loaded run, as one side of a comparison.
fn side(st: &State, id: RunId) -> Option<families::Side<'_>> {
    if let Some(r) = st.runs.iter().find(|r| r.id == id) {
        return Some(families::Side::Qa(&r.name, &r.scored));
    }
    st.evalsets
        .iter()
        .find(|r| r.id == id)
        .map(|e| families::Side::Evalset(&e.name, &e.state))
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
        wasm_memory_bytes: None,
        primary_score: families::primary_score(&e.state),
    }
}

fn no_run(scope: &DedicatedWorkerGlobalScope, req: u64, run_id: RunId) {
    post(
        scope,
        &Response::Error {
            req: Some(req),
            message: format!("no run {run_id}"),
        },
    );
}

fn now() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

fn post(scope: &DedicatedWorkerGlobalScope, r: &Response) {
    match protocol::encode(r) {
        Ok(bytes) => {
            // Transfer the copy's buffer: the page takes it without a second copy.
            let msg = Uint8Array::from(bytes.as_slice());
            let _ = scope.post_message_with_transfer(&msg, &Array::of1(&msg.buffer()));
        }
        Err(e) => web_sys::console::error_1(&format!("worker: cannot encode response: {e}").into()),
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
        wasm_memory_bytes: wasm_bindgen::memory()
            .dyn_into::<js_sys::WebAssembly::Memory>()
            .ok()
            .and_then(|m| m.buffer().dyn_into::<ArrayBuffer>().ok())
            .map(|b| b.byte_length() as u64),
        primary_score: None,
    }
}

/// Entry point of the worker binary.
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let state = Rc::new(RefCell::new(State::default()));
    let s2 = scope.clone();
    let cb = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
        handle(&s2, &state, e);
    });
    scope.set_onmessage(Some(cb.as_ref().unchecked_ref()));
    cb.forget();
    post(&scope, &Response::Ready);
}

fn handle(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, e: MessageEvent) {
    // Messages are either the request's bytes, or [bytes, [ArrayBuffer...]] for Load.
    let data = e.data();
    let (msg, buffers) = if Array::is_array(&data) {
        let arr: Array = data.unchecked_into();
        (
            arr.get(0),
            arr.get(1)
                .dyn_into::<Array>()
                .unwrap_or_else(|_| Array::new()),
        )
    } else {
        (data, Array::new())
    };
    let decoded = match msg.dyn_into::<Uint8Array>() {
        Ok(bytes) => protocol::decode(&bytes.to_vec()),
        Err(_) => Err("not a Uint8Array".to_string()),
    };
    let req: Request = match decoded {
        Ok(r) => r,
        Err(e) => {
            post(
                scope,
                &Response::Error {
                    req: None,
                    message: format!("bad request: {e}"),
                },
            );
            return;
        }
    };
    let mut st = state.borrow_mut();
    match req {
        Request::Load {
            run_id,
            name,
            paths,
            demo,
        } => {
            let t0 = now();
            let total_bytes: u64 = (0..buffers.length())
                .filter_map(|i| buffers.get(i).dyn_into::<ArrayBuffer>().ok())
                .map(|b| b.byte_length() as u64)
                .sum();
            let mut files = Vec::with_capacity(paths.len());
            for (i, path) in paths.into_iter().enumerate() {
                let bytes = buffers
                    .get(i as u32)
                    .dyn_into::<ArrayBuffer>()
                    .map(|b| Uint8Array::new(&b).to_vec())
                    .unwrap_or_default();
                files.push(InputFile::new(path, bytes));
            }
            let n_files = files.len() as u64;
            // SHA-256 of every input file (the HTML report's provenance), 4 MB at a time with
            // progress between chunks so a big file never leaves the progress bar silent.
            const HASH_CHUNK: usize = 4 << 20;
            let mut hashed = 0u64;
            let provenance: Vec<_> = files
                .iter()
                .map(|f| {
                    let before = hashed;
                    let p = evalboard_report::html::FileProvenance::of_chunked(
                        &name,
                        &f.path,
                        &f.bytes,
                        HASH_CHUNK,
                        &mut |d| {
                            hashed = before + d as u64;
                            post(
                                scope,
                                &Response::Progress {
                                    run_id,
                                    stage: "hashing".into(),
                                    done: hashed,
                                    total: total_bytes.max(1),
                                },
                            );
                        },
                    );
                    hashed = before + f.bytes.len() as u64;
                    p
                })
                .collect();
            post(
                scope,
                &Response::Progress {
                    run_id,
                    stage: "parsing".into(),
                    done: 0,
                    total: total_bytes.max(1),
                },
            );
            let input = RunInput::new(name.clone(), files);
            if pipeline::detect_family(&input) == pipeline::Family::Evalset {
                match families::load_evalset_with(&input, &st.evalset_opts) {
                    Ok(state) => {
                        let e = EvalsetEntry {
                            id: run_id,
                            name,
                            demo,
                            state,
                            load_ms: now() - t0,
                            provenance,
                        };
                        let i = evalset_info(&e);
                        st.evalsets.retain(|r| r.id != run_id);
                        st.evalsets.push(e);
                        post(scope, &Response::Loaded { info: i });
                    }
                    Err(error) => {
                        let run = evalboard_engine::evalset::read_evalset_run(&input.files, None);
                        post(
                            scope,
                            &Response::LoadFailed {
                                run_id,
                                name,
                                error,
                                files: run.files,
                                diagnostics: run.diagnostics,
                            },
                        )
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
                            done: done_bytes,
                            total: total_bytes.max(1),
                        },
                    );
                }
            };
            match pipeline::load_qa_run_with_progress(&input, None, &mut progress) {
                Ok(run) => {
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
                    let scored = crate::scoring::score_with_progress(
                        run,
                        &st.config,
                        2048,
                        &mut |done, total| {
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
                        },
                    );
                    let run = Run {
                        id: run_id,
                        name,
                        demo,
                        scored,
                        load_ms: now() - t0,
                        provenance,
                    };
                    let i = info(&run);
                    st.runs.retain(|r| r.id != run_id);
                    st.runs.push(run);
                    post(scope, &Response::Loaded { info: i });
                }
                Err(err) => post(
                    scope,
                    &Response::LoadFailed {
                        run_id,
                        name,
                        error: err.message,
                        files: err.files,
                        diagnostics: err.diagnostics,
                    },
                ),
            }
        }
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
        } => match (side(&st, baseline), side(&st, candidate)) {
            (Some(b), Some(c)) => post(
                scope,
                &Response::Compare {
                    req,
                    view: Box::new(families::compare_view(&b, &c, &query)),
                },
            ),
            (None, _) => no_run(scope, req, baseline),
            (_, None) => no_run(scope, req, candidate),
        },
        Request::Series {
            req,
            runs,
            step,
            query,
            dark,
        } => {
            let sides: Result<Vec<_>, RunId> =
                runs.iter().map(|id| side(&st, *id).ok_or(*id)).collect();
            match sides {
                Ok(sides) if sides.len() >= 2 => post(
                    scope,
                    &Response::Series {
                        req,
                        view: Box::new(families::series_view(&sides, step as usize, &query, dark)),
                    },
                ),
                Ok(_) => post(
                    scope,
                    &Response::Error {
                        req: Some(req),
                        message: "a comparison needs two runs or more".into(),
                    },
                ),
                Err(id) => no_run(scope, req, id),
            }
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
        } => post(scope, &report(&st, req, run_id, baseline, generated_at)),
        Request::Export { req, run_id, file } => match crate::exports::export_run(
            st.runs.iter().find(|r| r.id == run_id).map(|r| &r.scored),
            st.evalsets
                .iter()
                .find(|e| e.id == run_id)
                .map(|e| e.state.headline()),
            &file,
        ) {
            Some(text) => match text {
                Ok(text) => post(
                    scope,
                    &Response::Export {
                        req,
                        run_id,
                        file,
                        text,
                    },
                ),
                Err(message) => post(
                    scope,
                    &Response::Error {
                        req: Some(req),
                        message,
                    },
                ),
            },
            None => post(
                scope,
                &Response::Error {
                    req: Some(req),
                    message: format!("no run {run_id}"),
                },
            ),
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
    use evalboard_report::html::{
        render_report, FileProvenance, HtmlOptions, Provenance, ReportInput, ReportRun,
    };
    // Any loaded run as (report run, its name, its files' provenance).
    let find = |id: RunId| -> Option<(ReportRun<'_>, &str, &[FileProvenance])> {
        if let Some(r) = st.runs.iter().find(|r| r.id == id) {
            return Some((ReportRun::Qa(&r.scored), &r.name, &r.provenance));
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
    let mut files = prov.to_vec();
    if let Some((_, _, p)) = base {
        files.extend(p.iter().cloned());
    }
    let text = render_report(&ReportInput {
        runs: vec![run],
        baseline: base.map(|b| b.0),
        provenance: Provenance {
            generated_at,
            generator: "evalboard dashboard".into(),
            files,
        },
        options: HtmlOptions::default(),
    });
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    Response::Export {
        req,
        run_id,
        file: format!("evalboard-report-{safe}.html"),
        text,
    }
}
