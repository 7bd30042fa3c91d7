//! The page ⇄ worker protocol round-trips through its binary encoding (postcard), natively:
//! every `Request` and `Response` variant, filled with real engine output (the demo's gpt-4o and
//! o3 runs, an eval-set fixture) and with empty/`None` fields. postcard is not self-describing, so
//! a type that stops round-tripping (`skip_serializing_if`, `flatten`, `untagged`, internal tags,
//! `serde_json::Value`) fails here. A new variant fails to compile in `variant()` until it has a
//! sample below.

use std::path::Path;

use evalboard_app::families::{self, Side};
use evalboard_app::protocol::{self, ChartDto, CompareQuery, Request, Response, RunInfo};
use evalboard_engine::family::Family;
use evalboard_engine::numeric_qa::score::{score_qa_run, Profile, ScoreConfig};
use evalboard_engine::numeric_qa::views::{self, ItemFilter, ItemQuery, SortKey};
use evalboard_engine::prices::{ModelPrice, PriceTable};
use evalboard_engine::run::{self, ReadOptions, ScoredRun, Settings};
use evalboard_engine::run_table::ItemKey;
use evalboard_engine::{numeric_qa::read, InputFile, RunInput};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn input(name: &str, dir: &str, files: &[&str]) -> RunInput {
    let files = files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(root().join(dir).join(f)).expect("fixture file");
            InputFile::new(f.to_string(), bytes)
        })
        .collect();
    RunInput::new(name, files)
}

fn qa(name: &str, results: &str) -> evalboard_engine::numeric_qa::score::ScoredQaRun {
    let run = read::load_qa_run(
        &input(
            name,
            &format!("demo/{name}"),
            &[results, "model_eval_dataset.json"],
        ),
        None,
    )
    .expect("the demo run loads");
    score_qa_run(run, &ScoreConfig::default())
}

fn scored(family: Family, input: &RunInput) -> ScoredRun {
    let read = run::read_as(family, input, None, ReadOptions::default()).expect("the run loads");
    run::score(read, &Settings::default(), 1)
}

fn evalset(name: &str) -> ScoredRun {
    let mut inp = input(
        name,
        &format!("tests/fixtures/evalset/ok/m45_vs_m46/runs/{name}"),
        &["eval_summary.json", &format!("{name}_predictions.jsonl")],
    );
    inp.files.push(InputFile::new(
        "attached_evalset.jsonl",
        std::fs::read(root().join("tests/fixtures/evalset/ok/m45_vs_m46/attached_evalset.jsonl"))
            .expect("eval set"),
    ));
    scored(Family::Evalset, &inp)
}

/// The variant's name; exhaustive, so a new variant needs a sample before this compiles.
fn response_variant(r: &Response) -> &'static str {
    match r {
        Response::Ready => "Ready",
        Response::Progress { .. } => "Progress",
        Response::Loaded { .. } => "Loaded",
        Response::LoadFailed { .. } => "LoadFailed",
        Response::Rescored { .. } => "Rescored",
        Response::Overview { .. } => "Overview",
        Response::Items { .. } => "Items",
        Response::Conversation { .. } => "Conversation",
        Response::Export { .. } => "Export",
        Response::Error { .. } => "Error",
        Response::Compare { .. } => "Compare",
        Response::Series { .. } => "Series",
        Response::Screen { .. } => "Screen",
        Response::Reading { .. } => "Reading",
        Response::WorkerStopped { .. } => "WorkerStopped",
        Response::Stored { .. } => "Stored",
        Response::Marked { .. } => "Marked",
        Response::Live { .. } => "Live",
        Response::Watches { .. } => "Watches",
        Response::LoadedMany { .. } => "LoadedMany",
        Response::Download { .. } => "Download",
    }
}
const RESPONSE_VARIANTS: usize = 21;

