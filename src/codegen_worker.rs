//! The code-generation worker: a second Web Worker, started by the main worker on the
//! first code-generation drop (`codegen_host`). It carries the Python parser for syntax
//! validity, owns every code-generation run, and answers the page's requests about them one
//! screen at a time; its answers reach the page through the main worker unchanged.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::codegen::CodegenConfig;
use evalboard_engine::RunInput;
use evalboard_report::html::ReportRun;

use crate::codegen::{self, CodegenState};
use crate::codegen_host::READY;
use crate::families;
use crate::protocol::{Request, Response, RunId, RunInfo};
use crate::worker::intake::provenance;
use crate::worker::runtime::{
    decode_or_report, input_files, keep_and_announce, listen, no_run, now, post, post_compare,
    post_export, post_load_failed, post_series, report_response, wasm_memory_bytes, Kept,
};

type Entry = Kept<CodegenState>;

#[derive(Default)]
struct State {
    config: CodegenConfig,
    runs: Vec<Entry>,
}

fn info(e: &Entry) -> RunInfo {
    RunInfo {
        run_id: e.id,
        name: e.name.clone(),
        demo: e.demo,
        family: "codegen".into(),
        n_conversations: e.state.n_sessions(),
        n_turns: e.state.messages.len(),
        files: e.state.files.clone(),
        diagnostics: e.state.scored.diagnostics.clone(),
        numerical_accuracy: None,
        load_ms: e.load_ms,
        wasm_memory_bytes: wasm_memory_bytes(),
        primary_score: e.state.headline(),
        stage_ms: Vec::new(),
    }
}

/// Entry point of the code-generation worker binary.
pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
    let scope = listen(move |scope, e| handle(scope, &state, e));
    let _ = scope.post_message(&JsValue::from_str(READY));
}

fn handle(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, e: MessageEvent) {
    let Some((req, buffers)) = decode_or_report(scope, &e.data()) else {
        return;
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
            let input = RunInput::new(name.clone(), input_files(paths, &buffers));
            let provenance = provenance(scope, run_id, &input);
            post(
                scope,
                &Response::Progress {
                    run_id,
                    stage: "scoring".into(),
                    done: 0,
                    total: 1,
                },
            );
            match codegen::load_codegen(&input, &st.config) {
                Ok(state) => keep_and_announce(
                    scope,
                    &mut st.runs,
                    (run_id, name, demo),
                    state,
                    t0,
                    provenance,
                    info,
                ),
                Err(err) => post_load_failed(scope, run_id, name, err),
            }
        }
        Request::Configure { config } => {
            st.config = config.codegen;
            let cfg = st.config;
            for r in st.runs.iter_mut() {
                r.state.rescore(&cfg);
            }
            if !st.runs.is_empty() {
                let runs = st.runs.iter().map(info).collect();
                post(scope, &Response::Rescored { runs });
            }
        }
        Request::Remove { run_id } => st.runs.retain(|r| r.id != run_id),
        Request::Codegen { req, run_id, query } => match st.runs.iter().find(|r| r.id == run_id) {
            Some(r) => post(
                scope,
                &Response::Codegen {
                    req,
                    run_id,
                    view: Box::new(codegen::view(&r.state, &query)),
                },
            ),
            None => no_run(scope, req, run_id),
        },
        Request::Export { req, run_id, file } => match st.runs.iter().find(|r| r.id == run_id) {
            Some(r) => post_export(scope, req, run_id, codegen::export(&r.state, &file)),
            None => no_run(scope, req, run_id),
        },
        Request::Report {
            req,
            run_id,
            baseline,
            generated_at,
        } => {
            let find = |id: RunId| st.runs.iter().find(|r| r.id == id);
            let Some(run) = find(run_id) else {
                no_run(scope, req, run_id);
                return;
            };
            let base = baseline.filter(|b| *b != run_id).and_then(find);
            let response = report_response(
                req,
                run_id,
                &run.name,
                (ReportRun::Codegen(&run.state.scored), &run.provenance),
                base.map(|b| (ReportRun::Codegen(&b.state.scored), b.provenance.as_slice())),
                generated_at,
            );
            post(scope, &response);
        }
        Request::Compare {
            req,
            baseline,
            candidate,
            query,
        } => {
            let side = |id: RunId| {
                st.runs
                    .iter()
                    .find(|r| r.id == id)
                    .map(|r| families::Side::Codegen(&r.name, &r.state))
            };
            post_compare(
                scope,
                req,
                (baseline, candidate),
                (side(baseline), side(candidate)),
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
            let sides: Result<Vec<_>, RunId> = runs
                .iter()
                .map(|id| {
                    st.runs
                        .iter()
                        .find(|r| r.id == *id)
                        .map(|r| families::Side::Codegen(&r.name, &r.state))
                        .ok_or(*id)
                })
                .collect();
            post_series(scope, req, sides, step, &query, dark);
        }
        Request::ConfigureEvalset { .. } => {}
        Request::Overview { req, run_id, .. }
        | Request::Items { req, run_id, .. }
        | Request::Conversation { req, run_id, .. }
        | Request::Evalset { req, run_id } => no_run(scope, req, run_id),
    }
}
