#!/usr/bin/env python3
"""An offline chunk ranker: LambdaMART reorders each question's recorded
candidate chunks (`scripts/rank-harness.py record*` pools), with a file
model's held-out score (`scripts/fit-file-ranking.py`) as one of its inputs
beside the stage's own per-chunk numbers. Does it beat the shipped order?

Candidates per question: the shipped pool's chunks (what each benchmark
scores: semble and the kit 10, the issue sets 50), and with `--wide N` the
first N chunks of the wide pool (`--limit 200`) that the shipped pool lacks,
after them (the issue sets keep their shipped 50). The base order is the
shipped one, then the wide pool's new chunks in its order; `--prior C`
starts the trees from C / (1 + place in the base order), so the trees learn
corrections to today's order.

Each chunk's inputs: the stage's features (missing: 0, and a flag), each
retriever list's 1/rank, its place in the shipped, wide and base orders,
its score over the candidates' best, its lines (log), how many candidates
its file has and its place among them, the question's intent, and with
`--file-model` its file's score by the file model (min-max within the
question) and that file's rank.

Labels, credited in the base order as each benchmark credits a ranking:
semble by run.py's rule (the number of targets the chunk is the first to
cover, at most 2: its targets are nearly all whole files, so a gold file's
second chunk is 0); the kit by score.py's credit_chunks (the grade of the
gold entry the chunk is credited with); docs 2 for the first chunk holding
the definition's line, 1 another in its file; issue sets 2 where the chunk
overlaps a gold span, 1 in a gold file.

Everything is held out by repository: K folds of repositories by a stable
hash of the repository's short lowercase name (one repository is in one
fold under every set). The file model is nested: a question of fold k is
scored by a file model fitted without fold k, and the chunk model of fold k
learns from questions of fold j != k whose file scores came from a file
model fitted without folds k and j, so no input of fold k's ranking ever saw
fold k's labels.

Prints, for shipped and the model: semble chunk nDCG@10 (by category), the
kit's and kit-vectors' (score.py), docs (with `--docs`), the issue sets'
file Acc@1/3/5/10; per-question and per-repository wins and losses against
shipped; and the time the fits took. `--seed` refits with another LightGBM
seed: how far a figure moves by chance (semble about +-0.002, lite Acc@1
about +-0.04, i.e. two questions).

    fit-chunk-ranking.py POOLS [--train semble,kit] [--docs FILE] [--wide N] [--file-model]
                         [--file-train SETS] [--prior C] [--rounds N] [--folds K] [--seed S] [--importance]

    # e.g. (b) with the file model, over the wide pool's first 30 chunks:
    fit-chunk-ranking.py /work/harness --train semble,kit,mulocbench,lite,verified --wide 30 --file-model \\
        | tee /work/fits/chunk-b-wide30-file.log

Needs `pip install lightgbm numpy`.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import importlib.util
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


harness = load("rank_harness", HERE / "rank-harness.py")
files_fit = load("fit_file_ranking", HERE / "fit-file-ranking.py")
semble_run = sys.modules.get("semble_run") or harness.load_module("semble_run", harness.EVAL / "semble" / "run.py")
kit_score = sys.modules.get("kit_score") or harness.load_module("kit_score", harness.EVAL / "score.py")

# Sets scored by chunks (by run.py's rule, or score.py's), and by files.
CHUNK_SETS = {"semble": harness.semble_table, "kit": harness.kit_table, "kit-vectors": harness.kit_table, "docs": harness.semble_table}
ISSUE_SETS = ("lite", "verified", "mulocbench")
LISTS = files_fit.LISTS
INTENTS = files_fit.INTENTS
# A grade per chunk, at most this: nDCG rewards a chunk once however many targets it covers.
MAX_GRADE = 2
PARAMS = {
    "objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "learning_rate": 0.05, "num_leaves": 7,
    "min_data_in_leaf": 10, "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0,
    # One thread: this runs beside a compiler on a small machine.
    "num_threads": 1, "deterministic": True, "seed": 7, "verbose": -1,
}
ROUNDS = 150
# Inputs whose direction is known: earlier in today's order, a higher stage score, a better file score is never worse.
MONOTONE_UP = {"base_order", "shipped_order", "score_over_best", "file_model", "file_model_rank"}


def short(repo: str) -> str:
    """A repository's short lowercase name, the same under every set
    (MULocBench's `psf/requests`, the kit's `requests`, docs' `psf+requests`)."""
    return repo.replace("+", "/").rsplit("/", 1)[-1].lower()


def fold_of(repo: str, folds: int) -> int:
    return int(hashlib.sha1(short(repo).encode()).hexdigest(), 16) % folds


def uid(row: dict) -> tuple:
    """A question's name: the kit and kit-vectors share their ids."""
    return (row["set"], row["id"])


def key(c: dict) -> tuple:
    return (c["path"], c["start_line"], c["end_line"])


def candidates(row: dict, wide: int) -> list[dict]:
    """The shipped chunks, then (for the chunk-scored sets, with `wide`) the
    wide pool's first `wide` chunks that the shipped pool lacks, each with its
    place in either pool."""
    shipped = row["pools"]["shipped"]["results"]
    wide_results = row["pools"]["wide"]["results"]
    wide_at = {}
    for j, c in enumerate(wide_results):
        wide_at.setdefault(key(c), j)
    out, seen = [], set()
    for i, c in enumerate(shipped):
        if key(c) in seen:
            continue
        seen.add(key(c))
        out.append(dict(c, shipped_at=i, wide_at=wide_at.get(key(c))))
    if wide and row["set"] not in ISSUE_SETS:
        for j, c in enumerate(wide_results[:wide]):
            if key(c) not in seen:
                seen.add(key(c))
                out.append(dict(c, shipped_at=None, wide_at=j))
    return out


def relative(row: dict, path: str) -> str:
    root = row.get("root") or ""
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path


def grades(row: dict, cands: list[dict]) -> np.ndarray:
    """Each candidate's label, credited as its benchmark credits, in the base
    order: a target (semble, docs) or gold entry (the kit) counts once, for
    the first candidate that covers it, since a second chunk on it adds
    nothing to nDCG (semble's targets are nearly all whole files: a gold
    file's second chunk is worth nothing). Issue sets are scored by distinct
    files, where a file's later chunks cost nothing: every chunk of a gold
    file is 1, 2 where it overlaps a gold span."""
    s = row["set"]
    if s in ("kit", "kit-vectors"):
        return np.array(kit_score.credit_chunks(cands, row["kit_gold"], len(cands))[0])
    if s in ("semble", "docs"):
        covered: set[int] = set()
        out = []
        for c in cands:
            path = relative(row, c["path"])
            new = {i for i, t in enumerate(row["targets"]) if i not in covered and semble_run.covers(path, c["start_line"], c["end_line"], t)}
            covered |= new
            if s == "semble":
                out.append(min(len(new), MAX_GRADE))
            else:
                # docs: the definition's chunk 2, another chunk of its file 1.
                out.append(2 if new else int(any(semble_run.path_matches(path, t["path"]) for t in row["targets"])))
        return np.array(out)
    out = []
    for c in cands:
        spans = row["gold"].get(c["path"])
        out.append(0 if spans is None else 2 if any(not (c["end_line"] < a or c["start_line"] > b) for a, b in spans) else 1)
    return np.array(out)


def chunk_table(row: dict, cands: list[dict], stage_names: list[str], file_score: dict[str, float] | None) -> tuple[list[str], np.ndarray]:
    """Each candidate's inputs, in the base order; the names of the columns."""
    top = max((c["score"] or 0.0 for c in cands), default=0.0) or 1.0
    intent = (row["pools"]["shipped"].get("analysis") or {}).get("intent")
    per_file = collections.Counter(c["path"] for c in cands)
    within = collections.Counter()
    if file_score is not None:
        values = list(file_score.values()) or [0.0]
        low, high = min(values), max(values)
        span = (high - low) or 1.0
        file_rank = {p: i for i, p in enumerate(sorted(file_score, key=lambda p: -file_score[p]))}
    names, table = [], []
    for p, c in enumerate(cands):
        f: dict[str, float] = {}
        f["base_order"] = 1.0 / (1 + p)
        f["shipped_order"] = 1.0 / (1 + c["shipped_at"]) if c["shipped_at"] is not None else 0.0
        f["wide_order"] = 1.0 / (1 + c["wide_at"]) if c["wide_at"] is not None else 0.0
        f["in_shipped"] = float(c["shipped_at"] is not None)
        f["score_over_best"] = (c["score"] or 0.0) / top
        f["lines"] = math.log1p(max(c["end_line"] - c["start_line"] + 1, 1))
        f["file_chunks"] = math.log1p(per_file[c["path"]])
        f["within_file"] = 1.0 / (1 + within[c["path"]])
        within[c["path"]] += 1
        for name in LISTS:
            rank = c["lists"].get(name)
            f[f"list:{name}"] = 1.0 / rank if rank else 0.0
        features = c.get("features") or {}
        f["has_features"] = float(bool(features))
        for name in stage_names:
            f[f"stage:{name}"] = float(features.get(name, 0.0) or 0.0)
        for name in INTENTS:
            f[f"q:{name}"] = float(intent == name)
        if file_score is not None:
            if c["path"] in file_score:
                f["file_model"] = (file_score[c["path"]] - low) / span
                f["file_model_rank"] = 1.0 / (1 + file_rank[c["path"]])
            else:
                f["file_model"] = 0.0
                f["file_model_rank"] = 0.0
        if not names:
            names = list(f)
        table.append([f[n] for n in names])
    return names, np.array(table, dtype=np.float64).reshape(len(cands), len(names) if names else 0)


def file_scores_out_of_fold(rows: list[dict], train_sets: set[str], folds: int) -> tuple[dict, float]:
    """The file model's scores, nested: scores[E][question id] = {path: score}
    by a file model fitted on the training questions of every fold outside E
    (E one fold: how its questions are ranked; two folds {k, j}: the inputs
    that fold j's questions give fold k's chunk model)."""
    files_fit.HISTORY = True
    files_fit.PARAMS["num_threads"] = 1
    data, names = files_fit.dataset(rows)
    train = [d for d in data if d["row"]["set"] in train_sets]
    out: dict[frozenset, dict] = {}
    t0 = time.time()
    for k in range(folds):
        for j in range(k, folds):
            excluded = frozenset({k, j})
            fitted_on = [d for d in train if fold_of(d["row"]["repo"], folds) not in excluded]
            scored = [d for d in data if fold_of(d["row"]["repo"], folds) in excluded]
            assert not {short(d["row"]["repo"]) for d in fitted_on} & {short(d["row"]["repo"]) for d in scored}
            model = files_fit.fit(fitted_on, names)
            out[excluded] = {uid(d["row"]): dict(zip(d["files"], files_fit.scores(model, d))) for d in scored}
    return out, time.time() - t0


def build(rows: list[dict], wide: int, stage_names: list[str], file_scores: dict | None, folds: int) -> list[dict]:
    """Per question: candidates, labels, and its inputs as each fold's chunk
    model sees them (`X[k]`: with the file scores fold k may see)."""
    data = []
    for row in rows:
        cands = candidates(row, wide)
        if not cands:
            data.append({"row": row, "cands": [], "y": np.zeros(0), "X": {}})
            continue
        y = grades(row, cands)
        mine = fold_of(row["repo"], folds)
        if file_scores is None:
            # Without the file model every fold sees the same inputs.
            names, same = chunk_table(row, cands, stage_names, None)
            X = {k: same for k in range(folds)}
        else:
            X = {}
            for k in range(folds):
                names, X[k] = chunk_table(row, cands, stage_names, file_scores[frozenset({k, mine})].get(uid(row), {}))
        data.append({"row": row, "cands": cands, "y": y, "X": X, "fold": mine, "names": names})
    return data


def prior(n: int, strength: float) -> np.ndarray:
    return strength / (1 + np.arange(n))


def fit(train: list[dict], k: int, names: list[str], strength: float, rounds: int):
    import lightgbm as lgb
    usable = [d for d in train if len(d["y"]) and d["y"].any()]
    X = np.vstack([d["X"][k] for d in usable])
    y = np.concatenate([d["y"] for d in usable])
    groups = [len(d["y"]) for d in usable]
    init = np.concatenate([prior(len(d["y"]), strength) for d in usable]) if strength else None
    params = dict(PARAMS, monotone_constraints=[1 if n in MONOTONE_UP else 0 for n in names],
                  label_gain=[float(2 ** g - 1) for g in range(MAX_GRADE + 1)])
    return lgb.train(params, lgb.Dataset(X, y, group=groups, init_score=init), num_boost_round=rounds)


def report(data: list[dict], orders: dict[str, dict]) -> None:
    rows_by_set = collections.defaultdict(list)
    for d in data:
        rows_by_set[d["row"]["set"]].append(d["row"])
    for s, table_of in CHUNK_SETS.items():
        rows = rows_by_set.get(s)
        if not rows:
            continue
        base = None
        for name, order in orders.items():
            t = table_of(rows, lambda r: order[uid(r)])
            cats = " ".join(f"{c} {v:.3f}" for c, v in sorted(t["categories"].items()))
            print(f"{s:11s} {name:8s} n={t['n']:4d} chunk nDCG@10 {t['ndcg10']:.3f} ({cats})")
            if name != "shipped":
                # Per question: how many the model ranks better or worse than shipped (the rest tie).
                score_of = harness.semble_ndcg if table_of is harness.semble_table else (
                    lambda r, cs: kit_score.chunk_metrics(cs[:harness.SEMBLE_LIMIT], r["kit_gold"])["ndcg@10"])
                deltas = [score_of(r, order[uid(r)]) - score_of(r, orders["shipped"][uid(r)]) for r in rows]
                print(f"{s:11s} {name:8s} questions against shipped: {sum(x > 1e-9 for x in deltas)} better, {sum(x < -1e-9 for x in deltas)} worse")
            if "repos" in t:
                if base is None:
                    base = t["repos"]
                else:
                    better = [k for k in base if t["repos"][k] > base[k] + 1e-9]
                    worse = [k for k in base if t["repos"][k] < base[k] - 1e-9]
                    lost = ", ".join(f"{k} {t['repos'][k] - base[k]:+.3f}" for k in sorted(worse))
                    print(f"{s:11s} {name:8s} repositories against shipped: {len(better)} better, {len(worse)} worse  (worse: {lost})")
    rows = [r for s in ISSUE_SETS for r in rows_by_set.get(s, [])]
    if not rows:
        return
    tables = {name: harness.table(rows, lambda r, o=order: harness.distinct_files(o[uid(r)])) for name, order in orders.items()}
    for s in tables["shipped"]:
        for name, t in tables.items():
            acc = " / ".join(f"{t[s]['acc'][k]:.3f}" for k in harness.KS)
            print(f"{s:11s} {name:8s} n={t[s]['n']:4d} file Acc@1/3/5/10 {acc}")
        for name, t in tables.items():
            if name == "shipped":
                continue
            wins = losses = 0
            for repo, acc in t[s]["repos"].items():
                base = tables["shipped"][s]["repos"][repo]
                delta = acc[1] - base[1] + acc[5] - base[5]
                wins += delta > 1e-9
                losses += delta < -1e-9
            print(f"{s:11s} {name:8s} repositories (Acc@1 + Acc@5 against shipped): {wins} better, {losses} worse")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pools", help="the harness's folder (OUT of rank-harness.py record*)")
    ap.add_argument("--train", default="semble,kit", help="the sets the chunk model learns from (comma separated)")
    ap.add_argument("--file-train", default="", help="the sets the file model learns from (default: --train)")
    ap.add_argument("--docs", default="", help="a docs file in the harness's format (e.g. POOLS/docs-50.jsonl), scored and trainable as `docs`")
    ap.add_argument("--wide", type=int, default=0, help="add the wide pool's first N chunks to the chunk-scored sets' candidates")
    ap.add_argument("--file-model", action="store_true", help="with the file model's held-out score of each chunk's file")
    ap.add_argument("--prior", type=float, default=1.0, help="start the trees from PRIOR / (1 + base place); 0: from nothing")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=PARAMS["seed"], help="LightGBM's seed (bagging, feature sampling): how much a figure moves by chance")
    ap.add_argument("--importance", action="store_true")
    a = ap.parse_args()
    PARAMS["seed"] = files_fit.PARAMS["seed"] = a.seed
    t_start = time.time()
    rows = harness.rows_of(Path(a.pools), ["semble", "kit", "kit-vectors"] + list(ISSUE_SETS))
    if a.docs:
        rows += [json.loads(line) for line in open(a.docs) if line.strip()]
    # A question whose pools are empty (the recording failed) is left out, as fit-file-ranking.py's dataset does.
    rows = [r for r in rows if r["pools"]["shipped"]["results"] and r["pools"]["wide"]["results"]]
    train_sets = set(a.train.split(","))
    file_train = set(a.file_train.split(",")) if a.file_train else train_sets
    stage = collections.Counter(n for r in rows if r["set"] in train_sets for c in r["pools"]["wide"]["results"] for n in c["features"])
    # The stage's features seen often enough to learn from (a rare one is mostly 0).
    stage_names = sorted(n for n, count in stage.items() if count >= 50)
    print(f"{len(rows)} questions; chunk model trains on {sorted(train_sets)}, wide {a.wide}, "
          f"file model {'on ' + ','.join(sorted(file_train)) if a.file_model else 'off'}, prior {a.prior}, rounds {a.rounds}", file=sys.stderr)
    file_scores, file_s = (file_scores_out_of_fold(rows, file_train, a.folds) if a.file_model else (None, 0.0))
    data = build(rows, a.wide, stage_names, file_scores, a.folds)
    names = next(d["names"] for d in data if d["cands"])
    train = [d for d in data if d["row"]["set"] in train_sets and d["cands"]]
    sizes = collections.Counter(d["fold"] for d in train)
    print("folds (training questions, repositories): " + ", ".join(
        f"{k}: {sizes[k]}, {len({short(d['row']['repo']) for d in train if d['fold'] == k})}" for k in range(a.folds)))
    # Out of fold: no repository of fold k (by its short name, under any set) in fold k's training.
    t0 = time.time()
    models = {}
    for k in range(a.folds):
        fold_train = [d for d in train if d["fold"] != k]
        assert not {short(d["row"]["repo"]) for d in fold_train} & {short(d["row"]["repo"]) for d in data if d["cands"] and d["fold"] == k}
        models[k] = fit(fold_train, k, names, a.prior, a.rounds)
    chunk_s = time.time() - t0
    order = {}
    for d in data:
        if not d["cands"]:
            order[uid(d["row"])] = []
            continue
        k = d["fold"]
        s = models[k].predict(d["X"][k]) + prior(len(d["cands"]), a.prior)
        order[uid(d["row"])] = [d["cands"][i] for i in sorted(range(len(s)), key=lambda i: (-s[i], i))]
    orders = {"shipped": {uid(d["row"]): d["row"]["pools"]["shipped"]["results"] for d in data}, "model": order}
    print(f"{len(train)} training questions of {len({short(d['row']['repo']) for d in train})} repositories, {len(names)} inputs")
    report(data, orders)
    print(f"time: file model {file_s:.0f}s, chunk model {chunk_s:.0f}s ({a.folds} folds), all {time.time() - t_start:.0f}s")
    if a.importance:
        gain = sum(m.feature_importance("gain") for m in models.values())
        for n, g in sorted(zip(names, gain), key=lambda x: -x[1])[:25]:
            print(f"  {n:28s} {g / gain.sum():.3f}")


if __name__ == "__main__":
    main()
