#!/usr/bin/env python3
"""Collects what the ranking sees for the wide training data of
`scripts/mine-ranking.py`: each mined question asked of its repository
indexed at the question's parent commit, with every candidate's features
(`git rag query --json -n 40 --explain`) and which candidates are its
targets. `scripts/fit-ranking.py` reads the rows (datasets `wide-issue`,
`wide-question`, `wide-name`; one group per repository, so every figure
can be held out one repository at a time).

Per repository: a clone of the fetched mirror (`--shared`, no checkout),
its parents in commit order, the index brought to each by `git rag index
--rev PARENT` (only what changed since the last one), then the questions
of that parent, asked `--at-commit`. Name-like questions come from here too: the
definitions a commit changed (`git rag impact COMMIT --json`), each asked
by its bare name and by its qualified name as the language writes it
(`a::b`, `A.b`, `A\\B`), kept only when `--mode symbol` finds the bare
name defined in more than one file (the pool holds same-named decoys).

    collect-ranking.py OUT --pairs DATA/pairs.jsonl --mirrors DIR [--bin git-rag] [--repos a/b,c/d] [--per-repo N] [--names-every K]

Writes OUT/<owner+name>.jsonl (resumable: a repository whose file is
complete is skipped) and prints each repository's counts and time.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

POOL = 40
# A bare name defined in more files than this is asked only qualified.
MAX_NAMESAKES = 5
# How a qualified name is written, by the language's separator.
SEPARATOR = {"rust": "::", "c++": "::", "cpp": "::", "php": "\\", "ruby": "::"}


def git(*args, cwd, check=True):
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])}: {r.stderr[-300:]}")
    return r.stdout


def rag(binary, args, cwd, index, timeout=300):
    env = dict(os.environ, GIT_RAG_DIR=str(index))
    return subprocess.run([binary, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def stage_features(explain):
    """A result's stage features by name: the values of the terms it was
    scored by (every feature that holds a value), or, for a question the
    stage leaves alone, those it would read (`--explain-features`); None
    past the stage's pool."""
    if not explain:
        return None
    if explain.get("ranked_by") in ("stage", "structure"):
        # The model's terms but its base and the intents (the row says the intent).
        return {c["name"]: c["value"] for c in explain["contributions"] if c["name"] not in ("repeat_of_file", "model_base") and not c["name"].startswith("intent_")}
    if "unscored_features" in explain:
        return {c["name"]: c["value"] for c in explain["unscored_features"]}
    return None


def fusion_terms(explain):
    """The fused score's terms by name (lists at their ranks, priors, lift)."""
    e = explain or {}
    e = e.get("fused") or e
    out = {}
    for c in e.get("contributions", []):
        out[c["name"]] = out.get(c["name"], 0.0) + c["contribution"]
    return out


def ask(binary, work, index, text):
    p = rag(binary, ["query", text, "--json", "-n", str(POOL), "--mode", "hybrid", "--explain", "--explain-features", "--at-commit", "--timeout", "30"], work, index, timeout=120)
    if p.returncode != 0:
        return None
    d = json.loads(p.stdout)
    results = []
    for r in d.get("results", []):
        s = r.get("signals") or {}
        results.append({"path": r["path"], "start_line": int(r["start_line"]), "end_line": int(r["end_line"]), "symbol": r.get("symbol"), "kind": r.get("kind"),
                        "features": stage_features(r.get("explain")), "fusion": fusion_terms(r.get("explain")), "score": r.get("score"),
                        "structural": min((v for k in ("callees", "patterns") if (v := s.get(k)) is not None), default=None)})
    return {"intent": d.get("analysis", {}).get("intent"), "results": results}


