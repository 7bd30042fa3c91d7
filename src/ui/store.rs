//! The app state shared by every view (a `Copy` handle of signals, provided as context), the
//! worker's responses applied to it, and the loading of runs (dropped, picked, or the demo).

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use evalboard_engine::accounting::InputFileReport;
use evalboard_engine::evalset::{AnswerScorer, ScoringOptions};
use evalboard_engine::numeric_qa::views::{ConversationView, Overview};
use evalboard_engine::run::Settings;
use evalboard_engine::Diagnostic;

use crate::protocol::{ReqId, Request, Response, RunId, RunInfo};
use crate::ui::client;
use crate::ui::load_plan::{plan_runs, unique_name};
use crate::ui::picked_files::{self, PickedFile};
use crate::ui::route::Route;
use crate::ui::saved;

/// Where a run is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// The files' bytes are being read (by the worker, or fetched by the page for the demo).
    Reading {
        files_done: u64,
        files_total: u64,
        bytes_done: u64,
        bytes_total: u64,
    },
    /// The worker is parsing or scoring (`Progress` messages).
    Working {
        stage: String,
        done: u64,
        total: u64,
    },
    Loaded(Box<RunInfo>),
    Failed {
        error: String,
        files: Vec<InputFileReport>,
        diagnostics: Vec<Diagnostic>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunEntry {
    pub id: RunId,
    pub name: String,
    pub demo: bool,
    pub status: RunStatus,
    /// Files that could not be read at all ("path: reason"), so no reader saw them.
    pub read_problems: Vec<String>,
}

impl RunEntry {
    pub fn info(&self) -> Option<&RunInfo> {
        match &self.status {
            RunStatus::Loaded(i) => Some(i),
            _ => None,
        }
    }
    pub fn is_busy(&self) -> bool {
        matches!(
            self.status,
            RunStatus::Reading { .. } | RunStatus::Working { .. }
        )
    }
    /// Progress as 0–1 over reading (0–30%), parsing (30–75%) and scoring (75–100%), roughly
    /// in proportion to the time each takes.
    pub fn progress(&self) -> Option<f64> {
        let frac = |d: u64, t: u64| {
            if t == 0 {
                0.0
            } else {
                (d as f64 / t as f64).clamp(0.0, 1.0)
            }
        };
        match &self.status {
            RunStatus::Reading {
                bytes_done,
                bytes_total,
                ..
            } => Some(0.3 * frac(*bytes_done, *bytes_total)),
            // No bar while a watch waits for the user.
            RunStatus::Working { stage, .. } if stage == WAITING => None,
            RunStatus::Working { stage, done, total } if stage == "scoring" => {
                Some(0.75 + 0.25 * frac(*done, *total))
            }
            RunStatus::Working { stage, done, total } if stage == "hashing" => {
                Some(0.3 + 0.05 * frac(*done, *total))
            }
            RunStatus::Working { done, total, .. } => Some(0.35 + 0.40 * frac(*done, *total)),
            _ => None,
        }
    }
}

/// A watched folder's run before its first load, and while the watch waits for the permission
/// to read the folder (its panel's Resume).
const WATCHING: &str = "watching";
const WAITING: &str = "waiting for your permission (Resume)";

/// Rows of a comparison shown at first (regressions come first): a page that stays readable on
/// long real outputs; the rest on request.
pub const COMPARE_FIRST_ROWS: usize = 50;

/// The overview of one run under one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct OverviewData {
    pub run_id: RunId,
    pub overview: Overview,
    /// The Overview under its cards, laid out by the worker.
    pub rest: Vec<crate::protocol::Block>,
    /// The Breakdowns and Complexity tabs, laid out by the worker.
    pub breakdowns: Vec<crate::protocol::Block>,
    pub complexity: Vec<crate::protocol::Block>,
    pub errors: Vec<crate::protocol::Block>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub id: u64,
    pub text: String,
    pub error: bool,
}

