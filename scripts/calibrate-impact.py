#!/usr/bin/env python3
"""Calibrates `git rag impact`'s tests: the chance that a listed test file is
one the change's own commit edited, from where and how strongly it ranks.

On samples mined by `scripts/mine-impact.py` (real commits of repositories no
benchmark holds, each applied at its parent; the test files the commit
edited are the labels), every listed test gets

    p = sigmoid(intercept + a * ln(1 + score) + b * ln(rank) + c * score / top score
                + k * (d + e * ln(1 + score)))

where k is 1 for a change of configuration alone (the sample's
`configuration_only`, as `impact` said it; mine such commits with
`mine-impact.py --changes configuration`), else 0.

a logistic regression fitted leave one repository out: for each repository,
the model fitted on the others predicts its samples. Printed: the
reliability table (10 bins of predicted p: how many, mean p, how many were
labelled), and for each threshold the `run` tier (tests with p at or above
it): its mean size, how often it holds a labelled test, how often all of
them. The threshold is the lowest whose run tier holds at most
MAX_RUN_TIER tests on average (held out); `--write` writes the model fitted
on all samples and that threshold into src/impact/weights.rs.

    calibrate-impact.py SAMPLES.jsonl [SAMPLES.jsonl ...] [--write]
"""
import argparse
import collections
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).resolve().parent.parent / "src" / "impact" / "weights.rs"
CONSTANTS = ["TEST_PROBABILITY_INTERCEPT", "TEST_PROBABILITY_LOG_SCORE", "TEST_PROBABILITY_LOG_RANK", "TEST_PROBABILITY_SHARE_OF_TOP",
             "TEST_PROBABILITY_CONFIGURATION_ONLY", "TEST_PROBABILITY_CONFIGURATION_ONLY_LOG_SCORE"]
THRESHOLD = "RUN_TIER_PROBABILITY"
# The run tier is what a reviewer runs now: a handful (the bound).
MAX_RUN_TIER = 6.0
THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 19)]


def rows_of(samples):
    """Per sample, its listed tests in order: (features, label)."""
    out = []
    for s in samples:
        cands = sorted(s["candidates"], key=lambda c: (-c["score"], c["path"]))
        if not cands:
            continue
        top = max(cands[0]["score"], 1e-9)
        gold = set(s["gold"])
        k = 1.0 if s.get("configuration_only") else 0.0
        out.append([(features(c["score"], rank, top, k), c["path"] in gold) for rank, c in enumerate(cands, 1)])
    return out


def features(score, rank, top, configuration_only=0.0):
    log_score = math.log1p(max(score, 0.0))
    return [1.0, log_score, math.log(rank), score / top, configuration_only, configuration_only * log_score]


def fit(groups, l2=1e-2, iters=50):
    """Logistic regression by Newton's method (a small ridge keeps it finite)."""
    x = np.array([f for g in groups for f, _ in g])
    y = np.array([float(l) for g in groups for _, l in g])
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        grad = x.T @ (p - y) + l2 * w
        h = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(h, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def predict(w, group):
    return [1.0 / (1.0 + math.exp(-float(np.dot(w, f)))) for f, _ in group]


def reliability(pairs, bins=10):
    table = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(p, l) for p, l in pairs if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        if inside:
            table.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": len(inside), "mean_p": round(sum(p for p, _ in inside) / len(inside), 3),
                          "labelled": round(sum(l for _, l in inside) / len(inside), 3)})
    n = len(pairs)
    ece = sum(t["n"] / n * abs(t["mean_p"] - t["labelled"]) for t in table)
    return table, round(ece, 4)


def rate(name):
    """A commit kind's share that edits a test, as weights.rs holds it."""
    m = re.search(rf"pub const {name}: f32 = ([0-9.]+);", WEIGHTS.read_text())
    if not m:
        sys.exit(f"{name} not found in {WEIGHTS}")
    return float(m.group(1))


# A configuration-only change's run tier asks this many times the threshold (tests_to_run.rs's calibrate).
CONFIGURATION_THRESHOLD_FACTOR = rate("COMMITS_EDITING_A_TEST_CODE") / rate("COMMITS_EDITING_A_TEST_CONFIGURATION")


def tiers(predicted, threshold):
    """Mean run-tier size, and the share of samples whose run tier holds a
    labelled test / every labelled test (of those listed). A group of a
    configuration-only change asks CONFIGURATION_THRESHOLD_FACTOR times more."""
    sizes, any_hit, all_hit = [], 0, 0
    for group, ps in predicted:
        configuration = group[0][0][4] == 1.0
        t = threshold * CONFIGURATION_THRESHOLD_FACTOR if configuration else threshold
        run = [l for (_, l), p in zip(group, ps) if p >= t]
        labelled = sum(l for _, l in group)
        sizes.append(len(run))
        any_hit += any(run)
        all_hit += labelled > 0 and sum(run) == labelled
    n = max(len(predicted), 1)
    return {"threshold": threshold, "mean_size": round(sum(sizes) / n, 2), "holds_a_labelled": round(any_hit / n, 3), "holds_every_listed_label": round(all_hit / n, 3)}


def write(w, threshold):
    text = WEIGHTS.read_text()
    for name, value in list(zip(CONSTANTS, w)) + [(THRESHOLD, threshold)]:
        text, n = re.subn(rf"(pub const {name}: f32 = )-?[0-9.]+;", lambda m: f"{m.group(1)}{value:.3f};", text)
        if n != 1:
            sys.exit(f"{name} not found once in {WEIGHTS}")
    WEIGHTS.write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("samples", nargs="+")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    samples = [json.loads(l) for f in a.samples for l in open(f) if l.strip()]
    by_repo = collections.defaultdict(list)
    for s in samples:
        by_repo[s["repo"]].append(s)
    predicted, kinds = [], []
    for repo, own in sorted(by_repo.items()):
        w = fit(rows_of([s for s in samples if s["repo"] != repo]))
        predicted += [(g, predict(w, g)) for g in rows_of(own)]
        kinds += ["configuration" if s.get("configuration_only") else "code" for s in own if s["candidates"]]
    pairs = [(p, l) for g, ps in predicted for (_, l), p in zip(g, ps)]
    table, ece = reliability(pairs)
    by_threshold = [tiers(predicted, t) for t in THRESHOLDS]
    chosen = next((t for t in by_threshold if t["mean_size"] <= MAX_RUN_TIER), by_threshold[-1])
    by_kind = {}
    for kind in sorted(set(kinds)):
        mine = [x for x, k in zip(predicted, kinds) if k == kind]
        kind_table, kind_ece = reliability([(p, l) for g, ps in mine for (_, l), p in zip(g, ps)])
        by_kind[kind] = {"samples": len(mine), "reliability": kind_table, "expected_calibration_error": kind_ece,
                         "run_tier": tiers(mine, chosen["threshold"])}
    final = fit(rows_of(samples))
    report = {
        "samples": len(samples), "repositories": len(by_repo), "listed_tests": len(pairs),
        "leave_one_repository_out": {"reliability": table, "expected_calibration_error": ece, "run_tier": by_threshold, "chosen": chosen,
                                     "by_kind": by_kind},
        "fitted_on_all": dict(zip(CONSTANTS, [round(float(x), 3) for x in final])),
    }
    print(json.dumps(report, indent=1))
    if a.write:
        write([float(x) for x in final], chosen["threshold"])
        print(f"wrote {WEIGHTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
