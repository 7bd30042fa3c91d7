//! Overview: headline cards for every accuracy variant, conversation-level accuracy, logic
//! recall, cost per correct answer and error rate; under them the worker's blocks
//! (`qa_screens::overview_rest`: the three diagnostic readings, disagreements with the original
//! scoring, the charts, the first wrong turns).

use leptos::prelude::*;

use crate::format;
use crate::ui::store::{use_store, OverviewData};
use crate::ui::widgets::MetricCard;

#[component]
pub fn OverviewView() -> impl IntoView {
    let store = use_store();
    let data = Memo::new(move |_| store.current_overview());
    view! {
        {move || match data.get() {
            Some(d) => overview_body(d).into_any(),
            None => view! { <div class="eb-state eb-state--quiet">"Computing the overview…"</div> }.into_any(),
        }}
    }
}

fn overview_body(d: OverviewData) -> impl IntoView {
    let store = use_store();
    let ov = d.overview;
    let s = ov.stats;
    let n_turns = s.total_turns;
    let count_of = |rate: Option<f64>| -> String {
        rate.map(|r| {
            format!(
                "{} of {} turns",
                format::int((r * n_turns as f64).round() as u64),
                format::int(n_turns)
            )
        })
        .unwrap_or_default()
    };
    let total_tokens = format!("{} tokens", format::opt_int(s.total_tokens));
    let total = match s.total_cost_usd {
        Some(usd) => format!("{total_tokens} · {} total", format::usd(Some(usd))),
        None => total_tokens,
    };
    let cost_sub = match (s.cost_per_correct_answer_usd, s.correct_conversations) {
        _ if s.total_tokens.is_none() => "no token counts in this run".to_string(),
        (Some(usd), _) => format!(
            "{} per correct conversation · {total}",
            format::usd(Some(usd))
        ),
        (None, 0) => format!("no fully correct conversation · {total}"),
        (None, _) => total,
    };
    // Per correct turn too: a run with no fully correct conversation still has a cost per
    // answer it got right.
    let per_turn = match (s.cost_per_correct_turn_usd, s.cost_per_correct_turn) {
        (Some(usd), _) => Some(format!("{} per correct turn", format::usd(Some(usd)))),
        (None, Some(t)) => Some(format!("{} tok per correct turn", format::tokens(Some(t)))),
        _ => None,
    };
    let cost_sub = match per_turn {
        Some(p) => format!("{p} · {cost_sub}"),
        None => cost_sub,
    };
    let cost_sub = if s.unpriced_models.is_empty() || s.total_tokens.is_none() {
        cost_sub
    } else {
        format!(
            "{cost_sub} · add a price for {} in Settings for $",
            s.unpriced_models.join(", ")
        )
    };
    let cost_value = s
        .cost_per_correct_answer
        .map(|t| format!("{} tok", format::tokens(Some(t))))
        .unwrap_or_else(|| format::NONE.to_string());
    let conv_sub = format!(
        "{} of {} conversations fully correct",
        format::int(s.correct_conversations),
        format::int(s.total_conversations)
    );
    // Labels and definitions from the engine's headline table, in the words of the tolerances
    // the run was scored with ("Soft match (±2%)"), as the worker sends them.
    let words = ov.words.clone();
    let headline_words = move |key: &str| -> (String, String) {
        words
            .iter()
            .find(|m| m.key == key)
            .map(|m| (m.label.clone(), m.definition.clone()))
            .unwrap_or_else(|| (key.to_string(), String::new()))
    };
    let cards: Vec<_> = [
        ("numerical_accuracy", s.numerical_accuracy, true),
        ("exact_match_accuracy", s.exact_match_accuracy, false),
        ("soft_match_accuracy", s.soft_match_accuracy, false),
        ("unit_agnostic_accuracy", s.unit_agnostic_accuracy, false),
        ("sign_agnostic_accuracy", s.sign_agnostic_accuracy, false),
        ("general_match_accuracy", s.general_match_accuracy, false),
    ]
    .into_iter()
    .map(|(key, v, primary)| {
        let (label, help) = headline_words(key);
        (key, label, v, help, primary)
    })
    .collect();
    let rest = d.rest;
    // A link of the worker's blocks (`qa_screens::overview_rest`: a filter's name, U+001F, its
    // value) filters the Items tab, or opens a turn's drawer.
    let open = move |ev: web_sys::MouseEvent| {
        let Some(o) = crate::ui::screen::opened(&ev) else {
            return;
        };
        let mut parts = o.split('\u{1f}');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("item"), Some(c), Some(t)) => {
                if let Ok(t) = t.parse::<u64>() {
                    store.open_item(evalboard_engine::run_table::ItemKey::text_index(c, t))
                }
            }
            (Some(name), Some(value), None) => store.show_items(name, value),
            _ => {}
        }
    };
    let profile = ov.profile;
    let profile_cards = ov.profile_headline;
    view! {
        <div class="eb-overview">
            {(!profile_cards.is_empty()).then(|| view! {
                <section class="eb-section eb-profile-headline" aria-labelledby="eb-profile-headline-title">
                    <h2 class="eb-section__title" id="eb-profile-headline-title">{format!("Profile {}: the system's own scorers", profile.name())}</h2>
                    <p class="eb-section__hint">"Verdicts and reasons follow this profile; the cards below are the doc-v1 variants."</p>
                    <div class="eb-cards">
                        {profile_cards.into_iter().enumerate().map(|(i, m)| view! {
                            <MetricCard key=format!("{}:{}", profile.name(), m.key) label=m.label value=format::pct(m.value) help=m.definition primary=i == 0/>
                        }).collect_view()}
                    </div>
                </section>
            })}
            <div class="eb-cards">
                {cards.into_iter().map(|(key, label, v, help, primary)| view! {
                    <MetricCard key=key label=label value=format::pct(v) sub=count_of(v) help=help primary=primary/>
                }).collect_view()}
                <MetricCard key="conversation_level_accuracy" label="Conversation-level" value=format::pct(s.conversation_level_accuracy)
                    sub=conv_sub help=headline_words("conversation_level_accuracy").1/>
                <MetricCard key="avg_logic_recall" label="Logic recall" value=format::pct(s.avg_logic_recall)
                    sub=format!("precision {} · F1 {}", format::pct(s.avg_logic_precision), format::pct(s.avg_logic_f1))
                    help=headline_words("avg_logic_recall").1/>
                <MetricCard key="cost_per_correct_answer" label="Cost per correct answer" value=cost_value sub=cost_sub
                    help="Total tokens (input + output) / conversations with every turn correct; per correct turn: total tokens / turns answered correctly"/>
                <MetricCard key="error_rate" label="Error rate" value=format::pct(s.error_rate) sub=count_of(s.error_rate)
                    help=headline_words("error_rate").1/>
            </div>

            <div class="eb-overview__rest" on:click=open>{crate::ui::screen::blocks(rest)}</div>

            <p class="eb-footnote">
                {format!("{} conversations ({} failed as a whole) · {} turns · {} tokens · engine {} · profile {}",
                    format::int(s.total_conversations), format::int(s.failed_conversations), format::int(s.total_turns),
                    format::opt_int(s.total_tokens), s.engine_version, profile.name())}
            </p>
        </div>
    }
}
