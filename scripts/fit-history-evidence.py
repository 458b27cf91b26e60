#!/usr/bin/env python3
"""History as ranking evidence, fitted where no benchmark is: how much the
files that past commits similar to a question changed should move a file
up the answer, fitted on mined change notes (`mine-change-notes.py`), held
out by repository, then scored on the dev sets' recorded pools
(`rank-harness.py record`) side by side.

The rule fitted (the first file of today's order is never moved — fused
blindly, history cost the first place on every set):

    file score = 1 / (RRF_K + its rank in today's order)
               + weight * sum over the question's commits c that changed it,
                          of (score_c / best score) / files_changed_c ** breadth

for the files after the first, re-sorted; test, documentation and change-note
files take no history evidence (a fix's commit touches them all, and they are
not where a fix goes). `weight` and `breadth` are chosen on the other
repositories' notes by a grid (Acc@3 + Acc@5, then MRR), and the
held-out figures are each repository's notes ranked with the choice made
without it.

    fit-history-evidence.py [--notes scripts/ranking-data/change-notes.jsonl.gz | DIR] [--harness DIR]
                            [--sets lite,verified,mulocbench]

The notes (2,412 of 26 repositories, 2026-12-06) are kept in
scripts/ranking-data/change-notes.jsonl.gz; the harness's pools are
machine-local (`rank-harness.py record`, about 40 minutes for the three sets).
"""
from __future__ import annotations

import argparse
import collections
import functools
import gzip
import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("mine_ranking", HERE / "mine-ranking.py")
mine = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mine)
notes_spec = importlib.util.spec_from_file_location("notes", HERE / "mine-change-notes.py")
notes_mod = importlib.util.module_from_spec(notes_spec)
notes_spec.loader.exec_module(notes_mod)

RRF_K = 60
KS = (1, 3, 5, 10)
WEIGHTS = (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08)
BREADTHS = (0.0, 0.5, 1.0)
DEPTHS = (10, 20, 50)


@functools.cache
def takes_history(path: str) -> bool:
    """Code a fix goes into: not tests, docs, examples or change notes."""
    return mine.extension(path) in mine.CODE and not mine.is_test(path) and not mine.is_excluded(path) and not notes_mod.is_note(path)


def read_rows(notes: Path | None, harness: Path | None, sets: list[str]) -> list[dict]:
    rows = []
    if notes:
        files = [notes] if notes.is_file() else sorted(notes.glob("*.jsonl"))
        for f in files:
            for l in (gzip.open(f, "rt") if f.suffix == ".gz" else open(f)):
                r = json.loads(l)
                rows.append({"set": "notes", "repo": r["repo"], "id": r["commit"], "files": r["files"], "gold": set(r["targets"]),
                             "history": r["history"], "intent": r.get("intent")})
    if harness:
        for s in sets:
            f = harness / f"{s}.jsonl"
            if not f.exists():
                continue
            for l in open(f):
                r = json.loads(l)
                files = []
                for res in r["pools"]["shipped"]["results"]:
                    if res["path"] not in files:
                        files.append(res["path"])
                rows.append({"set": s, "repo": r["repo"], "id": r["id"], "files": files, "gold": set(r["gold"]),
                             "history": r.get("history") or [], "intent": r["pools"]["shipped"]["analysis"]["intent"]})
    return rows


def evidence(row: dict, depth: int, breadth: float) -> dict[str, float]:
    key = (depth, breadth)
    cache = row.setdefault("_evidence", {})
    if key not in cache:
        cache[key] = compute_evidence(row, depth, breadth)
    return cache[key]


def compute_evidence(row: dict, depth: int, breadth: float) -> dict[str, float]:
    commits = row["history"][:depth]
    if not commits:
        return {}
    best = max(c["score"] for c in commits) or 1.0
    out: dict[str, float] = collections.defaultdict(float)
    for c in commits:
        share = (c["score"] / best) / max(1, c["files_changed"]) ** breadth
        for f in c["files"]:
            if takes_history(f):
                out[f] += share
    return out