def names_of(binary, work, index, commit, language):
    """Name-like questions from the definitions `commit` changed: (query, target)."""
    p = rag(binary, ["impact", commit, "--json"], work, index)
    if p.returncode != 0:
        return []
    out = []
    for c in json.loads(p.stdout).get("changed", []):
        symbol, change = c.get("symbol"), c.get("change")
        if not symbol or change not in ("body", "signature", "modified", "changed"):
            continue
        own = symbol.replace("::", ".").replace("\\", ".").rsplit(".", 1)[-1]
        # `__init__`, `new`, `run`: no one asks for one of hundreds by it.
        if len(own) < 4 or (own.startswith("__") and own.endswith("__")):
            continue
        target = {"path": c["path"], "start_line": int(c["start_line"]), "end_line": int(c["end_line"])}
        found = rag(binary, ["query", own, "--json", "-n", "20", "--mode", "symbol", "--at-commit"], work, index)
        if found.returncode != 0:
            continue
        files = {r["path"] for r in json.loads(found.stdout).get("results", []) if r.get("name_match")}
        if len(files) < 2:
            continue
        # Bare only while the pool can hold the one meant among its namesakes.
        if len(files) <= MAX_NAMESAKES:
            out.append((own, target))
        if "." in symbol or "::" in symbol or "\\" in symbol:
            sep = SEPARATOR.get(language, ".")
            out.append((symbol.replace("::", ".").replace("\\", ".").replace(".", sep), target))
    return out


def collect_repo(args, repo, rows, out_path):
    mirror = Path(args.mirrors) / repo.replace("/", "+") / "repo"
    work = Path(args.out) / "work" / repo.replace("/", "+")
    index = Path(args.out) / "index" / repo.replace("/", "+")
    if not work.exists():
        work.parent.mkdir(parents=True, exist_ok=True)
        git("clone", "-q", "--shared", "--no-checkout", str(mirror), str(work), cwd=".")
    times = {}
    for r in rows:
        if r["parent"] not in times:
            times[r["parent"]] = int(git("show", "-s", "--format=%ct", r["parent"], cwd=work).strip() or 0)
    by_parent = defaultdict(list)
    for r in rows:
        by_parent[r["parent"]].append(r)
    parents = sorted(by_parent, key=lambda p: times[p])
    language = rows[0].get("language", "")
    started = time.time()
    written = defaultdict(int)
    tmp = out_path.with_suffix(".partial")
    with open(tmp, "w") as out:
        for n, parent in enumerate(parents):
            # The index reads the commit from git (a snapshot may lack a big
            # blob, which a checkout refuses); queries leave the empty work tree out.
            p = rag(args.bin, ["index", "-q", "--no-semantic", "--rev", parent], work, index, timeout=1800)
            if p.returncode != 0:
                print(f"  [{repo}] index at {parent[:12]} failed: {p.stderr.strip()[-200:]}", file=sys.stderr)
                continue
            questions = [(r["kind"], r["query"], r["targets"], r["commit"]) for r in by_parent[parent]]
            if args.names_every and n % args.names_every == 0:
                commit = by_parent[parent][0]["commit"]
                questions += [("name", q, [t], commit) for q, t in names_of(args.bin, work, index, commit, language)]
            for kind, text, targets, commit in questions:
                got = ask(args.bin, work, index, text)
                if not got:
                    continue
                out.write(json.dumps({"dataset": f"wide-{kind}", "group": repo, "unit": repo, "language": language, "category": kind, "query": text,
                                      "root": "", "targets": targets, "parent": parent, "commit": commit, **got}) + "\n")
                written[kind] += 1
    tmp.rename(out_path)
    print(f"[{repo}] {len(parents)} parents, " + ", ".join(f"{k} {v}" for k, v in sorted(written.items())) + f", {time.time() - started:.0f} s", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--bin", default="git-rag")
    ap.add_argument("--repos", default="", help="only these repositories (owner/name, comma-separated)")
    ap.add_argument("--per-repo", type=int, default=0, help="at most this many parents per repository (evenly chosen; 0: all)")
    ap.add_argument("--names-every", type=int, default=4, help="name-like questions from every K-th parent's commit (0: none)")
    args = ap.parse_args()
    rows = defaultdict(list)
    for line in open(args.pairs):
        r = json.loads(line)
        rows[r["repo"]].append(r)
    wanted = [r for r in args.repos.split(",") if r] or sorted(rows)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    for repo in wanted:
        out_path = Path(args.out) / f"{repo.replace('/', '+')}.jsonl"
        if out_path.exists():
            continue
        mine = rows.get(repo, [])
        if args.per_repo:
            parents = sorted({r["parent"] for r in mine})
            step = max(1, len(parents) // args.per_repo)
            keep = set(parents[::step][:args.per_repo])
            mine = [r for r in mine if r["parent"] in keep]
        if mine:
            collect_repo(args, repo, mine, out_path)


if __name__ == "__main__":
    main()
