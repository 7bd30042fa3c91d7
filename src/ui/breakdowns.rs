//! Breakdowns: every `by_*` map of the statistics as a table (feature flags, conversation type,
//! model), each group with its conversations, turns and rates, laid out by the worker
//! (`qa_screens::breakdowns`) and rendered here as screen blocks.

use leptos::prelude::*;

use crate::ui::store::use_store;

#[component]
pub fn BreakdownsView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    move || match data.get() {
        Some(d) => {
            view! { <div class="eb-breakdowns">{crate::ui::screen::blocks(d.breakdowns)}</div> }
                .into_any()
        }
        None => view! { <div class="eb-state eb-state--quiet">"Computing…"</div> }.into_any(),
    }
}
