//! Charts for the overview: drawn by the report crate (same SVG as the offline report).

use evalboard_engine::aggregate::doc::Statistics;

use crate::protocol::ChartDto;

pub fn qa_charts(_stats: &Statistics, _dark: bool) -> Vec<ChartDto> {
    Vec::new()
}
