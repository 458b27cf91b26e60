#!/usr/bin/env python3
"""Issue-to-code localization on the SWE-bench kit, at file, line and function level, for
several query configurations against one index per instance.

The shared `../shared/eval/swebench/swe_localize.py` scores files and lines; this script adds
the function level (issue 36): function Acc@k counts an instance when one of the first k result
chunks is a function or method the fix changes (same file, the chunk's symbol ends with the
function's name, and their lines overlap). A changed function is the innermost `def` around a
line the patch removes or changes (pure insertions: the lines around them), in every file the
patch touches, read with Python's `ast` at the base commit; an instance whose fix changes no
function is left out of the function numbers (`n_functions` says how many count).

File and line ranks follow the shared script exactly (the first patched file, distinct result
files in order), so the hybrid row equals its numbers for the same binary.

Usage: swe_localize_functions.py OUTDIR [--bin git-rag] [--repos a,b] [--limit 50]
           [--config NAME=ARGS ...]   (default: hybrid, hybrid --files, keyword)
Needs SWE_MIRRORS as the shared script does. Writes OUTDIR/results.jsonl (ranks per instance and
configuration, with the first 10 result chunks) and OUTDIR/summary.json, and prints the summary.
"""
import argparse, ast, collections, json, os, re, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.environ.get("SWE_KIT", os.path.join(HERE, "..", "..", "shared", "eval", "swebench"))
sys.path.insert(0, KIT)
os.environ.setdefault("SWE_MIRRORS", "/work/.mirror")
import swe_localize as shared  # noqa: E402  (gold(), bm25_files(), instances())

DEFAULT_CONFIGS = {"hybrid": "--mode hybrid", "files": "--mode hybrid --files", "keyword": "--mode keyword"}


def patched_spans(patch):
    """{path: [(start, end)]} of every file the patch touches, as the shared gold() reads one."""
    out = {}
    for part in re.split(r"(?m)^(?=diff --git )", patch):
        if part.startswith("diff --git"):
            path, spans = shared.gold(part)
            out[path] = spans
    return out


def changed_functions(repo, commit, path, spans):
    """(qualified name, start, end) of the innermost functions around the spans."""
    r = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=repo, capture_output=True)
    if r.returncode != 0 or not path.endswith(".py"):
        return []
    try:
        tree = ast.parse(r.stdout)
    except (SyntaxError, ValueError):
        return []
    defs = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                if not isinstance(child, ast.ClassDef):
                    defs.append((name, start, child.end_lineno))
                walk(child, name + ".")
            else:
                walk(child, prefix)
    walk(tree, "")
    found = set()
    for s, e in spans:
        around = [d for d in defs if d[1] <= e and s <= d[2]]
        if around:
            found.add(min(around, key=lambda d: d[2] - d[1]))
    return sorted(found)


