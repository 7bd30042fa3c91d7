//! Compare: a baseline and a candidate run of one family. Headline deltas, flip counts, McNemar's
//! exact p, the paired bootstrap 95% CI, and the paired items ("regressions first"), filterable by
//! flip class and category, each with a word-level diff of the two answers rendered as text.
//! Everything (runs, filters) lives in the URL hash.

use leptos::prelude::*;

use evalboard_engine::compare::{DiffKind, Flip};

use crate::protocol::{CompareQuery, CompareRow, CompareView as View, Request};
use crate::ui::app::use_store;
use crate::ui::client;
use crate::ui::format;
use crate::ui::store::Store;

const FLIPS: [(&str, &str); 7] = [
    ("regressed", "Regressed (correct → wrong)"),
    ("improved", "Improved (wrong → correct)"),
    ("unchanged_wrong", "Wrong in both"),
    ("unchanged_correct", "Correct in both"),
    ("only_in_baseline", "Only in baseline"),
    ("only_in_candidate", "Only in candidate"),
    ("unscored", "Scored in neither"),
];

fn flip_label(f: Flip) -> &'static str {
    match f {
        Flip::Regressed => "regressed",
        Flip::Improved => "improved",
        Flip::UnchangedCorrect => "correct in both",
        Flip::UnchangedWrong => "wrong in both",
        Flip::OnlyInBaseline => "only in baseline",
        Flip::OnlyInCandidate => "only in candidate",
        Flip::Unscored => "unscored",
    }
}

/// Loaded runs as (id, name, family).
fn loaded(store: Store) -> Vec<(u32, String, String)> {
    store.runs.with(|rs| {
        rs.iter()
            .filter_map(|r| r.info().map(|i| (r.id, r.name.clone(), i.family.clone())))
            .collect()
    })
}

#[component]
pub fn CompareView() -> impl IntoView {
    let store = use_store();
    let runs = Memo::new(move |_| loaded(store));
    // The pair: from the URL, else the first loaded run vs the current one (or the second).
    let pair = Memo::new(move |_| {
        let rs = runs.get();
        let by_name = |n: &Option<String>| {
            n.as_ref()
                .and_then(|n| rs.iter().find(|r| &r.1 == n).cloned())
        };
        let (b, c, cur) = store
            .route
            .with(|r| (by_name(&r.base), by_name(&r.cand), by_name(&r.run)));
        let b = b.or_else(|| rs.first().cloned())?;
        let c = c
            .or_else(|| cur.filter(|x| x.0 != b.0))
            .or_else(|| rs.iter().find(|r| r.0 != b.0 && r.2 == b.2).cloned())?;
        Some((b, c))
    });
    let query = Memo::new(move |_| {
        store.route.with(|r| CompareQuery {
            flip: r.flip.clone(),
            category: r.cat.clone(),
            limit: 0,
        })
    });
    Effect::new(move |_| {
        let Some((b, c)) = pair.get() else { return };
        let query = query.get();
        store.rescored.track();
        let req = client::next_req();
        store.compare_req.set_value(req);
        client::send(&Request::Compare {
            req,
            baseline: b.0,
            candidate: c.0,
            query,
        });
    });
    let pick = move |which: &'static str, name: String| {
        store.route.update(|r| {
            if which == "base" {
                r.base = Some(name);
            } else {
                r.cand = Some(name);
            }
        })
    };
    let selector = move |which: &'static str, label: &'static str| {
        view! {
            <label class="eb-compare__pick">
                <span>{label}</span>
                <select name=which on:change=move |ev| pick(which, event_target_value(&ev))>
                    {move || {
                        let chosen = pair.get().map(|(b, c)| if which == "base" { b.1 } else { c.1 });
                        runs.get().into_iter().map(|(_, name, family)| {
                            let sel = chosen.as_deref() == Some(name.as_str());
                            view! { <option value=name.clone() selected=sel>{format!("{name} ({family})")}</option> }
                        }).collect_view()
                    }}
                </select>
            </label>
        }
    };
    let current = Memo::new(move |_| {
        let (b, c) = pair.get()?;
        store
            .compare
            .get()
            .filter(|v| v.baseline == b.1 && v.candidate == c.1)
    });
    view! {
        <div class="eb-comparison">
            <div class="eb-filters">
                {selector("base", "Baseline")}
                {selector("cand", "Candidate")}
            </div>
            {move || match (pair.get(), current.get()) {
                (None, _) => view! { <p class="eb-state">"Load two runs of the same family to compare them."</p> }.into_any(),
                (_, None) => view! { <p class="eb-state eb-state--quiet">"Comparing…"</p> }.into_any(),
                (_, Some(v)) => body(store, v).into_any(),
            }}
        </div>
    }
}

