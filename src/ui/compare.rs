//! Compare: a baseline and a candidate run of one family — or a series (baseline, candidate and
//! more runs in order, e.g. successive training stages: each headline metric across the runs,
//! flips, McNemar and CI per consecutive step). Headline deltas, flip counts, McNemar's exact p,
//! the paired bootstrap 95% CI, and the paired items of the chosen step ("regressions first"),
//! filterable by flip class and category, each with a word-level diff of the two answers
//! rendered as text; the deltas per slice by a breakdown field the user picks (the worker's
//! table); run metadata side by side (differences marked) and the training loss curves
//! overlaid. Everything (runs, step, filters, slice field) lives in the URL hash.

use evalboard_engine::compare::Tone;
use leptos::prelude::*;

use evalboard_engine::family::Family;

use evalboard_engine::compare::Flip;

use crate::format;
use crate::protocol::{
    CompareQuery, CompareRow, CompareView as View, Request, SeriesView, COMPARE_PAGE,
};
use crate::ui::client;
use crate::ui::store::{use_store, Store};
use crate::ui::widgets::{Chart, DataTable};

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
fn loaded(store: Store) -> Vec<(u32, String, Family)> {
    store.runs.with(|rs| {
        rs.iter()
            .filter_map(|r| r.info().map(|i| (r.id, r.name.clone(), i.family)))
            .collect()
    })
}

/// What the run list shows for run `id` ([`crate::protocol::RunInfo::label`]), else `name`.
fn label_of(store: Store, id: u32, name: &str) -> String {
    store
        .runs
        .with_untracked(|rs| {
            rs.iter()
                .find(|r| r.id == id)
                .and_then(|r| r.info().map(|i| i.label.clone()))
        })
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| name.to_string())
}

type Run = (u32, String, Family);

/// The run to compare run `c` with by default: of its family, the same task first, then a run
/// that is a demo run when `c` is one and a dropped run when `c` is not, then another model
/// (the first loaded among equals); `None` when `c` is the only run of its family.
fn most_similar(store: Store, rs: &[Run], c: &Run) -> Option<Run> {
    let facets = |id: u32| {
        store.runs.with(|v| {
            v.iter()
                .find(|r| r.id == id)
                .and_then(|r| r.info().map(|i| (i.facets.clone(), r.demo)))
                .unwrap_or_default()
        })
    };
    let ([_, task, model], demo) = facets(c.0);
    rs.iter()
        .rev()
        .filter(|r| r.0 != c.0 && r.2 == c.2)
        .max_by_key(|r| {
            let ([_, t, m], d) = facets(r.0);
            4 * u8::from(t == task) + 2 * u8::from(d == demo) + u8::from(m != model)
        })
        .cloned()
}

/// The runs compared, in order: from the URL (`base`, `cand`, `also`…), else the current run
/// against the run most like it ([`most_similar`]; never a run of another family), else the
/// first loaded run against the next of its family. Names not loaded are left out.
fn series_of(store: Store, rs: &[Run]) -> Option<Vec<Run>> {
    let by_name = |n: &str| rs.iter().find(|r| r.1 == n).cloned();
    let (b, c, cur, also) = store.route.with(|r| {
        (
            r.base.as_deref().and_then(by_name),
            r.cand.as_deref().and_then(by_name),
            r.run.as_deref().and_then(by_name),
            r.also.iter().filter_map(|n| by_name(n)).collect::<Vec<_>>(),
        )
    });
    let b = match (b, &cur) {
        (Some(b), _) => b,
        (None, Some(cur)) => most_similar(store, rs, cur)?,
        (None, None) => rs.first().cloned()?,
    };
    let c = c
        .or_else(|| cur.filter(|x| x.0 != b.0))
        .or_else(|| rs.iter().find(|r| r.0 != b.0 && r.2 == b.2).cloned())?;
    let mut out = vec![b, c];
    out.extend(also);
    Some(out)
}

