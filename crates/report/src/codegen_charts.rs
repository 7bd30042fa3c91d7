//! The code-generation chart set: component scores, score distributions, the recovery
//! funnel by error class, and breakdowns by model and by session. One function, so the
//! dashboard's worker and any report draw the same SVG for the same run.

use evalboard_engine::codegen::views::{
    component_means, component_scores, FunnelRow, Group, Message, COMPONENTS,
};
use evalboard_engine::codegen::MetricsSummaryFile;

use crate::charts::{
    bar_chart, grouped_bar_chart, histogram, named, radar_chart, ChartOptions, ChartStyle,
    NamedChart, Theme,
};

/// Bins of the score histograms (scores are 0..1: tenths).
pub const SCORE_BINS: usize = 10;

fn opts(theme: Theme, width: u32, height: u32) -> ChartOptions {
    ChartOptions {
        style: ChartStyle {
            width,
            height,
            theme,
        },
        percent: false,
    }
}

fn group_bars(groups: &[Group]) -> Vec<(String, Option<f64>)> {
    groups
        .iter()
        .map(|g| {
            (
                format!("{} ({})", g.name, g.summary.total_entries),
                g.summary.summary.average_overall_score,
            )
        })
        .collect()
}

/// What the charts are drawn from.
pub struct CodegenChartInput<'a> {
    pub summary: &'a MetricsSummaryFile,
    pub messages: &'a [Message],
    pub funnel: &'a [FunnelRow],
    pub by_model: &'a [Group],
    pub by_session: &'a [Group],
}

/// Every chart of the code-generation views, in display order. Keys: `components`,
/// `overall_distribution`, `distribution_<component>` (six), `recovery_funnel`, `by_model`,
/// `by_session`.
pub fn codegen_charts(input: &CodegenChartInput, theme: Theme) -> Vec<NamedChart> {
    let mut out = Vec::new();
    let means = component_means(input.summary);
    let axes: Vec<(String, f64)> = COMPONENTS
        .iter()
        .zip(means)
        .map(|((_, label), m)| (label.to_string(), m.unwrap_or(f64::NAN)))
        .collect();
    out.push(named(
        "components",
        "Component scores (mean)",
        radar_chart("Component scores (mean)", &axes, &opts(theme, 640, 360)),
    ));
    let overall: Vec<f64> = input
        .messages
        .iter()
        .filter_map(|m| m.scores.overall_score)
        .collect();
    out.push(named(
        "overall_distribution",
        "Overall score distribution",
        histogram(
            "Overall score distribution",
            "Overall score",
            &overall,
            SCORE_BINS,
            &opts(theme, 640, 320),
        ),
    ));
    for (i, (key, label)) in COMPONENTS.iter().enumerate() {
        let values: Vec<f64> = input
            .messages
            .iter()
            .filter_map(|m| component_scores(&m.scores).get(i).copied().flatten())
            .collect();
        let title = format!("{label} score distribution");
        out.push(named(
            &format!("distribution_{key}"),
            &title,
            histogram(&title, label, &values, SCORE_BINS, &opts(theme, 320, 220)),
        ));
    }
    let classes: Vec<String> = input.funnel.iter().map(|r| r.class.clone()).collect();
    let series = |name: &str, f: fn(&FunnelRow) -> u64| {
        (
            name.to_string(),
            input
                .funnel
                .iter()
                .map(|r| Some(f(r) as f64))
                .collect::<Vec<_>>(),
        )
    };
    out.push(named(
        "recovery_funnel",
        "Error recovery by error class",
        grouped_bar_chart(
            "Error recovery by error class",
            "Messages",
            &classes,
            &[
                series("First execution failed", |r| r.errors),
                series("Recovery attempted", |r| r.attempted),
                series("Recovered", |r| r.recovered),
            ],
            &opts(theme, 640, 320),
        ),
    ));
    for (key, what, groups) in [
        ("by_model", "model", input.by_model),
        ("by_session", "session", input.by_session),
    ] {
        let title = format!("Mean overall score by {what}");
        out.push(named(
            key,
            &title,
            bar_chart(
                &title,
                "Mean overall score",
                &group_bars(groups),
                &opts(theme, 640, 320),
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalboard_engine::codegen::views::{by_model, by_session, funnel, messages, run_summary};
    use evalboard_engine::codegen::{read_codegen_run, CodegenConfig};
    use evalboard_engine::InputFile;

    #[test]
    fn every_chart_has_its_table_and_both_themes_draw() {
        let lines = [
            r#"{"session_id":"s1","model":"<b>m</b>","question":"sum a","code":"result = df['a'].sum()","execution_result":{"type":"number","data":3}}"#,
            r#"{"session_id":"s2","model":"m2","question":"sum b","code":"result = df['b'].sum()","execution_result":{"type":"error","data":"KeyError: 'b'"},"recovery_attempts":[{"attempt_number":1,"code":"x","error":null,"success":true}]}"#,
        ];
        let run = read_codegen_run("r", &[InputFile::new("t.jsonl", lines.join("\n"))]);
        let cfg = CodegenConfig::default();
        let scored = run.score(&cfg);
        let msgs = messages(&run, &scored, &cfg);
        let summary = run_summary("r", &msgs, cfg.profile);
        let (f, bm, bs) = (
            funnel(&msgs),
            by_model(&msgs, cfg.profile),
            by_session(&msgs, cfg.profile),
        );
        let input = CodegenChartInput {
            summary: &summary,
            messages: &msgs,
            funnel: &f,
            by_model: &bm,
            by_session: &bs,
        };
        for theme in [Theme::Light, Theme::Dark] {
            let charts = codegen_charts(&input, theme);
            let keys: Vec<&str> = charts.iter().map(|c| c.key.as_str()).collect();
            assert_eq!(keys.len(), 11, "{keys:?}");
            assert_eq!(keys[0], "components");
            assert!(keys.contains(&"distribution_recovery"));
            for c in &charts {
                assert!(c.svg.starts_with("<svg"), "{}", c.key);
                assert!(c.table.len() >= 2, "{}: {:?}", c.key, c.table);
                assert!(!c.svg.contains("<b>m</b>"), "labels are escaped");
            }
            let funnel = charts.iter().find(|c| c.key == "recovery_funnel");
            let table = funnel.map(|c| c.table.clone()).unwrap_or_default();
            assert!(table
                .iter()
                .any(|r| r.first().map(String::as_str) == Some("column_error")));
        }
    }
}