fn signed_pp(x: Option<f64>) -> String {
    x.map(|d| format!("{:+.1} pp", d * 100.0))
        .unwrap_or_else(|| format::NONE.into())
}

fn body(store: Store, v: View) -> impl IntoView {
    if let Some(e) = v.error.clone() {
        return view! { <div class="eb-state eb-state--error" role="alert">{e}</div> }.into_any();
    }
    let f = v.flips;
    let p = if v.mcnemar_p < 0.001 {
        "< 0.001".to_string()
    } else {
        format!("{:.3}", v.mcnemar_p)
    };
    let ci = format!("[{}, {}]", signed_pp(v.ci_low), signed_pp(v.ci_high));
    let route_flip = store
        .route
        .with_untracked(|r| r.flip.clone())
        .unwrap_or_default();
    let route_cat = store
        .route
        .with_untracked(|r| r.cat.clone())
        .unwrap_or_default();
    let set_flip = move |s: String| {
        store
            .route
            .update(|r| r.flip = (!s.is_empty()).then_some(s))
    };
    let set_cat = move |s: String| store.route.update(|r| r.cat = (!s.is_empty()).then_some(s));
    let showing = if v.rows.len() < v.n_rows {
        format!(
            "first {} of {} items",
            v.rows.len(),
            format::int(v.n_rows as u64)
        )
    } else {
        format::plural(v.n_rows as u64, "item", "items")
    };
    view! {
        <p class="eb-muted">{v.judged_by.clone()}</p>
        {v.per_item_unavailable.clone().map(|w| view! { <div class="eb-state eb-state--quiet">{format!("Per-item diff unavailable: {w}")}</div> })}
        <div class="eb-cards">
            <div class="eb-card eb-card--primary" data-metric="accuracy_delta">
                <div class="eb-card__label">"Δ accuracy (paired)"</div>
                <div class="eb-card__value">{signed_pp(v.accuracy_delta)}</div>
                <div class="eb-card__sub">{format!("{} → {} over {} paired", format::pct(v.baseline_accuracy), format::pct(v.candidate_accuracy), format::int(v.n_paired))}</div>
            </div>
            <div class="eb-card" data-metric="regressed"><div class="eb-card__label">"Regressed"</div><div class="eb-card__value">{format::int(f.regressed)}</div><div class="eb-card__sub">"correct → wrong"</div></div>
            <div class="eb-card" data-metric="improved"><div class="eb-card__label">"Improved"</div><div class="eb-card__value">{format::int(f.improved)}</div><div class="eb-card__sub">"wrong → correct"</div></div>
            <div class="eb-card" data-metric="mcnemar_p"><div class="eb-card__label">"McNemar exact p"</div><div class="eb-card__value">{p}</div><div class="eb-card__sub">"two-sided, on the flips"</div></div>
            <div class="eb-card" data-metric="bootstrap_ci"><div class="eb-card__label">"Bootstrap 95% CI"</div><div class="eb-card__value">{ci}</div>
                <div class="eb-card__sub">{format!("paired, {} resamples, seed {}", format::int(u64::from(v.resamples)), v.seed)}</div></div>
        </div>
        <table class="eb-table" data-table="compare-metrics">
            <thead><tr><th scope="col">"Metric"</th><th scope="col" class="eb-num">{v.baseline.clone()}</th>
                <th scope="col" class="eb-num">{v.candidate.clone()}</th><th scope="col" class="eb-num">"Δ"</th></tr></thead>
            <tbody>
                {v.metrics.iter().map(|m| {
                    let d = m.baseline.zip(m.candidate).map(|(b, c)| c - b);
                    view! { <tr><th scope="row">{m.label.clone()}</th><td class="eb-num">{format::pct(m.baseline)}</td>
                        <td class="eb-num">{format::pct(m.candidate)}</td><td class="eb-num">{signed_pp(d)}</td></tr> }
                }).collect_view()}
                <tr><th scope="row">"Unchanged (correct / wrong)"</th><td class="eb-num" colspan="3">{format!("{} / {}", format::int(f.unchanged_correct), format::int(f.unchanged_wrong))}</td></tr>
                <tr><th scope="row">"Only in baseline / candidate"</th><td class="eb-num" colspan="3">{format!("{} / {}", format::int(f.only_in_baseline), format::int(f.only_in_candidate))}</td></tr>
            </tbody>
        </table>
        <div class="eb-filters">
            <select name="flip" aria-label="Flip class" on:change=move |ev| set_flip(event_target_value(&ev))>
                <option value="" selected=route_flip.is_empty()>"All items (regressions first)"</option>
                {FLIPS.iter().map(|(slug, label)| view! { <option value=*slug selected=route_flip == *slug>{*label}</option> }).collect_view()}
            </select>
            {(!v.categories.is_empty()).then(|| view! {
                <select name="cat" aria-label="Category" on:change=move |ev| set_cat(event_target_value(&ev))>
                    <option value="" selected=route_cat.is_empty()>"All categories"</option>
                    {v.categories.iter().map(|c| view! { <option value=c.clone() selected=route_cat == *c>{c.clone()}</option> }).collect_view()}
                </select>
            })}
            <span class="eb-items__count" role="status">{showing}</span>
        </div>
        <div class="eb-scroll-x">
            <table class="eb-table eb-table--rows" data-table="compare-items">
                <thead><tr><th scope="col">"Item"</th><th scope="col">"Change"</th><th scope="col">"Category"</th>
                    <th scope="col">"Question"</th><th scope="col">"Expected"</th><th scope="col">"Baseline → candidate (word diff)"</th></tr></thead>
                <tbody>{v.rows.into_iter().map(row).collect_view()}</tbody>
            </table>
        </div>
    }
    .into_any()
}

fn row(r: CompareRow) -> impl IntoView {
    let cls = match r.flip {
        Flip::Regressed => "eb-flip eb-flip--bad",
        Flip::Improved => "eb-flip eb-flip--ok",
        _ => "eb-flip",
    };
    let question = r.question.clone().unwrap_or_default();
    view! {
        <tr data-flip=crate::families::flip_slug(r.flip)>
            <th scope="row" class="eb-mono">{r.key}</th>
            <td><span class=cls>{flip_label(r.flip)}</span></td>
            <td>{r.category.unwrap_or_default()}</td>
            <td class="eb-clip" title=question.clone()>{format::clip(&question, 100)}</td>
            <td class="eb-mono">{r.expected.unwrap_or_default()}</td>
            <td class="eb-diff">
                {r.diff.into_iter().map(|s| match s.kind {
                    DiffKind::Equal => view! { <span>{s.text}</span> }.into_any(),
                    DiffKind::Delete => view! { <del class="eb-diff__del">{s.text}</del> }.into_any(),
                    DiffKind::Insert => view! { <ins class="eb-diff__ins">{s.text}</ins> }.into_any(),
                }).collect_view()}
            </td>
        </tr>
    }
}
