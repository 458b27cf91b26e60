#!/usr/bin/env python3
"""A file ranker for issue reports, fitted on real issues and scored on the
offline harness's recorded pools (`scripts/rank-harness.py record`).

Each file of an issue's wide pool (`--limit 200`) is one row: aggregates of
its chunks' numbers (the fused order, each list's best rank, the stage's
features at their best, how many chunks) and what the issue says of it (a
path, a stack frame, a name it defines). LightGBM's LambdaMART orders the
files. Every figure is held out by repository: an issue is ranked by a
model fitted on the training set's other repositories only. The training
set is MULocBench's dev half (real issues of 19 fetchable repositories, the
benchmark's own labels) by default; SWE-bench Lite and Verified dev are its
test sets (`--train mulocbench,lite,verified` pools all three, still held
out by repository: flask and requests are in MULocBench and SWE-bench both).

    fit-file-ranking.py POOLS [--train SETS] [--history] [--learner lambdamart|linear]
                        [--prior P [--prior-kind place|score]] [--rounds N] [--drop a,b] [--importance]
                        [--folds K] [--fraction F] [--finetune SETS [--finetune-rounds N]] [--dump FILE]

`--history` adds the history store's evidence per file (the commits before
the issue that changed it: best rank, score shared by the files a commit
changed, count); `--prior P` starts the trees from the shipped order
(P / (1 + place), or P x the file's best stage score with `--prior-kind
score`); `--fraction F` trains on a stable share F of the mined questions
(the learning curve); `--finetune SETS` fits the other training sets first,
then `--finetune-rounds` more trees on SETS' questions from those scores.
The mined sets (`notes`, `docs`, `readme`, `tests`: MINED) come from the
`scripts/mine-*-questions.py` and `mine-change-notes.py --pools` miners.

Prints file Acc@1/3/5/10 by set: the shipped order, the wide pool's order,
and the model, with per-repository wins and losses against shipped.
Needs `pip install lightgbm numpy`.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import importlib.util
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("rank_harness", HERE / "rank-harness.py")
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)
spec = importlib.util.spec_from_file_location("history_evidence", HERE / "fit-history-evidence.py")
evidence = importlib.util.module_from_spec(spec)
spec.loader.exec_module(evidence)
# What `query` ships (src/query/base/parameters.rs: HISTORY_EVIDENCE_*).
EVIDENCE_WEIGHT, EVIDENCE_COMMITS, EVIDENCE_BREADTH = 0.002, 20, 0.5

LISTS = ["bm25", "exact", "symbol", "dense", "graph", "callees", "patterns", "paths", "literals"]
STAGE = ["file_words", "chunk_words", "span", "bm25", "file_support", "path_words", "name_parts", "stem_words", "file_named",
         "symbol_word", "type_decl", "name_as_written", "whole_name", "symbol", "aside", "named_by_question", "code_name",
         "exact", "test", "prose", "prior:role"]
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TEST_PATH = re.compile(r"(^|/)(tests?|testing|spec)(/|$)|(^|/)test_[^/]*$|_test\.\w+$|\.spec\.\w+$")
PARAMS = {
    "objective": "lambdarank", "metric": "ndcg", "eval_at": [1, 5], "learning_rate": 0.05, "num_leaves": 7,
    "min_data_in_leaf": 10, "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0,
    "num_threads": 2, "deterministic": True, "seed": 7, "verbose": -1,
}
ROUNDS = 150


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def file_rows(row: dict, pool: str = "wide") -> tuple[list[str], list[list[float]], list[str]]:
    """The files of a pool, in its order, each with its inputs (named by the returned names)."""
    results = row["pools"][pool]["results"]
    signals = (row["pools"][pool].get("analysis") or {}).get("signals") or {}
    mentioned_paths = set(signals.get("paths") or [])
    frames = {f if isinstance(f, str) else f.get("path", "") for f in (signals.get("frames") or [])}
    identifiers = {i.lower() for i in (signals.get("identifiers") or []) if isinstance(i, str)}
    qwords = words(row["query"])
    qtext = row["query"].lower()
    top = max((r["score"] or 0.0 for r in results), default=0.0) or 1.0
    files = harness.distinct_files(results)
    shipped = {p: i for i, p in enumerate(harness.distinct_files(row["pools"]["shipped"]["results"]))}
    chunks = collections.defaultdict(list)
    for i, r in enumerate(results):
        chunks[r["path"]].append((i, r))
    # The history's evidence per file: the commits (older than the issue) that changed it, by their rank and score.
    hist_score: dict[str, float] = collections.defaultdict(float)
    hist_best: dict[str, int] = {}
    hist_count: dict[str, int] = collections.defaultdict(int)
    commits = row.get("history") or []
    for rank, c in enumerate(commits, 1):
        for p in c["files"]:
            hist_score[p] += c["score"] / max(c["files_changed"], 1)
            hist_best.setdefault(p, rank)
            hist_count[p] += 1
    hist_top = max(hist_score.values(), default=0.0) or 1.0
    question = question_inputs(row) if QUESTION else {}
    names: list[str] = []
    table = []
    for order, path in enumerate(files):
        cs = chunks[path]
        f: dict[str, float] = {}
        f["file_order"] = 1.0 / (1 + order)
        f["shipped_order"] = 1.0 / (1 + shipped[path]) if path in shipped else 0.0
        f["first_position"] = 1.0 / (1 + cs[0][0])
        f["chunks"] = math.log1p(len(cs))
        f["best_score"] = max(r["score"] or 0.0 for _, r in cs) / top
        f["score_sum"] = sum(r["score"] or 0.0 for _, r in cs) / top
        for name in LISTS:
            ranks = [r["lists"][name] for _, r in cs if r["lists"].get(name)]
            f[f"list:{name}"] = 1.0 / min(ranks) if ranks else 0.0
            f[f"list:{name}:count"] = math.log1p(len(ranks))
        with_features = [r["features"] for _, r in cs if "file_words" in r["features"]]
        f["has_features"] = 1.0 if with_features else 0.0
        for name in STAGE:
            values = [x.get(name, 0.0) for x in with_features] or [0.0]
            f[f"max:{name}"] = max(values)
        roles = [r["features"].get("prior:role") for _, r in cs if "prior:role" in r["features"]]
        f["role"] = roles[0] if roles else 1.0
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        parts = [p.lower() for p in path.split("/")]
        f["path_mentioned"] = 1.0 if any(path.endswith(p) or p.endswith(path) for p in mentioned_paths) else 0.0
        f["path_in_text"] = 1.0 if path.lower() in qtext else 0.0
        f["file_name_in_text"] = 1.0 if parts[-1] in qtext else 0.0
        f["frame"] = 1.0 if any(fr and (path.endswith(fr) or fr.endswith(path)) for fr in frames) else 0.0
        f["stem_in_question"] = 1.0 if stem in qwords else 0.0
        f["folder_words"] = sum(1 for p in parts[:-1] if p in qwords) / max(len(parts) - 1, 1)
        symbols = {(r.get("symbol") or "").rsplit(".", 1)[-1].rsplit("::", 1)[-1].lower() for _, r in cs if r.get("symbol")}
        f["defines_identifier"] = 1.0 if symbols & identifiers else 0.0
        f["defines_question_word"] = len(symbols & qwords) / max(len(symbols), 1)
        f["test_path"] = 1.0 if TEST_PATH.search(path) else 0.0
        f["depth"] = float(path.count("/"))
        if QUESTION:
            f.update(question)
        if HISTORY:
            f["history_score"] = hist_score.get(path, 0.0) / hist_top
            f["history_best"] = 1.0 / hist_best[path] if path in hist_best else 0.0
            f["history_commits"] = math.log1p(hist_count.get(path, 0))
        for name in DROPPED:
            f.pop(name, None)
        if not names:
            names = list(f)
        table.append([f[n] for n in names])
    return files, table, names


INTENTS = ("identifier", "keyword", "concept", "mixed", "graph", "document")


def question_inputs(row: dict) -> dict[str, float]:
    """What the question is, the same for each of its files: the trees may
    read a file's inputs differently by it (how long, which intent, how
    sure today's order is of its first file)."""
    shipped = row["pools"]["shipped"]["results"]
    best: dict[str, float] = {}
    for r in shipped:
        best.setdefault(r["path"], r["score"] or 0.0)
    scores = sorted(best.values(), reverse=True) + [0.0, 0.0]
    top = scores[0] or 1.0
    intent = (row["pools"]["shipped"].get("analysis") or {}).get("intent")
    q = {"q:words": math.log1p(len(WORD.findall(row["query"]))), "q:first_margin": (scores[0] - scores[1]) / top,
         "q:files": math.log1p(len(harness.distinct_files(row["pools"]["wide"]["results"])))}
    q.update({f"q:{name}": float(intent == name) for name in INTENTS})
    return q


