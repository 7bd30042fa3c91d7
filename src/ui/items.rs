//! Items: every turn in one virtualised table. Fixed row height; only the visible window plus
//! overscan is in the DOM, and only that window (plus a margin) is requested from the worker, one
//! request in flight at a time, so a 100k-turn run scrolls smoothly. Sortable headers, filters
//! (verdict, turn, feature, error type, text, disagreements) kept in the URL; Enter or a click on
//! a row opens its conversation.

use std::time::Duration;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use evalboard_engine::numeric_qa::views::{ItemFilter, ItemPage, ItemQuery, ItemRow, SortKey};
use evalboard_engine::run_table::ItemKey;

use crate::format;
use crate::protocol::{ReqId, Request, RunId};
use crate::ui::client;
use crate::ui::store::{use_store, Store};

/// Row height in px (must match `.eb-grid__row` in main.css).
pub const ROW_H: f64 = 32.0;
/// [`ROW_H`] in whole pixels, for styles (integers: the page prints no floats of its own).
pub const ROW_PX: u64 = 32;
/// Rows rendered above and below the visible ones.
const OVERSCAN: usize = 12;
/// Extra rows fetched beyond the rendered window, so small scrolls need no request.
const FETCH_MARGIN: usize = 50;
/// Most rows in one request (and so in the DOM).
pub const MAX_ROWS: usize = 200;

#[derive(Debug, Clone, PartialEq)]
struct QueryKey {
    run_id: RunId,
    filter: ItemFilter,
    sort: SortKey,
    desc: bool,
    rescored: u64,
}

struct Column {
    label: &'static str,
    sort: Option<SortKey>,
    class: &'static str,
    title: &'static str,
}

const COLUMNS: &[Column] = &[
    Column { label: "#", sort: Some(SortKey::Position), class: "eb-num", title: "Position in the run" },
    Column { label: "Conversation", sort: Some(SortKey::Conversation), class: "", title: "Conversation id" },
    Column { label: "Turn", sort: Some(SortKey::TurnIdx), class: "eb-num", title: "Turn index (0-based)" },
    Column { label: "Question", sort: None, class: "", title: "" },
    Column { label: "Expected", sort: None, class: "eb-num", title: "Ground truth" },
    Column { label: "Predicted", sort: None, class: "eb-num", title: "The model's answer" },
    Column { label: "Verdict", sort: Some(SortKey::Verdict), class: "", title: "Numerical match under the selected profile" },
    Column { label: "Why", sort: None, class: "", title: "Why a wrong answer is wrong: the nearest scorer that accepts it, or what is missing" },
    Column { label: "Scorers", sort: None, class: "", title: "E exact · N numerical · S soft · U unit-agnostic · ± sign-agnostic · G general · F financial (fa2)" },
    Column { label: "Orig", sort: None, class: "", title: "The original system's numerical verdict (≠ where the re-scoring differs)" },
    Column { label: "Logic", sort: Some(SortKey::LogicRecall), class: "eb-num", title: "Logic recall" },
    Column { label: "Ops", sort: Some(SortKey::Ops), class: "eb-num", title: "Compute operations in the plan" },
    Column { label: "Tokens", sort: Some(SortKey::Tokens), class: "eb-num", title: "Tokens used by the turn" },
    Column { label: "Error", sort: Some(SortKey::Error), class: "", title: "Error type" },
];

fn row_id(pos: usize) -> String {
    format!("eb-item-{pos}")
}

