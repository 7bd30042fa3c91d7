//! The app shell: starts the worker, keeps the URL hash and the view state in step, accepts drops
//! anywhere on the page, and lays out the sidebar, the tabs and the open conversation.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use evalboard_engine::family::Family;

use crate::protocol::Request;
use crate::ui::client;
use crate::ui::conversation::ConversationDrawer;
use crate::ui::dropzone::{DropOverlay, EmptyState};
use crate::ui::route::{Route, Tab};
use crate::ui::sidebar::Sidebar;
use crate::ui::store::{RunStatus, Store};
use crate::ui::tabs::{RunHeader, TabBar, TabPanels};
use crate::ui::widgets::{LoadProgress, Notices};

fn current_hash() -> String {
    window().location().hash().unwrap_or_default()
}

fn set_hash(hash: &str, push: bool) {
    let url = if hash.is_empty() {
        // Keep path and query, drop the fragment.
        let loc = window().location();
        format!(
            "{}{}",
            loc.pathname().unwrap_or_default(),
            loc.search().unwrap_or_default()
        )
    } else {
        format!("#{hash}")
    };
    if let Ok(h) = window().history() {
        let _ = if push {
            h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        } else {
            h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        };
    }
}

fn prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false)
}

#[component]
pub fn App() -> impl IntoView {
    let store = Store::new();
    provide_context(store);

    // View state from the link that opened the page.
    store.route.set(Route::from_hash(&current_hash()));
    store.dark.set(prefers_dark());
    if let Ok(Some(mq)) = window().match_media("(prefers-color-scheme: dark)") {
        let cb =
            wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || store.dark.set(prefers_dark()));
        let _ = mq.add_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
        cb.forget();
    }

    if let Err(e) = client::start(move |r| store.apply(r), move |s| store.worker_stopped(s)) {
        store.notify(e, true);
    }
    let settings = store.settings.get_untracked();
    if settings != Default::default() {
        // Settings from an earlier visit change numbers: say so, never restore them silently.
        store.notify(
            "Settings restored from your last visit; each run names them, with a reset."
                .to_string(),
            false,
        );
        client::send(&Request::Configure { settings });
    }
    if !Store::demo_dismissed() {
        store.load_demo();
    }

    // Route → URL hash. Run, tab and open item make history entries; filters replace.
    let last = StoredValue::new(store.route.get_untracked());
    Effect::new(move |_| {
        let r = store.route.get();
        let hash = r.to_hash();
        if current_hash().trim_start_matches('#') != hash {
            let prev = last.get_value();
            let push = prev.run != r.run || prev.tab != r.tab || prev.item != r.item;
            set_hash(&hash, push);
        }
        last.set_value(r);
    });
    crate::ui::review::keys();
    // URL hash → route (back/forward, edited links).
    let _ = window_event_listener(leptos::ev::hashchange, move |_| {
        let r = Route::from_hash(&current_hash());
        if store.route.with_untracked(|cur| *cur != r) {
            store.route.set(r);
        }
    });
    let _ = window_event_listener(leptos::ev::popstate, move |_| {
        let r = Route::from_hash(&current_hash());
        if store.route.with_untracked(|cur| *cur != r) {
            store.route.set(r);
        }
    });

    // Overview of the current run: refetched on a new run, new settings or a theme change.
    let current_loaded = Memo::new(move |_| {
        store.current().and_then(|r| match &r.status {
            RunStatus::Loaded(i) => Some((r.id, i.family)),
            _ => None,
        })
    });
    Effect::new(move |_| {
        let id = current_loaded.get();
        let dark = store.dark.get();
        store.rescored.track();
        // The other families' views ask for their own screens.
        if let Some((run_id, Family::NumericQa)) = id {
            let req = client::next_req();
            store.overview_req.set_value(req);
            client::send(&Request::Overview { req, run_id, dark });
        }
    });

    let has_runs = move || store.runs.with(|r| !r.is_empty());
    let current_id = Memo::new(move |_| store.current().map(|r| r.id));
    let current_missing = move || {
        store
            .route
            .with(|r| r.run.clone())
            .filter(|_| current_id.with(|c| c.is_none()))
    };

    view! {
        <crate::ui::dropzone::DropTarget>
            <a class="eb-skip" href="#" on:click=move |ev| {
                ev.prevent_default();
                // The current tab, else the main area (no run yet).
                let d = document();
                let to = d.query_selector(".eb-tabs [aria-selected=\"true\"]").ok().flatten()
                    .or_else(|| d.get_element_by_id("eb-main"));
                if let Some(el) = to.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok()) {
                    let _ = el.focus();
                }
            }>"Skip to tabs"</a>
            <header class="eb-header">
                <a class="eb-header__brand" href="#" on:click=move |ev| {
                    ev.prevent_default();
                    store.route.update(|r| { r.tab = Tab::Overview; r.item = None; });
                }>
                    <span class="eb-header__logo" aria-hidden="true"></span>
                    "evalboard"
                </a>
                <span class="eb-header__tagline">"LLM evaluation runs, re-scored in your browser"</span>
                <LoadProgress/>
            </header>
            <div class="eb-layout">
                <Sidebar/>
                <main class="eb-main" id="eb-main" tabindex="-1">
                    <Show when=has_runs fallback=|| view! { <EmptyState/> }>
                        {move || match current_id.get() {
                            Some(_) => view! {
                                <RunHeader/>
                                <TabBar/>
                                <TabPanels/>
                            }.into_any(),
                            None => view! {
                                <div class="eb-empty eb-empty--small">
                                    <p>{move || match current_missing() {
                                        Some(name) => format!("The run “{name}” from this link is not loaded, nor kept in this browser. Drop its folder again, or pick a run on the left."),
                                        None => "Pick a run on the left.".to_string(),
                                    }}</p>
                                </div>
                            }.into_any(),
                        }}
                    </Show>
                </main>
            </div>
            <ConversationDrawer/>
            <crate::ui::screen::ScreenDrawer/>
            <crate::ui::compare::PairDrawer/>
            <DropOverlay/>
            <Notices/>
        </crate::ui::dropzone::DropTarget>
    }
}
