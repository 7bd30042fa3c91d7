//! Getting runs in: the page-wide drop target (dragenter/dragleave counted so the hover state does
//! not flicker over child elements), the overlay shown while dragging, the "Pick folder" and
//! "Pick files" buttons (inputs cleared after use so the same folder can be picked again), and
//! the empty state.

use leptos::html;
use leptos::prelude::*;
use web_sys::{DragEvent, HtmlInputElement};

use crate::ui::picked_files;
use crate::ui::store::use_store;

fn has_files(ev: &DragEvent) -> bool {
    ev.data_transfer()
        .map(|dt| {
            let types = dt.types();
            (0..types.length()).any(|i| types.get(i).as_string().as_deref() == Some("Files"))
        })
        .unwrap_or(false)
}

/// Wraps the whole app: any drop of files or folders anywhere loads them.
#[component]
pub fn DropTarget(children: Children) -> impl IntoView {
    let store = use_store();
    let depth = StoredValue::new(0i32);
    view! {
        <div
            class="eb-app"
            class:eb-app--dragging=move || store.dragging.get()
            on:dragenter=move |ev: DragEvent| {
                if !has_files(&ev) { return; }
                ev.prevent_default();
                depth.update_value(|d| *d += 1);
                store.dragging.set(true);
            }
            on:dragover=move |ev: DragEvent| {
                if !has_files(&ev) { return; }
                ev.prevent_default();
                if let Some(dt) = ev.data_transfer() { dt.set_drop_effect("copy"); }
            }
            on:dragleave=move |ev: DragEvent| {
                if !has_files(&ev) { return; }
                depth.update_value(|d| *d = (*d - 1).max(0));
                if depth.get_value() == 0 { store.dragging.set(false); }
            }
            on:drop=move |ev: DragEvent| {
                ev.prevent_default();
                depth.set_value(0);
                store.dragging.set(false);
                let Some(dt) = ev.data_transfer() else { return };
                // Entries must be taken now: the DataTransfer is emptied after this handler.
                crate::ui::dropped::take_dropped(store, &dt);
                let items = picked_files::drop_items(&dt);
                if items.is_empty() { return; }
                leptos::task::spawn_local(async move {
                    let (files, problems) = picked_files::collect(items).await;
                    store.load_files(files, problems);
                });
            }
        >
            {children()}
        </div>
    }
}

#[component]
pub fn DropOverlay() -> impl IntoView {
    let store = use_store();
    view! {
        <Show when=move || store.dragging.get()>
            <div class="eb-drop-overlay" aria-hidden="true">
                <div class="eb-drop-overlay__box">
                    <div class="eb-drop-overlay__title">"Drop run folders to load them"</div>
                    <div class="eb-drop-overlay__hint">"Each folder becomes a run; loose files become one run."</div>
                </div>
            </div>
        </Show>
    }
}

/// "Pick folder" and "Pick files": real file inputs, present from the first render.
#[component]
pub fn PickButtons(#[prop(optional)] large: bool) -> impl IntoView {
    let store = use_store();
    let folder_ref = NodeRef::<html::Input>::new();
    let files_ref = NodeRef::<html::Input>::new();
    let on_change = move |input: HtmlInputElement| {
        let files = picked_files::input_files(&input);
        // Clear so picking the same folder again fires `change` again.
        input.set_value("");
        store.load_files(files, Vec::new());
    };
    let btn = if large {
        "eb-btn eb-btn--primary eb-btn--large"
    } else {
        "eb-btn eb-btn--primary"
    };
    let btn2 = if large {
        "eb-btn eb-btn--large"
    } else {
        "eb-btn"
    };
    view! {
        <div class="eb-pick">
            <input
                type="file"
                class="eb-visually-hidden eb-pick__folder"
                multiple
                prop:webkitdirectory=true
                tabindex="-1"
                aria-hidden="true"
                node_ref=folder_ref
                on:change=move |ev| on_change(event_target::<HtmlInputElement>(&ev))
            />
            <input
                type="file"
                class="eb-visually-hidden eb-pick__files"
                multiple
                accept=".json,.jsonl,.ndjson,.csv,.eval"
                tabindex="-1"
                aria-hidden="true"
                node_ref=files_ref
                on:change=move |ev| on_change(event_target::<HtmlInputElement>(&ev))
            />
            <button type="button" class=btn on:click=move |_| {
                if let Some(i) = folder_ref.get() { i.click(); }
            }>"Pick folder"</button>
            <button type="button" class=btn2 on:click=move |_| {
                if let Some(i) = files_ref.get() { i.click(); }
            }>"Pick files"</button>
        </div>
    }
}

/// What the main area shows with no runs at all.
#[component]
pub fn EmptyState() -> impl IntoView {
    let store = use_store();
    view! {
        <section class="eb-empty" aria-labelledby="eb-empty-title">
            <div class="eb-empty__icon" aria-hidden="true"></div>
            <h1 id="eb-empty-title" class="eb-empty__title">"Drop evaluation run folders here"</h1>
            <p class="eb-empty__text">
                "Drop what an evaluation wrote: numeric-QA agent runs (traces/*.json, a "
                "results.json or a JSONL of turns), pandas code-generation chats, answer-"
                "correctness eval sets, or the logs of Inspect AI (.eval, .json), "
                "lm-evaluation-harness (results and samples files), promptfoo (.json, .jsonl), "
                "OpenAI Evals (record .jsonl) and HELM (a run folder). Drop several to compare "
                "them; every file is read in your browser and nothing is uploaded."
            </p>
            <PickButtons large=true/>
            <p class="eb-empty__demo">
                <button type="button" class="eb-link" on:click=move |_| store.load_demo()>
                    "Load the demo workspace"
                </button>
            </p>
        </section>
    }
}
