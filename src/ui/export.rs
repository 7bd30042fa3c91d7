//! Export: the current run's output files under the current settings, the same bytes as the
//! CLI's `score --out` (the worker writes them; the page only downloads).

use leptos::prelude::*;

use crate::ui::app::use_store;

const FILES: &[(&str, &str)] = &[
    (
        "statistics.json",
        "Every aggregate, breakdown and the input-file accounting.",
    ),
    ("summary.csv", "One row per conversation."),
    ("turns.csv", "One row per turn with every verdict."),
    ("errors.csv", "One row per failed turn, with its context."),
    (
        "validation.csv",
        "The validator's logs, when the run recorded them.",
    ),
];

#[component]
pub fn ExportView() -> impl IntoView {
    let store = use_store();
    let run_id = Memo::new(move |_| store.current().map(|r| r.id));
    let settings = move || {
        store.config.with(|c| {
            format!(
                "profile {} · rel {} · abs {} · {} priced model(s)",
                c.profile.name(),
                c.tolerances.rel,
                c.tolerances.abs,
                c.prices.models.len()
            )
        })
    };
    view! {
        <div class="eb-export">
            <p class="eb-section__hint">
                "Files are written by the same engine as the command line ("<code>"evalboard score DIR --out OUT"</code>
                ") under the current settings: " <span class="eb-mono">{settings}</span>"."
            </p>
            <ul class="eb-export__list">
                {FILES.iter().map(|(file, what)| view! {
                    <li class="eb-export__item">
                        <button type="button" class="eb-btn" data-export=*file
                            on:click=move |_| if let Some(id) = run_id.get_untracked() { store.export(id, file) }>
                            <span class="eb-export__icon" aria-hidden="true">"⤓"</span>
                            {*file}
                        </button>
                        <span class="eb-muted">{*what}</span>
                    </li>
                }).collect_view()}
            </ul>
        </div>
    }
}
