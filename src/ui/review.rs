//! Human review on the page (docs/dashboard.md § Human review): the drawer's controls (the
//! worker's `Block::Review`), and the keys `1`, `0`, `n`, `j`, `k` (a marks file is imported by dropping or picking it as
//! a run: the worker sniffs it). The
//! page only sends `Request::Mark` / `Request::ImportMarks`; the worker keeps the marks, words
//! every text and lays out the Human column, the history and the agreement as screen blocks.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::protocol::Request;
use crate::ui::client;
use crate::ui::route::Tab;
use crate::ui::store::{use_store, Store};

/// Sends a change of the open item's review (`field`: `mark`, `note`, `score`).
fn send(store: Store, field: &str, value: String) {
    let (Some(run), Some(key)) = (
        store.current(),
        store.route.with_untracked(|r| r.item.clone()),
    ) else {
        return;
    };
    client::send(&Request::Mark {
        run_id: run.id,
        key,
        field: field.into(),
        value,
    });
}

/// The drawer's controls: Correct / Wrong (pressed as kept; pressed again: unset), the score
/// override and the note, each change sent as it is made.
pub fn controls(mark: String, note: String, score: String) -> AnyView {
    let store = use_store();
    let button = move |value: &'static str, label: &'static str| {
        let on = mark == value;
        view! {
            <button type="button" class="eb-btn" data-mark=value aria-pressed=on.to_string()
                on:click=move |_| send(store, "mark", if on { String::new() } else { value.into() })>{label}</button>
        }
    };
    view! {
        <div class="eb-filters" data-review="">
            {button("correct", "✓ Correct (1)")}
            {button("wrong", "✗ Wrong (0)")}
            <label class="eb-field">
                <span class="eb-field__label">"Score override, 0–1"</span>
                <input class="eb-input" data-review-score="" inputmode="decimal" prop:value=score
                    on:change=move |ev| send(store, "score", event_target_value(&ev))/>
            </label>
            <label class="eb-field eb-field--grow">
                <span class="eb-field__label">"Note (n)"</span>
                <textarea class="eb-input" data-review-note="" rows="3" prop:value=note
                    on:change=move |ev| send(store, "note", event_target_value(&ev))></textarea>
            </label>
        </div>
    }
    .into_any()
}

/// The review keys, while the Items tab or an item's drawer is open and no field has the
/// focus: `1` correct, `0` wrong, `n` the note, `j` / `k` the next / previous item of the
/// Items grid (its drawer opened); Esc closes the drawer from the row `j`/`k` focused.
pub fn keys() {
    let store = use_store();
    let _ = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || ev.default_prevented() {
            return;
        }
        let typing = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        let (items, open) = store
            .route
            .with_untracked(|r| (r.tab == Tab::Items, r.item.is_some()));
        if typing || !(items || open) || store.pair.with_untracked(Option::is_some) {
            return;
        }
        let doc = document();
        match ev.key().as_str() {
            "1" if open => send(store, "mark", "correct".into()),
            "0" if open => send(store, "mark", "wrong".into()),
            // The focus on a row opened by `j`/`k` (outside the drawer): Esc still closes it.
            "Escape" if open => store.route.update(|r| r.item = None),
            "n" => {
                let Ok(Some(note)) = doc.query_selector("[data-review-note]") else {
                    return;
                };
                if let Ok(n) = note.dyn_into::<web_sys::HtmlElement>() {
                    let _ = n.focus();
                }
            }
            k @ ("j" | "k") => {
                let Ok(Some(grid)) = doc.query_selector(".eb-grid[role=grid]") else {
                    return;
                };
                let at = doc
                    .query_selector(".eb-grid__row--selected")
                    .ok()
                    .flatten()
                    .and_then(|r| r.get_attribute("aria-rowindex"))
                    .and_then(|i| i.parse::<i32>().ok())
                    .unwrap_or(1);
                let step = if k == "j" { 1 } else { -1 };
                if let (Ok(grid), true) = (grid.dyn_into::<web_sys::HtmlElement>(), at + step >= 2)
                {
                    if let Some(row) = crate::ui::rows::go_row(&grid, at + step) {
                        row.click();
                    }
                }
            }
            _ => return,
        }
        ev.prevent_default();
    });
}
