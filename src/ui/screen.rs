//! The screens the workers lay out (`protocol::ScreenView`: code-generation runs and
//! evaluation-tool logs): the overview's blocks (cards, charts, tables, notes), the virtualised
//! items table with the screen's own filters, the item drawer and the Export file list. The
//! worker decides what a screen holds; these components only render it, every text as a text
//! node (model output never becomes markup).

use leptos::html;
use leptos::prelude::*;

use evalboard_engine::compare::words::{WordDiff, EQUAL_AS_NUMBERS};
use evalboard_engine::compare::DiffKind;
use evalboard_engine::evalset::AnswerScorer;
use evalboard_engine::family::Family;
use evalboard_engine::run_table::ItemKey;

use crate::format;
use crate::protocol::{Block, Cell, Request, RunId, ScreenFilter, ScreenQuery, ScreenView, Table};
use crate::ui::client;
use crate::ui::store::use_store;
use crate::ui::widgets::{Chart, Drawer, MetricCard};

pub use crate::ui::rows::{ROW_H, ROW_PX};

/// Rows asked for at a time, and rows rendered beyond the visible ones.
const PAGE: u32 = 200;
const OVERSCAN: usize = 10;

/// Whether the worker lays out the screens of `family`.
pub fn is_screen_family(family: Family) -> bool {
    matches!(family, Family::Codegen | Family::Evalset | Family::EvalLog)
}

/// Whose screen: one run's, or many runs' against baselines (the All runs tab).
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Run(RunId),
    Many(Vec<RunId>, Vec<RunId>),
}

/// Sends `query` for its target (again after re-scoring) and gives the answer to it.
pub fn fetch(query: Memo<Option<(Target, ScreenQuery)>>) -> RwSignal<Option<ScreenView>> {
    let store = use_store();
    let data = RwSignal::new(None);
    let mine = StoredValue::new(0u64);
    Effect::new(move |_| {
        store.rescored.track();
        if let Some((target, query)) = query.get() {
            let req = client::next_req();
            mine.set_value(req);
            client::send(&match target {
                Target::Run(run_id) => Request::Screen { req, run_id, query },
                Target::Many(baselines, runs) => Request::Many {
                    req,
                    baselines,
                    runs,
                    query,
                },
            });
        }
    });
    Effect::new(move |_| {
        store.screen.with(|c| {
            if let Some((req, v)) = c {
                if *req == mine.get_value() {
                    data.set(Some(v.clone()));
                }
            }
        })
    });
    data
}

fn current_run() -> Memo<Option<Target>> {
    let store = use_store();
    Memo::new(move |_| store.current().map(|r| Target::Run(r.id)))
}

/// What the clicked `Cell::Open` button opens (its `data-open`), for a click handler on the
/// blocks around it.
pub fn opened(ev: &web_sys::MouseEvent) -> Option<String> {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.closest("[data-open]").ok().flatten())
        .and_then(|e| e.get_attribute("data-open"))
}

fn table(t: Table) -> impl IntoView {
    let Table {
        key,
        title,
        head,
        numeric,
        rows,
    } = t;
    let num = move |i: usize| numeric.get(i).copied().unwrap_or(false);
    let body = rows
        .into_iter()
        .map(|r| {
            let keyed = r.key.is_some();
            let cells = r
                .cells
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let c = match c {
                        Cell::Text(t) => t.into_any(),
                        Cell::Open(t, open) => view! {
                            <button type="button" class="eb-link" data-open=open>{t}</button>
                        }
                        .into_any(),
                        Cell::Pairs(p) => view! {
                            <dl class="eb-kv eb-kv--compact">
                                {p.into_iter().map(|(k, v)| view! { <div><dt>{k}</dt><dd>{v}</dd></div> }).collect_view()}
                            </dl>
                        }
                        .into_any(),
                    };
                    if i == 0 && keyed {
                        view! { <th scope="row">{c}</th> }.into_any()
                    } else {
                        view! { <td class:eb-num=num(i)>{c}</td> }.into_any()
                    }
                })
                .collect_view();
            view! { <tr data-row=r.key class:eb-row--marked=r.flag>{cells}</tr> }
        })
        .collect_view();
    let head = head
        .into_iter()
        .enumerate()
        .map(|(i, h)| view! { <th scope="col" class:eb-num=num(i)>{h}</th> })
        .collect_view();
    let table = view! {
        <div class="eb-scroll-x" data-table=key.clone()>
            <table class="eb-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>
        </div>
    };
    match title {
        Some(t) => view! {
            <section class="eb-section" data-section=key>
                <h2 class="eb-section__title">{t}</h2>
                {table}
            </section>
        }
        .into_any(),
        None => table.into_any(),
    }
}

