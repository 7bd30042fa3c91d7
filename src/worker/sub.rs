//! A worker the main worker starts on demand (the code-generation worker, `codegen_host`; the lake
//! worker, `lake_host`): started on the first drop that needs it, sent what was asked of it once
//! it says it listens (messages before are queued), its messages posted to the page unchanged
//! but the few that are for the main worker; when it stops (or cannot start), ended, its host
//! told, and started again by the next drop that needs it.

use std::cell::RefCell;
use std::thread::LocalKey;

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

use crate::worker::runtime::relay;

/// A started worker and what waits for it.
#[derive(Default)]
pub struct Sub {
    worker: Option<Worker>,
    ready: bool,
    /// Messages (and their transfer lists) waiting for the worker's ready message.
    queue: Vec<(JsValue, Option<Array>)>,
}

/// One kind of worker the main worker starts.
pub struct Spec {
    /// Its loader (Trunk's `data-loader-shim`), next to the main worker's.
    pub url: &'static str,
    /// What it posts once it listens (not a page message).
    pub ready: &'static str,
    /// How messages name it (`the lake worker`).
    pub what: &'static str,
    pub state: &'static LocalKey<RefCell<Sub>>,
}

/// What the host does with one of the worker's messages (the main worker's scope, the data);
/// `true`: it was for the main worker (not posted to the page).
pub type OnData = fn(&DedicatedWorkerGlobalScope, &JsValue) -> bool;

/// What the host does when the worker stopped: the page's scope, whether it had said it listens
/// (`false`: it never started), and why.
pub type OnStop = fn(&DedicatedWorkerGlobalScope, bool, String);

impl Spec {
    /// Whether it is started.
    pub fn started(&'static self) -> bool {
        self.state.with(|s| s.borrow().worker.is_some())
    }

    fn send(&'static self, w: &Worker, msg: &JsValue, transfer: Option<&Array>) {
        let res = match transfer {
            Some(t) => w.post_message_with_transfer(msg, t),
            None => w.post_message(msg),
        };
        if let Err(e) = res {
            web_sys::console::warn_1(
                &format!("evalboard: cannot post to {}: {e:?}", self.what).into(),
            );
        }
    }

    fn flush(&'static self) {
        self.state.with(|s| {
            let mut s = s.borrow_mut();
            s.ready = true;
            let queue = std::mem::take(&mut s.queue);
            if let Some(w) = &s.worker {
                for (msg, transfer) in queue {
                    self.send(w, &msg, transfer.as_ref());
                }
            }
        });
    }

    /// Sends `msg` (with its transfer list) now, or once the worker listens.
    pub fn forward(&'static self, msg: &JsValue, transfer: Option<Array>) {
        self.state.with(|s| {
            let mut s = s.borrow_mut();
            match (&s.worker, s.ready) {
                (Some(w), true) => self.send(w, msg, transfer.as_ref()),
                _ => s.queue.push((msg.clone(), transfer)),
            }
        });
    }

    /// Starts the worker when it is not; `first`: the messages it gets before any other (only
    /// when it starts now). Its messages go to the page as they are but its ready message and
    /// those `on_data` takes.
    pub fn ensure_started(
        &'static self,
        scope: &DedicatedWorkerGlobalScope,
        first: impl FnOnce() -> Vec<JsValue>,
        (on_data, on_stop): (OnData, OnStop),
    ) -> Result<(), String> {
        if self.started() {
            return Ok(());
        }
        let w = Worker::new(self.url).map_err(|e| format!("cannot start {}: {e:?}", self.what))?;
        let page = scope.clone();
        let cb = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            match data.as_string() {
                Some(t) if t == self.ready => self.flush(),
                _ if on_data(&page, &data) => {}
                _ => relay(&page, &data),
            }
        });
        w.set_onmessage(Some(cb.as_ref().unchecked_ref()));
        cb.forget();
        // It could not start, or it stopped (a panic or a stack overflow ends its script): it
        // is ended and its host told. Nothing waits for ever.
        let page = scope.clone();
        let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            let message = crate::js_error::worker_error(&e, "its script could not run");
            let (worker, ready) = self.state.with(|s| {
                let mut s = s.borrow_mut();
                s.queue.clear();
                (s.worker.take(), std::mem::replace(&mut s.ready, false))
            });
            if let Some(w) = worker {
                w.terminate();
            }
            on_stop(&page, ready, message);
        });
        w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
        let first: Vec<_> = first().into_iter().map(|m| (m, None)).collect();
        self.state.with(|s| {
            let mut s = s.borrow_mut();
            s.queue.splice(0..0, first);
            s.worker = Some(w);
        });
        Ok(())
    }
}
