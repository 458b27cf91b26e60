#!/usr/bin/env bash
# Query latency of `git rag query` as a process, per mode, on the dev corpora
# and optionally `large`: p50 / p95 of wall time and of the tool's own
# `took_ms` (search only), plus the wall time of a process that does nothing
# (`git rag --version`) measured in the same run, so the split between process
# start / opening (model load, shard open) and search is visible.
#   scripts/bench-query.sh [corpus ...]      (default: requests express query-core)
# Env: GIT_RAG_BIN (existing binary), MODES (default "keyword semantic graph hybrid"),
#      REPEAT (runs per query, default 1), CORPORA (where the eval corpora live),
#      INDEX_DIR_<corpus> (an index dir other than the corpus's default, e.g.
#      INDEX_DIR_large=/tmp/large-idx).
# The second table splits `took_ms` by step (medians of `timings` in --json):
# opening the index, loading the model, opening the vector store (beside the
# model load), embedding the query, and each retriever.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/eval-env.sh
corpora=("$@"); [ ${#corpora[@]} -gt 0 ] || corpora=(requests express query-core)
python3 - "$bin" "$EVAL_DIR" "$CORPORA" "${MODES:-keyword semantic graph hybrid}" "${REPEAT:-1}" "${corpora[@]}" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, "scripts")
from bench_queries import pct, queries_for
bin_, eval_dir, root, modes, repeat = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), int(sys.argv[5])
corpora = sys.argv[6:]
STEPS = ["index_open", "model_load", "store_open", "embed_query", "vector_search", "bm25", "symbol", "graph"]
def run(args, cwd, env=None):
    t = time.perf_counter(); out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env); return (time.perf_counter() - t) * 1000, out
print(f"{'corpus':<12} {'mode':<9} {'n':>4} | {'wall p50':>9} {'wall p95':>9} | {'took p50':>9} {'took p95':>9} | start p50")
splits = []
for c in corpora:
    cwd = os.path.join(root, c)
    env = dict(os.environ)
    if os.environ.get(f"INDEX_DIR_{c}"):
        env["GIT_RAG_DIR"] = os.environ[f"INDEX_DIR_{c}"]
    queries = queries_for(eval_dir, c)
    start = [run([bin_, "--version"], cwd)[0] for _ in range(10)]
    for mode in modes:
        wall, took, steps = [], [], {s: [] for s in STEPS}
        for _ in range(repeat):
            for q in queries:
                ms, out = run([bin_, "query", q, "--json", "--mode", mode, "--limit", "10"], cwd, env)
                if out.returncode != 0:
                    print(f"  {c} {mode}: {out.stderr.strip()[:200]}", file=sys.stderr); break
                answer = json.loads(out.stdout)
                wall.append(ms); took.append(answer.get("took_ms", float("nan")))
                for s, v in answer.get("timings", {}).items():
                    if s in steps: steps[s].append(v)
        if wall:
            print(f"{c:<12} {mode:<9} {len(wall):>4} | {pct(wall,50):>9.1f} {pct(wall,95):>9.1f} | {pct(took,50):>9.1f} {pct(took,95):>9.1f} | {pct(start,50):.1f}")
            splits.append((c, mode, {s: pct(v, 50) for s, v in steps.items() if v}))
print()
print(f"{'corpus':<12} {'mode':<9} | " + " ".join(f"{s:>13}" for s in STEPS) + "   (median ms; blank: the step did not run)")
for c, mode, m in splits:
    print(f"{c:<12} {mode:<9} | " + " ".join(f"{m[s]:>13.1f}" if s in m else " " * 13 for s in STEPS))
PY
