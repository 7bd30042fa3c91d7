//! The code-generation Web Worker binary (Trunk builds it as a worker; the main worker starts it
//! on the first code-generation drop).

#[cfg(target_arch = "wasm32")]
fn main() {
    evalboard_app::codegen_worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
