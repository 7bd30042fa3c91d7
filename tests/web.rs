//! Browser tests (wasm-bindgen-test in headless Chromium): the page ↔ worker protocol round-trips
//! through its binary encoding (postcard) with real engine output, and a few components render
//! data as text.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

use evalboard_app::protocol::{self, Block, ChartDto, Request, Response, RunInfo};
use evalboard_app::ui::route::{Route, Tab};
use evalboard_app::ui::store::{RunEntry, RunStatus, Store};
use evalboard_app::ui::widgets::{Chart, DataTable, MetricCard};
use evalboard_engine::numeric_qa::score::{self, ScoreConfig};
use evalboard_engine::numeric_qa::views::{self, ItemFilter, ItemQuery, SortKey};
use evalboard_engine::run::Settings;
use evalboard_engine::{numeric_qa::read, InputFile, RunInput};

wasm_bindgen_test_configure!(run_in_browser);

const XSS: &str = "<img src=x onerror=alert(1)>";

/// A small canonical-JSONL run: 3 conversations, 6 turns, one XSS payload in a question and one
/// in an answer.
fn scored() -> evalboard_engine::numeric_qa::score::ScoredQaRun {
    let lines = [
        format!(r#"{{"conversation_id":"c1","turn_idx":0,"question":"what is {XSS}?","expected":10,"predicted":10,"model":"m1","prompt_tokens":100,"completion_tokens":10}}"#),
        r#"{"conversation_id":"c1","turn_idx":1,"question":"and then?","expected":"5%","predicted":0.05,"model":"m1","prompt_tokens":90,"completion_tokens":12}"#.to_string(),
        format!(r#"{{"conversation_id":"c2","turn_idx":0,"question":"how much?","expected":-3,"predicted":"{XSS}","model":"m1"}}"#),
        r#"{"conversation_id":"c2","turn_idx":1,"question":"difference?","expected":7.5,"predicted":7.49,"model":"m1"}"#.to_string(),
        r#"{"conversation_id":"c3","turn_idx":0,"question":"ratio?","expected":0.25,"predicted":25,"model":"m2"}"#.to_string(),
        r#"not json at all"#.to_string(),
    ];
    let input = RunInput::new(
        "t",
        vec![InputFile::new("turns.jsonl", lines.join("\n").into_bytes())],
    );
    let run = read::load_qa_run(&input, None).expect("the run loads");
    score::score_qa_run(run, &ScoreConfig::default())
}

fn round_trip(r: &Response) -> Response {
    let bytes = protocol::encode(r).expect("encodes");
    protocol::decode(&bytes).expect("decodes")
}

#[wasm_bindgen_test]
fn overview_round_trips_with_real_engine_output() {
    let s = scored();
    let overview = views::overview(&s, 10);
    assert_eq!(overview.stats.total_turns, 5);
    let chart = ChartDto {
        key: "k".into(),
        title: "T".into(),
        svg: "<svg></svg>".into(),
        alt: "a".into(),
        table: vec![vec!["x".into(), "y".into()]],
    };
    let r = Response::Overview {
        req: 7,
        run_id: 3,
        overview: Box::new(overview.clone()),
        rest: vec![Block::Chart(chart.clone())],
        breakdowns: Vec::new(),
        complexity: Vec::new(),
        errors: Vec::new(),
    };
    match round_trip(&r) {
        Response::Overview {
            req,
            run_id,
            overview: o,
            rest,
            ..
        } => {
            assert_eq!((req, run_id), (7, 3));
            assert_eq!(*o, overview);
            assert_eq!(rest, vec![Block::Chart(chart)]);
        }
        other => panic!("wrong variant: {other:?}"),
    }
}

#[wasm_bindgen_test]
fn items_conversation_and_load_round_trip() {
    let s = scored();
    let q = ItemQuery {
        filter: ItemFilter {
            verdict: Some("wrong".into()),
            ..Default::default()
        },
        sort: SortKey::Conversation,
        desc: true,
        offset: 0,
        limit: 50,
    };
    let page = views::items(&s, &q);
    assert!(page.total >= 1);
    assert!(page.rows.iter().all(|r| !r.correct));
    match round_trip(&Response::Items {
        req: 1,
        run_id: 2,
        page: page.clone(),
    }) {
        Response::Items { page: p, .. } => assert_eq!(p, page),
        other => panic!("wrong variant: {other:?}"),
    }
    let view = views::conversation(&s, 0);
    match round_trip(&Response::Conversation {
        req: 5,
        run_id: 2,
        view: view.clone(),
        blocks: Vec::new(),
    }) {
        Response::Conversation { view: v, .. } => assert_eq!(v, view),
        other => panic!("wrong variant: {other:?}"),
    }
    // Requests the page sends decode in the worker.
    for req in [
        Request::Load {
            run_id: 1,
            name: "a b".into(),
            paths: vec!["x/y.json".into()],
            demo: true,
            stored: None,
        },
        Request::Items {
            req: 9,
            run_id: 1,
            query: q.clone(),
        },
        Request::Configure {
            settings: Default::default(),
        },
        Request::Export {
            req: 3,
            run_id: 1,
            file: "turns.csv".into(),
        },
        Request::Mark {
            run_id: 1,
            key: evalboard_engine::run_table::ItemKey::text_index("c 1", 2),
            field: "note".into(),
            value: "<script>\u{7}".into(),
        },
        Request::ImportMarks {
            file: "m.jsonl".into(),
            text: "{\"schema\": \"evalboard-marks/1\"}\n".into(),
        },
        Request::MarksKept {
            text: "{\"schema\": \"evalboard-marks/1\"}\n".into(),
        },
        Request::Watch {
            run_id: 2,
            name: "live".into(),
            stored: Some("watch/1".into()),
        },
        Request::WatchStall { seconds: 300 },
        Request::ExportView {
            req: 4,
            run_id: 1,
            filter: Default::default(),
            format: "parquet".into(),
            columns: vec![],
            baseline: None,
        },
        Request::ExportLake { req: 5 },
        Request::Workspace { run_id: 6 },
        Request::ExportMany {
            req: 7,
            baselines: vec![1],
            runs: vec![2],
            filter: Default::default(),
            format: "jsonl".into(),
        },
    ] {
        let bytes = protocol::encode(&req).expect("encodes");
        let back: Request = protocol::decode(&bytes).expect("decodes");
        assert_eq!(protocol::encode(&back).expect("encodes"), bytes);
    }
    // A watched folder's numbers decode on the page.
    let live = Response::Live {
        run_id: 2,
        status: protocol::LiveStatus {
            name: "live <b>".into(),
            state: protocol::WatchState::Stalled,
            blocks: vec![Block::Note {
                key: "watch-state".into(),
                tone: "warn".into(),
                text: "STALLED · 1.5 items/s · last item 301 s ago · polling every 5 s".into(),
            }],
        },
    };
    assert_eq!(
        protocol::encode(&round_trip(&live)).expect("encodes"),
        protocol::encode(&live).expect("encodes")
    );
    // The worker's answer to a mark, and the drawer's review block, decode on the page.
    let marked = Response::Marked {
        message: Some((true, "m.jsonl:2: not JSON".into())),
        drop: Some(4),
    };
    assert_eq!(
        protocol::encode(&round_trip(&marked)).expect("encodes"),
        protocol::encode(&marked).expect("encodes")
    );
    let review = Block::Review {
        mark: "correct".into(),
        note: "<b>n</b>".into(),
        score: "0.5".into(),
    };
    let bytes = protocol::encode(&review).expect("encodes");
    assert_eq!(protocol::decode::<Block>(&bytes).expect("decodes"), review);
    // The bad line is a diagnostic with its line number, not a failure.
    assert!(
        s.run.diagnostics.iter().any(|d| d.line == Some(6)),
        "{:?}",
        s.run.diagnostics
    );
}

fn mount(f: impl FnOnce() -> AnyView + 'static) -> web_sys::HtmlElement {
    let doc = document();
    let host: web_sys::HtmlElement = doc.create_element("div").expect("div").unchecked_into();
    doc.body()
        .expect("body")
        .append_child(&host)
        .expect("append");
    let handle = leptos::mount::mount_to(host.clone(), f);
    handle.forget();
    host
}

#[wasm_bindgen_test]
fn data_renders_as_text_never_as_markup() {
    let host = mount(|| {
        view! {
            <MetricCard label="Numerical accuracy" value="66.7%" sub=XSS key="numerical_accuracy"/>
            <DataTable head=vec!["Group".into(), "Value".into()] rows=vec![vec![XSS.into(), "1".into()]]/>
        }
        .into_any()
    });
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("66.7%"));
    assert!(text.contains(XSS), "{text}");
    assert!(host.query_selector("img").expect("query").is_none());
    assert!(host
        .query_selector("[data-metric=numerical_accuracy]")
        .expect("query")
        .is_some());
}

#[wasm_bindgen_test]
fn chart_shows_the_worker_svg_and_a_table_equivalent() {
    let chart = ChartDto {
        key: "accuracy_variants".into(),
        title: "Accuracy variants".into(),
        svg: r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>"#.into(),
        alt: "bars".into(),
        table: vec![vec!["Variant".into(), "Accuracy".into()], vec!["exact".into(), "41.7%".into()]],
    };
    let host = mount(move || view! { <Chart chart=chart/> }.into_any());
    assert!(host
        .query_selector(".eb-chart__svg svg rect")
        .expect("query")
        .is_some());
    assert_eq!(
        host.query_selector(".eb-chart__svg")
            .expect("q")
            .expect("svg host")
            .get_attribute("aria-label")
            .as_deref(),
        Some("bars")
    );
    let table = host
        .query_selector("details table")
        .expect("q")
        .expect("table");
    assert!(table.text_content().unwrap_or_default().contains("41.7%"));
}

#[wasm_bindgen_test]
fn load_report_lists_files_and_diagnostics() {
    let s = scored();
    let info = RunInfo {
        run_id: 1,
        name: "t".into(),
        demo: false,
        family: evalboard_engine::family::Family::NumericQa,
        n_conversations: s.run.conversations.len(),
        n_turns: s.turns.len(),
        size: evalboard_engine::run::RunRef::NumericQa(&s).size(),
        profile: evalboard_engine::run::RunRef::NumericQa(&s).profile(),
        files: s.run.files.clone(),
        diagnostics: s.run.diagnostics.clone(),
        headline: None,
        load_ms: 12.0,
        wasm_memory_bytes: None,
        stage_ms: vec![("parse".into(), 8.0), ("score".into(), 4.0)],
        custom_settings: vec![],
        part_of: None,
        unpriced_models: vec![],
        label: String::new(),
        facets: Default::default(),
    };
    let host = mount(move || {
        let store = Store::new();
        provide_context(store);
        store.runs.set(vec![RunEntry {
            id: 1,
            name: "t".into(),
            demo: false,
            status: RunStatus::Loaded(Box::new(info)),
            read_problems: vec!["t/big.bin: too big".into()],
        }]);
        store.route.set(Route {
            run: Some("t".into()),
            tab: Tab::Files,
            ..Route::default()
        });
        view! { <evalboard_app::ui::files::FilesView/> }.into_any()
    });
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("turns.jsonl"), "{text}");
    assert!(text.contains("partly parsed"), "{text}");
    assert!(text.contains("t/big.bin: too big"), "{text}");
    let diag = host
        .query_selector("[data-table=diagnostics]")
        .expect("q")
        .expect("diagnostics table");
    assert!(
        diag.text_content().unwrap_or_default().contains('6'),
        "line number shown"
    );
}

