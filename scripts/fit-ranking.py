#!/usr/bin/env python3
"""Fit the linear table of the ranking stage (the fitted block of src/query/base/parameters.rs) on the dev data.

The stage (src/query/rank/stage.rs) re-scores the fused candidates of a short
question with one linear function of a few features per candidate. This script
collects those features by name (`git rag query --json -n 40 --explain`) for
every question of the development sets, fits one weight per feature (and, when freed,
the penalty a file's further chunks pay, `repeat_of_file`) by coordinate
ascent on nDCG@10, and reports
every figure leave-one-repository-out: each repository is scored with weights
fitted on the others only.

Data (all of it, every time; built by the eval scripts, see their READMEs):
  - semble's development split: ../shared/eval/semble (run.py's checkouts and
    indexes under $SEMBLE_EVAL_WORK, labels from the benchmark snapshot);
    with `--semble-vec-label`, also over run.py's `--semantic` indexes
    (the dataset semble-vec);
  - the dev kit: ../shared/eval/queries/<corpus>.jsonl over corpora built by
    corpus.py, each indexed with vectors and without.
The SWE-bench split holds issue reports, which the stage leaves alone.

  scripts/fit-ranking.py collect --out /tmp/rank-data.jsonl [--semble-label L] [--semble-vec-label L] [--kit-index PATTERN]
  scripts/fit-ranking.py fit /tmp/rank-data.jsonl [--write]

`fit --write` rewrites that block, by feature name, with a header naming the data
and the commit it was fitted on; rerunning it on the same data reproduces it.

Two features depend on the weights: `whole_name` and `topic_file` ride on the
candidate of each file that the other features score best (stage.rs
`keep_file_features_on_best`),
chosen under the table the features were collected with. After a fit that
moves other weights, collect again with the new binary and score the table
on that data: it is what the end-to-end runs give.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FEATURES = ROOT / "src/query/base/features.rs"
PARAMETERS = ROOT / "src/query/base/parameters.rs"
FITTED_BEGIN = "// ------------------------------------------------------------ fitted stage"
FITTED_END = "// ------------------------------------------------------------ end of fitted stage"
# One weight row for every short question. A row per intent (identifier,
# keyword, concept: three times the weights) fitted in-sample better and held
# out worse (2026-11-27, leave one repository out against the fused order:
# kit with vectors -0.0005 per intent, +0.005 with one row).
CLASSES = ["every short question"]
CLASS_OF = {"identifier": 0, "keyword": 0, "concept": 0, "mixed": 0}
KIT = ["requests", "express", "query-core", "ureq", "cobra"]
POOL = 40
K = 10


def features() -> list[tuple[str, str]]:
    """Every feature of the stage as (name, enum variant), in the enum's order
    (src/query/base/features.rs)."""
    found = re.findall(r'^\s*(\w+) = "(\w+)", (?:Chunk|File);', FEATURES.read_text(), re.M)
    if not found:
        sys.exit(f"cannot read the features from {FEATURES}")
    return [(name, variant) for variant, name in found]


def feature_names() -> list[str]:
    return [name for name, _ in features()]


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------- collect

def query(binary: str, cwd: Path, index: Path, text: str) -> dict | None:
    env = dict(os.environ, GIT_RAG_DIR=str(index))
    cmd = [binary, "query", text, "--json", "-n", str(POOL), "--mode", "hybrid", "--explain", "--timeout", "30"]
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"  query failed in {cwd}: {p.stderr.strip()[-200:]}", file=sys.stderr)
        return None
    d = json.loads(p.stdout)
    return {
        "intent": d.get("analysis", {}).get("intent"),
        "results": [{"path": r["path"], "start_line": int(r["start_line"]), "end_line": int(r["end_line"]), "features": stage_features(r.get("explain")),
                     "symbol": r.get("symbol"), "kind": r.get("kind"),
                     # Its rank in the lists placed by the question's structure (stage.rs `placed_by_structure`).
                     "structural": min((v for k in ("callees", "patterns") if (v := (r.get("signals") or {}).get(k)) is not None), default=None)}
                    for r in d.get("results", [])],
    }


def stage_features(explain: dict | None) -> dict | None:
    """A result's stage features by name, from its explanation (`--explain`):
    the values of the contributions of a result the stage scored (a feature
    not named is 0); None for one it did not score (past its pool)."""
    if not explain or explain.get("ranked_by") not in ("stage", "structure"):
        return None
    known = set(feature_names())
    return {c["name"]: c["value"] for c in explain["contributions"] if c["name"] in known}


def semble_items(args, label: str, dataset: str) -> list[dict]:
    """Semble's development questions over run.py's indexes labelled `label`
    (keyword layers, or `--semantic` ones for the dataset with vectors)."""
    os.environ.setdefault("SEMBLE_EVAL_WORK", args.semble_work)
    run = load_module("semble_run", Path(args.eval_dir) / "semble" / "run.py")
    specs, ann = run.load_benchmark(run.DEFAULT_SEMBLE_GIT, run.DEFAULT_SEMBLE_REV)
    items = []
    for spec in specs:
        name = spec["name"]
        if name not in run.DEV_REPOS:
            continue
        work = Path(args.semble_work) / "repos" / name
        index = Path(args.semble_work) / "index" / label / name
        if not (index / ".rag_index_state.json").exists():
            print(f"[{dataset} {name}] no index at {index}; run run.py first", file=sys.stderr)
            continue
        for t in run.tasks_for(spec, ann.get(name, [])):
            items.append({"dataset": dataset, "group": name, "unit": name, "language": spec["language"], "category": t["category"],
                          "query": t["query"], "root": spec.get("benchmark_root") or "", "targets": t["targets"], "cwd": str(work), "index": str(index)})
    return items


def kit_items(args) -> list[dict]:
    items = []
    for variant in ("novec", "vec"):
        for corpus in KIT:
            index = Path(args.kit_index.format(variant=variant, corpus=corpus))
            if not (index / ".rag_index_state.json").exists():
                print(f"[kit {variant} {corpus}] no index at {index}", file=sys.stderr)
                continue
            for line in open(Path(args.eval_dir) / "queries" / f"{corpus}.jsonl"):
                q = json.loads(line)
                items.append({"dataset": f"kit-{variant}", "group": corpus, "unit": f"{corpus}-{variant}", "category": q["type"], "query": q["query"],
                              "gold": q["gold"], "cwd": str(Path(args.corpora) / corpus), "index": str(index)})
    return items


def collect(args) -> None:
    items = semble_items(args, args.semble_label, "semble") + kit_items(args)
    if args.semble_vec_label:
        items += semble_items(args, args.semble_vec_label, "semble-vec")
    print(f"{len(items)} questions", file=sys.stderr)

    def one(item):
        got = query(args.bin, Path(item["cwd"]), Path(item["index"]), item["query"])
        return {**item, **got} if got else None

    with open(args.out, "w") as out, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, row in enumerate(pool.map(one, items)):
            if row:
                out.write(json.dumps(row) + "\n")
            if i % 100 == 0:
                print(f"  {i}/{len(items)}", file=sys.stderr)


# ---------------------------------------------------------------- metrics (the eval kits' rules)

def dcg(rels) -> float:
    return sum(r / math.log2(i + 2) for i, r in enumerate(rels))


def semble_path_matches(f: str, t: str) -> bool:
    return f == t or f.endswith("/" + t) or t.endswith("/" + f)


def prepare(row: dict, names: list[str]):
    """The row's candidates as (features in the order of `names`, gain data); gains are read in any order by `score`."""
    res = row["results"][:POOL]
    feats = [[float((r.get("features") or {}).get(n, 0.0)) for n in names] for r in res]
    if row["dataset"].startswith(("semble", "wide")):
        root = row["root"]
        covers = []
        for r in res:
            p = r["path"]
            bp = p[len(root) + 1:] if root and p.startswith(root + "/") else p
            mask = 0
            for ti, t in enumerate(row["targets"]):
                if semble_path_matches(bp, t["path"]) and (t["start_line"] is None or t["end_line"] is None or not (r["end_line"] < t["start_line"] or r["start_line"] > t["end_line"])):
                    mask |= 1 << ti
            covers.append(mask)
        ideal = dcg([1] * min(K, len(row["targets"])))
        return feats, ("semble", covers, ideal)
    gold = row["gold"]
    matches = []
    for r in res:
        m = []
        for gi, g in enumerate(gold):
            if r["path"] != g["path"] or r["end_line"] < g["start_line"] or r["start_line"] > g["end_line"]:
                continue
            gspan = g["end_line"] - g["start_line"] + 1
            rspan = r["end_line"] - r["start_line"] + 1
            if rspan > max(4 * gspan, gspan + 40):
                continue
            ov = min(r["end_line"], g["end_line"]) - max(r["start_line"], g["start_line"]) + 1
            m.append(((g["grade"], ov, -gi), gi, g["grade"]))
        m.sort(reverse=True)
        matches.append(m)
    ideal = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(sorted((g["grade"] for g in gold), reverse=True)[:K]))
    return feats, ("kit", matches, ideal)