/// Every signal the views share. `Copy`: hand it around freely.
#[derive(Clone, Copy)]
pub struct Store {
    pub runs: RwSignal<Vec<RunEntry>>,
    pub route: RwSignal<Route>,
    /// How runs of every family are scored (Settings).
    pub settings: RwSignal<Settings>,
    /// Bumped whenever the worker re-scored (new settings): views refetch.
    pub rescored: RwSignal<u64>,
    pub overview: RwSignal<Option<OverviewData>>,
    pub conversation: RwSignal<Option<(ReqId, Option<ConversationView>)>>,
    /// The open turn's human review section (worker-laid-out blocks).
    pub conversation_blocks: RwSignal<Vec<crate::protocol::Block>>,
    pub notices: RwSignal<Vec<Notice>>,
    pub dark: RwSignal<bool>,
    pub worker_ready: RwSignal<bool>,
    /// Files are being dragged over the page.
    pub dragging: RwSignal<bool>,
    pub overview_req: StoredValue<ReqId>,
    pub conversation_req: StoredValue<ReqId>,
    /// The current eval-set run's view.
    /// The latest comparison (answer to `compare_req`).
    pub compare: RwSignal<Option<crate::protocol::CompareView>>,
    pub compare_req: StoredValue<ReqId>,
    /// The latest series / comparison (answer to `series_req`).
    pub series: RwSignal<Option<crate::protocol::SeriesView>>,
    pub series_req: StoredValue<ReqId>,
    /// Rows the Compare table asks for (the first screenful, then all on request).
    pub compare_rows: RwSignal<usize>,
    /// The Compare toggle: items paired by item, their repeats (epochs) reduced.
    pub compare_by_item: RwSignal<bool>,
    /// A Compare row open side by side: (baseline, candidate); the item is `route.item`.
    pub pair: RwSignal<Option<(RunId, RunId)>>,
    /// The latest code-generation screen (each view keeps the id of its own request).
    pub screen: RwSignal<Option<(ReqId, crate::protocol::ScreenView)>>,
    next_run: StoredValue<RunId>,
    next_notice: StoredValue<u64>,
    /// Runs being loaded again into a restarted worker (views are asked again once they are).
    reloading: StoredValue<Vec<RunId>>,
    /// Runs waiting to be loaded again after a worker stopped, in order: they are sent one at a
    /// time ([`Store::replay_next`]), so that a run whose load stops the new worker too is the
    /// one run it was reading, and is blamed, not sent again.
    replay: StoredValue<Vec<RunId>>,
    /// The run of [`Store::replay`] sent, until it settles.
    replaying: StoredValue<Option<RunId>>,
    /// Runs that were in flight when a worker stopped and have not settled since: one that is
    /// the only run in flight at a later stop is the run that stops workers, and fails.
    suspects: StoredValue<Vec<RunId>>,
    /// When workers stopped lately (ms since the epoch): one that keeps stopping is not started
    /// again, or a request that crashes it would crash every new one, for ever.
    stops: StoredValue<Vec<f64>>,
    /// The worker has listed the runs kept in the browser's storage (they are loaded once).
    pub stored_listed: StoredValue<bool>,
    /// Watched folders and what the worker last said of each (`ui::watch`).
    pub watches: RwSignal<Vec<(RunId, crate::protocol::LiveStatus)>>,
    /// Folders dropped whose handle the browser gave (`getAsFileSystemHandle`): "Watch this
    /// folder" is offered for each (the handles are kept by `ui::watch`).
    pub dropped_dirs: RwSignal<Vec<String>>,
}

/// A worker that stopped this many times within [`STOPS_WINDOW_MS`] is not started again.
const MAX_STOPS: usize = 3;
const STOPS_WINDOW_MS: f64 = 60_000.0;

const DEMO_DISMISSED_KEY: &str = "evalboard.demo-dismissed";
const CONFIG_KEY: &str = "evalboard.config";
const EVALSET_KEY: &str = "evalboard.evalset";
/// The eval-log re-scorer's id (absent: as recorded).
const EVALLOG_KEY: &str = "evalboard.evallog";

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Where the watch panel keeps its stall time, in seconds.
pub const STALL_KEY: &str = "evalboard.watch-stall-s";

pub fn storage_get(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok()?
}

pub fn storage_set(key: &str, value: Option<&str>) {
    if let Some(s) = local_storage() {
        let _ = match value {
            Some(v) => s.set_item(key, v),
            None => s.remove_item(key),
        };
    }
}

impl Store {
    pub fn new() -> Store {
        let mut settings = storage_get(CONFIG_KEY)
            .and_then(|s| saved::config_from_json(&s))
            .unwrap_or_default();
        if let Some((scorer, pass_threshold)) =
            storage_get(EVALSET_KEY).and_then(|s| evalset_opts_from_text(&s))
        {
            settings.evalset = ScoringOptions {
                scorer,
                pass_threshold,
            };
        }
        settings.evallog.scorer = storage_get(EVALLOG_KEY)
            .and_then(|id| evalboard_engine::evallog::rescore::RescoreKind::from_name(&id));
        Store {
            runs: RwSignal::new(Vec::new()),
            route: RwSignal::new(Route::default()),
            settings: RwSignal::new(settings),
            rescored: RwSignal::new(0),
            overview: RwSignal::new(None),
            conversation: RwSignal::new(None),
            conversation_blocks: RwSignal::new(Vec::new()),
            notices: RwSignal::new(Vec::new()),
            dark: RwSignal::new(false),
            worker_ready: RwSignal::new(false),
            dragging: RwSignal::new(false),
            overview_req: StoredValue::new(0),
            conversation_req: StoredValue::new(0),
            compare: RwSignal::new(None),
            compare_req: StoredValue::new(0),
            series: RwSignal::new(None),
            series_req: StoredValue::new(0),
            compare_rows: RwSignal::new(COMPARE_FIRST_ROWS),
            compare_by_item: RwSignal::new(false),
            pair: RwSignal::new(None),
            screen: RwSignal::new(None),
            next_run: StoredValue::new(0),
            stored_listed: StoredValue::new(false),
            watches: RwSignal::new(Vec::new()),
            dropped_dirs: RwSignal::new(Vec::new()),
            next_notice: StoredValue::new(0),
            reloading: StoredValue::new(Vec::new()),
            replay: StoredValue::new(Vec::new()),
            replaying: StoredValue::new(None),
            suspects: StoredValue::new(Vec::new()),
            stops: StoredValue::new(Vec::new()),
        }
    }

    /// The run the route points at (by name), if it exists.
    pub fn current(&self) -> Option<RunEntry> {
        let name = self.route.with(|r| r.run.clone())?;
        self.runs
            .with(|rs| rs.iter().find(|r| r.name == name).cloned())
    }

