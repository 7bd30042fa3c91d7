//! evalboard dashboard entry point (Leptos, client-side only). Built by Trunk for wasm32.
fn main() {}
