//! evalboard's own run rows (docs/lake.md § "Run rows"): one JSONL file per run — a header line
//! `{"evalboard_rows": 1, "run": {…}}` with what the run said of itself when it was exported,
//! then one line per item (× epoch) with its key, status, texts, slice fields and every
//! scorer's verdict. A lake's runs are read as these rows (`crate::lake::rows`), so
//! `compare`, `report` and the dashboard take a run read from a lake as they take any log.
//!
//! Lowered as a log of the tool "evalboard": each verdict is a score named after its versioned
//! scorer (`numerical_match@doc-v1`), read 1 for correct, 0 for wrong, none when not scored (a
//! `human` override keeps its 0–1 value); each scorer's mean is a headline recomputed from the
//! rows; the run's own headline as exported is the one recorded metric; the judge is the
//! header's `judge`, else the first scorer. Nothing is re-scored: the verdicts are as exported.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::json::{self, compact, finite, string, uint};
use super::model::{
    EvalLogRun, Headline, MetricKey, RecordedMetric, RecordedValue, Sample, SampleKey, ScoreEntry,
    Tokens, Tool,
};
use crate::diag::Diagnostic;
use crate::input::InputFile;

pub use super::sniff::EVALBOARD_ROWS_KEY as HEADER_KEY;
/// The one version of the rows this reader reads.
pub const VERSION: u64 = 1;

/// The metric name of each scorer's recomputed headline (the mean of its readings): none, so
/// the headline is labelled by its scorer alone, as `diff` names it.
const MEAN: &str = "";