fn request_variant(r: &Request) -> &'static str {
    match r {
        Request::Load { .. } => "Load",
        Request::Configure { .. } => "Configure",
        Request::Remove { .. } => "Remove",
        Request::Overview { .. } => "Overview",
        Request::Items { .. } => "Items",
        Request::Conversation { .. } => "Conversation",
        Request::Export { .. } => "Export",
        Request::Compare { .. } => "Compare",
        Request::Report { .. } => "Report",
        Request::Series { .. } => "Series",
        Request::Screen { .. } => "Screen",
        Request::Many { .. } => "Many",
        Request::Mark { .. } => "Mark",
        Request::ImportMarks { .. } => "ImportMarks",
        Request::MarksKept { .. } => "MarksKept",
        Request::Watch { .. } => "Watch",
        Request::WatchStall { .. } => "WatchStall",
        Request::ExportView { .. } => "ExportView",
        Request::ExportLake { .. } => "ExportLake",
        Request::Workspace { .. } => "Workspace",
        Request::ExportMany { .. } => "ExportMany",
    }
}
const REQUEST_VARIANTS: usize = 21;

/// Encodes, decodes and compares: the decoded value prints the same (`Debug` shows every field)
/// and encodes to the same bytes.
fn assert_round_trips<T>(msg: &T) -> usize
where
    T: serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let bytes = protocol::encode(msg).expect("encodes");
    let back: T = protocol::decode(&bytes).unwrap_or_else(|e| panic!("{e}: {msg:?}"));
    assert_eq!(format!("{back:?}"), format!("{msg:?}"));
    assert_eq!(protocol::encode(&back).expect("re-encodes"), bytes);
    bytes.len()
}

/// A watched folder's status as the worker words it, with the numbers a QA JSONL read in two
/// rounds gives (the second ending in a half-written line).
fn live_status() -> protocol::LiveStatus {
    use evalboard_engine::run::live::LiveRun;
    let mut live = LiveRun::new("run.jsonl", &evalboard_engine::run::Settings::default());
    let line = |t: u32, p: u32| {
        format!(
            "{{\"conversation_id\": \"c\", \"turn_idx\": {t}, \"expected\": \"1\", \
             \"predicted\": {p}, \"latency_ms\": 120}}\n"
        )
    };
    live.append(line(0, 1).as_bytes()).expect("a QA line");
    let half = line(2, 1);
    live.append(format!("{}{}", line(1, 2), &half[..20]).as_bytes())
        .expect("QA lines");
    let n = live.numbers();
    assert_eq!((n.items, n.correct, n.diagnostics), (2, 1, 0));
    protocol::LiveStatus {
        name: "live <run>".into(),
        state: protocol::WatchState::Running,
        blocks: vec![
            protocol::Block::Note {
                key: "watch-state".into(),
                tone: "note".into(),
                text: "RUNNING · 2.5 items/s · last item 0 s ago · polling every 1 s".into(),
            },
            protocol::Block::Text {
                key: "watch-file".into(),
                text: format!("{}: {} items · accuracy 50.0%", live.path(), n.items),
                mono: false,
            },
        ],
    }
}

fn chart() -> ChartDto {
    ChartDto {
        key: "accuracy_variants".into(),
        title: "Accuracy variants".into(),
        svg: r#"<svg xmlns="http://www.w3.org/2000/svg"><text>&lt;b&gt;</text></svg>"#.into(),
        alt: "bars".into(),
        table: vec![
            vec!["Variant".into(), "Accuracy".into()],
            vec!["exact".into(), "41.7%".into()],
        ],
    }
}

