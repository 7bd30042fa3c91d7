//! The page's end of the worker connection: spawns the Web Worker, queues requests until it says
//! `Ready`, and hands every decoded response to one callback.

use std::cell::RefCell;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use crate::protocol::{self, ReqId, Request, Response, RunId};

/// The worker script Trunk writes next to index.html (`data-loader-shim`), relative so the app
/// works under any sub-path.
const WORKER_URL: &str = "./worker_loader.js";

/// A `Load` as sent, kept so that the run can be loaded again into a restarted worker: the
/// encoded request and its sources. `File`s are handles (posting one again reads the file
/// again); an `ArrayBuffer` (the demo's fetched assets) is transferred when posted, so a copy
/// is kept and a fresh copy of it is sent each time.
struct Sent {
    run_id: RunId,
    msg: Uint8Array,
    sources: Vec<JsValue>,
}

/// What the page hears when the worker stops: the browser's message, and whether the worker
/// had ever said `Ready` (one that never started is not restarted: it would fail again).
pub struct Stopped {
    pub message: String,
    pub was_ready: bool,
}

type OnResponse = std::rc::Rc<dyn Fn(Response)>;
type OnStopped = std::rc::Rc<dyn Fn(Stopped)>;

#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    ready: bool,
    queue: Vec<JsValue>,
    next_req: ReqId,
    /// Every run's `Load`, in the order sent, until the run is removed.
    loads: Vec<Sent>,
    /// The latest `Configure`, sent first to a restarted worker.
    config: Option<Uint8Array>,
    handlers: Option<(OnResponse, OnStopped)>,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client::default());
}

/// Starts the worker; `on_response` gets every message it sends, `on_stopped` hears when it
/// stops (a crash in the engine: a wasm trap or a stack overflow ends the worker's script).
/// Returns an error message when the browser refuses to start it.
pub fn start(
    on_response: impl Fn(Response) + 'static,
    on_stopped: impl Fn(Stopped) + 'static,
) -> Result<(), String> {
    CLIENT.with(|c| {
        c.borrow_mut().handlers =
            Some((std::rc::Rc::new(on_response), std::rc::Rc::new(on_stopped)))
    });
    spawn()
}

/// Starts a worker with the page's handlers (messages are queued until it says `Ready`).
fn spawn() -> Result<(), String> {
    let Some((on_response, on_stopped)) = CLIENT.with(|c| c.borrow().handlers.clone()) else {
        return Err("the worker's handlers are not set".into());
    };
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the worker: {e:?}"))?;
    let cb = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
        let Ok(bytes) = e.data().dyn_into::<Uint8Array>() else {
            return;
        };
        match protocol::decode::<Response>(&bytes.to_vec()) {
            Ok(Response::Ready) => {
                flush();
                on_response(Response::Ready);
            }
            Ok(r) => on_response(r),
            Err(err) => on_response(Response::Error {
                req: None,
                message: format!("unreadable message from the worker: {err}"),
            }),
        }
    });
    worker.set_onmessage(Some(cb.as_ref().unchecked_ref()));
    cb.forget();
    // An error that reaches the page is one nothing in the worker caught: a panic (a wasm
    // trap), a stack overflow, memory the browser would not give. The worker's state cannot be
    // trusted after it, so it is ended here and the page decides what to load again.
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        let message = crate::js_error::worker_error(&e, "the worker's script could not run");
        web_sys::console::warn_1(&format!("evalboard: the worker stopped: {message}").into());
        let was_ready = CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            if let Some(w) = c.worker.take() {
                w.terminate();
            }
            c.queue.clear();
            std::mem::replace(&mut c.ready, false)
        });
        on_stopped(Stopped { message, was_ready });
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    CLIENT.with(|c| c.borrow_mut().worker = Some(worker));
    Ok(())
}

/// Starts a new worker after one stopped, the latest settings first; the page then sends the
/// runs to load again ([`send_again`]), one at a time.
pub fn restart() -> Result<(), String> {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(w) = c.worker.take() {
            w.terminate();
        }
        c.ready = false;
        c.queue = c.config.iter().map(|m| m.clone().into()).collect();
    });
    spawn()
}

/// Sends the kept `Load` of each run in `runs` again (queued until the worker is ready): into a
/// restarted worker, or to the running one for a run whose code-generation worker stopped (the
/// main worker starts a new one for it).
pub fn send_again(runs: &[RunId]) {
    let msgs: Vec<JsValue> = CLIENT.with(|c| {
        c.borrow()
            .loads
            .iter()
            .filter(|s| runs.contains(&s.run_id))
            .map(load_message)
            .collect()
    });
    for m in msgs {
        enqueue(m);
    }
}

