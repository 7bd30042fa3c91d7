//! The current run's header, the tab bar (ARIA tabs: arrow keys, Home/End, roving tabindex) and
//! the panel of the selected tab.

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use evalboard_engine::family::Family;

use crate::format;
use crate::ui::breakdowns::BreakdownsView;
use crate::ui::complexity::ComplexityView;
use crate::ui::errors::ErrorsView;
use crate::ui::export::ExportView;
use crate::ui::files::FilesView;
use crate::ui::overview::OverviewView;
use crate::ui::route::Tab;
use crate::ui::settings::SettingsView;
use crate::ui::sidebar::stage_label;
use crate::ui::store::{use_store, RunStatus, Store};
use crate::ui::widgets::ProgressBar;

#[component]
pub fn RunHeader() -> impl IntoView {
    let store = use_store();
    let run = Memo::new(move |_| store.current());
    let title = move || run.with(|r| r.as_ref().map(|r| r.name.clone()).unwrap_or_default());
    let demo = move || run.with(|r| r.as_ref().is_some_and(|r| r.demo));
    let facts = move || {
        run.with(|r| {
            let r = r.as_ref()?;
            let i = r.info()?;
            // The family, then its size in its own units (conversations and turns, sessions
            // and messages, items, samples).
            let mut parts = vec![i.family.label().to_string()];
            parts.extend(
                i.size
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(format::group_numbers),
            );
            parts.extend([format::plural(i.files.len() as u64, "file", "files")]);
            // Files left out change what the numbers cover: said on every screen of the run.
            let skipped = i
                .files
                .iter()
                .filter(|f| f.status == evalboard_engine::accounting::FileStatus::Skipped)
                .count() as u64;
            if skipped > 0 {
                parts.push(format!("{} skipped (see Load report)", skipped));
            }
            if !i.diagnostics.is_empty() {
                parts.push(format::plural(
                    i.diagnostics.len() as u64,
                    "diagnostic",
                    "diagnostics",
                ));
            }
            parts.push(format!("loaded in {}", format::ms(i.load_ms)));
            Some(parts.join(" · "))
        })
    };
    // The profile (or answer scorer) the run was scored under, as the worker names it.
    let profile = move || {
        run.with(|r| {
            r.as_ref()
                .and_then(|r| r.info())
                .map(|i| i.profile.clone())
                .unwrap_or_default()
        })
    };
    let scorer_named = move || {
        run.with(|r| {
            r.as_ref()
                .and_then(|r| r.info())
                .is_some_and(|i| i.family == Family::Evalset)
        })
    };
    view! {
        <div class="eb-runhead">
            <h1 class="eb-runhead__title">
                {title}
                <Show when=demo>
                    <span class="eb-badge eb-badge--demo" title="Part of the demo workspace">"demo"</span>
                </Show>
            </h1>
            <div class="eb-runhead__facts">{facts}</div>
            <div class="eb-runhead__profile" title="Scoring profile (change it in Settings)">
                {move || if scorer_named() { "scorer: " } else { "profile: " }} <code>{profile}</code>
            </div>
            <CustomSettings/>
        </div>
    }
}

/// The current run's family settings that are not the defaults, named on every screen of the
/// run (they change its numbers), with one click to reset them.
#[component]
fn CustomSettings() -> impl IntoView {
    let store = use_store();
    // The worker names them (RunInfo.custom_settings) as it scores the run under them.
    let changed = Memo::new(move |_| {
        let run = store.current()?;
        let i = run.info()?;
        (!i.custom_settings.is_empty()).then(|| (i.family, i.custom_settings.clone()))
    });
    move || {
        changed.get().map(|(f, list)| {
            view! {
                <div class="eb-custom" role="note" data-testid="custom-settings">
                    <span class="eb-badge eb-badge--warn">"Custom settings"</span>
                    <span class="eb-custom__list">{list.join(" · ")}</span>
                    <button type="button" class="eb-link" on:click=move |_| {
                        let reset = store.settings.with_untracked(|s| s.reset(f));
                        store.configure(reset);
                        store.notify(format!("{} settings are back at their defaults.", f.label()), false);
                    }>"Reset to defaults"</button>
                </div>
            }
        })
    }
}

