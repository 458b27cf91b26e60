#!/usr/bin/env python3
"""The offline ranking harness: record the dev sets' candidate pools once,
then score any ordering of them in seconds by each benchmark's own rule.

`record` asks every issue of a localization set (SWE-bench Lite dev,
Verified dev, MULocBench dev: `../shared/eval/swebench/swe_localize.py`'s
instances) exactly as that script does — one index per repository, brought
to each issue's base commit in order, the whole issue text as the query —
and keeps two pools per issue, with every result's features
(`--explain --explain-features`) and fused list ranks:

  - `shipped`: `--limit 50`, what swe_localize.py scores (file Acc@k over
    the distinct files of the chunks, in order); scoring it unchanged must
    reproduce the end-to-end figures before any model is trusted;
  - `wide`: `--limit 200`, the candidates a file ranker may reorder;

and the history store's answer to the issue at that commit (`git rag
history --json -n 50`: older commits only, so never the fix), the evidence
a ranker may weigh per file.

`record-semble` does the same for semble's development split
(`../shared/eval/semble/run.py`'s 21 repositories, checked out and restricted
to their benchmark roots as that script does, one keyword-layers index each):
`shipped` is `--limit 10`, what run.py scores, and `wide` is `--limit 200`.

`record-kit` does the same for the dev kit (`../shared/eval/`: the five small
corpora built by its `corpus.py` under CORPORA, the graded queries of
`queries/`), set `kit` (keyword layers) or, with `--semantic`, `kit-vectors`;
`score` prints score.py's chunk nDCG@10 over all their queries.

`score` reorders the recorded pools by a ranker and prints file Acc@1/3/5/10
by set and by repository (`--rankers shipped,wide-order`); for `semble` it
prints run.py's chunk nDCG@10 (mean per repository, then over repositories).

    rank-harness.py record OUT --set lite|verified|mulocbench [--bin git-rag] [--repos a/b,...]
    rank-harness.py record-semble OUT [--bin git-rag] [--repos serde,zod]
    rank-harness.py record-kit OUT --corpora DIR [--semantic] [--bin git-rag]
    rank-harness.py score OUT [--sets lite,verified,mulocbench,semble,kit,kit-vectors]

OUT/<set>.jsonl gets one row per issue (resumable: recorded ids are
skipped). Needs SWE_MIRRORS (see swe_localize.py). The other halves of the
benchmarks are held out: never record them.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL = Path(os.environ.get("GIT_RAG_EVAL_DIR", ROOT.parent / "shared" / "eval"))
SETS = {
    "lite": EVAL / "swebench" / "dev.jsonl",
    "verified": EVAL / "swebench" / "dev-verified.jsonl",
    "mulocbench": EVAL / "mulocbench" / "dev.jsonl",
}
# swe_localize.py's default `--limit`: the pool its figures are scored on.
SHIPPED_LIMIT = 50
# A deeper pool for a file ranker to reorder (about three times the files).
WIDE_LIMIT = 200
KS = (1, 3, 5, 10)


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compact(result: dict) -> dict:
    """A result without its text: where it is, what it is, and every number
    the ranking read (fused list ranks, the stage's features, scored or not)."""
    explain = result.get("explain") or {}
    fused = explain.get("fused") or explain
    lists = {c["name"][5:]: c.get("rank") for c in fused.get("contributions", []) if c["name"].startswith("list:")}
    features = {c["name"]: c["value"] for c in explain.get("contributions", []) if not c["name"].startswith("list:")}
    features.update({c["name"]: c["value"] for c in explain.get("unscored_features", [])})
    return {
        "path": result["path"], "start_line": result["start_line"], "end_line": result["end_line"],
        "symbol": result.get("symbol"), "kind": result.get("kind"), "language": result.get("language"),
        "score": result.get("score"), "ranked_by": explain.get("ranked_by"), "lists": lists, "features": features,
        "lines": (result.get("content") or "").count("\n") + 1,
    }


def ask(binary: str, cwd: str, env: dict, text: str, limit: int) -> dict:
    cmd = [binary, "query", "--json", "--limit", str(limit), "--mode", "hybrid", "--explain", "--explain-features", "--", text]
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    took = time.time() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip()[-300:])
    d = json.loads(p.stdout)
    return {"analysis": d.get("analysis"), "retrievers": d.get("retrievers"), "took_ms": d.get("took_ms"), "wall_ms": round(took * 1000, 1),
            "results": [compact(r) for r in d.get("results", [])]}