    pub fn notify(&self, text: impl Into<String>, error: bool) {
        let id = self.next_notice.get_value() + 1;
        self.next_notice.set_value(id);
        let text = text.into();
        self.notices.update(|n| {
            n.push(Notice { id, text, error });
            // Keep the pile short.
            if n.len() > 4 {
                n.remove(0);
            }
        });
        let notices = self.notices;
        set_timeout(
            move || notices.update(|n| n.retain(|x| x.id != id)),
            std::time::Duration::from_secs(if error { 12 } else { 5 }),
        );
    }

    /// Watches folder `dir` (a `FileSystemDirectoryHandle`), or the one kept under `stored`.
    pub fn watch(&self, name: String, dir: wasm_bindgen::JsValue, stored: Option<String>) {
        let id = self.next_run.get_value() + 1;
        self.next_run.set_value(id);
        self.watches
            .update(|w| w.push((id, crate::protocol::LiveStatus::starting(&name))));
        // The folder is a run of the list, loaded by the worker as it grows.
        self.runs.update(|rs| {
            let taken: Vec<String> = rs.iter().map(|r| r.name.clone()).collect();
            rs.push(RunEntry {
                id,
                name: crate::ui::load_plan::unique_name(&crate::protocol::so_far(&name), &taken),
                demo: false,
                status: RunStatus::Working {
                    stage: WATCHING.into(),
                    done: 0,
                    total: 1,
                },
                read_problems: Vec::new(),
            })
        });
        let sources = if stored.is_some() {
            Vec::new()
        } else {
            vec![dir]
        };
        // The stall time the watch panel keeps (seconds; none: the worker's 5 minutes).
        let seconds = storage_get(STALL_KEY).and_then(|s| s.parse().ok());
        client::send(&Request::WatchStall {
            seconds: seconds.unwrap_or(0),
        });
        let req = Request::Watch {
            run_id: id,
            name,
            stored,
        };
        client::send_load_keeping(&req, sources, Vec::new());
    }

    /// Stops watch `id` (the worker forgets its handle) and removes its run.
    pub fn unwatch(&self, id: RunId) {
        self.remove(id);
    }

    /// Applies one worker response.
    pub fn apply(&self, resp: Response) {
        match resp {
            Response::Live { run_id, status } => {
                // Not loaded yet: "watching", or waiting for the permission (stopped, Resume).
                let stage = match status.state {
                    crate::protocol::WatchState::Stopped => WAITING,
                    _ => WATCHING,
                };
                let stale = self.runs.with_untracked(|rs| {
                    rs.iter().any(|r| {
                        r.id == run_id
                            && matches!(&r.status, RunStatus::Working { stage: s, .. }
                                if (s == WATCHING || s == WAITING) && s != stage)
                    })
                });
                if stale {
                    self.runs.update(|rs| {
                        if let Some(r) = rs.iter_mut().find(|r| r.id == run_id) {
                            r.status = RunStatus::Working {
                                stage: stage.into(),
                                done: 0,
                                total: 1,
                            };
                        }
                    });
                }
                self.watches.update(|w| {
                    if let Some(slot) = w.iter_mut().find(|(i, _)| *i == run_id) {
                        slot.1 = status;
                    }
                })
            }
            // Folders watched in an earlier visit: watched again (once each).
            Response::Watches { watches } => {
                for k in watches {
                    let known = self
                        .watches
                        .with_untracked(|w| w.iter().any(|(_, s)| s.name == k.name));
                    if !known {
                        self.watch(k.name, wasm_bindgen::JsValue::UNDEFINED, Some(k.key));
                    }
                }
            }
            Response::Ready => self.worker_ready.set(true),
            Response::Reading {
                run_id,
                files_done,
                files_total,
                bytes_done,
                bytes_total,
                problems,
            } => {
                if !problems.is_empty() {
                    self.runs.update(|rs| {
                        if let Some(r) = rs.iter_mut().find(|r| r.id == run_id) {
                            r.read_problems.extend(problems);
                        }
                    });
                }
                self.set_status(run_id, |s| {
                    if !matches!(s, RunStatus::Loaded(_) | RunStatus::Failed { .. }) {
                        *s = RunStatus::Reading {
                            files_done,
                            files_total,
                            bytes_done,
                            bytes_total,
                        };
                    }
                })
            }
            Response::Progress {
                run_id,
                stage,
                done,
                total,
            } => self.set_status(run_id, |s| {
                if !matches!(s, RunStatus::Loaded(_) | RunStatus::Failed { .. }) {
                    *s = RunStatus::Working { stage, done, total };
                }
            }),
            Response::Loaded { info } => self.loaded(vec![info]),
            Response::LoadedMany { infos } => self.loaded(infos),
            Response::LoadFailed {
                run_id,
                name,
                error,
                files,
                diagnostics,
                part_of,
            } => {
                if !self.take_part(run_id, part_of, &name) {
                    return;
                }
                self.set_status(run_id, |s| {
                    *s = RunStatus::Failed {
                        error,
                        files,
                        diagnostics,
                    }
                });
                self.settled(run_id);
            }
            // Runs kept from an earlier visit: listed and loaded again like drops (once: a
            // restarted worker lists them again).
            Response::Stored { runs } => {
                if self.stored_listed.get_value() {
                    return;
                }
                self.stored_listed.set_value(true);
                for r in runs {
                    let (id, name) = self.new_run(&r.name, false, r.paths.len() as u64, 0);
                    client::send_load(
                        &Request::Load {
                            run_id: id,
                            name,
                            paths: r.paths,
                            demo: false,
                            stored: Some(r.key),
                        },
                        Vec::new(),
                    );
                }
            }
            Response::WorkerStopped {
                runs,
                message,
                worker,
            } => {
                let restartable = !self.stopping_often();
                let again = self.runs_stopped(&runs, &worker, &message, restartable);
                self.replay.update_value(|q| q.extend(again));
                self.replay_next();
            }
            Response::Rescored { runs } => {
                self.runs.update(|rs| {
                    for info in runs {
                        if let Some(r) = rs.iter_mut().find(|r| r.id == info.run_id) {
                            r.status = RunStatus::Loaded(Box::new(info));
                        }
                    }
                });
                self.rescored.update(|n| *n += 1);
            }
            Response::Overview {
                req,
                run_id,
                overview,
                rest,
                breakdowns,
                complexity,
                errors,
            } => {
                if req == self.overview_req.get_value() {
                    self.overview.set(Some(OverviewData {
                        run_id,
                        overview: *overview,
                        rest,
                        breakdowns,
                        complexity,
                        errors,
                    }));
                }
            }
            // The page asks for numeric QA items as a screen (`ScreenQuery::Items`).
            Response::Items { .. } => {}
            Response::Conversation {
                req, view, blocks, ..
            } => {
                if req == self.conversation_req.get_value() {
                    self.conversation.set(Some((req, view)));
                    self.conversation_blocks.set(blocks);
                }
            }
            Response::Download { file, url, .. } => {
                if let Err(e) = save_url(&file, url) {
                    self.notify(format!("Download of {file} failed: {e}"), true);
                }
            }
            Response::Export { file, text, .. } => {
                if let Err(e) = download(&file, &text) {
                    self.notify(format!("Download of {file} failed: {e}"), true);
                }
            }
            Response::Error { message, .. } => self.notify(message, true),
            Response::Compare { req, view } => {
                if req == self.compare_req.get_value() {
                    self.compare.set(Some(*view));
                }
            }
            Response::Series { req, view } => {
                if req == self.series_req.get_value() {
                    self.series.set(Some(*view));
                }
            }
            Response::Screen { req, view, .. } => self.screen.set(Some((req, *view))),
            // Human review marks changed: every view asks again.
            Response::Marked { message, drop } => {
                if let Some(id) = drop {
                    self.remove(id);
                }
                self.rescored.update(|n| *n += 1);
                if let Some((error, text)) = message {
                    self.notify(text, error);
                }
            }
        }
    }

