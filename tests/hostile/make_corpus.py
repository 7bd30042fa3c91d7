#!/usr/bin/env python3
"""Writes the hostile-input corpus: one run folder per case under tests/hostile/runs/, and
cases.json, which says what each case must end as. The CLI's tests (crates/cli/tests/it/
hostile_corpus.rs) and the browser's (tests/e2e/hostile.test.mjs) both read cases.json and run
every case; the fuzz harness (crates/fuzz) seeds from the files. Run it again after changing a
case: `python3 tests/hostile/make_corpus.py`.

Each case: "run" (its folder under runs/), "about", "outcome" ("run": it loads with its
diagnostics; "failed": nothing in it is usable, and that is said), and "says": text that the
CLI's stderr and the dashboard's load report (or error) both contain, naming the problem;
optionally "cli_stdout": text the CLI's human summary (`evalboard score RUN`) contains, e.g. the
run's size where a bug would lose part of it.
"""
import json, os, shutil, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")


def qa(conv, turn, expected, predicted, question="what was the change?", **extra):
    line = {"conversation_id": conv, "turn_idx": turn, "question": question,
            "expected": expected, "predicted": predicted}
    line.update(extra)
    return json.dumps(line)


GOOD = [qa("c1", 0, "10", 10), qa("c1", 1, "5%", 0.05), qa("c2", 0, "3", 4)]

CASES = []


def case(name, about, outcome, says, files, browser=None, cli_stdout=None):
    """`browser`: what the dashboard ends with where it differs from the CLI (its outcome and
    says), e.g. for a family the dashboard does not open yet, and "name": the run row to look at
    when it is not the folder's name (a folder of several logs is one run per log)."""
    d = os.path.join(RUNS, name)
    os.makedirs(d, exist_ok=True)
    for rel, data in files.items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    entry = {"run": name, "about": about, "outcome": outcome, "says": says}
    if browser:
        entry["browser"] = browser
    if cli_stdout:
        entry["cli_stdout"] = cli_stdout
    CASES.append(entry)


def text_bomb_eval(path, text_len):
    """An Inspect .eval (the deflate fixture's members) whose sample 1's `output.completion` is
    `text_len` characters of one letter, deflated at level 9 (~1030:1): inside the archive's caps
    (its size × 1100), so the member is read, and the text is what must be bounded. Written a
    chunk at a time, never whole in memory."""
    src = zipfile.ZipFile(os.path.join(HERE, "..", "fixtures", "evallog", "ok", "deflate_stored_zip64",
                                       "input", "arith.eval"))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename != "samples/1_epoch_1.json":
                out.writestr(zipfile.ZipInfo(info.filename, date_time=(2026, 11, 25, 20, 36, 8)), data,
                             compress_type=info.compress_type)
                continue
            sample = json.loads(data)
            sample["output"]["completion"] = "@BOMB@"
            head, tail = json.dumps(sample, indent=2).encode().split(b"@BOMB@")
            member = zipfile.ZipInfo(info.filename, date_time=(2026, 11, 25, 20, 36, 8))
            member.compress_type = zipfile.ZIP_DEFLATED
            with out.open(member, "w", force_zip64=True) as w:
                w.write(head)
                chunk = b"a" * (1 << 24)
                left = text_len
                while left:
                    w.write(chunk[:min(left, len(chunk))])
                    left -= min(left, len(chunk))
                w.write(tail)


def lines(*ls):
    return "\n".join(ls) + "\n"


