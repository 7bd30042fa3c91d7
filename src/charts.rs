//! Charts for the dashboard: drawn by the report crate (the same SVG as the offline report).

use evalboard_engine::numeric_qa::aggregate::doc::{BucketSizes, Statistics};
use evalboard_report::charts::Theme;

use crate::protocol::ChartDto;

pub fn qa_charts(stats: &Statistics, sizes: &BucketSizes, dark: bool) -> Vec<ChartDto> {
    let theme = if dark { Theme::Dark } else { Theme::Light };
    evalboard_report::qa_charts::qa_charts(stats, sizes, theme)
        .into_iter()
        .map(ChartDto::from)
        .collect()
}