def reorder(row: dict, weight: float, depth: int, breadth: float) -> list[str]:
    files = row["files"]
    if weight == 0 or len(files) < 2:
        return files
    ev = evidence(row, depth, breadth)
    rest = sorted(range(1, len(files)), key=lambda i: -(1 / (RRF_K + i + 1) + weight * ev.get(files[i], 0.0)))
    return [files[0]] + [files[i] for i in rest]


def first_gold(order: list[str], gold: set[str]) -> int | None:
    return next((i + 1 for i, f in enumerate(order) if f in gold), None)


def scores(rows: list[dict], orders: list[list[str]]) -> dict[str, float]:
    ranks = [first_gold(o, r["gold"]) for r, o in zip(rows, orders)]
    n = max(1, len(rows))
    out = {f"@{k}": sum(1 for x in ranks if x and x <= k) / n for k in KS}
    out["mrr"] = sum(1 / x for x in ranks if x) / n
    return out


def objective(s: dict) -> tuple:
    return (s["@3"] + s["@5"], s["mrr"])


def fit(rows: list[dict]) -> tuple:
    best = None
    for w in WEIGHTS:
        for b in BREADTHS:
            for d in DEPTHS:
                s = scores(rows, [reorder(r, w, d, b) for r in rows])
                key = objective(s)
                if best is None or key > best[0]:
                    best = (key, (w, d, b))
    return best[1]


def fmt(s: dict) -> str:
    return " / ".join(f"{s[f'@{k}']:.3f}" for k in KS) + f"  mrr {s['mrr']:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=Path, default=HERE / "ranking-data" / "change-notes.jsonl.gz")
    ap.add_argument("--harness", type=Path)
    ap.add_argument("--sets", default="lite,verified,mulocbench")
    ap.add_argument("--intent", default="", help="only rows of this intent (e.g. document)")
    a = ap.parse_args()
    rows = read_rows(a.notes, a.harness, a.sets.split(","))
    if a.intent:
        rows = [r for r in rows if r["intent"] == a.intent]
    notes = [r for r in rows if r["set"] == "notes"]
    by_repo = collections.defaultdict(list)
    for r in notes:
        by_repo[r["repo"]].append(r)
    print(f"notes: {len(notes)} of {len(by_repo)} repositories; intents {collections.Counter(r['intent'] for r in notes).most_common()}")
    held: list[list[str]] = []
    held_rows: list[dict] = []
    choices = collections.Counter()
    for repo, rs in sorted(by_repo.items()):
        train = [r for r in notes if r["repo"] != repo]
        w, d, b = fit(train)
        choices[(w, d, b)] += 1
        before, after = scores(rs, [r["files"] for r in rs]), scores(rs, [reorder(r, w, d, b) for r in rs])
        print(f"  {repo:40} {len(rs):4}  today {fmt(before)}  held out {fmt(after)}  (w {w}, depth {d}, breadth {b})")
        held += [reorder(r, w, d, b) for r in rs]
        held_rows += rs
    if notes:
        print(f"notes, held out by repository: today {fmt(scores(held_rows, [r['files'] for r in held_rows]))}")
        print(f"                               history {fmt(scores(held_rows, held))}")
        print(f"choices: {choices.most_common()}")
        w, d, b = fit(notes)
        print(f"fitted on all notes: weight {w}, depth {d}, breadth {b}")
    else:
        w, d, b = 0.01, 20, 0.5
    for s in a.sets.split(","):
        rs = [r for r in rows if r["set"] == s]
        if not rs:
            continue
        print(f"{s:12} {len(rs):4}  today {fmt(scores(rs, [r['files'] for r in rs]))}")
        print(f"{'':12} {'':4}  +hist {fmt(scores(rs, [reorder(r, w, d, b) for r in rs]))}")
        per = collections.defaultdict(list)
        for r in rs:
            per[r["repo"]].append(r)
        for repo, xs in sorted(per.items()):
            t, h = scores(xs, [r["files"] for r in xs]), scores(xs, [reorder(r, w, d, b) for r in xs])
            print(f"    {repo:36} {len(xs):3}  {fmt(t)}  ->  {fmt(h)}")


if __name__ == "__main__":
    main()
