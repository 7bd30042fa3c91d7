//! The run list: select, rename (double-click or the pencil), remove; demo runs are labelled and
//! removable in one click; loading runs show their progress.

use leptos::html;
use leptos::prelude::*;

use evalboard_engine::family::Family;
use web_sys::KeyboardEvent;

use crate::format;
use crate::protocol::RunId;
use crate::ui::dropzone::PickButtons;
use crate::ui::store::{use_store, RunEntry, RunStatus};
use crate::ui::widgets::ProgressBar;

#[component]
pub fn Sidebar() -> impl IntoView {
    let store = use_store();
    let ids = move || {
        store
            .runs
            .with(|rs| rs.iter().map(|r| r.id).collect::<Vec<_>>())
    };
    let has_demo = move || store.runs.with(|rs| rs.iter().any(|r| r.demo));
    view! {
        <aside class="eb-sidebar" aria-label="Runs">
            <div class="eb-sidebar__head">
                <h2 class="eb-sidebar__title">"Runs"</h2>
                <span class="eb-sidebar__count">{move || store.runs.with(|r| r.len())}</span>
            </div>
            <Show when=has_demo>
                <div class="eb-demo-note" role="note">
                    <span class="eb-demo-note__text">
                        "Runs marked " <span class="eb-badge eb-badge--demo">"demo"</span> " are examples to explore."
                    </span>
                    <button type="button" class="eb-btn eb-btn--small eb-demo-note__remove" on:click=move |_| store.remove_demo()>
                        "Remove demo"
                    </button>
                </div>
            </Show>
            <Show when=move || store.runs.with(|r| r.is_empty())>
                <p class="eb-sidebar__none">"No runs loaded."</p>
            </Show>
            <ul class="eb-runlist">
                <For each=ids key=|id| *id let:id>
                    <RunItem id=id/>
                </For>
            </ul>
            <div class="eb-sidebar__drop">
                <p class="eb-sidebar__hint">"Drop run folders anywhere, or"</p>
                <PickButtons/>
            </div>
        </aside>
    }
}

#[component]
fn RunItem(id: RunId) -> impl IntoView {
    let store = use_store();
    let run = Memo::new(move |_| {
        store
            .runs
            .with(|rs| rs.iter().find(|r| r.id == id).cloned())
    });
    let name = move || run.with(|r| r.as_ref().map(|r| r.name.clone()).unwrap_or_default());
    let is_current = move || store.route.with(|r| r.run.clone()) == Some(name());
    let editing = RwSignal::new(false);
    let input_ref = NodeRef::<html::Input>::new();
    let commit = move || {
        if let Some(i) = input_ref.get_untracked() {
            let v = i.value();
            if !v.trim().is_empty() {
                store.rename(id, &v);
            }
        }
        editing.set(false);
    };
    Effect::new(move |_| {
        if editing.get() {
            if let Some(i) = input_ref.get() {
                let _ = i.focus();
                i.select();
            }
        }
    });
    let status = move || -> AnyView {
        let Some(r) = run.get() else {
            return ().into_any();
        };
        status_view(&r)
    };
    view! {
        <li class="eb-run" class:eb-run--current=is_current>
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <button
                        type="button"
                        class="eb-run__select"
                        aria-current=move || if is_current() { "true" } else { "false" }
                        title="Open this run (double-click to rename)"
                        on:click=move |_| store.select(&name())
                        on:dblclick=move |_| editing.set(true)
                    >
                        <span class="eb-run__name">{name}</span>
                        <Show when=move || run.with(|r| r.as_ref().is_some_and(|r| r.demo))>
                            <span class="eb-badge eb-badge--demo">"demo"</span>
                        </Show>
                    </button>
                }
            >
                <input
                    class="eb-input eb-run__rename"
                    aria-label="New run name"
                    prop:value=name
                    node_ref=input_ref
                    on:keydown=move |ev: KeyboardEvent| match ev.key().as_str() {
                        "Enter" => commit(),
                        "Escape" => editing.set(false),
                        _ => {}
                    }
                    on:blur=move |_| commit()
                />
            </Show>
            <div class="eb-run__meta">{status}</div>
            <div class="eb-run__actions">
                <button type="button" class="eb-icon-btn" title="Rename" aria-label=move || format!("Rename {}", name())
                    on:click=move |_| editing.set(true)>"✎"</button>
                <button type="button" class="eb-icon-btn eb-icon-btn--danger" title="Remove" aria-label=move || format!("Remove {}", name())
                    on:click=move |_| store.remove(id)>"×"</button>
            </div>
        </li>
    }
}

/// The run's family and its items (`eval set · 12 items`), the last of its size's units.
fn counts(info: &crate::protocol::RunInfo) -> String {
    // Searched forwards: a reverse search (`rfind`, `rsplit`, `next_back`) links 4 KB gzip
    // more into the page, for a string of a few words.
    #[allow(clippy::double_ended_iterator_last)]
    let items = info
        .size
        .split(',')
        .map(str::trim)
        .last()
        .unwrap_or_default();
    format!("{} · {}", info.family.label(), format::group_numbers(items))
}

fn status_view(r: &RunEntry) -> AnyView {
    match &r.status {
        RunStatus::Loaded(info) => view! {
            {if matches!(info.family, Family::Codegen | Family::EvalLog) {
                view! { <span class="eb-run__acc" title="The run's headline score under the current settings">{format::dec(info.headline, 3)}</span> }.into_any()
            } else {
                view! { <span class="eb-run__acc" title="Numerical accuracy under the current settings">{format::pct(info.headline)}</span> }.into_any()
            }}
            <span class="eb-run__counts">
                {counts(info)}
            </span>
            {(!info.diagnostics.is_empty() || !r.read_problems.is_empty()).then(|| view! {
                <span class="eb-run__warn" title="This run has load diagnostics: see Load report">
                    {format!("⚠ {}", info.diagnostics.len() + r.read_problems.len())}
                </span>
            })}
        }
        .into_any(),
        RunStatus::Failed { error, .. } => view! { <span class="eb-run__failed" title=error.clone()>"could not be loaded"</span> }.into_any(),
        _ => {
            let label = stage_label(&r.status);
            let p = r.progress().unwrap_or(0.0);
            view! {
                <ProgressBar value=p label=label.clone()/>
                <span class="eb-run__stage">{label}</span>
            }
            .into_any()
        }
    }
}

/// "reading 3/10 files · 1.2 MB of 5.0 MB", "parsing 40%", "scoring".
pub fn stage_label(s: &RunStatus) -> String {
    match s {
        RunStatus::Reading {
            files_done,
            files_total,
            bytes_done,
            bytes_total,
        } => {
            if *bytes_total > *files_total {
                format!(
                    "reading {files_done}/{files_total} files · {} of {}",
                    format::bytes(*bytes_done),
                    format::bytes(*bytes_total)
                )
            } else {
                format!("reading {files_done}/{files_total} files")
            }
        }
        RunStatus::Working { stage, done, total } => {
            if stage == "parsing" && *total > 1 {
                format!(
                    "parsing · {} of {}",
                    format::bytes(*done),
                    format::bytes(*total)
                )
            } else {
                format!("{stage}…")
            }
        }
        RunStatus::Loaded(_) => "loaded".into(),
        RunStatus::Failed { .. } => "failed".into(),
    }
}
