//! Complexity: accuracy and average operations by turn number, accuracy by operations per turn,
//! logic recall by turn, with the complexity charts, laid out by the worker
//! (`qa_screens::complexity`) and rendered here as screen blocks.

use leptos::prelude::*;

use crate::ui::store::use_store;

#[component]
pub fn ComplexityView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    move || match data.get() {
        Some(d) => {
            view! { <div class="eb-complexity">{crate::ui::screen::blocks(d.complexity)}</div> }
                .into_any()
        }
        None => view! { <div class="eb-state eb-state--quiet">"Computing…"</div> }.into_any(),
    }
}
