#!/usr/bin/env bash
# Query latency of `git rag query` as a process, per mode, on the dev corpora
# and optionally `large`: p50 / p95 of wall time and of the tool's own
# `took_ms` (search only), plus the wall time of a process that does nothing
# (`git rag --version`) measured in the same run, so the split between process
# start / opening (model load, shard open) and search is visible.
#   scripts/bench-query.sh [corpus ...]      (default: requests express query-core)
# Env: GIT_RAG_BIN (existing binary), MODES (default "keyword semantic graph hybrid"),
#      REPEAT (runs per query, default 1), CORPORA (where the eval corpora live).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/eval-env.sh
corpora=("$@"); [ ${#corpora[@]} -gt 0 ] || corpora=(requests express query-core)
python3 - "$bin" "$EVAL_DIR" "$CORPORA" "${MODES:-keyword semantic graph hybrid}" "${REPEAT:-1}" "${corpora[@]}" <<'PY'
import json, os, subprocess, sys, time
bin_, eval_dir, root, modes, repeat = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), int(sys.argv[5])
corpora = sys.argv[6:]
# Queries of the dev kit; for a corpus without a query set, a fixed mix of forms.
GENERIC = ["where is the request dispatched", "parse_url", "what calls render", "QuerySet", "how are errors logged",
           "cache invalidation", "what does serialize call", "TemplateResponse", "retry with backoff", "who uses validate"]
def pct(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))] if xs else float("nan")
def run(args, cwd):
    t = time.perf_counter(); out = subprocess.run(args, cwd=cwd, capture_output=True, text=True); return (time.perf_counter() - t) * 1000, out
print(f"{'corpus':<12} {'mode':<9} {'n':>4} | {'wall p50':>9} {'wall p95':>9} | {'took p50':>9} {'took p95':>9} | start p50")
for c in corpora:
    cwd = os.path.join(root, c)
    qfile = os.path.join(eval_dir, "queries", f"{c}.jsonl")
    queries = [json.loads(l)["query"] for l in open(qfile)] if os.path.exists(qfile) else GENERIC
    start = [run([bin_, "--version"], cwd)[0] for _ in range(10)]
    for mode in modes:
        wall, took = [], []
        for _ in range(repeat):
            for q in queries:
                ms, out = run([bin_, "query", q, "--json", "--mode", mode, "--limit", "10"], cwd)
                if out.returncode != 0:
                    print(f"  {c} {mode}: {out.stderr.strip()[:200]}", file=sys.stderr); break
                wall.append(ms); took.append(json.loads(out.stdout).get("took_ms", float("nan")))
        if wall:
            print(f"{c:<12} {mode:<9} {len(wall):>4} | {pct(wall,50):>9.1f} {pct(wall,95):>9.1f} | {pct(took,50):>9.1f} {pct(took,95):>9.1f} | {pct(start,50):.1f}")
PY