#[component]
pub fn CompareView() -> impl IntoView {
    let store = use_store();
    let runs = Memo::new(move |_| loaded(store));
    let series = Memo::new(move |_| series_of(store, &runs.get()));
    let query = Memo::new(move |_| {
        store.route.with(|r| CompareQuery {
            flip: r.flip.clone(),
            category: r.cat.clone(),
            limit: store.compare_rows.get(),
            by: r.by.clone(),
            by_item: store.compare_by_item.get(),
            scorer: r.choice("judge"),
        })
    });
    Effect::new(move |_| {
        let Some(s) = series.get() else { return };
        let query = query.get();
        let step = store.route.with(|r| r.step);
        let dark = store.dark.get();
        store.rescored.track();
        let req = client::next_req();
        store.series_req.set_value(req);
        client::send(&Request::Series {
            req,
            runs: s.iter().map(|r| r.0).collect(),
            step,
            query,
            dark,
        });
    });
    // Slot 0 = baseline, 1 = candidate, 2… = the series' further runs.
    let pick = move |slot: usize, name: String| {
        store.route.update(|r| match slot {
            0 => r.base = Some(name),
            1 => r.cand = Some(name),
            k => {
                if let Some(x) = r.also.get_mut(k - 2) {
                    *x = name;
                }
            }
        })
    };
    let selector = move |slot: usize| {
        let label = match slot {
            0 => "Baseline".to_string(),
            1 => "Candidate".to_string(),
            k => format!("Run {}", k + 1),
        };
        view! {
            <label class="eb-compare__pick">
                <span>{label}</span>
                <select name=if slot == 0 { "base".to_string() } else if slot == 1 { "cand".to_string() } else { format!("also{}", slot - 2) }
                    title=move || series.with(|s| s.as_ref().and_then(|s| s.get(slot).map(|r| r.1.clone())))
                    on:change=move |ev| pick(slot, event_target_value(&ev))>
                    {move || {
                        let s = series.get();
                        let chosen = s.as_ref().and_then(|s| s.get(slot).map(|r| r.1.clone()));
                        // After the baseline, only runs of its family (runs compare within a
                        // family), and whatever the link chose.
                        let base = s.as_ref().and_then(|s| s.first().map(|r| r.2)).filter(|_| slot > 0);
                        runs.get().into_iter().filter(|(_, name, family)| {
                            base.is_none_or(|b| b == *family) || chosen.as_deref() == Some(name.as_str())
                        }).map(|(id, name, family)| {
                            let sel = chosen.as_deref() == Some(name.as_str());
                            // The name first (the picker is clipped), then what the run is.
                            let shown = format!("{name} ({}) · {}", family.label(), label_of(store, id, &name));
                            view! { <option value=name.clone() selected=sel>{shown}</option> }
                        }).collect_view()
                    }}
                </select>
                {(slot >= 2).then(|| view! {
                    <button type="button" class="eb-icon-btn eb-icon-btn--danger" aria-label="Remove this run from the series"
                        on:click=move |_| store.route.update(|r| {
                            if slot - 2 < r.also.len() {
                                r.also.remove(slot - 2);
                            }
                            r.step = r.step.min(r.also.len() as u32);
                        })>"×"</button>
                })}
            </label>
        }
    };
    // Adds the first loaded run of the baseline's family that is not in the series yet.
    let add_run = move |_| {
        let (Some(s), rs) = (series.get_untracked(), runs.get_untracked()) else {
            return;
        };
        let family = s.first().map(|r| r.2);
        let next = rs
            .iter()
            .find(|r| Some(r.2) == family && !s.iter().any(|x| x.0 == r.0))
            .or_else(|| rs.first())
            .map(|r| r.1.clone());
        if let Some(n) = next {
            store.route.update(|r| {
                r.base = s.first().map(|x| x.1.clone());
                r.cand = s.get(1).map(|x| x.1.clone());
                r.also.push(n);
            });
        }
    };
    let current = Memo::new(move |_| {
        let s = series.get()?;
        store
            .series
            .get()
            .filter(|v| v.runs.len() == s.len() && v.runs.iter().zip(&s).all(|(a, b)| *a == b.1))
    });
    view! {
        <div class="eb-comparison">
            <div class="eb-filters eb-compare__picks">
                {move || {
                    let n = series.get().map_or(2, |s| s.len());
                    (0..n).map(selector).collect_view()
                }}
                <button type="button" class="eb-btn eb-btn--small" data-action="add-run" on:click=add_run
                    title="Compare a series of runs (e.g. successive training stages): each run with the one before it">
                    "+ Add a run to the series"
                </button>
            </div>
            {move || {
                let base = series.get().and_then(|s| s.first().map(|r| r.2))?;
                let others = runs.with(|rs| rs.iter().filter(|r| r.2 != base).count() as u64);
                (others > 0).then(|| view! {
                    <p class="eb-section__hint" data-testid="other-families">{format!(
                        "{} of other families not offered after the baseline: runs compare within a family ({} here).",
                        format::plural(others, "run", "runs"),
                        base.label()
                    )}</p>
                })
            }}
            {move || match (series.get(), current.get()) {
                (None, _) => view! { <p class="eb-state">"Load two runs of the same family to compare them."</p> }.into_any(),
                (_, None) => view! { <p class="eb-state eb-state--quiet">"Comparing…"</p> }.into_any(),
                (_, Some(v)) => series_body(store, v).into_any(),
            }}
        </div>
    }
}

