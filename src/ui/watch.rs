//! "Watch a folder…" and the watched folders (issue 30; docs/dashboard.md § Watching a folder).
//! The page asks for the folder (`showDirectoryPicker`, reached by name: a browser without it
//! gets the why and a re-drop) and sends its handle to the main worker, which reads the folder
//! as it grows and sends `Response::Live`. The page renders the blocks the worker laid out
//! (`ui::screen::blocks`): no view or number formatting of its own (a watch panel of its own
//! cost the page 15 KB gzip).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::dropzone::PickButtons;
use crate::ui::store::{storage_get, storage_set, use_store, STALL_KEY};

/// Watches the dropped folder `i` (its offer goes).
fn watch_dropped(store: crate::ui::store::Store, i: usize) {
    let Some(h) = crate::ui::dropped::take_handle(i) else {
        return;
    };
    let mut name = String::new();
    store.dropped_dirs.update(|d| {
        if i < d.len() {
            name = d.remove(i);
        }
    });
    store.watch(name, h, None);
}

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
    let stall = storage_get(STALL_KEY).unwrap_or_else(|| "300".into());
    let set_stall = move |e: leptos::ev::Event| {
        let v = event_target_value(&e);
        if let Ok(seconds) = v.trim().parse::<u32>() {
            storage_set(STALL_KEY, Some(&seconds.to_string()));
            crate::ui::client::send(&crate::protocol::Request::WatchStall { seconds });
        }
    };
    let pick = move |_| match picker() {
        Some(p) => pick_and_watch(store, p),
        None => why.set(true),
    };
    view! {
        <div class="eb-watch">
            <button type="button" class="eb-btn eb-watch__pick" on:click=pick>"Watch a folder…"</button>
            <label class="eb-watch__stall">
                "Stalled after "
                <input type="number" min="1" name="stall" prop:value=stall on:change=set_stall/>
                " s with no new item"
            </label>
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
            {move || store.dropped_dirs.get().into_iter().enumerate().map(|(i, name)| view! {
                <button type="button" class="eb-btn eb-watch__dropped" on:click=move |_| watch_dropped(store, i)>
                    {format!("Watch “{name}” as it grows")}
                </button>
            }).collect_view()}
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
