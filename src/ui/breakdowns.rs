//! Breakdowns: every `by_*` map of the statistics as a table (feature flags, conversation type,
//! model), each group with its conversations, turns and rates.

use std::collections::BTreeMap;

use leptos::prelude::*;

use evalboard_engine::numeric_qa::aggregate::doc::Breakdown;

use crate::format;
use crate::protocol::ChartDto;
use crate::ui::store::use_store;
use crate::ui::widgets::{Chart, RateBar};

#[component]
pub fn BreakdownsView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    move || {
        let Some(d) = data.get() else {
            return view! { <div class="eb-state eb-state--quiet">"Computing…"</div> }.into_any();
        };
        let s = d.overview.stats;
        let groups = vec![
            (
                "by_has_type2_question",
                "Type-2 question",
                "Conversations with a type-2 (reasoning-heavy) question",
                s.by_has_type2_question,
            ),
            (
                "by_has_non_numeric_values",
                "Non-numeric values",
                "Tables with non-numeric entries",
                s.by_has_non_numeric_values,
            ),
            (
                "by_has_duplicate_columns",
                "Duplicate columns",
                "Tables with duplicate column names",
                s.by_has_duplicate_columns,
            ),
            (
                "by_conversation_type",
                "Conversation type",
                "The dataset's conversation type",
                s.by_conversation_type,
            ),
            ("by_model", "Model", "The model that answered", s.by_model),
        ];
        let mut charts = d.charts;
        view! {
            <div class="eb-breakdowns">
                {groups.into_iter().map(|(key, title, hint, map)| {
                    let chart = charts.iter().position(|c| c.key == key).map(|i| charts.swap_remove(i));
                    breakdown_table(key, title, hint, map, chart)
                }).collect_view()}
            </div>
        }
        .into_any()
    }
}

fn breakdown_table(
    key: &'static str,
    title: &'static str,
    hint: &'static str,
    map: BTreeMap<String, Breakdown>,
    chart: Option<ChartDto>,
) -> impl IntoView {
    let id = format!("eb-{key}-title");
    let id2 = id.clone();
    view! {
        <section class="eb-section" aria-labelledby=id data-breakdown=key>
            <h2 class="eb-section__title" id=id2>{title}</h2>
            <p class="eb-section__hint">{hint}</p>
            {if map.is_empty() {
                view! { <p class="eb-muted">"No data."</p> }.into_any()
            } else {
                view! {
                    <div class="eb-scroll-x">
                    <table class="eb-table">
                        <thead><tr>
                            <th scope="col">"Group"</th>
                            <th scope="col" class="eb-num">"Conversations"</th>
                            <th scope="col" class="eb-num">"Turns"</th>
                            <th scope="col">"Numerical"</th>
                            <th scope="col" class="eb-num">"Exact"</th>
                            <th scope="col" class="eb-num">"Soft"</th>
                            <th scope="col" class="eb-num">"Conversation-level"</th>
                            <th scope="col" class="eb-num">"Logic recall"</th>
                            <th scope="col" class="eb-num">"Error rate"</th>
                        </tr></thead>
                        <tbody>
                            {map.into_iter().map(|(g, b)| view! {
                                <tr>
                                    <th scope="row" class="eb-mono">{g}</th>
                                    <td class="eb-num">{format::int(b.conversations)}</td>
                                    <td class="eb-num">{format::int(b.turns)}</td>
                                    <td><RateBar value=b.numerical_accuracy/></td>
                                    <td class="eb-num">{format::pct(b.exact_match_accuracy)}</td>
                                    <td class="eb-num">{format::pct(b.soft_match_accuracy)}</td>
                                    <td class="eb-num">{format::pct(b.conversation_level_accuracy)}</td>
                                    <td class="eb-num">{format::pct(b.avg_logic_recall)}</td>
                                    <td class="eb-num">{format::pct(b.error_rate)}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    </div>
                }.into_any()
            }}
            {chart.map(|c| view! { <div class="eb-breakdown__chart"><Chart chart=c/></div> })}
        </section>
    }
}
