//! Eval-set runs: the scorecard, group tables with bars, the `@v1` vs `@v1-extract`
//! flips, the eval summary "as originally scored", the eval-set validation report, and every item
//! as text.

use leptos::prelude::*;

use evalboard_engine::evalset::AnswerScorer;

use crate::format;
use crate::protocol::{EvalsetItemRow, EvalsetView, GroupRow};
use crate::ui::browser::lower;
use crate::ui::store::use_store;
use crate::ui::widgets::{MetricCard, RateBar, Verdict};

fn current_view() -> Memo<Option<EvalsetView>> {
    let store = use_store();
    Memo::new(move |_| {
        let id = store.current().map(|r| r.id)?;
        store
            .evalset
            .with(|e| e.as_ref().filter(|e| e.0 == id).map(|e| e.1.clone()))
    })
}

fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_else(|| format::NONE.to_string())
}

#[component]
pub fn EvalsetOverview() -> impl IntoView {
    let v = current_view();
    move || match v.get() {
        None => view! { <div class="eb-state eb-state--quiet">"Scoring…"</div> }.into_any(),
        Some(v) => overview(v).into_any(),
    }
}

fn overview(v: EvalsetView) -> impl IntoView {
    let verdict_sub = v.verdict_reason.clone();
    let spread = format!(
        "min {} · max {}",
        format::dec(v.min_score, 2),
        format::dec(v.max_score, 2)
    );
    let groups = v.groups.clone();
    let flips = v.extract_flips.clone();
    let n_flips = flips.len();
    // A headline scorer that gives 0% while the other one does not is said where the 0% stands,
    // with the switch (the whole-output v1 on long outputs of a model that reasons first).
    let (other, other_score) = if v.scorer.ends_with("-extract") {
        (AnswerScorer::V1, v.v1_score)
    } else {
        (AnswerScorer::V1Extract, v.v1_extract_score)
    };
    let zero_note =
        (v.primary_score == Some(0.0) && other_score.is_some_and(|x| x > 0.0)).then(|| {
            let store = use_store();
            view! {
                <div class="eb-callout" role="note" data-testid="zero-headline">
                    {format!(
                        "{} gives this run 0%, {} gives {}. ",
                        v.scorer,
                        other.id(),
                        format::pct(other_score),
                    )}
                    <button type="button" class="eb-link" on:click=move |_| {
                        let mut s = store.settings.get_untracked();
                        s.evalset.scorer = other;
                        store.configure(s);
                    }>{format!("Score with {}", other.id())}</button>
                </div>
            }
        });
    view! {
        <div class="eb-overview eb-evalset">
            {v.run_failure.clone().map(|f| view! {
                <div class="eb-state eb-state--error" role="alert">{format!("This run failed ({f}): every item counts as wrong.")}</div>
            })}
            {v.per_item_unavailable.clone().map(|f| view! {
                <div class="eb-state eb-state--quiet" role="status">{format!("Per-item diff unavailable: {f}")}</div>
            })}
            <div class="eb-cards">
                <MetricCard key="primary_score" label="Primary score" value=format::pct(v.primary_score)
                    sub=v.scorer.clone() help="Mean answer correctness over the scored items" primary=true/>
                <MetricCard key="n_items" label="Items" value=format::int(v.n_items)
                    sub=format!("{} scored · {} skipped", format::int(v.n_scored), format::int(v.n_skipped))/>
                <MetricCard key="stddev" label="Std deviation" value=format::dec(v.stddev, 3) sub=spread/>
                <MetricCard key="verdict" label="Verdict" value=v.verdict.to_ascii_uppercase() sub=verdict_sub/>
                {if v.scorer.ends_with("-extract") {
                    view! { <MetricCard key="v1" label="Without answer extraction" value=format::pct(v.v1_score)
                        sub=format!("{} · {} flips", AnswerScorer::V1.id(), n_flips)/> }
                } else {
                    view! { <MetricCard key="v1_extract" label="With answer extraction" value=format::pct(v.v1_extract_score)
                        sub=format!("{} · {} flips", AnswerScorer::V1Extract.id(), n_flips)/> }
                }}
            </div>
            {zero_note}
            <div class="eb-grid2">
                {groups.into_iter().filter(|(_, rows)| !rows.is_empty()).map(|(dim, rows)| group_table(dim, rows)).collect_view()}
            </div>
            <section class="eb-section" data-section="extract-flips">
                <h2 class="eb-section__title">{format!("@v1 vs @v1-extract: {} items change verdict", n_flips)}</h2>
                {if flips.is_empty() {
                    view! { <p class="eb-muted">"Extracting the answer from the prediction changes no verdict."</p> }.into_any()
                } else {
                    view! {
                        <div class="eb-scroll-x">
                            <table class="eb-table eb-table--rows" data-table="extract-flips">
                                <thead><tr><th scope="col">"Item"</th><th scope="col">"Expected"</th><th scope="col">"Prediction"</th>
                                    <th scope="col">"Extracted"</th><th scope="col">"@v1"</th><th scope="col">"@v1-extract"</th></tr></thead>
                                <tbody>
                                    {flips.into_iter().map(|f| view! {
                                        <tr>
                                            <th scope="row" class="eb-mono">{f.id}</th>
                                            <td class="eb-mono">{opt(&f.expected)}</td>
                                            <td class="eb-clip" title=opt(&f.predicted)>{format::clip(&opt(&f.predicted), 120)}</td>
                                            <td class="eb-mono">{opt(&f.extracted)}</td>
                                            <td><Verdict ok=f.v1/></td>
                                            <td><Verdict ok=f.extract/></td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    }.into_any()
                }}
            </section>
            {original(&v)}
            {v.validation.clone().into_iter().map(|r| view! {
                <section class="eb-section" data-section="validation">
                    <h2 class="eb-section__title">{format!("Eval set check: {} ({} items)", r.file, r.items)}</h2>
                    <p>{format!("{} · {}", format::plural(r.errors.len() as u64, "error", "errors"), format::plural(r.warnings.len() as u64, "warning", "warnings"))}</p>
                    <ul class="eb-findings">
                        {r.errors.into_iter().map(|e| view! { <li class="eb-finding eb-finding--error">{format!("error: {e}")}</li> }).collect_view()}
                        {r.warnings.into_iter().map(|e| view! { <li class="eb-finding">{format!("warning: {e}")}</li> }).collect_view()}
                    </ul>
                    <p class="eb-muted">{r.composition.into_iter().map(|(dim, counts)| format!("{dim}: {}", counts.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", "))).collect::<Vec<_>>().join(" · ")}</p>
                </section>
            }).collect_view()}
        </div>
    }
}

fn group_table(dim: String, rows: Vec<GroupRow>) -> impl IntoView {
    view! {
        <section class="eb-section" data-section=format!("by-{dim}")>
            <h2 class="eb-section__title">{format!("By {dim}")}</h2>
            <table class="eb-table" data-table=format!("by-{dim}")>
                <thead><tr><th scope="col">{dim.clone()}</th><th scope="col" class="eb-num">"Scored"</th>
                    <th scope="col" class="eb-num">"Correct"</th><th scope="col">"Score"</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|g| view! {
                        <tr>
                            <th scope="row">{g.name}</th>
                            <td class="eb-num">{format::int(g.n_scored)}</td>
                            <td class="eb-num">{format::int(g.n_correct)}</td>
                            <td><RateBar value=Some(g.score)/></td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

fn original(v: &EvalsetView) -> impl IntoView {
    let agreement = v.original_agreement.clone().map(|a| {
        format!(
            "{} of {} items with an original verdict disagree with the re-scoring{}",
            a.n_disagree,
            a.n_compared,
            if a.disagreeing_ids.is_empty() {
                String::new()
            } else {
                format!(": {}", a.disagreeing_ids.join(", "))
            }
        )
    });
    v.original.clone().map(|e| {
        view! {
            <section class="eb-section" data-section="original">
                <h2 class="eb-section__title">"As originally scored (eval_summary.json)"</h2>
                <table class="eb-table" data-table="original">
                    <tbody>
                        <tr><th scope="row">"Entry"</th><td class="eb-mono">{e.name.clone()}</td></tr>
                        <tr><th scope="row">"Accuracy"</th><td>{format::pct(e.accuracy)}</td></tr>
                        <tr><th scope="row">"Correct / items"</th><td>{format!("{} / {}", format::opt_int(e.n_correct), format::opt_int(e.n_items))}</td></tr>
                        <tr><th scope="row">"Runtime"</th><td>{e.runtime_seconds.map(|s| format!("{s:.1} s")).unwrap_or_else(|| format::NONE.into())}</td></tr>
                        {e.error.clone().map(|err| view! { <tr><th scope="row">"Error"</th><td>{err}</td></tr> })}
                        {e.sections.iter().map(|s| view! {
                            <tr><th scope="row">{format!("Section {}", s.name)}</th>
                                <td>{format!("{} ({} / {})", format::pct(s.accuracy), format::opt_int(s.n_correct), format::opt_int(s.n_items))}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
                {agreement.map(|a| view! { <p>{a}</p> })}
            </section>
        }
    })
}

#[component]
pub fn EvalsetItems() -> impl IntoView {
    let v = current_view();
    let (only_wrong, set_only_wrong) = signal(false);
    let (text, set_text) = signal(String::new());
    let rows = Memo::new(move |_| {
        let t = lower(&text.get());
        v.with(|v| {
            v.as_ref()
                .map(|v| {
                    v.items
                        .iter()
                        .filter(|i| !only_wrong.get() || i.correct != Some(true))
                        .filter(|i| {
                            t.is_empty()
                                || lower(&i.id).contains(&t)
                                || lower(&i.prompt).contains(&t)
                                || lower(&opt(&i.predicted)).contains(&t)
                        })
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    view! {
        <div class="eb-items">
            <div class="eb-filters">
                <label><input type="checkbox" on:change=move |ev| set_only_wrong.set(event_target_checked(&ev))/>" not correct only"</label>
                <input type="search" placeholder="Search id, prompt, prediction" aria-label="Search items"
                    on:input=move |ev| set_text.set(event_target_value(&ev))/>
            </div>
            <div class="eb-items__count" role="status">{move || format!("{} items", format::int(rows.with(|r| r.len()) as u64))}</div>
            <div class="eb-scroll-x">
                <table class="eb-table eb-table--rows" data-table="evalset-items">
                    <thead><tr>
                        <th scope="col">"Id"</th><th scope="col">"Prompt"</th><th scope="col">"Expected"</th>
                        <th scope="col">"Predicted"</th><th scope="col">"Verdict"</th><th scope="col">"Reason"</th>
                        <th scope="col">"Section"</th><th scope="col">"Category"</th>
                    </tr></thead>
                    <tbody>
                        <For each=move || rows.get() key=|r: &EvalsetItemRow| r.id.clone() let:r>
                            <tr>
                                <th scope="row" class="eb-mono">{r.id.clone()}</th>
                                <td class="eb-clip" title=r.prompt.clone()>{format::clip(&r.prompt, 140)}</td>
                                <td class="eb-mono">{opt(&r.expected)}</td>
                                <td class="eb-clip" title=opt(&r.predicted)>{format::clip(&opt(&r.predicted), 140)}</td>
                                <td><Verdict ok=r.correct/></td>
                                <td class="eb-muted">{r.reason.clone().unwrap_or_default()}</td>
                                <td>{r.section.clone().unwrap_or_default()}</td>
                                <td>{r.category.clone().unwrap_or_default()}</td>
                            </tr>
                        </For>
                    </tbody>
                </table>
            </div>
        </div>
    }
}
