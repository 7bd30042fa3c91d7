//! Small shared pieces: progress bars, metric cards, the worker-drawn chart with its table,
//! plain data tables, verdict chips, the notice stack and the drawer dialog.

use leptos::prelude::*;

use crate::format;
use crate::protocol::ChartDto;
use crate::ui::store::use_store;

#[component]
pub fn ProgressBar(value: f64, #[prop(into)] label: String) -> impl IntoView {
    // A whole percentage: the page prints no floats of its own.
    let pct = (value.clamp(0.0, 1.0) * 100.0).round() as u32;
    view! {
        <div
            class="eb-progress"
            role="progressbar"
            aria-valuemin="0"
            aria-valuemax="100"
            aria-valuenow=pct.to_string()
            aria-valuetext=label
        >
            <div class="eb-progress__bar" style=format!("width:{pct}%")></div>
        </div>
    }
}

/// The header's summary of everything loading right now.
#[component]
pub fn LoadProgress() -> impl IntoView {
    let store = use_store();
    let busy = Memo::new(move |_| {
        store.runs.with(|rs| {
            let b: Vec<f64> = rs
                .iter()
                .filter(|r| r.is_busy())
                .filter_map(|r| r.progress())
                .collect();
            if b.is_empty() {
                None
            } else {
                Some((b.len(), b.iter().sum::<f64>() / b.len() as f64))
            }
        })
    });
    view! {
        <div class="eb-header__progress" role="status" aria-live="polite">
            {move || busy.get().map(|(n, p)| {
                let label = format!("Loading {} · {:.0}%", format::plural(n as u64, "run", "runs"), p * 100.0);
                view! {
                    <span class="eb-header__progress-text">{label.clone()}</span>
                    <ProgressBar value=p label=label/>
                }
            })}
        </div>
    }
}

#[component]
pub fn Notices() -> impl IntoView {
    let store = use_store();
    view! {
        <div class="eb-notices" role="status" aria-live="polite">
            <For each=move || store.notices.get() key=|n| n.id let:n>
                <div class="eb-notice" class:eb-notice--error=n.error role=if n.error { "alert" } else { "status" }>
                    <span class="eb-notice__text">{n.text.clone()}</span>
                    <button type="button" class="eb-icon-btn" aria-label="Dismiss"
                        on:click=move |_| store.notices.update(|v| v.retain(|x| x.id != n.id))>"×"</button>
                </div>
            </For>
        </div>
    }
}

/// A headline number.
#[component]
pub fn MetricCard(
    #[prop(into)] label: String,
    #[prop(into)] value: String,
    #[prop(optional, into)] sub: String,
    #[prop(optional, into)] help: String,
    #[prop(optional)] primary: bool,
    #[prop(optional, into)] key: String,
) -> impl IntoView {
    // The definition stands under the number (not only in a tooltip).
    let definition = help;
    view! {
        <div class="eb-card" class:eb-card--primary=primary data-metric=key>
            <div class="eb-card__label">{label}</div>
            <div class="eb-card__value">{value}</div>
            {(!sub.is_empty()).then(|| view! { <div class="eb-card__sub">{sub}</div> })}
            {(!definition.is_empty()).then(|| view! { <p class="eb-card__def">{definition}</p> })}
        </div>
    }
}

/// A worker-drawn SVG chart plus its text equivalent. The SVG comes from our own report crate in
/// the worker (never from input data), so it is the one place where inner_html is used.
#[component]
pub fn Chart(chart: ChartDto) -> impl IntoView {
    let ChartDto {
        key,
        title,
        svg,
        alt,
        table,
    } = chart;
    let (head, body) = match table.split_first() {
        Some((h, b)) => (h.clone(), b.to_vec()),
        None => (Vec::new(), Vec::new()),
    };
    view! {
        <figure class="eb-chart" data-chart=key>
            <figcaption class="eb-chart__title">{title}</figcaption>
            <div class="eb-chart__svg" role="img" aria-label=alt inner_html=svg></div>
            <details class="eb-chart__table">
                <summary>"Show as a table"</summary>
                <DataTable head=head rows=body/>
            </details>
        </figure>
    }
}

