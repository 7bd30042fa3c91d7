//! A text query over an eval log (`text`, `tool`, `tool_result`, `tool_error`:
//! `Query::needs_messages`): every sample's conversation is read once from the log's file (the
//! drawer's own reader, [`super::big_log::conversation`]; a `.json` log's file read once for all
//! its samples, [`super::big_log::json_log_conversations`]), with progress posted to the page as
//! the items screen ("n of N samples"), and added to the run's query index
//! (`evallog::query::add_messages`); later queries search the index at once. The drawer of an
//! item opened from a query (`ScreenQuery::Hits`) shows where it matched, its conversation read
//! as the drawer reads it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use web_sys::DedicatedWorkerGlobalScope;

use evalboard_engine::evallog::messages::{Message, MessagesAt};
use evalboard_engine::evallog::query::add_messages;
use evalboard_engine::evallog::SampleId;
use evalboard_engine::query::Docs;
use evalboard_engine::run::ScoredRun;
use evalboard_engine::run_table::ItemKey;

use super::{big_log, conversation_of, conversations_of, log_screen, store, State, FAMILIES};
use crate::protocol::{ReqId, RunId, ScreenFilter, ScreenQuery};
use crate::query_view;

/// Milliseconds between two progress notes at least: each note lays out the items screen
/// (~50–100 ms over 20,000 samples), so a note per few samples cost a big log most of its read
/// (800 notes, 63 s of a 20,000-sample `.json` log's 66 s).
const PROGRESS_MS: f64 = 250.0;

thread_local! {
    /// The runs whose conversations are being read, with the latest request waiting for them
    /// (an earlier one is answered no more: the page only shows its latest).
    static READING: RefCell<HashMap<RunId, (ReqId, ScreenQuery)>> = RefCell::new(HashMap::new());
}

/// The query of an items request on eval log `run_id` that must read its conversations first.
pub(super) fn wants_reading(st: &State, run_id: RunId, query: &ScreenQuery) -> Option<String> {
    let ScreenQuery::Items { filter, .. } = query else {
        return None;
    };
    let (src, _) = query_view::split(filter)?;
    let kept = st.get(run_id)?;
    if !matches!(kept.scored, ScoredRun::EvalLog(_)) {
        return None;
    }
    query_view::with_index::<FAMILIES, _>(run_id, kept.run(), |ix| {
        query_view::needs_reading(ix, &src)
    })
    .then_some(src)
}

/// Reads every sample's conversation of eval log `run_id` into its query index, posting
/// progress, then answers `query` (or the latest request that came meanwhile).
pub(super) fn read_then_answer(
    scope: &DedicatedWorkerGlobalScope,
    state: &Rc<RefCell<State>>,
    (req, run_id): (ReqId, RunId),
    query: ScreenQuery,
) {
    let already = READING.with(|r| r.borrow_mut().insert(run_id, (req, query)).is_some());
    if already {
        return;
    }
    let (scope, state) = (scope.clone(), state.clone());
    wasm_bindgen_futures::spawn_local(async move {
        #[allow(clippy::type_complexity)]
        let places: Vec<(ItemKey, _)> = {
            let st = state.borrow();
            let at = conversations_of(&st, run_id);
            query_view::with_built(run_id, |ix| {
                ix.docs
                    .iter()
                    .filter_map(|d| Some((d.key.clone(), at(&d.key)?)))
                    .collect()
            })
            .unwrap_or_default()
        };
        let total = places.len();
        let mut read = Vec::with_capacity(total);
        #[allow(clippy::type_complexity)]
        let mut json: Option<(
            String,
            Result<HashMap<(SampleId, u32), Result<Vec<Message>, String>>, String>,
        )> = None;
        let mut last = f64::NEG_INFINITY;
        for (i, (key, (ids, found))) in places.into_iter().enumerate() {
            let now = super::runtime::now();
            if now - last >= PROGRESS_MS {
                last = now;
                progress(&scope, &state, run_id, i, total);
            }
            let messages = match &found.1 {
                // A `.json` log: its file read and parsed once for all its samples.
                MessagesAt::JsonLog { id, epoch } => {
                    if json.as_ref().is_none_or(|(p, _)| *p != found.0) {
                        let all = big_log::json_log_conversations(ids, &found.0).await;
                        json = Some((found.0.clone(), all));
                    }
                    match json.as_mut().map(|(_, all)| all) {
                        Some(Ok(all)) => all.remove(&(id.clone(), *epoch)).unwrap_or_else(|| {
                            Err(format!(
                                "the log holds no sample {} (epoch {epoch})",
                                id.label()
                            ))
                        }),
                        Some(Err(e)) => Err(e.clone()),
                        None => Err("the log was not read".into()),
                    }
                }
                _ => big_log::conversation(ids, found).await,
            };
            read.push((key, messages));
        }
        progress(&scope, &state, run_id, total, total);
        let added = query_view::with_built(run_id, |ix| {
            ix.add_messages(|docs| {
                let mut docs = Docs::new(docs);
                for (key, messages) in &read {
                    if let (Some(d), Ok(m)) = (docs.get(key), messages) {
                        add_messages(d, m);
                    }
                }
            })
        });
        let Some((req, query)) = READING.with(|r| r.borrow_mut().remove(&run_id)) else {
            return;
        };
        let st = state.borrow();
        if added.is_none() {
            // The run was re-scored or removed meanwhile: asked again from the start.
            drop(st);
            super::handle_request(
                &scope,
                &state,
                crate::protocol::Request::Screen { req, run_id, query },
                js_sys::Array::new(),
                &wasm_bindgen::JsValue::UNDEFINED,
            );
            return;
        }
        if !store::post_screen::<FAMILIES>(&scope, st.get(run_id), (req, run_id), &query) {
            super::no_run(&scope, req, run_id);
        }
    });
}