#[component]
pub fn ItemsView() -> impl IntoView {
    let store = use_store();
    let run_id = Memo::new(move |_| store.current().map(|r| r.id));
    let key = Memo::new(move |_| {
        let id = run_id.get()?;
        let (filter, sort, desc) = store.route.with(|r| (r.filter.clone(), r.sort, r.desc));
        Some(QueryKey {
            run_id: id,
            filter,
            sort,
            desc,
            rescored: store.rescored.get(),
        })
    });
    let scroller = NodeRef::<html::Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let view_h = RwSignal::new(600.0f64);
    let page: RwSignal<Option<(QueryKey, ItemPage)>> = RwSignal::new(None);
    let in_flight: StoredValue<Option<(ReqId, QueryKey)>> = StoredValue::new(None);
    let active = RwSignal::new(0usize);
    let want_focus: StoredValue<Option<usize>> = StoredValue::new(None);

    let total = Memo::new(move |_| {
        let k = key.get();
        page.with(|p| match (p, k) {
            (Some((pk, pg)), Some(k)) if *pk == k => Some(pg.total),
            _ => None,
        })
    });
    // The rendered window [a, b).
    let window = Memo::new(move |_| {
        let first = (scroll_top.get() / ROW_H).floor().max(0.0) as usize;
        let n = (view_h.get() / ROW_H).ceil() as usize + 1;
        let a = first.saturating_sub(OVERSCAN);
        let b = (first + n + OVERSCAN).min(a + MAX_ROWS);
        (a, b)
    });

    let maybe_fetch = move || {
        let Some(k) = key.get_untracked() else { return };
        let (a, b) = window.get_untracked();
        let covered = page.with_untracked(|p| match p {
            Some((pk, pg)) if *pk == k => {
                let end = pg.offset + pg.rows.len();
                pg.offset <= a.min(pg.total) && b.min(pg.total) <= end
            }
            _ => false,
        });
        if covered {
            return;
        }
        if in_flight.with_value(|f| f.as_ref().is_some_and(|(_, fk)| *fk == k)) {
            return; // re-checked when the answer arrives
        }
        let offset = a.saturating_sub(FETCH_MARGIN);
        let limit = (b - offset + FETCH_MARGIN).min(MAX_ROWS);
        let req = client::next_req();
        in_flight.set_value(Some((req, k.clone())));
        client::send(&Request::Items {
            req,
            run_id: k.run_id,
            query: ItemQuery {
                filter: k.filter,
                sort: k.sort,
                desc: k.desc,
                offset,
                limit,
            },
        });
    };

    // A new query (run, filter, sort, settings) starts at the top.
    Effect::new(move |prev: Option<Option<QueryKey>>| {
        let k = key.get();
        if let Some(prev) = prev {
            let same_view = match (&prev, &k) {
                (Some(p), Some(n)) => {
                    p.run_id == n.run_id
                        && p.filter == n.filter
                        && p.sort == n.sort
                        && p.desc == n.desc
                }
                _ => false,
            };
            if !same_view {
                if let Some(el) = scroller.get_untracked() {
                    el.set_scroll_top(0);
                }
                scroll_top.set(0.0);
                active.set(0);
            }
        }
        k
    });
    Effect::new(move |_| {
        key.track();
        window.track();
        maybe_fetch();
    });
    // Answers from the worker.
    Effect::new(move |_| {
        let Some((req, pg)) = store.items.get() else {
            return;
        };
        let Some((fr, fk)) = in_flight.get_value() else {
            return;
        };
        if fr != req {
            return;
        }
        in_flight.set_value(None);
        page.set(Some((fk, pg)));
        maybe_fetch();
    });
    // Viewport height: on mount and on window resize.
    let measure = move || {
        if let Some(el) = scroller.get_untracked() {
            let h = el.client_height() as f64;
            if h > 0.0 {
                view_h.set(h);
            }
        }
    };
    Effect::new(move |_| {
        if scroller.get().is_some() {
            request_animation_frame(measure);
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());

    let rows = Memo::new(move |_| {
        let k = key.get();
        let (a, b) = window.get();
        page.with(|p| match (p, k) {
            (Some((pk, pg)), Some(k)) if *pk == k => pg
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| (pg.offset + i, r.clone()))
                .filter(|(pos, _)| *pos >= a && *pos < b)
                .collect::<Vec<_>>(),
            _ => Vec::new(),
        })
    });
    // Focus the active row once it is rendered (after keyboard moves).
    Effect::new(move |_| {
        rows.track();
        if let Some(pos) = want_focus.get_value() {
            request_animation_frame(move || {
                if let Some(el) = document().get_element_by_id(&row_id(pos)) {
                    if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                        let _ = el.focus();
                        want_focus.set_value(None);
                    }
                }
            });
        }
    });

    let open = move |r: &ItemRow| store.open_item(turn_key(r));
    let move_to = move |pos: usize| {
        let n = total.get_untracked().unwrap_or(0);
        if n == 0 {
            return;
        }
        let pos = pos.min(n - 1);
        active.set(pos);
        want_focus.set_value(Some(pos));
        if let Some(el) = scroller.get_untracked() {
            let top = pos as f64 * ROW_H;
            let st = el.scroll_top() as f64;
            let h = el.client_height() as f64 - ROW_H; // the sticky header takes one row
            if top < st {
                el.set_scroll_top(top as i32);
            } else if top + ROW_H > st + h {
                el.set_scroll_top((top + ROW_H - h).ceil() as i32);
            }
        }
        if let Some(el) = document().get_element_by_id(&row_id(pos)) {
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
                want_focus.set_value(None);
            }
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        let page_rows = ((view_h.get_untracked() / ROW_H) as usize)
            .saturating_sub(2)
            .max(1);
        let a = active.get_untracked();
        let target = match ev.key().as_str() {
            "ArrowDown" => Some(a + 1),
            "ArrowUp" => Some(a.saturating_sub(1)),
            "PageDown" => Some(a + page_rows),
            "PageUp" => Some(a.saturating_sub(page_rows)),
            "Home" => Some(0),
            "End" => Some(usize::MAX),
            "Enter" => {
                let hit = rows
                    .with_untracked(|rs| rs.iter().find(|(p, _)| *p == a).map(|(_, r)| r.clone()));
                if let Some(r) = hit {
                    ev.prevent_default();
                    open(&r);
                }
                None
            }
            _ => None,
        };
        if let Some(t) = target {
            ev.prevent_default();
            move_to(t);
        }
    };

    let n_all = Memo::new(move |_| {
        store
            .current()
            .and_then(|r| r.info().map(|i| i.n_turns))
            .unwrap_or(0)
    });
    let selected = move || store.route.with(|r| r.item.clone());

    view! {
        <div class="eb-items">
            <Filters/>
            <div class="eb-items__count" role="status" aria-live="polite">
                {move || match total.get() {
                    Some(t) if t == n_all.get() => format!("{} turns", format::int(t as u64)),
                    Some(t) => format!("{} of {} turns match", format::int(t as u64), format::int(n_all.get() as u64)),
                    None => "Loading…".to_string(),
                }}
            </div>
            <div
                class="eb-grid"
                role="grid"
                aria-label="Turns"
                aria-rowcount=move || (total.get().unwrap_or(0) + 1).to_string()
                aria-colcount=COLUMNS.len().to_string()
                tabindex="0"
                node_ref=scroller
                on:scroll=move |_| {
                    if let Some(el) = scroller.get_untracked() {
                        scroll_top.set(el.scroll_top() as f64);
                    }
                }
                on:focus=move |ev: web_sys::FocusEvent| {
                    // Focus entering the grid goes to the active row when it is rendered.
                    let from_outside = ev.related_target().and_then(|t| t.dyn_into::<web_sys::Node>().ok())
                        .map(|n| scroller.get_untracked().is_none_or(|s| !s.contains(Some(&n))))
                        .unwrap_or(true);
                    if from_outside {
                        if let Some(el) = document().get_element_by_id(&row_id(active.get_untracked())) {
                            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() { let _ = el.focus(); }
                        }
                    }
                }
                on:keydown=on_key
            >
                <div class="eb-grid__head" role="row" aria-rowindex="1">
                    {COLUMNS.iter().map(|c| header_cell(store, c)).collect_view()}
                </div>
                <div
                    class="eb-grid__body"
                    role="rowgroup"
                    style=move || format!("height:{}px", total.get().unwrap_or(0) as u64 * ROW_PX)
                >
                    <For
                        each=move || rows.get()
                        key=|(pos, r)| (*pos, r.conv, r.turn, r.correct, r.logic_recall.map(f64::to_bits))
                        let:item
                    >
                        {
                            let (pos, r) = item;
                            let r2 = r.clone();
                            let key = turn_key(&r);
                            let wrong = !r.correct;
                            view! {
                                <div
                                    class="eb-grid__row"
                                    class:eb-grid__row--active=move || active.get() == pos
                                    class:eb-grid__row--selected=move || selected().as_ref() == Some(&key)
                                    class:eb-grid__row--wrong=wrong
                                    role="row"
                                    id=row_id(pos)
                                    aria-rowindex=(pos + 2).to_string()
                                    tabindex="-1"
                                    style=format!("top:{}px", pos as u64 * ROW_PX)
                                    on:click=move |_| { active.set(pos); open(&r2); }
                                    on:focus=move |_| active.set(pos)
                                >
                                    {row_cells(pos, r)}
                                </div>
                            }
                        }
                    </For>
                </div>
                <Show when=move || total.get() == Some(0)>
                    <div class="eb-grid__empty">"No turns match these filters."</div>
                </Show>
            </div>
            <p class="eb-footnote" data-testid="scorer-legend">"Scorers: E exact · N numerical · S soft (within the tolerance) · U unit-agnostic · ± sign-agnostic · G general · F financial-agent-2; a green chip accepts the answer. Long numbers are rounded to 4 decimals: hover or open the turn for the whole answer."</p>
            <p class="eb-footnote">"↑/↓ move · Enter opens the conversation · click a header to sort."</p>
        </div>
    }
}

