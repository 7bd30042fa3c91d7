//! The registry golden: every fixture case of every family through `run::read` and `run::score`
//! (default settings, then each profile that changes the headline) to its headline, typed
//! metrics and facts, in one harness and one layout for all families
//! (`tests/fixtures/registry/<family>.txt`, and every item row of the default profile in
//! `<family>.items.tsv`; `UPDATE_EXPECT=1` rewrites them). It also holds the
//! run table's invariants: `metrics()[0]` is `headline()`, `headline_value()` its value, and a
//! rate's counts give its value.

use evalboard_engine::family::Family;
use evalboard_engine::run::{self, ReadOptions, Settings};
use evalboard_engine::run_table::MetricValue;
use evalboard_engine::{InputFile, RunInput};
use evalboard_test_support::{cases, expect_file, fixture, read_folder};

fn input(name: &str, dir: &std::path::Path) -> RunInput {
    let files = read_folder(dir)
        .into_iter()
        .map(|(p, b)| InputFile::new(p, b))
        .collect();
    RunInput::new(name, files)
}

fn show(m: &MetricValue) -> String {
    let v = m.value.map_or("none".to_string(), |v| format!("{v}"));
    let c = m
        .counts
        .map(|c| format!(" ({} of {})", c.correct, c.n))
        .unwrap_or_default();
    format!("{}\t{}\t{:?}\t{v}{c}", m.key, m.label, m.unit)
}

/// A text cut to 60 characters on one line, for the items table.
fn cell(t: &str) -> String {
    let one: String = t
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(60)
        .collect();
    one
}