fn responses() -> Vec<Response> {
    let gpt = qa("gpt-4o", "gpt_4o_results.json");
    let o3 = qa("o3", "o3_results.json");
    let info = |run_id, s: &evalboard_engine::numeric_qa::score::ScoredQaRun| RunInfo {
        run_id,
        name: s.run.name.clone(),
        demo: true,
        family: Family::NumericQa,
        n_conversations: s.run.conversations.len(),
        n_turns: s.turns.len(),
        size: evalboard_engine::run::RunRef::NumericQa(s).size(),
        profile: evalboard_engine::run::RunRef::NumericQa(s).profile(),
        files: s.run.files.clone(),
        diagnostics: s.run.diagnostics.clone(),
        headline: evalboard_engine::numeric_qa::aggregate::doc::statistics(s).numerical_accuracy,
        load_ms: 12.5,
        wasm_memory_bytes: Some(1 << 24),
        stage_ms: vec![("parse".into(), 8.5), ("score".into(), 4.0)],
        custom_settings: vec!["relative tolerance 2% (default 1%)".into()],
        part_of: Some(run_id),
        unpriced_models: vec!["mockllm/model".into()],
        label: "gpt-4o · Accuracy 58.3%".into(),
        facets: ["numeric QA".into(), "—".into(), "gpt-4o".into()],
    };
    let base = evalset("m45_m44_baseline");
    let cand = evalset("m46_control");
    // The eval-set screens: overview, a filtered page of items, one item, a missing one.
    let ev_screens: Vec<protocol::ScreenView> = match &base {
        ScoredRun::Evalset(r, s) => [
            protocol::ScreenQuery::Overview {
                dark: false,
                choices: Vec::new(),
            },
            protocol::ScreenQuery::Items {
                filter: protocol::ScreenFilter {
                    choices: vec![("verdict".into(), "wrong".into())],
                    text: Some("a".into()),
                },
                offset: 0,
                limit: 50,
            },
            protocol::ScreenQuery::Item {
                key: ItemKey::text(&s.items[0].item_id),
            },
            protocol::ScreenQuery::Item {
                key: ItemKey::text("no such item"),
            },
        ]
        .iter()
        .map(|q| evalboard_app::evalset::view(r, s, q))
        .collect(),
        _ => unreachable!("an eval-set run"),
    };
    assert!(ev_screens[0].blocks.len() > 3 && ev_screens[2].item.is_some());
    let ev_cmp = families::compare_view(
        &Side::Run("m45", base.as_ref()),
        &Side::Run("m46", cand.as_ref()),
        &CompareQuery::default(),
    );
    assert!(!ev_cmp.rows.is_empty());
    let qa_cmp = families::compare_view(
        &Side::Run("gpt-4o", run::RunRef::NumericQa(&gpt)),
        &Side::Run("o3", run::RunRef::NumericQa(&o3)),
        &CompareQuery {
            flip: Some("regressed".into()),
            category: None,
            limit: 5,
            by: Some("turn".into()),
            by_item: false,
            scorer: None,
        },
    );
    // Sliced by turn: every demo turn is paired, so each turn's baseline accuracy is the run's
    // own accuracy by turn number.
    assert_eq!(qa_cmp.slice_by.as_deref(), Some("turn"));
    let by_turn =
        evalboard_engine::numeric_qa::aggregate::doc::statistics(&gpt).accuracy_by_turn_number;
    assert_eq!(qa_cmp.slices.len(), by_turn.len() + 1);
    for (row, (turn, acc)) in qa_cmp.slices.iter().skip(1).zip(&by_turn) {
        assert_eq!(row[0], turn.0.to_string());
        assert_eq!(row[2], evalboard_app::format::pct(Some(*acc)));
    }
    let mixed = families::compare_view(
        &Side::Run("gpt-4o", run::RunRef::NumericQa(&gpt)),
        &Side::Run("m46", cand.as_ref()),
        &CompareQuery::default(),
    );
    assert!(mixed.error.is_some());
    let query = ItemQuery {
        filter: ItemFilter {
            verdict: Some("wrong".into()),
            ..Default::default()
        },
        sort: SortKey::Verdict,
        desc: true,
        offset: 0,
        limit: 20,
    };
    let page = views::items(&gpt, &query);
    assert!(!page.rows.is_empty());
    let overview = views::overview(&gpt, 10);
    let conversation = views::conversation(&gpt, 0);
    assert!(conversation.is_some());
    let mut out = vec![
        Response::Ready,
        Response::Reading {
            run_id: 1,
            files_done: 3,
            files_total: 28_589,
            bytes_done: 5 << 20,
            bytes_total: 45_000_000,
            problems: vec!["run/traces/gone.json: the file changed while it was being read".into()],
        },
        Response::Progress {
            run_id: 1,
            stage: "parsing".into(),
            done: 10,
            total: u64::MAX,
        },
        Response::Loaded {
            info: info(1, &gpt),
        },
        Response::Loaded {
            info: RunInfo {
                family: Family::Evalset,
                headline: Some(0.5),
                wasm_memory_bytes: None,
                ..info(2, &o3)
            },
        },
        Response::LoadFailed {
            run_id: 3,
            name: "bad".into(),
            error: "nothing readable".into(),
            files: gpt.run.files.clone(),
            diagnostics: vec![
                evalboard_engine::Diagnostic::error("a.jsonl", Some(3), "bad")
                    .with_record("turn 2"),
            ],
            part_of: Some(7),
        },
        Response::Rescored {
            runs: vec![info(1, &gpt), info(2, &o3)],
        },
        Response::Rescored { runs: vec![] },
        Response::Download {
            req: 9,
            file: "workspace.evalboard-lake.zip".into(),
            url: "blob:http://x/1".into(),
        },
        Response::LoadedMany {
            infos: vec![
                RunInfo {
                    part_of: Some(1),
                    ..info(1, &gpt)
                },
                RunInfo {
                    part_of: Some(1),
                    ..info(protocol::part_id(1, 1), &o3)
                },
            ],
        },
        Response::Stored {
            runs: vec![protocol::StoredRun {
                key: "0001764140000000-004242".into(),
                name: "m45 <b>baseline</b>".into(),
                paths: vec!["runs/a.jsonl".into(), "eval_summary.json".into()],
            }],
        },
        Response::Stored { runs: vec![] },
        Response::Marked {
            message: None,
            drop: None,
        },
        Response::Live {
            run_id: 7,
            status: live_status(),
        },
        Response::Watches {
            watches: vec![protocol::StoredRun {
                key: "watch/0001764140000000".into(),
                name: "live".into(),
                paths: vec![],
            }],
        },
        Response::Marked {
            message: Some((true, "m.jsonl:3: not JSON <script>\u{7}".into())),
            drop: Some(3),
        },
        Response::Screen {
            req: 9,
            run_id: 1,
            view: Box::new(evalboard_app::protocol::ScreenView {
                blocks: vec![evalboard_app::protocol::Block::Review {
                    mark: "wrong".into(),
                    note: "<script>alert(1)</script>\u{0}".into(),
                    score: "0.25".into(),
                }],
                ..evalboard_app::screen::empty("run")
            }),
        },
        Response::WorkerStopped {
            runs: vec![],
            message: "the code-generation worker stopped".into(),
            worker: "The lake worker (Parquet)".into(),
        },
        Response::Overview {
            req: 7,
            run_id: 1,
            overview: Box::new(overview),
            rest: vec![
                evalboard_app::protocol::Block::Chart(chart()),
                evalboard_app::protocol::Block::Chart(chart()),
            ],
            breakdowns: vec![evalboard_app::screen::note("empty", "note", "No data.")],
            complexity: vec![evalboard_app::screen::text("hint", "By turn", false)],
            errors: vec![evalboard_app::screen::note("empty", "note", "No errors.")],
        },
        Response::Overview {
            req: 8,
            run_id: 2,
            overview: Box::new(views::overview(&qa_empty(), 10)),
            rest: vec![],
            breakdowns: vec![],
            complexity: vec![],
            errors: vec![],
        },
        Response::Items {
            req: 9,
            run_id: 1,
            page,
        },
        Response::Conversation {
            req: 10,
            run_id: 1,
            view: conversation,
            blocks: vec![protocol::Block::Review {
                mark: "wrong".into(),
                note: "the table's unit is thousands".into(),
                score: "0.5".into(),
            }],
        },
        Response::Conversation {
            req: 11,
            run_id: 1,
            view: None,
            blocks: Vec::new(),
        },
        Response::Export {
            req: 12,
            run_id: 1,
            file: "statistics.json".into(),
            text: "{\"a\": 1}\n".into(),
        },
        Response::Error {
            req: None,
            message: "unreadable".into(),
        },
        Response::Error {
            req: Some(3),
            message: "no run 3".into(),
        },
    ];
    out.extend(ev_screens.into_iter().map(|v| Response::Screen {
        req: 13,
        run_id: 2,
        view: Box::new(v),
    }));
    // A Compare row side by side: a number written two ways, a run without the item.
    let row = |answer: &str| evalboard_engine::run_table::ItemRow {
        key: ItemKey::text_index("c1", 0),
        verdict: Some(true),
        fields: vec![("category".into(), "ratio".into())],
        texts: vec![
            ("question".into(), "q?".into()),
            ("answer".into(), answer.into()),
        ],
        usage: Default::default(),
    };
    let side = |name: &str, answer: Option<&str>| evalboard_app::pair::PairSide {
        name: name.into(),
        row: answer.map(row),
        blocks: answer.map(|a| vec![evalboard_app::screen::text("answer", a, true)]),
    };
    for (a, b) in [(Some("4.5"), Some("4.50")), (None, Some("x"))] {
        out.push(Response::Screen {
            req: 14,
            run_id: 2,
            view: Box::new(evalboard_app::pair::view(
                &ItemKey::text_index("c1", 0),
                side("a", a),
                side("b", b),
            )),
        });
    }
    // A series: metadata side by side, the metrics chart, one step's comparison.
    let series = families::series_view(
        &[
            Side::Run("m45", base.as_ref()),
            Side::Run("m46", cand.as_ref()),
            Side::Run("m45 again", base.as_ref()),
        ],
        1,
        &CompareQuery::default(),
        true,
    );
    assert!(!series.steps.is_empty() && !series.meta.is_empty());
    out.push(Response::Series {
        req: 16,
        view: Box::new(series),
    });
    // Code-generation screens of a real trace fixture (overview, a page of messages, one message)
    // and a code-generation comparison.
    let cg = |dir: &str| {
        scored(
            Family::Codegen,
            &input(
                dir,
                &format!("tests/fixtures/codegen/diff/{dir}"),
                &["traces.jsonl", "employees.csv"],
            ),
        )
    };
    let (cg_base, cg_cand) = (cg("baseline"), cg("candidate"));
    for query in codegen_queries() {
        out.push(Response::Screen {
            req: 17,
            run_id: 5,
            view: Box::new(match &cg_base {
                ScoredRun::Codegen(l) => evalboard_app::codegen::view(l, &query),
                _ => unreachable!("a code-generation run"),
            }),
        });
    }
    out.push(Response::Compare {
        req: 18,
        view: Box::new(families::compare_view(
            &Side::Run("baseline", cg_base.as_ref()),
            &Side::Run("candidate", cg_cand.as_ref()),
            &CompareQuery::default(),
        )),
    });
    // Two Inspect logs of 3 epochs paired by item: the pairing, with the mean difference, travels.
    let log = |d: &str| {
        scored(
            Family::EvalLog,
            &input(
                d,
                &format!("tests/fixtures/evallog/runs/{d}"),
                &["repeats.eval"],
            ),
        )
    };
    let (la, lb) = (log("inspect_repeats_a"), log("inspect_repeats_b"));
    let by_item = families::compare_view(
        &Side::Run("a", la.as_ref()),
        &Side::Run("b", lb.as_ref()),
        &CompareQuery {
            by_item: true,
            ..Default::default()
        },
    );
    assert!(by_item
        .pairing
        .as_deref()
        .is_some_and(|p| p.contains("clustered by item")));
    for view in [ev_cmp, qa_cmp, mixed, by_item] {
        out.push(Response::Compare {
            req: 15,
            view: Box::new(view),
        });
    }
    // The All runs tab: one log against the other (the ranked table's `Cell::Open`, the charts,
    // a page of the matrix).
    let many = evalboard_app::many::Many::new::<{ run::ALL_FAMILIES }>(
        &[("a", la.as_ref())],
        &[("b", lb.as_ref())],
    );
    for query in codegen_queries().into_iter().take(2) {
        out.push(Response::Screen {
            req: 19,
            run_id: 1,
            view: Box::new(many.view(&query)),
        });
    }
    out
}

