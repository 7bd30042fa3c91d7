//! What both Web Workers do alike (the main worker and the code-generation worker): listen for
//! the page's messages and decode them, post responses, hand
//! files between the workers as buffers, and the answers both give the same way (no such run, a
//! failed load, an export, a comparison, a series, the HTML report).

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use evalboard_engine::InputFile;
use evalboard_report::html::{FileProvenance, ReportRun};

use evalboard_engine::run::FamilySet;

use crate::families;
use crate::protocol::{self, Request, Response, RunId};

/// Tells the page how far loading run `run_id` has come in `stage`.
pub(crate) fn post_progress(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    stage: &str,
    (done, total): (u64, u64),
) {
    post(
        scope,
        &Response::Progress {
            run_id,
            stage: stage.into(),
            done,
            total,
        },
    );
}

pub(crate) fn no_run(scope: &DedicatedWorkerGlobalScope, req: u64, run_id: RunId) {
    post(
        scope,
        &Response::Error {
            req: Some(req),
            message: format!("no run {run_id}"),
        },
    );
}

pub(crate) fn now() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

pub(crate) fn post(scope: &DedicatedWorkerGlobalScope, r: &Response) {
    if QUIET.with(|q| q.get()) {
        return;
    }
    match protocol::encode(r) {
        Ok(bytes) => {
            // Transfer the copy's buffer: the page takes it without a second copy.
            let msg = Uint8Array::from(bytes.as_slice());
            let _ = scope.post_message_with_transfer(&msg, &Array::of1(&msg.buffer()));
        }
        Err(e) => web_sys::console::error_1(&format!("worker: cannot encode response: {e}").into()),
    }
}

/// Size of this worker's wasm linear memory (its high-water mark).
pub(crate) fn wasm_memory_bytes() -> Option<u64> {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<ArrayBuffer>().ok())
        .map(|b| b.byte_length() as u64)
}

thread_local! {
    /// Set while the warm-up runs: [`post`] sends nothing.
    pub(crate) static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Sets up a worker: panics go to the console, every message to `on_message`.
pub(crate) fn listen(
    on_message: impl Fn(&DedicatedWorkerGlobalScope, MessageEvent) + 'static,
) -> DedicatedWorkerGlobalScope {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let s2 = scope.clone();
    let cb = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| on_message(&s2, e));
    scope.set_onmessage(Some(cb.as_ref().unchecked_ref()));
    cb.forget();
    scope
}

/// Tells the page that run `run_id` could not be loaded, with its load report.
pub(crate) fn post_load_failed(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    name: String,
    err: evalboard_engine::accounting::LoadError,
) {
    post_part_failed(scope, (run_id, None), name, err);
}

/// [`post_load_failed`] with only a reason (no file reports, no diagnostics).
pub(crate) fn post_load_refused(
    scope: &DedicatedWorkerGlobalScope,
    run_id: RunId,
    name: String,
    message: String,
) {
    let err = evalboard_engine::accounting::LoadError {
        message,
        files: Vec::new(),
        diagnostics: Vec::new(),
    };
    post_load_failed(scope, run_id, name, err);
}

/// Posts a message of another worker to the page as it came (the code-generation and lake
/// workers' answers, relayed by the main worker).
pub(crate) fn relay(page: &DedicatedWorkerGlobalScope, data: &JsValue) {
    if let Err(err) = page.post_message(data) {
        web_sys::console::warn_1(&format!("evalboard: cannot relay to the page: {err:?}").into());
    }
}

/// Dispatches `msg` on this worker's scope as if the page had posted it (a real
/// `MessageEvent`): what a worker it started hands back to be handled as a page message.
pub(crate) fn dispatch_as_page(scope: &DedicatedWorkerGlobalScope, msg: &JsValue) {
    let init = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&init, &"data".into(), msg);
    let event = js_sys::Reflect::get(&js_sys::global(), &"MessageEvent".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
        .and_then(|c| js_sys::Reflect::construct(&c, &Array::of2(&"message".into(), &init)).ok());
    if let Some(e) = event {
        let _ = scope.dispatch_event(e.unchecked_ref());
    }
}

/// [`post_load_failed`] of one log of a `Load` holding several (`part_of`).
pub(crate) fn post_part_failed(
    scope: &DedicatedWorkerGlobalScope,
    (run_id, part_of): (RunId, Option<RunId>),
    name: String,
    err: evalboard_engine::accounting::LoadError,
) {
    post(
        scope,
        &Response::LoadFailed {
            run_id,
            name,
            error: err.message,
            files: err.files,
            diagnostics: err.diagnostics,
            part_of,
        },
    );
}

/// A page message: a request, and the transferred buffers of a `Load`.
pub(crate) fn decode(data: &JsValue) -> Result<(Request, Array), String> {
    // Messages are either the request's bytes, or [bytes, [ArrayBuffer...]] for Load.
    let (msg, buffers) = if Array::is_array(data) {
        let arr: &Array = data.unchecked_ref();
        (
            arr.get(0),
            arr.get(1)
                .dyn_into::<Array>()
                .unwrap_or_else(|_| Array::new()),
        )
    } else {
        (data.clone(), Array::new())
    };
    let bytes = msg
        .dyn_into::<Uint8Array>()
        .map_err(|_| "unrecognised message (not a Uint8Array)".to_string())?;
    protocol::decode(&bytes.to_vec())
        .map(|r| (r, buffers))
        .map_err(|e| format!("bad request: {e}"))
}

