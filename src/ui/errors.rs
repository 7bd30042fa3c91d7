//! Errors: counts by error type (each linking to the Items view filtered to it), and error rates
//! by dataset feature, laid out by the worker (`qa_screens::errors`) and rendered here as screen
//! blocks; a link's click filters the Items tab.

use leptos::prelude::*;

use crate::ui::store::use_store;

#[component]
pub fn ErrorsView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    // A link (`qa_screens::items_link`: a filter's name, U+001F, its value) opens the Items tab
    // filtered; a failure cohort's "Show items" opens it with the cohort's query.
    let open = move |ev: web_sys::MouseEvent| {
        let Some(o) = crate::ui::screen::opened(&ev) else {
            return;
        };
        if !crate::ui::query::open_query(&o) {
            if let Some((name, value)) = o.split_once('\u{1f}') {
                store.show_items(name, value);
            }
        }
    };
    move || match data.get() {
        Some(d) => view! {
            <div class="eb-errors" on:click=open>{crate::ui::screen::blocks(d.errors)}</div>
        }
        .into_any(),
        None => view! { <div class="eb-state eb-state--quiet">"Computing…"</div> }.into_any(),
    }
}