/// The first session of the code-generation diff fixture.
const CG_SESSION: &str = "11111111-1111-1111-1111-111111111111";

fn codegen_queries() -> Vec<evalboard_app::protocol::ScreenQuery> {
    use evalboard_app::protocol::{ScreenFilter, ScreenQuery};
    vec![
        ScreenQuery::Overview {
            dark: true,
            choices: Vec::new(),
        },
        ScreenQuery::Items {
            filter: ScreenFilter {
                choices: vec![
                    ("model".into(), "gpt-4o".into()),
                    ("class".into(), "column_error".into()),
                ],
                text: Some("sum <b>".into()),
            },
            offset: 0,
            limit: 20,
        },
        ScreenQuery::Items {
            filter: ScreenFilter::default(),
            offset: 0,
            limit: 20,
        },
        ScreenQuery::Item {
            key: ItemKey::text_index(CG_SESSION, 0),
        },
        ScreenQuery::Item {
            key: ItemKey::text_index(CG_SESSION, 99),
        },
        ScreenQuery::Pair {
            baseline: 4,
            key: ItemKey::text_index(CG_SESSION, 0),
        },
        ScreenQuery::Hits {
            key: ItemKey::text_index(CG_SESSION, 0),
            query: "text ~ /time(d)? ?out/i and tool == \"bash\"".into(),
        },
    ]
}

