//! evalboard dashboard entry point (Leptos, client-side only). Built by Trunk for wasm32.

#[cfg(target_arch = "wasm32")]
fn main() {
    // A panic's message and place on the console (the release build aborts after it): the
    // page's own hook, lighter than console_error_panic_hook (no JS stack trace).
    std::panic::set_hook(Box::new(|info| {
        let p = info.payload();
        let msg = p
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| p.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("panic");
        let (file, line) = info.location().map_or(("?", 0), |l| (l.file(), l.line()));
        web_sys::console::error_4(
            &"evalboard panicked:".into(),
            &msg.into(),
            &file.into(),
            &line.into(),
        );
    }));
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