/// A word diff (`compare::words`) as text: deleted words struck, inserted ones marked, a
/// replaced word as old → new, a number written two ways with the other spelling noted
/// "equal as numbers"; when the texts share little, the worker's note and both texts whole.
pub fn diff_view(d: WordDiff) -> AnyView {
    if let Some(note) = d.whole {
        let mut texts = d.spans.into_iter().map(|s| s.text);
        let (a, b) = (
            texts.next().unwrap_or_default(),
            texts.next().unwrap_or_default(),
        );
        return view! {
            <div class="eb-diff__whole" data-diff="whole">
                <p class="eb-muted">{note}</p>
                <p class="eb-text eb-mono"><del class="eb-diff__del">{a}</del></p>
                <p class="eb-text eb-mono"><ins class="eb-diff__ins">{b}</ins></p>
            </div>
        }
        .into_any();
    }
    // A removed word followed by an inserted one reads as two values, never run together
    // ("531191.007" vs "531191.0…").
    let mut last = DiffKind::Equal;
    d.spans
        .into_iter()
        .map(|s| {
            let arrow = (last == DiffKind::Delete && s.kind == DiffKind::Insert).then_some(" → ");
            last = s.kind;
            match (s.kind, s.other) {
                (DiffKind::Equal, Some(o)) => view! {
                    <span class="eb-diff__num" title=EQUAL_AS_NUMBERS>{s.text}<small>{format!(" (= {o}, {EQUAL_AS_NUMBERS})")}</small></span>
                }
                .into_any(),
                (DiffKind::Equal, None) => view! { <span>{s.text}</span> }.into_any(),
                (DiffKind::Delete, _) => view! { <del class="eb-diff__del">{s.text}</del> }.into_any(),
                (DiffKind::Insert, _) => {
                    view! { {arrow}<ins class="eb-diff__ins">{s.text}</ins> }.into_any()
                }
            }
        })
        .collect_view()
        .into_any()
}