/// A run with no readable turns (every aggregate `None`).
fn qa_empty() -> evalboard_engine::numeric_qa::score::ScoredQaRun {
    score_qa_run(
        evalboard_engine::numeric_qa::model::QaRun::default(),
        &ScoreConfig::default(),
    )
}

fn requests() -> Vec<Request> {
    let config = ScoreConfig {
        profile: Profile::Fa2,
        tolerances: evalboard_engine::numeric_qa::score::doc::DocTolerances {
            rel: 0.02,
            ..Default::default()
        },
        prices: PriceTable {
            models: vec![
                ("gpt-4o".into(), ModelPrice::new(2.5, 10.0)),
                (
                    "anthropic/claude-sonnet-4".into(),
                    ModelPrice {
                        cache_read_per_mtok: Some(0.3),
                        cache_write_per_mtok: Some(3.75),
                        reasoning_per_mtok: None,
                        source: Some("anthropic.com/pricing".into()),
                        date: Some("2025-06-01".into()),
                        ..ModelPrice::new(3.0, 15.0)
                    },
                ),
            ],
        },
    };
    let settings = Settings {
        numeric_qa: config,
        evalset: evalboard_engine::evalset::ScoringOptions {
            scorer: evalboard_engine::evalset::AnswerScorer::V1Extract,
            pass_threshold: 0.75,
        },
        ..Settings::default()
    };
    vec![
        Request::Load {
            run_id: 1,
            name: "a b".into(),
            paths: vec!["x/y.json".into(), "z.jsonl".into()],
            demo: true,
            stored: None,
        },
        Request::Load {
            run_id: 2,
            name: "kept".into(),
            paths: vec!["run.jsonl".into()],
            demo: false,
            stored: Some("0001764140000000-004242".into()),
        },
        Request::Configure { settings },
        Request::Configure {
            settings: Settings::default(),
        },
        Request::Remove { run_id: 4 },
        Request::Mark {
            run_id: 1,
            key: ItemKey::text_index("conv 3", 2),
            field: "note".into(),
            value: "<b>ü</b>\u{7}".into(),
        },
        Request::ImportMarks {
            file: "m.jsonl".into(),
            text: "{\"schema\": \"evalboard-marks/1\"}\n".into(),
        },
        Request::MarksKept {
            text: "{\"schema\": \"evalboard-marks/1\"}\n".into(),
        },
        Request::Watch {
            run_id: 7,
            name: "live <run>".into(),
            stored: None,
        },
        Request::Watch {
            run_id: 8,
            name: "kept".into(),
            stored: Some("watch/0001764140000000".into()),
        },
        Request::WatchStall { seconds: 3 },
        Request::ExportView {
            req: 9,
            run_id: 2,
            filter: protocol::ScreenFilter {
                choices: vec![("verdict".into(), "wrong".into())],
                text: Some("ü <b>".into()),
            },
            format: "jsonl".into(),
            columns: vec!["input".into(), "metadata".into()],
            baseline: Some(1),
        },
        Request::ExportLake { req: 10 },
        Request::Workspace { run_id: 11 },
        Request::ExportMany {
            req: 12,
            baselines: vec![1],
            runs: vec![2, 3],
            filter: protocol::ScreenFilter {
                choices: vec![("show".into(), "Regressed in any run".into())],
                text: Some("ü".into()),
            },
            format: "parquet".into(),
        },
        Request::Overview {
            req: 1,
            run_id: 1,
            dark: true,
        },
        Request::Items {
            req: 2,
            run_id: 1,
            query: ItemQuery {
                filter: ItemFilter {
                    verdict: Some("wrong".into()),
                    turn_idx: Some(2),
                    feature: Some("has_type2_question".into()),
                    error_type: None,
                    text: Some("ü <b>".into()),
                    disagreements: true,
                },
                sort: SortKey::Tokens,
                desc: true,
                offset: 100,
                limit: 50,
            },
        },
        Request::Items {
            req: 3,
            run_id: 1,
            query: ItemQuery::default(),
        },
        Request::Conversation {
            req: 4,
            run_id: 1,
            key: ItemKey::text_index("conv 3", 2),
            query: Some("text ~ /rate limit/i".into()),
        },
        Request::Export {
            req: 5,
            run_id: 1,
            file: "turns.csv".into(),
        },
        Request::Compare {
            req: 7,
            baseline: 1,
            candidate: 2,
            query: CompareQuery {
                flip: Some("improved".into()),
                category: Some("math".into()),
                limit: 10,
                by: Some("difficulty".into()),
                by_item: true,
                scorer: Some("arith_mc/acc[none]/acc".into()),
            },
        },
        Request::Compare {
            req: 8,
            baseline: 1,
            candidate: 2,
            query: CompareQuery::default(),
        },
        Request::Report {
            req: 9,
            run_id: 1,
            baseline: Some(2),
            generated_at: "2026-11-21 12:00 UTC".into(),
            many: None,
        },
        Request::Report {
            req: 10,
            run_id: 1,
            baseline: None,
            generated_at: String::new(),
            many: Some((
                vec![1, 3],
                vec![2, 4, 5],
                Some("arith_mc/acc[none]/acc".into()),
            )),
        },
        Request::Series {
            req: 11,
            runs: vec![1, 2, 3],
            step: 1,
            query: CompareQuery::default(),
            dark: false,
        },
    ]
    .into_iter()
    .chain(codegen_queries().into_iter().map(|query| Request::Screen {
        req: 12,
        run_id: 5,
        query,
    }))
    .chain(codegen_queries().into_iter().map(|query| Request::Many {
        req: 13,
        baselines: vec![1, 2],
        runs: vec![3, 4],
        query,
    }))
    .collect()
}