    /// Whether run `run_id` is listed, after listing it when it is one log of a `Load` that held
    /// several (`part_of`, still listed): the first log keeps the `Load`'s entry, renamed
    /// `folder/file`; the others are new entries.
    fn take_part(&self, run_id: RunId, part_of: Option<RunId>, name: &str) -> bool {
        let Some(parent) = part_of.filter(|p| self.has_run(*p)) else {
            return self.has_run(run_id);
        };
        if run_id == parent {
            self.rename(run_id, name);
        } else if !self.has_run(run_id) {
            self.runs.update(|rs| {
                let taken: Vec<String> = rs.iter().map(|r| r.name.clone()).collect();
                rs.push(RunEntry {
                    id: run_id,
                    name: unique_name(name, &taken),
                    demo: false,
                    status: RunStatus::Working {
                        stage: "scoring".into(),
                        done: 0,
                        total: 1,
                    },
                    read_problems: Vec::new(),
                })
            });
        }
        true
    }

    /// Runs loaded (one `Loaded`, or a lake's `LoadedMany`), listed in one update of the run
    /// list. A run of a `Load` of several (`part_of`) is added under its own name; a run removed
    /// while the worker was still reading it is freed there too.
    fn loaded(&self, infos: Vec<RunInfo>) {
        for i in &infos {
            if i.part_of == Some(i.run_id) && self.has_run(i.run_id) {
                self.rename(i.run_id, &i.name);
            }
        }
        let (mut kept, mut gone) = (Vec::new(), Vec::new());
        self.runs.update(|rs| {
            let mut taken: Vec<String> = rs.iter().map(|r| r.name.clone()).collect();
            for info in infos {
                let id = info.run_id;
                let parent = info.part_of.is_some_and(|p| rs.iter().any(|r| r.id == p));
                match rs.iter_mut().find(|r| r.id == id) {
                    Some(r) => r.status = RunStatus::Loaded(Box::new(info)),
                    None if parent => {
                        let name = unique_name(&info.name, &taken);
                        taken.push(name.clone());
                        rs.push(RunEntry {
                            id,
                            name,
                            demo: false,
                            status: RunStatus::Loaded(Box::new(info)),
                            read_problems: Vec::new(),
                        });
                    }
                    None => {
                        gone.push(id);
                        continue;
                    }
                }
                kept.push(id);
            }
        });
        for run_id in gone {
            client::send(&Request::Remove { run_id });
        }
        for id in kept {
            self.settled(id);
        }
    }

    fn has_run(&self, run_id: RunId) -> bool {
        self.runs
            .with_untracked(|rs| rs.iter().any(|r| r.id == run_id))
    }