/// A two-run comparison, or a series: metrics across the runs, flips per consecutive step (pick
/// one to list its items), then the chosen step in full. Run metadata and the loss-curve overlay
/// either way. The series' tables and the run metadata are the worker's screen blocks.
fn series_body(store: Store, v: SeriesView) -> impl IntoView {
    let step = v.step as usize;
    let n_steps = v.steps.len();
    let name = |s: &View| format!("{} → {}", s.baseline, s.candidate);
    let step_picker = (n_steps > 1).then(|| {
        view! {
            <label class="eb-compare__pick" data-section="step-detail">
                <span>"Items of step"</span>
                <select name="step" on:change=move |ev| {
                    let i = event_target_value(&ev).parse().unwrap_or(0);
                    store.route.update(|r| r.step = i);
                }>
                    {v.steps.iter().enumerate().map(|(i, s)| view! {
                        <option value=i.to_string() selected=i == step>{format!("{}. {}", i + 1, name(s))}</option>
                    }).collect_view()}
                </select>
            </label>
        }
    });
    let charts = (!v.charts.is_empty()).then(|| {
        view! {
            <div class="eb-charts" data-section="compare-charts">
                {v.charts.into_iter().map(|c| view! { <Chart chart=c/> }).collect_view()}
            </div>
        }
    });
    // The series' tables and the run metadata, as the worker lays them out.
    let blocks = crate::ui::screen::blocks(v.blocks);
    view! {
        {blocks}
        {charts}
        {step_picker}
        {v.steps.get(step).cloned().map(|d| body(store, d))}
    }
}