def ranks(results, gold_path, spans, functions):
    files, frank, lrank, fnrank = [], None, None, None
    for i, h in enumerate(results):
        if h["path"] not in files:
            files.append(h["path"])
        if frank is None and h["path"] == gold_path:
            frank = len(files)
        if lrank is None and h["path"] == gold_path and any(h["start_line"] <= e and s <= h["end_line"] for s, e in spans):
            lrank = i + 1
        symbol = (h.get("symbol") or "").split(".")[-1]
        if fnrank is None and symbol and any(
                h["path"] == p and symbol == name.split(".")[-1] and h["start_line"] <= e and s <= h["end_line"]
                for p, name, s, e in functions):
            fnrank = i + 1
    return frank, lrank, fnrank


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--bin", default="git-rag")
    ap.add_argument("--repos", default="")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--semantic", action="store_true", help="index with vectors (default: keyword layers)")
    ap.add_argument("--keep", type=int, default=10, help="result chunks kept per configuration in results.jsonl")
    ap.add_argument("--config", action="append", default=[], help="NAME=query args, e.g. files='--mode hybrid --files'")
    a = ap.parse_args()
    configs = dict(c.split("=", 1) for c in a.config) if a.config else DEFAULT_CONFIGS
    os.makedirs(a.out, exist_ok=True)
    want = set(a.repos.split(",")) if a.repos else None
    by_repo = collections.defaultdict(list)
    for x in shared.instances():
        if os.path.isdir(f"{shared.MIRRORS}/{x['repo'].replace('/', '+')}/repo") and (not want or x["repo"] in want):
            by_repo[x["repo"]].append(x)
    rows = []
    out = open(os.path.join(a.out, "results.jsonl"), "w")
    for repo, xs in sorted(by_repo.items()):
        xs.sort(key=lambda x: x["created_at"])
        slug = repo.replace("/", "+")
        work = os.path.join(a.out, "repos", slug)
        if not os.path.isdir(work):
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", f"{shared.MIRRORS}/{slug}/repo", work], check=True)
        env = dict(os.environ, GIT_RAG_DIR=os.path.join(a.out, "idx", slug + ("-sem" if a.semantic else "")))
        for x in xs:
            gold_path, spans = shared.gold(x["patch"])
            functions = [(p, *f) for p, sp in patched_spans(x["patch"]).items()
                         for f in changed_functions(work, x["base_commit"], p, sp)]
            r = subprocess.run([a.bin, "index", "--rev", x["base_commit"], "--quiet"] + ([] if a.semantic else ["--no-semantic"]),
                               cwd=work, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                print("index failed", x["instance_id"], r.stderr[-300:], file=sys.stderr)
                continue
            row = {"id": x["instance_id"], "repo": repo, "gold": gold_path, "functions": [f[1] for f in functions]}
            for name, args in configs.items():
                t0 = time.time()
                r = subprocess.run([a.bin, "query", "--json", "--limit", str(a.limit)] + args.split() + ["--", x["problem_statement"]],
                                   cwd=work, env=env, capture_output=True, text=True)
                took = time.time() - t0
                try:
                    results = json.loads(r.stdout)["results"]
                except (ValueError, KeyError):
                    print("query failed", x["instance_id"], name, r.stderr[-300:], file=sys.stderr)
                    results = []
                frank, lrank, fnrank = ranks(results, gold_path, spans, functions)
                row[name] = {"file": frank, "line": lrank, "function": fnrank, "ms": round(took * 1000, 1),
                             "top": [{k: h.get(k) for k in ("path", "start_line", "end_line", "symbol", "kind", "score", "signals")}
                                     for h in results[:a.keep]]}
            bf = shared.bm25_files(work, x["base_commit"], x["problem_statement"])
            row["bm25"] = {"file": bf.index(gold_path) + 1 if gold_path in bf else None}
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{x['instance_id']:35s} " + " ".join(f"{n}:f{row[n]['file']}/l{row[n]['line']}/fn{row[n]['function']}" for n in configs)
                  + f" bm25:f{row['bm25']['file']}", file=sys.stderr)

    def acc(rows, name, key, k):
        return round(sum(1 for r in rows if (r[name].get(key) or 10 ** 9) <= k) / max(len(rows), 1), 4)
    with_fn = [r for r in rows if r["functions"]]
    summary = {"n": len(rows), "n_functions": len(with_fn)}
    for name in list(configs) + ["bm25"]:
        s = {"file": {k: acc(rows, name, "file", k) for k in (1, 3, 5, 10)}}
        if name != "bm25":
            s["line"] = {k: acc(rows, name, "line", k) for k in (1, 3, 5, 10)}
            s["function"] = {k: acc(with_fn, name, "function", k) for k in (1, 5, 10)}
            s["query_p50_ms"] = sorted(r[name]["ms"] for r in rows)[len(rows) // 2] if rows else None
        summary[name] = s
    json.dump(summary, open(os.path.join(a.out, "summary.json"), "w"), indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