#[component]
pub fn TabBar() -> impl IntoView {
    let store = use_store();
    let current = move || store.route.with(|r| r.tab);
    let select = move |t: Tab, focus: bool| {
        store.route.update(|r| r.tab = t);
        if focus {
            if let Some(el) = document().get_element_by_id(&format!("eb-tab-{}", t.slug())) {
                if let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
                    let _ = el.focus();
                }
            }
        }
    };
    // Complexity, Breakdowns and Errors are numeric-QA views: hidden for the other families.
    let other_family = Memo::new(move |_| {
        store
            .current()
            .and_then(|r| {
                r.info()
                    .map(|i| crate::ui::screen::is_screen_family(i.family))
            })
            .unwrap_or(false)
    });
    let shown = move |t: Tab| {
        !(other_family.get() && matches!(t, Tab::Complexity | Tab::Breakdowns | Tab::Errors))
    };
    let on_key = move |ev: KeyboardEvent| {
        let all: Vec<Tab> = Tab::ALL.into_iter().filter(|t| shown(*t)).collect();
        let i = all.iter().position(|t| *t == current()).unwrap_or(0);
        let n = all.len();
        let next = match ev.key().as_str() {
            "ArrowRight" => Some((i + 1) % n),
            "ArrowLeft" => Some((i + n - 1) % n),
            "Home" => Some(0),
            "End" => Some(n - 1),
            _ => None,
        };
        if let Some(j) = next {
            ev.prevent_default();
            if let Some(t) = all.get(j) {
                select(*t, true);
            }
        }
    };
    // The current run's error count: only a numeric QA run's own overview has one (an overview
    // of another run, or an eval-set run, shows no badge).
    let error_count = Memo::new(move |_| {
        store
            .current_overview()
            .map(|o| o.overview.stats.error_types.values().sum::<u64>())
    });
    view! {
        <div class="eb-tabs" role="tablist" aria-label="Views" on:keydown=on_key>
            {Tab::ALL.into_iter().map(|t| {
                let selected = move || current() == t;
                view! {
                    <button
                        type="button"
                        role="tab"
                        class="eb-tabs__tab"
                        class:eb-tabs__tab--active=selected
                        id=format!("eb-tab-{}", t.slug())
                        aria-controls=format!("eb-panel-{}", t.slug())
                        aria-selected=move || if selected() { "true" } else { "false" }
                        tabindex=move || if selected() { "0" } else { "-1" }
                        hidden=move || !shown(t)
                        on:click=move |_| select(t, false)
                    >
                        {t.label()}
                        {(t == Tab::Errors).then(|| view! {
                            {move || error_count.get().filter(|n| *n > 0).map(|n| view! {
                                <span class="eb-tabs__count">{format::int(n)}</span>
                            })}
                        })}
                    </button>
                }
            }).collect_view()}
        </div>
    }
}

/// What a tab panel can show for the current run; only changes of this re-render a panel, so
/// new settings (which update the run's info) keep the view and its scroll position.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Loaded,
    Failed(String),
    Loading(String, f64),
    Missing,
}

#[component]
pub fn TabPanels() -> impl IntoView {
    let store = use_store();
    let current = move || store.route.with(|r| r.tab);
    let phase = Memo::new(move |_| match store.current() {
        None => Phase::Missing,
        Some(r) => match &r.status {
            RunStatus::Loaded(_) => Phase::Loaded,
            RunStatus::Failed { error, .. } => Phase::Failed(error.clone()),
            s => Phase::Loading(stage_label(s), r.progress().unwrap_or(0.0)),
        },
    });
    view! {
        {Tab::ALL.into_iter().map(|t| {
            // A memo: any other change of the route (a filter, the open item) must not rebuild
            // the panel (it would lose its rows, their focus and its scroll position).
            let active = Memo::new(move |_| current() == t);
            view! {
                <section
                    role="tabpanel"
                    class="eb-panel"
                    id=format!("eb-panel-{}", t.slug())
                    aria-labelledby=format!("eb-tab-{}", t.slug())
                    hidden=move || !active.get()
                >
                    {move || active.get().then(|| panel(store, t, phase))}
                </section>
            }
        }).collect_view()}
    }
}

