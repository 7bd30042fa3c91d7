//! Text work the page hands to the browser's built-ins instead of linking Rust's code and tables
//! for it: number parsing (`parseFloat`, after a Rust grammar check) and Unicode lowercase
//! (`toLowerCase`). Each one kept 13–21 KB gzip of tables out of the page's wasm
//! (docs/dashboard.md § Size); tests/web.rs checks both give what the Rust functions give. On the
//! page, prefer these to `str::parse::<f64>` and `str::to_lowercase`/`to_uppercase`.

/// A number typed by the user, read as `f64::from_str` would (a finite-looking decimal; `None`
/// otherwise, including `inf` and `nan`) but parsed by the browser.
pub fn parse_number(s: &str) -> Option<f64> {
    crate::format::is_decimal(s).then(|| js_sys::Number::parse_float(s))
}

/// A number as the browser writes it (`String(x)`: the shortest text that reads back as `x`,
/// as `{x}` would in Rust), so the page links no float printing of its own.
pub fn number_text(x: f64) -> String {
    js_sys::Number::from(x)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// Unicode lowercase by the browser (`String.prototype.toLowerCase`: the same default case
/// mapping as `str::to_lowercase`).
pub fn lower(s: &str) -> String {
    js_sys::JsString::from(s).to_lower_case().into()
}