def ndcg(order, gains) -> float:
    kind, data, ideal = gains
    if ideal <= 0:
        return 0.0
    total = 0.0
    if kind == "semble":
        seen = 0
        for pos, i in enumerate(order[:K]):
            new = data[i] & ~seen
            if new:
                total += 1 / math.log2(pos + 2)
                seen |= data[i]
        return total / ideal
    credited = set()
    for pos, i in enumerate(order[:K]):
        for _, gi, grade in data[i]:
            if gi not in credited:
                credited.add(gi)
                total += (2 ** grade - 1) / math.log2(pos + 2)
                break
    return total / ideal


# ---------------------------------------------------------------- fit

def repeat_of(weights, r) -> float:
    """The weight after the features' (`REPEAT_OF_FILE`): what a candidate loses for each chunk of its file placed above it."""
    return weights[r["cls"]][-1] if r["cls"] is not None else 0.0


class Data:
    def __init__(self, rows, names):
        self.rows = []
        lists = [names.index(n) for n in ("bm25", "symbol", "dense", "exact", "graph")]
        for row in rows:
            cls = CLASS_OF.get(row.get("intent") or "")
            feats, gains = prepare(row, names)
            # Kept in place (stage.rs `placed_by_structure`): placed by the question's structure, in
            # none of the lists that read its words (their 1/rank).
            kept = [r.get("structural") is not None and not any(f[i] for i in lists) for r, f in zip(row["results"][:POOL], feats)]
            paths = [r["path"] for r in row["results"][:POOL]]
            file_of = [paths.index(p) for p in paths]
            self.rows.append({"unit": row["unit"], "group": row["group"], "dataset": row["dataset"], "cls": cls, "feats": feats, "kept": kept, "file_of": file_of,
                              "columns": [list(col) for col in zip(*feats)] if feats else [], "gains": gains,
                              "language": row.get("language"), "category": row.get("category")})

    @staticmethod
    def raw_scores(r, weights) -> list[float]:
        if r["cls"] is None:
            return [-float(i) for i in range(len(r["feats"]))]
        w = weights[r["cls"]]
        return [sum(a * b for a, b in zip(f, w)) for f in r["feats"]]

    @staticmethod
    def ndcg_of(r, s, repeat: float = 0.0) -> float:
        """nDCG@10 of the candidates ordered by scores `s`, those kept in their places (as the stage does);
        each slot is filled by the best candidate after it loses `repeat` for every chunk of its file above it."""
        return ndcg(Data.order_of(r, s, repeat), r["gains"])

    @staticmethod
    def order_of(r, s, repeat: float) -> list[int]:
        kept = r["kept"]
        free = sorted((i for i in range(len(s)) if not kept[i]), key=lambda i: (-s[i], i))
        if not repeat:
            moved = iter(free)
            return [i if kept[i] else next(moved) for i in range(len(s))]
        files = r["file_of"]
        if repeat > 0 and not any(kept):
            # Then a file's k-th chunk (by score) always loses k * repeat: one sort does what the slots do.
            nth: dict[int, int] = defaultdict(int)
            value = {}
            for i in free:
                value[i] = s[i] - repeat * nth[files[i]]
                nth[files[i]] += 1
            return sorted(free, key=lambda i: (-value[i], i))[:K]
        queues: dict[int, list[int]] = {}
        for i in free:
            queues.setdefault(files[i], []).append(i)
        heads = {f: 0 for f in queues}
        taken: dict[int, int] = defaultdict(int)
        order = []
        for slot in range(min(len(s), K)):
            if kept[slot]:
                order.append(slot)
                taken[files[slot]] += 1
                continue
            best = None
            for f, q in queues.items():
                h = heads[f]
                if h < len(q):
                    i = q[h]
                    v = s[i] - repeat * taken[f]
                    if best is None or v > best[0] or (v == best[0] and i < best[1]):
                        best = (v, i, f)
            if best is None:
                break
            heads[best[2]] += 1
            taken[best[2]] += 1
            order.append(best[1])
        return order

    def score_row(self, r, weights) -> float:
        return self.ndcg_of(r, self.raw_scores(r, weights), repeat_of(weights, r))

    def scores(self, weights, subset=None):
        """nDCG@10 of each row (in `subset`, or all) when its candidates are ordered by `weights`."""
        return [self.score_row(r, weights) for r in (self.rows if subset is None else subset)]


