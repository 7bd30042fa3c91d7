//! The main worker's side of the lake worker ([`crate::lake_worker`]). A dropped folder holding
//! `evalboard-lake.json` is a results lake: its `Load` (with the dropped `File`s, unread) goes
//! to the lake worker, started on the first such drop, which carries the Parquet reader. The main
//! worker forwards page messages about the lake's runs to it unchanged and posts its answers to
//! the page unchanged; it only remembers which runs live there (each announced by a
//! [`RUN`] message before the page hears of it).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

use crate::protocol::{Request, Response, RunId};
use crate::worker::runtime::{post, post_load_refused, relay};

/// The lake worker's loader (Trunk's `data-loader-shim`), next to this worker's.
const URL: &str = "./lake-worker_loader.js";

/// What the lake worker posts once it listens (not a page message).
pub const READY: &str = "evalboard:lake-worker-ready";

/// What the lake worker posts before it lists a run (not a page message): this and the run's id.
pub const RUN: &str = "evalboard:lake-run:";

/// The message [`RUN`] announces `id` with.
pub fn run_message(id: RunId) -> String {
    format!("{RUN}{id}")
}

/// The manifest's file name, as the last part of a dropped path.
const MANIFEST: &str = "/evalboard-lake.json";

#[derive(Default)]
struct Host {
    worker: Option<Worker>,
    ready: bool,
    queue: Vec<JsValue>,
    /// The runs it holds.
    runs: Vec<RunId>,
}

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::default());
}

fn holds(id: RunId) -> bool {
    HOST.with(|h| h.borrow().runs.contains(&id))
}

/// Whether a `Load`'s paths are a results lake: one of them is a folder's `evalboard-lake.json`.
pub fn wanted(paths: &[String]) -> bool {
    paths
        .iter()
        .any(|p| p.ends_with(MANIFEST) || p == &MANIFEST[1..])
}

fn send(w: &Worker, msg: &JsValue) {
    if let Err(e) = w.post_message(msg) {
        web_sys::console::warn_1(
            &format!("evalboard: cannot post to the lake worker: {e:?}").into(),
        );
    }
}

fn flush() {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        h.ready = true;
        let queue = std::mem::take(&mut h.queue);
        if let Some(w) = &h.worker {
            queue.iter().for_each(|m| send(w, m));
        }
    });
}

fn forward(msg: &JsValue) {
    HOST.with(|h| {
        let mut h = h.borrow_mut();
        match (&h.worker, h.ready) {
            (Some(w), true) => send(w, msg),
            _ => h.queue.push(msg.clone()),
        }
    });
}

/// Starts the lake worker when needed; its messages go to the page as they are.
fn ensure_started(scope: &DedicatedWorkerGlobalScope) -> Result<(), String> {
    if HOST.with(|h| h.borrow().worker.is_some()) {
        return Ok(());
    }
    let w = Worker::new(URL).map_err(|e| format!("cannot start the lake worker: {e:?}"))?;
    let page = scope.clone();
    let cb = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
        let data = e.data();
        match data.as_string() {
            Some(t) if t == READY => flush(),
            Some(t) if t.starts_with(RUN) => {
                if let Ok(id) = t[RUN.len()..].parse::<RunId>() {
                    HOST.with(|h| h.borrow_mut().runs.push(id));
                }
            }
            _ => relay(&page, &data),
        }
    });
    w.set_onmessage(Some(cb.as_ref().unchecked_ref()));
    cb.forget();
    // It stopped (or could not start): its runs are named to the page; the next lake drop
    // starts a new one.
    let page = scope.clone();
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        let message = crate::js_error::worker_error(&e, "its script could not run");
        let (worker, runs) = HOST.with(|h| {
            let mut h = h.borrow_mut();
            h.queue.clear();
            h.ready = false;
            (h.worker.take(), std::mem::take(&mut h.runs))
        });
        if let Some(w) = worker {
            w.terminate();
        }
        post(&page, &Response::WorkerStopped { runs, message });
    });
    w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    HOST.with(|h| h.borrow_mut().worker = Some(w));
    Ok(())
}

/// Hands a lake's `Load` (`msg`: the page's message as it came, with its `File`s) over.
pub fn load(scope: &DedicatedWorkerGlobalScope, (run_id, name): (RunId, String), msg: &JsValue) {
    if let Err(error) = ensure_started(scope) {
        return post_load_refused(scope, run_id, name, error);
    }
    HOST.with(|h| h.borrow_mut().runs.push(run_id));
    post(
        scope,
        &Response::Progress {
            run_id,
            stage: "starting the lake reader".into(),
            done: 0,
            total: 1,
        },
    );
    // Files are cloned to the lake worker (a `File` is a handle: its bytes are not copied).
    forward(msg);
}

/// Forwards what concerns the lake worker's runs; `true` when the request is handled there.
pub fn route(req: &Request, msg: &JsValue) -> bool {
    let fwd = match req {
        Request::Remove { run_id } => holds(*run_id),
        Request::Screen { run_id, .. }
        | Request::Export { run_id, .. }
        | Request::Report { run_id, .. } => holds(*run_id),
        Request::Compare {
            baseline,
            candidate,
            ..
        } => holds(*baseline) || holds(*candidate),
        Request::Series { runs, .. } => runs.iter().any(|id| holds(*id)),
        Request::Many {
            baselines, runs, ..
        } => baselines.iter().chain(runs).any(|id| holds(*id)),
        _ => false,
    };
    if fwd {
        forward(msg);
    }
    fwd
}
