#!/usr/bin/env python3
"""Train the ranking model on the wide data, and score it leave one repository out.

The wide data is what `scripts/collect-ranking.py` records: questions mined
from the git histories of many repositories (`scripts/mine-ranking.py`;
none in a benchmark), each asked of its repository at the parent commit,
with the stage's features of every candidate of its pool. This script learns
one model over those features and the question's intent, for every kind of
question (names, short questions, issue reports), and scores it against the
ranking shipped today on the same rows:

  - `fused`: the order fusion gave the pool (its `position` feature);
  - `shipped`: the ranking the rows were collected with (the linear stage
    for short questions, the grouped fused order for issue reports, which
    that stage left alone);
  - `linear`: one weight per model input, fitted by pairwise logistic
    regression on the other repositories;
  - `lambdamart`: LightGBM's LambdaMART on the same inputs.

Every figure is held out by repository: each repository's questions are
ranked by a model trained on the other repositories only (`--folds K`
groups them into K folds of whole repositories, `--folds 0`: one fold per
repository). Per repository the mean nDCG@10 (semble's rule: a target is
found by the first chunk of its file whose lines overlap it) and file
Acc@1 / @5 (a target file among the first 1 / 5 files), then the mean over
repositories, by kind of question.

`--write` trains the chosen learner on all the rows and writes LightGBM's
model file (`src/query/rank/ranking-model.txt`, read by
`src/query/rank/model.rs`) and a few of its predictions
(`src/query/rank/ranking-model-cases.json`, which a unit test holds the Rust
inference to).

  scripts/train-ranking.py DATA_DIR [--folds K] [--learner lambdamart|linear] [--write]

DATA_DIR: collect-ranking.py's output, or `scripts/ranking-data/` (the rows
the shipped model was trained on, gzipped: 3,692 questions of 68
repositories in 22 languages, collected at commit 1f984e6).

Needs `pip install lightgbm numpy`.
"""
from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import math
import random
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "src/query/rank/ranking-model.txt"
CASES = ROOT / "src/query/rank/ranking-model-cases.json"
K = 10
# The question's intent as the model reads it (one input each, 1 or 0):
# `question::intent::Intent` but graph questions, which their walk answers.
INTENTS = ["identifier", "keyword", "concept", "mixed", "document"]
# LambdaMART's settings: small trees, many of them, slowly (chosen on the
# held-out figure of the wide data; see docs/experiments.md).
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [10],
    "lambdarank_truncation_level": 20,
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 100,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "num_threads": 2,
    "deterministic": True,
    "force_row_wise": True,
    "seed": 82,
    "verbose": -1,
}
ROUNDS = 300