def dataset(rows: list[dict]):
    data = []
    names = None
    for row in rows:
        files, table, n = file_rows(row)
        if not files:
            continue
        names = names or n
        labels = [1 if p in row["gold"] else 0 for p in files]
        X = np.array(table, dtype=np.float64)
        data.append({"row": row, "files": files, "X": X, "y": np.array(labels), "best_score": X[:, n.index("best_score")]})
    return data, names


# The kinds of question mined from repositories no benchmark holds.
MINED = {"notes", "docs", "readme", "tests"}
MONOTONE_UP = {"file_order", "shipped_order", "first_position", "best_score", "path_mentioned", "path_in_text", "frame", "max:named_by_question"}


LEARNER = "lambdamart"
DROPPED: set[str] = set()
HISTORY = False
QUESTION = False


def fit(train: list[dict], names: list[str]):
    if FINETUNE:
        # Trees on the mined questions first, then more trees on the finetuning sets' questions, starting from the first's scores.
        base = fit_trees([d for d in train if d["row"]["set"] not in FINETUNE], names, None)
        tuned = [d for d in train if d["row"]["set"] in FINETUNE]
        return Stacked(base, fit_trees(tuned, names, base, FINETUNE_ROUNDS))
    return fit_trees(train, names, None)


# Sets whose questions finetune the model fitted on the rest (`--finetune`), and how many trees that adds.
FINETUNE: set[str] = set()
FINETUNE_ROUNDS = 50