    /// A run finished loading (or failed): when it was loaded again after a worker restart, the
    /// views on screen are asked again, and the next run waiting to be loaded again is sent.
    fn settled(&self, run_id: RunId) {
        let was_reloading = self.reloading.try_update_value(|r| {
            let before = r.len();
            r.retain(|id| *id != run_id);
            before != r.len()
        });
        if was_reloading == Some(true) {
            self.rescored.update(|n| *n += 1);
        }
        self.suspects.update_value(|s| s.retain(|id| *id != run_id));
        if self.replaying.get_value() == Some(run_id) {
            self.replaying.set_value(None);
            self.replay_next();
        }
    }

    /// Sends the next run of [`Store::replay`] again, unless one is on its way (a run removed
    /// meanwhile is skipped).
    fn replay_next(&self) {
        if self.replaying.get_value().is_some() {
            return;
        }
        loop {
            let next = self
                .replay
                .try_update_value(|q| (!q.is_empty()).then(|| q.remove(0)));
            let Some(Some(id)) = next else {
                return;
            };
            if self.has_run(id) && client::can_reload(id) {
                self.replaying.set_value(Some(id));
                client::send_again(&[id]);
                return;
            }
        }
    }

    /// The page's worker stopped (a crash in the engine): every run is loaded again into a new
    /// worker, one at a time, but a run that stopped workers twice ([`Store::runs_stopped`]),
    /// so the page stays usable. A worker that never started is not started again.
    pub fn worker_stopped(&self, stopped: client::Stopped) {
        self.worker_ready.set(false);
        let all: Vec<RunId> = self
            .runs
            .with_untracked(|rs| rs.iter().map(|r| r.id).collect());
        // A new worker is started unless this one never did (it would fail the same way); the
        // runs go into it unless workers keep stopping (a request that crashes one would crash
        // every new one): then the runs fail, and the new worker takes new drops.
        let replay = stopped.was_ready && !self.stopping_often();
        let again = self.runs_stopped(&all, "The dashboard's worker", &stopped.message, replay);
        self.replay.set_value(again);
        self.replaying.set_value(None);
        if stopped.was_ready {
            if let Err(e) = client::restart() {
                self.notify(e, true);
            }
            self.replay_next();
        }
    }

    /// Notes a worker's stop; `true` when workers stopped more than [`MAX_STOPS`] times within
    /// [`STOPS_WINDOW_MS`].
    fn stopping_often(&self) -> bool {
        let now = js_sys::Date::now();
        self.stops.update_value(|s| {
            s.retain(|t| now - t < STOPS_WINDOW_MS);
            s.push(now);
        });
        self.stops.with_value(|s| s.len() > MAX_STOPS)
    }

    /// Marks the runs in `held` after their worker (`who`) stopped with `why`, and returns the
    /// runs to load again, in the order to send them.
    ///
    /// The worker's own word on what it was doing cannot be trusted here: a message it posted
    /// just before it stopped is lost when it is ended (a run it had finished still looks in
    /// flight). So the page goes by what it sent: the runs in flight (a `Load` sent, no answer
    /// yet, not waiting to be sent again) become suspects and are sent again one at a time after
    /// the others; a suspect that is the only run in flight at a later stop is the run that stops
    /// workers: it fails with the reason and is not sent again (sent again, it would stop each
    /// new worker). A run that stops every worker stops two; a stop it did not cause (a trap in
    /// another request, a message lost) fails no run. Loaded runs come back first; a run that
    /// failed stays failed; a run still read on the page goes to the new worker when it is read;
    /// a log of a several-log `Load` comes back with its `Load`. When workers keep stopping
    /// (`restartable` false), every run fails with the reason.
    fn runs_stopped(&self, held: &[RunId], who: &str, why: &str, restartable: bool) -> Vec<RunId> {
        let pending = self.replay.get_value();
        let in_flight: Vec<RunId> = self.runs.with_untracked(|rs| {
            rs.iter()
                .filter(|r| held.contains(&r.id) && r.is_busy() && client::can_reload(r.id))
                .filter(|r| !pending.contains(&r.id))
                .map(|r| r.id)
                .collect()
        });
        let suspected = self.suspects.get_value();
        let culprit = match in_flight.as_slice() {
            [one] if suspected.contains(one) => Some(*one),
            _ => None,
        };
        let new_suspects: Vec<RunId> = in_flight
            .iter()
            .copied()
            .filter(|id| Some(*id) != culprit && !suspected.contains(id))
            .collect();
        self.suspects.update_value(|s| {
            s.retain(|id| Some(*id) != culprit);
            s.extend(new_suspects);
        });
        let mut loaded = Vec::new();
        let mut suspects = Vec::new();
        let mut failed = Vec::new();
        let mut with_load = Vec::new();
        self.runs.update(|rs| {
            for r in rs.iter_mut().filter(|r| held.contains(&r.id)) {
                let part_of = r
                    .info()
                    .and_then(|i| i.part_of)
                    .filter(|p| *p != r.id && client::can_reload(*p) && Some(*p) != culprit);
                let error = if Some(r.id) == culprit {
                    format!(
                        "{who} stopped while reading or scoring this run ({why}), twice: the \
                         second time it was the only run the new worker was reading. The other \
                         runs were loaded again. `evalboard score` reads the same files natively \
                         and names the problem."
                    )
                } else if matches!(r.status, RunStatus::Failed { .. }) {
                    continue;
                } else if r.is_busy() && !client::can_reload(r.id) {
                    // Still read on the page: its `Load` goes to the new worker when it is sent.
                    continue;
                } else if !restartable {
                    format!(
                        "{who} could not start, or kept stopping ({why}). Reload the page and \
                         drop the run again; `evalboard score` reads the same files natively."
                    )
                } else if client::can_reload(r.id) || part_of.is_some() {
                    if part_of.is_some() {
                        with_load.push(r.id);
                    } else if in_flight.contains(&r.id) || pending.contains(&r.id) {
                        suspects.push(r.id);
                    } else {
                        loaded.push(r.id);
                    }
                    r.status = RunStatus::Reading {
                        files_done: 0,
                        files_total: 0,
                        bytes_done: 0,
                        bytes_total: 0,
                    };
                    continue;
                } else {
                    format!(
                        "{who} stopped ({why}), and this run's files were not kept: drop them again."
                    )
                };
                failed.push(r.name.clone());
                r.status = RunStatus::Failed {
                    error,
                    files: Vec::new(),
                    diagnostics: Vec::new(),
                };
            }
        });
        // Waiting runs keep their order, before the runs that were in flight (no sort: the page
        // links none for this).
        let mut again = loaded;
        again.extend(pending.iter().filter(|id| suspects.contains(id)));
        again.extend(suspects.iter().filter(|id| !pending.contains(id)));
        self.reloading.update_value(|r| {
            r.extend(again.iter().copied());
            r.extend(with_load.iter().copied());
        });
        let mut note = format!("{who} stopped ({why}).");
        if !failed.is_empty() {
            note.push_str(&format!(" Could not be loaded: {}.", failed.join(", ")));
        }
        if !again.is_empty() {
            note.push_str(&format!(
                " Loading {} again.",
                crate::format::plural(again.len() as u64, "run", "runs")
            ));
        }
        self.notify(note, true);
        again
    }

