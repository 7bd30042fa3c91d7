//! The main worker's side of the lake worker ([`crate::lake_worker`]). A dropped folder holding
//! `evalboard-lake.json` is a results lake: its `Load` (with the dropped `File`s, unread) goes
//! to the lake worker, started on the first such drop, which carries the Parquet reader. The main
//! worker forwards page messages about the lake's runs to it unchanged and posts its answers to
//! the page unchanged; it only remembers which runs live there (each announced by a
//! [`RUN`] message before the page hears of it).

use std::cell::RefCell;

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

use crate::protocol::{Request, Response, RunId};
use crate::worker::runtime::{post, post_load_refused};
use crate::worker::sub::{Spec, Sub};

/// The lake worker's loader (Trunk's `data-loader-shim`), next to this worker's.
const URL: &str = "./lake-worker_loader.js";

/// What the lake worker posts once it listens (not a page message).
pub const READY: &str = "evalboard:lake-worker-ready";

/// What the lake worker posts before it lists runs (not a page message): this and the runs'
/// ids, comma-separated.
pub const RUN: &str = "evalboard:lake-run:";

/// The message [`RUN`] announces `ids` with.
pub fn run_message(ids: &[RunId]) -> String {
    let ids: Vec<String> = ids.iter().map(RunId::to_string).collect();
    format!("{RUN}{}", ids.join(","))
}

/// The ids a [`RUN`] message announces.
pub fn announced(text: &str) -> Vec<RunId> {
    text.strip_prefix(RUN)
        .map(|rest| rest.split(',').filter_map(|i| i.parse().ok()).collect())
        .unwrap_or_default()
}

/// The manifest's file name, as the last part of a dropped path.
const MANIFEST: &str = "/evalboard-lake.json";

static SPEC: Spec = Spec {
    url: URL,
    ready: READY,
    what: "the lake worker",
    state: &SUB,
};

thread_local! {
    static SUB: RefCell<Sub> = RefCell::new(Sub::default());
    /// The runs it holds.
    static RUNS: RefCell<Vec<RunId>> = const { RefCell::new(Vec::new()) };
    /// The `Load`s it handed back converted ([`CONVERTED`]), until the main worker takes them.
    static CONVERTED_IDS: RefCell<Vec<RunId>> = const { RefCell::new(Vec::new()) };
}

fn holds(id: RunId) -> bool {
    RUNS.with(|r| r.borrow().contains(&id))
}

/// Whether a `Load` (run `run_id`, `paths`) is for the lake worker: one of its paths is a
/// folder's `evalboard-lake.json`, or they are one `.zip` (a lake zipped; the lake worker says
/// so when it holds no lake), or they are all `.parquet` files (foreign per-sample Parquet, the
/// lm-eval details the lake worker converts, [`CONVERTED`]). Not a `Load` the lake worker handed
/// back converted.
pub fn wanted(run_id: RunId, paths: &[String]) -> bool {
    let back = CONVERTED_IDS.with(|c| {
        let mut c = c.borrow_mut();
        let n = c.len();
        c.retain(|i| *i != run_id);
        c.len() != n
    });
    let lower = |p: &String| p.to_ascii_lowercase();
    !back
        && match paths {
            [one] if lower(one).ends_with(".zip") => true,
            [] => false,
            _ => {
                paths
                    .iter()
                    .any(|p| p.ends_with(MANIFEST) || p == &MANIFEST[1..])
                    || paths.iter().all(|p| lower(p).ends_with(".parquet"))
            }
        }
}

/// What the lake worker posts to hand a page message back (not a page message): an array of
/// this, the `Request` encoded and its files' buffers. Either a `Load` of files it converted —
/// lm-eval details Parquet files turned into the samples JSONL they were converted from, or a
/// lake run's rows turned into its run rows ([`named`]) — which the main worker loads as if the
/// page had sent it (the engine's readers read it as they read the CLI's conversion), or the
/// request that asked for those runs, answered here once they are loaded.
pub const CONVERTED: &str = "evalboard:lake-converted";

/// The runs a request needs held as workspace runs ([`Request::workspace_runs`]).
pub fn named(req: &Request) -> Vec<RunId> {
    req.workspace_runs()
}

fn on_data(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> bool {
    if let Some(t) = data.as_string() {
        if !t.starts_with(RUN) {
            return false;
        }
        RUNS.with(|r| r.borrow_mut().extend(announced(&t)));
        return true;
    }
    let Some(parts) = data.dyn_ref::<Array>() else {
        return false;
    };
    if parts.get(0).as_string().as_deref() != Some(CONVERTED) {
        return false;
    }
    let msg = Array::of2(&parts.get(1), &parts.get(2));
    let again = match crate::worker::runtime::decode(&msg) {
        Ok((Request::Load { run_id, .. }, _)) => {
            RUNS.with(|r| r.borrow_mut().retain(|i| *i != run_id));
            CONVERTED_IDS.with(|c| c.borrow_mut().push(run_id));
            false
        }
        Ok(_) => true,
        Err(_) => false,
    };
    crate::worker::runtime::dispatch_as_page(scope, &msg);
    // The request its runs were loaded for is answered: every view on screen asks again (a
    // lake run's Overview is now the workspace run's).
    if again {
        post(scope, &Response::Rescored { runs: Vec::new() });
    }
    true
}

/// What the main worker posts to the lake worker to have a lake written (not a page message):
/// an array of this and a [`LakeJob`](crate::lake_job::LakeJob) as postcard bytes. The lake worker answers the page with
/// `Response::Download` (the zip) or `Response::Error`.
pub const WRITE: &str = "evalboard:lake-write";

/// Hands `job` to the lake worker (started if it is not).
pub fn write(scope: &DedicatedWorkerGlobalScope, job: &crate::lake_job::LakeJob) {
    let req = job.req;
    let sent = SPEC
        .ensure_started(scope, Vec::new, (on_data, on_stop))
        .and_then(|()| crate::protocol::encode(job));
    match sent {
        Ok(bytes) => {
            let buf = js_sys::Uint8Array::from(bytes.as_slice());
            let msg = Array::of2(&WRITE.into(), &buf);
            SPEC.forward(&msg, Some(Array::of1(&buf.buffer())));
        }
        Err(message) => post(
            scope,
            &Response::Error {
                req: Some(req),
                message,
            },
        ),
    }
}

/// It stopped (or could not start): its runs are named to the page; the next lake drop starts
/// a new one.
fn on_stop(page: &DedicatedWorkerGlobalScope, _ready: bool, message: String) {
    let runs = RUNS.with(|r| std::mem::take(&mut *r.borrow_mut()));
    post(
        page,
        &Response::WorkerStopped {
            runs,
            message,
            worker: "The lake worker (Parquet)".into(),
        },
    );
}

fn forward(msg: &JsValue) {
    SPEC.forward(msg, None)
}

/// Hands a lake's `Load` (`msg`: the page's message as it came, with its `File`s) over.
pub fn load(scope: &DedicatedWorkerGlobalScope, (run_id, name): (RunId, String), msg: &JsValue) {
    if let Err(error) = SPEC.ensure_started(scope, Vec::new, (on_data, on_stop)) {
        return post_load_refused(scope, run_id, name, error);
    }
    RUNS.with(|r| r.borrow_mut().push(run_id));
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
        Request::Remove { run_id } | Request::Screen { run_id, .. } => holds(*run_id),
        _ => named(req).into_iter().any(holds),
    };
    if fwd {
        forward(msg);
    }
    fwd
}
