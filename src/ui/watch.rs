//! "Watch a folder…" and the watched folders (issue 30; docs/dashboard.md § Watching a folder).
//! The page asks for the folder (`showDirectoryPicker`, reached by name: a browser without it
//! gets the why and a re-drop) and sends its handle to the main worker, which reads the folder
//! as it grows and sends `Response::Live`. The page renders the blocks the worker laid out
//! (`ui::screen::blocks`): no view or number formatting of its own (a watch panel of its own
//! cost the page 15 KB gzip).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::dropzone::PickButtons;
use crate::ui::store::use_store;

/// The browser's `showDirectoryPicker`, when it has one.
fn picker() -> Option<js_sys::Function> {
    let w = web_sys::window()?;
    js_sys::Reflect::get(&w, &"showDirectoryPicker".into())
        .ok()?
        .dyn_into()
        .ok()
}

/// Asks for a folder and watches it (the picker needs this click's user activation).
fn pick_and_watch(store: crate::ui::store::Store, picker: js_sys::Function) {
    let Some(w) = web_sys::window() else { return };
    let Ok(promise) = picker.call0(&w) else {
        return;
    };
    let promise = js_sys::Promise::resolve(&promise);
    leptos::task::spawn_local(async move {
        // A cancelled picker rejects: nothing to do.
        if let Ok(dir) = wasm_bindgen_futures::JsFuture::from(promise).await {
            let name = js_sys::Reflect::get(&dir, &"name".into())
                .ok()
                .and_then(|n| n.as_string())
                .unwrap_or_else(|| "folder".into());
            store.watch(name, dir, None);
        }
    });
}

/// The control and the watched folders, in the sidebar.
#[component]
pub fn WatchPanel() -> impl IntoView {
    let store = use_store();
    let why = RwSignal::new(false);
    let pick = move |_| match picker() {
        Some(p) => pick_and_watch(store, p),
        None => why.set(true),
    };
    view! {
        <div class="eb-watch">
            <button type="button" class="eb-btn eb-watch__pick" on:click=pick>"Watch a folder…"</button>
            {move || why.get().then(|| view! {
                <div class="eb-watch__why" role="note">
                    <p>
                        "This browser cannot watch a folder: it has no File System Access API "
                        "(showDirectoryPicker; Chrome, Edge and other Chromium browsers have it). "
                        "Drop or pick the folder again to see how far the run has got."
                    </p>
                    <PickButtons/>
                </div>
            })}
            <ul class="eb-watch__list">
                {move || store.watches.get().into_iter().map(|(id, s)| view! {
                    <li class="eb-watch__item">
                        <strong>{s.name}</strong>
                        <button type="button" class="eb-link eb-watch__remove" on:click=move |_| store.unwatch(id)>
                            "Stop"
                        </button>
                        {crate::ui::screen::blocks(s.blocks)}
                    </li>
                }).collect_view()}
            </ul>
        </div>
    }
}
