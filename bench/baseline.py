#!/usr/bin/env python3
"""Plain-Python baseline for the benchmark: the json module + the same doc-v1 answer rules as
evalboard's engine, over a financial-agent-2 trace folder. Prints one JSON line with the timing."""
import json, os, sys, time

def parse(v):
    """(value_with_percent_applied, is_percent) or ('text', str) or None."""
    if v is None:
        return None
    if isinstance(v, bool):
        return (1.0 if v else 0.0, False)
    if isinstance(v, (int, float)):
        f = float(v)
        return None if f != f or f in (float('inf'), float('-inf')) else (f, False)
    s = str(v).strip().replace('\u2212', '-').replace('\u00a0', '')
    if not s:
        return None
    neg = False
    if s.startswith('(') and s.endswith(')'):
        neg, s = True, s[1:-1].strip()
    pct = s.endswith('%')
    if pct:
        s = s[:-1].strip()
    s = s.replace('$', '').replace(',', '').strip()
    if s.startswith('+'):
        s = s[1:]
    try:
        f = float(s)
    except ValueError:
        return ('text', str(v).strip().lower())
    if neg:
        f = -f
    return (f / 100.0 if pct else f, pct)

REL, ABS, EXACT_REL = 0.01, 0.001, 1e-9

def within(x, t):
    d = abs(t - x)
    return d <= REL * abs(t) or d < ABS

def score(expected, actual):
    """The six doc-v1 flags (exact, numerical, soft, unit_agnostic, sign_agnostic, general)."""
    pe, pa = parse(expected), parse(actual)
    if pe is None or pa is None:
        return (False,) * 6
    if pe[0] == 'text' or pa[0] == 'text':
        ok = pe[0] == 'text' and pa[0] == 'text' and pe[1] == pa[1]
        return (ok,) * 6
    (e, ep), (a, ap) = pe, pa
    d = abs(e - a)
    num = within(a, e)
    exact = num and d <= EXACT_REL * max(1.0, abs(e))
    soft = d <= REL * abs(e)
    unit = any(within(a, t) for t in (e, e * 100, e / 100))
    sign = within(abs(a), abs(e))
    ts = [e] + ([e * 100] if ep else [])
    xs = [a] + ([a * 100] if ap else [])
    gen = any(within(x, t) for x in xs for t in ts)
    return (exact, num, soft, unit, sign, gen)

def main(folder):
    t0 = time.perf_counter()
    n = 0
    sums = [0] * 6
    by_turn = {}
    tdir = os.path.join(folder, 'traces')
    for name in sorted(os.listdir(tdir)):
        with open(os.path.join(tdir, name), 'rb') as f:
            trace = json.load(f)
        for t in trace.get('turns', []):
            flags = score(t.get('expected_answer'), t.get('actual_answer'))
            n += 1
            for i, x in enumerate(flags):
                sums[i] += x
            k = str(t.get('turn_idx'))
            c, m = by_turn.get(k, (0, 0))
            by_turn[k] = (c + flags[1], m + 1)
    total = time.perf_counter() - t0
    print(json.dumps({"turns": n, "total_s": total, "turns_per_s": n / total if total else None,
                      "numerical_accuracy": sums[1] / n if n else None}))

if __name__ == '__main__':
    main(sys.argv[1])