#[wasm_bindgen_test]
fn saved_settings_keep_serde_json_shape_both_ways() {
    use evalboard_app::ui::saved::{config_from_json, config_to_json};
    use evalboard_engine::numeric_qa::score::{doc::DocTolerances, Profile};
    use evalboard_engine::prices::{ModelPrice, PriceTable};
    // The stored shape: the numeric QA settings as serde writes them, the code-generation
    // settings under `codegen`.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Stored {
        #[serde(flatten)]
        numeric_qa: ScoreConfig,
        #[serde(default)]
        codegen: evalboard_engine::codegen::CodegenConfig,
    }
    let stored = |s: &Settings| Stored {
        numeric_qa: s.numeric_qa.clone(),
        codegen: s.codegen,
    };
    let settings = |numeric_qa: ScoreConfig, codegen| Settings {
        numeric_qa,
        codegen,
        ..Settings::default()
    };
    let config = ScoreConfig {
        profile: Profile::Fa2,
        tolerances: DocTolerances {
            rel: 0.02,
            abs: 0.5,
            exact_rel: 1e-6,
        },
        prices: PriceTable {
            models: vec![
                ("gpt-4o \"mini\"".into(), ModelPrice::new(0.15, 0.6)),
                // The page's table: cache prices (the reasoning price and the notes are the
                // CLI file's).
                (
                    "anthropic/claude-sonnet-4".into(),
                    ModelPrice {
                        cache_read_per_mtok: Some(0.3),
                        cache_write_per_mtok: Some(3.75),
                        ..ModelPrice::new(3.0, 15.0)
                    },
                ),
            ],
        },
    };
    let codegen = evalboard_engine::codegen::CodegenConfig {
        profile: evalboard_engine::codegen::Profile::Ise547,
        weights: evalboard_engine::codegen::Weights {
            correctness: 0.5,
            quality: 0.1,
            performance: 0.1,
            understanding: 0.1,
            coverage: 0.1,
            recovery: 0.1,
        },
        max_recovery_attempts: 3,
    };
    for c in [settings(config, codegen), Settings::default()] {
        // What earlier builds stored (serde_json) loads, and what the page stores reads back
        // through serde_json as the same settings.
        let old = serde_json::to_string(&stored(&c)).expect("json");
        assert_eq!(config_from_json(&old).as_ref(), Some(&c), "{old}");
        let new = config_to_json(&c).expect("stringify");
        assert_eq!(
            serde_json::from_str::<Stored>(&new).expect("serde reads it"),
            stored(&c)
        );
        assert_eq!(config_from_json(&new).as_ref(), Some(&c));
    }
    // Prices stored before the cache classes and notes existed load, those left unset.
    let old_prices = r#"{"profile":"doc","tolerances":{},"prices":{"models":[["m",{"input_per_mtok":1,"output_per_mtok":2}]]}}"#;
    assert_eq!(
        config_from_json(old_prices).map(|s| s.numeric_qa.prices),
        Some(PriceTable {
            models: vec![("m".into(), ModelPrice::new(1.0, 2.0))]
        })
    );
    // Settings stored before code-generation runs existed load with its defaults.
    let before = serde_json::to_string(&ScoreConfig::default()).expect("json");
    assert_eq!(config_from_json(&before), Some(Settings::default()));
    // Missing tolerances take their defaults, as with serde; a wrong shape is None.
    let partial =
        config_from_json(r#"{"profile":"doc","tolerances":{"rel":0.05},"prices":{"models":[]}}"#)
            .expect("partial tolerances");
    assert_eq!(partial.numeric_qa.tolerances.rel, 0.05);
    assert_eq!(
        partial.numeric_qa.tolerances.abs,
        DocTolerances::default().abs
    );
    for bad in [
        "",
        "{",
        "[]",
        r#"{"profile":"nope","tolerances":{},"prices":{"models":[]}}"#,
        r#"{"profile":"doc","tolerances":{}}"#,
    ] {
        assert_eq!(config_from_json(bad), None, "{bad}");
    }
}