fn render(
    family: Family,
    name: &str,
    dir: &std::path::Path,
    profiles: &[&str],
    items: &mut String,
) -> String {
    let mut out = String::new();
    for profile in profiles {
        let mut settings = Settings::default();
        if settings.set_profile(family, profile).is_err() {
            continue;
        }
        out.push_str(&format!("== {name} ({profile})\n"));
        let read = match run::read_as(family, &input(name, dir), None, ReadOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                out.push_str(&format!("not usable: {}\n", e.message));
                continue;
            }
        };
        let scored = run::score(read, &settings, 1);
        let r = scored.as_ref();
        let metrics = r.metrics();
        let head = r.headline();
        assert_eq!(
            metrics.first(),
            Some(&head),
            "{name}: metrics()[0] is the headline"
        );
        assert_eq!(r.headline_value(), head.value, "{name}");
        for m in &metrics {
            if let (Some(c), Some(v)) = (m.counts, m.value) {
                assert_eq!(
                    c.value(),
                    Some(v),
                    "{name} {}: counts give the value",
                    m.key
                );
            }
        }
        out.push_str(&format!("headline\t{}\n", show(&head)));
        for m in &metrics[1..] {
            out.push_str(&format!("metric\t{}\n", show(m)));
        }
        let f = r.facts();
        let opt = |x: &Option<String>| x.clone().unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "facts\tmodel {}\ttask {}\tdataset {}\tcost_usd {}\ttokens {}\n",
            opt(&f.model),
            opt(&f.task),
            opt(&f.dataset),
            f.cost_usd.map_or("-".into(), |c| c.to_string()),
            f.tokens.map_or("-".into(), |t| t.to_string())
        ));
        match r.verdicts(None) {
            Ok(v) => {
                let rate = v.rate();
                out.push_str(&format!(
                    "verdicts\t{}\t{} of {} correct, {} items, {} failed whole, {} warnings\n",
                    v.judge,
                    rate.correct,
                    rate.n,
                    v.rows.len(),
                    v.failed.len(),
                    v.warnings.len()
                ));
                // A headline rate with counts is the rate of the verdicts.
                if let Some(c) = head.counts {
                    assert_eq!(rate, c, "{name}: the headline's counts are the verdicts'");
                }
                let mut keys: Vec<_> = v.rows.iter().map(|r| &r.key).collect();
                keys.dedup();
                assert_eq!(keys.len(), v.rows.len(), "{name}: each key once");
                assert!(
                    v.rows.windows(2).all(|w| w[0].key < w[1].key),
                    "{name}: sorted"
                );
            }
            Err(e) => out.push_str(&format!("verdicts\tnone: {e}\n")),
        }
        let summary = r.summary(None);
        if let Ok(s) = &summary {
            assert_eq!(s.metrics, metrics, "{name}");
            assert_eq!(s.facts, f, "{name}");
        }
        // The items of the default profile only: the rows do not change with the headline's
        // profile but for the verdicts, which the metrics above already sum.
        if Some(profile) == profiles.first() {
            if let Ok(rows) = r.items() {
                // One item found by its key is its row among all of them (a Compare pair's).
                for row in &rows {
                    let one = r.item_in::<{ run::ALL_FAMILIES }>(&row.key);
                    assert_eq!(one.as_ref(), Some(row), "{name}: {}", row.key);
                }
                judged_in_one_pass(name, r);
                let missing = evalboard_engine::run_table::ItemKey::text("no such item \u{1}");
                assert_eq!(r.item_in::<{ run::ALL_FAMILIES }>(&missing), None, "{name}");
                items.push_str(&format!("== {name}\n"));
                for row in rows {
                    let verdict = match row.verdict {
                        Some(true) => "right",
                        Some(false) => "wrong",
                        None => "-",
                    };
                    let fields: Vec<String> = row
                        .fields
                        .iter()
                        .map(|(k, v)| format!("{k}={}", cell(v)))
                        .collect();
                    let texts: Vec<String> = row
                        .texts
                        .iter()
                        .map(|(k, v)| format!("{k}: {}", cell(v)))
                        .collect();
                    items.push_str(&format!(
                        "{}\t{verdict}\t{}\t{}\n",
                        row.key.to_json(),
                        fields.join(" "),
                        texts.join(" | ")
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn every_fixture_case_through_the_registry() {
    let families = [
        (
            Family::NumericQa,
            "numeric_qa",
            &["doc", "financial-agent-2"][..],
        ),
        (Family::Codegen, "codegen", &["doc-v1", "ise547"][..]),
        (Family::Evalset, "evalset", &["v1", "v1-extract"][..]),
        (Family::EvalLog, "evallog", &["as-recorded", "exact"][..]),
    ];
    for (family, folder, profiles) in families {
        let (mut out, mut items) = (String::new(), String::new());
        for case in cases(folder) {
            let kind = if case.ok { "ok" } else { "err" };
            let name = format!("{kind}/{}", case.name);
            let single = case.dir.join("input");
            if single.is_dir() {
                out.push_str(&render(family, &name, &single, profiles, &mut items));
            } else if let Ok(rd) = std::fs::read_dir(case.dir.join("runs")) {
                let mut runs: Vec<_> = rd
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect();
                runs.sort();
                for run in runs {
                    let run_name = format!(
                        "{name}/{}",
                        run.file_name().unwrap_or_default().to_string_lossy()
                    );
                    out.push_str(&render(family, &run_name, &run, profiles, &mut items));
                }
            }
        }
        expect_file(&fixture(&format!("registry/{folder}.txt")), &out);
        expect_file(&fixture(&format!("registry/{folder}.items.tsv")), &items);
    }
}

/// Every judge's verdicts of the run given by position in one pass
/// (`RunRef::items_judged_in`, what the lake exports by) are its verdicts (`RunRef::verdicts`),
/// and the rows handed on are its items.
fn judged_in_one_pass(name: &str, r: run::RunRef<'_>) {
    use evalboard_engine::run::ItemAt;
    let choices: Vec<String> = r
        .judge_choices_in::<{ run::ALL_FAMILIES }>()
        .into_iter()
        .map(|c| c.judge)
        .collect();
    let asked: Vec<Option<&str>> = std::iter::once(None)
        .chain(choices.iter().map(|j| Some(j.as_str())))
        .collect();
    let mut rows = Vec::new();
    let Ok(all) = r.items_judged_in::<{ run::ALL_FAMILIES }>(&asked, |row, _| rows.push(row))
    else {
        assert!(r.items().is_err(), "{name}: items without a pass");
        return;
    };
    assert_eq!(Ok(&rows), r.items().as_ref().map_err(|_| ()), "{name}");
    assert_eq!(all.items, rows.len(), "{name}");
    for (judge, got) in asked.iter().zip(&all.judges) {
        match (r.verdicts(*judge), got) {
            (Ok(want), Ok(got)) => {
                assert_eq!(got.judge, want.judge, "{name}");
                let keyed: Vec<_> = (0..got.correct.len())
                    .map(|i| {
                        let key = match got.item(i) {
                            ItemAt::Item(k) => rows[k as usize].key.clone(),
                            ItemAt::Other(k) => all.others[k as usize].clone(),
                        };
                        (key, got.correct[i])
                    })
                    .collect();
                let want_rows: Vec<_> = want
                    .rows
                    .iter()
                    .map(|v| (v.key.clone(), v.correct))
                    .collect();
                assert_eq!(keyed, want_rows, "{name} judged by {judge:?}");
                assert_eq!(got.failed, want.failed, "{name} judged by {judge:?}");
            }
            (Err(_), Err(_)) => {}
            (want, got) => panic!(
                "{name} judged by {judge:?}: {:?} vs {:?}",
                want.is_ok(),
                got.is_ok()
            ),
        }
    }
}
