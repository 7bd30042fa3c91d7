//! The All runs tab: every loaded run of one family against the baseline the user pins (kept in
//! the link as `pin=` and in the browser, so a plain visit finds it again). The worker compares
//! and lays everything out (`Request::Many` → a `ScreenView`: the ranked table, its reading, the
//! charts, the grid, and the runs × items matrix as an items layout); this component only picks
//! the runs, renders the blocks with the generic screen components, and opens the pair Compare
//! when a run's name is clicked.

use leptos::prelude::*;

use crate::protocol::{RunId, ScreenQuery};
use crate::ui::route::Tab;
use crate::ui::screen::{blocks, fetch, items, Target};
use crate::ui::store::{storage_get, storage_set, use_store, Store};

/// Where the pin is kept in the browser.
const PIN_KEY: &str = "evalboard.pin";

/// What the All runs tab compares: the pinned run (from the link, else as kept in the browser)
/// and the other logs of its folder (one baseline per task), then every other loaded run of its
/// family; `None` without a pin or another run. The tab and the Export tab's report of it.
pub fn pinned(store: Store) -> Option<(Vec<RunId>, Vec<RunId>)> {
    let pin = store
        .route
        .with(|r| r.pin.clone())
        .or_else(|| storage_get(PIN_KEY))?;
    store.runs.with(|rs| {
        let (id, family, part) = rs
            .iter()
            .find(|r| r.name == pin)
            .and_then(|r| r.info().map(|i| (r.id, i.family, i.part_of)))?;
        let (mut base, mut others) = (vec![id], Vec::new());
        for r in rs.iter().filter(|r| r.id != id) {
            match r.info() {
                Some(i) if i.family == family && part.is_some() && i.part_of == part => {
                    base.push(r.id)
                }
                Some(i) if i.family == family => others.push(r.id),
                _ => {}
            }
        }
        (!others.is_empty()).then_some((base, others))
    })
}

#[component]
pub fn ManyView() -> impl IntoView {
    let store = use_store();
    // A link without a pin takes the one kept in the browser.
    if store.route.with_untracked(|r| r.pin.is_none()) {
        if let Some(p) = storage_get(PIN_KEY) {
            store.route.update(|r| r.pin = Some(p));
        }
    }
    let pin = Memo::new(move |_| store.route.with(|r| r.pin.clone()));
    // The loaded runs' names. A plain closure, not a memo: few runs, and one memo type less
    // on the page.
    let runs = move || {
        store.runs.with(|rs| {
            rs.iter()
                .filter(|r| r.info().is_some())
                .map(|r| r.name.clone())
                .collect::<Vec<_>>()
        })
    };
    // No comparison while runs are still loading: each would be stale by the next load, and
    // the worker would compare them between the loads.
    let busy = Memo::new(move |_| store.runs.with(|rs| rs.iter().any(|r| r.is_busy())));
    let target = Memo::new(move |_| {
        (!busy.get())
            .then(|| pinned(store))
            .flatten()
            .map(|(b, o)| Target::Many(b, o))
    });
    let query = Memo::new(move |_| {
        let dark = store.dark.get();
        Some((
            target.get()?,
            ScreenQuery::Overview {
                dark,
                // The "Judged by" choice only: the matrix's own filters do not redo the overview.
                choices: store.route.with(|r| {
                    r.choices
                        .iter()
                        .filter(|c| c.0 == "judge")
                        .cloned()
                        .collect()
                }),
            },
        ))
    });
    let data = fetch(query);
    let has_target = Memo::new(move |_| target.with(Option::is_some));
    let status = move || {
        match (pin.get(), target.with(Option::is_some)) {
        (Some(_), false) if busy.get() => Some("Runs are still loading: the comparison starts when they are done."),
        (None, _) => Some("Pin a baseline: every other loaded run of its family is compared with it — ranked, with each pair's regressions, improvements and Holm-adjusted p-value."),
        (Some(_), false) => Some("No other run of this baseline's family is loaded: drop another run of it to compare."),
        _ => None,
    }
    };
    // A run's name in the table opens the pair Compare with its baseline.
    let open = move |ev: web_sys::MouseEvent| {
        let pair = crate::ui::screen::opened(&ev);
        if let Some((base, cand)) = pair.as_deref().and_then(|p| p.split_once('\u{1f}')) {
            store.route.update(|r| {
                r.tab = Tab::Compare;
                r.base = Some(base.to_string());
                r.cand = Some(cand.to_string());
                r.also.clear();
                r.step = 0;
                r.flip = None;
                r.item = None;
            });
        }
    };
    let open_item = Callback::new(move |key| {
        if let Some(p) = pin.get_untracked() {
            store.open_item_in(&p, key)
        }
    });
    view! {
        <div class="eb-many eb-screen">
            <label class="eb-field" data-choice="pin">
                <span class="eb-field__label">"Baseline"</span>
                <select class="eb-select" name="pin" prop:value=move || pin.get().unwrap_or_default()
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        let v = (!v.is_empty()).then_some(v);
                        storage_set(PIN_KEY, v.as_deref());
                        store.route.update(|r| r.pin = v);
                    }>
                    <option value="">"Pin a baseline…"</option>
                    {move || runs().into_iter().map(|n| {
                        let sel = pin.with(|p| p.as_deref() == Some(n.as_str()));
                        let label = n.clone();
                        view! { <option value=n selected=sel>{label}</option> }
                    }).collect_view()}
                </select>
            </label>
            {move || status().map(|s| view! { <p class="eb-state eb-state--quiet">{s}</p> })}
            // Built once a comparison is possible (a memo: no rebuild while it stays so).
            {move || has_target.get().then(|| view! {
                <div on:click=open>
                    {move || match data.get() {
                        None => view! { <p class="eb-muted">"Comparing the runs…"</p> }.into_any(),
                        Some(v) => blocks(v.blocks),
                    }}
                </div>
                <section class="eb-section" data-section="many-matrix">
                    <h2 class="eb-section__title">"Items across the runs"</h2>
                    {items(target, open_item)}
                </section>
            })}
        </div>
    }
}