    fn set_status(&self, run_id: RunId, f: impl FnOnce(&mut RunStatus)) {
        self.runs.update(|rs| {
            if let Some(r) = rs.iter_mut().find(|r| r.id == run_id) {
                f(&mut r.status);
            }
        });
    }

    fn new_run(
        &self,
        name: &str,
        demo: bool,
        files_total: u64,
        bytes_total: u64,
    ) -> (RunId, String) {
        let id = self.next_run.get_value() + 1;
        self.next_run.set_value(id);
        let taken: Vec<String> = self
            .runs
            .with_untracked(|rs| rs.iter().map(|r| r.name.clone()).collect());
        let name = unique_name(name, &taken);
        self.runs.update(|rs| {
            rs.push(RunEntry {
                id,
                name: name.clone(),
                demo,
                status: RunStatus::Reading {
                    files_done: 0,
                    files_total,
                    bytes_done: 0,
                    bytes_total,
                },
                read_problems: Vec::new(),
            })
        });
        (id, name)
    }

    /// Opens a run: it becomes the current view (on the same tab; filters reset).
    pub fn select(&self, name: &str) {
        self.route.update(|r| {
            if r.run.as_deref() != Some(name) {
                let tab = r.tab;
                *r = Route {
                    run: Some(name.to_string()),
                    tab,
                    ..Route::default()
                };
            }
        });
    }

    /// Loads dropped or picked files: each top-level folder is a run; loose files are one run.
    /// The first new run becomes the current view.
    pub fn load_files(&self, files: Vec<PickedFile>, problems: Vec<String>) {
        if files.is_empty() {
            let why = problems
                .first()
                .cloned()
                .unwrap_or_else(|| "nothing to read".into());
            self.notify(format!("No files in the drop ({why})."), true);
            return;
        }
        let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
        let plan = plan_runs(&paths);
        let mut first = true;
        for pr in plan {
            let picked: Vec<(String, PickedFile)> = pr
                .files
                .iter()
                .filter_map(|(i, rel)| Some((rel.clone(), files.get(*i)?.clone())))
                .collect();
            // A run of many files is read here (no size asked: each is a round trip to the
            // browser process); its byte total is known as the bytes come in.
            let many = picked_files::reads_on_page(picked.len());
            let bytes_total: u64 = if many {
                0
            } else {
                picked.iter().map(|(_, f)| f.size()).sum()
            };
            let (id, name) = self.new_run(&pr.name, false, picked.len() as u64, bytes_total);
            if !problems.is_empty() || !pr.skipped.is_empty() {
                let mut mine: Vec<String> = problems
                    .iter()
                    .filter(|p| p.starts_with(&format!("{}/", pr.name)))
                    .cloned()
                    .collect();
                mine.extend(pr.skipped.iter().map(|f| {
                    format!(
                        "{}/{f}: skipped: evalboard's own outputs (an earlier --out), not read as input",
                        pr.name
                    )
                }));
                self.runs.update(|rs| {
                    if let Some(r) = rs.iter_mut().find(|r| r.id == id) {
                        r.read_problems = mine;
                    }
                });
            }
            if first {
                // A new run opens on its overview.
                self.select(&name);
                self.route
                    .update(|r| r.tab = crate::ui::route::Tab::Overview);
                first = false;
            }
            self.send_files(id, name, picked);
        }
    }

