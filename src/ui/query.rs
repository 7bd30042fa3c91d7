//! The query box above a screen's Items (`docs/query.md`): the worker sends the autocomplete
//! list with the items screen (a `Block::Choice` keyed `query`) and any note (a query that does
//! not parse, the conversations being read); Enter puts the query in the route (`f.query=`),
//! which asks the worker again. The drawer's places where the query matched are texts whose
//! match the worker marks between U+0002 and U+0003: rendered in a `mark`, every part as text.

use leptos::prelude::*;

use crate::protocol::{Block, ScreenView};
use crate::ui::store::use_store;

/// The items filter's choice that holds the query (the worker's `query_view::CHOICE`).
pub const CHOICE: &str = "query";

/// The query box and the notes the worker sent with the items screen `data`, rendered by
/// `render` (the screen's block renderer: passed in, so this module does not name the screen's).
#[component]
pub fn QueryBox(
    data: RwSignal<Option<ScreenView>>,
    render: fn(Vec<Block>) -> AnyView,
) -> impl IntoView {
    let store = use_store();
    // Only a run's items screen carries the list (not the All runs matrix).
    let list = Memo::new(move |_| {
        data.with(|d| {
            d.as_ref().and_then(|d| {
                d.blocks.iter().find_map(|b| match b {
                    Block::Choice { key, options, .. } if key == CHOICE => Some(options.clone()),
                    _ => None,
                })
            })
        })
    });
    let options = move || list.get().unwrap_or_default();
    let notes = move || {
        let list: Vec<Block> = data.with(|d| {
            d.as_ref()
                .map(|d| {
                    d.blocks
                        .iter()
                        .filter(|b| !matches!(b, Block::Choice { .. }))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        });
        render(list)
    };
    let run = move |v: String| {
        let v = v.trim().to_string();
        store.route.update(|r| {
            r.set_choice(CHOICE, (!v.is_empty()).then_some(v));
            r.item = None;
        });
    };
    view! {
        <Show when=move || list.with(Option::is_some)>
        <div class="eb-query">
            <label class="eb-field eb-field--grow">
                <span class="eb-field__label">"Query"</span>
                <input class="eb-input eb-mono" type="search" name="query" list="eb-query-list"
                    placeholder="verdict == wrong and text ~ /time(d)? ?out/i   (Enter runs it)"
                    spellcheck="false" autocomplete="off"
                    prop:value=move || store.route.with(|r| r.choice(CHOICE)).unwrap_or_default()
                    on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" {
                        ev.prevent_default();
                        run(event_target_value(&ev));
                    }
                    on:input=move |ev| if event_target_value(&ev).is_empty() { run(String::new()) }/>
            </label>
            <datalist id="eb-query-list">
                {move || options().into_iter().map(|(v, l)| view! { <option value=v>{l}</option> }).collect_view()}
            </datalist>
            {notes}
        </div>
        </Show>
    }
}

/// A place where the query matched: `at: …before⟨U+0002⟩match⟨U+0003⟩after…`, the match in a
/// `mark`.
pub fn hit(text: String) -> AnyView {
    let (before, rest) = text.split_once('\u{2}').unwrap_or((&text, ""));
    let (found, after) = rest.split_once('\u{3}').unwrap_or((rest, ""));
    let (before, found, after) = (before.to_string(), found.to_string(), after.to_string());
    view! { <p class="eb-text eb-mono eb-hit" data-field="hit">{before}<mark>{found}</mark>{after}</p> }
        .into_any()
}

/// What a click on a `Cell::Open` of a screen opens, when it is a filter: the Items tab with it —
/// of the current run (a choice, U+001F, its value: `query` and a failure cohort's query, `human`
/// and the agreement table's filter), or of the run named (`query-in`, U+001F, the run's name,
/// U+001F, the query: a cohort on Compare).
pub fn open_query(opened: &str) -> bool {
    // A cohort of another run (Compare): `query-in`, the run, the query. Else a choice and its
    // value: a query (a cohort's items) or the Human column's filter (agreement's "show them").
    let (run, choice, q) = match opened.strip_prefix("query-in\u{1f}") {
        Some(rest) => match rest.split_once('\u{1f}') {
            Some((run, q)) => (Some(run.to_string()), CHOICE, q),
            None => return false,
        },
        None => match opened.split_once('\u{1f}') {
            Some((choice, q)) => (None, choice, q),
            None => return false,
        },
    };
    let q = q.to_string();
    use_store().route.update(|r| {
        if run.is_some() {
            r.run = run;
            r.choices.clear();
            r.text = None;
        }
        r.set_choice(choice, Some(q));
        r.item = None;
        r.tab = crate::ui::route::Tab::Items;
    });
    true
}
