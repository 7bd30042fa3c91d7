//! The folders of a drop, as handles the browser gives where it can
//! (`DataTransferItem.getAsFileSystemHandle`): taken by the drop zone during the drop event, and
//! offered by `ui::watch` to watch without the picker (issue 30). Apart from both, so neither
//! imports the other.

use leptos::prelude::Update;
use wasm_bindgen::JsCast;

thread_local! {
    /// The handles of dropped folders (`Store::dropped_dirs` has their names, in order).
    static DROPPED: std::cell::RefCell<Vec<wasm_bindgen::JsValue>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Takes the handles of a drop's folders where the browser gives them
/// (`DataTransferItem.getAsFileSystemHandle`, asked now: the items die after the drop event),
/// so each can be watched without the picker.
pub fn take_dropped(store: crate::ui::store::Store, dt: &web_sys::DataTransfer) {
    // Only in a secure context, where the File System Access API lives (and a watch can read
    // the folder): Chromium 156 also defines `getAsFileSystemHandle` on a plain-HTTP page, and
    // calling it there during a drop crashes the page's renderer (e2e perf.test.mjs, "not a
    // secure context").
    let secure = js_sys::Reflect::get(&js_sys::global(), &"isSecureContext".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    if !secure {
        return;
    }
    let items = dt.items();
    let promises: Vec<js_sys::Promise> = (0..items.length())
        .filter_map(|i| {
            let item = items.get(i)?;
            let f: js_sys::Function = js_sys::Reflect::get(&item, &"getAsFileSystemHandle".into())
                .ok()?
                .dyn_into()
                .ok()?;
            f.call0(&item).ok()?.dyn_into().ok()
        })
        .collect();
    leptos::task::spawn_local(async move {
        for p in promises {
            let Ok(h) = wasm_bindgen_futures::JsFuture::from(p).await else {
                continue;
            };
            let get = |k: &str| js_sys::Reflect::get(&h, &k.into()).ok()?.as_string();
            if let (Some("directory"), Some(name)) = (get("kind").as_deref(), get("name")) {
                DROPPED.with(|d| d.borrow_mut().push(h.clone()));
                store.dropped_dirs.update(|d| d.push(name));
            }
        }
    });
}

/// The handle of dropped folder `i`, removed from the offers (`None` when it is gone).
pub fn take_handle(i: usize) -> Option<wasm_bindgen::JsValue> {
    DROPPED.with(|d| {
        let mut d = d.borrow_mut();
        (i < d.len()).then(|| d.remove(i))
    })
}
