//! The main worker's side of the code-generation worker. Code-generation runs are
//! scored in a second worker, started on the first such drop: it carries the Python parser
//! (~0.5 MB gzipped) that no other family needs, so the page's initial load does not pay for
//! it. The main worker forwards page messages about those runs to it unchanged and posts its
//! answers to the page unchanged; it only remembers which runs live there.

use std::cell::RefCell;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use crate::lake_job::LakeJob;
use crate::protocol::{self, Request, Response, RunId};
use crate::worker::runtime::{post, to_buffers};
use crate::worker::sub::{OnData, Spec, Sub};
use evalboard_engine::InputFile;

/// The code-generation worker's loader (Trunk's `data-loader-shim`), next to this worker's.
const URL: &str = "./codegen-worker_loader.js";

/// What the code-generation worker posts once it listens (it is not a page message).
pub const READY: &str = "evalboard:codegen-worker-ready";

/// What the code-generation worker posts when it keeps a run whose files have SHA-256 digests
/// (not a page message): this, the run's id, a space, its content id. The main worker keeps
/// the human review marks, and marks a run by its content id.
pub const CONTENT_ID: &str = "evalboard:codegen-content-id:";

/// The message [`CONTENT_ID`] announces `run_id`'s content id with.
pub fn content_id_message(run_id: RunId, content_id: &str) -> String {
    format!("{CONTENT_ID}{run_id} {content_id}")
}

/// What the code-generation worker posts with its part of "Export the workspace as a lake"
/// (not a page message): an array of this, the `Request::ExportLake` it answers and the
/// [`LakeJob`] of its runs, both as postcard bytes. The main worker keeps the part and handles
/// the request again as the page's message, now with it ([`lake_part`]).
pub const LAKE_PART: &str = "evalboard:codegen-lake-part";

/// What the main worker knows of the code-generation worker's runs.
#[derive(Default)]
struct Host {
    /// The workspace lakes asked of it ([`LAKE_PART`]), by request, until it answers.
    lake_asked: Vec<crate::protocol::ReqId>,
    /// Its parts of them, until the main worker takes them ([`lake_part`]).
    lake_parts: Vec<LakeJob>,
    /// The runs it holds, by id, with their names.
    runs: Vec<(RunId, String)>,
    /// The content ids of the runs it holds ([`CONTENT_ID`]).
    content_ids: Vec<(RunId, String)>,
    /// The latest `Configure`, replayed to a worker started after it.
    config: Option<JsValue>,
}

static SPEC: Spec = Spec {
    url: URL,
    ready: READY,
    what: "the code-generation worker",
    state: &SUB,
};

thread_local! {
    static SUB: RefCell<Sub> = RefCell::new(Sub::default());
    static HOST: RefCell<Host> = RefCell::new(Host::default());
}

/// The name of a run the code-generation worker holds.
pub fn run_name(id: RunId) -> Option<String> {
    HOST.with(|h| {
        h.borrow()
            .runs
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, n)| n.clone())
    })
}

fn holds(id: RunId) -> bool {
    run_name(id).is_some()
}

/// The content id and name of a run the code-generation worker holds (`None` as content id:
/// its files have no digest, so it gets no marks); `None` when it holds no such run.
pub fn marked_run(id: RunId) -> Option<(Option<String>, String)> {
    let name = run_name(id)?;
    let content_id = HOST.with(|h| {
        h.borrow()
            .content_ids
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, c)| c.clone())
    });
    Some((content_id, name))
}

/// The content ids of the runs the code-generation worker holds.
pub fn content_ids() -> Vec<String> {
    HOST.with(|h| {
        let h = h.borrow();
        h.content_ids
            .iter()
            .filter(|(i, _)| h.runs.iter().any(|(r, _)| r == i))
            .map(|(_, c)| c.clone())
            .collect()
    })
}