#[wasm_bindgen_test]
fn demo_manifest_lists_every_run_and_its_files() {
    let text = include_str!("../demo/manifest.json");
    let runs = evalboard_app::ui::saved::demo_manifest(text).expect("the manifest reads");
    let expected: serde_json::Value = serde_json::from_str(text).expect("json");
    let expected = expected["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), expected.len());
    for (r, e) in runs.iter().zip(expected) {
        assert_eq!(r.name, e["name"].as_str().expect("name"));
        assert_eq!(r.files.len(), e["files"].as_array().expect("files").len());
    }
    assert!(runs
        .iter()
        .any(|r| r.name == "gpt-4o" && r.files.iter().any(|f| f == "gpt_4o_results.json")));
    assert!(evalboard_app::ui::saved::demo_manifest("{\"runs\": [{\"name\": 1}]}").is_err());
    assert!(evalboard_app::ui::saved::demo_manifest("not json").is_err());
}

#[wasm_bindgen_test]
fn settings_numbers_parse_as_rust_would() {
    use evalboard_app::ui::browser::parse_number;
    for s in [
        "0",
        "0.01",
        "0.001",
        "1e-9",
        "1E-9",
        "+2.5",
        "-0",
        "-3.75",
        "1.",
        ".5",
        "10",
        "2.50",
        "0.1",
        "0.2",
        "0.30000000000000004",
        "123456789.123456789",
        "1e308",
        "1e400",
        "5e-324",
        "2.2250738585072014e-308",
        "9007199254740993",
        "0.000000000000000000000000000001",
        "",
        ".",
        "e5",
        "1e",
        "abc",
        "1,5",
        "0x10",
        "inf",
        "NaN",
        "1 000",
    ] {
        let rust = s
            .parse::<f64>()
            .ok()
            .filter(|_| evalboard_app::format::is_decimal(s));
        assert_eq!(
            parse_number(s).map(f64::to_bits),
            rust.map(f64::to_bits),
            "{s:?}"
        );
    }
}

#[wasm_bindgen_test]
fn browser_lowercase_is_rusts() {
    for s in [
        "",
        "Paris",
        "ÉCOLE",
        "İstanbul",
        "ὈΔΥΣΣΕΎΣ",
        "ΣΑΣ Σ",
        "Straße ẞ",
        "ǅungla",
        "ＡＢＣ",
        "Ⅻ",
        "🙂 ANSWER: 42",
        "<B>X</B>",
    ] {
        assert_eq!(
            evalboard_app::ui::browser::lower(s),
            s.to_lowercase(),
            "{s:?}"
        );
    }
}

/// A code-generation trace whose question, code, error and model carry the XSS payload.
fn codegen_state() -> evalboard_engine::codegen::Loaded {
    let line = serde_json::json!({
        "session_id": "s1",
        "model": format!("m{XSS}"),
        "question": format!("What is {XSS}?"),
        "code": format!("x = 1\n# {XSS}\nresult = df['a'].sum()"),
        "execution_result": {"type": "error", "data": format!("KeyError: {XSS}")},
        "recovery_attempts": [{"attempt_number": 1, "code": format!("y = '{XSS}'"), "error": null, "success": true}],
    });
    let input = RunInput::new(
        "cg",
        vec![InputFile::new("t.jsonl", line.to_string().into_bytes())],
    );
    use evalboard_engine::run::{self, ReadOptions, ScoredRun};
    let read = run::read_as(
        evalboard_engine::family::Family::Codegen,
        &input,
        None,
        ReadOptions::default(),
    )
    .expect("usable");
    match run::score(read, &Default::default(), 1) {
        ScoredRun::Codegen(l) => *l,
        _ => unreachable!("a code-generation run"),
    }
}

/// The key of the run's first message (`[session id, index]`).
fn first_message(st: &evalboard_engine::codegen::Loaded) -> evalboard_engine::run_table::ItemKey {
    let m = &st.messages[0];
    evalboard_engine::run_table::ItemKey::text_index(&m.session_id, m.index.into())
}

#[wasm_bindgen_test]
fn codegen_views_round_trip_with_real_engine_output() {
    use evalboard_app::protocol::{ScreenFilter, ScreenQuery};
    let st = codegen_state();
    for query in [
        ScreenQuery::Overview {
            dark: true,
            choices: Vec::new(),
        },
        ScreenQuery::Items {
            filter: ScreenFilter::default(),
            offset: 0,
            limit: 10,
        },
        ScreenQuery::Item {
            key: first_message(&st),
        },
    ] {
        let view = evalboard_app::codegen::view(&st, &query);
        let back = round_trip(&Response::Screen {
            req: 4,
            run_id: 2,
            view: Box::new(view.clone()),
        });
        match back {
            Response::Screen { view: v, .. } => assert_eq!(*v, view),
            other => panic!("wrong variant: {other:?}"),
        }
        let req = Request::Screen {
            req: 1,
            run_id: 2,
            query,
        };
        let bytes = evalboard_app::protocol::encode(&req).expect("encodes");
        let back: Request = evalboard_app::protocol::decode(&bytes).expect("decodes");
        assert_eq!(
            evalboard_app::protocol::encode(&back).expect("encodes"),
            bytes
        );
    }
}

#[wasm_bindgen_test]
fn codegen_message_renders_code_question_and_errors_as_text() {
    use evalboard_app::protocol::{Block, ScreenQuery};
    let st = codegen_state();
    let key = first_message(&st);
    let m = evalboard_app::codegen::view(&st, &ScreenQuery::Item { key })
        .item
        .expect("the message");
    // The first generation, as the worker sends it (inside its collapsed group).
    let code = m
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Group { key, blocks, .. } if key == "first-code" => {
                blocks.iter().find_map(|b| match b {
                    Block::Code { code, .. } => Some(code.clone()),
                    _ => None,
                })
            }
            _ => None,
        })
        .expect("replaced by the recovery");
    let host = mount(move || evalboard_app::ui::screen::blocks(m.blocks));
    assert!(host.query_selector("img").expect("query").is_none());
    assert!(host.query_selector("script").expect("query").is_none());
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains(&format!("What is {XSS}?")), "{text}");
    assert!(text.contains(&format!("KeyError: {XSS}")), "{text}");
    // The delivered code (the fix), the first generation and the attempt's fix, numbered.
    let q = |sel: &str| host.query_selector(sel).expect("query");
    assert!(q("pre.eb-code[aria-label='Delivered code']").is_some());
    assert!(q(".eb-attempt pre.eb-code").is_some());
    let first = q("details pre.eb-code").expect("the first generation");
    let n = code.split('\n').count();
    let line = |k: usize| {
        first
            .query_selector(&format!(".eb-code__line:nth-child({k})"))
            .expect("query")
    };
    assert!(line(n).is_some() && line(n + 1).is_none(), "{n} lines");
    let second = line(2).expect("line 2");
    assert_eq!(
        second.text_content().unwrap_or_default(),
        format!("2# {XSS}\n")
    );
    let ln = second
        .query_selector(".eb-code__ln")
        .expect("q")
        .expect("number");
    assert_eq!(ln.text_content().as_deref(), Some("2"));
    // Every element under the code block is a span: no markup from the input.
    assert!(first.query_selector(":not(span)").expect("query").is_none());
}