    /// Hands the run's files to the worker, which reads, parses and scores them: as `File`s,
    /// or, for a run of many files, as the bytes read here ([`picked_files::read_on_page`]),
    /// transferred (the `File`s are kept to load the run again into a restarted worker).
    fn send_files(&self, id: RunId, name: String, picked: Vec<(String, PickedFile)>) {
        let paths: Vec<String> = picked.iter().map(|(rel, _)| rel.clone()).collect();
        let files: Vec<wasm_bindgen::JsValue> = picked
            .iter()
            .map(|(_, pf)| picked_files::file_source(pf))
            .collect();
        let req = Request::Load {
            run_id: id,
            name,
            paths,
            demo: false,
            stored: None,
        };
        if !picked_files::reads_on_page(picked.len()) {
            return client::send_load(&req, files);
        }
        let store = *self;
        let n = picked.len() as u64;
        let last = Rc::new(Cell::new(0.0f64));
        let progress: Rc<dyn Fn(usize, u64)> = Rc::new(move |done, bytes| {
            let t = js_sys::Date::now();
            if t - last.get() < 100.0 && done as u64 != n {
                return;
            }
            last.set(t);
            store.set_status(id, |s| {
                if let RunStatus::Reading { .. } = s {
                    *s = RunStatus::Reading {
                        files_done: done as u64,
                        files_total: n,
                        bytes_done: bytes,
                        bytes_total: 0,
                    };
                }
            });
        });
        let picked: Vec<PickedFile> = picked.into_iter().map(|(_, pf)| pf).collect();
        leptos::task::spawn_local(async move {
            let sources = picked_files::read_on_page(&picked, progress).await;
            client::send_load_keeping(&req, sources, files);
        });
    }

    /// Loads the demo workspace (own assets under `demo/`, listed by `demo/manifest.json`).
    pub fn load_demo(&self) {
        storage_set(DEMO_DISMISSED_KEY, None);
        let store = *self;
        leptos::task::spawn_local(async move {
            if let Err(e) = store.fetch_demo().await {
                store.notify(format!("The demo could not be loaded: {e}"), true);
            }
        });
    }

    async fn fetch_demo(&self) -> Result<(), String> {
        let bytes = picked_files::fetch_bytes("demo/manifest.json").await?;
        let text = String::from_utf8_lossy(&js_sys::Uint8Array::new(&bytes).to_vec()).into_owned();
        let runs = saved::demo_manifest(&text).map_err(|e| format!("demo/manifest.json: {e}"))?;
        for run in runs {
            if Store::demo_dismissed() {
                break; // "Remove demo" was clicked while it was loading.
            }
            let (id, name) = self.new_run(&run.name, true, run.files.len() as u64, 0);
            if self.route.with_untracked(|r| r.run.is_none()) {
                self.select(&name);
            }
            let mut paths = Vec::new();
            let mut buffers = Vec::new();
            for (n, f) in run.files.iter().enumerate() {
                let url = format!("demo/{}/{}", run.name, f);
                let buf = picked_files::fetch_bytes(&url).await?;
                paths.push(f.clone());
                buffers.push(buf.into());
                self.set_status(id, |s| {
                    *s = RunStatus::Reading {
                        files_done: n as u64 + 1,
                        files_total: run.files.len() as u64,
                        bytes_done: n as u64 + 1,
                        bytes_total: run.files.len() as u64,
                    }
                });
            }
            client::send_load(
                &Request::Load {
                    run_id: id,
                    name,
                    paths,
                    demo: true,
                    stored: None,
                },
                buffers,
            );
        }
        Ok(())
    }

    pub fn demo_dismissed() -> bool {
        storage_get(DEMO_DISMISSED_KEY).is_some()
    }

    /// Removes one run (page and worker).
    pub fn remove(&self, id: RunId) {
        client::send(&Request::Remove { run_id: id });
        // A watched folder's run (or one log of a watched folder of several): removing it stops
        // the watch (the worker forgets its handle).
        let folder = self.runs.with_untracked(|rs| {
            rs.iter()
                .find(|r| r.id == id)
                .and_then(|r| r.info()?.part_of)
                .unwrap_or(id)
        });
        let watched = self.watches.with_untracked(|w| {
            w.iter()
                .find(|(i, _)| *i == folder)
                .map(|(_, s)| s.name.clone())
        });
        if let Some(name) = watched {
            self.watches.update(|w| w.retain(|(i, _)| *i != folder));
            self.notify(
                format!("Stopped watching “{name}”: its run was removed."),
                false,
            );
        }
        self.suspects.update_value(|s| s.retain(|x| *x != id));
        if self.replaying.get_value() == Some(id) {
            self.replaying.set_value(None);
            self.replay_next();
        }
        let removed = self
            .runs
            .with_untracked(|rs| rs.iter().find(|r| r.id == id).map(|r| r.name.clone()));
        self.runs.update(|rs| rs.retain(|r| r.id != id));
        if removed.is_some() && removed == self.route.with_untracked(|r| r.run.clone()) {
            self.select_fallback();
        }
    }

    /// Removes every run (the demo's remembered as dismissed, as "Remove demo" does).
    pub fn remove_all(&self) {
        if self.runs.with_untracked(|rs| rs.iter().any(|r| r.demo)) {
            self.remove_demo();
        }
        let ids: Vec<RunId> = self
            .runs
            .with_untracked(|rs| rs.iter().map(|r| r.id).collect());
        ids.into_iter().for_each(|id| self.remove(id));
    }

    /// Removes the runs of one `Load` of several logs (a folder), by that `Load`'s id.
    pub fn remove_folder(&self, parent: RunId) {
        let ids: Vec<RunId> = self.runs.with_untracked(|rs| {
            rs.iter()
                .filter(|r| r.info().is_some_and(|i| i.part_of == Some(parent)))
                .map(|r| r.id)
                .collect()
        });
        ids.into_iter().for_each(|id| self.remove(id));
    }

