//! Small shared pieces: progress bars, metric cards, the worker-drawn chart with its table,
//! plain data tables, verdict chips and the notice stack.

use leptos::prelude::*;

use crate::protocol::ChartDto;
use crate::ui::app::use_store;
use crate::ui::format;

#[component]
pub fn ProgressBar(value: f64, #[prop(into)] label: String) -> impl IntoView {
    let pct = (value.clamp(0.0, 1.0) * 100.0).round();
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
    view! {
        <div class="eb-card" class:eb-card--primary=primary data-metric=key title=help>
            <div class="eb-card__label">{label}</div>
            <div class="eb-card__value">{value}</div>
            {(!sub.is_empty()).then(|| view! { <div class="eb-card__sub">{sub}</div> })}
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

/// A rate with an inline bar (the bar is decoration; the number is the content).
#[component]
pub fn RateBar(value: Option<f64>) -> impl IntoView {
    let w = value
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(0.0, 1.0) * 100.0)
        .unwrap_or(0.0);
    view! {
        <span class="eb-ratebar">
            <span class="eb-ratebar__track" aria-hidden="true">
                <span class="eb-ratebar__fill" style=format!("width:{w:.1}%")></span>
            </span>
            <span class="eb-ratebar__text">{format::pct(value)}</span>
        </span>
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