def pools(binary: str, cwd: str, env: dict, text: str, shipped: int = SHIPPED_LIMIT) -> dict:
    """A question's two pools: `shipped` (what its benchmark scores, `shipped`
    results deep) and `wide` (`WIDE_LIMIT`, what a file ranker reorders)."""
    return {"shipped": ask(binary, cwd, env, text, shipped), "wide": ask(binary, cwd, env, text, WIDE_LIMIT)}


# Commits of the history store asked per issue: its evidence for the files they changed.
HISTORY_COMMITS = 50


def history(binary: str, cwd: str, env: dict, text: str) -> list[dict]:
    """The history store's answer to the issue at its base commit (older
    commits only, so never the fix): each commit's score and the files it
    changed, under the names of the indexed commit."""
    cmd = [binary, "history", "--json", "-n", str(HISTORY_COMMITS), "--", text]
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip()[-300:])
    return [{"id": c["id"][:12], "score": c["score"], "files": c["files"], "files_changed": c.get("files_changed", len(c["files"]))}
            for c in json.loads(p.stdout)["commits"]]


def record(args) -> None:
    swe = load_module("swe_localize", EVAL / "swebench" / "swe_localize.py")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{args.set}.jsonl"
    done = set()
    if path.exists():
        # A row without the history's answer (recorded before it was asked) is asked again.
        kept = [line for line in open(path) if line.strip() and "history" in json.loads(line)]
        path.write_text("".join(kept))
        done = {json.loads(line)["id"] for line in kept}
    want = set(args.repos.split(",")) if args.repos else None
    by_repo = collections.defaultdict(list)
    for x in swe.instances(str(SETS[args.set])):
        mirror = Path(swe.MIRRORS) / x["repo"].replace("/", "+") / "repo"
        if mirror.is_dir() and (not want or x["repo"] in want):
            by_repo[x["repo"]].append(x)
    sink = open(path, "a")
    for repo, xs in sorted(by_repo.items()):
        xs.sort(key=lambda x: x["created_at"])
        key = repo.replace("/", "+")
        src = Path(swe.MIRRORS) / key / "repo"
        work = out / "repos" / key
        if not work.is_dir():
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(src), str(work)], check=True)
        env = dict(os.environ, GIT_RAG_DIR=str(out / "idx" / key))
        for x in xs:
            if x["instance_id"] in done:
                continue
            gold = swe.gold(x["patch"]) if x.get("patch") else {p: [] for p in x.get("gold_files", [])}
            t0 = time.time()
            r = subprocess.run([args.bin, "index", "--rev", x["base_commit"], "--quiet", "--no-semantic"], cwd=work, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"index failed {x['instance_id']}: {r.stderr[-300:]}", file=sys.stderr)
                continue
            index_s = time.time() - t0
            try:
                got = pools(args.bin, str(work), env, x["problem_statement"])
                commits = history(args.bin, str(work), env, x["problem_statement"])
            except (RuntimeError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
                print(f"query failed {x['instance_id']}: {e}", file=sys.stderr)
                continue
            row = {"id": x["instance_id"], "set": args.set, "repo": repo, "base_commit": x["base_commit"],
                   "gold": {p: spans for p, spans in gold.items()}, "query": x["problem_statement"], "index_s": round(index_s, 2), "pools": got, "history": commits}
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            files = distinct_files(got["shipped"]["results"])
            rank = next((i + 1 for i, f in enumerate(files) if f in gold), None)
            print(f"{x['instance_id']:40s} file@{rank} files {len(files)}/{len(distinct_files(got['wide']['results']))} idx {index_s:.1f}s", file=sys.stderr)


# run.py's cut: semble scores the first 10 chunks.
SEMBLE_LIMIT = 10


def record_semble(args) -> None:
    semble = load_module("semble_run", EVAL / "semble" / "run.py")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "semble.jsonl"
    done = {json.loads(line)["id"] for line in open(path) if line.strip()} if path.exists() else set()
    specs, annotations = semble.load_benchmark(semble.DEFAULT_SEMBLE_GIT, semble.DEFAULT_SEMBLE_REV)
    want = set(args.repos.split(",")) if args.repos else None
    sink = open(path, "a")
    for spec in specs:
        name = spec["name"]
        if name not in semble.DEV_REPOS or (want and name not in want):
            continue
        tasks = [t for t in semble.tasks_for(spec, annotations.get(name, [])) if t["qid"] not in done]
        if not tasks:
            continue
        info = semble.prepare_checkout(spec, tasks, lambda *a: None)
        if info["status"] != "ok":
            print(f"[{name}] excluded: {info['reason']}", file=sys.stderr)
            continue
        work, root = Path(info["work"]), spec.get("benchmark_root") or ""
        semble.set_include(work, root, False)
        env = dict(os.environ, GIT_RAG_DIR=str(out / "idx-semble" / name))
        r = subprocess.run([args.bin, "index", "--full", "--quiet", "--no-semantic"], cwd=work, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"[{name}] index failed: {r.stderr[-300:]}", file=sys.stderr)
            continue
        for t in tasks:
            try:
                got = pools(args.bin, str(work), env, t["query"], SEMBLE_LIMIT)
            except (RuntimeError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
                print(f"query failed {t['qid']}: {e}", file=sys.stderr)
                continue
            row = {"id": t["qid"], "set": "semble", "repo": name, "language": spec["language"], "category": t["category"],
                   "root": root, "query": t["query"], "targets": t["targets"],
                   "gold": {(f"{root}/{x['path']}" if root else x["path"]): [] for x in t["targets"]}, "pools": got}
            sink.write(json.dumps(row) + "\n")
            sink.flush()
        print(f"[{name}] {len(tasks)} questions", file=sys.stderr)


KIT_CORPORA = ("requests", "express", "query-core", "ureq", "cobra")


def record_kit(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = "kit-vectors" if args.semantic else "kit"
    path = out / f"{name}.jsonl"
    done = {json.loads(line)["id"] for line in open(path) if line.strip()} if path.exists() else set()
    sink = open(path, "a")
    for corpus in KIT_CORPORA:
        work = Path(args.corpora) / corpus
        env = dict(os.environ, GIT_RAG_DIR=str(out / f"idx-{name}" / corpus))
        cmd = [args.bin, "index", "--full", "--quiet"] + ([] if args.semantic else ["--no-semantic"])
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"[{corpus}] index failed: {r.stderr[-300:]}", file=sys.stderr)
            continue
        queries = [json.loads(line) for line in open(EVAL / "queries" / f"{corpus}.jsonl") if line.strip()]
        for q in queries:
            if q["id"] in done:
                continue
            try:
                got = pools(args.bin, str(work), env, q["query"], SEMBLE_LIMIT)
            except (RuntimeError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
                print(f"query failed {q['id']}: {e}", file=sys.stderr)
                continue
            row = {"id": q["id"], "set": name, "repo": corpus, "category": q["type"], "query": q["query"], "kit_gold": q["gold"],
                   "gold": {g["path"]: [] for g in q["gold"] if g["grade"] == 2}, "pools": got}
            sink.write(json.dumps(row) + "\n")
            sink.flush()
        print(f"[{corpus}] {len(queries)} questions", file=sys.stderr)


def kit_table(rows: list[dict], chunks_of) -> dict:
    """score.py's chunk nDCG@10, the mean over every query of the five corpora."""
    kit = sys.modules.get("kit_score") or load_module("kit_score", EVAL / "score.py")
    values = [kit.chunk_metrics(chunks_of(r)[:SEMBLE_LIMIT], r["kit_gold"])["ndcg@10"] for r in rows]
    per_type = collections.defaultdict(list)
    for r, v in zip(rows, values):
        per_type[r["category"]].append(v)
    return {"n": len(rows), "ndcg10": sum(values) / max(len(values), 1), "categories": {t: sum(v) / len(v) for t, v in per_type.items()}}


def semble_ndcg(row: dict, chunks: list[dict]) -> float:
    """run.py's score of one question: chunk nDCG@10 over its targets, paths
    made relative to the benchmark root."""
    semble = sys.modules.get("semble_run") or load_module("semble_run", EVAL / "semble" / "run.py")
    root = row["root"]
    res = [dict(c, bpath=c["path"][len(root) + 1:] if root and c["path"].startswith(root + "/") else c["path"]) for c in chunks[:SEMBLE_LIMIT]]
    ranks = semble.chunk_ranks(res, row["targets"])
    return semble.ndcg_at_k([r for r in ranks if r is not None], len(row["targets"]))


def semble_table(rows: list[dict], chunks_of) -> dict:
    """Mean nDCG@10 per repository, then over repositories (run.py's
    overall figure), and the same by language and category."""
    per_repo = collections.defaultdict(list)
    by_category = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        v = semble_ndcg(r, chunks_of(r))
        per_repo[r["repo"]].append(v)
        by_category[r["category"]][r["repo"]].append(v)
    repos = {k: sum(v) / len(v) for k, v in per_repo.items()}
    mean = lambda xs: sum(xs) / max(len(xs), 1)
    return {"n": len(rows), "ndcg10": mean(list(repos.values())), "repos": repos,
            "categories": {c: mean([mean(v) for v in d.values()]) for c, d in by_category.items()}}


# Chunk rankers for semble: a row → its chunks, best first.
CHUNK_RANKERS = {
    "shipped": lambda row: row["pools"]["shipped"]["results"],
    "wide-order": lambda row: row["pools"]["wide"]["results"],
}


def distinct_files(results: list[dict]) -> list[str]:
    seen: list[str] = []
    for r in results:
        if r["path"] not in seen:
            seen.append(r["path"])
    return seen


def rows_of(out: Path, sets: list[str]) -> list[dict]:
    rows = []
    for s in sets:
        p = out / f"{s}.jsonl"
        if p.exists():
            rows += [json.loads(line) for line in open(p) if line.strip()]
    for r in rows:
        if r["set"] == "semble":
            r["gold"] = semble_gold(r)
    return rows


def semble_gold(row: dict) -> dict:
    """A semble question's target files among its pools' paths, matched as
    run.py matches them (a suffix at a '/' boundary, relative to the
    benchmark root): its file labels."""
    semble = sys.modules.get("semble_run") or load_module("semble_run", EVAL / "semble" / "run.py")
    root = row["root"]
    paths = {c["path"] for pool in row["pools"].values() for c in pool["results"]}
    relative = lambda p: p[len(root) + 1:] if root and p.startswith(root + "/") else p
    return {p: [] for p in paths if any(semble.path_matches(relative(p), t["path"]) for t in row["targets"])}


def file_rank(files: list[str], gold: dict) -> int | None:
    return next((i + 1 for i, f in enumerate(files) if f in gold), None)


# Rankers: a row → its files, best first.
RANKERS = {
    "shipped": lambda row: distinct_files(row["pools"]["shipped"]["results"]),
    "wide-order": lambda row: distinct_files(row["pools"]["wide"]["results"]),
}


def accuracy(ranks: list[int | None]) -> dict[int, float]:
    return {k: sum(1 for r in ranks if r is not None and r <= k) / max(len(ranks), 1) for k in KS}


def table(rows: list[dict], rank_of) -> dict:
    """File Acc@k of one ranker by set (mean over issues, as swe_localize.py
    scores) and per repository."""
    out = {}
    for s in sorted({r["set"] for r in rows}):
        these = [r for r in rows if r["set"] == s]
        ranks = [file_rank(rank_of(r), r["gold"]) for r in these]
        per_repo = collections.defaultdict(list)
        for r, k in zip(these, ranks):
            per_repo[r["repo"]].append(k)
        out[s] = {"n": len(these), "acc": accuracy(ranks), "repos": {repo: accuracy(ks) for repo, ks in per_repo.items()}}
    return out


def score(args) -> None:
    rows = rows_of(Path(args.out), args.sets.split(","))
    chunk_sets = {"semble": semble_table, "kit": kit_table, "kit-vectors": kit_table}
    by_chunks = {s: [r for r in rows if r["set"] == s] for s in chunk_sets}
    rows = [r for r in rows if r["set"] not in chunk_sets]
    for name in args.rankers.split(","):
        for s, these in by_chunks.items():
            if these:
                t = chunk_sets[s](these, CHUNK_RANKERS[name])
                cats = " ".join(f"{c} {v:.3f}" for c, v in sorted(t["categories"].items()))
                print(f"{name:12s} {s:11s} n={t['n']:4d} chunk nDCG@10 {t['ndcg10']:.3f} ({cats})")
        t = table(rows, RANKERS[name])
        for s, v in t.items():
            acc = " / ".join(f"{v['acc'][k]:.3f}" for k in KS)
            print(f"{name:12s} {s:11s} n={v['n']:4d} file Acc@1/3/5/10 {acc}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("--set", required=True, choices=sorted(SETS))
    r.add_argument("--bin", default="git-rag")
    r.add_argument("--repos", default="")
    rs = sub.add_parser("record-semble")
    rs.add_argument("out")
    rs.add_argument("--bin", default="git-rag")
    rs.add_argument("--repos", default="")
    rk = sub.add_parser("record-kit")
    rk.add_argument("out")
    rk.add_argument("--corpora", required=True)
    rk.add_argument("--semantic", action="store_true")
    rk.add_argument("--bin", default="git-rag")
    s = sub.add_parser("score")
    s.add_argument("out")
    s.add_argument("--sets", default="lite,verified,mulocbench")
    s.add_argument("--rankers", default="shipped,wide-order")
    args = ap.parse_args()
    {"record": record, "record-semble": record_semble, "record-kit": record_kit, "score": score}[args.command](args)


if __name__ == "__main__":
    main()