class Stacked:
    def __init__(self, base, more):
        self.base, self.more = base, more

    def feature_importance(self, kind):
        return self.base.feature_importance(kind) + self.more.feature_importance(kind)

    def predict_row(self, d):
        return self.base.predict_row(d) + self.more.booster.predict(d["X"])


def fit_trees(train: list[dict], names: list[str], start, rounds: int | None = None):
    if LEARNER == "linear":
        return Linear(train)
    import lightgbm as lgb
    usable = [d for d in train if d["y"].any()]
    X = np.vstack([d["X"] for d in usable])
    y = np.concatenate([d["y"] for d in usable])
    groups = [len(d["y"]) for d in usable]
    params = dict(PARAMS, monotone_constraints=[1 if n in MONOTONE_UP else 0 for n in names])
    if start is not None:
        init = np.concatenate([start.predict_row(d) for d in usable])
    else:
        init = np.concatenate([prior(d) for d in usable]) if PRIOR else None
    return Boosted(lgb.train(params, lgb.Dataset(X, y, group=groups, init_score=init), num_boost_round=rounds or ROUNDS))


# The shipped order as the trees' starting point: each file's score before
# any tree is PRIOR / (1 + its place in the wide pool's order), so the trees
# learn corrections to today's order rather than an order from nothing.
# With PRIOR_KIND "score" it is PRIOR times the stage's score of the file's
# best chunk over the pool's best: a first file far ahead stays ahead.
PRIOR = 0.0
PRIOR_KIND = "place"


def prior(d) -> np.ndarray:
    if PRIOR_KIND == "score":
        return PRIOR * d["best_score"]
    return PRIOR / (1 + np.arange(len(d["files"])))


class Boosted:
    def __init__(self, booster):
        self.booster = booster

    def feature_importance(self, kind):
        return self.booster.feature_importance(kind)

    def predict_row(self, d):
        return self.booster.predict(d["X"]) + (prior(d) if PRIOR else 0.0)


class Linear:
    """Pairwise logistic regression within each issue (a gold file over each
    other file of its pool), on standardized inputs, L2-regularized."""

    def __init__(self, train: list[dict], l2: float = 1.0, steps: int = 300):
        X = np.vstack([d["X"] for d in train])
        self.mean, self.std = X.mean(0), X.std(0) + 1e-9
        diffs = []
        for d in train:
            Z = (d["X"] - self.mean) / self.std
            pos, neg = np.where(d["y"] > 0)[0], np.where(d["y"] == 0)[0]
            if len(pos) and len(neg):
                # Each issue weighs the same, however many pairs it has.
                D = (Z[pos][:, None, :] - Z[neg][None, :, :]).reshape(-1, Z.shape[1])
                diffs.append((D, 1.0 / len(D)))
        D = np.vstack([x for x, _ in diffs])
        w_pair = np.concatenate([np.full(len(x), w) for x, w in diffs])
        w = np.zeros(D.shape[1])
        for _ in range(steps):
            m = D @ w
            p = 1 / (1 + np.exp(m))
            grad = -(D * (w_pair * p)[:, None]).sum(0) + l2 * w
            H = (D * (w_pair * p * (1 - p))[:, None]).T @ D + l2 * np.eye(len(w))
            w -= np.linalg.solve(H, grad)
            if np.abs(grad).max() < 1e-6:
                break
        self.w = w

    def predict(self, X):
        return ((X - self.mean) / self.std) @ self.w