def load_fit_ranking():
    spec = importlib.util.spec_from_file_location("fit_ranking", ROOT / "scripts" / "fit-ranking.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


FIT = load_fit_ranking()


def inputs() -> list[str]:
    """The model's inputs by name, in the order of its columns: every stage
    feature (features.rs), then the intents."""
    return FIT.feature_names() + [f"intent_{i}" for i in INTENTS]


class Question:
    """One collected question: its pool's inputs, which candidates are kept
    in place, and what finding each target is worth."""

    def __init__(self, row: dict, names: list[str]):
        self.repo = row["group"]
        self.kind = row["category"]
        self.language = row.get("language", "")
        self.intent = row.get("intent") or ""
        results = row["results"][: FIT.POOL]
        # The pool: the candidates the stage read (features recorded).
        self.n = sum(1 for r in results if r.get("features") is not None)
        self.paths = [r["path"] for r in results]
        feats, self.gains = FIT.prepare(row, FIT.feature_names())
        onehot = [1.0 if self.intent == i else 0.0 for i in INTENTS]
        self.x = np.array([f + onehot for f in feats[: self.n]], dtype=np.float64).reshape(self.n, len(names))
        lists = [FIT.feature_names().index(n) for n in ("bm25", "symbol", "dense", "exact", "graph")]
        self.kept = [r.get("structural") is not None and not any(f[i] for i in lists) for r, f in zip(results[: self.n], feats)]
        self.file_of = [self.paths.index(p) for p in self.paths[: self.n]]
        covers = self.gains[1] if self.gains[0] == "semble" else [0] * len(results)
        self.label = np.array([1.0 if c else 0.0 for c in covers[: self.n]])
        self.target_paths = {t["path"] for t in row["targets"]}
        self.shipped_scores = None

    def order(self, scores, repeat: float = 0.0) -> list[int]:
        """The pool in the order of `scores` (kept ones in place), then the rest as they came."""
        r = {"kept": self.kept, "file_of": self.file_of}
        head = FIT.Data.order_of(r, list(scores), repeat) if self.n else []
        if len(head) < self.n:
            head += [i for i in range(self.n) if i not in head]
        return head + list(range(self.n, len(self.paths)))

    def measures(self, order) -> tuple[float, float, float]:
        """nDCG@10, file Acc@1, file Acc@5 of `order`."""
        files = []
        for i in order:
            if self.paths[i] not in files:
                files.append(self.paths[i])
        hit = lambda k: float(any(FIT.semble_path_matches(f, t) for f in files[:k] for t in self.target_paths))
        return FIT.ndcg(order, self.gains), hit(1), hit(5)


def load(data_dir: Path, names) -> list[Question]:
    """Every row of the `*.jsonl` (collect-ranking.py's) and `*.jsonl.gz` files of `data_dir`."""
    qs = []
    for f in sorted(data_dir.glob("*.jsonl")) + sorted(data_dir.glob("*.jsonl.gz")):
        for line in gzip.open(f, "rt") if f.suffix == ".gz" else open(f):
            row = json.loads(line)
            if row.get("intent") == "graph" or not row.get("targets"):
                continue
            q = Question(row, names)
            if q.n:
                qs.append(q)
    return qs


def shipped_orders(qs, names) -> dict[int, list[int]]:
    """Today's order of each question: the linear stage's for a short
    question, the order it came in for an issue report."""
    weights = FIT.table_weights(len(FIT.feature_names()))
    w, repeat = np.array(weights[:-1]), weights[-1]
    out = {}
    for i, q in enumerate(qs):
        if q.intent == "document":
            out[i] = list(range(len(q.paths)))
        else:
            out[i] = q.order(q.x[:, : len(w)] @ w, repeat)
    return out


def folds_of(repos: list[str], k: int) -> list[list[str]]:
    if k <= 0 or k >= len(repos):
        return [[r] for r in repos]
    shuffled = sorted(repos)
    random.Random(82).shuffle(shuffled)
    return [shuffled[i::k] for i in range(k)]


def matrices(qs):
    x = np.vstack([q.x for q in qs])
    y = np.concatenate([q.label for q in qs])
    groups = [q.n for q in qs]
    return x, y, groups


def train_lambdamart(qs, names):
    import lightgbm as lgb

    x, y, groups = matrices(qs)
    ds = lgb.Dataset(x, y, group=groups, feature_name=names, free_raw_data=False)
    return lgb.train(PARAMS, ds, num_boost_round=ROUNDS)


def train_linear(qs, names, steps: int = 300, rate: float = 0.5, l2: float = 1e-3):
    """Pairwise logistic regression (RankNet with a linear scorer): every
    target above every other candidate of its question, by full-batch
    gradient descent on standardised inputs."""
    x, _, _ = matrices(qs)
    mean, std = x.mean(0), x.std(0) + 1e-9
    pairs_pos, pairs_neg = [], []
    at = 0
    for q in qs:
        pos = [at + i for i in range(q.n) if q.label[i] > 0]
        neg = [at + i for i in range(q.n) if q.label[i] == 0]
        if pos and neg:
            for p in pos:
                pairs_pos += [p] * len(neg)
                pairs_neg += neg
        at += q.n
    z = (x - mean) / std
    d = z[np.array(pairs_pos)] - z[np.array(pairs_neg)]
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        m = d @ w
        g = -(d * (1 / (1 + np.exp(m)))[:, None]).mean(0) + l2 * w
        w -= rate * g
    return w / std


def predict(model, learner, x):
    if learner == "linear":
        return x @ model
    return model.predict(x, num_threads=2)


def summarise(per_q: dict[int, tuple], qs, label: str) -> dict:
    """Mean over repositories of each measure, by kind; printed as one line per kind."""
    by = defaultdict(lambda: defaultdict(list))
    for i, m in per_q.items():
        q = qs[i]
        by[q.kind][q.repo].append(m)
        by["all"][q.repo].append(m)
    out = {}
    for kind in sorted(by):
        repos = by[kind]
        means = [np.mean(v, axis=0) for v in repos.values()]
        out[kind] = tuple(float(x) for x in np.mean(means, axis=0))
    print(f"{label:12} " + "  ".join(f"{k} {v[0]:.3f}/{v[1]:.3f}/{v[2]:.3f}" for k, v in out.items()))
    return out


def by_language(per_q, qs, label):
    by = defaultdict(lambda: defaultdict(list))
    for i, m in per_q.items():
        by[qs[i].language][qs[i].repo].append(m[0])
    print(f"{label} nDCG@10 by language: " + ", ".join(f"{l} {np.mean([np.mean(v) for v in r.values()]):.3f}" for l, r in sorted(by.items())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--folds", type=int, default=0, help="folds of whole repositories (0: one per repository)")
    ap.add_argument("--learner", default="lambdamart", choices=["lambdamart", "linear"])
    ap.add_argument("--repeats", default="0,0.5,1,2", help="penalties per chunk of a file placed above, tried held out")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--no-cv", action="store_true", help="skip the held-out figures (with --write)")
    args = ap.parse_args()
    names = inputs()
    started = time.time()
    qs = load(args.data, names)
    repos = sorted({q.repo for q in qs})
    kinds = defaultdict(int)
    for q in qs:
        kinds[q.kind] += 1
    print(f"{len(qs)} questions of {len(repos)} repositories ({dict(kinds)}), {sum(q.n for q in qs)} candidates", file=sys.stderr)
    repeats = [float(r) for r in args.repeats.split(",")]
    if not args.no_cv:
        # The fused order: by `position` (1/rank in the fused list), as the pool came to the stage.
        at = names.index("position")
        fused = {i: q.measures(q.order(q.x[:, at])) for i, q in enumerate(qs)}
        summarise(fused, qs, "fused")
        shipped = shipped_orders(qs, names)
        summarise({i: qs[i].measures(o) for i, o in shipped.items()}, qs, "shipped")
        held = {r: {} for r in repeats}
        for n, fold in enumerate(folds_of(repos, args.folds)):
            test = [i for i, q in enumerate(qs) if q.repo in fold]
            train = [q for q in qs if q.repo not in fold]
            model = train_lambdamart(train, names) if args.learner == "lambdamart" else train_linear(train, names)
            for i in test:
                s = predict(model, args.learner, qs[i].x)
                for r in repeats:
                    held[r][i] = qs[i].measures(qs[i].order(s, r))
            print(f"  fold {n + 1}: {len(fold)} repositories, {time.time() - started:.0f} s", file=sys.stderr)
        for r in repeats:
            summarise(held[r], qs, f"{args.learner} r={r:g}")
        best = max(repeats, key=lambda r: np.mean([m[0] for m in held[r].values()]))
        by_language(held[best], qs, f"{args.learner} r={best:g}")
        by_language({i: qs[i].measures(o) for i, o in shipped.items()}, qs, "shipped")
    print(f"{time.time() - started:.0f} s", file=sys.stderr)
    if args.write:
        if args.learner != "lambdamart":
            sys.exit("--write exports LightGBM's model: --learner lambdamart")
        model = train_lambdamart(qs, names)
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        model.save_model(str(MODEL))
        rng = random.Random(82)
        cases = []
        for q in rng.sample(qs, 20):
            p = model.predict(q.x, num_threads=1)
            cases += [{"inputs": dict(zip(names, map(float, q.x[i]))), "score": float(p[i])} for i in range(min(3, q.n))]
        CASES.write_text(json.dumps({"trained_at": commit, "inputs": names, "cases": cases}, indent=0) + "\n")
        print(f"wrote {MODEL} ({MODEL.stat().st_size} bytes) and {CASES}")


if __name__ == "__main__":
    main()