def objective_of(subset, per_row) -> float:
    """The mean over the datasets of each dataset's mean over its units (repositories, corpora)."""
    per_unit = defaultdict(list)
    for r, s in zip(subset, per_row):
        per_unit[(r["dataset"], r["unit"])].append(s)
    per_dataset = defaultdict(list)
    for (ds, _), xs in per_unit.items():
        per_dataset[ds].append(sum(xs) / len(xs))
    return sum(sum(v) / len(v) for v in per_dataset.values()) / len(per_dataset)


STEPS = [2.0, 1.0, 0.5, 0.2, 0.1, 0.05]
# A step is taken only when it raises the objective by at least this much
# (FIT_MIN_GAIN; 0.001 was tried: held-out scores fell below the fused order).
MIN_GAIN = float(os.environ.get("FIT_MIN_GAIN", "0.00001"))


# FIT_FEATURES=a,b,c: only these weights move (the others stay 0).
FREE: set[int] = set()
# Weights that stay 0 unless FIT_FEATURES names them. `other_lists` counts the
# lists that answer what the dev data does not ask (a process's steps through
# `callees`, conventions through `patterns`): free, it was fitted negative,
# buried those answers and held out no better (2026-11-27: semble 0.733 vs
# 0.738, kit 0.732 / 0.793 vs 0.731 / 0.794).
#
# `repeat_of_file` (stage.rs `Table`: what a candidate loses per chunk of its
# file placed above it, semble's file saturation) is fitted after the
# features' weights when free. Free, it fitted 0.1 and held out better on
# semble and worse on the kit (2026-11-28, leave one repository out on the
# same 966 questions: semble 0.769 -> 0.780, kit 0.744 -> 0.737 without
# vectors, 0.804 -> 0.801 with), so it stays 0 until it holds across both.
# FIT_FIXED=a,b adds to these; FIT_FEATURES=repeat_of_file,... frees it.
FIXED = {"other_lists", "repeat_of_file"} | set(filter(None, os.environ.get("FIT_FIXED", "").split(",")))