/// A plain table of text cells (first column as row headers). Rows whose `marked` entry is true
/// get the `eb-row--marked` class (a highlight; the cells must say why in text too).
#[component]
pub fn DataTable(
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    #[prop(optional, into)] caption: String,
    #[prop(optional)] numeric_from: Option<usize>,
    #[prop(optional)] marked: Vec<bool>,
) -> impl IntoView {
    let num_from = numeric_from.unwrap_or(1);
    view! {
        <table class="eb-table">
            {(!caption.is_empty()).then(|| view! { <caption class="eb-table__caption">{caption}</caption> })}
            <thead>
                <tr>
                    {head.into_iter().enumerate().map(|(i, h)| view! {
                        <th scope="col" class:eb-num=(i >= num_from)>{h}</th>
                    }).collect_view()}
                </tr>
            </thead>
            <tbody>
                {rows.into_iter().enumerate().map(|(r, row)| view! {
                    <tr class:eb-row--marked=marked.get(r).copied().unwrap_or(false)>
                        {row.into_iter().enumerate().map(|(i, c)| if i == 0 {
                            view! { <th scope="row">{c}</th> }.into_any()
                        } else {
                            view! { <td class:eb-num=(i >= num_from)>{c}</td> }.into_any()
                        }).collect_view()}
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// A correct/wrong chip for one scorer.
#[component]
pub fn Verdict(ok: Option<bool>, #[prop(optional, into)] label: String) -> impl IntoView {
    let (class, text) = match ok {
        Some(true) => ("eb-verdict eb-verdict--ok", "correct"),
        Some(false) => ("eb-verdict eb-verdict--bad", "wrong"),
        None => ("eb-verdict eb-verdict--none", "n/a"),
    };
    let text = if label.is_empty() {
        text.to_string()
    } else {
        label
    };
    view! { <span class=class>{text}</span> }
}

/// Tab inside a dialog cycles through its focusable elements: from the last one Tab goes to the
/// first, from the first Shift+Tab to the last.
fn trap_tab(ev: &web_sys::KeyboardEvent, panel: &web_sys::HtmlElement) {
    use wasm_bindgen::JsCast;
    let Ok(list) = panel.query_selector_all(
        "a[href],button:not([disabled]),input,select,textarea,summary,[tabindex]:not([tabindex=\"-1\"])",
    ) else {
        return;
    };
    let at = |i: u32| list.item(i);
    let (Some(first), Some(last)) = (at(0), at(list.length().saturating_sub(1))) else {
        return;
    };
    let (from, to) = if ev.shift_key() {
        (first, last)
    } else {
        (last, first)
    };
    let active: Option<web_sys::Node> = document().active_element().map(Into::into);
    if active.as_ref() == Some(&from) {
        ev.prevent_default();
        if let Ok(el) = to.dyn_into::<web_sys::HtmlElement>() {
            let _ = el.focus();
        }
    }
}

/// A dialog over the page for the open item (`route.item`): focus moves to its close button when
/// it opens and back to what opened it when it closes; Tab and Shift+Tab stay inside it
/// ([`trap_tab`]); Escape, the button or the backdrop close it (clearing `route.item`).
#[component]
pub fn Drawer(
    #[prop(into)] open: Signal<bool>,
    #[prop(into)] title: Signal<String>,
    children: ChildrenFn,
) -> impl IntoView {
    let store = use_store();
    let close_ref = NodeRef::<leptos::html::Button>::new();
    let panel = NodeRef::<leptos::html::Div>::new();
    let opener: StoredValue<Option<web_sys::HtmlElement>> = StoredValue::new(None);
    Effect::new(move |was_open: Option<bool>| {
        let is_open = open.get();
        if is_open && was_open != Some(true) {
            opener.set_value(
                document()
                    .active_element()
                    .and_then(|e| wasm_bindgen::JsCast::dyn_into(e).ok()),
            );
            request_animation_frame(move || {
                if let Some(b) = close_ref.get_untracked() {
                    let _ = b.focus();
                }
            });
        } else if !is_open && was_open == Some(true) {
            if let Some(el) = opener.get_value() {
                let _ = el.focus();
            }
        }
        is_open
    });
    let close = move || store.route.update(|r| r.item = None);
    let children = StoredValue::new(children);
    view! {
        <Show when=move || open.get()>
            <div class="eb-drawer-backdrop" on:click=move |_| close()></div>
            <div
                class="eb-drawer"
                role="dialog"
                aria-modal="true"
                aria-labelledby="eb-drawer-title"
                node_ref=panel
                on:keydown=move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
                    "Escape" => { ev.prevent_default(); close(); }
                    "Tab" => if let Some(p) = panel.get_untracked() { trap_tab(&ev, &p) },
                    _ => {}
                }
            >
                <div class="eb-drawer__head">
                    <h2 class="eb-drawer__title" id="eb-drawer-title">{move || title.get()}</h2>
                    <button type="button" class="eb-icon-btn eb-drawer__close" aria-label="Close" node_ref=close_ref on:click=move |_| close()>"×"</button>
                </div>
                <div class="eb-drawer__body">{children.with_value(|c| c())}</div>
            </div>
        </Show>
    }
}