    /// Removes every demo run in one go, and remembers that for the next visit.
    pub fn remove_demo(&self) {
        let ids: Vec<RunId> = self
            .runs
            .with_untracked(|rs| rs.iter().filter(|r| r.demo).map(|r| r.id).collect());
        for id in ids {
            self.remove(id);
        }
        storage_set(DEMO_DISMISSED_KEY, Some("1"));
    }

    fn select_fallback(&self) {
        let next = self
            .runs
            .with_untracked(|rs| rs.first().map(|r| r.name.clone()));
        match next {
            Some(n) => self.select(&n),
            None => self.route.update(|r| {
                r.run = None;
                r.item = None;
            }),
        }
    }

    /// Renames a run (names stay unique; the route follows).
    pub fn rename(&self, id: RunId, new_name: &str) -> Option<String> {
        let taken: Vec<String> = self.runs.with_untracked(|rs| {
            rs.iter()
                .filter(|r| r.id != id)
                .map(|r| r.name.clone())
                .collect()
        });
        let name = unique_name(new_name, &taken);
        let old = self
            .runs
            .with_untracked(|rs| rs.iter().find(|r| r.id == id).map(|r| r.name.clone()))?;
        if old == name {
            return Some(name);
        }
        self.runs.update(|rs| {
            if let Some(r) = rs.iter_mut().find(|r| r.id == id) {
                r.name = name.clone();
            }
        });
        if self
            .route
            .with_untracked(|r| r.run.as_deref() == Some(old.as_str()))
        {
            self.route.update(|r| r.run = Some(name.clone()));
        }
        Some(name)
    }

    /// Opens an item of the current run by its key (a turn opens its conversation there).
    pub fn open_item(&self, key: evalboard_engine::run_table::ItemKey) {
        self.route.update(|r| r.item = Some(key));
    }

    /// Opens an item of run `run` by its key, over the current tab (a Compare row opens its
    /// item in the candidate run).
    pub fn open_item_in(&self, run: &str, key: evalboard_engine::run_table::ItemKey) {
        self.route.update(|r| {
            r.run = Some(run.to_string());
            r.item = Some(key);
        });
    }

    /// Shows the Items tab with one filter: its choice `name` set to `value` (the other
    /// filters, the search and the query cleared).
    pub fn show_items(&self, name: &str, value: &str) {
        self.route.update(|r| {
            r.text = None;
            r.choices.clear();
            r.set_choice(name, Some(value.to_string()));
            r.item = None;
            r.tab = crate::ui::route::Tab::Items;
        });
    }

    /// The overview, when it belongs to the current run.
    pub fn current_overview(&self) -> Option<OverviewData> {
        let id = self.current()?.id;
        self.overview
            .with(|o| o.as_ref().filter(|o| o.run_id == id).cloned())
    }

    /// Sends new settings to the workers (they re-score every run) and remembers them.
    pub fn configure(&self, settings: Settings) {
        if let Some(s) = saved::config_to_json(&settings) {
            storage_set(CONFIG_KEY, Some(&s));
        }
        let e = &settings.evalset;
        storage_set(
            EVALSET_KEY,
            Some(&format!("{} {}", e.scorer.id(), e.pass_threshold)),
        );
        storage_set(EVALLOG_KEY, settings.evallog.scorer.map(|k| k.id()));
        self.settings.set(settings.clone());
        client::send(&Request::Configure { settings });
    }

    /// Asks the worker for one export of the current run; the response triggers the download.
    pub fn export(&self, run_id: RunId, file: &str) {
        client::send(&Request::Export {
            req: client::next_req(),
            run_id,
            file: file.to_string(),
        });
    }
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

/// Gets the app state (provided as context by the app shell, `App` in `ui/app.rs`).
pub fn use_store() -> Store {
    use_context::<Store>().unwrap_or_default()
}

/// The stored eval-set settings, `"<scorer id> <threshold>"` (plain text: the page carries no
/// JSON codec, docs/dashboard.md § Size).
pub fn evalset_opts_from_text(s: &str) -> Option<(AnswerScorer, f64)> {
    let (id, t) = s.trim().split_once(' ')?;
    let t = crate::ui::browser::parse_number(t.trim()).filter(|t| (0.0..=1.0).contains(t))?;
    Some((AnswerScorer::from_id(id)?, t))
}

pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Downloads `text` as a file named `file` (a Blob behind an `<a download>`).
pub fn download(file: &str, text: &str) -> Result<(), String> {
    let mime = if file.ends_with(".json") {
        "application/json"
    } else if file.ends_with(".html") {
        "text/html"
    } else if file.ends_with(".jsonl") {
        "application/x-ndjson"
    } else {
        "text/csv"
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    save_url(file, url)
}

/// Downloads the `blob:` URL `url` (the page's, or a worker's) as `file`, then revokes it.
pub fn save_url(file: &str, url: String) -> Result<(), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = wasm_bindgen::JsCast::unchecked_into(
        doc.create_element("a").map_err(|e| format!("{e:?}"))?,
    );
    a.set_href(&url);
    a.set_download(file);
    a.set_class_name("eb-hidden");
    if let Some(body) = doc.body() {
        let _ = body.append_child(&a);
        a.click();
        let _ = body.remove_child(&a);
    }
    // Revoke later: the download has to start first.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
    Ok(())
}