/// Posts the items screen of the request waiting for run `run_id` as a progress note.
fn progress(
    scope: &DedicatedWorkerGlobalScope,
    state: &Rc<RefCell<State>>,
    run_id: RunId,
    done: usize,
    total: usize,
) {
    let Some((req, ScreenQuery::Items { filter, .. })) =
        READING.with(|r| r.borrow().get(&run_id).cloned())
    else {
        return;
    };
    let Some((src, rest)) = query_view::split(&filter) else {
        return;
    };
    let st = state.borrow();
    let Some(kept) = st.get(run_id) else {
        return;
    };
    let Some(layout) = kept.run().visit_in::<FAMILIES, _>(LayoutOf(rest)).flatten() else {
        return;
    };
    let view = query_view::with_built(run_id, |ix| {
        query_view::reading(ix, &src, layout, done, total)
    });
    if let Some(view) = view {
        store::post_view(scope, (req, run_id), view);
    }
}

/// An eval log's items screen (its layout and counts) for the other filters.
struct LayoutOf(ScreenFilter);

impl<'a> evalboard_engine::run::RunVisitor<'a> for LayoutOf {
    type Out = Option<crate::protocol::ScreenView>;
    fn numeric_qa(self, _: &'a evalboard_engine::numeric_qa::score::ScoredQaRun) -> Self::Out {
        None
    }
    fn codegen(self, _: &'a evalboard_engine::codegen::Loaded) -> Self::Out {
        None
    }
    fn evalset(
        self,
        _: &'a evalboard_engine::evalset::EvalRun,
        _: &'a evalboard_engine::evalset::ScoredRun,
    ) -> Self::Out {
        None
    }
    fn eval_log(self, run: &'a evalboard_engine::evallog::ScoredLog) -> Self::Out {
        Some(crate::evallog::view(
            run,
            &ScreenQuery::Items {
                filter: self.0,
                offset: 0,
                limit: 1,
            },
        ))
    }
}

/// The drawer of eval-log sample `key` opened from query `src`: its conversation read from the
/// log's file, then the sample headed by where the query matched (the conversation included).
pub(super) fn hits_with_conversation(
    scope: &DedicatedWorkerGlobalScope,
    state: &Rc<RefCell<State>>,
    (req, run_id): (ReqId, RunId),
    (key, src): (ItemKey, String),
) {
    let Some((ids, found)) = conversation_of(&state.borrow(), run_id, &key) else {
        return super::no_run(scope, req, run_id);
    };
    let (scope, state) = (scope.clone(), state.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let messages = big_log::conversation(ids, found).await;
        let st = state.borrow();
        let query = ScreenQuery::Item { key: key.clone() };
        let Some(mut view) = log_screen(&st, run_id, &query, Some(messages.clone())) else {
            return super::no_run(&scope, req, run_id);
        };
        let Some(kept) = st.get(run_id) else {
            return super::no_run(&scope, req, run_id);
        };
        let add = |d: &mut evalboard_engine::query::Doc| {
            if let Ok(m) = &messages {
                add_messages(d, m);
            }
        };
        let found = query_view::with_index::<FAMILIES, _>(run_id, kept.run(), |ix| {
            query_view::hits(ix, &src, &key, Some(&add))
        });
        query_view::head_item(&mut view, found);
        kept.with_review::<FAMILIES>(&mut view);
        store::post_view(&scope, (req, run_id), view);
    });
}
