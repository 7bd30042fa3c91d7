//! The page's end of the worker connection: spawns the Web Worker, queues requests until it says
//! `Ready`, and hands every decoded response to one callback.

use std::cell::RefCell;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use crate::protocol::{self, ReqId, Request, Response};

/// The worker script Trunk writes next to index.html (`data-loader-shim`), relative so the app
/// works under any sub-path.
const WORKER_URL: &str = "./worker_loader.js";

#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    ready: bool,
    queue: Vec<JsValue>,
    next_req: ReqId,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client::default());
}

/// Starts the worker; `on_response` gets every message it sends. Returns an error message when
/// the browser refuses to start it.
pub fn start(on_response: impl Fn(Response) + 'static) -> Result<(), String> {
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
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |_e: web_sys::Event| {
        web_sys::console::warn_1(&"evalboard: the worker reported an error".into());
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    CLIENT.with(|c| c.borrow_mut().worker = Some(worker));
    Ok(())
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
    if let Some(msg) = encode(req) {
        enqueue(msg.into());
    }
}

/// Sends a `Load` request with its files: `File` objects (the worker reads them) or
/// `ArrayBuffer`s (transferred, not copied).
pub fn send_load(req: &Request, sources: Vec<JsValue>) {
    let Some(msg) = encode(req) else {
        return;
    };
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