fn panel(store: Store, t: Tab, phase: Memo<Phase>) -> AnyView {
    let needs_run = !matches!(t, Tab::Files | Tab::Settings | Tab::Compare | Tab::Runs);
    view! {
        {move || match phase.get() {
            Phase::Loaded => tab_view(t),
            _ if !needs_run => tab_view(t),
            Phase::Failed(error) => view! {
                <div class="eb-state eb-state--error" role="alert">
                    <h2 class="eb-state__title">"This run could not be loaded"</h2>
                    <p>{error}</p>
                    <p>
                        "The "
                        <button type="button" class="eb-link" on:click=move |_| store.route.update(|r| r.tab = Tab::Files)>
                            "load report"
                        </button>
                        " lists every file and why it was skipped."
                    </p>
                </div>
            }.into_any(),
            Phase::Loading(label, p) => view! {
                <div class="eb-state">
                    <h2 class="eb-state__title">"Loading this run…"</h2>
                    <ProgressBar value=p label=label.clone()/>
                    <p class="eb-state__detail">{label}</p>
                </div>
            }.into_any(),
            Phase::Missing => ().into_any(),
        }}
    }
    .into_any()
}

fn tab_view(t: Tab) -> AnyView {
    // Untracked: the panels re-render when the current run changes (App keys them on its id);
    // tracking the route here would rebuild the view on every filter change.
    let store = use_store();
    let family = untrack(move || {
        store
            .current()
            .and_then(|r| r.info().map(|i| i.family))
            .unwrap_or(Family::NumericQa)
    });
    let elsewhere = match family {
        Family::Codegen => "A code-generation run shows its scores, distributions, recovery funnel and breakdowns by model and session on Overview, and every message on Items.",
        Family::EvalLog => "An evaluation-tool log shows its scores (recorded and recomputed), breakdowns, tokens, cost and errors on Overview, and every sample on Items.",
        _ => "An eval-set run shows its scorecard, groups and flips on Overview, and every item on Items.",
    };
    // The worker lays out Overview and Items of the other families' runs; the numeric QA views
    // say where their content is instead.
    match t {
        Tab::Overview if crate::ui::screen::is_screen_family(family) => {
            view! { <crate::ui::screen::ScreenOverview/> }.into_any()
        }
        // Every family's Items: the grid the worker lays out (numeric QA's in `qa_items`).
        Tab::Items => view! { <crate::ui::screen::ScreenItems/> }.into_any(),
        Tab::Complexity | Tab::Breakdowns | Tab::Errors
            if crate::ui::screen::is_screen_family(family) =>
        {
            view! {
                <div class="eb-state">
                    <p>{format!("This view is for multi-turn numeric QA runs. {elsewhere}")}</p>
                </div>
            }
            .into_any()
        }
        Tab::Compare => view! { <crate::ui::compare::CompareView/> }.into_any(),
        Tab::Runs => view! { <crate::ui::many::ManyView/> }.into_any(),
        Tab::Overview => view! { <OverviewView/> }.into_any(),
        Tab::Complexity => view! { <ComplexityView/> }.into_any(),
        Tab::Breakdowns => view! { <BreakdownsView/> }.into_any(),
        Tab::Errors => view! { <ErrorsView/> }.into_any(),
        Tab::Files => view! { <FilesView/> }.into_any(),
        Tab::Settings => view! { <SettingsView/> }.into_any(),
        Tab::Export => view! { <ExportView/> }.into_any(),
    }
}
