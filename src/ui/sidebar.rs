//! The run list: select, rename (double-click or the pencil), remove (one run, a folder's runs,
//! all); demo runs are labelled and removable in one click; loading runs show their progress.
//! Each run is shown by the label the worker words from its metadata (`RunInfo::label`: model ·
//! task · headline), its name on hover; the list has a search, a sort and grouping by tool, task
//! or model (`RunInfo::facets`), done here over those few strings.

use leptos::html;
use leptos::prelude::*;

use evalboard_engine::family::Family;
use web_sys::KeyboardEvent;

use crate::format;
use crate::protocol::RunId;
use crate::ui::browser;
use crate::ui::dropzone::PickButtons;
use crate::ui::store::{use_store, RunEntry, RunStatus};
use crate::ui::widgets::ProgressBar;

/// A listed run: id, name, headline (for sorting), group, lowercase text searched.
type Row = (RunId, String, f64, String, String);

/// The runs shown, by group: (group, ids), the runs matching `needle` (lowercase) in their name
/// or label, sorted by `how` (`name`, `high`, `low` headline first, else as loaded), grouped by
/// facet `by` (tool, task, model) in order of first appearance.
fn arrange(
    all: &[RunEntry],
    needle: &str,
    how: &str,
    by: Option<usize>,
) -> Vec<(String, Vec<RunId>)> {
    let low = how == "low";
    let mut list: Vec<Row> = all
        .iter()
        .map(|r| {
            let info = r.info();
            let headline = info.and_then(|i| i.headline);
            let fallback = if low {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            let group = by
                .and_then(|k| info.and_then(|i| i.facets.get(k).cloned()))
                .unwrap_or_default();
            let label = info.map(|i| i.label.as_str()).unwrap_or_default();
            let text = browser::lower(&format!("{} {label}", r.name));
            (
                r.id,
                r.name.clone(),
                headline.unwrap_or(fallback),
                group,
                text,
            )
        })
        .filter(|x| needle.is_empty() || x.4.contains(needle))
        .collect();
    // An insertion sort: a few runs, and no sort instantiation on the page.
    let before = |a: &Row, b: &Row| match how {
        "name" => a.1 < b.1,
        "high" => a.2 > b.2,
        _ => low && a.2 < b.2,
    };
    for i in 1..list.len() {
        let mut j = i;
        while j > 0 && before(&list[j], &list[j - 1]) {
            list.swap(j, j - 1);
            j -= 1;
        }
    }
    let mut out: Vec<(String, Vec<RunId>)> = Vec::new();
    for (id, _, _, group, _) in list {
        match out.iter_mut().find(|g| g.0 == group) {
            Some(g) => g.1.push(id),
            None => out.push((group, vec![id])),
        }
    }
    out
}

#[component]
pub fn Sidebar() -> impl IntoView {
    let store = use_store();
    let (search, sort, group) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let groups = Memo::new(move |_| {
        let needle = browser::lower(search.get().trim());
        let by = group.with(|g| match g.as_str() {
            "0" => Some(0),
            "1" => Some(1),
            "2" => Some(2),
            _ => None,
        });
        sort.with(|how| store.runs.with(|rs| arrange(rs, &needle, how, by)))
    });
    let has_demo = move || store.runs.with(|rs| rs.iter().any(|r| r.demo));
    let many = move || store.runs.with(|rs| rs.len() > 1);
    // "Remove all" asks once more on the same button.
    let armed = RwSignal::new(false);
    view! {
        <aside class="eb-sidebar" aria-label="Runs">
            <div class="eb-sidebar__head">
                <h2 class="eb-sidebar__title">"Runs"</h2>
                <span class="eb-sidebar__count">{move || store.runs.with(|r| r.len())}</span>
                <Show when=many>
                    <button type="button" class="eb-btn eb-btn--small eb-sidebar__clear" data-action="remove-all"
                        on:blur=move |_| armed.set(false)
                        on:click=move |_| if armed.get_untracked() { armed.set(false); store.remove_all() } else { armed.set(true) }>
                        {move || if armed.get() { format!("Remove all {}?", store.runs.with(|r| r.len())) } else { "Remove all".to_string() }}
                    </button>
                </Show>
            </div>
            <Show when=many>
                <div class="eb-runlist__tools">
                    <input class="eb-input" type="search" name="run-search" placeholder="Search runs" aria-label="Search runs"
                        on:input=move |ev| search.set(event_target_value(&ev))/>
                    <select name="run-sort" aria-label="Sort runs" on:change=move |ev| sort.set(event_target_value(&ev))>
                        <option value="">"As loaded"</option>
                        <option value="name">"By name"</option>
                        <option value="high">"Best headline first"</option>
                        <option value="low">"Worst headline first"</option>
                    </select>
                    <select name="run-group" aria-label="Group runs" on:change=move |ev| group.set(event_target_value(&ev))>
                        <option value="">"No groups"</option>
                        <option value="0">"By tool"</option>
                        <option value="1">"By task"</option>
                        <option value="2">"By model"</option>
                    </select>
                </div>
            </Show>
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
            <Show when=move || groups.with(Vec::is_empty) && search.with(|s| !s.is_empty())>
                <p class="eb-sidebar__none">"No run matches this search."</p>
            </Show>
            <ul class="eb-runlist">
                <For each=move || groups.with(|g| g.iter().flat_map(|(_, ids)| ids.clone()).collect::<Vec<_>>()) key=|id| *id let:id>
                    <RunItem id=id groups=groups/>
                </For>
            </ul>
            <div class="eb-sidebar__drop">
                <p class="eb-sidebar__hint">"Drop run folders anywhere, or"</p>
                <PickButtons/>
                <crate::ui::watch::WatchPanel/>
            </div>
        </aside>
    }
}

/// One run of the list; the first of a group (`groups`) carries the group's heading.
#[component]
fn RunItem(id: RunId, groups: Memo<Vec<(String, Vec<RunId>)>>) -> impl IntoView {
    let store = use_store();
    let heading = move || {
        groups.with(|g| {
            g.iter()
                .find(|(name, ids)| !name.is_empty() && ids.first() == Some(&id))
                .map(|(name, ids)| format!("{name} · {}", ids.len()))
        })
    };
    let run = Memo::new(move |_| {
        store
            .runs
            .with(|rs| rs.iter().find(|r| r.id == id).cloned())
    });
    let name = move || run.with(|r| r.as_ref().map(|r| r.name.clone()).unwrap_or_default());
    // The worker's label, once loaded (the name stays under it).
    let label = move || {
        run.with(|r| r.as_ref()?.info().map(|i| i.label.clone()))
            .filter(|l| !l.is_empty())
    };
    // One log of a folder of several: its folder's runs can go together.
    let folder = move || {
        run.with(|r| {
            let parent = r.as_ref()?.info()?.part_of?;
            let n = store.runs.with(|rs| {
                rs.iter()
                    .filter(|x| x.info().is_some_and(|i| i.part_of == Some(parent)))
                    .count()
            });
            let name = r
                .as_ref()?
                .name
                .split('/')
                .next()
                .unwrap_or_default()
                .to_string();
            Some((parent, name, n))
        })
    };
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
        {move || heading().map(|h| view! { <li class="eb-runlist__group" role="presentation">{h}</li> })}
        <li class="eb-run" class:eb-run--current=is_current>
            <Show
                when=move || editing.get()
                fallback=move || view! {
                    <button
                        type="button"
                        class="eb-run__select"
                        aria-current=move || if is_current() { "true" } else { "false" }
                        title=move || format!("{} (double-click to rename)", name())
                        on:click=move |_| store.select(&name())
                        on:dblclick=move |_| editing.set(true)
                    >
                        <span class="eb-run__text">
                            {move || label().map(|l| view! { <span class="eb-run__label">{l}</span> })}
                            <span class="eb-run__name" title=name>{name}</span>
                        </span>
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
                {move || folder().map(|(parent, folder, n)| {
                    let what = format!("Remove this folder's runs ({n} of {folder})");
                    view! {
                        <button type="button" class="eb-icon-btn eb-icon-btn--danger" data-action="remove-folder" title=what.clone() aria-label=what
                            on:click=move |_| store.remove_folder(parent)>"⊗"</button>
                    }
                })}
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
            let bar = r
                .progress()
                .map(|p| view! { <ProgressBar value=p label=label.clone()/> });
            view! {
                {bar}
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
