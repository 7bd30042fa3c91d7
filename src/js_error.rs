//! A JavaScript error value as text for the user (the page's and the workers' browser calls).

use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// The error's text: the value itself when it is a string, else its `message`.
pub fn js_err(e: JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    Reflect::get(&e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// What an `error` event on a `Worker` says: the uncaught error's message (a wasm trap, a stack
/// overflow), or `fallback` when it carries none (the worker's script could not load).
pub fn worker_error(e: &web_sys::Event, fallback: &str) -> String {
    use wasm_bindgen::JsCast;
    e.dyn_ref::<web_sys::ErrorEvent>()
        .map(|e| e.message())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| fallback.into())
}
