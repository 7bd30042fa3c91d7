//! Code-generation runs: the overview (headline cards, component scores, score
//! distributions, the recovery funnel by error class, breakdowns by model and by session, as
//! originally scored vs re-scored), the virtualised message table with its filters, the message
//! drawer (the code with line numbers as text, the result, every score with its details, the
//! recovery attempts) and the Export file list. Everything comes from the code-generation
//! worker one screen at a time; model output is rendered as text nodes only.

use leptos::html;
use leptos::prelude::*;

use evalboard_engine::family::Family;

use crate::format;
use crate::protocol::{
    CodegenAttempt, CodegenFilter, CodegenMessageView, CodegenQuery, CodegenRow, CodegenScore,
    CodegenView, Request, RunId,
};
use crate::ui::client;
use crate::ui::items::ROW_H;
use crate::ui::store::use_store;
use crate::ui::widgets::{Chart, DataTable, Drawer, MetricCard};

/// Rows asked for at a time, and rows rendered beyond the visible ones.
const PAGE: u32 = 200;
const OVERSCAN: usize = 10;

/// Sends `query` for the current run (again after re-scoring) and gives the answer to it.
fn fetch(query: Memo<Option<(RunId, CodegenQuery)>>) -> RwSignal<Option<CodegenView>> {
    let store = use_store();
    let data = RwSignal::new(None);
    let mine = StoredValue::new(0u64);
    Effect::new(move |_| {
        store.rescored.track();
        if let Some((run_id, query)) = query.get() {
            let req = client::next_req();
            mine.set_value(req);
            client::send(&Request::Codegen { req, run_id, query });
        }
    });
    Effect::new(move |_| {
        store.codegen.with(|c| {
            if let Some((req, v)) = c {
                if *req == mine.get_value() {
                    data.set(Some(v.clone()));
                }
            }
        })
    });
    data
}

fn current_run() -> Memo<Option<RunId>> {
    let store = use_store();
    Memo::new(move |_| store.current().map(|r| r.id))
}

fn score(x: Option<f64>) -> String {
    format::dec(x, 3)
}

fn note(v: &CodegenView) -> impl IntoView {
    v.note.clone().map(|n| {
        view! { <div class="eb-callout eb-callout--note" role="note" data-note="not-recorded">{n}</div> }
    })
}

fn table(t: &(String, String, Vec<Vec<String>>)) -> impl IntoView {
    let (head, rows) = match t.2.split_first() {
        Some((h, r)) => (h.clone(), r.to_vec()),
        None => (Vec::new(), Vec::new()),
    };
    view! {
        <section class="eb-section" data-section=t.0.clone()>
            <h2 class="eb-section__title">{t.1.clone()}</h2>
            <div class="eb-scroll-x" data-table=t.0.clone()><DataTable head=head rows=rows/></div>
        </section>
    }
}

#[component]
pub fn CodegenOverview() -> impl IntoView {
    let store = use_store();
    let run = current_run();
    let query = Memo::new(move |_| {
        let dark = store.dark.get();
        Some((run.get()?, CodegenQuery::Overview { dark }))
    });
    let data = fetch(query);
    move || match data.get() {
        None => view! { <div class="eb-state eb-state--quiet">"Computing the overview…"</div> }
            .into_any(),
        Some(v) => overview(v).into_any(),
    }
}

fn overview(v: CodegenView) -> impl IntoView {
    let chart = |key: &str| v.charts.iter().find(|c| c.key == key).cloned();
    let tab = |key: &str| v.tables.iter().find(|t| t.0 == key).map(table);
    let dists: Vec<_> = v
        .charts
        .iter()
        .filter(|c| c.key.starts_with("distribution_"))
        .cloned()
        .collect();
    view! {
        <div class="eb-overview eb-codegen">
            {note(&v)}
            <div class="eb-cards">
                {v.cards.iter().map(|(key, label, value, sub)| view! {
                    <MetricCard key=key.clone() label=label.clone() value=value.clone() sub=sub.clone()
                        primary=key == "average_overall_score"/>
                }).collect_view()}
            </div>
            <div class="eb-grid2">
                {chart("components").map(|c| view! { <Chart chart=c/> })}
                {tab("components")}
            </div>
            <div class="eb-grid2">
                {chart("overall_distribution").map(|c| view! { <Chart chart=c/> })}
                {chart("recovery_funnel").map(|c| view! { <Chart chart=c/> })}
            </div>
            {tab("recovery_funnel")}
            <section class="eb-section" data-section="distributions">
                <h2 class="eb-section__title">"Score distributions by component"</h2>
                <div class="eb-charts eb-charts--small">
                    {dists.into_iter().map(|c| view! { <Chart chart=c/> }).collect_view()}
                </div>
            </section>
            <div class="eb-grid2">
                {chart("by_model").map(|c| view! { <Chart chart=c/> })}
                {chart("by_session").map(|c| view! { <Chart chart=c/> })}
            </div>
            {tab("by_model")}
            {tab("by_session")}
            {tab("original_vs_rescored")}
        </div>
    }
}

