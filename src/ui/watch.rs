//! "Watch a folder…" and the watched folders (issue 30; docs/dashboard.md § Watching a folder).
//! The page asks for the folder (`showDirectoryPicker`, reached by name: a browser without it
//! gets the why and a re-drop) and sends its handle to the main worker, which reads the folder
//! as it grows and sends `Response::Live`; the page only shows those numbers.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::format::{pct, NONE};
use crate::protocol::{LiveFile, LiveStatus, RunId, WatchState};
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

/// The control and the list of watched folders, in the sidebar.
#[component]
pub fn WatchPanel() -> impl IntoView {
    let store = use_store();
    let why = RwSignal::new(false);
    view! {
        <div class="eb-watch">
            <button type="button" class="eb-btn eb-watch__pick" on:click=move |_| {
                match picker() {
                    Some(p) => pick_and_watch(store, p),
                    None => why.set(true),
                }
            }>"Watch a folder…"</button>
            <Show when=move || why.get()>
                <div class="eb-watch__why" role="note">
                    <p>
                        "This browser cannot watch a folder: it has no File System Access API "
                        "(showDirectoryPicker; Chrome, Edge and other Chromium browsers have it). "
                        "Drop or pick the folder again to see how far the run has got."
                    </p>
                    <PickButtons/>
                </div>
            </Show>
            <ul class="eb-watch__list">
                <For each=move || store.watches.with(|w| w.iter().map(|(id, _)| *id).collect::<Vec<_>>()) key=|id| *id let:id>
                    <WatchItem id=id/>
                </For>
            </ul>
        </div>
    }
}

#[component]
fn WatchItem(id: RunId) -> impl IntoView {
    let store = use_store();
    let status = move || {
        store
            .watches
            .with(|w| w.iter().find(|(i, _)| *i == id).map(|(_, s)| s.clone()))
    };
    view! {
        <li class="eb-watch__item" data-watch=id.to_string()>
            {move || status().map(|s| view! {
                <div class="eb-watch__head">
                    <span class=move || format!("eb-watch__state eb-watch__state--{}", state_word(s.state).to_lowercase())>
                        {state_word(s.state)}
                    </span>
                    " "
                    <strong class="eb-watch__name">{s.name.clone()}</strong>
                    <button type="button" class="eb-link eb-watch__remove" on:click=move |_| store.unwatch(id)>
                        "Stop"
                    </button>
                </div>
                <p class="eb-watch__pace">{pace(&s)}</p>
                <ul class="eb-watch__files">
                    {s.files.iter().map(|f| view! { <li class="eb-watch__file">{file_line(f)}</li> }).collect_view()}
                </ul>
                {s.message.clone().map(|m| view! { <p class="eb-watch__message">{m}</p> })}
            })}
        </li>
    }
}

fn state_word(s: WatchState) -> &'static str {
    match s {
        WatchState::Running => "RUNNING",
        WatchState::Stalled => "STALLED",
        WatchState::Stopped => "STOPPED",
    }
}

/// `2.5 items/s · last item 3 s ago · polling every 1 s`.
fn pace(s: &LiveStatus) -> String {
    let rate = s
        .items_per_s
        .map_or(NONE.to_string(), |r| format!("{r:.1} items/s"));
    let last = s.since_last_item_s.map_or("no item yet".to_string(), |t| {
        format!("last item {t:.0} s ago")
    });
    format!("{rate} · {last} · {}", s.how)
}

/// `run.jsonl: 12 items (of 50) · accuracy 66.7% (95% CI 39.1–86.2%)`.
fn file_line(f: &LiveFile) -> String {
    let n = &f.numbers;
    let of = n
        .declared_total
        .map(|t| format!(" (of {t})"))
        .unwrap_or_default();
    let ci = n
        .accuracy_ci95
        .map(|(lo, hi)| format!(" (95% CI {}–{})", pct(Some(lo)), pct(Some(hi))))
        .unwrap_or_default();
    let diags = if n.diagnostics > 0 {
        format!(" · {} problems", n.diagnostics)
    } else {
        String::new()
    };
    format!(
        "{}: {} items{of} · accuracy {}{ci}{diags}",
        f.path,
        n.items,
        pct(n.accuracy)
    )
}
