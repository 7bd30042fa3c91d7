//! evalboard dashboard entry point (Leptos, client-side only). Built by Trunk for wasm32.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(evalboard_app::ui::App);
    // The static shell of index.html stands until the app is on the page.
    if let Some(boot) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("eb-boot"))
    {
        boot.remove();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("evalboard-app is the browser dashboard: build it with `make serve` (trunk).");
}