fn header_cell(store: Store, c: &'static Column) -> impl IntoView {
    match c.sort {
        Some(k) => {
            let aria = move || {
                store.route.with(|r| {
                    if r.sort != k {
                        "none"
                    } else if r.desc {
                        "descending"
                    } else {
                        "ascending"
                    }
                })
            };
            let arrow = move || {
                store.route.with(|r| {
                    if r.sort != k {
                        ""
                    } else if r.desc {
                        " ↓"
                    } else {
                        " ↑"
                    }
                })
            };
            view! {
                <div class=format!("eb-grid__cell eb-grid__hcell {}", c.class) role="columnheader" aria-sort=aria title=c.title>
                    <button type="button" class="eb-grid__sort" on:click=move |_| store.route.update(|r| {
                        if r.sort == k { r.desc = !r.desc } else { r.sort = k; r.desc = false }
                    })>
                        {c.label}{arrow}
                    </button>
                </div>
            }
            .into_any()
        }
        None => view! {
            <div class=format!("eb-grid__cell eb-grid__hcell {}", c.class) role="columnheader" title=c.title>{c.label}</div>
        }
        .into_any(),
    }
}

fn chip(ok: bool, letter: &'static str, name: &'static str) -> impl IntoView {
    view! {
        <span class="eb-chip" class:eb-chip--ok=ok class:eb-chip--bad=!ok
            title=format!("{name}: {}", if ok { "match" } else { "no match" })>{letter}</span>
    }
}

