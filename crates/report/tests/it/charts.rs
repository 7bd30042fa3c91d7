//! SVG chart tests: snapshots (byte-identical natively and in wasm), escaping, empty and NaN input.
//!
//! Snapshots live in `tests/snapshots/charts/`; regenerate them with `UPDATE_EXPECT=1 cargo test
//! -p evalboard-report --test it charts::`. The same tests run under wasm32 (node, no DOM):
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test
//! -p evalboard-report --target wasm32-unknown-unknown --test it`, comparing against the same
//! files, which proves the SVG is identical on both targets. Set `EVALBOARD_CHARTS_DIR=/tmp/charts`
//! to also write every sample SVG there for looking at.

use evalboard_report::charts::{
    bar_chart, category_line_chart, dual_axis_line_chart, grouped_bar_chart, histogram, line_chart,
    radar_chart, theme_css, Chart, ChartOptions, ChartStyle, Theme, XValues, YSeries,
};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A tiny deterministic generator (no floats beyond + − × ÷, so inputs match on every target).
struct Lcg(u64);

impl Lcg {
    /// Uniform in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn pct() -> ChartOptions {
    ChartOptions {
        percent: true,
        ..ChartOptions::default()
    }
}

fn s(v: &str) -> String {
    v.to_string()
}

/// Representative charts: each becomes a snapshot and (optionally) a file to look at.
fn samples() -> Vec<(&'static str, Chart)> {
    let mut out = Vec::new();
    out.push((
        "bar_accuracy",
        bar_chart(
            "Accuracy by model",
            "Accuracy (%)",
            &[
                (s("gpt-4o"), Some(0.853)),
                (s("claude-3.5-sonnet"), Some(0.872)),
                (s("llama-3-70b-instruct"), Some(0.711)),
                (s("mistral-large"), None),
                (s("qwen2-72b"), Some(0.694)),
            ],
            &pct(),
        ),
    ));
    let long: Vec<(String, Option<f64>)> = (0..16)
        .map(|i| {
            (
                format!("category {i}: quarterly revenue questions (10-K)"),
                Some(f64::from(i * 37 % 100) / 100.0),
            )
        })
        .collect();
    out.push((
        "bar_long_labels",
        bar_chart(
            "Accuracy by question category",
            "Accuracy (%)",
            &long,
            &pct(),
        ),
    ));
    out.push((
        "bar_numbers_negative",
        bar_chart(
            "Score change vs. baseline <b>&</b>",
            "Δ points",
            &[
                (s("<img src=x onerror=alert(1)>"), Some(-3.5)),
                (s("a & b"), Some(12.25)),
                (s("\"quoted\" 'label'"), Some(f64::NAN)),
                (s("plain"), Some(7.0)),
            ],
            &ChartOptions::default(),
        ),
    ));
    let series = vec![
        (s("gpt-4o"), vec![Some(0.95), Some(0.81), Some(0.52)]),
        (s("claude-3.5-sonnet"), vec![Some(0.97), Some(0.84), None]),
        (s("llama-3-70b"), vec![Some(0.90), Some(0.66), Some(0.31)]),
    ];
    let groups = vec![s("Easy"), s("Medium"), s("Hard")];
    out.push((
        "grouped_difficulty",
        grouped_bar_chart(
            "Accuracy by difficulty",
            "Accuracy (%)",
            &groups,
            &series,
            &pct(),
        ),
    ));
    out.push((
        "grouped_dark",
        grouped_bar_chart(
            "Accuracy by difficulty (dark)",
            "Accuracy (%)",
            &groups,
            &series,
            &ChartOptions {
                percent: true,
                style: ChartStyle {
                    theme: Theme::Dark,
                    ..ChartStyle::default()
                },
            },
        ),
    ));
    let mut rng = Lcg(7);
    let curves: Vec<(String, Vec<(f64, f64)>)> = ["lr=3e-4", "lr=1e-4", "lr=3e-5 (baseline run)"]
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let pts = (0..5000)
                .map(|step| {
                    let x = f64::from(step) * 2.0;
                    let y = 0.3 + 2.2 / (1.0 + x / (300.0 * (k as f64 + 1.0))) + rng.next() * 0.15;
                    (x, y)
                })
                .collect();
            (name.to_string(), pts)
        })
        .collect();
    out.push((
        "line_loss",
        line_chart(
            "Training loss",
            "Step",
            "Loss (nats)",
            &curves,
            &ChartOptions::default(),
        ),
    ));
    let turns: Vec<String> = (1..=10).map(|t| t.to_string()).collect();
    let acc = [
        0.91,
        0.88,
        0.84,
        0.79,
        f64::NAN,
        0.71,
        0.66,
        0.62,
        0.58,
        0.55,
    ]
    .map(|v| Some(v).filter(|v| !v.is_nan()));
    let ops = [1.2, 1.9, 2.4, 3.1, 3.3, 3.8, 4.4, 4.9, 5.6, 6.0].map(Some);
    out.push((
        "dual_turns",
        dual_axis_line_chart(
            "Accuracy and operations by turn",
            "Turn",
            XValues::Labels(&turns),
            YSeries {
                name: "Accuracy",
                y_label: "Accuracy (%)",
                values: &acc,
                percent: true,
            },
            YSeries {
                name: "Avg. operations",
                y_label: "Operations per answer",
                values: &ops,
                percent: false,
            },
            &ChartOptions::default(),
        ),
    ));
    let xs: Vec<f64> = (0..40).map(|i| f64::from(i) * 25.0).collect();
    let left: Vec<Option<f64>> = (0..40).map(|i| Some(f64::from(i) / 40.0)).collect();
    let right: Vec<Option<f64>> = (0..40).map(|i| Some(1000.0 - f64::from(i * i))).collect();
    out.push((
        "dual_numeric",
        dual_axis_line_chart(
            "Numeric x",
            "Tokens (thousands)",
            XValues::Numbers(&xs),
            YSeries {
                name: "Score",
                y_label: "Score (%)",
                values: &left,
                percent: true,
            },
            YSeries {
                name: "Latency",
                y_label: "Latency (ms)",
                values: &right,
                percent: false,
            },
            &ChartOptions::default(),
        ),
    ));
    let mut rng = Lcg(42);
    let mut scores: Vec<f64> = (0..300)
        .map(|_| {
            let a = rng.next();
            1.0 - a * a
        })
        .collect();
    scores.push(f64::NAN);
    scores.push(f64::INFINITY);
    out.push((
        "histogram_scores",
        histogram("Score distribution", "Score", &scores, 10, &pct()),
    ));
    let radar_axes = vec![
        (s("Correctness"), 0.82),
        (s("Completeness"), 0.74),
        (s("Reasoning"), 0.66),
        (s("Citations & sources"), 0.91),
        (s("Formatting"), 0.97),
        (s("Calculation accuracy on multi-step problems"), f64::NAN),
    ];
    out.push((
        "radar_components",
        radar_chart("Component scores", &radar_axes, &ChartOptions::default()),
    ));
    let many: Vec<(String, Vec<(f64, f64)>)> = (0..14)
        .map(|i| {
            let name = format!("checkpoint-{i:02} (fine-tuned on the long-context mix)");
            let pts = (0..30)
                .map(|x| (f64::from(x), 0.4 + f64::from((x * (i + 3)) % 17) / 40.0))
                .collect();
            (name, pts)
        })
        .collect();
    out.push((
        "line_many_series",
        line_chart("Accuracy by epoch", "Epoch", "Accuracy (%)", &many, &pct()),
    ));
    let small = ChartOptions {
        percent: true,
        style: ChartStyle {
            width: 320,
            height: 180,
            theme: Theme::Light,
        },
    };
    out.push((
        "bar_small",
        bar_chart(
            "Pass rate (small chart with a long title that must be cut)",
            "Pass rate (%)",
            &[
                (s("baseline"), Some(0.42)),
                (s("ours"), Some(0.57)),
                (s("ours + tools"), Some(0.61)),
            ],
            &small,
        ),
    ));
    out.push((
        "no_data",
        bar_chart("Accuracy by model", "Accuracy (%)", &[], &pct()),
    ));
    // A series of runs (categorical x), with a gap, and a line chart where one series is a
    // single point (drawn as a marker, its legend swatch too).
    let stages = vec![s("stage_a"), s("stage_b"), s("stage_c"), s("stage_d")];
    out.push((
        "category_series",
        category_line_chart(
            "Headline metrics across the series",
            "Run",
            "Score (%)",
            &stages,
            &[
                (s("v1"), vec![Some(0.0), Some(0.02), None, Some(0.05)]),
                (
                    s("v1-extract"),
                    vec![Some(0.13), Some(0.11), Some(0.17), Some(0.2)],
                ),
            ],
            &pct(),
        ),
    ));
    out.push((
        "line_single_point",
        line_chart(
            "Training loss by step",
            "Step",
            "Loss",
            &[
                (
                    s("long run"),
                    (0..50)
                        .map(|i| (f64::from(i * 10), 2.0 - f64::from(i) / 40.0))
                        .collect(),
                ),
                (s("m44 (1 point)"), vec![(414.0, 0.8573377161210286)]),
            ],
            &ChartOptions::default(),
        ),
    ));
    out
}

