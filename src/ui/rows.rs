//! Moving the focus to a row of a virtualised items grid (rows carry `aria-rowindex`, the head is
//! row 1): the row scrolled into view under the sticky head and focused, again once drawn. What
//! the grid's ↑/↓/Page/Home/End (`ui::screen::row_keys`) and the review keys `j`/`k`
//! (`ui::review`) share.

use leptos::prelude::*;

/// Row height in px (must match `.eb-grid__row` in main.css).
pub const ROW_H: f64 = 32.0;
/// [`ROW_H`] in whole pixels, for styles (integers: the page prints no floats of its own).
pub const ROW_PX: u64 = 32;

/// Row `to` (by `aria-rowindex`) of a virtualised grid scrolled into view and focused; a row far
/// off is drawn only once the worker sent it, so the focus is tried again on the next frames
/// ([`focus_row`]). The row when it is drawn now.
pub fn go_row(grid: &web_sys::HtmlElement, to: i32) -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    let row_h = ROW_PX as i32;
    // The row's top in the body; the visible body is [scrollTop, scrollTop + height − head).
    let (top, st) = ((to - 2) * row_h, grid.scroll_top());
    let h = grid.client_height() - row_h;
    if top < st {
        grid.set_scroll_top(top);
    } else if top + row_h > st + h {
        grid.set_scroll_top(top + row_h - h);
    }
    let sel = format!("[aria-rowindex=\"{to}\"]");
    let now = grid.query_selector(&sel).ok().flatten();
    focus_row(grid.clone(), sel, 30);
    now.and_then(|r| r.dyn_into().ok())
}

/// Focuses the row `sel` of `grid` now and again on the next frame (a scroll re-renders the
/// window, which may move the row in the DOM and so blur it); while it is not drawn yet, tries
/// again on up to `frames` more frames.
fn focus_row(grid: web_sys::HtmlElement, sel: String, frames: u32) {
    use wasm_bindgen::JsCast;
    let found = grid.query_selector(&sel).ok().flatten();
    if let Some(row) = found
        .clone()
        .and_then(|r| r.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = row.focus();
    }
    if frames > 0 {
        let again = if found.is_some() { 0 } else { frames - 1 };
        if found.is_none() || frames == 30 {
            request_animation_frame(move || focus_row(grid, sel, again));
        }
    }
}