/// Renders blocks in order (a group's blocks inside it).
pub fn blocks(list: Vec<Block>) -> AnyView {
    list.into_iter()
        .map(|b| match b {
            Block::Cards { primary, cards } => view! {
                <div class="eb-cards">
                    {cards.into_iter().map(|(key, label, value, sub)| {
                        let first = key == primary;
                        view! { <MetricCard key=key label=label value=value sub=sub primary=first/> }
                    }).collect_view()}
                </div>
            }
            .into_any(),
            Block::Note { key, tone, text } => view! {
                <div class=format!("eb-callout eb-callout--{tone}") role="note" data-note=key>{text}</div>
            }
            .into_any(),
            Block::Chart(c) => view! { <Chart chart=c/> }.into_any(),
            Block::Table(t) => table(t).into_any(),
            Block::Facts(f) => view! {
                <dl class="eb-facts">
                    {f.into_iter().map(|(k, v)| view! { <div><dt>{k}</dt><dd>{v}</dd></div> }).collect_view()}
                </dl>
            }
            .into_any(),
            Block::Heading(h) => view! { <h3 class="eb-subtitle">{h}</h3> }.into_any(),
            Block::Text { key, text, .. } if key == "hit" => crate::ui::query::hit(text),
            Block::Text { key, text, mono } => view! {
                <p class="eb-text" class:eb-mono=mono data-field=key>{text}</p>
            }
            .into_any(),
            Block::Code { label, code } => code_block(code, label).into_any(),
            Block::Review { mark, note, score } => crate::ui::review::controls(mark, note, score),
            Block::Diff(d) => diff_view(d),
            Block::Choice {
                key,
                label,
                options,
                ..
            } => choice_select(key, label, options).into_any(),
            Block::Switch {
                key,
                text,
                label,
                setting,
            } => {
                let store = use_store();
                view! {
                    <div class="eb-callout" role="note" data-testid=key>
                        {text}" "
                        <button type="button" class="eb-link" on:click=move |_| {
                            let mut s = store.settings.get_untracked();
                            if setting.0 == "watch.resume" {
                                resume(&setting.1);
                            } else if setting.0 == "lake.load" {
                                if let Ok(run_id) = setting.1.parse() {
                                    client::send(&Request::Workspace { run_id });
                                }
                            } else if setting.0 == "evalset.scorer" {
                                if let Some(scorer) = AnswerScorer::from_id(&setting.1) {
                                    s.evalset.scorer = scorer;
                                    store.configure(s);
                                }
                            }
                        }>{label}</button>
                    </div>
                }
                .into_any()
            }
            Block::Group {
                key,
                layout,
                title,
                ok,
                blocks: inner,
            } => {
                let inner = blocks(inner);
                match layout.as_str() {
                    "more" => view! {
                        <details class="eb-details" data-group=key>
                            <summary>{title}</summary>
                            {inner}
                        </details>
                    }
                    .into_any(),
                    "box" => view! {
                        <div class="eb-attempt" class:eb-attempt--ok=ok data-group=key>
                            <div class="eb-attempt__head">{title}</div>
                            {inner}
                        </div>
                    }
                    .into_any(),
                    "message" => view! {
                        <div class="eb-message" data-group=key>
                            <div class="eb-message__head">{title}</div>
                            {inner}
                        </div>
                    }
                    .into_any(),
                    "small" => view! {
                        <section class="eb-section" data-section=key>
                            <h2 class="eb-section__title">{title}</h2>
                            <div class="eb-charts eb-charts--small">{inner}</div>
                        </section>
                    }
                    .into_any(),
                    "pair" => view! { <div class="eb-grid2" data-group=key>{inner}</div> }.into_any(),
                    _ => view! {
                        <section class="eb-section" data-section=key>
                            <h2 class="eb-section__title">{title}</h2>
                            {inner}
                        </section>
                    }
                    .into_any(),
                }
            }
        })
        .collect_view()
        .into_any()
}

#[component]
pub fn ScreenOverview() -> impl IntoView {
    let store = use_store();
    let run = current_run();
    let query = Memo::new(move |_| {
        let dark = store.dark.get();
        let choices = store.route.with(|r| r.choices.clone());
        Some((run.get()?, ScreenQuery::Overview { dark, choices }))
    });
    let data = fetch(query);
    move || {
        match data.get() {
        None => view! { <div class="eb-state eb-state--quiet">"Computing the overview…"</div> }
            .into_any(),
        Some(v) => view! {
            <div class="eb-overview eb-screen"
                on:click=|ev| if let Some(o) = opened(&ev) { crate::ui::query::open_query(&o); }>{blocks(v.blocks)}</div>
        }
        .into_any(),
    }
    }
}

#[component]
pub fn ScreenItems() -> impl IntoView {
    let store = use_store();
    items(
        current_run(),
        Callback::new(move |key| store.open_item(key)),
    )
}