def table_weights(n_features: int) -> list[float]:
    """The weights of parameters.rs's fitted STAGE by name (a feature added
    since it was written: 0), and its `repeat_of_file`."""
    text = PARAMETERS.read_text()
    by_variant = {v: float(w) for v, w in re.findall(r"\(Feature::(\w+), ([-0-9.]+)\)", text)}
    repeat = re.search(r"repeat_of_file: ([-0-9.]+)", text)
    if not by_variant or not repeat:
        sys.exit(f"cannot read the fitted STAGE from {PARAMETERS}")
    w = [by_variant.get(variant, 0.0) for _, variant in features()]
    return (w + [0.0] * n_features)[:n_features] + [float(repeat.group(1))]


# FIT_START=table: start from parameters.rs's fitted STAGE instead of the identity
# (with FIT_FEATURES, only those weights move from the shipped table: a new
# feature is fitted without refitting the others).
START_FROM_TABLE = os.environ.get("FIT_START") == "table"


def fit(data: Data, subset, n_features: int, passes: int = 6, min_gain: float = MIN_GAIN):
    """Coordinate ascent from the identity (the fused order; FIT_START=table:
    from the shipped table): each weight in turn moves by the step that
    most raises the objective, until a pass changes nothing. A change of
    one weight rescores only its class's rows, by adding the step times that
    feature to their scores."""
    start = table_weights(n_features) if START_FROM_TABLE else [1.0] + [0.0] * n_features
    weights = [list(start) for _ in CLASSES]
    raw = [data.raw_scores(r, weights) for r in subset]
    per_row = [data.ndcg_of(r, s) for r, s in zip(subset, raw)]
    best = objective_of(subset, per_row)
    for _ in range(passes):
        improved = False
        for c in range(len(CLASSES)):
            idx = [i for i, r in enumerate(subset) if r["cls"] == c and r["feats"]]
            if not idx:
                continue
            # 1 .. n_features - 1: the features' weights; n_features: REPEAT_OF_FILE.
            for j in range(1, n_features + 1):
                if FREE and j not in FREE:
                    continue
                repeat = weights[c][n_features]
                choice = None
                for step in STEPS:
                    for delta in (step, -step):
                        if j == n_features and repeat + delta < 0:
                            continue  # a file's later chunks are never lifted for following its first
                        rows = list(per_row)
                        for i in idx:
                            if j == n_features:
                                rows[i] = data.ndcg_of(subset[i], raw[i], repeat + delta)
                            else:
                                col = subset[i]["columns"][j]
                                rows[i] = data.ndcg_of(subset[i], [a + delta * b for a, b in zip(raw[i], col)], repeat)
                        val = objective_of(subset, rows)
                        if val > best + min_gain and (choice is None or val > choice[0]):
                            choice = (val, delta, rows)
                if choice:
                    best, delta, per_row = choice
                    weights[c][j] = round(weights[c][j] + delta, 3)
                    if j < n_features:
                        for i in idx:
                            col = subset[i]["columns"][j]
                            raw[i] = [a + delta * b for a, b in zip(raw[i], col)]
                    improved = True
        if not improved:
            break
    return weights, best