/// [`decode`], telling the page when a message cannot be read.
pub(crate) fn decode_or_report(
    scope: &DedicatedWorkerGlobalScope,
    data: &JsValue,
) -> Option<(Request, Array)> {
    match decode(data) {
        Ok(r) => Some(r),
        Err(message) => {
            post(scope, &Response::Error { req: None, message });
            None
        }
    }
}

/// The files of a `Load` the main worker forwards ([`to_buffers`]): `paths[i]` with the bytes of
/// the i-th buffer.
pub(crate) fn input_files(paths: Vec<String>, buffers: &Array) -> Vec<InputFile> {
    paths
        .into_iter()
        .enumerate()
        .map(|(i, path)| {
            let bytes = buffers
                .get(i as u32)
                .dyn_into::<ArrayBuffer>()
                .map(|b| Uint8Array::new(&b).to_vec())
                .unwrap_or_default();
            InputFile::new(path, bytes)
        })
        .collect()
}

/// The files as transferable buffers, to hand a run on to the code-generation worker.
pub(crate) fn to_buffers(files: &[InputFile]) -> Array {
    files
        .iter()
        .map(|f| JsValue::from(Uint8Array::from(f.bytes.as_slice()).buffer()))
        .collect()
}

/// The single-file HTML report of `run` (compared with `baseline`), with the input files'
/// provenance, as the `Export` response that downloads it.
pub(crate) fn report_response<const FAMILIES: FamilySet>(
    req: crate::protocol::ReqId,
    run_id: RunId,
    name: &str,
    runs: Vec<(ReportRun, &[FileProvenance])>,
    baselines: Vec<(ReportRun, &[FileProvenance])>,
    generated_at: (String, Option<String>),
    human: Option<evalboard_report::html::HumanMarks>,
) -> Response {
    let text = crate::exports::report_in::<FAMILIES>(runs, baselines, generated_at, human);
    Response::Export {
        req,
        run_id,
        file: report_file_name(name),
        text,
    }
}

/// Posts an output file (download name, text), or why it cannot be made.
pub(crate) fn post_export(
    scope: &DedicatedWorkerGlobalScope,
    req: crate::protocol::ReqId,
    run_id: RunId,
    file: Result<(String, String), String>,
) {
    post(
        scope,
        &match file {
            Ok((file, text)) => Response::Export {
                req,
                run_id,
                file,
                text,
            },
            Err(message) => Response::Error {
                req: Some(req),
                message,
            },
        },
    );
}

/// Posts the comparison of two runs, or which of them is missing.
pub(crate) fn post_compare<const FAMILIES: FamilySet>(
    scope: &DedicatedWorkerGlobalScope,
    req: crate::protocol::ReqId,
    (baseline, candidate): (RunId, RunId),
    sides: (Option<families::Side>, Option<families::Side>),
    query: &crate::protocol::CompareQuery,
) {
    match sides {
        (Some(b), Some(c)) => post(
            scope,
            &Response::Compare {
                req,
                view: Box::new(families::compare_view_in::<FAMILIES>(&b, &c, query)),
            },
        ),
        (None, _) => no_run(scope, req, baseline),
        (_, None) => no_run(scope, req, candidate),
    }
}

/// Posts a series of runs (two or more: consecutive comparisons, metadata, charts), or which
/// run is missing; `extra` (the chosen step's failure cohorts against its baseline) goes after
/// that step's cards.
pub(crate) fn post_series<const FAMILIES: FamilySet>(
    scope: &DedicatedWorkerGlobalScope,
    req: crate::protocol::ReqId,
    sides: Result<Vec<families::Side>, RunId>,
    (step, extra): (u32, Option<crate::protocol::Block>),
    query: &crate::protocol::CompareQuery,
    dark: bool,
) {
    match sides {
        Ok(sides) if sides.len() >= 2 => {
            let mut view = families::series_view_in::<FAMILIES>(&sides, step as usize, query, dark);
            if let (Some(b), Some(s)) = (extra, view.steps.get_mut(step as usize)) {
                s.cards.push(b);
            }
            post(
                scope,
                &Response::Series {
                    req,
                    view: Box::new(view),
                },
            )
        }
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

/// `evalboard-report-<run>.html`, with the run name made safe for a file name ([`file_stem`]).
fn report_file_name(run: &str) -> String {
    format!("evalboard-report-{}.html", file_stem(run))
}

/// A run's name as a file name's stem: letters, digits, `-`, `_` and `.` kept, the rest `-`.
pub(crate) fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "-_.".contains(c) {
            true => c,
            false => '-',
        })
        .collect();
    match stem.trim_matches(['-', '.']) {
        "" => "run".into(),
        s => s.chars().take(80).collect(),
    }
}

/// Resolves in a later task of the worker's event loop (`setTimeout(0)`), so that messages
/// waiting meanwhile are handled first: a long background job yields with it.
pub(crate) async fn next_task(scope: &DedicatedWorkerGlobalScope) {
    let p = js_sys::Promise::new(&mut |resolve: js_sys::Function, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}