/// The virtualised items table of `run`'s screen, its filters in the route; a row opens its
/// key through `open`.
pub fn items(run: Memo<Option<Target>>, open: Callback<ItemKey>) -> impl IntoView {
    let store = use_store();
    let filter = Memo::new(move |_| {
        store.route.with(|r| ScreenFilter {
            choices: r.choices.clone(),
            text: r.text.clone().filter(|t| !t.trim().is_empty()),
        })
    });
    let offset = RwSignal::new(0u32);
    let query = Memo::new(move |_| {
        Some((
            run.get()?,
            ScreenQuery::Items {
                filter: filter.get(),
                offset: offset.get(),
                limit: PAGE,
            },
        ))
    });
    let data = fetch(query);
    let scroller = NodeRef::<html::Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let view_h = RwSignal::new(600.0f64);
    // A new filter starts at the top.
    Effect::new(move |prev: Option<ScreenFilter>| {
        let f = filter.get();
        if prev.is_some_and(|p| p != f) {
            offset.set(0);
            scroll_top.set(0.0);
            if let Some(el) = scroller.get_untracked() {
                el.set_scroll_top(0);
            }
        }
        f
    });
    let window = Memo::new(move |_| {
        let first = (scroll_top.get() / ROW_H).floor().max(0.0) as usize;
        let n = (view_h.get() / ROW_H).ceil() as usize + 1;
        (first.saturating_sub(OVERSCAN), first + n + OVERSCAN)
    });
    // Ask for the page around the window when the window leaves the one held.
    Effect::new(move |_| {
        let (a, b) = window.get();
        let o = offset.get_untracked() as usize;
        let total = data.with(|d| d.as_ref().map_or(0, |d| d.n_match as usize));
        if a < o || b.min(total) > o + PAGE as usize {
            offset.set(a.saturating_sub(PAGE as usize / 4) as u32);
        }
    });
    Effect::new(move |_| {
        if let Some(el) = scroller.get() {
            request_animation_frame(move || {
                let h = el.client_height() as f64;
                if h > 0.0 {
                    view_h.set(h);
                }
            });
        }
    });
    let rows = Memo::new(move |_| {
        let (a, b) = window.get();
        data.with(|d| {
            d.as_ref()
                .map(|d| {
                    d.rows
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (d.offset as usize + i, r.clone()))
                        .filter(|(pos, _)| *pos >= a && *pos < b)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let layout = Memo::new(move |_| {
        data.with(|d| d.as_ref().map(|d| d.layout.clone()))
            .unwrap_or_default()
    });
    let total = move || data.with(|d| d.as_ref().map(|d| (d.n_match, d.n_items)));
    let selected = move || store.route.with(|r| r.item.clone());
    let count = move || {
        let (one, many) = layout.with(|l| l.noun.clone());
        match total() {
            Some((m, n)) if m == n => format::plural(n, &one, &many),
            Some((m, n)) => format!("{} of {} {many} match", format::int(m), format::int(n)),
            None => "Loading…".into(),
        }
    };
    view! {
        <div class="eb-items eb-screen-items">
            <crate::ui::query::QueryBox data=data render=blocks/>
            <ScreenFilters layout=layout/>
            <div class="eb-items__count" role="status" aria-live="polite">{count}</div>
            <ViewExport run=run filter=filter/>
            <div class=move || layout.with(grid_class) role="grid"
                aria-label=move || layout.with(|l| l.noun.1.clone()) node_ref=scroller
                aria-rowcount=move || (total().map_or(0, |t| t.0) + 1).to_string()
                on:keydown=move |ev| if let Some(g) = scroller.get_untracked() { row_keys(&ev, &g) }
                on:scroll=move |_| if let Some(el) = scroller.get_untracked() { scroll_top.set(el.scroll_top() as f64) }>
                <div class="eb-grid__head" role="row" aria-rowindex="1">
                    {move || layout.with(|l| l.columns.iter().map(|(label, class)| view! {
                        <div class=format!("eb-grid__cell eb-grid__hcell {class}") role="columnheader">{label.clone()}</div>
                    }).collect_view())}
                </div>
                <div class="eb-grid__body" role="rowgroup"
                    style=move || format!("height:{}px", total().map_or(0, |t| t.0) * ROW_PX)>
                    <For each=move || rows.get() key=|(pos, r)| (*pos, r.key.clone(), r.cells.clone()) let:item>
                        {
                            let (pos, r) = item;
                            let key = r.key.clone();
                            let data_item = crate::ui::route::key_text(&key);
                            let (k1, k2) = (key.clone(), key.clone());
                            let classes = layout.with_untracked(|l| l.columns.iter().map(|c| c.1.clone()).collect::<Vec<_>>());
                            view! {
                                <div class="eb-grid__row" role="row" tabindex="0" data-item=data_item
                                    class:eb-grid__row--wrong=r.bad
                                    class:eb-grid__row--selected=move || selected().as_ref() == Some(&key)
                                    aria-rowindex=(pos + 2).to_string()
                                    style=format!("top:{}px", pos as u64 * ROW_PX)
                                    on:click=move |_| open.run(k1.clone())
                                    on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { ev.prevent_default(); open.run(k2.clone()) }>
                                    {r.cells.into_iter().enumerate().map(|(i, text)| {
                                        let class = classes.get(i).cloned().unwrap_or_default();
                                        let title = text.clone();
                                        view! { <div class=format!("eb-grid__cell {class}") role="gridcell" title=title>{text}</div> }
                                    }).collect_view()}
                                </div>
                            }
                        }
                    </For>
                </div>
                <Show when=move || total().is_some_and(|t| t.0 == 0)>
                    <div class="eb-grid__empty">{move || format!("No {} match these filters.", layout.with(|l| l.noun.1.clone()))}</div>
                </Show>
            </div>
            <p class="eb-footnote">{move || layout.with(|l| l.footnote.clone())}</p>
        </div>
    }
}

/// ↑/↓, Page Up/Down, Home/End on a row of a virtualised grid (rows carry `aria-rowindex`, the
/// head is row 1, rows are [`ROW_PX`] high, the grid its `aria-rowcount`): the row it leads to
/// gets the focus, scrolled into view under the sticky head ([`crate::ui::rows::go_row`]). One handler for every
/// items grid the worker lays out.
pub fn row_keys(ev: &web_sys::KeyboardEvent, grid: &web_sys::HtmlElement) {
    use wasm_bindgen::JsCast;
    let row_h = ROW_PX as i32;
    let page = ((grid.client_height() - row_h) / row_h - 1).max(1);
    let last = grid
        .get_attribute("aria-rowcount")
        .and_then(|n| n.parse::<i32>().ok())
        .unwrap_or(1);
    let Some(at) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.get_attribute("aria-rowindex"))
        .and_then(|i| i.parse::<i32>().ok())
    else {
        return;
    };
    let to = match ev.key().as_str() {
        "ArrowDown" => at + 1,
        "ArrowUp" => at - 1,
        "PageDown" => at + page,
        "PageUp" => at - page,
        "Home" => 2,
        "End" => last,
        _ => return,
    }
    .clamp(2, last.max(2));
    ev.prevent_default();
    if to != at {
        crate::ui::rows::go_row(grid, to);
    }
}

/// "Export this view": the rows the filters show, with the fields ticked, as CSV, JSONL (run
/// rows, which a drop reads back as a run) or Parquet (a one-run lake zip); the worker writes
/// them (`Request::ExportView`), with each item's flip when a comparison names a baseline.
#[component]
fn ViewExport(run: Memo<Option<Target>>, filter: Memo<ScreenFilter>) -> impl IntoView {
    use evalboard_engine::lake::view::COLUMNS;
    let store = use_store();
    let format = RwSignal::new(String::from("csv"));
    let left_out = RwSignal::new(Vec::<&'static str>::new());
    let many = move || matches!(run.get(), Some(Target::Many(..)));
    let send = move |_| {
        let run_id = match run.get_untracked() {
            Some(Target::Run(run_id)) => run_id,
            // All runs: the matrix as its filters show it.
            Some(Target::Many(baselines, runs)) => {
                return client::send(&Request::ExportMany {
                    req: client::next_req(),
                    baselines,
                    runs,
                    filter: filter.get_untracked(),
                    format: format.get_untracked(),
                })
            }
            None => return,
        };
        let base = store.route.with_untracked(|r| r.base.clone());
        let baseline = base.and_then(|b| {
            store
                .runs
                .with_untracked(|rs| rs.iter().find(|r| r.name == b).map(|r| r.id))
        });
        let out = left_out.get_untracked();
        client::send(&Request::ExportView {
            req: client::next_req(),
            run_id,
            filter: filter.get_untracked(),
            format: format.get_untracked(),
            columns: COLUMNS
                .iter()
                .filter(|c| !out.contains(&c.0))
                .map(|c| c.0.to_string())
                .collect(),
            baseline,
        });
    };
    view! {
        <details class="eb-view-export" data-testid="export-view" hidden=move || run.get().is_none()>
            <summary>"⤓ Export this view"</summary>
            <div class="eb-filters">
                <label class="eb-field">
                    <span class="eb-field__label">"Format"</span>
                    <select class="eb-select" name="export-format" on:change=move |ev| format.set(event_target_value(&ev))>
                        <option value="csv">"CSV (spreadsheet)"</option>
                        <option value="jsonl">"JSONL (drop it back as a run)"</option>
                        <option value="parquet">"Parquet (one-run lake, .zip)"</option>
                    </select>
                </label>
                <span hidden=many>{COLUMNS.iter().map(|&(name, label)| view! {
                    <label class="eb-check"><input type="checkbox" checked data-column=name
                        on:change=move |ev| left_out.update(|o| match event_target_checked(&ev) {
                            true => o.retain(|c| *c != name),
                            false => o.push(name),
                        })/>{label}</label>
                }).collect_view()}</span>
                <button type="button" class="eb-btn" data-export="view" on:click=send>"Download"</button>
            </div>
            <p class="eb-muted">{move || match many() {
                true => "The items these filters show, each run's mark under the judge picked; JSONL adds the ranked table.",
                false => "The rows these filters show, with every scorer's verdict as scored now, slice fields, the run's metadata and, when Compare names a baseline, each item's flip.",
            }}</p>
        </details>
    }
}

/// A select of a screen's choice `name` (options as (value, label); the value "" is none),
/// kept in the route as `f.<name>=`.
fn choice_select(name: String, label: String, options: Vec<(String, String)>) -> impl IntoView {
    let store = use_store();
    let n2 = name.clone();
    let current = move || store.route.with(|r| r.choice(&n2)).unwrap_or_default();
    let (attr, key) = (name.clone(), name.clone());
    view! {
        <label class="eb-field" data-choice=attr>
            <span class="eb-field__label">{label}</span>
            <select class="eb-select" name=key prop:value=current
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    store.route.update(|r| { r.set_choice(&name, (!v.is_empty()).then_some(v)); r.item = None; });
                }>
                {options.into_iter().map(|(v, l)| {
                    let sel = current() == v;
                    view! { <option value=v selected=sel>{l}</option> }
                }).collect_view()}
            </select>
        </label>
    }
}

#[component]
fn ScreenFilters(layout: Memo<crate::protocol::ItemsLayout>) -> impl IntoView {
    let store = use_store();
    let selects = move || {
        layout.with(|l| {
            l.filters
                .iter()
                .map(|c| {
                    let mut options = vec![(String::new(), "Any".to_string())];
                    options.extend(c.options.iter().map(|o| (o.clone(), o.clone())));
                    choice_select(c.name.clone(), c.label.clone(), options)
                })
                .collect_view()
        })
    };
    view! {
        <div class="eb-filters">
            {selects}
            <label class="eb-field eb-field--grow">
                <span class="eb-field__label">"Search"</span>
                <input class="eb-input" type="search" name="q" placeholder=move || layout.with(|l| l.search.clone())
                    prop:value=move || store.route.with(|r| r.text.clone().unwrap_or_default())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        store.route.update(|r| r.text = (!v.is_empty()).then_some(v));
                    }/>
            </label>
        </div>
    }
}

/// Source code as text with line numbers: one text node per number and per line, never markup.
fn code_block(code: String, label: String) -> impl IntoView {
    let lines: Vec<(usize, String)> = code
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect();
    view! {
        <pre class="eb-code" aria-label=label>
            {lines.into_iter().map(|(n, l)| view! {
                <span class="eb-code__line"><span class="eb-code__ln" aria-hidden="true">{n}</span>{l}"\n"</span>
            }).collect_view()}
        </pre>
    }
}

/// "Resume" (a watch waiting for the permission to read its folder, `Block::Switch`): the
/// browser's permission asked again for the folder kept under IndexedDB key `key`, on the page,
/// which has this click (a worker cannot ask), by index.html's `evalboardAskAgain` (plain JS:
/// the same in Rust cost the page ~1 KB of wasm). The waiting worker sees the yes and watches on.
fn resume(key: &str) {
    use wasm_bindgen::JsCast;
    let w = js_sys::global();
    if let Ok(ask) = js_sys::Reflect::get(&w, &"evalboardAskAgain".into())
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    {
        let _ = ask.call1(&w, &key.into());
    }
}

/// The open item of a run whose screens the worker lays out.
/// The grid's classes: `eb-grid--<kind>`, and `eb-grid--hits` when the rows have a query's hit
/// count second (one more column).
fn grid_class(l: &crate::protocol::ItemsLayout) -> String {
    let hits = l
        .columns
        .get(1)
        .is_some_and(|(name, _)| name == crate::protocol::HITS_COLUMN);
    format!(
        "eb-grid eb-grid--{}{}",
        l.kind,
        if hits { " eb-grid--hits" } else { "" }
    )
}

#[component]
pub fn ScreenDrawer() -> impl IntoView {
    let store = use_store();
    let target = Memo::new(move |_| {
        let item = store.route.with(|r| r.item.clone())?;
        // A Compare row side by side has its own drawer (`ui::compare::PairDrawer`).
        store.pair.with(|p| p.is_none()).then_some(())?;
        let run = store.current()?;
        run.info().filter(|i| is_screen_family(i.family))?;
        Some((run.id, item))
    });
    let query = Memo::new(move |_| {
        let (id, key) = target.get()?;
        let query = match store.route.with(|r| r.choice(crate::ui::query::CHOICE)) {
            Some(query) => ScreenQuery::Hits { key, query },
            None => ScreenQuery::Item { key },
        };
        Some((Target::Run(id), query))
    });
    let data = fetch(query);
    let is_open = Memo::new(move |_| target.with(|t| t.is_some()));
    // Loading (`None`), not in the run (`Some(None)`), or the item.
    let current = move || {
        let (_, key) = target.get()?;
        data.with(|d| match d.as_ref().map(|d| &d.item) {
            None => None,
            Some(None) => Some(None),
            Some(Some(m)) if m.key == key => Some(Some(m.clone())),
            Some(Some(_)) => None,
        })
    };
    let title = Signal::derive(move || {
        current()
            .flatten()
            .map(|m| m.title)
            .unwrap_or_else(|| "Item".into())
    });
    view! {
        <Drawer open=is_open title=title>
            {move || match current() {
                None => view! { <p class="eb-muted">"Loading…"</p> }.into_any(),
                Some(None) => view! { <p class="eb-muted">"This item is not in the run (the link may be from another version of it)."</p> }.into_any(),
                Some(Some(m)) => view! { <div class="eb-screen-item">{blocks(m.blocks)}</div> }.into_any(),
            }}
        </Drawer>
    }
}

/// Export: the run's own output files (the CLI's `--out` files), as the worker lists them.
#[component]
pub fn ScreenExports() -> impl IntoView {
    let store = use_store();
    let run = current_run();
    let query = Memo::new(move |_| {
        Some((
            run.get()?,
            ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
        ))
    });
    let data = fetch(query);
    move || {
        let files = data.with(|d| d.as_ref().map(|d| d.exports.clone()).unwrap_or_default());
        view! {
            <ul class="eb-export__list">
                {files.into_iter().map(|(file, what)| {
                    let f2 = file.clone();
                    view! {
                        <li class="eb-export__item">
                            <button type="button" class="eb-btn" data-export=file.clone()
                                on:click=move |_| if let Some(Target::Run(id)) = run.get_untracked() { store.export(id, &f2) }>
                                <span class="eb-export__icon" aria-hidden="true">"⤓"</span>
                                {file.clone()}
                            </button>
                            <span class="eb-muted">{what}</span>
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
    }
}
