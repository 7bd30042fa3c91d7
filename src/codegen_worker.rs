//! The code-generation worker: a second Web Worker, started by the main worker on the
//! first code-generation drop (`codegen_host`). It carries the Python parser for syntax
//! validity, owns every code-generation run, and answers the page's requests about them one
//! screen at a time; its answers reach the page through the main worker unchanged.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::family::Family;
use evalboard_engine::run::{self, FamilySet, ReadOptions};
use evalboard_engine::RunInput;

use crate::codegen_host::{content_id_message, READY};
use crate::protocol::Request;
use crate::worker::intake::provenance;
use crate::worker::runtime::{
    decode_or_report, input_files, listen, no_run, now, post_load_failed, post_progress,
};
use crate::worker::store::{self, Kept, RunStore};

/// The family this worker reads and scores.
const FAMILIES: FamilySet = Family::Codegen.bit();

type State = RunStore<FAMILIES>;

/// Entry point of the code-generation worker binary.
pub fn start() {
    // Its runs' screens show the human review marks (a copy of the main worker's).
    crate::review::enable();
    let state = Rc::new(RefCell::new(State::default()));
    let scope = listen(move |scope, e| handle(scope, &state, e));
    let _ = scope.post_message(&JsValue::from_str(READY));
}

fn handle(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<State>>, e: MessageEvent) {
    let Some((req, buffers)) = decode_or_report(scope, &e.data()) else {
        return;
    };
    let mut st = state.borrow_mut();
    let req = match req {
        Request::Load {
            run_id,
            name,
            paths,
            demo,
            ..
        } => {
            let t0 = now();
            let input = RunInput::new(name.clone(), input_files(paths, &buffers));
            let provenance = provenance(scope, run_id, &input, false);
            post_progress(scope, run_id, "scoring", (0, 1));
            let settings = &st.settings;
            match run::load_in::<FAMILIES>(
                Family::Codegen,
                &input,
                (None, ReadOptions::default()),
                settings,
                1,
            ) {
                Ok(scored) => {
                    let kept = Kept {
                        id: run_id,
                        name,
                        demo,
                        scored,
                        load_ms: now() - t0,
                        stage_ms: Vec::new(),
                        provenance,
                        part_of: None,
                    };
                    // Told before the page hears of the run: a mark made on it finds its id.
                    if let Some(id) = kept.content_id() {
                        let msg = content_id_message(run_id, &id);
                        let _ = scope.post_message(&JsValue::from_str(&msg));
                    }
                    st.keep(scope, kept);
                }
                Err(err) => post_load_failed(scope, run_id, name, err),
            }
            return;
        }
        // The main worker's marks, which it keeps: this worker's copy.
        Request::MarksKept { text } => {
            let (set, _) = evalboard_engine::marks::MarkSet::from_jsonl("marks", text.as_bytes());
            crate::review::with_mut(|s| *s = set);
            return;
        }
        // Every run here is a code-generation run: no other worker's run to name.
        req => match st.answer(scope, req, &[]) {
            Some(req) => req,
            None => return,
        },
    };
    match req {
        Request::Screen { req, run_id, query } => {
            let shown =
                store::post_screen::<FAMILIES>(scope, st.get(run_id), (req, run_id), &query);
            if !shown {
                no_run(scope, req, run_id)
            }
        }
        Request::Overview { req, run_id, .. }
        | Request::Items { req, run_id, .. }
        | Request::Conversation { req, run_id, .. } => no_run(scope, req, run_id),
        // The run store answers JSONL and CSV; a lake is written by the lake worker, which
        // this worker does not reach.
        Request::ExportView { req, .. } | Request::ExportMany { req, .. } => {
            crate::worker::runtime::post(
                scope,
                &crate::protocol::Response::Error {
                    req: Some(req),
                    message:
                        "A code-generation run exports its view as JSONL or CSV; Parquet is not \
                          available for it yet."
                            .into(),
                },
            )
        }
        // Its part of "Export the workspace as a lake": its runs' rows, built as the main
        // worker builds its own, handed to the main worker (which writes the lake).
        Request::ExportLake { req } => {
            let job = st.lake_job(req, String::new());
            let sent = crate::protocol::encode(&Request::ExportLake { req })
                .and_then(|r| Ok((r, crate::protocol::encode(&job)?)));
            match sent {
                Ok((r, j)) => {
                    let (r, j) = (
                        js_sys::Uint8Array::from(r.as_slice()),
                        js_sys::Uint8Array::from(j.as_slice()),
                    );
                    let msg = js_sys::Array::of3(&crate::codegen_host::LAKE_PART.into(), &r, &j);
                    let transfer = js_sys::Array::of1(&j.buffer());
                    if let Err(e) = scope.post_message_with_transfer(&msg, &transfer) {
                        web_sys::console::error_1(&e);
                    }
                }
                Err(message) => crate::worker::runtime::post(
                    scope,
                    &crate::protocol::Response::Error {
                        req: Some(req),
                        message,
                    },
                ),
            }
        }
        // Answered above or by the run store.
        _ => {}
    }
}
