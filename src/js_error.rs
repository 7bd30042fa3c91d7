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
