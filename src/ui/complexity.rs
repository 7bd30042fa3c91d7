//! Complexity: accuracy and average operations by turn number, accuracy by operations per turn,
//! logic recall by turn (tables with inline bars; the worker's complexity charts when it sends them).

use std::collections::BTreeSet;

use leptos::prelude::*;

use crate::format;
use crate::ui::overview::chart_home;
use crate::ui::route::Tab;
use crate::ui::store::use_store;
use crate::ui::widgets::{Chart, RateBar};

#[component]
pub fn ComplexityView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    move || {
        let Some(d) = data.get() else {
            return view! { <div class="eb-state eb-state--quiet">"Computing…"</div> }.into_any();
        };
        let s = d.overview.stats;
        let turns: BTreeSet<u32> = s
            .accuracy_by_turn_number
            .keys()
            .chain(s.avg_operations_by_turn.keys())
            .chain(s.logic_recall_by_turn.keys())
            .map(|k| k.0)
            .collect();
        let by_turn: Vec<_> = turns
            .into_iter()
            .map(|t| {
                let k = evalboard_engine::numeric_qa::aggregate::doc::TurnKey(t);
                (
                    t,
                    s.accuracy_by_turn_number.get(&k).copied(),
                    s.avg_operations_by_turn.get(&k).copied(),
                    s.logic_recall_by_turn.get(&k).copied(),
                )
            })
            .collect();
        let by_ops: Vec<(u32, f64)> = s
            .accuracy_by_operations_per_turn
            .iter()
            .map(|(k, v)| (k.0, *v))
            .collect();
        let charts: Vec<_> = d
            .charts
            .into_iter()
            .filter(|c| chart_home(&c.key) == Tab::Complexity)
            .collect();
        view! {
            <div class="eb-complexity">
                {(!charts.is_empty()).then(|| view! {
                    <section class="eb-section eb-charts">
                        {charts.into_iter().map(|c| view! { <Chart chart=c/> }).collect_view()}
                    </section>
                })}
                <div class="eb-grid2">
                    <section class="eb-section" aria-labelledby="eb-byturn-title">
                        <h2 class="eb-section__title" id="eb-byturn-title">"By turn number"</h2>
                        <p class="eb-section__hint">"Does accuracy fall in later turns, as questions build on earlier answers?"</p>
                        {if by_turn.is_empty() {
                            view! { <p class="eb-muted">"No turns."</p> }.into_any()
                        } else {
                            view! {
                                <table class="eb-table" data-table="by-turn">
                                    <thead><tr>
                                        <th scope="col" class="eb-num">"Turn"</th>
                                        <th scope="col">"Accuracy"</th>
                                        <th scope="col" class="eb-num">"Avg operations"</th>
                                        <th scope="col">"Logic recall"</th>
                                    </tr></thead>
                                    <tbody>
                                        {by_turn.into_iter().map(|(t, acc, ops, rec)| view! {
                                            <tr>
                                                <th scope="row" class="eb-num">{t}</th>
                                                <td><RateBar value=acc/></td>
                                                <td class="eb-num">{format::dec(ops, 2)}</td>
                                                <td><RateBar value=rec/></td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }}
                    </section>
                    <section class="eb-section" aria-labelledby="eb-byops-title">
                        <h2 class="eb-section__title" id="eb-byops-title">"By operations per turn"</h2>
                        <p class="eb-section__hint">"Where is the complexity ceiling: how many compute steps before accuracy drops?"</p>
                        {if by_ops.is_empty() {
                            view! { <p class="eb-muted">"No plans recorded, so no operation counts."</p> }.into_any()
                        } else {
                            view! {
                                <table class="eb-table" data-table="by-ops">
                                    <thead><tr>
                                        <th scope="col" class="eb-num">"Operations"</th>
                                        <th scope="col">"Accuracy"</th>
                                    </tr></thead>
                                    <tbody>
                                        {by_ops.into_iter().map(|(o, acc)| view! {
                                            <tr>
                                                <th scope="row" class="eb-num">{o}</th>
                                                <td><RateBar value=Some(acc)/></td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }}
                        <p class="eb-footnote">{format!("Average operations per turn: {}", format::dec(s.avg_operations_per_turn, 2))}</p>
                    </section>
                </div>
            </div>
        }
        .into_any()
    }
}