def scores(model, d) -> np.ndarray:
    return model.predict_row(d) if isinstance(model, (Boosted, Stacked)) else model.predict(d["X"])


def ranked(model, d) -> list[str]:
    s = scores(model, d)
    order = sorted(range(len(d["files"])), key=lambda i: (-s[i], i))
    return [d["files"][i] for i in order]


def blended(row: dict, file_score: dict[str, float], weight: float) -> list[dict]:
    """The shipped pool's chunks ordered by the stage's score (over the
    pool's best) plus `weight` x the file model's score of their file (over
    the pool's files, from 0 at the least to 1 at the best): the stage keeps
    its choice of chunks, and the model moves whole files."""
    results = row["pools"]["shipped"]["results"]
    top = max((r["score"] or 0.0 for r in results), default=0.0) or 1.0
    known = [file_score[r["path"]] for r in results if r["path"] in file_score]
    low, high = (min(known), max(known)) if known else (0.0, 1.0)
    span = (high - low) or 1.0
    # With BLEND_LEAD only a file's first chunk takes the model's part: the file moves, its other chunks stay where the stage put them.
    lead = {}
    for i, r in enumerate(results):
        lead.setdefault(r["path"], i)
    moved = lambda i: not BLEND_LEAD or lead[results[i]["path"]] == i
    key = lambda i: -((results[i]["score"] or 0.0) / top + (weight * (file_score.get(results[i]["path"], low) - low) / span if moved(i) else 0.0))
    return [results[i] for i in sorted(range(len(results)), key=lambda i: (key(i), i))]


BLEND_LEAD = False


def blend_report(data: list[dict], file_scores: dict, weights: list[float]) -> None:
    """Each set by its own rule, the model blended into the stage's score at each weight (0: today without history)."""
    for w in weights:
        cells = []
        for s, table_of in CHUNK_SETS.items():
            rows = [d["row"] for d in data if d["row"]["set"] == s]
            if rows:
                cells.append(f"{s} {table_of(rows, lambda r: blended(r, file_scores[r['id']], w))['ndcg10']:.3f}")
        rows = [d["row"] for d in data]
        t = harness.table(rows, lambda r: harness.distinct_files(blended(r, file_scores[r["id"]], w)))
        cells += [f"{s} {v['acc'][1]:.3f}/{v['acc'][5]:.3f}" for s, v in t.items()]
        print(f"blend {w:<5} " + "  ".join(cells))


# Sets scored by chunks (semble dev by run.py's rule, the dev kit by
# score.py's): the file model orders files, then `layout` lays their chunks out.
CHUNK_SETS = {"semble": harness.semble_table, "kit": harness.kit_table, "kit-vectors": harness.kit_table, "docs": harness.semble_table}


def lay_out(row: dict, files: list[str], layout: str) -> list[dict]:
    """The wide pool's chunks in the order of `files`.
    `grouped`: every chunk of a file before the next file's;
    `breadth`: each file's best chunk in file order, then each file's second, ...;
    `depth2`: each file's first two chunks in file order, then the rest."""
    by_file = collections.defaultdict(list)
    for c in row["pools"]["wide"]["results"]:
        by_file[c["path"]].append(c)
    if layout == "grouped":
        return [c for f in files for c in by_file[f]]
    first = 1 if layout == "breadth" else 2
    out: list[dict] = []
    taken = dict.fromkeys(files, 0)
    quota = first
    while len(out) < harness.SEMBLE_LIMIT and any(taken[f] < len(by_file[f]) for f in files):
        for f in files:
            out += by_file[f][taken[f]:taken[f] + quota]
            taken[f] = min(taken[f] + quota, len(by_file[f]))
        quota = 1
    return out