macro_rules! snapshots {
    ($($name:literal),* $(,)?) => {
        /// (name, checked-in snapshot text), compiled in so wasm tests can compare too.
        const SNAPSHOTS: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../snapshots/charts/", $name, ".svg")))),*
        ];
    };
}

snapshots!(
    "bar_accuracy",
    "bar_long_labels",
    "bar_numbers_negative",
    "grouped_difficulty",
    "grouped_dark",
    "line_loss",
    "dual_turns",
    "dual_numeric",
    "histogram_scores",
    "radar_components",
    "line_many_series",
    "bar_small",
    "no_data",
    "category_series",
    "line_single_point",
);

/// Natively, each snapshot file is compared (or, under `UPDATE_EXPECT`, rewritten) by the shared
/// harness; `EVALBOARD_CHARTS_DIR` also gets every chart.
#[cfg(not(target_arch = "wasm32"))]
fn expect_or_export(charts: &[(&str, Chart)]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/charts");
    for (name, chart) in charts {
        evalboard_test_support::expect_file(&dir.join(format!("{name}.svg")), &chart.svg);
    }
    if let Some(out) = std::env::var_os("EVALBOARD_CHARTS_DIR") {
        let out = std::path::PathBuf::from(out);
        std::fs::create_dir_all(&out).expect("create charts dir");
        for (name, chart) in charts {
            std::fs::write(out.join(format!("{name}.svg")), &chart.svg).expect("write chart");
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn expect_or_export(_: &[(&str, Chart)]) {}

#[test]
fn snapshots_match_byte_for_byte() {
    let charts = samples();
    expect_or_export(&charts);
    assert_eq!(charts.len(), SNAPSHOTS.len(), "every sample has a snapshot");
    for ((name, chart), (snap_name, snap)) in charts.iter().zip(SNAPSHOTS) {
        assert_eq!(name, snap_name);
        // Natively the files were compared above (and may just have been rewritten); wasm has
        // no files, so it compares with the text compiled in.
        assert!(
            !cfg!(target_arch = "wasm32") || chart.svg == *snap,
            "{name}: SVG differs from tests/snapshots/charts/{name}.svg (UPDATE_EXPECT=1 to accept)"
        );
    }
}

#[test]
fn same_input_gives_identical_svg() {
    let a = samples();
    let b = samples();
    assert_eq!(a, b);
}

/// Checks that `svg` is well-formed enough for a browser: balanced tags, quoted attributes,
/// no raw `&` outside entities, one root `<svg>`.
fn check_well_formed(name: &str, svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        check_text(name, &rest[..open]);
        let close = rest[open..].find('>').map(|c| open + c);
        let Some(close) = close else {
            panic!("{name}: unterminated tag");
        };
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "{name}: '<' inside tag {tag:?}");
        if let Some(end) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(end), "{name}: mismatched </{end}>");
        } else {
            let tag_name = tag.split_whitespace().next().unwrap_or("");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "{name}: unbalanced quotes in {tag:?}"
            );
            check_text(name, tag);
            if stack.is_empty() {
                roots += 1;
                assert_eq!(tag_name, "svg", "{name}: root is {tag_name}");
            }
            if !tag.ends_with('/') {
                stack.push(tag_name);
            }
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "{name}: unclosed {stack:?}");
    assert_eq!(roots, 1, "{name}: one root element");
    assert_eq!(rest.trim(), "", "{name}: text after the root");
}