fn row_cells(pos: usize, r: ItemRow) -> impl IntoView {
    let (orig, orig_title) = match r.original_numerical {
        Some(true) => ("✓", "Originally scored correct"),
        Some(false) => ("✗", "Originally scored wrong"),
        None => ("—", "No original verdict"),
    };
    view! {
        <div class="eb-grid__cell eb-num eb-muted" role="gridcell">{format::int(pos as u64 + 1)}</div>
        <div class="eb-grid__cell eb-mono eb-clip" role="gridcell" title=r.conversation_id.clone()>{r.conversation_id.clone()}</div>
        <div class="eb-grid__cell eb-num" role="gridcell">{r.turn_idx}</div>
        <div class="eb-grid__cell eb-clip" role="gridcell" title=r.question.clone()>{r.question.clone()}</div>
        <div class="eb-grid__cell eb-num eb-mono eb-clip" role="gridcell" title=r.expected.clone()>{format::round_decimals(&r.expected, 4)}</div>
        <div class="eb-grid__cell eb-num eb-mono eb-clip" role="gridcell" title=r.predicted.clone()>{format::round_decimals(&r.predicted, 4)}</div>
        <div class="eb-grid__cell" role="gridcell">
            <span class="eb-verdict" class:eb-verdict--ok=r.correct class:eb-verdict--bad=!r.correct>
                {if r.correct { "correct" } else { "wrong" }}
            </span>
        </div>
        <div class="eb-grid__cell eb-clip eb-why" role="gridcell" title=r.reason.clone().unwrap_or_default()>{r.reason.clone().unwrap_or_default()}</div>
        <div class="eb-grid__cell eb-chips" role="gridcell">
            {chip(r.exact_match, "E", "exact match")}
            {chip(r.numerical_match, "N", "numerical match")}
            {chip(r.soft_match, "S", "soft match")}
            {chip(r.unit_agnostic_match, "U", "unit-agnostic match")}
            {chip(r.sign_agnostic_match, "±", "sign-agnostic match")}
            {chip(r.general_match, "G", "general match")}
            {chip(r.financial_match, "F", "financial match (fa2)")}
        </div>
        <div class="eb-grid__cell" role="gridcell">
            <span class="eb-orig" class:eb-disagree-mark=r.disagrees
                title=if r.disagrees { format!("{orig_title}: differs from the re-scored verdict") } else { orig_title.to_string() }>{orig}</span>
        </div>
        <div class="eb-grid__cell eb-num" role="gridcell">{format::pct(r.logic_recall)}</div>
        <div class="eb-grid__cell eb-num" role="gridcell">{r.operations_per_turn.map(|o| o.to_string()).unwrap_or_else(|| format::NONE.into())}</div>
        <div class="eb-grid__cell eb-num" role="gridcell">{format::opt_int(r.tokens)}</div>
        <div class="eb-grid__cell eb-mono eb-clip" role="gridcell" title=r.error_type.clone().unwrap_or_default()>{r.error_type.clone().unwrap_or_default()}</div>
    }
}