/// Every sample round-trips, and together they cover all `n_variants` variants.
fn assert_all_round_trip<T>(samples: Vec<T>, variant: fn(&T) -> &'static str, n_variants: usize)
where
    T: serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let mut seen = std::collections::BTreeSet::new();
    for r in samples {
        assert_round_trips(&r);
        seen.insert(variant(&r));
    }
    assert_eq!(seen.len(), n_variants, "a variant has no sample: {seen:?}");
}

#[test]
fn every_response_variant_round_trips() {
    assert_all_round_trip(responses(), response_variant, RESPONSE_VARIANTS);
}

#[test]
fn every_request_variant_round_trips() {
    assert_all_round_trip(requests(), request_variant, REQUEST_VARIANTS);
}

#[test]
fn binary_replies_are_smaller_than_json() {
    // Not a contract, a sanity check of the point of the encoding: the demo's overview and a
    // page of items are well under their JSON size.
    for r in responses().iter().filter(|r| {
        matches!(
            r,
            Response::Overview { .. } | Response::Items { .. } | Response::Screen { .. }
        )
    }) {
        let bin = assert_round_trips(r);
        let json = serde_json::to_string(r).expect("json").len();
        assert!(bin < json, "{} bytes binary vs {json} JSON", bin);
    }
}