/// Every `&` starts an entity we write.
fn check_text(name: &str, text: &str) {
    for (i, _) in text.match_indices('&') {
        let ent = &text[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                .iter()
                .any(|e| ent.starts_with(e)),
            "{name}: raw & in {text:?}"
        );
    }
}

#[test]
fn every_sample_is_well_formed_and_accessible() {
    for (name, chart) in samples() {
        check_well_formed(name, &chart.svg);
        assert!(chart
            .svg
            .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(chart.svg.contains("role=\"img\""), "{name}");
        assert!(chart
            .svg
            .contains("font-family=\"system-ui, 'DejaVu Sans', sans-serif\""));
        assert!(chart.svg.contains("<title>"), "{name}: title");
        assert!(chart.svg.contains("<desc>"), "{name}: desc");
        assert!(
            chart.alt.ends_with('.'),
            "{name}: alt is a sentence: {}",
            chart.alt
        );
        assert!(!chart.alt.is_empty());
        let header = chart.table.first().map_or(0, Vec::len);
        assert!(header >= 2, "{name}: table header");
        assert!(
            chart.table.iter().all(|r| r.len() == header),
            "{name}: ragged table"
        );
        assert!(
            !chart.svg.contains("NaN") && !chart.svg.contains("inf"),
            "{name}: NaN/inf leaked"
        );
    }
}

#[test]
fn labels_from_user_data_are_text_never_markup() {
    let chart = bar_chart(
        "<script>alert('t')</script>",
        "y & z",
        &[
            (s("<img src=x onerror=alert(1)>"), Some(1.0)),
            (s("a & b"), Some(2.0)),
        ],
        &ChartOptions::default(),
    );
    check_well_formed("xss", &chart.svg);
    assert!(!chart.svg.contains("<img"));
    assert!(!chart.svg.contains("<script"));
    assert!(chart.svg.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(chart.svg.contains("a &amp; b"));
    assert!(chart
        .svg
        .contains("&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;"));
    assert!(chart.svg.contains("y &amp; z"));
    // The table holds plain text; whoever renders it as HTML escapes it.
    assert_eq!(chart.table[1][0], "<img src=x onerror=alert(1)>");
    assert_eq!(chart.table[0][1], "y & z");
}

#[test]
fn long_labels_are_truncated_with_the_full_text_as_tooltip() {
    let full = "a remarkably long model name that cannot possibly fit under one bar-v2-final";
    let chart = bar_chart(
        "t",
        "Accuracy (%)",
        &[(s(full), Some(0.5)), (s("short"), Some(0.25))],
        &pct(),
    );
    assert!(chart.svg.contains('…'));
    assert!(chart.svg.contains(&format!("<title>{full}</title>")));
    assert!(
        chart.svg.contains(">short</text>"),
        "short labels stay whole"
    );
}

fn check_no_data(name: &str, chart: &Chart) {
    check_well_formed(name, &chart.svg);
    assert!(
        chart.svg.contains(">No data</text>"),
        "{name}: {}",
        chart.svg
    );
    assert!(chart.alt.contains("no data"), "{name}: {}", chart.alt);
    assert!(!chart.table.is_empty(), "{name}: table keeps its header");
}

#[test]
fn empty_or_all_missing_input_says_no_data() {
    let o = ChartOptions::default();
    let none: &[Option<f64>] = &[];
    check_no_data("bar empty", &bar_chart("t", "y", &[], &o));
    check_no_data(
        "bar all n/a",
        &bar_chart("t", "y", &[(s("a"), None), (s("b"), Some(f64::NAN))], &o),
    );
    check_no_data("grouped empty", &grouped_bar_chart("t", "y", &[], &[], &o));
    check_no_data(
        "grouped no series",
        &grouped_bar_chart("t", "y", &[s("g")], &[], &o),
    );
    check_no_data(
        "grouped short series",
        &grouped_bar_chart("t", "y", &[s("g")], &[(s("s"), vec![])], &o),
    );
    check_no_data("line empty", &line_chart("t", "x", "y", &[], &o));
    check_no_data(
        "line NaN",
        &line_chart(
            "t",
            "x",
            "y",
            &[(s("s"), vec![(f64::NAN, 1.0), (1.0, f64::INFINITY)])],
            &o,
        ),
    );
    let y = YSeries {
        name: "a",
        y_label: "b",
        values: none,
        percent: false,
    };
    check_no_data(
        "dual empty",
        &dual_axis_line_chart("t", "x", XValues::Numbers(&[]), y, y, &o),
    );
    check_no_data("histogram empty", &histogram("t", "x", &[], 10, &o));
    check_no_data(
        "histogram NaN",
        &histogram("t", "x", &[f64::NAN, f64::NEG_INFINITY], 10, &o),
    );
    check_no_data("radar empty", &radar_chart("t", &[], &o));
    check_no_data("radar NaN", &radar_chart("t", &[(s("a"), f64::NAN)], &o));
}

#[test]
fn nan_and_inf_are_skipped_not_drawn() {
    let o = pct();
    let chart = bar_chart(
        "t",
        "y",
        &[
            (s("a"), Some(f64::NAN)),
            (s("b"), Some(0.5)),
            (s("c"), Some(f64::INFINITY)),
        ],
        &o,
    );
    assert_eq!(chart.table[1], vec![s("a"), s("n/a")]);
    assert_eq!(chart.table[2], vec![s("b"), s("50.0%")]);
    assert_eq!(chart.table[3], vec![s("c"), s("n/a")]);
    assert!(chart.alt.contains("2 n/a"), "{}", chart.alt);
    assert!(chart.svg.contains(">n/a</text>"));
    let h = histogram("t", "x", &[0.1, f64::NAN, 0.9], 2, &o);
    assert!(h.alt.contains("2 values"), "{}", h.alt);
    assert!(h.alt.contains("1 non-finite value skipped"), "{}", h.alt);
    assert_eq!(h.table[1], vec![s("0%–50%"), s("1")]);
    let l = line_chart(
        "t",
        "x",
        "y",
        &[(s("s"), vec![(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0)])],
        &o,
    );
    assert_eq!(l.table.len(), 3, "header + two finite points");
}

#[test]
fn odd_sizes_and_counts_never_panic() {
    let tiny = ChartOptions {
        style: ChartStyle {
            width: 0,
            height: 0,
            theme: Theme::Light,
        },
        percent: false,
    };
    let many: Vec<(String, Option<f64>)> = (0..500)
        .map(|i| (format!("m{i}"), Some(f64::from(i))))
        .collect();
    for o in [tiny, ChartOptions::default()] {
        check_well_formed("many bars", &bar_chart("t", "y", &many, &o).svg);
        check_well_formed(
            "one bar",
            &bar_chart("t", "y", &[(s("x"), Some(0.0))], &o).svg,
        );
        check_well_formed("hist 0 bins", &histogram("t", "x", &[5.0, 5.0], 0, &o).svg);
        check_well_formed(
            "hist 10k bins",
            &histogram("t", "x", &[-1e300, 1e300], 10_000, &o).svg,
        );
        let names: Vec<(String, Vec<(f64, f64)>)> = (0..30)
            .map(|i| (format!("series number {i}"), vec![(0.0, f64::from(i))]))
            .collect();
        check_well_formed("30 series", &line_chart("t", "x", "y", &names, &o).svg);
        check_well_formed(
            "radar 2",
            &radar_chart("t", &[(s("a"), 0.5), (s("b"), 2.0)], &o).svg,
        );
        let huge = vec![(s("a"), vec![(0.0, 1e308), (1.0, -1e308)])];
        check_well_formed("huge values", &line_chart("t", "x", "y", &huge, &o).svg);
    }
}

#[test]
fn percent_axes_and_themes() {
    let (_, chart) = samples().into_iter().next().expect("a sample");
    assert!(chart.svg.contains(">100%</text>"));
    assert!(
        chart.svg.contains(">85.3%</text>"),
        "value label on the bar"
    );
    assert!(chart.svg.contains("class=\"ebc ebc-light\""));
    assert!(chart.svg.contains("class=\"ebc-fill-s0\" fill=\"#0072B2\""));
    let dark = samples()
        .into_iter()
        .find(|(n, _)| *n == "grouped_dark")
        .expect("dark");
    assert!(dark.1.svg.contains("class=\"ebc ebc-dark\""));
    assert!(dark
        .1
        .svg
        .contains("class=\"ebc-fill-bg\" fill=\"#16181D\""));
    assert!(theme_css(Theme::Light).contains(".ebc-fill-s0{fill:#0072B2}"));
}

#[test]
fn radar_with_few_axes_falls_back_to_bars() {
    let chart = radar_chart(
        "t",
        &[(s("a"), 0.5), (s("b"), f64::NAN)],
        &ChartOptions::default(),
    );
    assert!(chart.alt.starts_with("Bar chart"), "{}", chart.alt);
    assert_eq!(chart.table[0], vec![s("Component"), s("Score")]);
    assert_eq!(chart.table[2], vec![s("b"), s("n/a")]);
}

#[test]
fn legends_wrap_and_keep_full_names() {
    let (_, chart) = samples()
        .into_iter()
        .find(|(n, _)| *n == "line_many_series")
        .expect("sample");
    assert!(chart
        .svg
        .contains("<title>checkpoint-00 (fine-tuned on the long-context mix)</title>"));
    assert!(
        chart.svg.contains(">+8 more</text>"),
        "overflowing legend entries are counted"
    );
    // The table still has every series.
    assert_eq!(chart.table.len(), 1 + 14 * 30);
}

#[test]
fn radar_labels_carry_values_and_tooltips() {
    let (_, chart) = samples()
        .into_iter()
        .find(|(n, _)| *n == "radar_components")
        .expect("sample");
    assert!(chart.svg.contains(">Correctness 82.0%</text>"));
    assert!(chart
        .svg
        .contains("<title>Calculation accuracy on multi-step problems n/a</title>"));
    assert!(
        chart.alt.contains("highest Formatting (97.0%)"),
        "{}",
        chart.alt
    );
    assert_eq!(chart.table[4], vec![s("Citations & sources"), s("91.0%")]);
}
