//! Errors: counts by error type (each linking to the Items view filtered to it), and error rates
//! by dataset feature, laid out by the worker (`qa_screens::errors`) and rendered here as screen
//! blocks; a link's click filters the Items tab.

use leptos::prelude::*;

use crate::ui::store::use_store;

#[component]
pub fn ErrorsView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    // A link (`qa_screens::items_link`: field, U+001F, value) opens the Items tab filtered.
    let open = move |ev: web_sys::MouseEvent| {
        let Some(o) = crate::ui::screen::opened(&ev) else {
            return;
        };
        match o.split_once('\u{1f}') {
            Some(("verdict", v)) => {
                let v = v.to_string();
                store.show_items(|f| f.verdict = Some(v))
            }
            Some((_, t)) => {
                let t = t.to_string();
                store.show_items(|f| f.error_type = Some(t))
            }
            None => {}
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