/// Whether a run's `Load` is kept, so that a restarted worker can load it again.
pub fn can_reload(run_id: RunId) -> bool {
    CLIENT.with(|c| c.borrow().loads.iter().any(|s| s.run_id == run_id))
}

/// A kept `Load` as a message to post: [request, [sources]] with fresh copies of its buffers.
fn load_message(s: &Sent) -> JsValue {
    let sources: Array = s.sources.iter().map(copy_of_buffer).collect();
    Array::of2(&s.msg, &sources).into()
}

/// An `ArrayBuffer` copied (the copy is transferred, the kept one stays); anything else as it is.
fn copy_of_buffer(v: &JsValue) -> JsValue {
    match v.dyn_ref::<ArrayBuffer>() {
        Some(b) => b.slice(0).into(),
        None => v.clone(),
    }
}

fn flush() {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.ready = true;
        let queue = std::mem::take(&mut c.queue);
        if let Some(w) = &c.worker {
            for msg in queue {
                post_raw(w, &msg);
            }
        }
    });
}

fn post_raw(w: &Worker, msg: &JsValue) {
    // A Load message is [bytes, [sources]]: its ArrayBuffers are transferred, not copied; its
    // Files are handles (structured clone copies no bytes), read by the worker.
    let res = if Array::is_array(msg) {
        let arr: &Array = msg.unchecked_ref();
        let sources: Array = arr.get(1).unchecked_into();
        let transfer: Array = sources
            .iter()
            .filter(|s| s.is_instance_of::<ArrayBuffer>())
            .collect();
        w.post_message_with_transfer(msg, &transfer)
    } else {
        w.post_message(msg)
    };
    if let Err(e) = res {
        web_sys::console::warn_1(&format!("evalboard: cannot post to the worker: {e:?}").into());
    }
}

fn enqueue(msg: JsValue) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.ready {
            if let Some(w) = &c.worker {
                post_raw(w, &msg);
            }
        } else {
            c.queue.push(msg);
        }
    });
}

/// A fresh request id.
pub fn next_req() -> ReqId {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.next_req += 1;
        c.next_req
    })
}

/// Sends a request (queued until the worker is ready).
pub fn send(req: &Request) {
    let Some(msg) = encode(req) else {
        return;
    };
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        match req {
            Request::Configure { .. } => c.config = Some(msg.clone()),
            Request::Remove { run_id } => c.loads.retain(|s| s.run_id != *run_id),
            _ => {}
        }
    });
    enqueue(msg.into());
}

/// Sends a `Load` request with its files: `File` objects (the worker reads them) or
/// `ArrayBuffer`s (transferred, not copied; a copy is kept to load the run again into a
/// restarted worker).
pub fn send_load(req: &Request, sources: Vec<JsValue>) {
    let kept = sources.iter().map(copy_of_buffer).collect();
    send_load_keeping(req, sources, kept);
}

/// [`send_load`], keeping `kept` (the same files' `File`s, where `sources` holds their bytes
/// read on the page) to load the run again into a restarted worker.
pub fn send_load_keeping(req: &Request, sources: Vec<JsValue>, kept: Vec<JsValue>) {
    let Some(msg) = encode(req) else {
        return;
    };
    if let Request::Load { run_id, .. } = req {
        let sent = Sent {
            run_id: *run_id,
            msg: msg.clone(),
            sources: kept,
        };
        CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            c.loads.retain(|s| s.run_id != sent.run_id);
            c.loads.push(sent);
        });
    }
    // No worker (it stopped and could not be started again): the run fails now rather than
    // wait for ever.
    let stopped = CLIENT.with(|c| {
        let c = c.borrow();
        c.worker.is_none().then(|| c.handlers.clone()).flatten()
    });
    if let (Some((on_response, _)), Request::Load { run_id, name, .. }) = (stopped, req) {
        on_response(Response::LoadFailed {
            run_id: *run_id,
            name: name.clone(),
            error: "The dashboard's worker is not running (it could not start). Reload the page."
                .into(),
            files: Vec::new(),
            diagnostics: Vec::new(),
            part_of: None,
        });
        return;
    }
    let list: Array = sources.into_iter().collect();
    enqueue(Array::of2(&msg, &list).into());
}

fn encode(req: &Request) -> Option<Uint8Array> {
    match protocol::encode(req) {
        Ok(bytes) => Some(Uint8Array::from(bytes.as_slice())),
        Err(e) => {
            web_sys::console::warn_1(&format!("evalboard: cannot encode request: {e}").into());
            None
        }
    }
}