def chunk_report(data: list[dict], model_order: dict, layout: str) -> None:
    for s, table_of in CHUNK_SETS.items():
        rows = [d["row"] for d in data if d["row"]["set"] == s]
        if not rows:
            continue
        rankers = {"shipped": harness.CHUNK_RANKERS["shipped"],
                   f"wide:{layout}": lambda r: lay_out(r, harness.distinct_files(r["pools"]["wide"]["results"]), layout),
                   f"model:{layout}": lambda r: lay_out(r, model_order[r["id"]], layout)}
        base = None
        for name, f in rankers.items():
            t = table_of(rows, f)
            cats = " ".join(f"{c} {v:.3f}" for c, v in sorted(t["categories"].items()))
            print(f"{s:11s} {name:15s} n={t['n']:4d} chunk nDCG@10 {t['ndcg10']:.3f} ({cats})")
            if "repos" in t:
                if base is None:
                    base = t["repos"]
                elif name.startswith("model"):
                    better = sum(t["repos"][k] > base[k] + 1e-9 for k in base)
                    worse = sum(t["repos"][k] < base[k] - 1e-9 for k in base)
                    print(f"{s:11s} repositories against shipped: {better} better, {worse} worse")


def main() -> None:
    global LEARNER, HISTORY, PRIOR, PRIOR_KIND, ROUNDS, QUESTION, FINETUNE_ROUNDS, BLEND_LEAD
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pools")
    ap.add_argument("--train", default="mulocbench")
    ap.add_argument("--importance", action="store_true")
    ap.add_argument("--prior", type=float, default=0.0, help="start the trees from the shipped order, this strong")
    ap.add_argument("--prior-kind", default="place", choices=["place", "score"], help="the prior from the file's place in today's order, or from its stage score")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--dump", default="", help="write each question's file orders (today's, the model's) to this JSON-lines file")
    ap.add_argument("--folds", type=int, default=0, help="hold out K folds of repositories instead of each repository alone")
    ap.add_argument("--drop", default="", help="inputs left out, comma separated")
    ap.add_argument("--finetune", default="", help="training sets fitted second, from the first fit's scores (comma separated)")
    ap.add_argument("--finetune-rounds", type=int, default=FINETUNE_ROUNDS)
    ap.add_argument("--blend", default="", help="weights (comma separated) of the model's file score added to the stage's chunk scores: a table per weight")
    ap.add_argument("--blend-lead", action="store_true", help="blend the model's score into each file's first chunk only")
    ap.add_argument("--fraction", type=float, default=1.0, help="train on this share of the mined questions (a stable sample)")
    ap.add_argument("--history", action="store_true", help="with the history store's evidence per file")
    ap.add_argument("--question", action="store_true", help="with what the question is (length, intent, today's margin for its first file)")
    ap.add_argument("--layout", default="breadth", choices=["grouped", "breadth", "depth2"], help="chunks of the ordered files, for the chunk-scored sets")
    ap.add_argument("--learner", default="lambdamart", choices=["lambdamart", "linear"])
    a = ap.parse_args()
    LEARNER = a.learner
    HISTORY = a.history
    QUESTION = a.question
    PRIOR, PRIOR_KIND, ROUNDS = a.prior, a.prior_kind, a.rounds
    FINETUNE.update(filter(None, a.finetune.split(",")))
    FINETUNE_ROUNDS = a.finetune_rounds
    BLEND_LEAD = a.blend_lead
    for name in filter(None, a.drop.split(",")):
        DROPPED.add(name)
    # `notes`: change notes mined from repositories no benchmark holds, in the
    # harness's format (`mine-change-notes.py --pools`, gathered into OUT/notes.jsonl);
    # `docs`: doc-comment questions (`mine-doc-questions.py --harness`, OUT/docs.jsonl),
    # scored by semble's rule with the definition's lines as the target;
    # `readme`: documentation sentences naming a definition, masked (`mine-readme-questions.py`, OUT/readme.jsonl);
    # `tests`: test names as words, the commit's source files the answer (`mine-test-questions.py`, OUT/tests.jsonl).
    rows = harness.rows_of(Path(a.pools), list(harness.SETS) + ["notes", "readme", "tests"] + list(CHUNK_SETS))
    data, names = dataset(rows)
    train_sets = set(a.train.split(","))
    train = [d for d in data if d["row"]["set"] in train_sets]
    if a.fraction < 1.0:
        # A stable share of the mined questions (the dev sets' are all kept): the learning curve.
        kept_share = lambda d: d["row"]["set"] not in MINED or int(hashlib.sha1(d["row"]["id"].encode()).hexdigest(), 16) % 1000 < a.fraction * 1000
        train = [d for d in train if kept_share(d)]
    print(f"{len(data)} issues, {len(names)} inputs; training on {len(train)} issues of {len({d['row']['repo'] for d in train})} repositories", file=sys.stderr)
    # One model per held-out repository: fitted on the training issues of every other repository.
    # A repository is known by its name alone across sets (MULocBench's
    # `psf/requests`, semble's and the kit's `requests`): it is held out under every set.
    key = lambda repo: repo.rsplit("/", 1)[-1].lower()
    trained = {key(d["row"]["repo"]) for d in train}
    shared = fit(train, names)
    models = {}
    if a.folds:
        # K folds of repositories (by a stable hash of the name) instead of one model per repository: faster, as held out.
        fold_of = lambda repo: int(hashlib.sha1(key(repo).encode()).hexdigest(), 16) % a.folds
        by_fold = {k: fit([d for d in train if fold_of(d["row"]["repo"]) != k], names) for k in range(a.folds)}
        models = {d["row"]["repo"]: by_fold[fold_of(d["row"]["repo"])] if key(d["row"]["repo"]) in trained else shared for d in data}
    for repo in sorted({d["row"]["repo"] for d in data} - set(models)):
        models[repo] = fit([d for d in train if key(d["row"]["repo"]) != key(repo)], names) if key(repo) in trained else shared
    model_order = {d["row"]["id"]: ranked(models[d["row"]["repo"]], d) for d in data}
    if a.blend:
        file_scores = {d["row"]["id"]: dict(zip(d["files"], scores(models[d["row"]["repo"]], d))) for d in data}
        blend_report(data, file_scores, [float(x) for x in a.blend.split(",")])
    # Today's order: the shipped one with the history's evidence placing the files after the first.
    shipped_history = lambda row: evidence.reorder({"files": harness.RANKERS["shipped"](row), "history": row.get("history") or []},
                                                   EVIDENCE_WEIGHT, EVIDENCE_COMMITS, EVIDENCE_BREADTH)
    # The model after today's first file (which it leaves first, as the history evidence does).
    after_first = lambda row: (lambda first: first + [f for f in model_order[row["id"]] if f not in first])(shipped_history(row)[:1])
    rankers = {"shipped": harness.RANKERS["shipped"], "+history": shipped_history, "wide-order": harness.RANKERS["wide-order"],
               "model": lambda row: model_order[row["id"]], "model>1st": after_first}
    kept = [d["row"] for d in data]
    if a.dump:
        with open(a.dump, "w") as sink:
            for r in kept:
                sink.write(json.dumps({"id": r["id"], "set": r["set"], "repo": r["repo"], "gold": sorted(r["gold"]),
                                       "today": shipped_history(r)[:10], "model": model_order[r["id"]][:10]}) + "\n")
    chunk_report(data, model_order, a.layout)
    tables = {name: harness.table(kept, f) for name, f in rankers.items()}
    for s in tables["shipped"]:
        for name, t in tables.items():
            acc = " / ".join(f"{t[s]['acc'][k]:.3f}" for k in harness.KS)
            print(f"{s:11s} {name:11s} n={t[s]['n']:4d} file Acc@1/3/5/10 {acc}")
        wins = losses = 0
        for repo, acc in tables["model"][s]["repos"].items():
            base = tables["shipped"][s]["repos"][repo]
            delta = acc[1] - base[1] + acc[5] - base[5]
            wins += delta > 1e-9
            losses += delta < -1e-9
        print(f"{s:11s} repositories (Acc@1 + Acc@5 against shipped): {wins} better, {losses} worse")
    # The mined notes by the intent `query` read in them (issue reports are `document`).
    notes = [r for r in kept if r["set"] == "notes"]
    for intent in sorted({r["pools"]["shipped"]["analysis"]["intent"] for r in notes}):
        rs = [r for r in notes if r["pools"]["shipped"]["analysis"]["intent"] == intent]
        for name in ("+history", "model"):
            t = harness.table(rs, rankers[name])["notes"]
            print(f"notes:{intent:11s} {name:11s} n={t['n']:4d} file Acc@1/3/5/10 " + " / ".join(f"{t['acc'][k]:.3f}" for k in harness.KS))
    if a.importance:
        full = fit(train, names)
        gain = full.feature_importance("gain")
        for n, g in sorted(zip(names, gain), key=lambda x: -x[1])[:25]:
            print(f"  {n:28s} {g / gain.sum():.3f}")


if __name__ == "__main__":
    main()
