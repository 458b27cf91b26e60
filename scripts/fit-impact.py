#!/usr/bin/env python3
"""Fits the weights `git rag impact` ranks tests with, on samples mined from
git histories by `scripts/mine-impact.py`.

A test's score is the sum over kinds of evidence of value x weight (the
`signals` each listed test carries, the `TEST_*` constants of
src/impact/weights.rs, read and written by name). The fit is listwise
(per sample, a softmax over its candidates' scores should put its mass on
the labelled tests), weights kept non-negative, scaled so `reached` is 1; it is
judged leave one repository out: for every repository, weights fitted on
the others rank its samples. Printed beside it: the shipped weights on the
same samples.

    fit-impact.py SAMPLES.jsonl [SAMPLES.jsonl ...] [--write]
"""
import argparse, collections, json, math, re, sys
from pathlib import Path

WEIGHTS = Path(__file__).resolve().parent.parent / "src" / "impact" / "weights.rs"
# Signal name -> constant in weights.rs. `in_change` is not fitted: a mined
# sample never has a test in its diff.
CONSTANTS = {
    "reached": "TEST_REACHED",
    "named_after_file": "TEST_NAMED_AFTER_FILE",
    "named_after_folder": "TEST_NAMED_AFTER_FOLDER",
    "named_after_definition": "TEST_NAMED_AFTER_DEFINITION",
    "imports": "TEST_IMPORTS",
    "names": "TEST_NAMES",
    "lexical": "TEST_LEXICAL",
    "cochanged": "TEST_COCHANGED",
    "cochanged_recently": "TEST_COCHANGED_RECENTLY",
    "named_by_message": "TEST_NAMED_BY_MESSAGE",
}
SIGNALS = list(CONSTANTS)


def shipped():
    text = WEIGHTS.read_text()
    out = {}
    for s, c in CONSTANTS.items():
        m = re.search(rf"pub const {c}: f32 = ([0-9.]+);", text)
        out[s] = float(m.group(1))
    return out


def write(weights):
    text = WEIGHTS.read_text()
    for s, c in ((s, c) for s, c in CONSTANTS.items() if s in weights):
        text = re.sub(rf"(pub const {c}: f32 = )[0-9.]+;", lambda m: f"{m.group(1)}{weights[s]:.3f};".replace(".000;", ".0;"), text)
    WEIGHTS.write_text(text)


def features(c):
    return [c["signals"].get(s, 0.0) for s in SIGNALS]


def ranks(rows, w):
    """First rank of a labelled test per sample (None: not listed)."""
    out = []
    for r in rows:
        scored = sorted(r["candidates"], key=lambda c: (-sum(a * b for a, b in zip(w, features(c))), c["path"]))
        out.append(next((i + 1 for i, c in enumerate(scored) if c["path"] in r["gold"]), None))
    return out


def metrics(rs):
    n = max(len(rs), 1)
    acc = lambda k: sum(1 for x in rs if x and x <= k) / n
    return {"n": len(rs), "acc1": round(acc(1), 4), "acc3": round(acc(3), 4), "acc5": round(acc(5), 4), "mrr": round(sum(1 / x for x in rs if x) / n, 4)}


def fit(rows, iters=400, lr=2.0, l2=1e-3):
    """Listwise: per sample, the softmax of the scores over its candidates
    should put its mass on the labelled tests (cross-entropy), as a ranking
    judged by its first hits wants; weights kept non-negative."""
    samples = []
    for r in rows:
        xs = [features(c) for c in r["candidates"]]
        gold = [i for i, c in enumerate(r["candidates"]) if c["path"] in r["gold"]]
        if gold and len(xs) > 1:
            samples.append((xs, gold))
    w = [1.0] * len(SIGNALS)
    for _ in range(iters):
        grad = [l2 * x for x in w]
        for xs, gold in samples:
            scores = [sum(a * b for a, b in zip(w, x)) for x in xs]
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            z, zg = sum(e), sum(e[i] for i in gold)
            for i, x in enumerate(xs):
                p = e[i] / z - (e[i] / zg if i in gold else 0.0)
                for k, v in enumerate(x):
                    grad[k] += p * v / len(samples)
        w = [max(0.0, x - lr * g) for x, g in zip(w, grad)]
    scale = w[0] if w[0] > 0 else max(w) or 1.0
    return [x / scale for x in w]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("samples", nargs="+"); ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    rows = [json.loads(l) for f in a.samples for l in open(f) if l.strip()]
    # Samples mined without the commit's message (`mine-impact.py` before
    # --with-message) cannot weigh it: it keeps its shipped weight, fixed.
    if not all(r.get("with_message") for r in rows):
        SIGNALS.remove("named_by_message")
        print("named_by_message: not in every sample (mine with --with-message); its weight is not fitted", file=sys.stderr)
    by_repo = collections.defaultdict(list)
    for r in rows:
        by_repo[r["repo"]].append(r)
    base = shipped()
    wb = [base[s] for s in SIGNALS]
    held, ship, per = [], [], {}
    for repo, rs in sorted(by_repo.items()):
        w = fit([r for r in rows if r["repo"] != repo])
        h, s = ranks(rs, w), ranks(rs, wb)
        held += h; ship += s
        per[repo] = {"held_out": metrics(h), "shipped": metrics(s)}
    macro = lambda key, m: round(sum(p[key][m] for p in per.values()) / len(per), 4)
    final = fit(rows)
    report = {
        "samples": len(rows), "repositories": len(by_repo),
        "shipped": {"weights": base, "micro": metrics(ship), "macro_acc1": macro("shipped", "acc1"), "macro_acc5": macro("shipped", "acc5")},
        "leave_one_repository_out": {"micro": metrics(held), "macro_acc1": macro("held_out", "acc1"), "macro_acc5": macro("held_out", "acc5")},
        "fitted_on_all": {"weights": dict(zip(SIGNALS, [round(x, 3) for x in final])), "micro_in_sample": metrics(ranks(rows, final))},
        "per_repository": per,
    }
    print(json.dumps(report, indent=1))
    if a.write:
        write(dict(zip(SIGNALS, final)))
        print(f"wrote {WEIGHTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
