//! `--marks FILE.jsonl` of `score` and `report`: a human-review sidecar
//! (`evalboard_engine::marks`, docs/marks.md) read, each run's content id computed from its
//! files' bytes, and the marks of that id applied beside the run's own numbers (never in place
//! of them). Marks of other bytes are not applied, and said so.

use evalboard_cli::errln;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};
use evalboard_engine::marks::{self, MarkSet, Review};
use evalboard_engine::run::{RunRef, ScoredRun, ALL_FAMILIES};
use evalboard_engine::stats::Rate;
use evalboard_engine::RunInput;

/// Each file's (size, SHA-256) by its path in the run.
pub(crate) type Digests = HashMap<String, (u64, [u8; 32])>;

/// A sidecar as read: its name (for messages) and its marks.
pub(crate) struct Sidecar {
    pub file: String,
    pub set: MarkSet,
}

/// Reads the sidecar at `path`, printing what could not be read (file and line) to stderr.
pub(crate) fn read(path: &Path) -> Result<Sidecar> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("cannot read marks {file}"))?;
    let (set, diags) = MarkSet::from_jsonl(&file, &bytes);
    for d in &diags {
        errln!("{d}");
    }
    Ok(Sidecar { file, set })
}

/// The digests of a run read whole.
pub(crate) fn digests_of_input(input: &RunInput) -> Digests {
    input
        .files
        .iter()
        .map(|f| {
            let sha = evalboard_engine::run_table::sha256(&f.bytes);
            (f.path.clone(), (f.bytes.len() as u64, sha))
        })
        .collect()
}

/// The digests of the files at `paths` of the run at `run` (a folder, or a one-file run whose
/// one path is its name), read from disk a block at a time.
pub(crate) fn digests_on_disk<'p>(
    run: &Path,
    paths: impl Iterator<Item = &'p str>,
) -> Result<Digests> {
    let mut out = Digests::new();
    let mut buf = vec![0u8; 1 << 20];
    for rel in paths {
        let path = if run.is_file() {
            run.to_path_buf()
        } else {
            run.join(rel)
        };
        let mut f = std::fs::File::open(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut h = evalboard_report::html::ProvenanceHasher::new("", rel);
        loop {
            let n = f
                .read(&mut buf)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if n == 0 {
                break;
            }
            h.update(buf.get(..n).unwrap_or_default());
        }
        let p = h.finish();
        let sha = marks::sha256_from_hex(&p.sha256).unwrap_or_default();
        out.insert(rel.to_string(), (p.bytes, sha));
    }
    Ok(out)
}

/// A scored run's content id ([`marks::run_content_id`] of its files' digests).
pub(crate) fn content_id(run: &ScoredRun, digests: &Digests) -> Option<String> {
    marks::run_content_id(run.files(), |p| digests.get(p).copied())
}

/// The review of `run` under the sidecar's marks; `None` when none are of its content id (or it
/// has none), or when the run cannot be judged alone (said).
pub(crate) fn review(run: RunRef, content_id: Option<&str>, sidecar: &Sidecar) -> Option<Review> {
    match marks::review_in::<ALL_FAMILIES>(&run, content_id?, &sidecar.set) {
        Ok(r) => r,
        Err(e) => {
            errln!("{}: {}: marks not applied: {e}", sidecar.file, run.name());
            None
        }
    }
}

/// Says which marks applied to none of the runs given (another content id: other bytes), and
/// gives their count: (runs, items).
pub(crate) fn say_not_applied(sidecar: &Sidecar, ids: &[&str]) -> (usize, usize) {
    let other = sidecar.set.not_in(ids);
    let items: usize = other.iter().map(|r| r.items.len()).sum();
    if other.is_empty() {
        return (0, 0);
    }
    let names: Vec<String> = other
        .iter()
        .take(3)
        .map(|r| match &r.run_name {
            Some(n) => format!("{n} ({}…)", marks::short_id(&r.content_id)),
            None => format!("{}…", marks::short_id(&r.content_id)),
        })
        .collect();
    errln!(
        "note: {}: {items} mark(s) of {} run(s) not applied: their content id is none of the runs \
         given (other bytes): {}{}",
        sidecar.file,
        other.len(),
        names.join(", "),
        if other.len() > 3 { ", …" } else { "" }
    );
    (other.len(), items)
}

/// `r` as `66.7% (2/3)`.
fn rate(r: &Rate) -> String {
    match r.value() {
        Some(v) => format!("{:.1}% ({}/{})", v * 100.0, r.correct, r.n),
        None => format!("– (0/{})", r.n),
    }
}

/// The review as rows of `score`'s summary table.
pub(crate) fn rows(
    review: Option<&Review>,
    content_id: Option<&str>,
    file: &str,
) -> Vec<(String, String)> {
    let mut out = vec![(
        "content id".to_string(),
        content_id.unwrap_or("unknown").to_string(),
    )];
    let Some(r) = review else {
        out.push((
            "human marks".into(),
            format!("none in {file} for this run's content id (no mark applied)"),
        ));
        return out;
    };
    let a = &r.applied;
    let mut marks = format!("{} applied from {file}", a.applied);
    if !a.unknown_keys.is_empty() {
        marks += &format!("; {} on items this run does not have", a.unknown_keys.len());
    }
    marks += &format!("; {} verdict(s) changed", a.changed);
    out.push(("human marks".into(), marks));
    out.push((
        "headline".into(),
        format!("{} judged by {}", rate(&a.original), a.judge),
    ));
    out.push(("with human overrides".into(), rate(&a.with_overrides)));
    if let Some(m) = a.mean_with_scores {
        out.push(("mean with score overrides".into(), format!("{m:.4}")));
    }
    for g in &r.agreement {
        let kappa = match (g.kappa, &g.kappa_undefined) {
            (Some(k), _) => format!("{k:.3}"),
            (None, Some(why)) => format!("undefined ({why})"),
            (None, None) => "undefined".into(),
        };
        let c = &g.confusion;
        out.push((
            format!("κ {} vs human", g.judge),
            format!(
                "{kappa}, n {}; scorer✓ human✓ {}, scorer✓ human✗ {}, scorer✗ human✓ {}, \
                 scorer✗ human✗ {}; {} differ",
                g.n,
                c.both_correct,
                c.scorer_only,
                c.human_only,
                c.both_wrong,
                g.disagree.len()
            ),
        ));
    }
    out
}

/// `score --json`'s `human` object of a run.
pub(crate) fn json(
    review: Option<&Review>,
    content_id: Option<&str>,
    file: &str,
    (other_runs, other_items): (usize, usize),
) -> serde_json::Value {
    serde_json::json!({
        "marks_file": file,
        "content_id": content_id,
        "review": review.map(Review::to_json),
        "not_applied": {"runs": other_runs, "marks": other_items},
    })
}