/// Reads a run-rows file.
pub fn read(file: &InputFile) -> Result<(EvalLogRun, Vec<Diagnostic>), Vec<Diagnostic>> {
    let path = file.path.as_str();
    let mut diags = Vec::new();
    let mut header: Option<Value> = None;
    let mut samples: Vec<Sample> = Vec::new();
    // Each item's key and the line that gave it: an item given again is skipped, said once.
    let mut seen: HashMap<Vec<String>, u32> = HashMap::new();
    json::each_line(file, &mut diags, |line_no, v, diags| {
        if header.is_none() && samples.is_empty() {
            match v.get(HEADER_KEY).and_then(Value::as_u64) {
                Some(VERSION) => {
                    header = Some(v.get("run").cloned().unwrap_or(Value::Null));
                    return;
                }
                Some(other) => {
                    diags.push(Diagnostic::error(
                        path,
                        Some(line_no),
                        format!(
                            "run rows of version {other}: this evalboard reads version {VERSION}"
                        ),
                    ));
                    return;
                }
                None => {}
            }
        }
        match sample(path, line_no, &v) {
            Ok(s) => {
                let SampleKey::Evalboard { parts } = &s.key else {
                    return;
                };
                match seen.get(parts) {
                    Some(first) => diags.push(Diagnostic::error(
                        path,
                        Some(line_no),
                        format!(
                            "item {} given again (first at line {first}): this line is skipped",
                            parts.join(" / ")
                        ),
                    )),
                    None => {
                        seen.insert(parts.clone(), line_no);
                        samples.push(s);
                    }
                }
            }
            Err(why) => diags.push(Diagnostic::error(path, Some(line_no), why)),
        }
    });
    drop(seen);
    let Some(run) = header else {
        diags.push(Diagnostic::error(
            path,
            Some(1),
            format!("no `{HEADER_KEY}: {VERSION}` header line: not evalboard run rows"),
        ));
        return Err(diags);
    };
    let s = |k: &str| run.get(k).and_then(string);
    // Each scorer in the order its verdicts first appear, with the sum and count of its
    // readings: one pass over the verdicts, whatever the number of scorers.
    let mut scorers: Vec<String> = Vec::new();
    let mut sums: Vec<(f64, u64)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for e in samples.iter().flat_map(|s| &s.scores) {
        let i = *index.entry(e.scorer.as_str()).or_insert_with(|| {
            scorers.push(e.scorer.clone());
            sums.push((0.0, 0));
            scorers.len() - 1
        });
        if let (Some(x), Some(sum)) = (e.reading, sums.get_mut(i)) {
            sum.0 += x;
            sum.1 += 1;
        }
    }
    drop(index);
    let mut headlines: Vec<Headline> = scorers
        .iter()
        .zip(&sums)
        .map(|(scorer, &(sum, n))| Headline {
            key: mean_key(scorer),
            recorded: None,
            recomputed: (n > 0).then(|| sum / n as f64),
            n,
            note: Some("the mean of the exported verdicts (not re-scored)".into()),
        })
        .collect();
    let judge = s("judge").filter(|j| scorers.contains(j));
    if let Some(j) = s("judge").filter(|j| !scorers.is_empty() && !scorers.contains(j)) {
        diags.push(Diagnostic::warning(
            path,
            Some(1),
            format!("the header names judge {j}, which no item's verdicts have: judged by the first scorer"),
        ));
    }
    let primary = judge
        .or_else(|| scorers.iter().find(|s| *s != "human").cloned())
        .or_else(|| scorers.first().cloned())
        .map(|j| mean_key(&j));
    let recorded: Vec<RecordedMetric> = run
        .get("headline_key")
        .and_then(string)
        .filter(|k| !k.is_empty())
        .map(|k| RecordedMetric {
            key: MetricKey {
                group: String::new(),
                scorer: "exported".into(),
                variant: None,
                metric: k,
            },
            value: run.get("headline_value").and_then(finite),
            stderr: None,
        })
        .into_iter()
        .collect();
    // The run's headline as exported is what this log records of its judge's headline (the
    // Overview's "the log records", `headline_recorded`): the number `score` printed.
    let exported: Option<&RecordedMetric> = recorded.first();
    if let Some(h) = headlines
        .iter_mut()
        .find(|h| Some(&h.key) == primary.as_ref())
    {
        h.recorded = exported.and_then(|r| r.value);
    }
    let mut config = BTreeMap::new();
    for k in ["source_format", "family", "profile", "settings"] {
        if let Some(v) = run.get(k).filter(|v| !v.is_null()) {
            config.insert(k.to_string(), compact(v));
        }
    }
    let run = EvalLogRun {
        tool: Tool::Evalboard,
        tool_version: s("evalboard_version"),
        format_version: Some(VERSION as i64),
        declared_samples: run.get("n_items").and_then(uint),
        files: vec![path.to_string()],
        status: s("status"),
        task: s("task"),
        task_version: None,
        model: s("model"),
        dataset: s("dataset"),
        eval_id: s("run_id"),
        run_id: None,
        created: s("started_at"),
        config,
        recorded,
        headlines,
        primary,
        samples,
    };
    Ok((run, diags))
}

fn mean_key(scorer: &str) -> MetricKey {
    MetricKey {
        group: String::new(),
        scorer: scorer.to_string(),
        variant: None,
        metric: MEAN.into(),
    }
}