fn body(store: Store, v: View) -> impl IntoView {
    if let Some(e) = v.error.clone() {
        return view! { <div class="eb-state eb-state--error" role="alert">{e}</div> }.into_any();
    }
    let f = v.flips;
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
    let (more, n_rows) = (v.rows.len() < v.n_rows, v.n_rows);
    let showing = if v.rows.len() < v.n_rows {
        format!(
            "first {} of {} items",
            v.rows.len(),
            format::int(v.n_rows as u64)
        )
    } else {
        format::plural(v.n_rows as u64, "item", "items")
    };
    let reading = v.reading.clone().map(|r| {
        let tone = match r.tone {
            Tone::Worse => "worse",
            Tone::Better => "better",
            Tone::Undecided => "undecided",
            Tone::Same => "same",
            Tone::Empty => "empty",
        };
        view! {
            <p class=format!("eb-reading-line eb-reading-line--{tone}") role="status" data-tone=tone>{r.text}</p>
        }
    });
    view! {
        {reading}
        <p class="eb-muted">{v.judged_by.clone()}</p>
        // Items with repeats (epochs): the pairing, and the toggle to pair by item.
        {v.pairing.clone().map(|p| view! {
            <p class="eb-muted" data-testid="pairing"><label><input type="checkbox" name="by-item"
                prop:checked=store.compare_by_item.get_untracked()
                on:change=move |ev| store.compare_by_item.set(event_target_checked(&ev))/>" Pair by item · "</label>{p}</p>
        })}
        {v.per_item_unavailable.clone().map(|w| view! { <div class="eb-state eb-state--quiet">{format!("Per-item diff unavailable: {w}")}</div> })}
        // The cards, then the failure cohorts against the baseline: a cohort's "Show items"
        // opens its run's Items with the cohort's query.
        <div on:click=|ev| if let Some(o) = crate::ui::screen::opened(&ev) { crate::ui::query::open_query(&o); }>
            {crate::ui::screen::blocks(v.cards.clone())}
        </div>
        <table class="eb-table" data-table="compare-metrics">
            <thead><tr><th scope="col">"Metric"</th><th scope="col" class="eb-num"><span class="eb-clip eb-clip--name" title=v.baseline.clone()>{v.baseline.clone()}</span></th>
                <th scope="col" class="eb-num"><span class="eb-clip eb-clip--name" title=v.candidate.clone()>{v.candidate.clone()}</span></th><th scope="col" class="eb-num">"Δ"</th></tr></thead>
            <tbody>
                {v.metric_rows.iter().cloned().map(|(key, label, b, c, d)| view! {
                    <tr data-metric-row=key><th scope="row">{label}</th><td class="eb-num">{b}</td>
                        <td class="eb-num">{c}</td><td class="eb-num">{d}</td></tr>
                }).collect_view()}
                <tr><th scope="row">"Unchanged (correct / wrong)"</th><td class="eb-num" colspan="3">{format!("{} / {}", format::int(f.unchanged_correct), format::int(f.unchanged_wrong))}</td></tr>
                <tr><th scope="row">"Only in baseline / candidate"</th><td class="eb-num" colspan="3">{format!("{} / {}", format::int(f.only_in_baseline), format::int(f.only_in_candidate))}</td></tr>
            </tbody>
        </table>
        {(!v.slices.is_empty()).then(|| {
            let (head, rows) = match v.slices.split_first() {
                Some((h, r)) => (h.clone(), r.to_vec()),
                None => (Vec::new(), Vec::new()),
            };
            let by = v.slice_by.clone().unwrap_or_default();
            view! {
                <section class="eb-section" data-section="compare-slices">
                    <h2 class="eb-section__title">{format!("By {by}")}</h2>
                    // The field the items are sliced by (the worker offers the run's fields).
                    {(v.slice_fields.len() > 1).then(|| view! {
                        <label class="eb-compare__pick"><span>"Slice by"</span>
                            <select name="by" on:change=move |ev| store.route.update(|r| r.by = Some(event_target_value(&ev)))>
                                {v.slice_fields.iter().map(|f| view! { <option value=f.clone() selected=*f == by>{f.clone()}</option> }).collect_view()}
                            </select>
                        </label>
                    })}
                    <div class="eb-scroll-x" data-table="compare-slices"><DataTable head=head rows=rows/></div>
                </section>
            }
        })}
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
                <tbody>{v.rows.into_iter().map(|r| row(r, &v.baseline, &v.candidate)).collect_view()}</tbody>
            </table>
        </div>
        {more.then(|| view! {
            <button type="button" class="eb-btn" data-testid="compare-more"
                on:click=move |_| store.compare_rows.set(COMPARE_PAGE)>{
                    if n_rows <= COMPARE_PAGE {
                        format!("Show all {} items", format::int(n_rows as u64))
                    } else {
                        format!("Show the first {} of {} items", COMPARE_PAGE, format::int(n_rows as u64))
                    }
                }</button>
        })}
    }
    .into_any()
}