/// `Request::MarksKept` of the marks this worker keeps: what the code-generation worker lays out.
fn marks_message() -> Option<JsValue> {
    let text = crate::review::with(evalboard_engine::marks::MarkSet::to_jsonl);
    match protocol::encode(&Request::MarksKept { text }) {
        Ok(b) => Some(Uint8Array::from(b.as_slice()).into()),
        Err(e) => {
            web_sys::console::error_1(&format!("worker: cannot encode the marks: {e}").into());
            None
        }
    }
}

/// Sends the code-generation worker, when started, the marks kept now (they changed).
pub fn sync_marks() {
    if !SPEC.started() {
        return;
    }
    if let Some(msg) = marks_message() {
        forward(&msg, None);
    }
}

/// Notes the content id a [`CONTENT_ID`] message announces; `false` when `text` is none.
fn note_content_id(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(CONTENT_ID) else {
        return false;
    };
    if let Some((id, content_id)) = rest
        .split_once(' ')
        .and_then(|(i, c)| Some((i.parse::<RunId>().ok()?, c.to_string())))
    {
        HOST.with(|h| {
            let mut h = h.borrow_mut();
            h.content_ids.retain(|(i, _)| *i != id);
            h.content_ids.push((id, content_id));
        });
    }
    true
}

/// It could not start, or it stopped (a panic or a stack overflow in the Python parser ends its
/// script): its runs are named to the page, and the next code-generation drop starts a new one.
fn on_stop(page: &DedicatedWorkerGlobalScope, ready: bool, message: String) {
    let runs = HOST.with(|h| std::mem::take(&mut h.borrow_mut().runs));
    for req in HOST.with(|h| std::mem::take(&mut h.borrow_mut().lake_asked)) {
        post(
            page,
            &Response::Error {
                req: Some(req),
                message: format!(
                    "the code-generation worker stopped before it gave its runs to the \
                     workspace lake, which was not written: {message}"
                ),
            },
        );
    }
    if ready {
        let runs = runs.into_iter().map(|(id, _)| id).collect();
        post(
            page,
            &Response::WorkerStopped {
                runs,
                message,
                worker: "The code-generation worker".into(),
            },
        );
        return;
    }
    let error = format!("the code-generation worker could not start: {message}");
    for (run_id, name) in runs {
        post(
            page,
            &Response::LoadFailed {
                run_id,
                name,
                error: error.clone(),
                files: Vec::new(),
                diagnostics: Vec::new(),
                part_of: None,
            },
        );
    }
}

/// Starts the code-generation worker when needed, the latest `Configure` and the marks kept so
/// far its first messages; its messages go to the page as they are.
fn ensure_started(scope: &DedicatedWorkerGlobalScope) -> Result<(), String> {
    let first = || {
        let config = HOST.with(|h| h.borrow().config.clone());
        config.into_iter().chain(marks_message()).collect()
    };
    let on_data: OnData =
        |scope, d| d.as_string().is_some_and(|t| note_content_id(&t)) || took_lake_part(scope, d);
    SPEC.ensure_started(scope, first, (on_data, on_stop))
}

/// Keeps the part of a workspace lake a [`LAKE_PART`] message brings and handles its request
/// again as the page's message; `false` when `data` is none.
fn took_lake_part(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    let Some(parts) = data.dyn_ref::<Array>() else {
        return false;
    };
    if parts.get(0).as_string().as_deref() != Some(LAKE_PART) {
        return false;
    }
    let job = parts
        .get(2)
        .dyn_into::<Uint8Array>()
        .map_err(|_| "not bytes".to_string())
        .and_then(|b| protocol::decode::<LakeJob>(&b.to_vec()));
    match job {
        Ok(job) => HOST.with(|h| {
            let mut h = h.borrow_mut();
            h.lake_asked.retain(|r| *r != job.req);
            h.lake_parts.push(job);
        }),
        Err(e) => {
            web_sys::console::error_1(&format!("worker: a lake part unread: {e}").into());
            return true;
        }
    }
    crate::worker::runtime::dispatch_as_page(scope, &parts.get(1));
    true
}