#[wasm_bindgen_test]
fn stored_evalset_settings_read_back() {
    use evalboard_app::ui::store::evalset_opts_from_text;
    use evalboard_engine::evalset::AnswerScorer;
    assert_eq!(
        evalset_opts_from_text("answer_correctness@v1-extract 0.75"),
        Some((AnswerScorer::V1Extract, 0.75))
    );
    assert_eq!(
        evalset_opts_from_text(&format!("{} {}", AnswerScorer::V1.id(), 1.0)),
        Some((AnswerScorer::V1, 1.0))
    );
    for bad in [
        "",
        "answer_correctness@v1",
        "nope 0.5",
        "answer_correctness@v1 2",
        "[\"v1\",1]",
    ] {
        assert_eq!(evalset_opts_from_text(bad), None, "{bad}");
    }
}

/// The paired bootstrap in wasm32 gives the bounds native gives, bit for bit: the vectors are
/// written natively (`crates/engine/tests/it/stats.rs`, `UPDATE_EXPECT=1`) and checked here.
#[wasm_bindgen_test]
fn bootstrap_bounds_equal_native_bit_for_bit() {
    use evalboard_engine::stats::{paired_bootstrap, PairCounts};
    let vectors = include_str!("fixtures/vectors/bootstrap.tsv");
    let mut checked = 0;
    for line in vectors
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let n = |i: usize| f[i].parse::<u64>().expect("a count");
        let counts = PairCounts {
            n11: n(0),
            n10: n(1),
            n01: n(2),
            n00: n(3),
        };
        let b = paired_bootstrap(counts, n(4) as u32, n(5));
        let bits =
            |x: Option<f64>| x.map_or("none".to_string(), |v| format!("{:016x}", v.to_bits()));
        assert_eq!(
            (bits(b.low), bits(b.high)),
            (f[6].to_string(), f[7].to_string()),
            "{line}"
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

/// A results lake's runs arrive in one `LoadedMany`: the `Load`'s own entry is renamed to the
/// first, the others are listed under their names (made unique), each loaded, in one update of
/// the run list.
#[wasm_bindgen_test]
fn a_lakes_runs_are_listed_from_one_message() {
    let base = RunInfo {
        run_id: 5,
        name: "lake/a".into(),
        demo: false,
        family: evalboard_engine::family::Family::EvalLog,
        n_conversations: 0,
        n_turns: 3,
        size: String::new(),
        profile: String::new(),
        files: vec![],
        diagnostics: vec![],
        headline: Some(0.5),
        load_ms: 0.0,
        wasm_memory_bytes: None,
        stage_ms: vec![],
        custom_settings: vec![],
        part_of: Some(5),
        unpriced_models: vec![],
        label: String::new(),
        facets: Default::default(),
    };
    let infos: Vec<RunInfo> = (0..300)
        .map(|k| RunInfo {
            run_id: if k == 0 { 5 } else { protocol::part_id(5, k) },
            // Two runs named alike: the second is listed as "lake/b (2)".
            name: match k {
                0 => "lake/a".into(),
                1 | 2 => "lake/b".into(),
                _ => format!("lake/r{k}"),
            },
            ..base.clone()
        })
        .collect();
    let owner = Owner::new();
    owner.set();
    let store = Store::new();
    store.runs.set(vec![RunEntry {
        id: 5,
        name: "lake".into(),
        demo: false,
        status: RunStatus::Working {
            stage: "starting the lake reader".into(),
            done: 0,
            total: 1,
        },
        read_problems: vec![],
    }]);
    store.apply(Response::LoadedMany { infos });
    let runs = store.runs.get_untracked();
    assert_eq!(runs.len(), 300);
    assert_eq!(runs[0].name, "lake/a");
    assert_eq!(runs[1].name, "lake/b");
    assert_eq!(runs[2].name, "lake/b (2)");
    assert!(runs
        .iter()
        .all(|r| r.info().is_some_and(|i| i.headline == Some(0.5))));
    assert_eq!(runs[299].id, protocol::part_id(5, 299));
}