/// The route's filters as the worker's.
fn route_filter() -> Memo<CodegenFilter> {
    let store = use_store();
    Memo::new(move |_| {
        store.route.with(|r| CodegenFilter {
            model: r.model.clone(),
            session: r.session.clone(),
            class: r.filter.error_type.clone(),
            text: r.filter.text.clone().filter(|t| !t.trim().is_empty()),
        })
    })
}

const COLUMNS: [(&str, &str); 13] = [
    ("#", "eb-num"),
    ("Session", ""),
    ("Model", ""),
    ("Question", ""),
    ("Result", ""),
    ("Error class", ""),
    ("Overall", "eb-num"),
    ("Corr.", "eb-num"),
    ("Qual.", "eb-num"),
    ("Perf.", "eb-num"),
    ("Underst.", "eb-num"),
    ("Cover.", "eb-num"),
    ("Recov.", "eb-num"),
];

#[component]
pub fn CodegenItems() -> impl IntoView {
    let store = use_store();
    let run = current_run();
    let filter = route_filter();
    let offset = RwSignal::new(0u32);
    let query = Memo::new(move |_| {
        Some((
            run.get()?,
            CodegenQuery::Items {
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
    Effect::new(move |prev: Option<CodegenFilter>| {
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
    let total = move || data.with(|d| d.as_ref().map(|d| (d.n_match, d.n_messages)));
    let selected = move || store.route.with(|r| r.item);
    view! {
        <div class="eb-items eb-codegen-items">
            <CodegenFilters data=data/>
            <div class="eb-items__count" role="status" aria-live="polite">
                {move || match total() {
                    Some((m, n)) if m == n => format::plural(n, "message", "messages"),
                    Some((m, n)) => format!("{} of {} messages match", format::int(m), format::int(n)),
                    None => "Loading…".into(),
                }}
            </div>
            <div class="eb-grid eb-grid--codegen" role="grid" aria-label="Messages" node_ref=scroller
                aria-rowcount=move || (total().map_or(0, |t| t.0) + 1).to_string()
                on:scroll=move |_| if let Some(el) = scroller.get_untracked() { scroll_top.set(el.scroll_top() as f64) }>
                <div class="eb-grid__head" role="row" aria-rowindex="1">
                    {COLUMNS.iter().map(|(label, class)| view! {
                        <div class=format!("eb-grid__cell eb-grid__hcell {class}") role="columnheader">{*label}</div>
                    }).collect_view()}
                </div>
                <div class="eb-grid__body" role="rowgroup"
                    style=move || format!("height:{}px", total().map_or(0, |t| t.0) as f64 * ROW_H)>
                    <For each=move || rows.get() key=|(pos, r)| (*pos, r.session, r.index, r.scores.first().copied().flatten().map(f64::to_bits)) let:item>
                        {
                            let (pos, r) = item;
                            let at = (r.session, r.index);
                            let ok = r.ok;
                            let open = move || store.route.update(|x| x.item = Some(at));
                            view! {
                                <div class="eb-grid__row" role="row" tabindex="0" data-message=format!("{}.{}", at.0, at.1)
                                    class:eb-grid__row--wrong=!ok
                                    class:eb-grid__row--selected=move || selected() == Some(at)
                                    aria-rowindex=(pos + 2).to_string()
                                    style=format!("top:{}px", pos as f64 * ROW_H)
                                    on:click=move |_| open()
                                    on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { ev.prevent_default(); open() }>
                                    {row_cells(pos, r)}
                                </div>
                            }
                        }
                    </For>
                </div>
                <Show when=move || total().is_some_and(|t| t.0 == 0)>
                    <div class="eb-grid__empty">"No messages match these filters."</div>
                </Show>
            </div>
            <p class="eb-footnote">"Click a message (or Enter) for its code, result and every score's details."</p>
        </div>
    }
}

fn row_cells(pos: usize, r: CodegenRow) -> impl IntoView {
    let cell = |text: String, class: &'static str| {
        let title = text.clone();
        view! { <div class=format!("eb-grid__cell {class}") role="gridcell" title=title>{text}</div> }
    };
    view! {
        {cell((pos + 1).to_string(), "eb-num eb-muted")}
        {cell(r.session_id, "eb-mono")}
        {cell(r.model, "")}
        {cell(r.question, "")}
        {cell(r.outcome, if r.ok { "" } else { "eb-bad" })}
        {cell(r.error_class.unwrap_or_default(), "eb-mono")}
        {r.scores.into_iter().map(|s| cell(score(s), "eb-num")).collect_view()}
    }
}

#[component]
fn CodegenFilters(data: RwSignal<Option<CodegenView>>) -> impl IntoView {
    let store = use_store();
    let choices = move |f: fn(&CodegenView) -> &Vec<String>| {
        data.with(|d| d.as_ref().map(|d| f(d).clone()).unwrap_or_default())
    };
    let select = move |name: &'static str,
                       label: &'static str,
                       get: fn(&crate::ui::route::Route) -> Option<String>,
                       set: fn(&mut crate::ui::route::Route, Option<String>),
                       options: fn(&CodegenView) -> &Vec<String>| {
        let current = move || store.route.with(get).unwrap_or_default();
        view! {
            <label class="eb-field">
                <span class="eb-field__label">{label}</span>
                <select class="eb-select" name=name prop:value=current
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        store.route.update(|r| { set(r, (!v.is_empty()).then_some(v)); r.item = None; });
                    }>
                    <option value="">"Any"</option>
                    {move || choices(options).into_iter().map(|o| {
                        let sel = current() == o;
                        view! { <option value=o.clone() selected=sel>{o.clone()}</option> }
                    }).collect_view()}
                </select>
            </label>
        }
    };
    view! {
        <div class="eb-filters">
            {select("model", "Model", |r| r.model.clone(), |r, v| r.model = v, |d| &d.models)}
            {select("session", "Session", |r| r.session.clone(), |r, v| r.session = v, |d| &d.sessions)}
            {select("class", "Error class", |r| r.filter.error_type.clone(), |r, v| r.filter.error_type = v, |d| &d.classes)}
            <label class="eb-field eb-field--grow">
                <span class="eb-field__label">"Search"</span>
                <input class="eb-input" type="search" name="q" placeholder="question, result, model or session"
                    prop:value=move || store.route.with(|r| r.filter.text.clone().unwrap_or_default())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        store.route.update(|r| r.filter.text = (!v.is_empty()).then_some(v));
                    }/>
            </label>
        </div>
    }
}

/// Source code as text with line numbers: one text node per number and per line, never markup.
#[component]
pub fn CodeBlock(
    #[prop(into)] code: String,
    #[prop(optional, into)] label: String,
) -> impl IntoView {
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

#[component]
pub fn CodegenDrawer() -> impl IntoView {
    let store = use_store();
    let target = Memo::new(move |_| {
        let item = store.route.with(|r| r.item)?;
        let run = store.current()?;
        run.info().filter(|i| i.family == Family::Codegen)?;
        Some((run.id, item.0, item.1))
    });
    let query = Memo::new(move |_| {
        let (id, session, index) = target.get()?;
        Some((id, CodegenQuery::Message { session, index }))
    });
    let data = fetch(query);
    let is_open = Memo::new(move |_| target.with(|t| t.is_some()));
    // Loading (`None`), not in the run (`Some(None)`), or the message.
    let current = move || -> Option<Option<CodegenMessageView>> {
        let (_, session, index) = target.get()?;
        data.with(|d| match d.as_ref().map(|d| &d.message) {
            None => None,
            Some(None) => Some(None),
            Some(Some(m)) if (m.session, m.index) == (session, index) => Some(Some(m.clone())),
            Some(Some(_)) => None,
        })
    };
    let title = Signal::derive(move || match current().flatten() {
        Some(m) => format!("Message {} · session {}", m.index + 1, m.session_id),
        None => "Message".into(),
    });
    view! {
        <Drawer open=is_open title=title>
            {move || match current() {
                None => view! { <p class="eb-muted">"Loading…"</p> }.into_any(),
                Some(None) => view! { <p class="eb-muted">"This message is not in the run (the link may be from another version of it)."</p> }.into_any(),
                Some(Some(m)) => view! { <CodegenMessage message=m/> }.into_any(),
            }}
        </Drawer>
    }
}

/// One message: facts, question, code (or why there is none), result, scores, attempts.
#[component]
pub fn CodegenMessage(message: CodegenMessageView) -> impl IntoView {
    let m = message;
    let has_original = m.scores.iter().any(|s| s.original.is_some());
    view! {
        <div class="eb-codegen-message">
            <dl class="eb-facts">
                <div><dt>"Model"</dt><dd>{m.model.clone()}</dd></div>
                <div><dt>"Time"</dt><dd>{m.timestamp.clone().unwrap_or_else(|| format::NONE.into())}</dd></div>
                <div><dt>"Data file"</dt><dd class="eb-mono">{m.csv_file.clone().unwrap_or_else(|| format::NONE.into())}</dd></div>
                <div><dt>"Scores"</dt><dd>{if m.rescored { "re-scored under the current settings" } else { "as originally scored" }}</dd></div>
                <div><dt>"Source"</dt><dd class="eb-mono">{m.source.clone()}</dd></div>
            </dl>
            <h3 class="eb-subtitle">"Question"</h3>
            <p class="eb-turn__q" data-field="question">{m.question.clone()}</p>
            <h3 class="eb-subtitle">"Code"</h3>
            {match m.code.clone() {
                Some(code) => view! { <CodeBlock code=code label="Delivered code"/> }.into_any(),
                None => view! {
                    <div class="eb-callout eb-callout--note" role="note" data-note="code-not-recorded">
                        "Code was not recorded for this message (metrics.json holds scores only): the scores below are as originally scored."
                    </div>
                }.into_any(),
            }}
            {m.first_code.clone().map(|c| view! {
                <details class="eb-details">
                    <summary>"First generation (replaced by the recovery)"</summary>
                    <CodeBlock code=c label="First generation"/>
                </details>
            })}
            <h3 class="eb-subtitle">"Result"</h3>
            <p class="eb-mono eb-result" data-field="result">{m.result.clone()}</p>
            {m.error.clone().map(|e| view! {
                <div class="eb-callout eb-callout--error" data-field="error">
                    <strong>{format!("Error ({}): ", m.error_class.clone().unwrap_or_default())}</strong>{e}
                </div>
            })}
            <h3 class="eb-subtitle">"Scores"</h3>
            <table class="eb-table eb-table--compact" data-table="message-scores">
                <thead><tr>
                    <th scope="col">"Score"</th>
                    <th scope="col" class="eb-num">{if m.rescored { "Re-scored" } else { "As originally scored" }}</th>
                    {has_original.then(|| view! { <th scope="col" class="eb-num">"As originally scored"</th> })}
                    <th scope="col">"Details"</th>
                </tr></thead>
                <tbody>{m.scores.into_iter().map(|s| score_row(s, has_original)).collect_view()}</tbody>
            </table>
            {(!m.attempts.is_empty()).then(|| view! {
                <h3 class="eb-subtitle">"Recovery attempts"</h3>
                <ol class="eb-attempts">{m.attempts.into_iter().map(attempt).collect_view()}</ol>
            })}
        </div>
    }
}

fn score_row(s: CodegenScore, has_original: bool) -> impl IntoView {
    let differs = s.original.is_some() && s.original != s.score;
    view! {
        <tr data-score=s.key.clone() class:eb-compare__diff=differs>
            <th scope="row">{s.label}</th>
            <td class="eb-num">{score(s.score)}</td>
            {has_original.then(|| view! { <td class="eb-num">{score(s.original)}</td> })}
            <td>
                <dl class="eb-kv eb-kv--compact">
                    {s.details.into_iter().map(|(k, v)| view! { <div><dt>{k}</dt><dd>{v}</dd></div> }).collect_view()}
                </dl>
            </td>
        </tr>
    }
}

fn attempt(a: CodegenAttempt) -> impl IntoView {
    let head = format!(
        "Attempt {} · {} · fix quality {}",
        a.number,
        if a.success { "fixed" } else { "failed" },
        score(a.fix_quality)
    );
    view! {
        <li class="eb-attempt" class:eb-attempt--ok=a.success>
            <div class="eb-attempt__head">{head}</div>
            {a.error.map(|e| view! { <p class="eb-mono eb-attempt__error">{e}</p> })}
            {a.code.map(|c| view! { <CodeBlock code=c label="Fixed code"/> })}
        </li>
    }
}

/// Export: one `metrics.json` and `metrics_summary.json` per session (the CLI's `--out` files).
#[component]
pub fn CodegenExports() -> impl IntoView {
    let store = use_store();
    let run = current_run();
    let query = Memo::new(move |_| Some((run.get()?, CodegenQuery::Overview { dark: false })));
    let data = fetch(query);
    move || {
        let files = data.with(|d| d.as_ref().map(|d| d.exports.clone()).unwrap_or_default());
        view! {
            <ul class="eb-export__list">
                {files.into_iter().map(|file| {
                    let what = if file.ends_with("metrics_summary.json") {
                        "The session's summary (the seed system's schema)."
                    } else {
                        "The session's entries, one per message (the seed system's schema)."
                    };
                    let f2 = file.clone();
                    view! {
                        <li class="eb-export__item">
                            <button type="button" class="eb-btn" data-export=file.clone()
                                on:click=move |_| if let Some(id) = run.get_untracked() { store.export(id, &f2) }>
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
