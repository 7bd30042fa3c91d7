//! A comparison's paired item side by side ([`crate::protocol::ScreenQuery::Pair`]): the diff of
//! the two outputs (the engine's word diff, `compare::words`), then each run's item — its
//! inputs, outputs, scores and conversation — in two columns (stacked on a narrow screen). Laid
//! out by the worker as screen blocks; the page renders them as any item. Pure (tested
//! natively).

use evalboard_engine::compare::words::word_diff;
use evalboard_engine::numeric_qa::score::ScoredQaRun;
use evalboard_engine::numeric_qa::views;
use evalboard_engine::run_table::{ItemKey, ItemRow};

use crate::format;
use crate::protocol::{Block, ScreenItem, ScreenView};
use crate::screen::{self, clip};

/// One run's side of a pair: its name, the item's row ([`evalboard_engine::run::RunRef::item_in`])
/// and its own item blocks (the run's item screen, or a numeric QA turn's
/// [`qa_blocks`]); `None` when the run has no such item.
pub struct PairSide {
    pub name: String,
    pub row: Option<ItemRow>,
    pub blocks: Option<Vec<Block>>,
}

fn text_of<'a>(row: &'a ItemRow, name: &str) -> Option<&'a str> {
    row.texts
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, t)| t.as_str())
}

fn verdict(side: &PairSide) -> String {
    match &side.row {
        None => "not in this run".into(),
        Some(r) => match r.verdict {
            Some(true) => "correct".into(),
            Some(false) => "wrong".into(),
            None => "not scored".into(),
        },
    }
}

/// The screen of `key` paired in `base` and `cand`: its `item` holds the blocks.
pub fn view(key: &ItemKey, base: PairSide, cand: PairSide) -> ScreenView {
    let mut v = screen::empty(&cand.name);
    let answer = |s: &PairSide| {
        s.row
            .as_ref()
            .and_then(|r| text_of(r, "answer"))
            .map(clip)
            .unwrap_or_default()
    };
    let (a, b) = (answer(&base), answer(&cand));
    let mut blocks = vec![Block::Facts(vec![
        (format!("Baseline · {}", base.name), verdict(&base)),
        (format!("Candidate · {}", cand.name), verdict(&cand)),
    ])];
    // The question and expected value, once, when both runs give the same.
    for name in ["question", "expected"] {
        let of = |s: &PairSide| s.row.as_ref().and_then(|r| text_of(r, name)).map(clip);
        if let (Some(x), Some(y)) = (of(&base), of(&cand)) {
            if x == y {
                let title = if name == "question" {
                    "Input"
                } else {
                    "Expected"
                };
                blocks.push(Block::Heading(title.into()));
                blocks.push(screen::text(name, x, name == "expected"));
            }
        }
    }
    blocks.push(Block::Heading("Output: baseline → candidate".into()));
    blocks.push(Block::Diff(word_diff(&a, &b)));
    // Each run's item in a box tinted by its verdict.
    let column = |role: &str, s: PairSide| {
        let ok = s.row.as_ref().and_then(|r| r.verdict) == Some(true);
        let inner = s
            .blocks
            .unwrap_or_else(|| vec![screen::note("missing", "note", "Not in this run.")]);
        let mut b = screen::group(role, "box", Some(format!("{role} · {}", s.name)), inner);
        if let Block::Group { ok: tint, .. } = &mut b {
            *tint = ok;
        }
        b
    };
    blocks.push(screen::group(
        "sides",
        "pair",
        None,
        vec![column("Baseline", base), column("Candidate", cand)],
    ));
    v.item = Some(ScreenItem {
        key: key.clone(),
        title: format!("{} side by side", format::item_key(key)),
        blocks,
    });
    v
}

/// A numeric QA turn as blocks: its question, expected value, answer and verdicts, then the
/// conversation up to it (each turn's question, answer and verdict); `None` when the run has no
/// such turn.
pub fn qa_blocks(s: &ScoredQaRun, key: &ItemKey) -> Option<Vec<Block>> {
    let conv = views::conversation_of(s, key)?;
    let (_, index) = key.as_text_index()?;
    let turn = conv
        .turns
        .iter()
        .find(|t| u64::from(t.row.turn_idx) == index)?;
    let r = &turn.row;
    let mut facts = vec![
        (
            "Verdict".to_string(),
            if r.correct { "correct" } else { "wrong" }.to_string(),
        ),
        (
            "Exact match".to_string(),
            format::flag(Some(r.exact_match)).to_string(),
        ),
        (
            "Soft match".to_string(),
            format::flag(Some(r.soft_match)).to_string(),
        ),
    ];
    if let Some(why) = &r.reason {
        facts.push(("Why".into(), why.clone()));
    }
    if let Some(m) = &conv.model {
        facts.push(("Model".into(), m.clone()));
    }
    if let Some(t) = r.tokens {
        facts.push(("Tokens".into(), format::int(t)));
    }
    if let Some(e) = &turn.error_message {
        facts.push(("Error".into(), clip(e)));
    }
    let mut out = vec![
        Block::Heading("Input".into()),
        screen::text("question", clip(&r.question), false),
        Block::Heading("Expected".into()),
        screen::text("expected", clip(&r.expected), true),
        Block::Heading("Output".into()),
        screen::text("answer", clip(&r.predicted), true),
        Block::Facts(facts),
    ];
    let mut rows = vec![vec![
        "Turn".to_string(),
        "Question".into(),
        "Answer".into(),
        "Verdict".into(),
    ]];
    rows.extend(conv.turns.iter().map(|t| {
        vec![
            t.row.turn_idx.to_string(),
            format::clip(&t.row.question, 200),
            format::clip(&t.row.predicted, 200),
            if t.row.correct { "correct" } else { "wrong" }.to_string(),
        ]
    }));
    out.push(screen::group(
        "conversation",
        "more",
        Some(format!(
            "Conversation {} ({})",
            conv.id,
            format::plural(conv.turns.len() as u64, "turn", "turns")
        )),
        vec![screen::table("conversation", "", rows)],
    ));
    Some(out)
}