#[component]
fn Filters() -> impl IntoView {
    let store = use_store();
    let ov = Memo::new(move |_| store.current_overview());
    let turns = move || {
        ov.with(|o| {
            o.as_ref()
                .map(|o| {
                    o.overview
                        .stats
                        .accuracy_by_turn_number
                        .keys()
                        .map(|k| k.0)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let error_types = move || {
        ov.with(|o| {
            o.as_ref()
                .map(|o| {
                    o.overview
                        .stats
                        .error_types
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let f = move || store.route.with(|r| r.filter.clone());
    let set = move |g: Box<dyn FnOnce(&mut ItemFilter)>| store.route.update(|r| g(&mut r.filter));
    // Free text: typed locally, applied after a short pause.
    let text = RwSignal::new(f().text.unwrap_or_default());
    Effect::new(move |_| {
        let from_route = store
            .route
            .with(|r| r.filter.text.clone().unwrap_or_default());
        if text.get_untracked() != from_route {
            text.set(from_route);
        }
    });
    let timer: StoredValue<Option<TimeoutHandle>> = StoredValue::new(None);
    let on_text = move |v: String| {
        text.set(v.clone());
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(
            move || {
                let v = v.trim().to_string();
                store
                    .route
                    .update(|r| r.filter.text = (!v.is_empty()).then_some(v));
            },
            Duration::from_millis(250),
        )
        .ok();
        timer.set_value(h);
    };
    let opt = |v: String| if v.is_empty() { None } else { Some(v) };
    view! {
        <div class="eb-filters" role="search" aria-label="Filter turns">
            <label class="eb-field">
                <span class="eb-field__label">"Verdict"</span>
                <select class="eb-select" prop:value=move || f().verdict.unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |f| f.verdict = opt(v))) }>
                    <option value="">"Any"</option>
                    <option value="correct">"Correct"</option>
                    <option value="wrong">"Wrong"</option>
                </select>
            </label>
            <label class="eb-field">
                <span class="eb-field__label">"Turn"</span>
                <select class="eb-select" prop:value=move || f().turn_idx.map(|t| t.to_string()).unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |f| f.turn_idx = v.parse().ok())) }>
                    <option value="">"Any"</option>
                    {move || turns().into_iter().map(|t| view! {
                        <option value=t.to_string() prop:selected=move || f().turn_idx == Some(t)>{format!("Turn {t}")}</option>
                    }).collect_view()}
                </select>
            </label>
            <label class="eb-field">
                <span class="eb-field__label">"Feature"</span>
                <select class="eb-select" prop:value=move || f().feature.unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |f| f.feature = opt(v))) }>
                    <option value="">"Any"</option>
                    <option value="has_type2_question">"Type-2 question"</option>
                    <option value="has_non_numeric_values">"Non-numeric values"</option>
                    <option value="has_duplicate_columns">"Duplicate columns"</option>
                </select>
            </label>
            <label class="eb-field">
                <span class="eb-field__label">"Error type"</span>
                <select class="eb-select" prop:value=move || f().error_type.unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |f| f.error_type = opt(v))) }>
                    <option value="">"Any"</option>
                    {move || error_types().into_iter().map(|t| {
                        let t2 = t.clone();
                        view! { <option value=t.clone() prop:selected=move || f().error_type.as_deref() == Some(t2.as_str())>{t.clone()}</option> }
                    }).collect_view()}
                </select>
            </label>
            <label class="eb-field eb-field--grow">
                <span class="eb-field__label">"Search"</span>
                <input class="eb-input" type="search" placeholder="question, answer or conversation id"
                    prop:value=move || text.get()
                    on:input=move |ev| on_text(event_target_value(&ev))/>
            </label>
            <label class="eb-check">
                <input type="checkbox" prop:checked=move || f().disagreements
                    on:change=move |ev| { let c = event_target_checked(&ev); set(Box::new(move |f| f.disagreements = c)) }/>
                <span>"Disagrees with original scoring"</span>
            </label>
            <button type="button" class="eb-btn eb-btn--small"
                disabled=move || f() == ItemFilter::default()
                on:click=move |_| { text.set(String::new()); store.route.update(|r| r.filter = ItemFilter::default()) }>
                "Clear"
            </button>
        </div>
    }
}

/// A turn's key: `[conversation id, turn index]`, as a comparison pairs it.
pub fn turn_key(r: &ItemRow) -> ItemKey {
    ItemKey::text_index(&r.conversation_id, r.turn_idx.into())
}