/// One paired item: its key opens it (in the candidate, or in the baseline when only the
/// baseline has it), its flip, category, question, expected value and the answers' diff.
fn row(r: CompareRow, baseline: &str, candidate: &str) -> impl IntoView {
    let store = use_store();
    let in_run = if r.flip == Flip::OnlyInBaseline {
        baseline
    } else {
        candidate
    }
    .to_string();
    let open_title = format!("Open this item in {in_run}");
    let item = r.key.clone();
    let open_item = move |_| store.open_item_in(&in_run, item.clone());
    let cls = match r.flip {
        Flip::Regressed => "eb-flip eb-flip--bad",
        Flip::Improved => "eb-flip eb-flip--ok",
        _ => "eb-flip",
    };
    let question = r.question.clone().unwrap_or_default();
    let key = format::item_key(&r.key);
    let diff = crate::ui::screen::diff_view(r.diff);
    let pair_key = r.key.clone();
    let (base_name, cand_name) = (baseline.to_string(), candidate.to_string());
    // Both runs' item side by side, in a drawer over the Compare tab (`PairDrawer`).
    let open_pair = move |_| {
        let id = |n: &str| {
            store
                .runs
                .with_untracked(|rs| rs.iter().find(|r| r.name == n).map(|r| r.id))
        };
        if let (Some(b), Some(c)) = (id(&base_name), id(&cand_name)) {
            store.pair.set(Some((b, c)));
            store.route.update(|r| r.item = Some(pair_key.clone()));
        }
    };
    view! {
        <tr data-flip=r.flip.slug()>
            <th scope="row" class="eb-mono"><button type="button" class="eb-link" data-action="open-item"
                title=open_title on:click=open_item>{key}</button></th>
            <td>
                <span class=cls>{flip_label(r.flip)}</span>
                <button type="button" class="eb-link eb-side__toggle" data-action="side-by-side"
                    title="Both runs' item side by side: inputs, outputs, scores, conversations"
                    on:click=open_pair>"side by side"</button>
            </td>
            <td>{r.category.unwrap_or_default()}</td>
            <td class="eb-clip" title=question.clone()>{format::clip(&question, 100)}</td>
            <td class="eb-mono">{r.expected.unwrap_or_default()}</td>
            // A long output is clipped to a few lines; focusing it (click or Tab) shows it whole.
            <td class="eb-diff"><div class="eb-diff__box" tabindex="0" title="Click or Tab into it to read it whole">
                {diff}
            </div></td>
        </tr>
    }
}

/// A Compare row side by side (`store.pair` and `route.item`): the worker's pair screen
/// (`ScreenQuery::Pair`: the outputs' diff, then each run's item in a column).
#[component]
pub fn PairDrawer() -> impl IntoView {
    let store = use_store();
    let query = Memo::new(move |_| {
        let key = store.route.with(|r| r.item.clone())?;
        let (baseline, candidate) = store.pair.get()?;
        Some((
            crate::ui::screen::Target::Run(candidate),
            crate::protocol::ScreenQuery::Pair { baseline, key },
        ))
    });
    // Closed (the item cleared): the next item opens where it is again.
    Effect::new(move |_| {
        if store.route.with(|r| r.item.is_none()) {
            store.pair.set(None);
        }
    });
    let data = crate::ui::screen::fetch(query);
    let is_open = Memo::new(move |_| query.with(|q| q.is_some()));
    let item = move || data.with(|d| d.as_ref().and_then(|d| d.item.clone()));
    let title = Signal::derive(move || item().map_or_else(|| "Side by side".into(), |m| m.title));
    view! {
        <crate::ui::widgets::Drawer open=is_open title=title>
            {move || match item() {
                Some(m) => view! { <div class="eb-screen-item" data-testid="pair">{crate::ui::screen::blocks(m.blocks)}</div> }.into_any(),
                None => view! { <p class="eb-muted">"Loading…"</p> }.into_any(),
            }}
        </crate::ui::widgets::Drawer>
    }
}