/// One item line.
fn sample(path: &str, line_no: u32, v: &Value) -> Result<Sample, String> {
    if !v.is_object() {
        return Err("an item line is not a JSON object".into());
    }
    let parts = v
        .get("item_key")
        .and_then(crate::run_table::ItemKey::from_json)
        .ok_or("no `item_key` (a non-empty array of strings and whole numbers)")?
        .parts();
    let s = |k: &str| v.get(k).and_then(string);
    let answer = s("answer");
    let mut scores = Vec::new();
    for verdict in v
        .get("verdicts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(scorer) = verdict.get("scorer").and_then(string) else {
            return Err("a verdict without its `scorer`".into());
        };
        let correct = verdict.get("correct").and_then(Value::as_bool);
        let value = verdict.get("value").and_then(finite);
        let reading = value.or(correct.map(|c| if c { 1.0 } else { 0.0 }));
        scores.push(ScoreEntry {
            scorer,
            key: None,
            value: match (value, correct) {
                (Some(x), _) => RecordedValue::Float(x),
                (None, Some(c)) => RecordedValue::Bool(c),
                (None, None) => RecordedValue::Null,
            },
            reading,
            answer: answer.clone(),
            explanation: verdict.get("label").and_then(string),
        });
    }
    let metadata = v
        .get("metadata")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, x)| (k.clone(), compact(x))).collect())
        .unwrap_or_default();
    let error = s("error").or_else(|| {
        (v.get("status").and_then(Value::as_str) == Some("failed"))
            .then(|| "its group failed as a whole".to_string())
    });
    Ok(Sample {
        key: SampleKey::Evalboard { parts },
        input: s("input"),
        target: s("expected").into_iter().collect(),
        output: s("output").or(answer),
        scores,
        tokens: Tokens {
            input: v.get("input_tokens").and_then(uint),
            output: v.get("output_tokens").and_then(uint),
            reasoning: v.get("reasoning_tokens").and_then(uint),
            ..Tokens::default()
        },
        cost: v.get("cost_usd").and_then(finite),
        latency: v.get("latency_ms").and_then(finite).map(|ms| ms / 1000.0),
        error,
        metadata,
        source: format!("{path}:{line_no}"),
        checks: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evallog::sniff::{sniff, EvalLogFileKind};

    fn file(text: &str) -> InputFile {
        InputFile::new("r.evalboard-rows.jsonl", text.as_bytes())
    }

    const HEAD: &str = r#"{"evalboard_rows":1,"run":{"name":"base","judge":"m@v1","headline_key":"accuracy","headline_value":0.5,"status":"scored","model":"m1","evalboard_version":"0.1"}}"#;

    #[test]
    fn rows_are_sniffed_read_and_judged_by_the_header_judge() {
        let text = format!(
            "{HEAD}\n{}\n{}\n{}\n",
            r#"{"item_key":["c1",0],"status":"scored","answer":"4","expected":"4","verdicts":[{"scorer":"a@v1","value":0,"correct":false,"label":"wrong"},{"scorer":"m@v1","value":1,"correct":true,"label":"correct"}]}"#,
            r#"{"item_key":["c1",1],"status":"failed","error":"timeout","verdicts":[{"scorer":"m@v1","value":0,"correct":false,"label":"wrong"}]}"#,
            r#"{"item_key":["c2",0],"status":"unscored","verdicts":[{"scorer":"m@v1","value":null,"correct":null,"label":"unscored"}],"metadata":{"difficulty":"hard"}}"#,
        );
        let f = file(&text);
        assert_eq!(sniff(&f), Some(EvalLogFileKind::EvalboardRows));
        let (run, diags) = read(&f).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(run.tool, Tool::Evalboard);
        assert_eq!(run.model.as_deref(), Some("m1"));
        assert_eq!(
            run.primary.as_ref().map(MetricKey::label).as_deref(),
            Some("m@v1")
        );
        let m = run
            .headlines
            .iter()
            .find(|h| h.key.scorer == "m@v1")
            .unwrap();
        // A failed item keeps its exported verdict (wrong); an unscored one has none.
        assert_eq!((m.recomputed, m.n), (Some(0.5), 2));
        // The judge's headline records the run's headline as exported.
        assert_eq!(m.recorded, Some(0.5));
        assert!(crate::evallog::score::mismatches(&run).is_empty());
        let keys: Vec<Vec<String>> = run
            .samples
            .iter()
            .map(|s| crate::evallog::score::key_parts(&s.key))
            .collect();
        assert_eq!(keys, [["c1", "0"], ["c1", "1"], ["c2", "0"]]);
        assert_eq!(run.samples[1].error.as_deref(), Some("timeout"));
        assert_eq!(run.samples[2].metadata["difficulty"], "\"hard\"");
        assert_eq!(run.recorded[0].value, Some(0.5));
    }

    #[test]
    fn bad_rows_are_named_and_the_good_ones_kept() {
        let text = format!(
            "{HEAD}\n{}\n{}\n{}\n{}\n{}\n",
            r#"{"item_key":[],"verdicts":[]}"#,
            r#"{"item_key":["x",{"a":1}]}"#,
            r#"{"item_key":["y"],"verdicts":[{"value":1}]}"#,
            r#"[1,2,"#,
            r#"{"item_key":["ok"],"verdicts":[{"scorer":"m@v1","correct":true}]}"#,
        );
        let (run, diags) = read(&file(&text)).unwrap();
        assert_eq!(run.samples.len(), 1);
        let lines: Vec<Option<u32>> = diags.iter().map(|d| d.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(4), Some(5)], "{diags:?}");
        // Deep nesting is refused by the bounded parser, never a stack overflow.
        let deep = format!("{HEAD}\n{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let (run, diags) = read(&file(&deep)).unwrap();
        assert!(run.samples.is_empty());
        assert!(
            !diags.is_empty() && diags.iter().all(|d| d.line == Some(2)),
            "{diags:?}"
        );
    }

    #[test]
    fn an_item_given_twice_is_read_once_and_a_bad_byte_loses_only_its_line() {
        let good = r#"{"item_key":["a",1],"verdicts":[{"scorer":"m@v1","correct":true}]}"#;
        let again = r#"{"item_key":["a",1],"verdicts":[{"scorer":"m@v1","correct":false}]}"#;
        let mut bytes = format!("{HEAD}\n{good}\n{again}\n").into_bytes();
        bytes.extend_from_slice(b"{\"item_key\":[\"b\xff\"]}\n");
        bytes.extend_from_slice(
            br#"{"item_key":["c"],"verdicts":[{"scorer":"m@v1","correct":false}]}"#,
        );
        let f = InputFile::new("r.evalboard-rows.jsonl", bytes);
        // Not UTF-8 as a whole, still this family's file: every other line is read.
        assert_eq!(
            crate::family::family_vote(&f),
            Some(crate::family::Family::EvalLog)
        );
        let (run, diags) = read(&f).unwrap();
        assert_eq!(run.samples.len(), 2, "{diags:?}");
        let m = &run.headlines[0];
        assert_eq!(
            (m.recomputed, m.n),
            (Some(0.5), 2),
            "the first of the two is kept"
        );
        let said: Vec<(Option<u32>, &str)> =
            diags.iter().map(|d| (d.line, d.message.as_str())).collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert_eq!(
            said[0],
            (
                Some(3),
                "item a / 1 given again (first at line 2): this line is skipped"
            )
        );
        assert_eq!(said[1].0, Some(4));
        // Many scorers are summed in one pass, each once, in the order they first appear.
        let many: Vec<String> = (0..3000)
            .map(|i| format!(r#"{{"scorer":"s{}","value":{i}}}"#, i % 1000))
            .collect();
        let text = format!(
            "{HEAD}\n{{\"item_key\":[\"x\"],\"verdicts\":[{}]}}\n",
            many.join(",")
        );
        let (run, _) = read(&file(&text)).unwrap();
        assert_eq!(run.headlines.len(), 1000);
        assert_eq!(run.headlines[1].key.scorer, "s1");
        assert_eq!(
            (run.headlines[1].recomputed, run.headlines[1].n),
            (Some(1001.0), 3)
        );
    }

    #[test]
    fn another_version_or_no_header_is_not_read() {
        let e = read(&file("{\"evalboard_rows\":2,\"run\":{}}\n")).unwrap_err();
        assert!(e.iter().any(|d| d.message.contains("version 2")), "{e:?}");
        let e = read(&file("{\"item_key\":[\"a\"]}\n")).unwrap_err();
        assert!(
            e.iter()
                .any(|d| d.message.contains("no `evalboard_rows: 1` header")),
            "{e:?}"
        );
        // The judge named must be one of the scorers.
        let text = HEAD.replace("m@v1", "gone@v9")
            + "\n{\"item_key\":[\"a\"],\"verdicts\":[{\"scorer\":\"m@v1\",\"correct\":true}]}\n";
        let (run, diags) = read(&file(&text)).unwrap();
        assert_eq!(run.primary.map(|k| k.scorer).as_deref(), Some("m@v1"));
        assert!(diags[0].message.contains("gone@v9"), "{diags:?}");
    }
}