def report(data: Data, weights, label: str) -> dict:
    by = defaultdict(list)
    for r, s in zip(data.rows, data.scores(weights)):
        by[(r["dataset"], r["unit"])].append(s)
    units = {k: sum(v) / len(v) for k, v in by.items()}
    per_ds = defaultdict(list)
    for (ds, _), v in units.items():
        per_ds[ds].append(v)
    out = {ds: sum(v) / len(v) for ds, v in per_ds.items()}
    print(f"{label}: " + ", ".join(f"{ds} {v:.4f}" for ds, v in sorted(out.items())))
    return out


FOLD_DATA = None


def fold(g):
    """Weights fitted without group `g`, and `g`'s rows scored with them."""
    data, n = FOLD_DATA
    train = [r for r in data.rows if r["group"] != g]
    w, _ = fit(data, train, n)
    test = [r for r in data.rows if r["group"] == g]
    return g, list(zip(test, data.scores(w, test)))


def fit_command(args) -> None:
    names = feature_names()
    if os.environ.get("FIT_FEATURES"):
        FREE.update(len(names) if n == "repeat_of_file" else names.index(n) for n in os.environ["FIT_FEATURES"].split(","))
    else:
        FREE.update(i for i, n in enumerate(names) if i > 0 and n not in FIXED)
        if "repeat_of_file" not in FIXED:
            FREE.add(len(names))
    rows = [json.loads(l) for l in open(args.data)]
    data = Data(rows, names)
    identity = [[1.0] + [0.0] * len(names) for _ in CLASSES]
    report(data, identity, "as fused (identity)")
    if START_FROM_TABLE:
        report(data, [table_weights(len(names)) for _ in CLASSES], "the shipped table")
    weights, _ = fit(data, data.rows, len(names))
    insample = report(data, weights, "in-sample fit")
    # Leave one repository out: a group (a semble repository, a kit corpus
    # with and without vectors) is scored with weights fitted on the others.
    groups = sorted({r["group"] for r in data.rows})
    held = {}

    global FOLD_DATA
    FOLD_DATA = (data, len(names))
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for g, scored in pool.map(fold, groups):
            for r, s in scored:
                held.setdefault((r["dataset"], r["unit"]), []).append((r, s))
    per_ds = defaultdict(list)
    per_lang = defaultdict(list)
    per_cat = defaultdict(lambda: defaultdict(list))
    for (ds, unit), rs in held.items():
        per_ds[ds].append(sum(s for _, s in rs) / len(rs))
        if ds == "semble":
            per_lang[rs[0][0]["language"]].append(sum(s for _, s in rs) / len(rs))
            for r, s in rs:
                per_cat[r["category"]][unit].append(s)
    loo = {ds: sum(v) / len(v) for ds, v in per_ds.items()}
    if args.units:
        fused = defaultdict(list)
        for r, sc in zip(data.rows, data.scores(identity)):
            fused[(r["dataset"], r["unit"])].append(sc)
        for key in sorted(held):
            b = sum(fused[key]) / len(fused[key])
            h = sum(s for _, s in held[key]) / len(held[key])
            print(f"  {key[0]:10} {key[1]:24} {b:.3f} -> {h:.3f} ({h - b:+.3f})")
    print("leave-one-repository-out: " + ", ".join(f"{ds} {v:.4f}" for ds, v in sorted(loo.items())))
    print("  semble by language (LOO): " + ", ".join(f"{l} {sum(v) / len(v):.3f}" for l, v in sorted(per_lang.items())))
    print("  semble by category (LOO): " + ", ".join(f"{c} {sum(sum(x) / len(x) for x in u.values()) / len(u):.3f}" for c, u in sorted(per_cat.items())))
    print("weights:")
    for c, w in zip(CLASSES, weights):
        print(f"  {c}: " + ", ".join(f"{n}={v:g}" for n, v in zip(names + ["repeat_of_file"], w) if v))
    if args.write:
        write_weights(weights, names, args.data, insample, loo)


