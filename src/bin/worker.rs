//! Web Worker entry point: the engine runs here, off the page's main thread.
#[cfg(target_arch = "wasm32")]
fn main() {
    evalboard_app::worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the worker runs in the browser; build with `make serve`");
}