#[test]
fn truncated_or_extended_messages_are_errors_not_panics() {
    let bytes = protocol::encode(&responses()[2]).expect("encodes");
    for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            protocol::decode::<Response>(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(protocol::decode::<Response>(&longer)
        .unwrap_err()
        .contains("unread"));
    assert!(protocol::decode::<Request>(&[200, 1, 2]).is_err());
    assert!(protocol::decode::<protocol::ScreenView>(&[]).is_err());
}

#[test]
fn part_ids_never_meet_the_pages_ids_nor_each_other() {
    let mut seen = std::collections::HashSet::new();
    for run in 1..=2000u32 {
        for k in 1..=20 {
            let id = protocol::part_id(run, k);
            assert!(
                id & 0x8000_0000 != 0,
                "the page's ids keep the high bit clear"
            );
            assert!(seen.insert(id), "part {k} of run {run} repeats an id");
            assert_eq!(id, protocol::part_id(run, k), "the same after a restart");
        }
    }
}

/// The runs a request needs in the workspace (a lake run among them is loaded into the main
/// worker before it is answered): the compared, reported and exported ones, never a screen's.
#[test]
fn workspace_runs_are_the_compared_reported_and_exported_ones() {
    let cases: Vec<(Request, Vec<u32>)> = vec![
        (
            Request::Compare {
                req: 1,
                baseline: 2,
                candidate: 3,
                query: CompareQuery::default(),
            },
            vec![2, 3],
        ),
        (
            Request::Report {
                req: 1,
                run_id: 4,
                baseline: Some(5),
                generated_at: String::new(),
                many: Some((vec![6], vec![7, 8], None)),
            },
            vec![4, 5, 6, 7, 8],
        ),
        (
            Request::ExportView {
                req: 1,
                run_id: 9,
                filter: Default::default(),
                format: "jsonl".into(),
                columns: vec![],
                baseline: Some(2),
            },
            vec![9, 2],
        ),
        (
            Request::Export {
                req: 1,
                run_id: 3,
                file: "statistics.json".into(),
            },
            vec![3],
        ),
        (Request::Workspace { run_id: 11 }, vec![11]),
        (
            Request::ExportMany {
                req: 1,
                baselines: vec![4],
                runs: vec![5, 6],
                filter: Default::default(),
                format: "csv".into(),
            },
            vec![4, 5, 6],
        ),
        (Request::Remove { run_id: 3 }, vec![]),
        (Request::ExportLake { req: 1 }, vec![]),
    ];
    for (req, want) in cases {
        assert_eq!(req.workspace_runs(), want, "{req:?}");
    }
}