def started() -> str:
    """How the written table was reached, when not from the identity."""
    if not START_FROM_TABLE:
        return ""
    moved = os.environ.get("FIT_FEATURES", "every weight")
    return f" (from the previous table, moving {moved})"


def write_weights(weights, names, data_path, insample, loo) -> None:
    """Rewrites the fitted block of parameters.rs, one weight per feature by name."""
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    fmt = lambda ds: ", ".join(f"{k} {v:.3f}" for k, v in sorted(ds.items()))
    variant = dict(features())
    rows = "\n".join(f"        (Feature::{variant[n]}, {v:.3f})," for n, v in zip(names, weights[0][:len(names)]))
    repeat = weights[0][len(names)]
    block = f"""{FITTED_BEGIN}
// Written by `scripts/fit-ranking.py fit --write` at commit {commit} on
// {Path(data_path).name}{started()}:
// semble's development split (keyword layers) and the dev kit's five
// corpora (with and without vectors).
// nDCG@10 in-sample: {fmt(insample)};
// leave one repository out: {fmt(loo)}.
// Each weight multiplies its feature's value (`features.rs` says what each measures).
#[rustfmt::skip]
pub const STAGE: Table = Table {{
    weights: PerFeature::by_name(&[
{rows}
    ]),
    repeat_of_file: {repeat:.3f},
}};
{FITTED_END}"""
    text = PARAMETERS.read_text()
    start, end = text.find(FITTED_BEGIN), text.find(FITTED_END)
    if start < 0 or end < 0:
        sys.exit(f"cannot find the fitted block's marks in {PARAMETERS}")
    PARAMETERS.write_text(text[:start] + block + text[end + len(FITTED_END):])
    print(f"wrote {PARAMETERS}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--out", required=True)
    c.add_argument("--bin", default="git-rag")
    c.add_argument("--eval-dir", default=str(ROOT.parent / "shared" / "eval"))
    c.add_argument("--semble-work", default=os.environ.get("SEMBLE_EVAL_WORK", str(Path.home() / ".cache" / "semble-eval")))
    c.add_argument("--semble-label", default="before", help="run.py's index label")
    c.add_argument("--semble-vec-label", default="", help="run.py's label of `--semantic` indexes: the dataset semble-vec (a repository is held out with both)")
    c.add_argument("--corpora", default=os.environ.get("CORPORA", "/tmp/corpora"))
    c.add_argument("--kit-index", default="/tmp/kit-index/before-{variant}/{corpus}", help="index dir pattern with {variant} (vec/novec) and {corpus}")
    c.add_argument("--jobs", type=int, default=2)
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--write", action="store_true")
    f.add_argument("--units", action="store_true", help="print each repository's held-out score against the fused order")
    f.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    collect(args) if args.cmd == "collect" else fit_command(args)


if __name__ == "__main__":
    main()
