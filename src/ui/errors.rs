//! Errors: counts by error type (each linking to the Items view filtered to it), and error rates
//! by dataset feature.

use leptos::prelude::*;

use crate::format;
use crate::ui::overview::chart_home;
use crate::ui::route::Tab;
use crate::ui::store::use_store;
use crate::ui::widgets::{Chart, RateBar};

#[component]
pub fn ErrorsView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    move || {
        let Some(d) = data.get() else {
            return view! { <div class="eb-state eb-state--quiet">"Computing…"</div> }.into_any();
        };
        let s = d.overview.stats;
        let total: u64 = s.error_types.values().sum();
        let n_turns = s.total_turns;
        let mut types: Vec<(String, u64)> = s.error_types.into_iter().collect();
        // Most frequent first, then by name.
        crate::ui::order::sort_by_key(&mut types, |(name, n)| {
            format!("{:020}{name}", u64::MAX - n)
        });
        let features = vec![
            ("has_type2_question", s.by_has_type2_question),
            ("has_non_numeric_values", s.by_has_non_numeric_values),
            ("has_duplicate_columns", s.by_has_duplicate_columns),
        ];
        let charts: Vec<_> = d
            .charts
            .into_iter()
            .filter(|c| chart_home(&c.key) == Tab::Errors)
            .collect();
        let wrong_turns = s
            .numerical_accuracy
            .map(|a| ((1.0 - a) * n_turns as f64).round() as u64);
        view! {
            <div class="eb-errors">
                <div class="eb-cards eb-cards--small">
                    <div class="eb-card" data-metric="errors_total">
                        <div class="eb-card__label">"Turns with an error"</div>
                        <div class="eb-card__value">{format::int(total)}</div>
                        <div class="eb-card__sub">{format!("error rate {}", format::pct(s.error_rate))}</div>
                    </div>
                    <div class="eb-card">
                        <div class="eb-card__label">"Wrong answers"</div>
                        <div class="eb-card__value">{format::opt_int(wrong_turns)}</div>
                        <div class="eb-card__sub">
                            <button type="button" class="eb-link" on:click=move |_| store.show_items(|f| f.verdict = Some("wrong".into()))>
                                "Show wrong turns →"
                            </button>
                        </div>
                    </div>
                </div>
                <div class="eb-grid2">
                    <section class="eb-section" aria-labelledby="eb-errtypes-title">
                        <h2 class="eb-section__title" id="eb-errtypes-title">"By error type"</h2>
                        {if types.is_empty() {
                            view! { <p class="eb-muted">"No turn raised an error."</p> }.into_any()
                        } else {
                            view! {
                                <table class="eb-table" data-table="error-types">
                                    <thead><tr>
                                        <th scope="col">"Error type"</th>
                                        <th scope="col" class="eb-num">"Turns"</th>
                                        <th scope="col">"Share of errors"</th>
                                        <th scope="col"><span class="eb-visually-hidden">"Items"</span></th>
                                    </tr></thead>
                                    <tbody>
                                        {types.into_iter().map(|(t, n)| {
                                            let share = (total > 0).then(|| n as f64 / total as f64);
                                            let t2 = t.clone();
                                            view! {
                                                <tr>
                                                    <th scope="row" class="eb-mono">{t.clone()}</th>
                                                    <td class="eb-num">{format::int(n)}</td>
                                                    <td><RateBar value=share/></td>
                                                    <td>
                                                        <button type="button" class="eb-link"
                                                            aria-label=format!("Show the turns with {t}")
                                                            on:click=move |_| { let t = t2.clone(); store.show_items(move |f| f.error_type = Some(t)) }>
                                                            "Show items →"
                                                        </button>
                                                    </td>
                                                </tr>
                                            }
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }}
                        {(total > 0).then(|| charts.into_iter().map(|c| view! { <div class="eb-errors__chart"><Chart chart=c/></div> }).collect_view())}
                    </section>
                    <section class="eb-section" aria-labelledby="eb-errfeat-title">
                        <h2 class="eb-section__title" id="eb-errfeat-title">"By dataset feature"</h2>
                        <table class="eb-table" data-table="errors-by-feature">
                            <thead><tr>
                                <th scope="col">"Feature"</th>
                                <th scope="col">"Value"</th>
                                <th scope="col" class="eb-num">"Turns"</th>
                                <th scope="col" class="eb-num">"With error"</th>
                                <th scope="col">"Error rate"</th>
                            </tr></thead>
                            <tbody>
                                {features.into_iter().flat_map(|(feat, map)| {
                                    map.into_iter().map(move |(v, b)| {
                                        let n = b.error_rate.map(|r| (r * b.turns as f64).round() as u64);
                                        view! {
                                            <tr>
                                                <th scope="row">{format::feature_label(feat).to_string()}</th>
                                                <td class="eb-mono">{v}</td>
                                                <td class="eb-num">{format::int(b.turns)}</td>
                                                <td class="eb-num">{format::opt_int(n)}</td>
                                                <td><RateBar value=b.error_rate/></td>
                                            </tr>
                                        }
                                    })
                                }).collect_view()}
                            </tbody>
                        </table>
                    </section>
                </div>
            </div>
        }
        .into_any()
    }
}