/// The code-generation worker's part of the workspace lake of request `req`, taken (`None`:
/// it holds no run, or did not answer).
pub fn lake_part(req: crate::protocol::ReqId) -> Option<LakeJob> {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        let i = h.lake_parts.iter().position(|j| j.req == req)?;
        Some(h.lake_parts.remove(i))
    })
}

fn forward(msg: &JsValue, transfer: Option<Array>) {
    SPEC.forward(msg, transfer)
}

/// Hands a `Load` of a code-generation run over: its request, and the files this worker has
/// already read, as transferred buffers.
pub fn load(
    scope: &DedicatedWorkerGlobalScope,
    (run_id, name, demo): (RunId, String, bool),
    files: &[InputFile],
) {
    if let Err(error) = ensure_started(scope) {
        post(
            scope,
            &Response::LoadFailed {
                run_id,
                name,
                error,
                files: Vec::new(),
                diagnostics: Vec::new(),
                part_of: None,
            },
        );
        return;
    }
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        h.runs.retain(|(i, _)| *i != run_id);
        h.runs.push((run_id, name.clone()));
    });
    post(
        scope,
        &Response::Progress {
            run_id,
            stage: "starting the code scorer".into(),
            done: 0,
            total: 1,
        },
    );
    // The request again, naming the files this worker could read, with their bytes.
    let request = Request::Load {
        run_id,
        name,
        paths: files.iter().map(|f| f.path.clone()).collect(),
        demo,
        stored: None,
    };
    let bytes = match protocol::encode(&request) {
        Ok(b) => Uint8Array::from(b.as_slice()),
        Err(e) => {
            web_sys::console::error_1(&format!("worker: cannot encode a Load: {e}").into());
            return;
        }
    };
    let buffers = to_buffers(files);
    forward(&Array::of2(&bytes, &buffers).into(), Some(buffers));
}

/// Forwards what concerns the code-generation worker's runs; `true` when the request is fully
/// handled there (the main worker then does nothing with it).
pub fn route(req: &Request, msg: &JsValue) -> bool {
    let started = SPEC.started();
    match req {
        Request::Configure { .. } => {
            HOST.with(|h| h.borrow_mut().config = Some(msg.clone()));
            if started {
                forward(msg, None);
            }
            false
        }
        // The id stays known: a run removed while it loads is removed again when it arrives.
        Request::Remove { run_id } if holds(*run_id) => {
            forward(msg, None);
            true
        }
        Request::Screen { run_id, .. }
        | Request::Export { run_id, .. }
        | Request::ExportView { run_id, .. }
        | Request::Report { run_id, .. }
            if holds(*run_id) =>
        {
            forward(msg, None);
            true
        }
        // The workspace lake: its runs' rows first (built there, [`LAKE_PART`]), then the
        // request again here, where [`lake_part`] finds them.
        Request::ExportLake { req } if started && HOST.with(|h| !h.borrow().runs.is_empty()) => {
            let has_part = HOST.with(|h| h.borrow().lake_parts.iter().any(|j| j.req == *req));
            if !has_part {
                HOST.with(|h| h.borrow_mut().lake_asked.push(*req));
                forward(msg, None);
            }
            !has_part
        }
        Request::Compare {
            baseline,
            candidate,
            ..
        } if holds(*baseline) && holds(*candidate) => {
            forward(msg, None);
            true
        }
        Request::Series { runs, .. } if !runs.is_empty() && runs.iter().all(|id| holds(*id)) => {
            forward(msg, None);
            true
        }
        Request::Many {
            baselines, runs, ..
        }
        | Request::ExportMany {
            baselines, runs, ..
        } if !baselines.is_empty() && baselines.iter().chain(runs).all(|id| holds(*id)) => {
            forward(msg, None);
            true
        }
        _ => false,
    }
}
