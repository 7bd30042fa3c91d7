//! Statistics from rows of counts (`evalboard stats --from-counts`): what a SQL reduce over a
//! lake gives back — a comparison's 2×2 table, an aggregate's sums — turned into the numbers
//! evalboard prints, by the same functions: [`PairedStats::from_counts`] (what `diff` computes
//! its McNemar p and bootstrap CI from), Wilson's interval on a rate ([`ci95_of`]), the
//! moments and the item-clustered standard error of [`crate::stats`].

use serde_json::{json, Map, Value};

use super::Cell;
use crate::compare::many::{ci95_of, CiMethod};
use crate::compare::{CompareOptions, PairedStats};
use crate::run_table::MetricValue;
use crate::stats::{ClusterSums, Moments, PairCounts, Rate, BOOTSTRAP_METHOD};

/// One row as read: `(column, cell)` in file order.
pub type CountRow = Vec<(String, Cell)>;

fn get<'r>(row: &'r CountRow, name: &str) -> Option<&'r Cell> {
    row.iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

/// A count: a non-negative integer (an integral float too: some engines sum into doubles).
fn count(row: &CountRow, name: &str) -> Result<Option<u64>, String> {
    match get(row, name) {
        None | Some(Cell::Null) => Ok(None),
        Some(Cell::Int(i)) if *i >= 0 => Ok(Some(*i as u64)),
        Some(Cell::Float(x)) if *x >= 0.0 && x.fract() == 0.0 && *x < 9.0e15 => Ok(Some(*x as u64)),
        Some(Cell::Str(s)) if s.trim().parse::<u64>().is_ok() => Ok(s.trim().parse().ok()),
        Some(other) => Err(format!("{name} is {other:?}, not a count")),
    }
}

fn number(row: &CountRow, name: &str) -> Result<Option<f64>, String> {
    match get(row, name) {
        None | Some(Cell::Null) => Ok(None),
        Some(Cell::Int(i)) => Ok(Some(*i as f64)),
        Some(Cell::Float(x)) => Ok(Some(*x)),
        Some(Cell::Str(s)) => s
            .trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| format!("{name} is {s:?}, not a number")),
        Some(other) => Err(format!("{name} is {other:?}, not a number")),
    }
}

/// The row's text columns (run ids, names, scorer, slice), kept in the output as they are.
fn labels(row: &CountRow) -> Map<String, Value> {
    row.iter()
        .filter_map(|(c, v)| match v {
            Cell::Str(s) if s.trim().parse::<f64>().is_err() => Some((c.clone(), json!(s))),
            _ => None,
        })
        .collect()
}

fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// The statistics of one row: a comparison (`n11`, `n10`, `n01`, `n00`) as `diff --json` gives
/// them — `n_items`, the accuracies, `accuracy_delta` (also as `delta`), `mcnemar_exact_p`,
/// `bootstrap_ci` — or an aggregate (`n_correct` of `n_scored` or `n`; `sum`, `sum_sq` and the
/// cluster sums when present): `accuracy` with its Wilson 95% CI and standard error, the mean
/// with its standard error (clustered by item when the cluster sums are given). An error says
/// which column is missing or not a count.
pub fn stats_of_row(row: &CountRow, opts: &CompareOptions) -> Result<Value, String> {
    let mut out = labels(row);
    let pair = ["n11", "n10", "n01", "n00"]
        .iter()
        .map(|c| count(row, c))
        .collect::<Result<Vec<_>, _>>()?;
    if pair.iter().any(Option::is_some) {
        let [Some(n11), Some(n10), Some(n01), Some(n00)] = pair[..] else {
            return Err("a comparison row needs all of n11, n10, n01 and n00".into());
        };
        let s = PairedStats::from_counts(PairCounts { n11, n10, n01, n00 }, opts);
        for (k, v) in [
            ("n11", json!(n11)),
            ("n10", json!(n10)),
            ("n01", json!(n01)),
            ("n00", json!(n00)),
            ("n_items", json!(s.n_paired)),
            ("baseline_accuracy", json!(s.baseline_accuracy)),
            ("candidate_accuracy", json!(s.candidate_accuracy)),
            ("accuracy_delta", json!(s.accuracy_delta)),
            ("delta", json!(s.accuracy_delta)),
            ("mcnemar_exact_p", finite(s.mcnemar_p)),
            (
                "bootstrap_ci",
                json!({
                    "low": s.bootstrap.low,
                    "high": s.bootstrap.high,
                    "resamples": s.bootstrap.resamples,
                    "seed": s.bootstrap.seed,
                    "method": BOOTSTRAP_METHOD,
                }),
            ),
        ] {
            out.insert(k.into(), v);
        }
        return Ok(Value::Object(out));
    }
    let n_correct = count(row, "n_correct")?;
    let n = match count(row, "n_scored")? {
        Some(n) => Some(n),
        None => count(row, "n")?,
    };
    let (Some(n), Some(correct)) = (n, n_correct) else {
        return Err(
            "neither a comparison row (n11, n10, n01, n00) nor an aggregate row (n_correct and n or n_scored)"
                .into(),
        );
    };
    if correct > n {
        return Err(format!("n_correct {correct} is more than n {n}"));
    }
    let rate = Rate::new(correct, n);
    let (ci, method) = ci95_of(&MetricValue::rate("accuracy", "Accuracy", rate));
    let p = rate.value();
    out.insert("n".into(), json!(n));
    out.insert("n_correct".into(), json!(correct));
    out.insert("accuracy".into(), json!(p));
    out.insert(
        "stderr".into(),
        json!(p.map(|p| (p * (1.0 - p) / n as f64).sqrt())),
    );
    out.insert(
        "ci95".into(),
        json!({"low": ci.map(|c| c.0), "high": ci.map(|c| c.1), "method": method.name()}),
    );
    if let (Some(sum), Some(sum_sq)) = (number(row, "sum")?, number(row, "sum_sq")?) {
        let mean = (n > 0).then(|| sum / n as f64);
        let m = Moments {
            n,
            mean: mean.unwrap_or(0.0),
            m2: mean.map_or(0.0, |m| (sum_sq - sum * m).max(0.0)),
        };
        let clusters = count(row, "clusters")?;
        let cs = match (
            clusters,
            number(row, "cluster_sum_sq")?,
            number(row, "cluster_cross")?,
            number(row, "cluster_size_sq")?,
        ) {
            (Some(clusters), Some(sq), Some(cross), Some(size_sq)) => Some(ClusterSums {
                clusters,
                n,
                sum,
                sum_sq_cluster: sq,
                sum_cross: cross,
                sum_sq_size: size_sq,
            }),
            _ => None,
        };
        let (se, method) = match cs {
            Some(c) => (c.stderr(), CiMethod::NormalItemClustered),
            None => (m.stderr(), CiMethod::Normal),
        };
        out.insert("mean".into(), json!(m.mean()));
        out.insert("mean_stderr".into(), json!(se.filter(|s| s.is_finite())));
        out.insert(
            "mean_ci95".into(),
            json!({
                "low": m.mean().zip(se).map(|(m, s)| m - crate::stats::Z95 * s),
                "high": m.mean().zip(se).map(|(m, s)| m + crate::stats::Z95 * s),
                "method": method.name(),
            }),
        );
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[(&str, Cell)]) -> CountRow {
        cells
            .iter()
            .map(|(c, v)| (c.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn a_comparison_row_gives_diffs_numbers() {
        let opts = CompareOptions::default();
        let r = row(&[
            ("scorer", Cell::Str("match".into())),
            ("n11", Cell::Int(40)),
            ("n10", Cell::Float(3.0)),
            ("n01", Cell::Str("9".into())),
            ("n00", Cell::Int(8)),
        ]);
        let v = stats_of_row(&r, &opts).unwrap();
        let s = PairedStats::from_counts(
            PairCounts {
                n11: 40,
                n10: 3,
                n01: 9,
                n00: 8,
            },
            &opts,
        );
        assert_eq!(v["scorer"], "match");
        assert_eq!(v["delta"], json!(s.accuracy_delta));
        assert_eq!(v["mcnemar_exact_p"], json!(s.mcnemar_p));
        assert_eq!(v["bootstrap_ci"]["low"], json!(s.bootstrap.low));
        assert!(stats_of_row(&row(&[("n11", Cell::Int(1))]), &opts).is_err());
        assert!(stats_of_row(&row(&[("n11", Cell::Int(-1))]), &opts).is_err());
    }

    #[test]
    fn an_aggregate_row_gives_the_rate_and_mean() {
        let r = row(&[
            ("n", Cell::Int(10)),
            ("n_correct", Cell::Int(7)),
            ("sum", Cell::Float(7.0)),
            ("sum_sq", Cell::Float(7.0)),
        ]);
        let v = stats_of_row(&r, &CompareOptions::default()).unwrap();
        assert_eq!(v["accuracy"], json!(0.7));
        assert_eq!(v["ci95"]["method"], "wilson");
        let se = Moments::of(&[1.0, 1., 1., 1., 1., 1., 1., 0., 0., 0.])
            .stderr()
            .unwrap();
        assert!((v["mean_stderr"].as_f64().unwrap() - se).abs() < 1e-12);
    }
}