def main():
    shutil.rmtree(RUNS, ignore_errors=True)
    case("deep_json", "a JSONL line nested 100,000 arrays deep, between good lines", "run",
         ["line skipped"],
         {"run.jsonl": lines(GOOD[0], "[" * 100_000 + "]" * 100_000, GOOD[1], GOOD[2])})
    case("deep_json_object", "a results.json nested 50,000 objects deep", "failed",
         ["unknown shape"],
         {"results.json": '{"a":' * 50_000 + "1" + "}" * 50_000})
    code_line = lambda code: json.dumps({"session_id": "s", "model": "m", "question": "q", "code": code,
                                         "execution_result": {"type": "number", "data": 1}})
    case("python_nesting", "code-generation trace whose code is 4,500 unary minuses and 300 parentheses deep",
         "run", [],
         {"trace.jsonl": lines(code_line("x = " + "-" * 4500 + "1"),
                               code_line("y = " + "(" * 300 + "1" + ")" * 300),
                               code_line("z = 1 + 2"))})
    case("inflated_count", "a failed conversation that declares 100 million turns in a 150-byte results.json",
         "run", ["declares 100000000 turns"],
         {"results.json": json.dumps([{"example_id": "c1", "model": "m", "num_turns": 100_000_000,
                                       "features": {"num_dialogue_turns": 100_000_000}, "turns": [], "error": "timeout"}])})
    case("bad_bytes", "one Latin-1 byte on the last line of a QA JSONL", "run", ["not UTF-8"],
         {"run.jsonl": lines(GOOD[0], GOOD[1]).encode("utf-8")
          + b'{"conversation_id":"c2","turn_idx":0,"question":"caf\xe9","expected":"3","predicted":4}\n'})
    case("duplicate_keys", "a QA JSONL line that repeats a key", "run",
         ["duplicate key \"predicted\""],
         {"run.jsonl": lines(GOOD[0], '{"conversation_id":"c1","turn_idx":1,"question":"q","expected":"5","predicted":4,"predicted":5}', GOOD[2])})
    header = ("trace_id,conversation_id,turn_idx,question,expected_answer,actual_answer,numerical_match,"
              "error_occurred")
    case("stray_quotes", "a turns.csv whose two question fields open a quote they never close", "run",
         ["stray quote"],
         {"turns.csv": lines(header,
                             't1,c1,0,"what was it in 2017?,10,10,True,False',
                             "t1,c1,1,what was it in 2018?,11,11,True,False",
                             "t1,c1,2,what was it in 2019?,12,12,True,False",
                             't1,c1,3,"what was it in 2020?,13,13,True,False')})
    case("control_chars", "answers and ids carrying terminal control sequences and bidi overrides", "run",
         ["declares 100000000 turns"],
         {"run.jsonl": lines(qa("c1\x1b]0;pwned\x07", 0, "10", "\x1b[2J\x1b[31m10", question="q\u202etxt.exe"),
                             qa("c2", 0, "=HYPERLINK(\"http://x\")", "@SUM(1)"),
                             # A failed conversation whose id is named in a warning.
                             json.dumps({"conversation_id": "c3\x1b[2J\x1b]0;pwned\x07", "turn_idx": 0,
                                         "conversation_error": "timeout\x1b[31m",
                                         "features": {"num_dialogue_turns": 100_000_000}}))})
    case("truncated", "a results.json cut off in the middle", "failed", ["EOF while parsing"],
         {"results.json": json.dumps([{"example_id": "c1", "model": "m", "turns": [
             {"turn_idx": 0, "question": "q", "expected": "1", "predicted": "1"}]}])[:60]})
    case("bom_and_numbers", "a BOM, NaN, Infinity, 1e999, -0 and a 400-digit number as answers", "run",
         ["number out of range"],
         {"run.jsonl": "\ufeff" + lines(
             '{"conversation_id":"c1","turn_idx":0,"question":"q","expected":"10","predicted":NaN}',
             '{"conversation_id":"c1","turn_idx":1,"question":"q","expected":"10","predicted":Infinity}',
             '{"conversation_id":"c1","turn_idx":2,"question":"q","expected":"10","predicted":1e999}',
             '{"conversation_id":"c1","turn_idx":3,"question":"q","expected":"0","predicted":-0}',
             '{"conversation_id":"c1","turn_idx":4,"question":"q","expected":"1","predicted":' + "9" * 400 + "}")})
    case("empty_and_junk", "an empty file, a binary file and a stray quote in a JSON name, beside a good run",
         "run", ["empty file", "not UTF-8 text"],
         {"run.jsonl": lines(*GOOD), "empty.jsonl": "", "junk.json": bytes(range(256)) * 4,
          'we"ird.json': '{"oops": '})
    case("nothing_usable", "a folder of files no reader takes", "failed", ["not an evaluation file"],
         {"notes.txt": "hello", "data.bin": b"\x00\x01\x02"})
    # Issue 31, classes 3 and 5: a 1 MB unbroken model output (the report shows a bounded
    # prefix with the length said) and bidi controls in a scorer's name and a sample's output
    # (shown as visible escapes, never reordering evalboard's own text).
    case("long_unbroken_output", "a QA answer that is one unbroken 1,000,000-character token", "run", [],
         {"run.jsonl": lines(GOOD[0], qa("c1", 1, "5%", "0123456789abcdef" * 62_500), GOOD[2])})
    inspect = open(os.path.join(HERE, "..", "fixtures", "evallog", "ok", "json_nan", "input", "arith.json"),
                   encoding="utf-8").read()
    case("bidi_scorer_name", "an Inspect log whose scorer name ends in U+202E and whose model name "
         "carries every bidi control", "run", [],
         {"arith.json": inspect.replace('"match"', '"match\\u202e"').replace(
             "mockllm/model", "mockllm/model\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"
             "\\u200e\\u200f\\u061c")})
    fixtures = os.path.join(HERE, "..", "fixtures", "evallog", "err")
    read = lambda case_name: open(os.path.join(fixtures, case_name, "input", "arith.eval"), "rb").read()
    case("eval_zip_bomb", "an Inspect .eval whose sample member inflates past the archive's cap", "run",
         ["exceeds the cap"], {"arith.eval": read("bomb_member")})
    case("eval_truncated", "an Inspect .eval cut off before its central directory", "failed",
         ["no end-of-central-directory record"], {"arith.eval": read("truncated")})
    # Issue 28, class 8: one broken log never sinks the rest of its folder.
    good_eval = open(os.path.join(HERE, "..", "fixtures", "evallog", "ok", "deflate_stored_zip64", "input",
                                  "arith.eval"), "rb").read()
    case("eval_broken_beside_good", "a good Inspect .eval beside one cut off before its central directory",
         "run", ["no end-of-central-directory record"],
         {"good.eval": good_eval, "truncated.eval": read("truncated")}, cli_stdout=["4 samples"])
    # Issue 31: hostile and unusual tool logs.
    lm_run = os.path.join(HERE, "..", "fixtures", "evallog", "runs", "lm_eval_baseline")
    lm_files = {n: open(os.path.join(lm_run, n), "rb").read().decode("utf-8") for n in sorted(os.listdir(lm_run))}
    long_first = {}
    for n, text in lm_files.items():
        if n.startswith("samples_"):
            first, rest = text.split("\n", 1)
            # The first row's question (before its `resps`) is 70 KB: past any sniff prefix.
            first = first.replace('"question": "', '"question": "' + "x" * 70_000, 1)
            text = first + "\n" + rest
        long_first[n] = text
    case("long_first_row", "lm-eval samples files whose first row is 70 KB long (past a 64 KiB sniff)", "run",
         [], long_first, cli_stdout=["15 samples"])
    # Issue 28, class 1: an lm-eval folder of the v0.4.0 layout (samples as JSON arrays), its
    # results file renamed, one array element cut to a bare word: the other rows are read.
    old_run = os.path.join(HERE, "..", "fixtures", "evallog", "ok", "lm_eval_v0_4_0_layout", "input")
    old_files = {}
    for n in sorted(os.listdir(old_run)):
        text = open(os.path.join(old_run, n), encoding="utf-8").read()
        if n.endswith("arith_mc.jsonl"):
            at = [i for i in range(len(text)) if text.startswith('"acc": ', i)][2]
            text = text[:at] + '"acc": one' + text[at + len('"acc": 1.0'):]
        old_files["eval_output.json" if n == "results.json" else n] = text
    case("lm_eval_array_bad_element", "an lm-eval folder with a renamed results file and samples files that are "
         "JSON arrays, one element of which does not parse", "run", ["element 2 does not parse"], old_files,
         cli_stdout=["14 samples"])
    pf_rows = json.load(open(os.path.join(HERE, "..", "fixtures", "evallog", "runs", "promptfoo_baseline",
                                          "results.json")))["results"]["results"]
    pf_rows[0]["response"]["output"] = "y" * 70_000
    case("long_first_output", "a promptfoo JSONL whose first row's output is 70 KB, before its testIdx",
         "run", [], {"results.jsonl": "".join(json.dumps(r) + "\n" for r in pf_rows)}, cli_stdout=["4 samples"])
    nan_log = open(os.path.join(HERE, "..", "fixtures", "evallog", "ok", "json_nan", "input", "arith.json"),
                   encoding="utf-8").read()
    # Python's json.dumps("\ud800") writes the escape; its json.loads reads it back.
    lone = nan_log.replace('"What is 1?"', json.dumps("What is 1?\ud800") + ', "note": "\\\\ud800 is text"', 1)
    assert lone != nan_log and "\\ud800" in lone
    case("lone_surrogate", "an Inspect JSON log with a lone surrogate escape (\\ud800) in a sample's input",
         "run", ["lone surrogate escape", "read it as U+FFFD"], {"arith.json": lone}, cli_stdout=["4 samples"])
    # A scorer named with a line feed and a fake result line, a file named with bidi controls
    # (U+200F, U+061C), and a repeated key so that a warning names that file.
    fake = json.dumps("match\n  accuracy          0.0% \u2192 100.0%\r")[1:-1]
    lf_log = nan_log.replace('"match"', '"%s"' % fake).replace('"status": "success"',
                                                                 '"status": "success", "status": "success"', 1)
    assert fake in lf_log and lf_log.count('"status"') >= 2
    case("line_feeds_in_names", "a scorer name carrying a line feed and a fake accuracy line, a file name "
         "carrying bidi controls (U+200F, U+061C)", "run", ["duplicate key \"status\""],
         {"arith\u200f\u061c.json": lf_log})
    # Two logs whose `<folder>_<file>` output folder names pass 255 bytes, alike but at the end.
    long_name = "arith_" + "long" * 60
    case("long_run_names", "two logs whose run names (folder/file) are past 255 bytes and differ only "
         "at their end", "run", [],
         {long_name + "_a.json": nan_log, long_name + "_b.json": nan_log},
         # The dashboard lists one run per log, named `folder/file`.
         browser={"name": "long_run_names/" + long_name + "_a.json"})
    # Issue 31, class 2: a compression bomb inside the limits: a 0.9 MB .eval whose one output
    # inflates to 900 MB (under the member cap of its size × 1100). The text is cut as it is read
    # (a sample's text keeps its first 1,000,000 characters, the cut said), never inflated whole.
    os.makedirs(os.path.join(RUNS, "eval_text_bomb"), exist_ok=True)
    text_bomb_eval(os.path.join(RUNS, "eval_text_bomb", "arith.eval"), 900_000_000)
    case("eval_text_bomb", "a 0.9 MB Inspect .eval whose one output inflates to 900 MB (inside the archive's caps)",
         "run", ["cut at 1,000,000 of 900,000,000 characters"], {}, cli_stdout=["4 samples"])
    # Issue 28, classes 4 and 5: the numbers a log records about itself, hostile. A promptfoo
    # export whose `stats` and a column's `metrics` nest 100 objects deep (under serde_json's
    # limit; past the reader's depth of 4 they are no numbers of the log's own), hold 5,000
    # numbers, 1e308, negatives, strings and NaN where counts go; and an OpenAI Evals record
    # file whose final_report holds 5,000 keys and a deep dict, with an errored sample.
    pf = json.load(open(os.path.join(HERE, "..", "fixtures", "evallog", "runs", "promptfoo_baseline",
                                     "results.json")))
    deep = 1
    for _ in range(100):
        deep = {"d": deep}
    stats = pf["results"]["stats"]
    stats["tokenUsage"].update({"prompt": 1e308, "completion": "NaN", "cached": -5, "deep": deep})
    stats["many"] = {"k%d" % i: i for i in range(5000)}
    pf["results"]["prompts"][0]["metrics"]["tokenUsage"]["total"] = "lots"
    pf["results"]["prompts"][0]["metrics"]["deep"] = deep
    case("promptfoo_hostile_stats", "a promptfoo export whose stats nest 100 objects deep, hold 5,000 "
         "numbers, 1e308, negatives and strings where token counts go", "run", [],
         {"results.json": json.dumps(pf)}, cli_stdout=["4 samples"])
    oa = open(os.path.join(HERE, "..", "fixtures", "evallog", "ok", "openai_evals_errors", "input",
                           "arith-match.jsonl"), encoding="utf-8").read().splitlines()
    for i, line in enumerate(oa):
        if line.startswith('{"final_report"'):
            rec = json.loads(line)
            rec["final_report"].update({"k%d" % j: j / 7 for j in range(5000)})
            rec["final_report"]["deep"] = deep
            rec["final_report"]["text"] = "not a number"
            oa[i] = json.dumps(rec)
    case("openai_evals_hostile_report", "an OpenAI Evals record file whose final_report holds 5,000 "
         "numbers and a dict 100 deep, one sample errored beside its match and one with no match",
         "run", [], {"arith-match.jsonl": "\n".join(oa) + "\n"}, cli_stdout=["5 samples"])
    # Issue 28, classes 3 and 6: hostile epochs and reducers in an Inspect log Inspect wrote
    # (2 epochs, tests/fixtures/evallog/make_issue28_repeats.py): a reducer whose k overflows
    # 64 bits, pass_k_0, at_least_{2^64 - 1}, a clustered stderr on metadata no sample has, a
    # sample whose epoch is given twice (the last, 2^32 - 1, read) and one with a negative
    # epoch (read as epoch 1, beside the real one).
    ep = json.load(open(os.path.join(HERE, "..", "fixtures", "evallog", "ok", "inspect_epochs2_json",
                                     "input", "epochs2.json"), encoding="utf-8"))
    reducers = ["pass_at_99999999999999999999999", "pass_k_0", "at_least_18446744073709551615",
                "pass_at_1"]
    for i, sc in enumerate(ep["results"]["scores"]):
        sc["reducer"] = reducers[i % len(reducers)]
        for m in sc["metrics"].values():
            if m["name"] == "stderr" and (m.get("params") or {}).get("cluster"):
                m["params"]["cluster"] = "nope"
    ep["samples"][1]["epoch"] = -3
    text = json.dumps(ep, indent=1, allow_nan=True)
    first = text.index('"epoch": ', text.index('"samples"'))
    text = text[:first] + '"epoch": 1, "epoch": 4294967295' + text[first + len('"epoch": 1'):]
    assert text.count('"epoch": 4294967295') == 1
    case("eval_hostile_epochs", "an Inspect log with reducers whose k overflows or is 0, a clustered "
         "stderr on missing metadata, an epoch given twice (the last 2^32 - 1) and a negative one",
         "run", ["duplicate key \"epoch\""], {"epochs2.json": text}, cli_stdout=["12 samples"])
    # Issue 28, class 2: an lm-eval results file with no samples beside it, whose results hold
    # 5,000 more tasks and, where numbers go, NaN, 1e308, negatives, "N/A" strings and a dict:
    # every number is recorded but not recomputed, each with its reason, and none is a mismatch.
    lm = json.load(open(os.path.join(HERE, "..", "fixtures", "evallog", "runs", "lm_eval_baseline",
                                     "results_2026-11-25T20-38-20.566618.json"), encoding="utf-8"))
    for i in range(5000):
        lm["results"]["task_%d" % i] = {"alias": "task_%d" % i, "acc,none": [float("nan"), 1e308, -1.5,
                                        "N/A", {"x": 1}][i % 5], "acc_stderr,none": "N/A"}
    case("lm_eval_hostile_results_only", "an lm-eval results file alone (no samples) with 5,000 more "
         "tasks whose metrics are NaN, 1e308, negative, \"N/A\" or a dict",
         "run", [], {"results_2026-12-01T00-00-00.json": json.dumps(lm, allow_nan=True)},
         cli_stdout=["0 samples"])
    # Issue 28, class 7: an Inspect log whose token usage is hostile (negative, 1e308 and string
    # counts, more cache reads than input, 5,000 models in one sample's usage, a model name with
    # control characters) billed under no price table: nothing is priced, nothing panics.
    bill = json.load(open(os.path.join(HERE, "..", "fixtures", "evallog", "prices", "inspect", "billing.json"),
                          encoding="utf-8"))
    usage = bill["samples"][0]["model_usage"]
    model = next(iter(usage))
    usage[model].update({"input_tokens": -5, "output_tokens": 1e308, "total_tokens": "lots",
                         "input_tokens_cache_read": 18446744073709551615, "reasoning_tokens": -1})
    for i in range(5000):
        usage["m%d\x1b[31m" % i] = {"input_tokens": i, "output_tokens": i}
    bill["samples"][1]["model_usage"] = {"": {"input_tokens": "NaN"}}
    bill["samples"][2]["model_usage"] = [1, 2, 3]
    case("eval_hostile_usage", "an Inspect log whose token usage is negative, 1e308, a string, more "
         "cache reads than input, 5,000 models in one sample and a model name with control characters",
         "run", [], {"billing.json": json.dumps(bill)}, cli_stdout=["5 samples"])
    # Issue 27: evalboard's own run rows (a lake's runs read again, `evalboard_rows` v1) made
    # hostile: an inflated declared count and a NaN headline in the header, an item key 100,000
    # arrays deep, a verdict with no scorer, bad bytes, 5,000 scorers on one item, scorer names
    # with control and bidi characters, a key past 2^64, an item given twice; the good items read.
    head = {"evalboard_rows": 1, "run": {"name": "rows\x1b[31m", "n_items": 10 ** 15,
            "headline_key": "m@v1", "judge": "m@v1", "status": "scored", "model": "m\u202e1"}}
    good = lambda k, ok: json.dumps({"item_key": [k, 1], "status": "scored", "output": "=HYPERLINK(1)",
                                     "verdicts": [{"scorer": "m@v1", "correct": ok}]})
    rows = [json.dumps(head).replace("}}", ', "headline_value": NaN}}'), good("a", True), good("b", False),
             '{"item_key": ' + "[" * 100000 + "]" * 100000 + ', "verdicts": []}',
             json.dumps({"item_key": ["c", 1], "verdicts": [{"value": 1}]}),
             good("d", True)[:-1] + ', "note": "@BAD@"}',
             json.dumps({"item_key": ["e", 1], "verdicts": [{"scorer": "s%d\x07\u202e" % i, "value": i}
                                                          for i in range(5000)]}),
             json.dumps({"item_key": [18446744073709551616 * 4, 1], "verdicts": [{"scorer": "m@v1", "correct": True}]}),
             good("a", False)]
    data = ("\n".join(rows) + "\n").encode("utf-8")
    data = data.replace(b"@BAD@", b"\xff\xfe")
    case("evalboard_rows_hostile", "evalboard's run rows (a lake's run read again) with an inflated count, "
         "a NaN headline, a key 100,000 arrays deep, a verdict with no scorer, bad bytes, 5,000 scorers "
         "with control characters on one item, a key past 2^64 and an item twice",
         "run", ["given again (first at line 2)", "a verdict without its `scorer`", "recursion limit"],
         {"run.evalboard-rows.jsonl": data}, cli_stdout=["3 samples"])
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump({"about": __doc__.strip().splitlines()[0], "cases": CASES}, f, indent=1, ensure_ascii=True)
        f.write("\n")


if __name__ == "__main__":
    main()
